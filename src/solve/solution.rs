//! A solved Kpé variant: the endgame database and the locked region of the
//! start, in memory or mapped from files, answering exact values.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::db::{self, DbError, FileId, FileKind, MappedFile};
use super::endgame::{Endgame, LayerValues};
use super::endless::Endings;
use super::opening::{mix, region_key, stones_of, unmix, LockedRegion};
use crate::games::kpe::{KpeMove, KpePosition, KpeVariant};
use crate::progress::Progress;
use crate::Game;

/// Largest database (positions) this tool builds: about 3 GiB of values.
pub const MAX_POSITIONS: u64 = 3_000_000_000;
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

/// Checks that a variant can be solved by this tool on this machine.
pub fn check_solvable(variant: KpeVariant) -> Result<(), crate::InputError> {
    let positions = endgame_positions(variant);
    let bits = 32 - variant.total().leading_zeros() as usize;
    if positions > MAX_POSITIONS || bits * variant.pits() + 2 * variant.w() > 64 {
        return Err(crate::InputError::unsupported(
            "variant",
            format!(
                "kpe:{variant} has {positions} unlocked positions; this tool solves variants up to {MAX_POSITIONS}"
            ),
        ));
    }
    Ok(())
}

/// Solved layers, owned or mapped from verified files.
pub enum Layers {
    Memory(Vec<Vec<i8>>),
    Mapped(Vec<Option<MappedFile>>),
}

impl LayerValues for Layers {
    #[inline]
    fn value(&self, n: usize, index: u64) -> i8 {
        match self {
            Layers::Memory(v) => v[n][index as usize],
            Layers::Mapped(files) => {
                let file = files[n].as_ref().expect("layer opened");
                // Solving reads mapped layers only after `verify_all`
                // (`build`, `region_for`), so no block can fail here.
                file.byte(index as usize).map(|b| b as i8).unwrap_or(0)
            }
        }
    }
}

impl Layers {
    /// Checks every block of every mapped layer.
    fn verify_all(&self) -> Result<(), DbError> {
        match self {
            Layers::Memory(_) => Ok(()),
            Layers::Mapped(files) => files.iter().flatten().try_for_each(MappedFile::verify_all),
        }
    }

    fn try_value(&self, n: usize, index: u64) -> Result<i8, DbError> {
        match self {
            Layers::Memory(v) => Ok(v[n][index as usize]),
            Layers::Mapped(files) => {
                let file = files[n].as_ref().expect("layer opened");
                file.byte(index as usize).map(|b| b as i8)
            }
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
    pub unlocked_positions: u64,
    pub region_positions: u64,
    pub seconds: f64,
    /// Wall seconds of the phases computed by this run: the endgame
    /// layers, the locked region's forward exploration and its solution.
    pub layers_seconds: f64,
    pub explore_seconds: f64,
    pub region_seconds: f64,
}

fn layer_id(variant: KpeVariant, n: usize) -> FileId {
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
    /// reusing every layer already there whose checksums verify.
    pub fn build(
        variant: KpeVariant,
        db_dir: &Path,
        progress: Progress,
    ) -> Result<(Self, SolveStats), SolveError> {
        check_solvable(variant)?;
        // One writer per directory (`lock.rs`); a second one waits here.
        let dir = db::variant_dir(db_dir, variant);
        let _writer = super::lock::DbLock::acquire(&dir, |h| {
            eprintln!("{}: waiting for {h}, which is building it", dir.display())
        })?;
        let start = Instant::now();
        let eg = Endgame::new(variant);
        let mut stats = SolveStats::default();
        let mut files: Vec<Option<MappedFile>> = (0..=variant.total()).map(|_| None).collect();
        for n in eg.layers() {
            let path = db::layer_path(db_dir, variant, n);
            let size = eg.index.layer_size(n);
            if let Some(file) = reuse(&path, layer_id(variant, n), Some(size))? {
                files[n] = Some(file);
                stats.layers_reused.push(n);
                continue;
            }
            let layers = Layers::Mapped(files);
            let values = eg.solve_layer(n, &layers, progress);
            let Layers::Mapped(back) = layers else {
                unreachable!()
            };
            files = back;
            db::write_file(&path, layer_id(variant, n), size, as_bytes(&values))?;
            drop(values);
            let file = MappedFile::open(&path, layer_id(variant, n), Some(size))?;
            file.verify_all()?;
            files[n] = Some(file);
            stats.layers_computed.push(n);
        }
        stats.unlocked_positions = eg.layers().map(|n| eg.index.layer_size(n)).sum();
        stats.layers_seconds = start.elapsed().as_secs_f64();
        let layers = Layers::Mapped(files);
        let path = db::region_path(db_dir, variant);
        let start_region = match reuse(&path, region_id(variant), None)? {
            Some(file) => StartRegion::Mapped(file),
            None => {
                let t = Instant::now();
                let mut region = LockedRegion::explore(&KpePosition::start(variant), progress);
                stats.explore_seconds = t.elapsed().as_secs_f64();
                let t = Instant::now();
                region.solve_groups(&eg, &layers, progress);
                write_region(&path, variant, &region)?;
                stats.region_seconds = t.elapsed().as_secs_f64();
                StartRegion::Memory(region)
            }
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

    /// Opens a database for queries. Blocks are checked as they are read.
    pub fn open(variant: KpeVariant, db_dir: &Path) -> Result<Self, SolveError> {
        let eg = Endgame::new(variant);
        let missing = || super::lock::absent(db_dir, variant, &eg.layers().collect::<Vec<_>>());
        let mut files: Vec<Option<MappedFile>> = (0..=variant.total()).map(|_| None).collect();
        for n in eg.layers() {
            let path = db::layer_path(db_dir, variant, n);
            if !path.exists() {
                return Err(missing().into());
            }
            files[n] = Some(MappedFile::open(
                &path,
                layer_id(variant, n),
                Some(eg.index.layer_size(n)),
            )?);
        }
        let path = db::region_path(db_dir, variant);
        if !path.exists() {
            return Err(missing().into());
        }
        let start_region = StartRegion::Mapped(MappedFile::open(&path, region_id(variant), None)?);
        // The region is the start's: a file without the start is not it.
        if start_region.value(&KpePosition::start(variant))?.is_none() {
            return Err(DbError::Corrupt {
                path,
                what: "the opening file does not hold the start position".into(),
            }
            .into());
        }
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

    /// The raw value bytes of one endgame layer, checked.
    pub fn layer_bytes(&self, n: usize) -> Result<&[u8], DbError> {
        match &self.layers {
            Layers::Memory(v) => Ok(as_bytes(&v[n])),
            Layers::Mapped(files) => {
                let file = files[n].as_ref().expect("layer opened");
                file.bytes(0, file.entries() as usize)
            }
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
        // Solving reads the whole database: check it first, so that a
        // corrupt block is an error rather than a wrong value.
        self.layers.verify_all()?;
        Ok(Some(LockedRegion::solve(
            pos,
            &self.eg,
            &self.layers,
            progress,
        )))
    }

    /// The start's locked region in memory and, for it and every unlocked
    /// position, whether perfect play can end (see [`Endings`]).
    pub fn endings(&self, progress: Progress) -> Result<(LockedRegion, Endings), SolveError> {
        self.layers.verify_all()?;
        let region = self.start_region.load(self.variant())?;
        let endings = Endings::compute(&self.eg, &self.layers, &region, progress);
        Ok((region, endings))
    }

    /// The exact value of a position for its mover; `extra` holds the
    /// region solved for a position outside the start's region.
    pub fn value(
        &self,
        pos: &KpePosition,
        extra: Option<&LockedRegion>,
    ) -> Result<i32, SolveError> {
        if pos.is_unlocked(crate::Side::South) && pos.is_unlocked(crate::Side::North) {
            let rel = pos.relative();
            let n = rel.board_total() as usize;
            return Ok(self.layers.try_value(n, self.eg.index.rank(rel.pits()))? as i32);
        }
        self.start_region
            .value(pos)?
            .or_else(|| extra.and_then(|r| r.value(pos)))
            .map(|v| v as i32)
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
        let mut out = Vec::new();
        for mv in pos.legal_moves() {
            let (child, gained) = pos.sow(mv.pit());
            out.push((mv, gained as i32 - self.value(&child, extra)?));
        }
        out.sort_by_key(|&(mv, v)| (-v, mv));
        Ok(out)
    }

    /// Perfect play from `pos` until the game ends or a position repeats
    /// (the repeating line is endless play), at most `max_len` moves.
    pub fn principal_variation(
        &self,
        pos: &KpePosition,
        extra: Option<&LockedRegion>,
        max_len: usize,
    ) -> Result<Vec<KpeMove>, SolveError> {
        let mut line = Vec::new();
        let mut seen = hashbrown::HashSet::new();
        let mut at = *pos;
        while line.len() < max_len && seen.insert(at.repetition_key()) {
            let Some(&(best, _)) = self.move_values(&at, extra)?.first() else {
                break;
            };
            line.push(best);
            at = at.play_unchecked(&best);
        }
        Ok(line)
    }
}

/// A verified existing file, or None when it is absent.
fn reuse(path: &Path, id: FileId, entries: Option<u64>) -> Result<Option<MappedFile>, DbError> {
    if !path.exists() {
        return Ok(None);
    }
    let file = MappedFile::open(path, id, entries)?;
    file.verify_all()?;
    Ok(Some(file))
}

fn as_bytes(values: &[i8]) -> &[u8] {
    // SAFETY: i8 and u8 have the same size, alignment and validity.
    unsafe { std::slice::from_raw_parts(values.as_ptr() as *const u8, values.len()) }
}

fn write_region(path: &Path, variant: KpeVariant, region: &LockedRegion) -> Result<(), DbError> {
    db::write_file_parts(
        path,
        region_id(variant),
        region.len() as u64,
        &region.payload_parts(),
    )
}

/// The locked region of the start: solved in memory, or a mapped file
/// searched in place (keys sorted by stones, then mixed key).
pub enum StartRegion {
    Memory(LockedRegion),
    Mapped(MappedFile),
}

impl StartRegion {
    pub fn len(&self) -> usize {
        match self {
            StartRegion::Memory(r) => r.len(),
            StartRegion::Mapped(f) => f.entries() as usize,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of a locked position, if it is in the region.
    pub fn value(&self, pos: &KpePosition) -> Result<Option<i8>, DbError> {
        let file = match self {
            StartRegion::Memory(r) => return Ok(r.value(pos)),
            StartRegion::Mapped(f) => f,
        };
        let v = pos.variant();
        let key = region_key(pos);
        let target = (stones_of(v, key), mix(key));
        let n = file.entries() as usize;
        let (mut lo, mut hi) = (0usize, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let m = u64::from_le_bytes(file.bytes(8 * mid, 8)?.try_into().expect("8 bytes"));
            match (stones_of(v, unmix(m)), m).cmp(&target) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Ok(Some(file.byte(8 * n + mid)? as i8)),
            }
        }
        Ok(None)
    }

    /// The whole region in memory (statistics, reports).
    pub fn load(&self, variant: KpeVariant) -> Result<LockedRegion, DbError> {
        match self {
            StartRegion::Memory(r) => Ok(r.clone()),
            StartRegion::Mapped(file) => {
                let n = file.entries() as usize;
                let keys: Vec<u64> = file
                    .bytes(0, 8 * n)?
                    .chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
                    .collect();
                let values: Vec<i8> = file.bytes(8 * n, n)?.iter().map(|&b| b as i8).collect();
                check_region(file, variant, &keys, &values)?;
                let region = LockedRegion::from_sorted(variant, &keys, &values);
                check_closed(file, variant, &region, &keys)?;
                Ok(region)
            }
        }
    }
}

/// Checks a region file's content before it is trusted whole: keys sorted
/// (by stones, then mixed key) and each a locked position of the variant,
/// values within the game's stones. Checksums catch accidental damage;
/// this catches a file that is consistent but not a region of `variant`.
fn check_region(
    file: &MappedFile,
    variant: KpeVariant,
    keys: &[u64],
    values: &[i8],
) -> Result<(), DbError> {
    let corrupt = |what: String| DbError::Corrupt {
        path: file.path().to_path_buf(),
        what,
    };
    let total = variant.total() as usize;
    let mut last = None;
    for (i, &m) in keys.iter().enumerate() {
        let key = unmix(m);
        let stones = stones_of(variant, key);
        let pos = super::opening::unpack(variant, key);
        let locked = !(pos.is_unlocked(crate::Side::South) && pos.is_unlocked(crate::Side::North));
        if stones > total || !locked || super::opening::region_key(&pos) != key {
            return Err(corrupt(format!(
                "entry {i} is not a locked position of kpe:{variant}"
            )));
        }
        if last.is_some_and(|l| l >= (stones, m)) {
            return Err(corrupt(format!("entry {i} is out of order")));
        }
        last = Some((stones, m));
    }
    if let Some(i) = values
        .iter()
        .position(|&v| v.unsigned_abs() as usize > total)
    {
        return Err(corrupt(format!(
            "value {} of entry {i} is beyond the {total} stones",
            values[i]
        )));
    }
    Ok(())
}

/// Checks that a loaded region holds every locked child of its positions,
/// as the passes over the whole region (never-ends, statistics) expect.
fn check_closed(
    file: &MappedFile,
    variant: KpeVariant,
    region: &LockedRegion,
    keys: &[u64],
) -> Result<(), DbError> {
    use rayon::prelude::*;
    let missing = keys.par_iter().enumerate().find_any(|&(_, &m)| {
        let pos = super::opening::unpack(variant, unmix(m));
        let mut lacking = false;
        let _ = pos.for_each_child(|_, child| {
            let locked =
                !(child.is_unlocked(crate::Side::South) && child.is_unlocked(crate::Side::North));
            lacking = locked && region.value(&child).is_none();
            if lacking {
                std::ops::ControlFlow::Break(())
            } else {
                std::ops::ControlFlow::Continue(())
            }
        });
        lacking
    });
    match missing {
        Some((i, _)) => Err(DbError::Corrupt {
            path: file.path().to_path_buf(),
            what: format!("a position after entry {i} is missing from the region"),
        }),
        None => Ok(()),
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
