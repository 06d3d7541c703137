//! A solved Kpé variant: the endgame database and the locked region of the
//! start, in memory or mapped from files, answering exact values.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::OnceLock;

use super::check::{self, open_checked, Content};
use super::endgame::{Endgame, LayerValues};
use super::entry::{entry_can_end, entry_value};
use super::error::{DbError, SolveError};
use super::file::{self, FileId, MappedFile};
use super::paths;
use super::region::LockedRegion;
use super::region_keys::RegionKeys;
use super::size::{check_solvable, endgame_positions};
use crate::games::kpe::{KpeMove, KpePosition, KpeVariant};
use crate::infra::progress::Progress;
use crate::Game;

/// Variants this small are solved on the fly when no database exists.
pub const ON_THE_FLY_POSITIONS: u64 = 10_000_000;

/// Solved layers (entry bytes), owned or mapped from checked files.
pub enum Layers {
    Memory(Vec<Vec<u8>>),
    Mapped(Vec<Option<LazyLayer>>),
}

/// A layer file mapped when it is first read: a query touches a few
/// layers, and mapping one reads and checks its block table (0.8 MB for
/// the largest standard layer), which dominated a cold `eval`. Its header
/// is checked when the database is opened (`file::check_header`).
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
        let file = open_checked(&self.path, self.id, Some(self.entries))?;
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
pub(crate) fn lazy_layers(
    eg: &Endgame,
    db_dir: &Path,
) -> Result<Vec<Option<LazyLayer>>, SolveError> {
    use rayon::prelude::*;
    let variant = eg.variant;
    let layers: Vec<usize> = eg.layers().collect();
    let checked = (layers.par_iter())
        .map(|&n| {
            let path = paths::layer_path(db_dir, variant, n);
            if !path.exists() {
                return Err(files_missing(eg, db_dir));
            }
            let entries = eg.index.layer_size(n);
            file::check_header(&path, FileId::layer(variant, n), Some(entries))?;
            Ok((n, LazyLayer::new(path, FileId::layer(variant, n), entries)))
        })
        .collect::<Result<Vec<_>, SolveError>>()?;
    let mut files: Vec<Option<LazyLayer>> = (0..=variant.total()).map(|_| None).collect();
    for (n, layer) in checked {
        files[n] = Some(layer);
    }
    Ok(files)
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
        let index = keys.key_file();
        check::keys::groups(index, variant)?;
        check::keys::holds_start(index, keys.find_position(&KpePosition::start(variant))?)?;
        values.set_check(Content::region(index, variant));
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
