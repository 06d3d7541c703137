//! `sow eval <POSITION>`: the exact value of a Kpé position from its
//! database (or solved on the fly for a small variant), every move with its
//! value, and the perfect-play line; with `--multipv N` the first N moves
//! with their lines too.

use std::path::Path;

use serde_json::json;

use super::kpe_db;
use super::{CliError, Out};
use crate::analysis::evaluation::kpe_evaluation;
use crate::analysis::oracle::KpeOracle;
use crate::games::kpe::KpePosition;
use crate::progress::Progress;

/// The oracle of a Kpé variant: its database, or a small variant solved on
/// the fly (progress bars on a terminal unless `quiet`).
pub fn kpe_oracle(
    pos: &KpePosition,
    db: Option<&Path>,
    quiet: bool,
) -> Result<KpeOracle, CliError> {
    let progress = Progress::auto(quiet);
    let solution = kpe_db::open_solution(pos.variant(), &kpe_db::db_dir(db), progress)?;
    Ok(KpeOracle::new(solution, progress))
}

pub fn run_kpe(
    pos: &KpePosition,
    db: Option<&Path>,
    multipv: Option<usize>,
    out: &mut Out,
) -> Result<(), CliError> {
    super::search_eval::check_multipv(multipv)?;
    let mut oracle = kpe_oracle(pos, db, out.quiet || out.json)?;
    let e = kpe_evaluation(&mut oracle, pos, multipv)?;
    if out.json {
        return out.json(&json!(e));
    }
    out.line(format!("position {pos}"))?;
    if e.over {
        out.line(format!(
            "game over: {} to move has no legal move; the value is the final sweep",
            super::board::side_name(pos.side())
        ))?;
    }
    out.line(format!(
        "value    {:+} for {:?} to move ({}, exact)",
        e.value,
        pos.side(),
        e.result
    ))?;
    for m in &e.moves {
        match &m.pv {
            Some(line) => out.line(format!(
                "  move {}: {:+}  line {}",
                m.mv,
                m.value,
                line.join(" ")
            ))?,
            None => out.line(format!("  move {}: {:+}", m.mv, m.value))?,
        }
    }
    out.line(format!(
        "pv       {} ({} moves, ends by {})",
        e.pv.join(" "),
        e.pv.len(),
        e.pv_ends_by
    ))
}
