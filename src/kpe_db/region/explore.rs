//! The forward exploration of a locked region: breadth first from its
//! root, one group at a time (stone counts from the most down, classes
//! from the fewest marks up: a move leads to the same group, a higher class
//! or fewer stones), each group's set a bitmap over its local ranks
//! (`retrograde/paged_bits.rs`) made compact as soon as it is closed.

use rayon::prelude::*;

use super::seeds::Seeds;
use super::{class_of, is_locked, LockedRegion};
use crate::games::kpe::KpePosition;
use crate::infra::progress::Progress;
use crate::kpe_db::error::DbError;
use crate::kpe_db::keys::compact::{CompactKeys, CompactKeysBuilder};
use crate::kpe_db::keys::ranker::{key_of, rank, Ranker, RegionKey};
use crate::kpe_db::scratch::Scratch;
use crate::retrograde::paged_bits::PagedBits;
use crate::Game;

/// A key found by a move inside its group, with its board: expanding it
/// then needs no unranking (a quarter of kpe:4x4's exploration:
/// `results/BENCHMARKS.md`).
#[derive(Clone, Copy)]
struct Found {
    key: RegionKey,
    board: [u8; 16],
}

/// Closes group (`n` stones, `class`) of an exploration: expands every
/// key that moves from other groups found for it (`seeds`) breadth first,
/// adding the keys its moves find in the group to its set (a bitmap over
/// the group's local ranks, `retrograde/paged_bits.rs`) and handing those found in
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
    // A level is kept as the lists its tasks found, not copied into one
    // (the copies and the vector's growth cost time).
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
            // cache misses overlap instead of following one another.
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
                            // word, waits for its stores.
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

/// An exploration part way: the groups of the stone counts from the most
/// down to `below` (excluded) closed, in the order closed, and the keys
/// found for fewer stones.
pub(crate) struct Explored {
    pub groups: Vec<(usize, CompactKeys)>,
    pub seeds: Seeds,
    pub below: usize,
}

impl LockedRegion {
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
    /// a checkpoint, `build/checkpoint.rs`) if given, calling
    /// `after_count` with each stone count, its groups (class and keys)
    /// and the keys waiting for fewer stones, once its groups are closed.
    pub(crate) fn explore_from(
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
}

/// How clustered the groups' keys are, which the exploration's bitmaps
/// (`retrograde/paged_bits.rs`) rely on: `cargo test --release --lib
/// clustering_of_group_keys -- --ignored --nocapture` (the standard game,
/// 30 s; `SOW_VARIANT=WxK` for another).
#[cfg(test)]
mod clustering {
    use super::*;
    use crate::games::kpe::KpeVariant;

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
