//! Building a variant's database: the layers smallest first
//! (`layers.rs`, the per-layer loop), then the locked region of the start
//! (`region.rs`, its checkpoints in `checkpoint.rs`), each file written
//! whole under a temporary name and renamed, so that an interrupted build
//! resumes after the files it finished. A build first refuses what cannot
//! fit (`estimate.rs`) and takes the directory's writer lock (`lock.rs`);
//! it ends by opening what it wrote ([`Solution`]). Under `mpirun`, the
//! ranks of the run build the layers together (`over_ranks.rs`, its
//! per-layer store `layers_over_ranks.rs`) and rank 0 the region.

pub mod checkpoint;
mod layers;
mod layers_over_ranks;
mod over_ranks;
mod region;

use std::path::{Path, PathBuf};
use std::time::Instant;

use self::layers::build_layers;
use self::region::start_region;
use crate::games::kpe::KpeVariant;
use crate::infra::progress::Progress;
use crate::kpe_db::endgame::{Endgame, LayerSteps};
use crate::kpe_db::error::{DbError, SolveError};
use crate::kpe_db::estimate::{Estimate, OutOfCore, Scope};
use crate::kpe_db::file::Encoding;
use crate::kpe_db::lock::DbLock;
use crate::kpe_db::paths;
use crate::kpe_db::probe::Solution;
use crate::kpe_db::scratch::Scratch;
use crate::kpe_db::size::check_solvable;

/// What a `solve` run did, for reporting.
#[derive(Clone, Debug, Default)]
pub struct SolveStats {
    pub layers_computed: Vec<usize>,
    pub layers_reused: Vec<usize>,
    /// Layers of `layers_computed`'s complement taken from another K of
    /// the same W (`shared_layer`), with the variant they came from.
    pub layers_shared: Vec<(usize, KpeVariant)>,
    pub unlocked_positions: u64,
    pub region_positions: u64,
    pub seconds: f64,
    /// Wall seconds of the phases computed by this run: the endgame
    /// layers, the locked region's forward exploration and its solution.
    pub layers_seconds: f64,
    /// How the computed layers' seconds split between their steps.
    pub layer_steps: LayerSteps,
    pub explore_seconds: f64,
    pub region_seconds: f64,
    /// Memory and disk the solve was estimated to need.
    pub estimate: Option<Estimate>,
    /// Whether the region was solved out of core (`scratch.rs`).
    pub out_of_core: bool,
    /// Whether the solved layers stayed in memory through the region's
    /// exploration (`Estimate::keeps_layers`) rather than being read back
    /// from their files after it.
    pub layers_kept_exploring: bool,
    /// What the region took from an interrupted solve's checkpoints
    /// (`checkpoint.rs`), if it resumed one.
    pub region_resumed: Option<RegionResumed>,
}

/// How far an interrupted region build had come: `stone_counts_reused`
/// of the `stone_counts` its exploration closes one after the other, and
/// `runs_reused` of its `runs` runs of groups solved.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct RegionResumed {
    pub stone_counts_reused: usize,
    pub stone_counts: usize,
    pub runs_reused: usize,
    pub runs: usize,
}

/// How a build stores what it makes.
#[derive(Clone, Copy, Debug, Default)]
pub struct BuildOptions {
    pub encoding: Encoding,
    /// Where the region goes while it is built (`estimate::OutOfCore`).
    pub out_of_core: OutOfCore,
}

impl Solution {
    /// Builds (or completes) the database of a variant under `db`,
    /// reusing every file already there whose checksums verify; value
    /// files are zstd-compressed.
    pub fn build(
        variant: KpeVariant,
        db_dir: &Path,
        progress: Progress,
    ) -> Result<(Self, SolveStats), SolveError> {
        Self::build_with(variant, db_dir, progress, BuildOptions::default())
    }

    /// [`Self::build`] with `options`. Solved layers are kept in memory
    /// (decoded) while later layers and the region read them at random.
    pub fn build_with(
        variant: KpeVariant,
        db_dir: &Path,
        progress: Progress,
        options: BuildOptions,
    ) -> Result<(Self, SolveStats), SolveError> {
        let encoding = options.encoding;
        let (mut stats, _writer) = prepare(variant, db_dir, Scope::Whole, options.out_of_core)?;
        let start = Instant::now();
        let eg = Endgame::new(variant);
        let layers = build_layers(&eg, db_dir, progress, encoding, &mut stats)?;
        finish_build(eg, db_dir, progress, encoding, stats, layers, start)
    }

    /// Builds (or completes) only the endgame database of a variant under
    /// `db`: every layer, not the locked region (`sow solve
    /// --endgame-only`), for a variant whose region does not fit. The
    /// estimate is the layers' alone.
    pub fn build_endgame(
        variant: KpeVariant,
        db_dir: &Path,
        progress: Progress,
    ) -> Result<SolveStats, SolveError> {
        let (mut stats, _writer) = prepare(variant, db_dir, Scope::Endgame, OutOfCore::Never)?;
        let start = Instant::now();
        let eg = Endgame::new(variant);
        build_layers(&eg, db_dir, progress, Encoding::Zstd, &mut stats)?;
        stats.layers_seconds = start.elapsed().as_secs_f64();
        stats.seconds = stats.layers_seconds;
        Ok(stats)
    }
}

/// What a whole build does once its layers are there (since `start`):
/// the start's region, reused or solved and written, and the solution
/// opened.
fn finish_build(
    eg: Endgame,
    db_dir: &Path,
    progress: Progress,
    encoding: Encoding,
    mut stats: SolveStats,
    layers: Vec<Vec<u8>>,
    start: Instant,
) -> Result<(Solution, SolveStats), SolveError> {
    stats.layers_seconds = start.elapsed().as_secs_f64();
    let scratch = match stats.out_of_core {
        true => Scratch::Disk(paths::variant_dir(db_dir, eg.variant)),
        false => Scratch::Memory,
    };
    let (start_region, layers) =
        start_region(&eg, db_dir, scratch, progress, encoding, &mut stats, layers)?;
    stats.region_positions = start_region.len() as u64;
    stats.seconds = start.elapsed().as_secs_f64();
    Ok((Solution::from_parts(eg, layers, start_region), stats))
}

/// What every build does first: refuses a variant this tool cannot
/// represent, or (when files are missing) one that its estimate says
/// cannot fit, in memory or out of core as `out_of_core` allows, before
/// anything is written; then takes the directory's writer lock.
fn prepare(
    variant: KpeVariant,
    db_dir: &Path,
    scope: Scope,
    out_of_core: OutOfCore,
) -> Result<(SolveStats, DbLock), SolveError> {
    if let Err(e) = check_solvable(variant) {
        // What it would take all the same, for whoever plans a bigger
        // machine or a wider layer rank (docs/scaling.md).
        let estimate = Estimate::of(variant, db_dir, scope);
        return Err(e
            .with_note(format!("estimate: {}", estimate.summary()))
            .into());
    }
    crate::infra::malloc::return_large_blocks_when_freed();
    let eg = Endgame::new(variant);
    let mut stats = SolveStats::default();
    let mut wanted: Vec<PathBuf> = eg
        .layers()
        .map(|n| paths::layer_path(db_dir, variant, n))
        .collect();
    if scope == Scope::Whole {
        wanted.push(paths::region_path(db_dir, variant));
        wanted.push(paths::region_keys_path(db_dir, variant));
    }
    if !wanted.iter().all(|p| p.exists()) {
        // A directory that cannot be made (`--db /proc/x`) is an I/O
        // error naming it; left to the estimate, it read as a disk
        // shortage ("0.0 GiB available", the free space of `/proc`).
        let dir = paths::variant_dir(db_dir, variant);
        crate::infra::files::check_writable_dir(&dir).map_err(|e| DbError::Io {
            source: std::io::Error::other(format!(
                "cannot create the database directory {}: {}",
                dir.display(),
                e.source
            )),
            path: e.path,
        })?;
        let estimate = Estimate::of(variant, db_dir, scope);
        stats.out_of_core = estimate.out_of_core(out_of_core).map_err(|why| {
            crate::InputError::unsupported("variant", format!("{} {why}", variant.tag()))
        })?;
        stats.estimate = Some(estimate);
    } else {
        stats.out_of_core = out_of_core == OutOfCore::Always;
    }
    // One writer per directory (`lock.rs`); a second one waits here.
    // After the estimate, so that a refused variant writes nothing (the
    // check above does not create the directory: taking the lock does).
    let dir = paths::variant_dir(db_dir, variant);
    let writer = DbLock::acquire(&dir, |h| {
        eprintln!("{}: waiting for {h}, which is building it", dir.display())
    })?;
    Ok((stats, writer))
}
