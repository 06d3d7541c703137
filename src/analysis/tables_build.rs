//! `sow solve kiothi`'s work and its model: the Kiothi endgame tables of 0
//! to N warriors built into the database directory (`kiothi_tables::build`),
//! reusing the stone counts already there, by one process or by MPI ranks.

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use crate::analysis::over_ranks::RanksFigures;
use crate::error::{CliError, ErrorKind};
use crate::infra::limits::peak_rss_mib;
use crate::infra::progress::Progress;
use crate::kiothi_tables::build::TablesBuild;
use crate::kiothi_tables::LayerReport;
use crate::retrograde::ranks::Transport;

/// Stone counts built when `--stones` is not given.
pub const DEFAULT_STONES: usize = 10;

/// What a build did (the `--json` object of `sow solve kiothi`).
#[derive(Debug, Serialize)]
pub struct TablesReport {
    pub db: String,
    /// Where the tables' files are (the text names it).
    #[serde(skip)]
    pub dir: String,
    pub stones: usize,
    /// Stone counts read from existing files.
    pub reused: Vec<usize>,
    /// Stone counts solved by this run.
    pub solved: Vec<LayerReport>,
    pub boards: u64,
    pub bytes_on_disk: u64,
    pub peak_rss_mib: Option<f64>,
    pub seconds: f64,
    /// Under `mpirun` only: what the ranks did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranks: Option<RanksFigures>,
}

/// Builds the tables of 0 to `stones` warriors into `db` (by the ranks of
/// `ranks` together when given: every rank calls this), after refusing,
/// before any work, tables that would not fit the memory or the disk;
/// `solved` hears of each stone count as it is finished.
pub fn build_tables(
    ranks: Option<&dyn Transport>,
    stones: usize,
    db: &Path,
    progress: Progress,
    solved: impl FnMut(&LayerReport) -> Result<(), CliError>,
) -> Result<TablesReport, CliError> {
    let t0 = Instant::now();
    let build = TablesBuild::open(db, stones).map_err(CliError::from)?;
    build
        .check_fits()
        .map_err(|e| CliError::new(ErrorKind::Unsupported, Some("stones"), e.to_string()))?;
    let built = build.run_on(ranks, progress, solved)?;
    let figures = match (ranks, built.traffic) {
        (Some(t), Some(traffic)) => {
            let boards = built.solved.iter().map(|r| r.boards).sum();
            Some(RanksFigures::of(t, boards, traffic))
        }
        _ => None,
    };
    Ok(TablesReport {
        db: db.display().to_string(),
        dir: built.dir.display().to_string(),
        stones,
        boards: built.boards,
        reused: built.reused,
        solved: built.solved,
        bytes_on_disk: built.bytes_on_disk,
        peak_rss_mib: peak_rss_mib(),
        seconds: t0.elapsed().as_secs_f64(),
        ranks: figures,
    })
}
