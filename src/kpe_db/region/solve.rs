//! Solving a locked region's groups: in order (ascending stone count,
//! descending class), each group by the threshold retrograde
//! (`retrograde/thresholds.rs`) over its moves inside the group, the moves
//! that leave it (captures, a mark set, the lock undone) its exits. Groups
//! that no move joins form a *run* and are solved side by side: the runs
//! are the region's per-layer loop.

use rayon::prelude::*;

use super::exits::UnlockedExits;
use super::{class_of, LockedRegion};
use crate::games::kpe::KpePosition;
use crate::infra::prefetch::prefetch;
use crate::infra::progress::Progress;
use crate::kpe_db::endgame::{Endgame, LayerValues};
use crate::kpe_db::endless;
use crate::kpe_db::error::DbError;
use crate::kpe_db::keys::ranker::{rank, stones_of, KeyParts, RegionKey};
use crate::kpe_db::scratch::{Scratch, ScratchVec};
use crate::kpe_db::unmove::for_each_unmove_word;
use crate::retrograde::bits::Bits;
use crate::retrograde::rank_bitmap::RankBitmap;
use crate::retrograde::thresholds::{pack_state, LayerState, NO_EXIT};
use crate::Game;

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

    /// Solves the groups in order (ascending stone count, descending
    /// class), given what their moves into the unlocked database are worth
    /// ([`Self::unlocked_exits`]). A move that captures or sets a mark
    /// leaves the group for one already solved: an exit. The first
    /// `solved_runs` runs ([`Self::independent_runs`]) are solved already
    /// (restored from a checkpoint); `after_run` is called with each run
    /// (its number and groups) once it is solved.
    pub(crate) fn solve_groups_with(
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
    pub(crate) fn independent_runs(&self) -> Vec<std::ops::Range<usize>> {
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
        let ends = endless::spread(&values, endings, |chunk, out| {
            self.predecessors_of(&index, &keys, chunk, out)
        });
        Ok((self.scratch.copy_of(&values)?, ends))
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
    fn predecessors_of(
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
}
