//! `sow eval` by deep search (Kiothi, or Kpé with a search limit):
//! iterative deepening with a progress line per depth, then the value, best
//! move and principal variation. Ctrl-C stops the search and prints the
//! best completed iteration.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde_json::json;

use super::{CliError, Out};
use crate::search::negamax::{Limits, SearchResult};
use crate::search::threads::search;
use crate::search::tt::TranspositionTable;
use crate::search::Searchable;

/// Search budget of `eval`; with none given, 5 seconds.
#[derive(Clone, Copy, Debug, Default)]
pub struct Budget {
    pub depth: Option<u32>,
    pub seconds: Option<f64>,
    pub nodes: Option<u64>,
    pub hash_mb: usize,
    pub threads: usize,
}

pub const DEFAULT_SECONDS: f64 = 5.0;

/// Refuses a `--time` that is not a positive number of seconds.
pub fn check_seconds(seconds: Option<f64>) -> Result<(), CliError> {
    match seconds {
        Some(s) if !(s.is_finite() && s > 0.0) => Err(CliError::usage(
            "time",
            format!("--time must be a positive number of seconds, found {s}"),
        )),
        _ => Ok(()),
    }
}

impl Budget {
    /// Checks the numbers and turns them into search limits.
    pub fn limits(&self) -> Result<Limits, CliError> {
        if self.depth == Some(0) {
            return Err(CliError::usage("depth", "--depth must be at least 1"));
        }
        if let Some(s) = self.seconds {
            if !(s.is_finite() && s > 0.0) {
                return Err(CliError::usage(
                    "time",
                    format!("--time must be a positive number of seconds, found {s}"),
                ));
            }
        }
        if self.nodes == Some(0) {
            return Err(CliError::usage("nodes", "--nodes must be at least 1"));
        }
        if self.hash_mb == 0 {
            return Err(CliError::usage("hash", "--hash must be at least 1 MiB"));
        }
        let none = self.depth.is_none() && self.seconds.is_none() && self.nodes.is_none();
        Ok(Limits {
            depth: self.depth,
            seconds: if none {
                Some(DEFAULT_SECONDS)
            } else {
                self.seconds
            },
            nodes: self.nodes,
        })
    }
}

/// The `--hash` table, refused (not aborted) when the memory is not there.
fn hash_table(mb: usize) -> Result<TranspositionTable, CliError> {
    crate::limits::check_memory("--hash", mb).map_err(|e| CliError::usage("hash", e))?;
    TranspositionTable::try_new(mb)
        .ok_or_else(|| CliError::usage("hash", format!("--hash {mb} MiB: cannot allocate it")))
}

/// Installs a Ctrl-C handler that sets `stop` (once per process).
pub fn stop_on_ctrl_c() -> Arc<AtomicBool> {
    static STOP: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
    STOP.get_or_init(|| {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        // Without a handler (e.g. no signals here), Ctrl-C ends the process as usual.
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
        stop
    })
    .clone()
}

fn line<M: std::fmt::Display>(r: &SearchResult<M>) -> String {
    format!(
        "depth {:>3}  value {:+5}  nodes {:>12}  nps {:>10.0}  pv {}",
        r.depth,
        r.value,
        r.nodes,
        r.nps,
        r.pv_string()
    )
}

pub fn run<G: Searchable>(pos: &G, budget: Budget, out: &mut Out) -> Result<(), CliError> {
    let limits = budget.limits()?;
    if pos.is_over() {
        return Err(CliError::usage(
            "position",
            "the game is over: there is no move to search",
        ));
    }
    let tt = hash_table(budget.hash_mb)?;
    let stop = stop_on_ctrl_c();
    let json_mode = out.json;
    let mut progress_err = None;
    let result = search(pos, &limits, budget.threads.max(1), &tt, &stop, &mut |it| {
        if !json_mode && progress_err.is_none() {
            if let Err(e) = out.line(line(it)).and_then(|_| out.flush()) {
                progress_err = Some(e);
            }
        }
    });
    if let Some(e) = progress_err {
        return Err(e);
    }
    let captured = pos.captured();
    let me = pos.side_to_move().index();
    // The final margin of the game for the mover if the value holds.
    let margin = captured[me] as i32 - captured[1 - me] as i32 + result.value;
    let one_warrior = margin.abs() == 2;
    let interrupted = stop.load(Ordering::SeqCst);
    let best = result.best.map(|m| m.to_string());
    if out.json {
        return out.json(&json!({
            "position": pos.to_string(),
            "value": result.value,
            "best": best,
            "pv": result.pv.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
            "depth": result.depth,
            "nodes": result.nodes,
            "nps": result.nps,
            "exact": result.exact,
            "one_warrior_victory": one_warrior,
            "final_margin": margin,
            "seconds": result.seconds,
            "interrupted": interrupted,
        }));
    }
    if interrupted {
        out.line("interrupted: best completed iteration below")?;
    }
    out.line(format!("position {pos}"))?;
    out.line(format!(
        "value    {:+} for {:?} to move ({}; depth {}, {} nodes, {:.1} s)",
        result.value,
        pos.side_to_move(),
        if result.exact { "exact" } else { "estimate" },
        result.depth,
        result.nodes,
        result.seconds
    ))?;
    out.line(format!("best     {}", best.as_deref().unwrap_or("-")))?;
    out.line(format!("pv       {}", result.pv_string()))?;
    if one_warrior {
        out.line(format!(
            "one-warrior victory: the best line ends with a margin of {margin:+}"
        ))?;
    }
    Ok(())
}
