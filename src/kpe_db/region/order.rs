//! A solved region in the key file's order (by stone count, then ranked
//! key `u`, `keys/key_file.rs`): each stone count's groups merged, for the
//! region's files and for the readers of a region solved in memory.

use std::cmp::Reverse;
use std::collections::binary_heap::{BinaryHeap, PeekMut};

use rayon::prelude::*;

use super::LockedRegion;
use crate::games::kpe::KpePosition;
use crate::kpe_db::entry::entry;
use crate::kpe_db::error::DbError;
use crate::kpe_db::keys::compact::{CompactKeys, CompactKeysBuilder};
use crate::kpe_db::keys::ranker::{key_of, Ranker};
use crate::kpe_db::scratch::ScratchVec;
use crate::retrograde::bits::Bits;

/// Calls `visit(u, p, j)` for every key of the groups `parts` (class,
/// local ranks) of one stone count in ascending order of their ranked keys
/// `u`: key `j` of part `p`. Each group's local ranks are in `u` order
/// (`keys/mark_classes.rs`), so this merges them.
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
    // sift down, rather than popped and the next pushed: two sifts.
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

impl LockedRegion {
    /// Consumes the solved region, stone count by stone count (ascending):
    /// calls `f` with each count's keys in the key file's layout (the
    /// ranked keys `u` of the whole count, `keys/key_file.rs`, in the
    /// region's scratch) and writes the entry bytes of all positions, in
    /// the same order, to `entries` (as long as the region). Both threads
    /// take stone counts, each count its own slice of `entries`, and a
    /// count's groups are freed once merged.
    pub(crate) fn for_each_stone_count(
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
        // is small (the standard game's largest count holds 42% of its
        // keys: last, it would be merged by one thread alone).
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
    pub(crate) fn stone_count_number(&self) -> usize {
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
    pub(crate) fn stone_count_entries(&self) -> Vec<(usize, Vec<u8>)> {
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
    pub(crate) fn for_each_entry(&self, mut f: impl FnMut(&KpePosition, u8)) {
        let mut cursor = self.ranker.cursor();
        self.for_each_in_key_order(|n, u, g, j| {
            let e = self.entry_at(g, j);
            f(&cursor.position(key_of(n, u)), e)
        });
    }
}
