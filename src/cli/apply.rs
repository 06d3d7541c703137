//! `sow apply <POSITION> <MOVE>...`: plays moves in order and prints the
//! final position in notation as the last line.

use super::{parse_any, CliError, Out};
use crate::analysis::position_models::apply_moves;
use crate::game::Game;

/// `sow apply`: its command line.
#[derive(clap::Args, Debug)]
pub struct ApplyArgs {
    /// Position (quoted notation or a shortcut).
    pub position: String,
    /// Moves in notation (Kpé: a pit index such as `2`).
    #[arg(required = true, value_name = "MOVE")]
    pub moves: Vec<String>,
}

impl ApplyArgs {
    pub fn run(&self, out: &mut Out) -> Result<(), CliError> {
        crate::with_position!(parse_any(&self.position)?, p => apply(&p, &self.moves, out))
    }
}

/// Plays `moves` from `start`. An illegal or malformed move stops the
/// sequence with an error naming its 1-based index; in human mode the
/// positions reached before it have been printed already.
pub fn apply<G: Game>(start: &G, moves: &[String], out: &mut Out) -> Result<(), CliError> {
    let mut printed = Ok(());
    let result = apply_moves(start, moves, |i, mv, cur| {
        if printed.is_ok() && !out.quiet {
            printed = out.line(format!("{i:>3}. {:<6} {cur}", mv.to_string()));
        }
    });
    printed?;
    let (model, last) = result.map_err(CliError::from)?;
    out.model(&model)?;
    out.line(&last)
}
