//! A Kpé variant solved (`sow solve kpe[:WxK]`): its database built or
//! completed, whole or its endgame layers only, and what the run reports
//! (`--json`'s keys; `report::kpe_solve` writes the text).

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use super::kpe_db::{peak_rss_mib, start_json, StartSummary};
use super::over_ranks::RanksFigures;
use crate::error::CliError;
use crate::games::kpe::KpeVariant;
use crate::infra::progress::Progress;
use crate::kpe_db::endgame::LayerSteps;
use crate::kpe_db::estimate::{Estimate, OutOfCore};
use crate::kpe_db::{BuildOptions, RegionResumed, Solution, SolveStats};
use crate::retrograde::ranks::Transport;

/// What a build did, with or without the opening region.
#[derive(Clone, Debug, Serialize)]
pub struct BuildFigures {
    pub db: String,
    pub estimate: Option<Estimate>,
    pub layers_computed: Vec<usize>,
    pub layers_reused: Vec<usize>,
    /// Reused layers taken from another K of the same W: (stones, variant).
    pub layers_shared: Vec<(usize, String)>,
    /// Whether the region was built out of core (`--out-of-core`).
    pub out_of_core: bool,
    /// What the region took from an interrupted build's checkpoints.
    pub region_resumed: Option<RegionResumed>,
    /// The computed layers' seconds by step (all zero when none was).
    pub layer_steps: LayerSteps,
    pub peak_rss_mib: Option<f64>,
    pub seconds: f64,
}

impl BuildFigures {
    fn of(stats: &SolveStats, dir: &Path, seconds: f64) -> Self {
        BuildFigures {
            db: dir.display().to_string(),
            estimate: stats.estimate,
            layers_computed: stats.layers_computed.clone(),
            layers_reused: stats.layers_reused.clone(),
            layers_shared: stats
                .layers_shared
                .iter()
                .map(|(n, v)| (*n, v.tag()))
                .collect(),
            out_of_core: stats.out_of_core,
            region_resumed: stats.region_resumed,
            layer_steps: stats.layer_steps,
            peak_rss_mib: peak_rss_mib(),
            seconds,
        }
    }
}

/// A whole solve: the start's value, first moves and line, and the run.
#[derive(Clone, Debug, Serialize)]
pub struct KpeSolve {
    /// The variant as a game argument names it (`kpe`, `kpe:3x3`).
    #[serde(skip)]
    pub tag: String,
    #[serde(flatten)]
    pub start: StartSummary,
    #[serde(flatten)]
    pub build: BuildFigures,
    pub phase_seconds: PhaseSeconds,
    /// Under `mpirun` only: what the ranks did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranks: Option<RanksFigures>,
}

/// The wall seconds of each phase the run computed.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct PhaseSeconds {
    pub layers: f64,
    pub opening_explore: f64,
    pub opening_solve: f64,
}

/// The endgame layers alone (`--endgame-only`).
#[derive(Clone, Debug, Serialize)]
pub struct KpeEndgameBuild {
    pub variant: String,
    pub unlocked_positions: u64,
    #[serde(flatten)]
    pub build: BuildFigures,
    /// Under `mpirun` only: what the ranks did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranks: Option<RanksFigures>,
}

/// Builds (or completes) `variant`'s database in `dir`, its opening
/// region kept in memory or out of core as `out_of_core` says.
pub fn solve(
    variant: KpeVariant,
    dir: &Path,
    out_of_core: OutOfCore,
    progress: Progress,
) -> Result<KpeSolve, CliError> {
    let t0 = Instant::now();
    let options = BuildOptions {
        out_of_core,
        ..Default::default()
    };
    let (solution, stats) = Solution::build_with(variant, dir, progress, options)?;
    solved(&solution, variant, &stats, dir, t0, None)
}

/// What a whole solve reports once the database is built.
fn solved(
    solution: &Solution,
    variant: KpeVariant,
    stats: &SolveStats,
    dir: &Path,
    t0: Instant,
    ranks: Option<RanksFigures>,
) -> Result<KpeSolve, CliError> {
    let start = start_json(solution, variant)?;
    Ok(KpeSolve {
        tag: variant.tag(),
        start,
        build: BuildFigures::of(stats, dir, t0.elapsed().as_secs_f64()),
        phase_seconds: PhaseSeconds {
            layers: stats.layers_seconds,
            opening_explore: stats.explore_seconds,
            opening_solve: stats.region_seconds,
        },
        ranks,
    })
}

/// [`solve`] by the ranks of `transport` together (an MPI run, every rank
/// calling it): the layers over every rank, the opening region on rank 0,
/// which alone gets the solve's figures (None on the others).
pub fn solve_over_ranks<T: Transport + ?Sized>(
    transport: &T,
    variant: KpeVariant,
    dir: &Path,
    out_of_core: OutOfCore,
    progress: Progress,
) -> Result<Option<KpeSolve>, CliError> {
    let t0 = Instant::now();
    let options = BuildOptions {
        out_of_core,
        ..Default::default()
    };
    let built = Solution::build_over_ranks(variant, dir, progress, options, transport)?;
    let Some((solution, stats, layers)) = built else {
        return Ok(None);
    };
    let figures = RanksFigures::of_layers(&layers);
    solved(&solution, variant, &stats, dir, t0, Some(figures)).map(Some)
}

/// Builds `variant`'s endgame layers in `dir`, not its opening region.
pub fn solve_endgame(
    variant: KpeVariant,
    dir: &Path,
    progress: Progress,
) -> Result<KpeEndgameBuild, CliError> {
    let stats = Solution::build_endgame(variant, dir, progress)?;
    Ok(endgame_built(variant, &stats, dir, None))
}

/// [`solve_endgame`] by the ranks of `transport` together; the figures on
/// rank 0, None on the others.
pub fn solve_endgame_over_ranks<T: Transport + ?Sized>(
    transport: &T,
    variant: KpeVariant,
    dir: &Path,
    progress: Progress,
) -> Result<Option<KpeEndgameBuild>, CliError> {
    let built = Solution::build_endgame_over_ranks(variant, dir, progress, transport)?;
    Ok(built.map(|(stats, layers)| {
        let figures = RanksFigures::of_layers(&layers);
        endgame_built(variant, &stats, dir, Some(figures))
    }))
}

fn endgame_built(
    variant: KpeVariant,
    stats: &SolveStats,
    dir: &Path,
    ranks: Option<RanksFigures>,
) -> KpeEndgameBuild {
    KpeEndgameBuild {
        variant: variant.tag(),
        unlocked_positions: stats.unlocked_positions,
        build: BuildFigures::of(stats, dir, stats.seconds),
        ranks,
    }
}
