//! `sow show <POSITION>`: the board, whose turn it is, and the legal moves.

use serde_json::{json, Value};

use super::board::{side_name, Board};
use super::{AnyPosition, CliError, Out, MOVE_LIST_LIMIT};
use crate::game::Game;

/// `sow show`: its command line.
#[derive(clap::Args, Debug)]
pub struct ShowArgs {
    /// Position (quoted notation or a shortcut).
    pub position: String,
}

impl ShowArgs {
    pub fn run(&self, out: &mut Out) -> Result<(), CliError> {
        run(&super::parse_position(&self.position)?, out)
    }
}

pub fn run(pos: &AnyPosition, out: &mut Out) -> Result<(), CliError> {
    crate::with_position!(pos, p => show(p, out))
}

/// The legal moves in notation, or `None` when there are more than
/// [`MOVE_LIST_LIMIT`] of them (never enumerates a huge list).
pub fn listed_moves<G: Game>(p: &G) -> (u64, Option<Vec<String>>) {
    let count = p.move_count();
    if count > MOVE_LIST_LIMIT {
        (count, None)
    } else {
        (
            count,
            Some(p.legal_moves().iter().map(|m| m.to_string()).collect()),
        )
    }
}

/// Totals at the end of the game: captures plus the final sweep.
fn final_totals<G: Game>(p: &G) -> [u32; 2] {
    let c = p.captured();
    let s = p.final_sweep();
    [c[0] + s[0], c[1] + s[1]]
}

fn verdict(totals: [u32; 2]) -> String {
    use std::cmp::Ordering::*;
    match totals[0].cmp(&totals[1]) {
        Greater => format!("South wins {} to {}", totals[0], totals[1]),
        Less => format!("North wins {} to {}", totals[1], totals[0]),
        Equal => format!("draw {} to {}", totals[0], totals[1]),
    }
}

pub fn show<G: Board>(p: &G, out: &mut Out) -> Result<(), CliError> {
    let (count, moves) = listed_moves(p);
    let over = count == 0;
    let side = p.side_to_move();
    if out.json {
        let mut obj = json!({
            "position": p.to_string(),
            "game": p.game_name(),
            "side": side.letter().to_string(),
            "pits": p.pit_counts(),
            "captured": p.captured(),
            "moves": moves,
            "move_count": count,
            "over": over,
        });
        if over {
            let totals = final_totals(p);
            obj["sweep"] = json!(p.final_sweep());
            obj["final"] = json!(totals);
            obj["winner"] = match totals[0].cmp(&totals[1]) {
                std::cmp::Ordering::Greater => json!("S"),
                std::cmp::Ordering::Less => json!("N"),
                std::cmp::Ordering::Equal => Value::Null,
            };
        }
        if let Value::Object(map) = &mut obj {
            map.extend(p.details());
        }
        return out.json(&obj);
    }
    out.line(p)?;
    out.line("")?;
    out.line(p.draw())?;
    out.line("")?;
    if over {
        let sweep = p.final_sweep();
        out.line(format!(
            "game over: {} to move has no legal move",
            side_name(side)
        ))?;
        out.line(format!(
            "sweep: South {} North {}; final: {}",
            sweep[0],
            sweep[1],
            verdict(final_totals(p))
        ))?;
    } else {
        out.line(format!("{} to move", side_name(side)))?;
        match moves {
            Some(list) => out.line(format!("moves ({count}): {}", list.join(" ")))?,
            None => out.line(format!(
                "moves: {count} (too many to list; `sow moves --all` enumerates them)"
            ))?,
        }
    }
    Ok(())
}
