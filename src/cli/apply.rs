//! `sow apply <POSITION> <MOVE>...`: plays moves in order and prints the
//! final position in notation as the last line.

use serde_json::json;

use super::{AnyPosition, CliError, Out};
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
        run(&super::parse_position(&self.position)?, &self.moves, out)
    }
}

pub fn run(pos: &AnyPosition, moves: &[String], out: &mut Out) -> Result<(), CliError> {
    crate::with_position!(pos, p => apply(p, moves, out))
}

/// Plays `moves` from `start`. An illegal or malformed move stops the
/// sequence with an error naming its 1-based index; in human mode the
/// positions reached before it have been printed already.
pub fn apply<G: Game>(start: &G, moves: &[String], out: &mut Out) -> Result<(), CliError> {
    let mut cur = start.clone();
    let mut positions = Vec::with_capacity(moves.len());
    let mut played = Vec::with_capacity(moves.len());
    for (i, text) in moves.iter().enumerate() {
        let mv = cur.parse_move(text).map_err(|e| {
            let mut err = CliError::from(e);
            err.message = format!(
                "move {} of {} (`{text}`) refused: {}",
                i + 1,
                moves.len(),
                err.message
            );
            err.index = Some(i + 1);
            err
        })?;
        cur = cur.play_unchecked(&mv);
        if !out.quiet {
            out.line(format!("{:>3}. {:<6} {}", i + 1, mv.to_string(), cur))?;
        }
        played.push(mv.to_string());
        positions.push(cur.to_string());
    }
    let over = cur.is_over();
    out.json(&json!({
        "start": start.to_string(),
        "moves": played,
        "positions": positions,
        "final": cur.to_string(),
        "over": over,
    }))?;
    out.line(&cur)
}
