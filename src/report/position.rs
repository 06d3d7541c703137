//! A position as text: `sow show`'s lines, and `sow moves`' list streamed
//! as the moves are generated (one a line, or the JSON object of
//! `MovesModel`, which cannot hold hundreds of millions of moves).

use std::io::{self, Write};
use std::ops::ControlFlow;

use super::board::{side_name, Board};
use crate::analysis::position_models::{final_totals, listed_moves};
use crate::game::Game;

/// `show`'s lines: the position, its board, whose turn it is or how the
/// game ended, and the moves (left out when `quiet`).
pub fn show_text<G: Board>(p: &G, quiet: bool) -> Vec<String> {
    let (count, moves) = listed_moves(p);
    let side = side_name(p.side_to_move());
    let mut lines = vec![p.to_string(), String::new(), p.draw(), String::new()];
    if count == 0 {
        let sweep = p.final_sweep();
        lines.push(format!("game over: {side} to move has no legal move"));
        lines.push(format!(
            "sweep: South {} North {}; final: {}",
            sweep[0],
            sweep[1],
            verdict(final_totals(p))
        ));
        return lines;
    }
    lines.push(format!("{side} to move"));
    if !quiet {
        lines.push(match moves {
            Some(list) => format!("moves ({count}): {}", list.join(" ")),
            None => format!("moves: {count} (too many to list; `sow moves --all` enumerates them)"),
        });
    }
    lines
}

fn verdict(totals: [u32; 2]) -> String {
    use std::cmp::Ordering::*;
    match totals[0].cmp(&totals[1]) {
        Greater => format!("South wins {} to {}", totals[0], totals[1]),
        Less => format!("North wins {} to {}", totals[1], totals[0]),
        Equal => format!("draw {} to {}", totals[0], totals[1]),
    }
}

/// Writes every legal move of `p` to `w` as it is generated, one a line,
/// or as `{"position","moves","count"}` when `json`; returns how many.
pub fn stream_moves<G: Game>(p: &G, json: bool, w: &mut dyn Write) -> io::Result<u64> {
    if json {
        let position = serde_json::Value::from(p.to_string());
        write!(w, "{{\"position\":{position},\"moves\":[")?;
    }
    let mut written = 0u64;
    let mut failure = Ok(());
    let _ = p.for_each_move(|mv| {
        let text = mv.to_string();
        let sep = if written == 0 { "" } else { "," };
        failure = match json {
            true => write!(w, "{sep}{}", serde_json::Value::from(text)),
            false => writeln!(w, "{text}"),
        };
        written += 1;
        match failure {
            Ok(()) => ControlFlow::Continue(()),
            Err(_) => ControlFlow::Break(()),
        }
    });
    failure?;
    if json {
        writeln!(w, "],\"count\":{written}}}")?;
    }
    Ok(written)
}
