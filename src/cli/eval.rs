//! `sow eval <POSITION>`: the exact value of a Kpé position from its
//! database (or solved on the fly for a small variant), every move with its
//! value, and the perfect-play line.

use std::path::Path;

use serde_json::json;

use super::kpe_db::{self, line_json, line_text, moves_json, played_line};
use super::{CliError, Out};
use crate::games::kpe::KpePosition;
use crate::solve::progress::Progress;
use crate::solve::solution::Solution;
use crate::Game;

pub fn run_kpe(pos: &KpePosition, db: Option<&Path>, out: &mut Out) -> Result<(), CliError> {
    let progress = Progress::auto(out.quiet || out.json);
    let dir = kpe_db::db_dir(db);
    let solution = kpe_db::open_solution(pos.variant(), &dir, progress)?;
    run_kpe_with(&solution, pos, out)
}

/// [`run_kpe`] with a solution already open (the web server keeps them).
pub fn run_kpe_with(solution: &Solution, pos: &KpePosition, out: &mut Out) -> Result<(), CliError> {
    let progress = Progress::auto(out.quiet || out.json);
    let extra = solution.region_for(pos, progress)?;
    let value = if pos.is_over() {
        pos.terminal_value()
    } else {
        solution.value(pos, extra.as_ref())?
    };
    let moves = solution.move_values(pos, extra.as_ref())?;
    let line = played_line(solution, pos, extra.as_ref())?;
    if out.json {
        return out.json(&json!({
            "position": pos.to_string(),
            "value": value,
            "result": kpe_db::result_word(value),
            "moves": moves_json(&moves),
            "best": moves.first().map(|(m, _)| m.to_string()),
            "pv": line_json(&line.moves),
            "pv_ends_by": line.ended_by,
            "exact": true,
        }));
    }
    out.line(format!("position {pos}"))?;
    out.line(format!(
        "value    {value:+} for {:?} to move ({}, exact)",
        pos.side(),
        kpe_db::result_word(value)
    ))?;
    for (mv, v) in &moves {
        out.line(format!("  move {mv}: {v:+}"))?;
    }
    out.line(format!(
        "pv       {} ({} moves, ends by {})",
        line_text(&line.moves),
        line.moves.len(),
        line.ended_by
    ))
}
