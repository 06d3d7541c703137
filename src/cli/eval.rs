//! `sow eval <POSITION>`: the exact value of a Kpé position from its
//! database (or solved on the fly for a small variant), every move with its
//! value, and the perfect-play line; with `--multipv N` the first N moves
//! with their lines too.

use std::path::Path;

use super::{args, parse_position, AnyPosition, CliError, Out};
use crate::analysis::evaluation::kpe_evaluation;
use crate::analysis::kpe_db;
use crate::analysis::oracle::KpeOracle;
use crate::games::kpe::KpePosition;
use crate::infra::progress::Progress;
use crate::search::NoTables;

/// `sow eval`: its command line.
#[derive(clap::Args, Debug)]
pub struct EvalArgs {
    /// Position (quoted notation or a shortcut).
    pub position: String,
    #[command(flatten)]
    pub db: super::paths::DbDir,
    /// Search depth limit (plies).
    #[arg(long, value_parser = args::depth)]
    pub depth: Option<u32>,
    /// Search time limit in seconds.
    #[arg(long, value_name = "SECONDS", value_parser = args::seconds)]
    pub time: Option<f64>,
    /// Search node limit.
    #[arg(long, value_parser = args::nodes)]
    pub nodes: Option<u64>,
    #[command(flatten)]
    pub hash: super::args::SearchHash,
    /// The N best moves with values and lines (by search: each move's
    /// child searched to the same depth, sharing the budget).
    #[arg(long, value_name = "N")]
    pub multipv: Option<usize>,
}

impl EvalArgs {
    pub fn run(&self, out: &mut Out) -> Result<(), CliError> {
        let budget = crate::analysis::search_budget::Budget {
            depth: self.depth,
            seconds: self.time,
            nodes: self.nodes,
            hash_mb: self.hash.mb,
            threads: rayon::current_num_threads(),
        };
        let searched = self.depth.is_some() || self.time.is_some() || self.nodes.is_some();
        match parse_position(&self.position)? {
            AnyPosition::Kpe(p) if !searched => run_kpe(&p, self.db.given(), self.multipv, out),
            AnyPosition::Kpe(p) => {
                super::search_eval::run(&p, budget, self.multipv, &NoTables, out)
            }
            AnyPosition::Kiothi(p) => {
                let tables = crate::analysis::kiothi_tables::for_search(self.db.given())?;
                super::search_eval::run(&p, budget, self.multipv, &*tables, out)
            }
        }
    }
}

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
        return out.model_sorted(&e);
    }
    out.info(format!("position {pos}"))?;
    if e.over {
        out.info(format!(
            "game over: {} to move has no legal move; the value is the final sweep",
            super::board::side_name(pos.side())
        ))?;
    }
    // `--quiet`: the value and best move alone, the essential result.
    out.line(format!(
        "value    {:+} for {:?} to move (exact; final margin {:+}, a {})",
        e.value,
        pos.side(),
        e.final_margin,
        e.result
    ))?;
    out.line(format!("best     {}", e.best.as_deref().unwrap_or("-")))?;
    out.info(format!(
        "ending   perfect play {}",
        if e.can_end {
            "can end"
        } else {
            "never ends (no value-keeping line reaches the end)"
        }
    ))?;
    for m in &e.moves {
        match &m.pv {
            Some(line) => out.info(format!(
                "  move {}: {:+}  line {}",
                m.mv,
                m.value,
                line.join(" ")
            ))?,
            None => out.info(format!("  move {}: {:+}", m.mv, m.value))?,
        }
    }
    out.info(format!(
        "pv       {} ({} moves, ends by {})",
        e.pv.join(" "),
        e.pv.len(),
        e.pv_ends_by
    ))
}
