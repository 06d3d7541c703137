//! `sow moves <POSITION> [--all]`: the legal moves in notation, one a line.

use std::ops::ControlFlow;

use serde_json::json;

use super::{AnyPosition, CliError, Out, MOVE_LIST_LIMIT};
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
/// in which case they are streamed as they are generated.
pub fn moves<G: Game>(p: &G, all: bool, out: &mut Out) -> Result<(), CliError> {
    let count = p.move_count();
    if count > MOVE_LIST_LIMIT && !all {
        out.json(&json!({
            "position": p.to_string(),
            "moves": null,
            "count": count,
        }))?;
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
