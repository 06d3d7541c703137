//! The locked phase of Kpé (RULES §1.2): positions in which at least one
//! player still has an unset mark. They are enumerated forward from a root
//! (the start, or any locked position a user asks about) and solved by the
//! same threshold retrograde method as the endgame, one *group* at a time:
//! the positions of one stone count (captures only lower it) and one class
//! of marks (`mark_classes.rs`: setting a mark only raises it), with moves
//! out of the group as exits and un-moves, checked for membership, as
//! predecessors. The groups are kept by local rank; the key file lays each
//! stone count's groups out as one (`region_keys.rs`).

use std::cmp::Reverse;
use std::collections::binary_heap::{BinaryHeap, PeekMut};

use rayon::prelude::*;

use super::endgame::{Endgame, LayerValues};
use super::endless;
use super::entry::{entry, entry_can_end, entry_value};
use super::error::DbError;
use super::keys::compact::{CompactKeys, CompactKeysBuilder};
use super::keys::ranker::{key_of, rank, KeyCursor, KeyParts, Ranker};
use super::scratch::{Scratch, ScratchVec};
use super::seeds::Seeds;
use super::unmove::for_each_unmove_word;
use crate::games::kpe::{KpePosition, KpeVariant};
use crate::infra::prefetch::prefetch;
use crate::infra::progress::Progress;
use crate::retrograde::bits::Bits;
use crate::retrograde::paged_bits::PagedBits;
use crate::retrograde::rank_bitmap::RankBitmap;
use crate::retrograde::thresholds::{pack_state, LayerState, NO_EXIT};
use crate::{Game, Side};

pub use super::keys::ranker::{stones_of, RegionKey};

/// Values of every locked position reachable from a root.
#[derive(Debug)]
pub struct LockedRegion {
    variant: KpeVariant,
    ranker: Ranker,
    /// Local ranks of the groups (module documentation), compact
    /// (`compact_keys.rs`), by ascending stone count and then descending
    /// class: the order they are solved in. The values of a group are in
    /// the order of its keys.
    groups: Vec<CompactKeys>,
    /// The class of each group.
    classes: Vec<usize>,
    /// The values of each group, once solved (empty before).
    values: Vec<ScratchVec<i8>>,
    /// Whether perfect play can end, per group (filled as groups are solved).
    ends: Vec<Bits>,
    /// Group of each stone count and class ([`slot`]).
    by_slot: Vec<Option<usize>>,
    /// Where the groups' keys and values live (`scratch.rs`).
    scratch: Scratch,
}

/// A key found by a move inside its group, with its board: expanding it
/// then needs no unranking (kpe:4x4's exploration took 5.6 s with every
/// key of the frontier unranked, 4.2-4.9 s with the boards carried).
#[derive(Clone, Copy)]
struct Found {
    key: RegionKey,
    board: [u8; 16],
}

/// Calls `visit(u, p, j)` for every key of the groups `parts` (class,
/// local ranks) of one stone count in ascending order of their ranked keys
/// `u`: key `j` of part `p`. Each group's local ranks are in `u` order
/// (`mark_classes.rs`), so this merges them.
fn merge_in_key_order(
    ranker: &Ranker,
    parts: &[(usize, &CompactKeys)],
    mut visit: impl FnMut(u64, usize, usize),
) {
    let classes = ranker.classes();
    let mut streams: Vec<_> = parts
        .iter()
        .map(|&(class, keys)| {
            keys.iter_ranked()
                .map(move |local| classes.global(class, local))
        })
        .collect();
    // The next key of each part not yet exhausted, smallest first: a
    // stone count of a wide board has hundreds of groups. (No key is in
    // two parts: the keys alone order them.)
    let mut heads: BinaryHeap<Reverse<(u64, usize)>> = streams
        .iter_mut()
        .enumerate()
        .filter_map(|(p, s)| s.next().map(|u| Reverse((u, p))))
        .collect();
    // How many keys of each part were visited.
    let mut visited = vec![0; parts.len()];
    // The smallest head is replaced by its part's next key in place, one
    // sift down, rather than popped and the next pushed: two sifts. The
    // standard solve's merges spent 2.1 s of CPU in `pop` alone.
    while let Some(mut head) = heads.peek_mut() {
        let Reverse((u, p)) = *head;
        visit(u, p, visited[p]);
        visited[p] += 1;
        match streams[p].next() {
            Some(next) => *head = Reverse((next, p)),
            None => drop(PeekMut::pop(head)),
        }
    }
}

fn is_locked(pos: &KpePosition) -> bool {
    !(pos.is_unlocked(Side::South) && pos.is_unlocked(Side::North))
}

/// The class of a position's marks (`mark_classes.rs`).
fn class_of(ranker: &Ranker, pos: &KpePosition) -> usize {
    ranker
        .classes()
        .of_marks(pos.marks(Side::South), pos.marks(Side::North))
}

/// The index of (stones, class) among the groups a variant can have.
fn slot(ranker: &Ranker, stones: usize, class: usize) -> usize {
    stones * ranker.classes().count() + class
}

/// Closes group (`n` stones, `class`) of an exploration: expands every
/// key that moves from other groups found for it (`seeds`) breadth first,
/// adding the keys its moves find in the group to its set (a bitmap over
/// the group's local ranks, `paged_bits.rs`) and handing those found in
/// other groups to `seeds`, and returns the group's keys, compact by local
/// rank.
fn close_group(
    ranker: &Ranker,
    (n, class): (usize, usize),
    seeds: &Seeds,
    scratch: &Scratch,
    bar: &indicatif::ProgressBar,
) -> Result<CompactKeys, DbError> {
    let classes = ranker.classes();
    let universe = ranker.class_universe(n, class);
    let set = PagedBits::new(universe);
    // The keys that moves from other groups found, unranked once.
    let seeded: Vec<Found> = seeds
        .of_class(n, class as u32)
        .par_iter()
        .filter(|&&local| set.insert(local))
        .map(|&local| {
            let key = key_of(n, classes.global(class, local));
            Found {
                key,
                board: ranker.parts(key).board,
            }
        })
        .collect();
    // A level is kept as the lists its tasks found, not copied into one:
    // gathered, the copies and the vector's growth were 9% of the
    // exploration's samples.
    let mut frontier: Vec<Vec<Found>> = vec![seeded];
    loop {
        let tasks: Vec<&[Found]> = frontier
            .iter()
            .flat_map(|part| part.chunks(EXPAND_TASK))
            .collect();
        if tasks.is_empty() {
            break;
        }
        let mut next = Vec::new();
        // A slice of the level at a time ([`LEVEL_SLICE`]).
        for slice in tasks.chunks(LEVEL_SLICE / EXPAND_TASK) {
            next.extend(
                expand_slice(ranker, (n, class), seeds, &set, slice)?
                    .into_iter()
                    .filter(|found| !found.is_empty()),
            );
        }
        bar.inc(next.iter().map(Vec::len).sum::<usize>() as u64);
        frontier = next;
    }
    let mut keys = CompactKeysBuilder::new(scratch, universe, n, set.len())?;
    for local in set.iter() {
        keys.push(local);
    }
    Ok(keys.finish())
}

/// At most this many keys of a level are expanded at once (tasks of up to
/// [`EXPAND_TASK`], fewer where a part of the level is shorter): the new
/// keys their moves find in the group wait, 24 bytes each with their
/// boards, until the slice is done.
const LEVEL_SLICE: usize = 1 << 18;

/// Keys of a level one task of [`expand_slice`] expands.
const EXPAND_TASK: usize = 4096;

/// Keys of a level whose moves are found before the keys those moves find
/// in the group are inserted ([`expand_slice`]).
const INSERT_BATCH: usize = 32;

/// Expands `slice` (tasks of keys of group (`n`, `class`) found by the
/// exploration's last level): the keys its moves find in the group that
/// `set` did not hold yet are added to it and returned, one list a task;
/// those found in other groups are handed to `seeds`.
fn expand_slice(
    ranker: &Ranker,
    (n, class): (usize, usize),
    seeds: &Seeds,
    set: &PagedBits,
    slice: &[&[Found]],
) -> Result<Vec<Vec<Found>>, DbError> {
    let v = ranker.variant();
    let classes = ranker.classes();
    slice
        .par_iter()
        .map(|chunk| {
            let mut same = Vec::new();
            // (stones, class, local rank) of the keys found elsewhere.
            let mut elsewhere: Vec<(usize, u32, u64)> = Vec::new();
            // The keys found in the group by a batch of keys, their words
            // of the set asked for before any is inserted: the inserts'
            // cache misses overlap (they were a fifth of the exploration's
            // samples, one after the other).
            let mut inside: Vec<(u64, Found)> = Vec::new();
            for batch in chunk.chunks(INSERT_BATCH) {
                for &Found { key, board } in batch {
                    let pos = ranker.parts_with_board(key, board).position(v);
                    let _ = pos.for_each_move(|mv| {
                        // A move into the unlocked database leaves the
                        // region: it is not sown.
                        if pos.move_unlocks_both(mv.pit()) {
                            return std::ops::ControlFlow::Continue(());
                        }
                        let (child, gained) = pos.sow(mv.pit());
                        debug_assert!(is_locked(&child));
                        // Relative once: its board goes with the key.
                        let rel = child.relative();
                        let key = ranker.region_key_of(&rel, n - gained as usize);
                        let child_class = class_of(ranker, &rel);
                        let local = classes.local(rank(key));
                        if gained == 0 && child_class == class {
                            set.prefetch(local);
                            // Copied whole: a copy of the pits' bytes
                            // into a zeroed array, read back as one
                            // word, waited for its stores (a fifth of
                            // the expansion's samples).
                            let board = rel.pits_word().to_le_bytes();
                            inside.push((local, Found { key, board }));
                        } else {
                            elsewhere.push((n - gained as usize, child_class as u32, local));
                        }
                        std::ops::ControlFlow::Continue(())
                    });
                }
                same.extend(
                    inside
                        .drain(..)
                        .filter(|&(local, _)| set.insert(local))
                        .map(|(_, found)| found),
                );
            }
            elsewhere.sort_unstable();
            elsewhere.dedup();
            for run in elsewhere.chunk_by(|a, b| a.0 == b.0) {
                let mut found = run.iter().map(|&(_, c, local)| (c, local)).collect();
                seeds.add(run[0].0, &mut found)?;
            }
            // Kept as a part of the next level: its slack would stay too.
            same.shrink_to_fit();
            Ok(same)
        })
        .collect()
}

impl LockedRegion {
    /// Enumerates and solves the locked positions reachable from `root`,
    /// in memory. `layers` must hold the whole unlocked database of the
    /// variant.
    pub fn solve(
        root: &KpePosition,
        eg: &Endgame,
        layers: &impl LayerValues,
        progress: Progress,
    ) -> Self {
        let in_memory = || -> Result<Self, DbError> {
            let mut region = Self::explore(root, Scratch::Memory, progress)?;
            let exits = region.unlocked_exits(eg, layers, 0, progress)?;
            region.solve_groups_with(exits, progress, 0, |_, _, _| Ok(()))?;
            Ok(region)
        };
        in_memory().expect("a region in memory does no I/O")
    }

    /// The region of `groups` (class and local ranks), in solving order,
    /// none solved: what [`Self::explore`] returns, or a checkpoint of it
    /// (`region_checkpoint.rs`).
    pub(super) fn from_explored(
        variant: KpeVariant,
        groups: Vec<(usize, CompactKeys)>,
        scratch: Scratch,
    ) -> Self {
        let ranker = Ranker::new(variant);
        let mut by_slot = vec![None; slot(&ranker, variant.total() as usize + 1, 0)];
        for (i, (class, keys)) in groups.iter().enumerate() {
            by_slot[slot(&ranker, keys.stones, *class)] = Some(i);
        }
        let (classes, groups): (Vec<usize>, Vec<CompactKeys>) = groups.into_iter().unzip();
        LockedRegion {
            variant,
            ranker,
            values: groups.iter().map(|_| ScratchVec::default()).collect(),
            groups,
            classes,
            ends: Vec::new(),
            by_slot,
            scratch,
        }
    }

    pub fn len(&self) -> usize {
        self.groups.iter().map(|g| g.len).sum()
    }

    pub fn variant(&self) -> KpeVariant {
        self.variant
    }

    /// Each group's class and keys, in solving order.
    pub(super) fn explored_groups(&self) -> impl Iterator<Item = (usize, &CompactKeys)> {
        self.classes.iter().copied().zip(&self.groups)
    }

    /// Positions in group `g`.
    pub(super) fn group_len(&self, g: usize) -> usize {
        self.groups[g].len
    }

    /// The values and "can end" bits of solved group `g`.
    pub(super) fn solved_group(&self, g: usize) -> (&ScratchVec<i8>, &Bits) {
        (&self.values[g], &self.ends[g])
    }

    /// Gives group `g`, the first one not solved, its values and "can
    /// end" bits from a checkpoint (`region_checkpoint.rs`).
    pub(super) fn restore_solved(&mut self, g: usize, values: ScratchVec<i8>, ends: Bits) {
        assert_eq!(g, self.ends.len(), "groups are restored in solving order");
        self.replace_values(g, values);
        self.ends.push(ends);
    }

    /// Puts the same values of group `g` in other storage (a checkpoint's
    /// file, `region_checkpoint.rs`).
    pub(super) fn replace_values(&mut self, g: usize, values: ScratchVec<i8>) {
        assert_eq!(values.len(), self.groups[g].len, "one value a position");
        self.values[g] = values;
    }

    /// Where the region's arrays live (`scratch.rs`).
    pub fn scratch(&self) -> &Scratch {
        &self.scratch
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The keys of indices `range` of group `g`, in index order.
    fn group_keys_in(&self, g: usize, range: std::ops::Range<usize>) -> Vec<RegionKey> {
        let (stones, class) = (self.groups[g].stones, self.classes[g]);
        let classes = self.ranker.classes();
        self.groups[g].map_ranked_in(range, |local| key_of(stones, classes.global(class, local)))
    }

    /// Every key of group `g`, in index order.
    fn group_keys(&self, g: usize) -> Vec<RegionKey> {
        self.group_keys_in(g, 0..self.groups[g].len)
    }

    /// Calls `f` with the local rank (`mark_classes.rs`) of the parent of
    /// every non-capturing move that leads to the position `child` without
    /// setting a mark, if such a parent is a locked position (it may be
    /// outside the region): the moves inside the child's group. Ranked from
    /// the board, without a key.
    fn for_each_candidate_parent(&self, stones: usize, child: KeyParts, mut f: impl FnMut(u64)) {
        let v = self.variant;
        let KeyParts {
            board,
            mover: x_marks,
            opponent: y_marks,
        } = child;
        // An un-move keeps the stone count.
        for_each_unmove_word(
            v,
            u128::from_le_bytes(board),
            stones,
            y_marks == v.all_marks(),
            |before, q| {
                if y_marks & 1 << q == 0 {
                    return; // Y's move from q would have set this mark
                }
                // Y moved from the parent (Y is its mover) and had the mark
                // of q already: a parent without it is of a lower class.
                let u = self.ranker.with_marks(
                    self.ranker.rank_board(before, stones),
                    y_marks,
                    x_marks,
                );
                f(self.ranker.classes().local(u));
            },
        );
    }

    /// `(parent, child)` for every move inside a group (non-capturing,
    /// setting no mark) into each child of `chunk` (indices in the group,
    /// whose keys are `keys` and whose members `index` finds): the
    /// candidate parents ranked and their entries prefetched, then looked
    /// up, so that the cache misses of the lookups overlap.
    pub(super) fn predecessors_of(
        &self,
        index: &RankBitmap,
        keys: &[RegionKey],
        chunk: &[u32],
        out: &mut Vec<(u32, u32)>,
    ) {
        // The children are scattered over the group: their keys' lines
        // are asked for before the first is read.
        for &child in chunk {
            prefetch(&keys[child as usize]);
        }
        let mut candidates = Vec::with_capacity(4 * chunk.len());
        // The children come in increasing order.
        let mut cursor = self.ranker.cursor();
        for &child in chunk {
            let key = keys[child as usize];
            self.for_each_candidate_parent(stones_of(key), cursor.parts(key), |u| {
                index.prefetch(u);
                candidates.push((u, child));
            });
        }
        for &(u, child) in &candidates {
            if let Some(j) = index.index(u) {
                out.push((j as u32, child));
            }
        }
    }

    /// Consumes the solved region, stone count by stone count (ascending):
    /// calls `f` with each count's keys in the key file's layout (the
    /// ranked keys `u` of the whole count, `region_keys.rs`, in the
    /// region's scratch) and writes the entry bytes of all positions, in the same order, to
    /// `entries` (as long as the region). Both threads take stone counts,
    /// each count its own slice of `entries`, and a count's groups are
    /// freed once merged: done one count after the other, the merge was
    /// five seconds of one thread at the end of the standard solve.
    pub(super) fn for_each_stone_count(
        self,
        entries: &mut [u8],
        mut f: impl FnMut(CompactKeys),
    ) -> Result<(), DbError> {
        let (ranker, scratch) = (&self.ranker, &self.scratch);
        type Solved = ((CompactKeys, usize), (ScratchVec<i8>, Bits));
        let mut counts: Vec<Vec<Solved>> = Vec::new();
        let groups =
            (self.groups.into_iter().zip(self.classes)).zip(self.values.into_iter().zip(self.ends));
        for group in groups {
            match counts.last_mut() {
                Some(same) if same[0].0 .0.stones == group.0 .0.stones => same.push(group),
                _ => counts.push(vec![group]),
            }
        }
        let mut slices = Vec::with_capacity(counts.len());
        let mut rest = entries;
        for same in &counts {
            let (slice, after) = rest.split_at_mut(same.iter().map(|g| g.0 .0.len).sum());
            slices.push(slice);
            rest = after;
        }
        // The largest counts are taken first, so that the last one taken
        // is small: the standard game's largest count holds 42% of its
        // keys, and in count order it was merged alone, by one thread, at
        // the very end of the solve.
        let mut work: Vec<_> = counts.into_iter().zip(slices).enumerate().collect();
        work.sort_by_key(|(_, (_, out))| std::cmp::Reverse(out.len()));
        let mut merged: Vec<(usize, CompactKeys)> = work
            .into_par_iter()
            .with_max_len(1)
            .map(|(i, (same, out))| {
                let stones = same[0].0 .0.stones;
                let parts: Vec<(usize, &CompactKeys)> =
                    same.iter().map(|((k, c), _)| (*c, k)).collect();
                let mut keys =
                    CompactKeysBuilder::new(scratch, ranker.universe(stones), stones, out.len())?;
                let mut out = out.iter_mut();
                merge_in_key_order(ranker, &parts, |u, p, j| {
                    let (values, ends) = &same[p].1;
                    keys.push(u);
                    *out.next().expect("entries as many as positions") =
                        entry(values[j], ends.get(j as u64));
                });
                Ok((i, keys.finish()))
            })
            .collect::<Result<_, DbError>>()?;
        merged.sort_unstable_by_key(|(i, _)| *i);
        merged.into_iter().for_each(|(_, keys)| f(keys));
        Ok(())
    }

    /// The stone counts of the region, ascending, each with its groups.
    fn stone_counts(&self) -> Vec<(usize, Vec<usize>)> {
        let mut counts: Vec<(usize, Vec<usize>)> = Vec::new();
        for (g, keys) in self.groups.iter().enumerate() {
            match counts.last_mut() {
                Some((n, groups)) if *n == keys.stones => groups.push(g),
                _ => counts.push((keys.stones, vec![g])),
            }
        }
        counts
    }

    /// Number of stone counts of the region (of the key file's groups).
    pub(super) fn stone_count_number(&self) -> usize {
        self.stone_counts().len()
    }

    /// Calls `f(n, u, g, j)` for every position of the region, by
    /// ascending stone count `n` and then ranked key `u` (the key file's
    /// order): `j` is its index in group `g`.
    fn for_each_in_key_order(&self, mut f: impl FnMut(usize, u64, usize, usize)) {
        for (n, groups) in self.stone_counts() {
            let parts: Vec<(usize, &CompactKeys)> = groups
                .iter()
                .map(|&g| (self.classes[g], &self.groups[g]))
                .collect();
            merge_in_key_order(&self.ranker, &parts, |u, p, j| f(n, u, groups[p], j));
        }
    }

    /// The entry bytes of every position, by stone count, in the key file's order.
    pub(super) fn stone_count_entries(&self) -> Vec<(usize, Vec<u8>)> {
        let mut counts: Vec<(usize, Vec<u8>)> = Vec::new();
        self.for_each_in_key_order(|n, _, g, j| {
            let e = self.entry_at(g, j);
            match counts.last_mut() {
                Some((m, entries)) if *m == n => entries.push(e),
                _ => counts.push((n, vec![e])),
            }
        });
        counts
    }

    /// Calls `f` with every position (mover as South) and its entry byte,
    /// in the key file's order.
    pub(super) fn for_each_entry(&self, mut f: impl FnMut(&KpePosition, u8)) {
        let mut cursor = self.ranker.cursor();
        self.for_each_in_key_order(|n, u, g, j| {
            let e = self.entry_at(g, j);
            f(&cursor.position(key_of(n, u)), e)
        });
    }

    /// (group, index) of a key.
    pub(super) fn locate(&self, key: RegionKey) -> Option<(usize, usize)> {
        let u = rank(key);
        let classes = self.ranker.classes();
        let class = classes.of(u);
        if class >= classes.count() {
            return None; // every mark set: not a locked position
        }
        let g = self
            .by_slot
            .get(slot(&self.ranker, stones_of(key), class))
            .copied()
            .flatten()?;
        self.groups[g]
            .find(classes.local(u))
            .map(|i| (g, i as usize))
    }

    /// The value of a locked position of the region.
    pub fn value(&self, pos: &KpePosition) -> Option<i8> {
        if pos.variant() != self.variant {
            return None;
        }
        self.locate(self.ranker.region_key(pos))
            .map(|(g, i)| self.values[g][i])
    }

    /// The entry byte (value, and whether perfect play can end) of a
    /// locked position of a solved region.
    pub fn entry(&self, pos: &KpePosition) -> Option<u8> {
        if pos.variant() != self.variant {
            return None;
        }
        let (g, i) = self.locate(self.ranker.region_key(pos))?;
        Some(self.entry_at(g, i))
    }

    /// The entry byte of position `i` of solved group `g`.
    fn entry_at(&self, g: usize, i: usize) -> u8 {
        entry(self.values[g][i], self.ends[g].get(i as u64))
    }

    /// Breadth-first closure of the root, one group at a time: stone
    /// counts from the most stones down, classes from the fewest marks up
    /// (a move leads to the same group, a higher class or fewer stones),
    /// both threads expanding each level. Each group's keys are compact as
    /// soon as it is closed: only the open group's set is whole in memory.
    pub(super) fn explore(
        root: &KpePosition,
        scratch: Scratch,
        progress: Progress,
    ) -> Result<Self, DbError> {
        Self::explore_from(root, scratch, progress, None, |_, _, _| Ok(()))
    }

    /// [`Self::explore`], from `start` (stone counts already closed, from
    /// a checkpoint, `region_checkpoint.rs`) if given, calling
    /// `after_count` with each stone count, its groups (class and keys)
    /// and the keys waiting for fewer stones, once its groups are closed.
    pub(super) fn explore_from(
        root: &KpePosition,
        scratch: Scratch,
        progress: Progress,
        start: Option<Explored>,
        mut after_count: impl FnMut(usize, &mut [(usize, CompactKeys)], &Seeds) -> Result<(), DbError>,
    ) -> Result<Self, DbError> {
        let v = root.variant();
        let ranker = Ranker::new(v);
        let classes = ranker.classes();
        let total = v.total() as usize;
        let bar = progress.bar(0, "locked");
        bar.set_message("exploring");
        let Explored {
            mut groups,
            seeds,
            below,
        } = match start {
            Some(start) => start,
            None => {
                let seeds = Seeds::new(total + 1, scratch.clone());
                let root = root.relative();
                if is_locked(&root) {
                    let class = class_of(&ranker, &root) as u32;
                    let local = classes.local(rank(ranker.region_key(&root)));
                    seeds.add(root.board_total() as usize, &mut vec![(class, local)])?;
                }
                Explored {
                    groups: Vec::new(),
                    seeds,
                    below: total + 1,
                }
            }
        };
        for n in (0..below).rev() {
            let first = groups.len();
            for marks in 0..2 * v.w() as u32 {
                // The groups of one stone count and one number of set
                // marks: no move joins two of them, so they are closed side
                // by side (a wide board's stone count has hundreds), each
                // reading its keys when it starts.
                seeds.flush(n)?;
                let level = classes.with_marks_set(marks);
                let open: Vec<usize> = (seeds.classes(n).into_iter())
                    .map(|class| class as usize)
                    .filter(|class| level.contains(class))
                    .collect();
                let closed: Vec<(usize, CompactKeys)> = open
                    .into_par_iter()
                    .map(|class| {
                        close_group(&ranker, (n, class), &seeds, &scratch, &bar)
                            .map(|keys| (class, keys))
                    })
                    .collect::<Result<_, _>>()?;
                groups.extend(closed);
            }
            seeds.free(n);
            after_count(n, &mut groups[first..], &seeds)?;
        }
        bar.finish_and_clear();
        groups.reverse();
        Ok(Self::from_explored(v, groups, scratch))
    }

    /// What the moves of every position into the unlocked database are
    /// worth: the one pass that reads the layers, so that the solver
    /// can let them go before it solves (they were the largest thing in
    /// memory beside the region).
    /// Groups before `first` are solved already (restored from a
    /// checkpoint): they get none.
    pub(super) fn unlocked_exits(
        &self,
        eg: &Endgame,
        layers: &impl LayerValues,
        first: usize,
        progress: Progress,
    ) -> Result<UnlockedExits, DbError> {
        let solved: usize = self.groups[..first].iter().map(|g| g.len).sum();
        let bar = progress.bar((self.len() - solved) as u64, "locked");
        bar.set_message("exits");
        let mut exits = UnlockedExits {
            best: Vec::new(),
            ends: Vec::new(),
        };
        // A slice of a group's keys at a time: the largest group's keys,
        // decoded at once, made this pass's peak.
        const SLICE: usize = 1 << 22;
        for _ in 0..first {
            exits.best.push(ScratchVec::default());
            exits.ends.push(Bits::new(0));
        }
        for (g, group) in self.groups.iter().enumerate().skip(first) {
            let ends = Bits::new(group.len as u64);
            let mut best = self.scratch.zeroed(group.len)?;
            for start in (0..group.len).step_by(SLICE) {
                let end = group.len.min(start + SLICE);
                let keys = self.group_keys_in(g, start..end);
                keys.par_chunks(EXITS_BATCH)
                    .zip(best[start..end].par_chunks_mut(EXITS_BATCH))
                    .enumerate()
                    .for_each_init(
                        || (self.ranker.cursor(), Vec::new()),
                        |(cursor, probes), (c, (keys, slots))| {
                            let first = start + c * EXITS_BATCH;
                            self.unlocked_exits_of(eg, layers, cursor, keys, slots, probes)
                                .into_iter()
                                .enumerate()
                                .filter(|&(_, can_end)| can_end)
                                .for_each(|(k, _)| {
                                    ends.insert((first + k) as u64);
                                });
                        },
                    );
                bar.inc(keys.len() as u64);
            }
            exits.best.push(best);
            exits.ends.push(ends);
        }
        bar.finish_and_clear();
        Ok(exits)
    }

    /// [`Self::unlocked_exits`] of the positions of `keys`: each one's
    /// best move into the unlocked database written to `slots`, and
    /// whether play after it can end returned. Two steps, as the layers'
    /// exits (`Endgame::classify_batch`): every such move is sown and its
    /// entry asked for, then the entries are read, so that the cache
    /// misses over the layers overlap.
    fn unlocked_exits_of(
        &self,
        eg: &Endgame,
        layers: &impl LayerValues,
        cursor: &mut KeyCursor,
        keys: &[RegionKey],
        slots: &mut [i8],
        probes: &mut Vec<(u8, u8, usize, u64)>,
    ) -> [bool; EXITS_BATCH] {
        probes.clear();
        for (k, &key) in keys.iter().enumerate() {
            let pos = cursor.position(key);
            let _ = pos.for_each_move(|mv| {
                // Only the moves that leave the lock are sown.
                if pos.move_unlocks_both(mv.pit()) {
                    let (child, gained) = pos.sow(mv.pit());
                    debug_assert!(!is_locked(&child));
                    let (n, index) = eg.probe_at(&child);
                    layers.prefetch(n, index);
                    probes.push((k as u8, gained as u8, n, index));
                }
                std::ops::ControlFlow::Continue(())
            });
        }
        let mut ending = [NO_EXIT; EXITS_BATCH];
        slots.fill(NO_EXIT);
        for &(k, gained, n, index) in probes.iter() {
            let e = layers.entry(n, index);
            let value = gained as i8 - entry_value(e);
            let k = k as usize;
            slots[k] = slots[k].max(value);
            if entry_can_end(e) {
                ending[k] = ending[k].max(value);
            }
        }
        std::array::from_fn(|k| k < slots.len() && slots[k] != NO_EXIT && ending[k] == slots[k])
    }

    /// Solves the groups in order (ascending stone count, descending
    /// class), given what their moves into the unlocked database are worth
    /// ([`Self::unlocked_exits`]). A move that captures or sets a mark
    /// leaves the group for one already solved: an exit. The first
    /// `solved_runs` runs ([`Self::independent_runs`]) are solved already
    /// (restored from a checkpoint); `after_run` is called with each run
    /// (its number and groups) once it is solved.
    pub(super) fn solve_groups_with(
        &mut self,
        mut exits: UnlockedExits,
        progress: Progress,
        solved_runs: usize,
        mut after_run: impl FnMut(&mut Self, usize, std::ops::Range<usize>) -> Result<(), DbError>,
    ) -> Result<(), DbError> {
        let runs = self.independent_runs();
        let first = runs.get(solved_runs).map_or(self.groups.len(), |r| r.start);
        assert_eq!(first, self.ends.len(), "the runs before are restored");
        let bar = progress.bar(self.len() as u64, "locked");
        bar.set_message("solving");
        bar.inc(self.groups[..first].iter().map(|g| g.len as u64).sum());
        for (r, run) in runs.into_iter().enumerate().skip(solved_runs) {
            // No move joins two groups of a run: they are solved side by
            // side, which keeps both threads busy on wide boards, whose
            // stone counts have hundreds of small groups.
            let run_exits: Vec<(usize, ScratchVec<i8>, Bits)> = run
                .clone()
                .map(|g| {
                    let best = std::mem::take(&mut exits.best[g]);
                    (g, best, std::mem::replace(&mut exits.ends[g], Bits::new(0)))
                })
                .collect();
            let solved: Vec<(ScratchVec<i8>, Bits)> = run_exits
                .into_par_iter()
                .map(|(g, best, ends)| {
                    let solved = self.solve_group(g, best, ends);
                    bar.inc(self.groups[g].len as u64);
                    solved
                })
                .collect::<Result<_, _>>()?;
            for (g, (values, ends)) in run.clone().zip(solved) {
                self.values[g] = values;
                self.ends.push(ends);
            }
            after_run(self, r, run)?;
        }
        bar.finish_and_clear();
        Ok(())
    }

    /// Runs of consecutive groups that no move joins: one stone count, one
    /// number of set marks.
    pub(super) fn independent_runs(&self) -> Vec<std::ops::Range<usize>> {
        let classes = self.ranker.classes();
        let level = |g: usize| (self.groups[g].stones, classes.marks_set(self.classes[g]));
        let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
        for g in 0..self.groups.len() {
            match runs.last_mut() {
                Some(run) if level(run.start) == level(g) => run.end = g + 1,
                _ => runs.push(g..g + 1),
            }
        }
        runs
    }

    /// The values of group `g` and its "can end" bits, every group after it
    /// in a lower run being solved, from what its moves into the unlocked
    /// database are worth (`unlocked_best`, `unlocked_ends`).
    fn solve_group(
        &self,
        g: usize,
        unlocked_best: ScratchVec<i8>,
        unlocked_ends: Bits,
    ) -> Result<(ScratchVec<i8>, Bits), DbError> {
        let n = self.groups[g].stones;
        let class = self.classes[g];
        let keys = self.group_keys(g);
        let words = keys
            .par_iter()
            .zip(&unlocked_best[..])
            .enumerate()
            .map_init(
                || self.ranker.cursor(),
                |cursor, (i, (&key, &unlocked))| {
                    let pos = cursor.position(key);
                    if pos.is_over() {
                        let sweep = -(n as i8); // RULES §1.5
                        return pack_state(sweep, 0, sweep);
                    }
                    // The best move into the unlocked database stands for
                    // them all: a position is a "can end" seed only when
                    // its value is the best exit's, so a lesser exit that
                    // can end never decides one.
                    let mut exit = unlocked;
                    let mut ending = match unlocked_ends.get(i as u64) {
                        true => unlocked,
                        false => NO_EXIT,
                    };
                    let mut inside = 0u8;
                    let _ = pos.for_each_move(|mv| {
                        // A move that sets no mark keeps the marks, hence
                        // the class and the lock (`mark_classes.rs`): it
                        // stays in the group unless it captures, and is
                        // then only counted, not sown.
                        if !pos.move_sets_mark(mv.pit()) && !pos.move_captures(mv.pit()) {
                            inside += 1;
                            return std::ops::ControlFlow::Continue(());
                        }
                        // A move into the unlocked database counts in
                        // `unlocked` (`Self::unlocked_exits`).
                        if pos.move_unlocks_both(mv.pit()) {
                            return std::ops::ControlFlow::Continue(());
                        }
                        // Every other move leaves the group for one solved
                        // already: it sets a mark (a higher class) or
                        // captures (fewer stones).
                        let (child, gained) = pos.sow(mv.pit());
                        debug_assert!(gained > 0 || class_of(&self.ranker, &child) != class);
                        let (cg, ci) = self
                            .locate(self.ranker.region_key_of(&child, n - gained as usize))
                            .expect("closure holds every child");
                        let value = gained as i8 - self.values[cg][ci];
                        exit = exit.max(value);
                        if self.ends[cg].get(ci as u64) {
                            ending = ending.max(value);
                        }
                        std::ops::ControlFlow::Continue(())
                    });
                    pack_state(exit, inside, ending)
                },
            )
            .collect();
        drop((unlocked_best, unlocked_ends));
        let mut state = LayerState::from_words(words);
        // The members of the keys just decoded, in their order.
        let classes = self.ranker.classes();
        let index = RankBitmap::new(
            self.ranker.class_universe(n, class),
            keys.iter().map(|&key| classes.local(rank(key))),
        );
        state.solve(
            n as i8,
            |chunk, out| self.predecessors_of(&index, &keys, chunk, out),
            |_, _| {},
        );
        let (values, endings) = state.into_values();
        let ends = endless::locked_group(self, &index, &keys, &values, endings);
        Ok((self.scratch.copy_of(&values)?, ends))
    }
}

/// Positions whose moves into the unlocked database are sown before their
/// entries are read ([`LockedRegion::unlocked_exits_of`]).
const EXITS_BATCH: usize = 16;

/// An exploration part way: the groups of the stone counts from the most
/// down to `below` (excluded) closed, in the order closed, and the keys
/// found for fewer stones.
pub(super) struct Explored {
    pub groups: Vec<(usize, CompactKeys)>,
    pub seeds: Seeds,
    pub below: usize,
}

/// What the moves of a region's positions into the unlocked database are
/// worth, per group: the best value such a move gives ([`NO_EXIT`] if
/// none), and whether perfect play after that best move can end.
pub(super) struct UnlockedExits {
    best: Vec<ScratchVec<i8>>,
    ends: Vec<Bits>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_rank_and_unrank() {
        let ranker = Ranker::new(KpeVariant::STANDARD);
        let pos: KpePosition = "kpe 1,2,3,4,5,6,7,8 N x.x. xxxx 0 12".parse().unwrap();
        let back = ranker.position(ranker.region_key(&pos));
        assert_eq!(back, pos.relative().repetition_key());
        assert_eq!(stones_of(ranker.region_key(&pos)), 36);
    }

    /// Boards whose pit-by-pit packing took more than 64 bits.
    #[test]
    fn keys_of_wide_boards_fit_in_64_bits() {
        for (tag, text) in [
            ("5x4", "kpe:5x4 40,0,0,0,0,0,0,0,0,0 S x.... ..... 0 0"),
            (
                "8x1",
                "kpe:8x1 0,0,0,0,0,0,0,16,0,0,0,0,0,0,0,0 N x....... ........ 0 0",
            ),
        ] {
            let pos: KpePosition = text.parse().unwrap_or_else(|e| panic!("{tag}: {e}"));
            let ranker = Ranker::new(pos.variant());
            let key = ranker.region_key(&pos);
            assert_eq!(
                ranker.position(key),
                pos.relative().repetition_key(),
                "{tag}"
            );
            assert_eq!(stones_of(key), pos.variant().total() as usize, "{tag}");
        }
    }
}

/// How clustered the groups' keys are, which the exploration's bitmaps
/// (`paged_bits.rs`) rely on: `cargo test --release --lib
/// clustering_of_group_keys -- --ignored --nocapture` (the standard game,
/// 30 s; `SOW_VARIANT=WxK` for another).
#[cfg(test)]
mod clustering {
    use super::*;

    #[test]
    #[ignore]
    fn clustering_of_group_keys() {
        let tag = std::env::var("SOW_VARIANT").unwrap_or("4x6".into());
        let v = KpeVariant::parse_tag(&tag).expect("a WxK variant");
        let region = LockedRegion::explore(
            &KpePosition::start(v),
            Scratch::Memory,
            Progress::auto(true),
        )
        .expect("explored in memory");
        let (mut keys, mut universe, mut pages, mut largest) = (0u64, 0u64, 0u64, (0, 0));
        for (g, group) in region.groups.iter().enumerate() {
            let mut touched: Vec<u64> = group.iter_ranked().map(|u| u >> 15).collect();
            touched.dedup();
            keys += group.len as u64;
            universe += region
                .ranker
                .class_universe(group.stones, region.classes[g]);
            pages += touched.len() as u64;
            largest = largest.max((group.len, touched.len()));
        }
        eprintln!(
            "kpe:{tag}: {} groups, {keys} keys, universe {universe}, {pages} pages of 2^15 ranks \
             touched; the largest group {} keys on {} pages",
            region.groups.len(),
            largest.0,
            largest.1
        );
        assert!(pages <= keys && keys <= universe);
    }
}
