//! `sow solve kiothi [--stones N]`: builds the Kiothi endgame tables
//! (`kiothi_tables`) into the database directory, reusing the stone
//! counts already there; `sow solve '<kiothi position>'` then takes exact
//! values from them.

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use super::over_ranks::RanksFigures;
use super::{CliError, Out};
use crate::infra::progress::Progress;
use crate::kiothi_tables::{table_path, KiothiEndgames, LayerReport};
use crate::kpe_db::estimate;
use crate::retrograde::transport::Transport;

/// Stone counts built when `--stones` is not given.
pub const DEFAULT_STONES: usize = 10;

/// The `--json` object.
#[derive(Debug, Serialize)]
struct TablesReport {
    db: String,
    stones: usize,
    /// Stone counts read from existing files.
    reused: Vec<usize>,
    /// Stone counts solved by this run.
    solved: Vec<LayerReport>,
    boards: u64,
    bytes_on_disk: u64,
    peak_rss_mib: Option<f64>,
    seconds: f64,
    /// Under `mpirun` only: what the ranks did.
    #[serde(skip_serializing_if = "Option::is_none")]
    ranks: Option<RanksFigures>,
}

pub fn run(stones: usize, db: &Path, out: &mut Out) -> Result<(), CliError> {
    run_on(None, stones, db, out)
}

/// [`run`], by the ranks of `ranks` together when given (an MPI run,
/// `cli/over_ranks.rs`): every rank solves its share of each stone count,
/// rank 0 alone prints.
pub fn run_on(
    ranks: Option<&dyn Transport>,
    stones: usize,
    db: &Path,
    out: &mut Out,
) -> Result<(), CliError> {
    let t0 = Instant::now();
    let mut tables = KiothiEndgames::load(db, stones).map_err(CliError::from)?;
    let reused: Vec<usize> = (0..tables.stone_counts()).collect();
    check_fits(tables.stone_counts(), stones, db)?;
    let progress = Progress::auto(out.quiet || out.json);
    let mut solved = Vec::new();
    let mut figures = ranks.map(|t| RanksFigures::new(t.size()));
    while tables.stone_counts() <= stones {
        let n = tables.stone_counts();
        let bar = progress.bar(KiothiEndgames::layer_size(n), format!("{n} stones"));
        let report = match ranks {
            None => {
                let report = tables.solve_next(&bar);
                tables.save_layer(db, n).map_err(CliError::from)?;
                report
            }
            Some(t) => {
                let (report, traffic) = tables
                    .solve_next_over_ranks(db, t, &bar)
                    .map_err(CliError::from)?;
                if let Some(f) = figures.as_mut() {
                    f.add_layer(report.boards, traffic);
                }
                report
            }
        };
        bar.finish_and_clear();
        if !out.json {
            out.line(layer_line(&report))?;
        }
        solved.push(report);
    }
    if let (Some(t), Some(f)) = (ranks, figures.as_mut()) {
        f.finish(t);
    }
    let bytes_on_disk = (0..=stones)
        .filter_map(|n| std::fs::metadata(table_path(db, n)).ok())
        .map(|m| m.len())
        .sum();
    let report = TablesReport {
        db: db.display().to_string(),
        stones,
        boards: (0..=stones).map(KiothiEndgames::layer_size).sum(),
        reused,
        solved,
        bytes_on_disk,
        peak_rss_mib: crate::analysis::kpe_db::peak_rss_mib(),
        seconds: t0.elapsed().as_secs_f64(),
        ranks: figures,
    };
    if out.json {
        return out.model_sorted(&report);
    }
    out.line(format!(
        "Kiothi endgame tables of 0-{stones} warriors in {}: {} boards, {} bytes ({} stone counts reused, {} solved), {:.1} s",
        table_path(db, 0).parent().unwrap_or(db).display(),
        report.boards,
        report.bytes_on_disk,
        report.reused.len(),
        report.solved.len(),
        report.seconds
    ))?;
    match &report.ranks {
        Some(r) => out.line(r.line()),
        None => Ok(()),
    }
}

/// Refuses, before any work, tables of `first..=last` warriors that would
/// not fit the memory or the disk (`$SOW_MEMORY_MIB` and `$SOW_DISK_MIB`
/// set the budgets, as for a Kpé solve).
fn check_fits(first: usize, last: usize, db: &Path) -> Result<(), CliError> {
    if first > last {
        return Ok(());
    }
    let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
    let memory = KiothiEndgames::memory_estimate(last);
    let disk: u64 = (first..=last).map(KiothiEndgames::layer_size).sum();
    let short = [
        (memory, estimate::memory_budget(), "memory"),
        (disk, estimate::disk_budget(db), "disk"),
    ]
    .into_iter()
    .find_map(|(need, have, what)| Some((need, have.filter(|&h| need > h)?, what)));
    match short {
        None => Ok(()),
        Some((need, have, what)) => Err(CliError::new(
            "unsupported",
            Some("stones"),
            format!(
                "the Kiothi endgame tables of {last} warriors need about {:.1} GiB of {what} (an estimate), {:.1} GiB available",
                gib(need),
                gib(have)
            ),
        )),
    }
}

fn layer_line(r: &LayerReport) -> String {
    format!(
        "{:>2} stones: {:>11} boards, {:>12} non-capturing moves; mover gains {}, even {}, loses {}; {:.1} s",
        r.stones, r.boards, r.non_capturing_moves, r.mover_gains, r.even, r.mover_loses, r.seconds
    )
}
