//! The locked region of a build: explored and solved from the start,
//! resuming from the checkpoints an interrupted build left and, out of
//! core, keeping its own (`checkpoint.rs`); then written as its two files,
//! the key index (`keys/key_file.rs`) and the values in the same order.

use std::path::Path;
use std::time::Instant;

use super::checkpoint::{Exploration, RegionCheckpoint};
use super::layers::reuse;
use super::{RegionResumed, SolveStats};
use crate::games::kpe::{KpePosition, KpeVariant};
use crate::infra::progress::Progress;
use crate::kpe_db::check::open_checked;
use crate::kpe_db::endgame::Endgame;
use crate::kpe_db::error::{DbError, SolveError};
use crate::kpe_db::file::{self, Encoding, FileId};
use crate::kpe_db::keys::key_file::KeyFileParts;
use crate::kpe_db::paths;
use crate::kpe_db::probe::layers::{lazy_layers, Layers};
use crate::kpe_db::probe::StartRegion;
use crate::kpe_db::region::LockedRegion;
use crate::kpe_db::scratch::{Scratch, ScratchVec};

/// The start's region of a build, and the layers as its queries will read
/// them: the region's files, if they are there and check out (the layers
/// then stay in memory); else the region explored, solved and written, the
/// layers let go (their files serve the queries).
pub(super) fn start_region(
    eg: &Endgame,
    db_dir: &Path,
    scratch: Scratch,
    progress: Progress,
    encoding: Encoding,
    stats: &mut SolveStats,
    mut layers: Vec<Vec<u8>>,
) -> Result<(StartRegion, Layers), SolveError> {
    let variant = eg.variant;
    let keys_path = paths::region_keys_path(db_dir, variant);
    let path = paths::region_path(db_dir, variant);
    let reused = match reuse(&keys_path, FileId::region_keys(variant), None)? {
        Some(keys) => reuse(&path, FileId::region(variant), None)?
            .map(|values| StartRegion::mapped(keys, values, variant))
            .transpose()?,
        None => None,
    };
    if let Some(region) = reused {
        // Nothing is built out of core when the region's files are reused.
        stats.out_of_core = false;
        return Ok((region, Layers::Memory(layers)));
    }
    // The exploration reads no layer: unless the budget holds them beside
    // it (`Estimate::keeps_layers`), they leave memory while it runs and
    // come back from their files, checked, after it.
    let keep = (stats.estimate.as_ref()).is_some_and(|e| e.keeps_layers(stats.out_of_core));
    stats.layers_kept_exploring = keep;
    let kept = keep.then(|| std::mem::take(&mut layers));
    drop(layers);
    let t = Instant::now();
    let region = solve_region(eg, db_dir, scratch, progress, stats, kept)?;
    write_region(region, db_dir, variant, encoding)?;
    RegionCheckpoint::new(db_dir, variant).remove()?;
    stats.region_seconds = t.elapsed().as_secs_f64() - stats.explore_seconds;
    let keys = open_checked(&keys_path, FileId::region_keys(variant), None)?;
    let values = open_checked(&path, FileId::region(variant), None)?;
    let region = StartRegion::mapped(keys, values, variant)?;
    Ok((region, Layers::Mapped(lazy_layers(eg, db_dir)?)))
}

/// Explores and solves the locked region of `eg`'s variant from its
/// start, resuming from the checkpoints an interrupted build left
/// (`checkpoint.rs`) and, out of core (hours on the largest
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

/// Every layer of a variant, decoded from its checked files.
fn read_layers(eg: &Endgame, db_dir: &Path) -> Result<Vec<Vec<u8>>, DbError> {
    let v = eg.variant;
    let mut layers = vec![Vec::new(); v.total() as usize + 1];
    for n in eg.layers() {
        let path = paths::layer_path(db_dir, v, n);
        let file = open_checked(&path, FileId::layer(v, n), Some(eg.index.layer_size(n)))?;
        layers[n] = file.all_entries()?.into_owned();
    }
    Ok(layers)
}

/// Writes a solved region's files into `db_dir`: its key index and its
/// values, the key file written while the values are compressed.
fn write_region(
    region: LockedRegion,
    db_dir: &Path,
    variant: KpeVariant,
    encoding: Encoding,
) -> Result<(), DbError> {
    let encoded = encode(region)?;
    let keys_path = paths::region_keys_path(db_dir, variant);
    let path = paths::region_path(db_dir, variant);
    let (keys_written, values_written) = rayon::join(
        || {
            file::write_file_parts(
                &keys_path,
                FileId::region_keys(variant),
                encoded.keys.payload_len() as u64,
                &encoded.keys.parts(),
            )
        },
        || file::write_values(&path, FileId::region(variant), &encoded.entries, encoding),
    );
    keys_written?;
    values_written
}

/// A solved region in its files' layout: the key file's payload and the
/// entry bytes of its positions in the same order.
struct EncodedRegion {
    keys: KeyFileParts,
    entries: ScratchVec<u8>,
}

/// Encodes a solved region: each stone count's groups merged into the
/// file's layout (`LockedRegion::for_each_stone_count`), freed as it goes;
/// the fields and entries in the region's scratch (on disk for a region
/// built out of core).
fn encode(region: LockedRegion) -> Result<EncodedRegion, DbError> {
    let mut keys = KeyFileParts::new(region.stone_count_number());
    let mut entries = region.scratch().zeroed(region.len())?;
    region.for_each_stone_count(&mut entries, |count| keys.push(count))?;
    Ok(EncodedRegion { keys, entries })
}
