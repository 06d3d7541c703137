//! `sow eval <POSITION>`: the exact value of a Kpé position from its
//! database (or solved on the fly for a small variant), every move with its
//! value, and the perfect-play line.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::{args, parse_position, AnyPosition, CliError, Out};
use crate::analysis::kpe_db::{self, line_json, line_text, moves_json, played_line};
use crate::games::kpe::KpePosition;
use crate::solve::progress::Progress;
use crate::Game;

/// `sow eval`: its command line.
#[derive(clap::Args, Debug)]
pub struct EvalArgs {
    /// Position (quoted notation or a shortcut).
    pub position: String,
    /// Kpé database directory (default: $SOW_DB, else ~/.local/share/sow).
    #[arg(long, value_name = "DIR")]
    pub db: Option<PathBuf>,
    /// Search depth limit (plies).
    #[arg(long, value_parser = args::depth)]
    pub depth: Option<u32>,
    /// Search time limit in seconds.
    #[arg(long, value_name = "SECONDS", value_parser = args::seconds)]
    pub time: Option<f64>,
    /// Search node limit.
    #[arg(long, value_parser = args::nodes)]
    pub nodes: Option<u64>,
    /// Transposition table size in MiB (search).
    #[arg(long, value_name = "MB", default_value_t = 256, value_parser = args::hash_mb)]
    pub hash: usize,
}

impl EvalArgs {
    pub fn run(&self, out: &mut Out) -> Result<(), CliError> {
        let budget = super::search_eval::Budget {
            depth: self.depth,
            seconds: self.time,
            nodes: self.nodes,
            hash_mb: self.hash,
            threads: rayon::current_num_threads(),
        };
        let searched = self.depth.is_some() || self.time.is_some() || self.nodes.is_some();
        match parse_position(&self.position)? {
            AnyPosition::Kpe(p) if !searched => run_kpe(&p, self.db.as_deref(), out),
            AnyPosition::Kpe(p) => super::search_eval::run(&p, budget, out),
            AnyPosition::Kiothi(p) => super::search_eval::run(&p, budget, out),
        }
    }
}

pub fn run_kpe(pos: &KpePosition, db: Option<&Path>, out: &mut Out) -> Result<(), CliError> {
    let progress = Progress::auto(out.quiet || out.json);
    let dir = kpe_db::db_dir(db);
    let solution = kpe_db::open_solution(pos.variant(), &dir, progress)?;
    let extra = solution.region_for(pos, progress)?;
    let value = if pos.is_over() {
        pos.terminal_value()
    } else {
        solution.value(pos, extra.as_ref())?
    };
    let moves = solution.move_values(pos, extra.as_ref())?;
    let line = played_line(&solution, pos, extra.as_ref())?;
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
