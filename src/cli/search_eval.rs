//! `sow eval` by deep search (Kiothi, or Kpé with a search limit):
//! iterative deepening with a progress line per depth, then the value, best
//! move and principal variation. Ctrl-C stops the search and prints the
//! best completed iteration.

use std::sync::atomic::Ordering;

use super::{CliError, Out};
use crate::analysis::evaluation::SearchEvaluation;
use crate::analysis::move_values::{search_move_values, MoveValues};
use crate::analysis::search_budget::Budget;
use crate::search::negamax::SearchResult;
use crate::search::threads::search_with;
use crate::search::tt::TranspositionTable;
use crate::search::{ExactValues, Searchable};

/// Refuses a `--hash` of 0 or above the memory available.
pub fn check_hash(mb: usize) -> Result<(), CliError> {
    crate::infra::limits::check_memory("--hash", mb).map_err(|e| CliError::usage("hash", e))
}

/// The `--hash` table, refused (not aborted) when the memory is not there.
fn hash_table(mb: usize) -> Result<TranspositionTable, CliError> {
    check_hash(mb)?;
    TranspositionTable::try_new(mb)
        .ok_or_else(|| CliError::usage("hash", format!("--hash {mb} MiB: cannot allocate it")))
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

/// Refuses `--multipv 0`.
pub fn check_multipv(multipv: Option<usize>) -> Result<(), CliError> {
    if multipv == Some(0) {
        return Err(CliError::usage("multipv", "--multipv must be at least 1"));
    }
    Ok(())
}

/// Searches `pos` within `budget`, taking `exact`'s values (endgame
/// tables) where they reach.
pub fn run<G: Searchable>(
    pos: &G,
    budget: Budget,
    multipv: Option<usize>,
    exact: &dyn ExactValues<G>,
    out: &mut Out,
) -> Result<(), CliError> {
    let limits = budget.limits()?;
    check_multipv(multipv)?;
    let tt = hash_table(budget.hash_mb)?;
    let stop = crate::infra::interrupt::ctrl_c_flag();
    let json_mode = out.json;
    let threads = budget.threads.max(1);
    let mut progress_err = None;
    let mut progress = |text: String, out: &mut Out| {
        if !json_mode && progress_err.is_none() {
            if let Err(e) = out.info(text).and_then(|_| out.flush()) {
                progress_err = Some(e);
            }
        }
    };
    let mut e = match multipv {
        Some(n) => {
            let values = search_move_values(pos, &limits, threads, &tt, exact, &stop, &mut |v| {
                progress(multipv_line(v), out)
            });
            SearchEvaluation::from_move_values(pos, &values, n, stop.load(Ordering::SeqCst))
        }
        None => {
            let result = search_with(pos, &limits, threads, &tt, exact, &stop, &mut |it| {
                progress(line(it), out)
            });
            SearchEvaluation::from_root(pos, &result, stop.load(Ordering::SeqCst))
        }
    };
    e.endgame_stones = exact.endgame_stones();
    if let Some(e) = progress_err {
        return Err(e);
    }
    if out.json {
        return out.model_sorted(&e);
    }
    print_evaluation(pos, &e, out)
}

/// The readable form of a search's evaluation.
fn print_evaluation<G: Searchable>(
    pos: &G,
    e: &SearchEvaluation,
    out: &mut Out,
) -> Result<(), CliError> {
    if e.interrupted {
        out.line("interrupted: best completed iteration below")?;
    }
    out.info(format!("position {pos}"))?;
    if e.over {
        out.info(format!(
            "game over: {:?} to move has no legal move; the value is the final sweep (final margin {:+})",
            pos.side_to_move(),
            e.final_margin
        ))?;
    }
    // `--quiet`: the value and best move alone, the essential result.
    out.line(format!(
        "value    {:+} for {:?} to move ({}; depth {}, {} nodes, {:.1} s)",
        e.value,
        pos.side_to_move(),
        if e.exact { "exact" } else { "estimate" },
        e.depth,
        e.nodes,
        e.seconds
    ))?;
    if let Some(n) = e.endgame_stones {
        out.info(format!(
            "tables   {}",
            crate::analysis::kiothi_tables::coverage(n)
        ))?;
    }
    out.line(format!("best     {}", e.best.as_deref().unwrap_or("-")))?;
    out.info(format!("pv       {}", e.pv.join(" ")))?;
    for (i, m) in e.moves.iter().flatten().enumerate() {
        out.info(format!(
            "  {:>2}. {:<12} {:+4} {}  line {}",
            i + 1,
            m.mv,
            m.value,
            if m.exact == Some(true) {
                "exact   "
            } else {
                "estimate"
            },
            m.pv.as_deref().unwrap_or_default().join(" ")
        ))?;
    }
    if e.one_warrior_victory {
        out.info(format!(
            "one-warrior victory: the best line ends with a margin of {:+}",
            e.final_margin
        ))?;
    }
    Ok(())
}

/// The progress line of one completed depth of a per-move search.
fn multipv_line<M: std::fmt::Display>(v: &MoveValues<M>) -> String {
    let best = v.moves.first();
    format!(
        "depth {:>3}  moves {:>4}  best {} {:+}  nodes {:>12}  {:.1} s",
        v.depth,
        v.moves.len(),
        best.map_or("-".to_string(), |m| m.mv.to_string()),
        best.map_or(0, |m| m.value),
        v.nodes,
        v.seconds
    )
}
