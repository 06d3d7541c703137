//! A solved Kpé variant: the endgame database and the locked region of the
//! start, in memory or mapped from files, answering exact values.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::OnceLock;
use std::time::Instant;

use std::borrow::Cow;

use super::db::{
    self, entry_can_end, entry_value, DbError, Encoding, FileId, FileKind, MappedFile,
};
use super::endgame::{Endgame, LayerSteps, LayerValues};
use super::estimate::{Estimate, OutOfCore, Scope};
use super::opening::LockedRegion;
use super::region_checkpoint::{Exploration, RegionCheckpoint};
use super::region_keys::{self, RegionKeys};
use super::scratch::Scratch;
use crate::games::kpe::{KpeMove, KpePosition, KpeVariant};
use crate::infra::progress::Progress;
use crate::Game;

/// Largest layer (positions) this tool solves: positions are ranked
/// within their layer in 32 bits (`retrograde.rs`, `unmove.rs`). Whether a
/// variant within this bound fits this machine is the estimate's call
/// (`estimate.rs`), which refuses with the memory or disk it would need.
pub const MAX_LAYER_POSITIONS: u64 = u32::MAX as u64;
/// Variants this small are solved on the fly when no database exists.
pub const ON_THE_FLY_POSITIONS: u64 = 10_000_000;

/// Unlocked positions of a variant (the endgame database size).
pub fn endgame_positions(variant: KpeVariant) -> u64 {
    let eg = Endgame::new(variant);
    // Saturating: layer sizes saturate for the largest variants.
    eg.layers()
        .map(|n| eg.index.layer_size(n))
        .fold(0, u64::saturating_add)
}

/// Positions of a variant's largest layer.
pub fn largest_layer(variant: KpeVariant) -> u64 {
    let eg = Endgame::new(variant);
    eg.layers()
        .map(|n| eg.index.layer_size(n))
        .max()
        .unwrap_or(0)
}

/// Checks that this tool can represent a variant's solve: its layers'
/// ranks in 32 bits. The locked positions' keys then fit in 64 bits too
/// (`compact_keys::RegionKey`: the stone count, and a board's rank times
/// the `4^W ≤ 2^16` mark pairs). Whether the solve fits this machine's
/// memory and disk is checked by the estimate.
pub fn check_solvable(variant: KpeVariant) -> Result<(), crate::InputError> {
    let refuse = |why: String| {
        Err(crate::InputError::unsupported(
            "variant",
            format!("kpe:{variant} {why}"),
        ))
    };
    let largest = largest_layer(variant);
    if largest > MAX_LAYER_POSITIONS {
        let count = super::estimate::positions_count;
        return refuse(format!(
            "has a layer of {} positions ({} unlocked in all); this tool ranks a layer's positions in 32 bits (at most {MAX_LAYER_POSITIONS})",
            count(largest),
            count(endgame_positions(variant))
        ));
    }
    Ok(())
}

/// Solved layers (entry bytes), owned or mapped from checked files.
pub enum Layers {
    Memory(Vec<Vec<u8>>),
    Mapped(Vec<Option<LazyLayer>>),
}

/// A layer file mapped when it is first read: a query touches a few
/// layers, and mapping one reads and checks its block table (0.8 MB for
/// the largest standard layer), which dominated a cold `eval`. Its header
/// is checked when the database is opened (`db::check_header`).
pub struct LazyLayer {
    path: PathBuf,
    id: FileId,
    entries: u64,
    file: OnceLock<MappedFile>,
}

impl LazyLayer {
    fn new(path: PathBuf, id: FileId, entries: u64) -> Self {
        LazyLayer {
            path,
            id,
            entries,
            file: OnceLock::new(),
        }
    }

    /// The mapped file, opened (and its header checked) on first use.
    pub fn file(&self) -> Result<&MappedFile, DbError> {
        if let Some(file) = self.file.get() {
            return Ok(file);
        }
        let file = MappedFile::open(&self.path, self.id, Some(self.entries))?;
        // Another thread may have opened it meanwhile: either copy serves.
        let _ = self.file.set(file);
        Ok(self.file.get().expect("just set"))
    }
}

impl LayerValues for Layers {
    #[inline]
    fn entry(&self, n: usize, index: u64) -> u8 {
        // Solving never reads mapped layers (`build` and `region_for`
        // decode them first); a failed read is 0 here, an error in
        // `try_entry`, which queries use.
        self.try_entry(n, index).unwrap_or(0)
    }

    #[inline]
    fn prefetch(&self, n: usize, index: u64) {
        if let Layers::Memory(v) = self {
            v.prefetch(n, index);
        }
    }
}

impl Layers {
    fn try_entry(&self, n: usize, index: u64) -> Result<u8, DbError> {
        match self {
            Layers::Memory(v) => Ok(v[n][index as usize]),
            Layers::Mapped(files) => files[n]
                .as_ref()
                .expect("layer listed")
                .file()?
                .entry(index),
        }
    }
}

/// Errors answering a question about a Kpé position.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    #[error(transparent)]
    Db(#[from] DbError),
    #[error(transparent)]
    Input(#[from] crate::InputError),
}

/// The exact solution of one Kpé variant.
pub struct Solution {
    pub eg: Endgame,
    layers: Layers,
    /// Locked positions reachable from the start.
    start_region: StartRegion,
}

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
    /// (`region_checkpoint.rs`), if it resumed one.
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

/// Explores and solves the locked region of `eg`'s variant from its
/// start, resuming from the checkpoints an interrupted build left
/// (`region_checkpoint.rs`) and, out of core (hours on the largest
/// boards), keeping its own; the layers' files are read once, for the
/// moves that leave the region.
fn solve_region(
    eg: &Endgame,
    db_dir: &Path,
    scratch: Scratch,
    progress: Progress,
    stats: &mut SolveStats,
    kept_layers: Option<Vec<Vec<u8>>>,
) -> Result<LockedRegion, SolveError> {
    let variant = eg.variant;
    let checkpoint = RegionCheckpoint::new(db_dir, variant);
    let saving = stats.out_of_core;
    let stone_counts = variant.total() as usize + 1;
    let t = Instant::now();
    let (mut region, explored_reused) = match checkpoint.load_exploration(&scratch)? {
        Some(Exploration::Done(region)) => (*region, stone_counts),
        start => {
            let start = match start {
                Some(Exploration::Partial(explored)) => Some(explored),
                _ => None,
            };
            let reused = start.as_ref().map_or(0, |e| stone_counts - e.below);
            let keys_scratch = scratch.clone();
            let root = KpePosition::start(variant);
            let keep = |n, groups: &mut [_], seeds: &_| match saving {
                true => checkpoint.keep_count(n, groups, seeds, &keys_scratch),
                false => Ok(()),
            };
            let region = LockedRegion::explore_from(&root, scratch, progress, start, keep)?;
            (region, reused)
        }
    };
    stats.explore_seconds = t.elapsed().as_secs_f64();
    let runs_reused = checkpoint.load_runs(&mut region)?;
    let runs = region.independent_runs();
    if explored_reused > 0 {
        stats.region_resumed = Some(RegionResumed {
            stone_counts_reused: explored_reused,
            stone_counts,
            runs_reused,
            runs: runs.len(),
        });
    }
    let first = runs
        .get(runs_reused)
        .map_or(region.explored_groups().count(), |r| r.start);
    // The layers are needed only for the moves leaving the region (kept
    // through the exploration, or read back after it), and leave for
    // good before it is solved (beside it, they made the solve's peak).
    let layers = match kept_layers {
        Some(layers) => layers,
        None => read_layers(eg, db_dir)?,
    };
    let exits = region.unlocked_exits(eg, &layers, first, progress)?;
    drop(layers);
    region.solve_groups_with(
        exits,
        progress,
        runs_reused,
        |region, r, groups| match saving {
            true => checkpoint.keep_run(region, r, groups),
            false => Ok(()),
        },
    )?;
    Ok(region)
}

/// Waits for the file being written by `writing`, if any, and passes on
/// its error, or its thread's panic.
fn finish_writing(
    writing: Option<std::thread::JoinHandle<Result<(), DbError>>>,
) -> Result<(), DbError> {
    match writing.map(std::thread::JoinHandle::join) {
        None => Ok(()),
        Some(Ok(written)) => written,
        Some(Err(panic)) => std::panic::resume_unwind(panic),
    }
}

/// How a build stores what it makes.
#[derive(Clone, Copy, Debug, Default)]
pub struct BuildOptions {
    pub encoding: Encoding,
    /// Where the region goes while it is built (`estimate::OutOfCore`).
    pub out_of_core: OutOfCore,
}

pub(super) fn layer_id(variant: KpeVariant, n: usize) -> FileId {
    FileId {
        kind: FileKind::Layer,
        variant,
        stones: n as u32,
    }
}

fn region_id(variant: KpeVariant) -> FileId {
    FileId {
        kind: FileKind::Region,
        variant,
        stones: 0,
    }
}

fn region_keys_id(variant: KpeVariant) -> FileId {
    FileId {
        kind: FileKind::RegionKeys,
        variant,
        stones: 0,
    }
}

impl Solution {
    /// Solves a variant entirely in memory (small variants and tests).
    pub fn in_memory(variant: KpeVariant, progress: Progress) -> Self {
        let eg = Endgame::new(variant);
        let layers = Layers::Memory(eg.solve_all(progress));
        let start_region =
            LockedRegion::solve(&KpePosition::start(variant), &eg, &layers, progress);
        Solution {
            eg,
            layers,
            start_region: StartRegion::Memory(start_region),
        }
    }

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
        let (mut stats, _writer) =
            Self::prepare(variant, db_dir, Scope::Whole, options.out_of_core)?;
        let start = Instant::now();
        let eg = Endgame::new(variant);
        let layers = Self::build_layers(&eg, db_dir, progress, encoding, &mut stats)?;
        Self::build_region(eg, db_dir, progress, encoding, stats, layers, start)
    }

    /// What [`Self::build_with`] does once the layers are there: the
    /// locked region, reused or solved and written, and the solution.
    pub(super) fn build_region(
        eg: Endgame,
        db_dir: &Path,
        progress: Progress,
        encoding: Encoding,
        mut stats: SolveStats,
        mut layers: Vec<Vec<u8>>,
        start: Instant,
    ) -> Result<(Self, SolveStats), SolveError> {
        let variant = eg.variant;
        let scratch = match stats.out_of_core {
            true => Scratch::Disk(db::variant_dir(db_dir, variant)),
            false => Scratch::Memory,
        };
        stats.layers_seconds = start.elapsed().as_secs_f64();
        let keys_path = db::region_keys_path(db_dir, variant);
        let path = db::region_path(db_dir, variant);
        let reused = match reuse(&keys_path, region_keys_id(variant), None)? {
            Some(keys) => reuse(&path, region_id(variant), None)?
                .map(|values| StartRegion::mapped(keys, values, variant))
                .transpose()?,
            None => None,
        };
        let layers_kept = reused.is_some();
        // Nothing is built out of core when the region's files are reused.
        stats.out_of_core &= !layers_kept;
        let start_region = match reused {
            Some(region) => region,
            None => {
                // The exploration reads no layer: unless the budget holds
                // them beside it (`Estimate::keeps_layers`), they leave
                // memory while it runs and come back from their files,
                // checked, after it.
                let keep =
                    (stats.estimate.as_ref()).is_some_and(|e| e.keeps_layers(stats.out_of_core));
                stats.layers_kept_exploring = keep;
                let kept = keep.then(|| std::mem::take(&mut layers));
                drop(std::mem::take(&mut layers));
                let t = Instant::now();
                let region = solve_region(&eg, db_dir, scratch, progress, &mut stats, kept)?;
                let encoded = region_keys::encode(region)?;
                // The key file is written while the values are compressed.
                let (keys_written, values_written) = rayon::join(
                    || {
                        db::write_file_parts(
                            &keys_path,
                            region_keys_id(variant),
                            encoded.keys_len() as u64,
                            &encoded.key_parts(),
                        )
                    },
                    || db::write_values(&path, region_id(variant), &encoded.entries, encoding),
                );
                keys_written?;
                values_written?;
                RegionCheckpoint::new(db_dir, variant).remove()?;
                stats.region_seconds = t.elapsed().as_secs_f64() - stats.explore_seconds;
                let keys = MappedFile::open(&keys_path, region_keys_id(variant), None)?;
                let values = MappedFile::open(&path, region_id(variant), None)?;
                StartRegion::mapped(keys, values, variant)?
            }
        };
        // A region solved here let the layers go: queries read their files.
        let layers = match layers_kept {
            true => Layers::Memory(layers),
            false => Layers::Mapped(lazy_layers(&eg, db_dir)?),
        };
        stats.region_positions = start_region.len() as u64;
        stats.seconds = start.elapsed().as_secs_f64();
        Ok((
            Solution {
                eg,
                layers,
                start_region,
            },
            stats,
        ))
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
        let (mut stats, _writer) =
            Self::prepare(variant, db_dir, Scope::Endgame, OutOfCore::Never)?;
        let start = Instant::now();
        let eg = Endgame::new(variant);
        Self::build_layers(&eg, db_dir, progress, Encoding::Zstd, &mut stats)?;
        stats.layers_seconds = start.elapsed().as_secs_f64();
        stats.seconds = stats.layers_seconds;
        Ok(stats)
    }

    /// What every build does first: refuses a variant this tool cannot
    /// represent, or (when files are missing) one that its estimate says
    /// cannot fit, in memory or out of core as `out_of_core` allows, before
    /// anything is written; then takes the directory's writer lock.
    pub(super) fn prepare(
        variant: KpeVariant,
        db_dir: &Path,
        scope: Scope,
        out_of_core: OutOfCore,
    ) -> Result<(SolveStats, super::lock::DbLock), SolveError> {
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
            .map(|n| db::layer_path(db_dir, variant, n))
            .collect();
        if scope == Scope::Whole {
            wanted.push(db::region_path(db_dir, variant));
            wanted.push(db::region_keys_path(db_dir, variant));
        }
        if !wanted.iter().all(|p| p.exists()) {
            // A directory that cannot be made (`--db /proc/x`) is an I/O
            // error naming it; left to the estimate, it read as a disk
            // shortage ("0.0 GiB available", the free space of `/proc`).
            let dir = db::variant_dir(db_dir, variant);
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
        let dir = db::variant_dir(db_dir, variant);
        let writer = super::lock::DbLock::acquire(&dir, |h| {
            eprintln!("{}: waiting for {h}, which is building it", dir.display())
        })?;
        Ok((stats, writer))
    }

    /// Every endgame layer, smallest first: read from its file if it is
    /// there and checks out, taken from another K of the same W if one has
    /// it, else solved and written. All are returned decoded.
    fn build_layers(
        eg: &Endgame,
        db_dir: &Path,
        progress: Progress,
        encoding: Encoding,
        stats: &mut SolveStats,
    ) -> Result<Vec<Vec<u8>>, SolveError> {
        let variant = eg.variant;
        let mut layers: Vec<Vec<u8>> = vec![Vec::new(); variant.total() as usize + 1];
        // The retrograde's words, kept from one layer to the next.
        let mut words = eg.words_buffer();
        // Each solved layer's file is written by a thread of its own while
        // the next layer is solved: written in line, the writes and their
        // `fsync` held the solve up 0.4 s of the standard game's 2.65 s of
        // files. The last writer is waited for on every way out.
        let mut writing = None;
        let built = (|| -> Result<(), SolveError> {
            for n in eg.layers() {
                let (path, id) = (db::layer_path(db_dir, variant, n), layer_id(variant, n));
                let size = eg.index.layer_size(n);
                if let Some(file) = reuse(&path, id, Some(size))? {
                    layers[n] = file.all_entries()?.into_owned();
                    stats.layers_reused.push(n);
                    continue;
                }
                if let Some((entries, from)) = shared_layer(db_dir, variant, n, size) {
                    db::write_values(&path, id, &entries, encoding)?;
                    layers[n] = entries;
                    stats.layers_reused.push(n);
                    stats.layers_shared.push((n, from));
                    continue;
                }
                let (entries, steps) = eg.solve_layer_timed(n, &layers, progress, &mut words);
                stats.layer_steps.add(steps);
                let file = db::ValueFile::encode(&entries, encoding).into_owned();
                finish_writing(writing.take())?;
                writing = Some(std::thread::spawn(move || file.write(&path, id)));
                layers[n] = entries;
                stats.layers_computed.push(n);
            }
            Ok(())
        })();
        let written = finish_writing(writing);
        built?;
        written?;
        stats.unlocked_positions = eg.layers().map(|n| eg.index.layer_size(n)).sum();
        Ok(layers)
    }

    /// Opens a database for queries. Blocks are checked as they are read.
    pub fn open(variant: KpeVariant, db_dir: &Path) -> Result<Self, SolveError> {
        let eg = Endgame::new(variant);
        let path = db::region_path(db_dir, variant);
        let keys_path = db::region_keys_path(db_dir, variant);
        if !path.exists() || !keys_path.exists() {
            return Err(files_missing(&eg, db_dir));
        }
        // The files' headers and tables are read at once: from a cold
        // page cache each read waits for the disk.
        let open_region = || -> Result<StartRegion, SolveError> {
            let (keys, values) = rayon::join(
                || MappedFile::open(&keys_path, region_keys_id(variant), None),
                || MappedFile::open(&path, region_id(variant), None),
            );
            Ok(StartRegion::mapped(keys?, values?, variant)?)
        };
        let (files, start_region) =
            on_probe_pool(|| rayon::join(|| lazy_layers(&eg, db_dir), open_region));
        let (files, start_region) = (files?, start_region?);
        Ok(Solution {
            eg,
            layers: Layers::Mapped(files),
            start_region,
        })
    }

    /// A database if one exists, else an in-memory solution for small
    /// variants; otherwise the error says which `sow solve` to run.
    pub fn open_or_solve(
        variant: KpeVariant,
        db_dir: &Path,
        progress: Progress,
    ) -> Result<Self, SolveError> {
        match Self::open(variant, db_dir) {
            Err(SolveError::Db(DbError::Missing { .. } | DbError::Incomplete { .. }))
                if endgame_positions(variant) <= ON_THE_FLY_POSITIONS =>
            {
                check_solvable(variant)?;
                Ok(Self::in_memory(variant, progress))
            }
            other => other,
        }
    }

    pub fn variant(&self) -> KpeVariant {
        self.eg.variant
    }

    pub fn start_region(&self) -> &StartRegion {
        &self.start_region
    }

    /// The entry bytes of one endgame layer (values with the "can end"
    /// flag, see [`db::entry`]), checked.
    pub fn layer_entries(&self, n: usize) -> Result<Cow<'_, [u8]>, DbError> {
        match &self.layers {
            Layers::Memory(v) => Ok(Cow::Borrowed(&v[n])),
            Layers::Mapped(files) => files[n]
                .as_ref()
                .expect("layer listed")
                .file()?
                .all_entries(),
        }
    }

    pub fn layers(&self) -> &Layers {
        &self.layers
    }

    /// Solves the locked region of a position that is not reachable from
    /// the start (none when the position is in the start's region or unlocked).
    pub fn region_for(
        &self,
        pos: &KpePosition,
        progress: Progress,
    ) -> Result<Option<LockedRegion>, SolveError> {
        let locked = !(pos.is_unlocked(crate::Side::South) && pos.is_unlocked(crate::Side::North));
        if !locked || self.start_region.value(pos)?.is_some() {
            return Ok(None);
        }
        // Solving reads the layers at random: decode them all first (a
        // compressed block per probe would cost microseconds each), which
        // checks every block, so that a corrupt one is an error rather
        // than a wrong value.
        let decoded;
        let layers = match &self.layers {
            Layers::Memory(_) => &self.layers,
            Layers::Mapped(files) => {
                let mut all = vec![Vec::new(); files.len()];
                for (n, file) in files.iter().enumerate() {
                    if let Some(file) = file {
                        all[n] = file.file()?.all_entries()?.into_owned();
                    }
                }
                decoded = Layers::Memory(all);
                &decoded
            }
        };
        Ok(Some(LockedRegion::solve(pos, &self.eg, layers, progress)))
    }

    /// The exact value of a position for its mover; `extra` holds the
    /// region solved for a position outside the start's region.
    pub fn value(
        &self,
        pos: &KpePosition,
        extra: Option<&LockedRegion>,
    ) -> Result<i32, SolveError> {
        Ok(entry_value(self.entry(pos, extra)?) as i32)
    }

    /// Whether perfect play from a position can end (some line of
    /// value-keeping moves reaches the end of the game, `endless.rs`).
    pub fn can_end(
        &self,
        pos: &KpePosition,
        extra: Option<&LockedRegion>,
    ) -> Result<bool, SolveError> {
        Ok(self.value_and_can_end(pos, extra)?.1)
    }

    /// A position's value for its mover and whether its perfect play can
    /// end, from one probe (a finished game: 0, and it has ended).
    fn value_and_can_end(
        &self,
        pos: &KpePosition,
        extra: Option<&LockedRegion>,
    ) -> Result<(i32, bool), SolveError> {
        if pos.is_over() {
            return Ok((0, true));
        }
        let entry = self.entry(pos, extra)?;
        Ok((entry_value(entry) as i32, entry_can_end(entry)))
    }

    /// The stored entry byte of a position.
    fn entry(&self, pos: &KpePosition, extra: Option<&LockedRegion>) -> Result<u8, SolveError> {
        if pos.is_unlocked(crate::Side::South) && pos.is_unlocked(crate::Side::North) {
            let (n, index) = self.eg.probe_at(pos);
            return Ok(self.layers.try_entry(n, index)?);
        }
        self.start_region
            .entry(pos)?
            .or_else(|| extra.and_then(|r| r.entry(pos)))
            .ok_or_else(|| {
                crate::InputError::unsupported(
                    "position",
                    "locked position outside the solved regions",
                )
                .into()
            })
    }

    /// Every legal move with its exact value, best first (ties in move order).
    pub fn move_values(
        &self,
        pos: &KpePosition,
        extra: Option<&LockedRegion>,
    ) -> Result<Vec<(KpeMove, i32)>, SolveError> {
        let mut out: Vec<(KpeMove, i32)> = (self.moves_with_entries(pos, extra)?.iter())
            .map(|m| (m.mv, m.value()))
            .collect();
        out.sort_by_key(|&(mv, v)| (-v, mv));
        Ok(out)
    }

    /// Every legal move of `pos` (in move order) with its child and the
    /// child's entry byte. The children are probed at once: from a
    /// database not yet in the page cache each probe waits for the disk (a
    /// page fault or more).
    fn moves_with_entries(
        &self,
        pos: &KpePosition,
        extra: Option<&LockedRegion>,
    ) -> Result<Vec<MoveEntry>, SolveError> {
        let children: Vec<(KpeMove, KpePosition, u32)> = pos
            .legal_moves()
            .into_iter()
            .map(|mv| {
                let (child, gained) = pos.sow(mv.pit());
                (mv, child, gained)
            })
            .collect();
        let probe_all = || {
            use rayon::prelude::*;
            children
                .par_iter()
                .map(|(_, child, _)| self.entry(child, extra))
                .collect::<Result<Vec<u8>, _>>()
        };
        let entries = on_probe_pool(probe_all)?;
        Ok(children
            .into_iter()
            .zip(entries)
            .map(|((mv, child, gained), entry)| MoveEntry {
                mv,
                child,
                gained,
                entry,
            })
            .collect())
    }

    /// Perfect play from `pos`, at most `max_len` moves: where perfect
    /// play can end ([`Self::can_end`]), a line of value-keeping moves that
    /// ends the game ([`Self::ending_line`]); otherwise (or if that search
    /// gives up) the first best move each time until the game ends or a
    /// position repeats (the repeating line is endless play).
    ///
    /// The first best move alone can cycle where perfect play could end:
    /// from the start of the standard game it repeated after 357 moves,
    /// while the search finds an ending line of 147 in milliseconds.
    pub fn principal_variation(
        &self,
        pos: &KpePosition,
        extra: Option<&LockedRegion>,
        max_len: usize,
    ) -> Result<Vec<KpeMove>, SolveError> {
        self.opening_layers_below(pos, || self.principal_variation_here(pos, extra, max_len))
    }

    /// Runs `op` while another thread opens the layer files of at most
    /// `pos`'s stones not open yet, largest first, until `op` returns. A
    /// line from `pos` can only enter those layers, largest first; opening
    /// one reads its block table whole (up to 0.8 MB on the standard
    /// game), which a probe would otherwise wait for the first time the
    /// line enters it. From a cold page cache these reads then overlap the
    /// line's own probes of the locked region, which mostly wait for the
    /// disk too.
    fn opening_layers_below<R>(&self, pos: &KpePosition, op: impl FnOnce() -> R) -> R {
        let Layers::Mapped(files) = &self.layers else {
            return op();
        };
        let top = (pos.board_total() as usize).min(files.len() - 1);
        let closed: Vec<&LazyLayer> = (files[..=top].iter().rev().flatten())
            .filter(|layer| layer.file.get().is_none())
            .collect();
        if closed.is_empty() {
            return op();
        }
        let done = AtomicBool::new(false);
        std::thread::scope(|scope| {
            // Without a thread (the system refused one), each layer is
            // opened when the line first enters it, as before.
            let _ = std::thread::Builder::new()
                .name("open-layers".into())
                .spawn_scoped(scope, || {
                    for layer in closed {
                        if done.load(Relaxed) {
                            break;
                        }
                        // A file that fails to open is reported by the
                        // probe that needs it.
                        let _ = layer.file();
                    }
                });
            let out = op();
            done.store(true, Relaxed);
            out
        })
    }

    /// [`Self::principal_variation`], the layers' opening aside.
    fn principal_variation_here(
        &self,
        pos: &KpePosition,
        extra: Option<&LockedRegion>,
        max_len: usize,
    ) -> Result<Vec<KpeMove>, SolveError> {
        let (mut value, can_end) = self.value_and_can_end(pos, extra)?;
        if can_end {
            if let Some(line) = self.ending_line_from(pos, value, extra, max_len)? {
                return Ok(line);
            }
        }
        // The first best move (in move order) each time.
        let mut line = Vec::new();
        let mut seen = hashbrown::HashSet::new();
        let mut at = *pos;
        while line.len() < max_len && seen.insert(at.repetition_key()) {
            let mut moves = Candidates::in_move_order(&at);
            let Some(best) = self.next_keeping(&mut moves, value, false, extra)? else {
                break;
            };
            line.push(best.mv);
            at = best.child;
            value = entry_value(best.entry) as i32;
        }
        Ok(line)
    }

    /// A line of at most `max_len` value-keeping moves from `pos` to the
    /// end of the game through positions that can end, if `pos` can end:
    /// a depth-first search that never enters a position twice, captures
    /// first (they bring the end nearer), then in pit order. Every
    /// position that can end has a value-keeping move into another that
    /// can, or ends the game itself (`endless.rs`), so the search reaches
    /// the end unless the line would be longer than `max_len` or it visits
    /// [`ENDING_LINE_NODES`] positions first (then None).
    pub fn ending_line(
        &self,
        pos: &KpePosition,
        extra: Option<&LockedRegion>,
        max_len: usize,
    ) -> Result<Option<Vec<KpeMove>>, SolveError> {
        match self.value_and_can_end(pos, extra)? {
            (value, true) => self.ending_line_from(pos, value, extra, max_len),
            (_, false) => Ok(None),
        }
    }

    /// [`Self::ending_line`] from `pos`, which can end and is worth `value`.
    fn ending_line_from(
        &self,
        pos: &KpePosition,
        value: i32,
        extra: Option<&LockedRegion>,
        max_len: usize,
    ) -> Result<Option<Vec<KpeMove>>, SolveError> {
        let mut visited = hashbrown::HashSet::new();
        visited.insert(pos.repetition_key());
        let mut stack = vec![EndingFrame::new(*pos, value)];
        for _ in 0..ENDING_LINE_NODES {
            let depth = stack.len();
            let Some(frame) = stack.last_mut() else {
                return Ok(None);
            };
            if frame.at.is_over() {
                let line = (stack[..depth - 1].iter())
                    .map(|f| f.played.expect("each frame below the top played a move"))
                    .collect();
                return Ok(Some(line));
            }
            if depth > max_len {
                stack.pop();
                continue;
            }
            let Some(next) = self.next_keeping(&mut frame.moves, frame.value, true, extra)? else {
                stack.pop();
                continue;
            };
            frame.played = Some(next.mv);
            if visited.insert(next.child.repetition_key()) {
                stack.push(EndingFrame::new(next.child, entry_value(next.entry) as i32));
            }
        }
        Ok(None)
    }

    /// The next of `moves` that keeps `value` (the value of their position
    /// for its mover) and, if `must_end`, leads to a position that can end,
    /// with its child's entry; None when there are no more. The children
    /// are probed one at a time, in the order of `moves`, only until one
    /// qualifies: the position's own value says which moves keep it
    /// without the others' values. From a cold page cache a line then
    /// waits for about half the reads it waited for when every child of
    /// each position was probed (results/BENCHMARKS.md).
    fn next_keeping(
        &self,
        moves: &mut Candidates,
        value: i32,
        must_end: bool,
        extra: Option<&LockedRegion>,
    ) -> Result<Option<MoveEntry>, SolveError> {
        while let Some(&(mv, child, gained)) = moves.moves.get(moves.next) {
            moves.next += 1;
            let entry = self.entry(&child, extra)?;
            let candidate = MoveEntry {
                mv,
                child,
                gained,
                entry,
            };
            if candidate.value() == value && (!must_end || candidate.child_can_end()) {
                return Ok(Some(candidate));
            }
        }
        Ok(None)
    }
}

/// A position's legal moves with their children and captures, in the
/// order a line tries them, and how many were tried
/// ([`Solution::next_keeping`]).
struct Candidates {
    moves: Vec<(KpeMove, KpePosition, u32)>,
    next: usize,
}

impl Candidates {
    fn sorted_by<K: Ord>(at: &KpePosition, key: impl Fn(KpeMove, u32) -> K) -> Self {
        let mut moves: Vec<_> = (at.legal_moves().into_iter())
            .map(|mv| {
                let (child, gained) = at.sow(mv.pit());
                (mv, child, gained)
            })
            .collect();
        moves.sort_by_key(|&(mv, _, gained)| key(mv, gained));
        Candidates { moves, next: 0 }
    }

    /// In move order (pit order).
    fn in_move_order(at: &KpePosition) -> Self {
        Self::sorted_by(at, |mv, _| mv)
    }

    /// The largest captures first (they bring the end nearer), then in
    /// pit order.
    fn captures_first(at: &KpePosition) -> Self {
        Self::sorted_by(at, |mv, gained| (std::cmp::Reverse(gained), mv))
    }
}

/// A position on [`Solution::ending_line`]'s search stack.
struct EndingFrame {
    at: KpePosition,
    /// The position's exact value for its mover.
    value: i32,
    /// Its moves in the order the search tries them.
    moves: Candidates,
    /// The move last taken from here (to the frame above on the stack).
    played: Option<KpeMove>,
}

impl EndingFrame {
    fn new(at: KpePosition, value: i32) -> Self {
        EndingFrame {
            at,
            value,
            moves: Candidates::captures_first(&at),
            played: None,
        }
    }
}

/// A move with its child and the child's entry byte
/// ([`Solution::moves_with_entries`], [`Solution::next_keeping`]).
struct MoveEntry {
    mv: KpeMove,
    child: KpePosition,
    gained: u32,
    entry: u8,
}

impl MoveEntry {
    /// The move's exact value for its mover.
    fn value(&self) -> i32 {
        self.gained as i32 - entry_value(self.entry) as i32
    }

    /// Whether perfect play from the child can end ([`Solution::can_end`]).
    fn child_can_end(&self) -> bool {
        self.child.is_over() || entry_can_end(self.entry)
    }
}

/// Threads that probe a position's children at once
/// ([`Solution::move_values`]): they mostly wait for the disk, so more
/// than the cores; a position has at most one move a pit of its row.
const PROBE_THREADS: usize = 8;

/// The pool of [`PROBE_THREADS`], made at the first probe of children;
/// None if the system would not start its threads (the probes then run
/// on the caller's pool).
fn probe_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(PROBE_THREADS)
            .thread_name(|i| format!("probe-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// Runs `op` on the [`probe_pool`], or on the caller's pool without one.
fn on_probe_pool<R: Send>(op: impl FnOnce() -> R + Send) -> R {
    match probe_pool() {
        Some(pool) => pool.install(op),
        None => op(),
    }
}

/// Positions [`Solution::ending_line`] visits before it gives up, a few
/// probes each: a bound on its time (from the standard game's start it
/// finds a line of 147 moves).
pub const ENDING_LINE_NODES: usize = 100_000;

/// The error for a database not all of whose files are there: who is
/// building it, or which `sow solve` completes it (`lock.rs`).
fn files_missing(eg: &Endgame, db_dir: &Path) -> SolveError {
    let all: Vec<usize> = eg.layers().collect();
    super::lock::absent(db_dir, eg.variant, &all).into()
}

/// Every layer file of a variant, its header checked, opened when first
/// read.
fn lazy_layers(eg: &Endgame, db_dir: &Path) -> Result<Vec<Option<LazyLayer>>, SolveError> {
    use rayon::prelude::*;
    let variant = eg.variant;
    let layers: Vec<usize> = eg.layers().collect();
    let checked = (layers.par_iter())
        .map(|&n| {
            let path = db::layer_path(db_dir, variant, n);
            if !path.exists() {
                return Err(files_missing(eg, db_dir));
            }
            let entries = eg.index.layer_size(n);
            db::check_header(&path, layer_id(variant, n), Some(entries))?;
            Ok((n, LazyLayer::new(path, layer_id(variant, n), entries)))
        })
        .collect::<Result<Vec<_>, SolveError>>()?;
    let mut files: Vec<Option<LazyLayer>> = (0..=variant.total()).map(|_| None).collect();
    for (n, layer) in checked {
        files[n] = Some(layer);
    }
    Ok(files)
}

/// Every layer of a variant, decoded from its checked files.
fn read_layers(eg: &Endgame, db_dir: &Path) -> Result<Vec<Vec<u8>>, DbError> {
    let v = eg.variant;
    let mut layers = vec![Vec::new(); v.total() as usize + 1];
    for n in eg.layers() {
        let path = db::layer_path(db_dir, v, n);
        let file = MappedFile::open(&path, layer_id(v, n), Some(eg.index.layer_size(n)))?;
        layers[n] = file.all_entries()?.into_owned();
    }
    Ok(layers)
}

/// A verified existing file, or None when it is absent.
pub(super) fn reuse(
    path: &Path,
    id: FileId,
    entries: Option<u64>,
) -> Result<Option<MappedFile>, DbError> {
    if !path.exists() {
        return Ok(None);
    }
    let file = MappedFile::open(path, id, entries)?;
    file.verify_all()?;
    Ok(Some(file))
}

/// Layer `n` of `variant` taken from a solved variant of the same W and
/// another K, if the database holds one, with that variant. An unlocked
/// position's value and whether perfect play can end depend on its board
/// alone, never on the stones the game started with (RULES §1: sowing,
/// captures and the end count the stones on the board), so layer `n` is
/// the same for every K with `2WK ≥ n` (tested: `tests/kpe_solver.rs`,
/// `layers_are_shared_by_every_k_of_a_w`). A file of the other variant
/// that is absent or fails its checks is not used (its own readers
/// report it); this layer is then solved.
pub(super) fn shared_layer(
    db_dir: &Path,
    variant: KpeVariant,
    n: usize,
    size: u64,
) -> Option<(Vec<u8>, KpeVariant)> {
    KpeVariant::K_RANGE
        .rev()
        .filter_map(|k| KpeVariant::new(variant.w() as u8, k).ok())
        .filter(|&other| other != variant && other.total() as usize >= n)
        .find_map(|other| {
            let path = db::layer_path(db_dir, other, n);
            let file = reuse(&path, layer_id(other, n), Some(size)).ok()??;
            let entries = file.all_entries().ok()?.into_owned();
            Some((entries, other))
        })
}

/// The locked region of the start: solved in memory, or its key and
/// value files mapped and searched in place.
// One per solution: the size of the mapped variant does not matter.
#[allow(clippy::large_enum_variant)]
pub enum StartRegion {
    Memory(LockedRegion),
    Mapped {
        keys: RegionKeys,
        values: MappedFile,
    },
}

/// The positions of one stone count of the start's region: their stones
/// and entry bytes (order: as stored).
pub struct RegionGroup {
    pub stones: usize,
    pub entries: Vec<u8>,
}

impl StartRegion {
    pub fn mapped(
        keys: MappedFile,
        mut values: MappedFile,
        variant: KpeVariant,
    ) -> Result<Self, DbError> {
        let keys = RegionKeys::new(keys, variant)?;
        if keys.len() != values.entries() {
            return Err(DbError::Mismatch {
                path: values.path().to_path_buf(),
                what: format!(
                    "{} values for the {} keys of {}",
                    values.entries(),
                    keys.len(),
                    keys.file().path().display()
                ),
            });
        }
        super::db_check::region(&keys, &mut values, variant)?;
        Ok(StartRegion::Mapped { keys, values })
    }

    pub fn len(&self) -> usize {
        match self {
            StartRegion::Memory(r) => r.len(),
            StartRegion::Mapped { values, .. } => values.entries() as usize,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of a locked position, if it is in the region.
    pub fn value(&self, pos: &KpePosition) -> Result<Option<i8>, DbError> {
        Ok(self.entry(pos)?.map(entry_value))
    }

    /// The entry byte of a locked position, if it is in the region.
    pub fn entry(&self, pos: &KpePosition) -> Result<Option<u8>, DbError> {
        match self {
            StartRegion::Memory(r) => Ok(r.entry(pos)),
            StartRegion::Mapped { keys, values } => match keys.find_position(pos)? {
                Some(i) => values.entry(i).map(Some),
                None => Ok(None),
            },
        }
    }

    /// Every position's entry, by group (ascending stone count).
    pub fn groups(&self) -> Result<Vec<RegionGroup>, DbError> {
        match self {
            StartRegion::Memory(r) => Ok(r
                .stone_count_entries()
                .into_iter()
                .map(|(stones, entries)| RegionGroup { stones, entries })
                .collect()),
            StartRegion::Mapped { keys, values } => {
                let all = values.all_entries()?;
                Ok(keys
                    .groups()
                    .iter()
                    .map(|g| RegionGroup {
                        stones: g.stones,
                        entries: all[g.first as usize..(g.first + g.keys) as usize].to_vec(),
                    })
                    .collect())
            }
        }
    }

    /// Calls `f` with every position (mover as South) and its entry byte,
    /// by ascending stone count.
    pub fn for_each<E: From<DbError>>(
        &self,
        mut f: impl FnMut(&KpePosition, u8) -> Result<(), E>,
    ) -> Result<(), E> {
        match self {
            StartRegion::Memory(r) => {
                let mut result = Ok(());
                r.for_each_entry(|pos, e| {
                    if result.is_ok() {
                        result = f(pos, e);
                    }
                });
                result?;
            }
            StartRegion::Mapped { keys, values } => {
                keys.file().advise_sequential();
                values.advise_sequential();
                for (g, group) in keys.groups().iter().enumerate() {
                    let mut cursor = keys.cursor();
                    for (j, key) in keys.keys_of(g)?.into_iter().enumerate() {
                        f(&cursor.position(key), values.entry(group.first + j as u64)?)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// The default database directory: `$SOW_DB`, else the user's data directory.
pub fn default_db_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("SOW_DB") {
        return PathBuf::from(dir);
    }
    let base = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(|| PathBuf::from("."));
    base.join("sow")
}
