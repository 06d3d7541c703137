//! `sow solve kiothi [--stones N]`: builds the Kiothi endgame tables
//! (`kiothi_tables::build`) into the database directory, reusing the stone
//! counts already there; `sow solve '<kiothi position>'` then takes exact
//! values from them.

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use super::{CliError, Out};
use crate::analysis::over_ranks::RanksFigures;
use crate::error::ErrorKind;
use crate::infra::progress::Progress;
use crate::kiothi_tables::build::TablesBuild;
use crate::kiothi_tables::LayerReport;
use crate::report::over_ranks::ranks_line;
use crate::retrograde::ranks::Transport;

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

/// Builds the tables of 0 to `stones` warriors into `db`, by the ranks of
/// `ranks` together when given (an MPI run: every rank calls this, rank 0
/// alone prints).
pub fn run(
    ranks: Option<&dyn Transport>,
    stones: usize,
    db: &Path,
    out: &mut Out,
) -> Result<(), CliError> {
    let t0 = Instant::now();
    let build = TablesBuild::open(db, stones).map_err(CliError::from)?;
    build
        .check_fits()
        .map_err(|e| CliError::new(ErrorKind::Unsupported, Some("stones"), e.to_string()))?;
    let progress = Progress::auto(out.quiet || out.json || ranks.is_some_and(|t| t.rank() != 0));
    let json = out.json;
    let built = build.run_on(ranks, progress, |report| match json {
        true => Ok(()),
        false => out.line(layer_line(report)),
    })?;
    let figures = match (ranks, built.traffic) {
        (Some(t), Some(traffic)) => {
            let boards = built.solved.iter().map(|r| r.boards).sum();
            Some(RanksFigures::of(t, boards, traffic))
        }
        _ => None,
    };
    let report = TablesReport {
        db: db.display().to_string(),
        stones,
        boards: built.boards,
        reused: built.reused,
        solved: built.solved,
        bytes_on_disk: built.bytes_on_disk,
        peak_rss_mib: crate::analysis::kpe_db::peak_rss_mib(),
        seconds: t0.elapsed().as_secs_f64(),
        ranks: figures,
    };
    if out.json {
        return out.model_sorted(&report);
    }
    out.line(format!(
        "Kiothi endgame tables of 0-{stones} warriors in {}: {} boards, {} bytes ({} stone counts reused, {} solved), {:.1} s",
        built.dir.display(),
        report.boards,
        report.bytes_on_disk,
        report.reused.len(),
        report.solved.len(),
        report.seconds
    ))?;
    match &report.ranks {
        Some(r) => out.line(ranks_line(r)),
        None => Ok(()),
    }
}

fn layer_line(r: &LayerReport) -> String {
    format!(
        "{:>2} stones: {:>11} boards, {:>12} non-capturing moves; mover gains {}, even {}, loses {}; {:.1} s",
        r.stones, r.boards, r.non_capturing_moves, r.mover_gains, r.even, r.mover_loses, r.seconds
    )
}
