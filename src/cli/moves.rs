//! `sow moves <POSITION> [--all]`: the legal moves in notation, one a line.

use std::ops::ControlFlow;

use super::{AnyPosition, CliError, Out, MOVE_LIST_LIMIT};
use crate::analysis::position_models::MovesModel;
use crate::game::Game;

/// `sow moves`: its command line.
#[derive(clap::Args, Debug)]
pub struct MovesArgs {
    /// Position (quoted notation or a shortcut).
    pub position: String,
    /// Enumerate the moves even when there are more than 10,000.
    #[arg(long)]
    pub all: bool,
}

impl MovesArgs {
    pub fn run(&self, out: &mut Out) -> Result<(), CliError> {
        run(&super::parse_position(&self.position)?, self.all, out)
    }
}

pub fn run(pos: &AnyPosition, all: bool, out: &mut Out) -> Result<(), CliError> {
    crate::with_position!(pos, p => moves(p, all, out))
}

/// Lists the moves; above [`MOVE_LIST_LIMIT`] only the count unless `all`,
/// in which case they are streamed as they are generated (in the shape of
/// [`MovesModel`], which cannot hold hundreds of millions of moves).
pub fn moves<G: Game>(p: &G, all: bool, out: &mut Out) -> Result<(), CliError> {
    let count = p.move_count();
    if count > MOVE_LIST_LIMIT && !all {
        out.model(&MovesModel::new(p))?;
        out.line(format!(
            "{count} legal moves (more than {MOVE_LIST_LIMIT}); `--all` enumerates them"
        ))?;
        return Ok(());
    }
    let json = out.json;
    let w = out.writer();
    if json {
        write!(
            w,
            "{{\"position\":{},\"moves\":[",
            serde_json::Value::from(p.to_string())
        )?;
    }
    let mut written = 0u64;
    let mut failure = None;
    let _ = p.for_each_move(|mv| {
        let text = mv.to_string();
        let r = if json {
            let sep = if written == 0 { "" } else { "," };
            write!(w, "{sep}{}", serde_json::Value::from(text))
        } else {
            writeln!(w, "{text}")
        };
        written += 1;
        match r {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                failure = Some(e);
                ControlFlow::Break(())
            }
        }
    });
    if let Some(e) = failure {
        return Err(e.into());
    }
    if json {
        writeln!(w, "],\"count\":{written}}}")?;
    } else if written == 0 && !out.quiet {
        eprintln!("no legal moves: the game is over");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::io::Write;
    use std::rc::Rc;

    use serde_json::Value;

    use super::*;
    use crate::analysis::position_models::listed_moves;
    use crate::analysis::test_games::Wide;

    #[derive(Clone, Default)]
    struct Buf(Rc<RefCell<Vec<u8>>>);

    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// What `moves` prints of `wide`, in JSON or as text.
    fn printed(wide: &Wide, all: bool, json: bool) -> String {
        let buf = Buf::default();
        let mut out = Out::new(json, false, Box::new(buf.clone()));
        moves(wide, all, &mut out).unwrap();
        let text = String::from_utf8(buf.0.borrow().clone()).unwrap();
        text
    }

    #[test]
    fn many_moves_are_counted_not_listed() {
        let wide = Wide(MOVE_LIST_LIMIT as u32 + 1);
        let text = printed(&wide, false, false);
        assert!(text.contains("10001 legal moves"), "{text}");
        let v: Value = serde_json::from_str(&printed(&wide, false, true)).unwrap();
        assert_eq!(v["count"], 10001);
        assert!(v["moves"].is_null());
        let v: Value = serde_json::from_str(&printed(&wide, true, true)).unwrap();
        assert_eq!(v["count"], 10001);
        assert_eq!(v["moves"].as_array().unwrap().len(), 10001);
        assert_eq!(v["moves"][10000], "10000");
        assert_eq!(printed(&wide, true, false).lines().count(), 10001);
        assert_eq!(listed_moves(&wide), (10001, None));
    }
}
