//! A solved Kpé variant opened for queries: the exact value of a
//! position, of each of its moves, and whether its perfect play can end,
//! from the layers (`layers.rs`) and the start's region (`region.rs`), or
//! from a region solved on the spot for a locked position outside it. A
//! build (`build/`) hands back the same [`Solution`].

use std::borrow::Cow;
use std::path::Path;

use super::layers::{files_missing, lazy_layers, Layers};
use super::region::StartRegion;
use crate::games::kpe::{KpeMove, KpePosition, KpeVariant};
use crate::infra::progress::Progress;
use crate::kpe_db::check::open_checked;
use crate::kpe_db::endgame::Endgame;
use crate::kpe_db::entry::{entry_can_end, entry_value};
use crate::kpe_db::error::{DbError, SolveError};
use crate::kpe_db::file::FileId;
use crate::kpe_db::paths;
use crate::kpe_db::region::LockedRegion;
use crate::kpe_db::size::{check_solvable, endgame_positions};
use crate::Game;

/// Variants this small are solved on the fly when no database exists.
pub const ON_THE_FLY_POSITIONS: u64 = 10_000_000;

/// The exact solution of one Kpé variant.
pub struct Solution {
    pub eg: Endgame,
    layers: Layers,
    /// Locked positions reachable from the start.
    start_region: StartRegion,
}

impl Solution {
    /// The solution of a variant whose layers and start region a build
    /// made or reused (`build/`).
    pub(crate) fn from_parts(eg: Endgame, layers: Layers, start_region: StartRegion) -> Self {
        Solution {
            eg,
            layers,
            start_region,
        }
    }

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

    /// Opens a database for queries. Blocks are checked as they are read.
    pub fn open(variant: KpeVariant, db_dir: &Path) -> Result<Self, SolveError> {
        let eg = Endgame::new(variant);
        let path = paths::region_path(db_dir, variant);
        let keys_path = paths::region_keys_path(db_dir, variant);
        if !path.exists() || !keys_path.exists() {
            return Err(files_missing(&eg, db_dir));
        }
        // The files' headers and tables are read at once: from a cold
        // page cache each read waits for the disk.
        let open_region = || -> Result<StartRegion, SolveError> {
            let (keys, values) = rayon::join(
                || open_checked(&keys_path, FileId::region_keys(variant), None),
                || open_checked(&path, FileId::region(variant), None),
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
    /// flag, see [`super::entry::entry`]), checked.
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
    pub(super) fn value_and_can_end(
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
    pub(super) fn entry(
        &self,
        pos: &KpePosition,
        extra: Option<&LockedRegion>,
    ) -> Result<u8, SolveError> {
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
}

/// A move with its child and the child's entry byte
/// ([`Solution::moves_with_entries`], [`Solution::next_keeping`]).
pub(super) struct MoveEntry {
    pub mv: KpeMove,
    pub child: KpePosition,
    pub gained: u32,
    pub entry: u8,
}

impl MoveEntry {
    /// The move's exact value for its mover.
    pub fn value(&self) -> i32 {
        self.gained as i32 - entry_value(self.entry) as i32
    }

    /// Whether perfect play from the child can end ([`Solution::can_end`]).
    pub fn child_can_end(&self) -> bool {
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
