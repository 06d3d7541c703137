//! `sow show <POSITION>`: the board, whose turn it is, and the legal moves.

use super::{AnyPosition, CliError, Out};
use crate::analysis::position_models::{final_totals, listed_moves, ShowModel};
use crate::report::board::{side_name, Board};

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

fn verdict(totals: [u32; 2]) -> String {
    use std::cmp::Ordering::*;
    match totals[0].cmp(&totals[1]) {
        Greater => format!("South wins {} to {}", totals[0], totals[1]),
        Less => format!("North wins {} to {}", totals[1], totals[0]),
        Equal => format!("draw {} to {}", totals[0], totals[1]),
    }
}

pub fn show<G: Board>(p: &G, out: &mut Out) -> Result<(), CliError> {
    if out.json {
        return out.model(&ShowModel::new(p));
    }
    let (count, moves) = listed_moves(p);
    let over = count == 0;
    let side = p.side_to_move();
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
        // `--quiet`: the board and whose turn it is, without the moves.
        match moves {
            Some(list) => out.info(format!("moves ({count}): {}", list.join(" ")))?,
            None => out.info(format!(
                "moves: {count} (too many to list; `sow moves --all` enumerates them)"
            ))?,
        }
    }
    Ok(())
}
