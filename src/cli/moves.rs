//! `sow moves <POSITION> [--all]`: the legal moves in notation, one a line.

use super::{parse_any, CliError, Out, MOVE_LIST_LIMIT};
use crate::analysis::position_models::MovesModel;
use crate::game::Game;
use crate::report::position::stream_moves;

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
        crate::with_position!(parse_any(&self.position)?, p => moves(&p, self.all, out))
    }
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
    let written = stream_moves(p, json, out.writer())?;
    if !json && written == 0 && !out.quiet {
        eprintln!("no legal moves: the game is over");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::analysis::position_models::listed_moves;
    use crate::analysis::test_games::Wide;
    use crate::cli::output::Captured;

    /// What `moves` prints of `wide`, in JSON or as text.
    fn printed(wide: &Wide, all: bool, json: bool) -> String {
        let captured = Captured::default();
        moves(wide, all, &mut captured.out(json, false)).unwrap();
        captured.text()
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
