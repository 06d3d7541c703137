//! Score-valued retrograde analysis of one layer of positions whose
//! internal moves may form cycles (Romein & Bal's method for Awari, by
//! thresholds from the top value down).
//!
//! Every position has an *exit* value (the best it can get by a move that
//! leaves the layer: a capture into a solved layer, or the end of the game)
//! and some *internal* moves to positions of the same layer. For every
//! threshold `t` from the largest possible value down to 1 the solver finds
//! the positions where the mover can force a value `>= t` (set `W_t`) and
//! those where the opponent can force the mover down to `<= -t` (set `L_t`):
//!
//! * `P ∈ W_t` iff `exit(P) >= t` or some internal child is in `L_t`;
//! * `P ∈ L_t` iff `exit(P) <= -t` and every internal child is in `W_t`.
//!
//! Both are least fixpoints (attractors): a line that never leaves the layer
//! scores 0 (RULES §0), which is below every positive threshold. Both sets
//! only grow as `t` falls, so a position's value is fixed by the first
//! threshold that admits it (`t` for `W`, `-t` for `L`); counters of
//! internal children not yet in `W` make each step linear in the edges.
//! Positions never admitted are worth 0 (exits of 0, or endless play).
//!
//! "Can end" (`endless.rs`) is learnt on the way. An internal move keeps
//! its predecessor's value only between positions admitted at the same
//! threshold: into a child of `L_t` from a predecessor worth exactly `t`
//! (known once the child's news is passed on), or into a child worth `t`
//! from a predecessor that `L_t` admits at its last such move. So when a
//! child admitted at `t` is passed on, each predecessor's best move known
//! to end is raised to what the move is worth to it, if the child is known
//! to be able to end by then: the predecessor can end when that move
//! equals its value. A predecessor admitted already whose value this
//! raise reaches is noted as told too early (its own predecessors may
//! have heard of it before); `endless.rs` spreads the rest.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::bits::Bits;
use crate::infra::prefetch::prefetch;

pub mod distributed;
#[cfg(test)]
pub(crate) mod random_layer;

/// Value of a position not yet determined.
pub const UNKNOWN: i8 = i8::MIN;
/// Exit value of a position with no move leaving the layer.
pub const NO_EXIT: i8 = i8::MIN;

/// One position's state in one word, so that informing a predecessor
/// touches a single cache line: value (bits 0-7), internal moves not yet
/// known to lead into `W` (bits 8-15), exit value (bits 16-23), and the
/// best move known to lead to a position that can end (its "ending exit",
/// bits 24-31, `endless.rs`): the exits' at first, raised by internal
/// moves as the retrograde passes their children on.
#[derive(Clone, Copy)]
struct Word(u32);

impl Word {
    #[inline]
    fn new(exit: i8, internal: u8, ending_exit: i8) -> Self {
        Word(
            UNKNOWN as u8 as u32
                | (internal as u32) << 8
                | (exit as u8 as u32) << 16
                | (ending_exit as u8 as u32) << 24,
        )
    }
    #[inline]
    fn ending_exit(self) -> i8 {
        (self.0 >> 24) as u8 as i8
    }
    #[inline]
    fn value(self) -> i8 {
        self.0 as u8 as i8
    }
    #[inline]
    fn internal(self) -> u8 {
        (self.0 >> 8) as u8
    }
    #[inline]
    fn exit(self) -> i8 {
        (self.0 >> 16) as u8 as i8
    }
    #[inline]
    fn with_value(self, v: i8) -> Self {
        Word(self.0 & !0xff | v as u8 as u32)
    }
    /// The word with its best ending exit raised to `e` if lower.
    #[inline]
    fn with_ending_at_least(self, e: i8) -> Self {
        match self.ending_exit() >= e {
            true => self,
            false => Word(self.0 & 0x00ff_ffff | (e as u8 as u32) << 24),
        }
    }
    /// Whether a line of play keeping the position's value is known to
    /// end: its best ending exit is its value (`endless.rs`).
    #[inline]
    fn can_end(self) -> bool {
        self.value() != UNKNOWN && self.ending_exit() == self.value()
    }
}

/// Children whose moves are gathered, and their parents' cache lines
/// prefetched, before any is used: enough misses in flight to overlap,
/// few enough lines (a few hundred) that they are still in the first-level
/// cache when used. With 1,024 (about 4,000 lines) the region's key
/// searches stalled on lines they had prefetched (`results/BENCHMARKS.md`).
const PREFETCHED_CHILDREN: usize = 64;

/// Calls `visit(parent, child)` for every internal move into `children`
/// that `predecessors` finds (as in [`LayerState::solve`]), both threads
/// taking slices of the children. All moves into a batch of
/// [`PREFETCHED_CHILDREN`] come first, `prefetch_parent` called on each
/// parent, then the visits: the cache misses of the scattered parents
/// overlap.
pub(crate) fn for_each_move_into<P>(
    children: &[u32],
    predecessors: &P,
    prefetch_parent: impl Fn(usize) + Sync,
    visit: impl Fn(usize, usize) + Sync,
) where
    P: Fn(&[u32], &mut Vec<(u32, u32)>) + Sync,
{
    children.par_chunks(1024).for_each(|chunk| {
        let mut edges = Vec::new();
        for batch in chunk.chunks(PREFETCHED_CHILDREN) {
            edges.clear();
            predecessors(batch, &mut edges);
            for &(p, _) in &edges {
                prefetch_parent(p as usize);
            }
            for &(p, child) in &edges {
                visit(p as usize, child as usize);
            }
        }
    });
}

/// Positions summarised by one [`LayerState::exits_present`] mask: one
/// word of a [`Bits`], so that the seeds of a block are added to the
/// pending set in one update ([`LayerState::seeds`]).
const SEED_BLOCK: usize = 64;

/// [`LayerState::seeds`] for one block of words: admits the positions
/// whose exit is `t`, and those whose exit is at most `-t` and whose
/// internal moves all lead into `W`; returns them as bits of the block.
/// Every word is tested without a branch and the admitted ones written
/// after, as plain words: during the seeds no other update runs, and the
/// block is this task's alone (word by word with a compare-and-swap each,
/// and without the read-ahead of [`LayerState::seeds`], they took 1.7
/// times as long: `results/BENCHMARKS.md`).
fn seed_block(block: &mut [AtomicU32], t: i8) -> u64 {
    let mut admitted = 0u64;
    for (k, word) in block.iter_mut().enumerate() {
        let w = Word(*word.get_mut());
        // `&` and `|`, not `&&` and `||`: no branch.
        let open = w.value() == UNKNOWN;
        let win = w.exit() == t;
        let loss = (w.exit() <= -t) & (w.internal() == 0);
        admitted |= ((open & (win | loss)) as u64) << k;
    }
    let mut bits = admitted;
    while bits != 0 {
        let word = block[bits.trailing_zeros() as usize].get_mut();
        bits &= bits - 1;
        let w = Word(*word);
        *word = w.with_value(if w.exit() == t { t } else { -t }).0;
    }
    admitted
}

/// What a layer's retrograde learnt of "can end" (`endless.rs`), for the
/// spread that completes it.
pub struct Endings {
    /// Positions whose perfect play is known to be able to end.
    pub known: Bits,
    /// Those of them whose predecessors have not been told so: the
    /// positions worth 0 (never passed on) and those found able to end
    /// after they were passed on ([`LayerState::solve`]).
    pub untold: Bits,
}

/// The working state of one layer.
pub struct LayerState {
    words: Vec<AtomicU32>,
    /// Positions found able to end after their predecessors were told
    /// their value ([`LayerState::solve`]).
    told_too_early: Bits,
    /// For each block of [`SEED_BLOCK`] positions, bit `|e| / 2` for every
    /// exit value `e` in it: the seeds of threshold `t` are positions whose
    /// exit is `±t` ([`Self::seeds`]), so a block without either is not
    /// read (`|e| / 2` is at most 63: a `u64`). Eight bytes a 64 positions.
    exits_present: Vec<u64>,
}

/// Writes the final value of every position of `words` (the first being
/// position `first`, a multiple of 64) to `out`, and adds those whose
/// value an ending exit keeps to `endings` ([`LayerState::into_values`]),
/// a word of bits at a time (a locked update a position was slower:
/// `results/BENCHMARKS.md`).
fn write_values(
    words: &[AtomicU32],
    first: usize,
    out: &mut [std::mem::MaybeUninit<i8>],
    endings: &Endings,
) {
    debug_assert_eq!(first % 64, 0);
    out.par_chunks_mut(64)
        .zip(words.par_chunks(64))
        .enumerate()
        .for_each(|(c, (out, words))| {
            let (mut known, mut untold) = (0u64, 0u64);
            for (k, (out, w)) in out.iter_mut().zip(words).enumerate() {
                let w = Word(w.load(Relaxed));
                let v = match w.value() {
                    UNKNOWN => 0,
                    v => v,
                };
                let ends = w.ending_exit() == v;
                known |= (ends as u64) << k;
                // Positions worth 0 were never passed on.
                untold |= ((ends & (v == 0)) as u64) << k;
                out.write(v);
            }
            endings.known.insert_word(first / 64 + c, known);
            endings.untold.insert_word(first / 64 + c, untold);
        });
}

/// Packs a position's exit value, internal move count and best ending
/// exit ([`NO_EXIT`] if none) for [`LayerState::from_words`].
#[inline]
pub fn pack_state(exit: i8, internal: u8, ending_exit: i8) -> AtomicU32 {
    AtomicU32::new(Word::new(exit, internal, ending_exit).0)
}

impl LayerState {
    /// Builds the state from words made by [`pack_state`].
    pub fn from_words(words: Vec<AtomicU32>) -> Self {
        let exits_present = words
            .par_chunks(SEED_BLOCK)
            .map(|block| {
                block
                    .iter()
                    .fold(0u64, |mask, w| match Word(w.load(Relaxed)).exit() {
                        NO_EXIT => mask,
                        e => mask | 1 << (e.unsigned_abs() / 2),
                    })
            })
            .collect();
        LayerState {
            told_too_early: Bits::new(words.len() as u64),
            words,
            exits_present,
        }
    }

    /// Final values (every undetermined position is worth 0), and what the
    /// retrograde learnt of "can end" (`endless.rs`), as bit sets (a list
    /// took 4 bytes a position).
    ///
    /// The values are written from the last position back, a slice at a
    /// time, and each slice's words are given back to the allocator as soon
    /// as they are read (a large block shrinks in place), so the words and
    /// the values are never both whole in memory: at the end of the largest
    /// layer that was the peak of the layers' phase.
    pub fn into_values(self) -> (Vec<i8>, Endings) {
        const SLICE: usize = 1 << 24;
        let (mut words, endings) = self.into_words_and_endings();
        let len = words.len();
        let mut values: Vec<i8> = Vec::with_capacity(len);
        let out = &mut values.spare_capacity_mut()[..len];
        while !words.is_empty() {
            // A multiple of 64, as `SLICE` is.
            let start = words.len().saturating_sub(SLICE) & !63;
            write_values(
                &words[start..],
                start,
                &mut out[start..words.len()],
                &endings,
            );
            words.truncate(start);
            words.shrink_to_fit();
        }
        // SAFETY: the loop wrote every one of the `len` values.
        unsafe { values.set_len(len) };
        (values, endings)
    }

    /// [`Self::into_values`], giving the words' memory back emptied
    /// instead of to the system, for the next layer's words
    /// ([`Self::from_words`]): on this project's machines memory handed
    /// back goes back to the host within seconds, and taking it again
    /// costs the kernel 1-2 s a GiB of huge pages, against 0.09 s for
    /// pages it still has (`scripts/page_faults.sh`,
    /// `results/BENCHMARKS.md`). Words and values are both whole in
    /// memory at the end, so the largest layer uses [`Self::into_values`].
    pub fn into_values_keeping_words(self) -> (Vec<i8>, Endings, Vec<AtomicU32>) {
        let (mut words, endings) = self.into_words_and_endings();
        let len = words.len();
        let mut values: Vec<i8> = Vec::with_capacity(len);
        write_values(&words, 0, &mut values.spare_capacity_mut()[..len], &endings);
        // SAFETY: `write_values` wrote every one of the `len` values.
        unsafe { values.set_len(len) };
        words.clear();
        (values, endings, words)
    }

    /// The words, and the "can end" sets for [`write_values`] to fill.
    fn into_words_and_endings(self) -> (Vec<AtomicU32>, Endings) {
        let endings = Endings {
            known: Bits::new(self.words.len() as u64),
            untold: self.told_too_early,
        };
        (self.words, endings)
    }

    #[inline]
    fn load(&self, i: usize) -> Word {
        Word(self.words[i].load(Relaxed))
    }

    /// Admits the positions that enter `W_t` or `L_t` by their own exits
    /// at threshold `t`, adding them to `pending`.
    ///
    /// Only positions whose exit is `±t` can: one with a larger exit was
    /// admitted at an earlier threshold (a `W` exit by its value; an `L`
    /// exit as soon as its last internal move was known to lead into `W`,
    /// by [`Self::inform`], or by this scan at `t = -exit` if that came
    /// first), and one without an exit only by [`Self::inform`]. So only
    /// the blocks holding such an exit are read (the full scan, once a
    /// threshold, was 15% of the thresholds' time on kpe:4x5's largest
    /// layer).
    fn seeds(&mut self, t: i8, pending: &Bits) {
        /// Blocks of one task.
        const TASK_BLOCKS: usize = 1024;
        /// Blocks whose words are asked for before the first is read.
        const AHEAD: usize = 8;
        let bit = 1u64 << (t.unsigned_abs() / 2);
        self.exits_present
            .par_chunks(TASK_BLOCKS)
            .zip(self.words.par_chunks_mut(TASK_BLOCKS * SEED_BLOCK))
            .enumerate()
            .for_each_init(Vec::new, |blocks, (c, (masks, words))| {
                blocks.clear();
                blocks.extend((masks.iter().enumerate()).filter(|(_, &mask)| mask & bit != 0));
                let len = words.len();
                let range = |j: usize| j * SEED_BLOCK..((j + 1) * SEED_BLOCK).min(len);
                for (k, &(j, _)) in blocks.iter().enumerate() {
                    if let Some(&(ahead, _)) = blocks.get(k + AHEAD) {
                        for line in words[range(ahead)].chunks(16) {
                            prefetch(&line[0]);
                        }
                    }
                    let admitted = seed_block(&mut words[range(j)], t);
                    pending.insert_word(c * TASK_BLOCKS + j, admitted);
                }
            });
    }

    /// Passes the news that `child` (its word) got value `±t` to one
    /// predecessor; returns true if the predecessor got its value now.
    ///
    /// If the child is known to be able to end, so is a predecessor whose
    /// move into it keeps its value, and the predecessor's best ending exit
    /// says so ([`Word::can_end`]): most of "can end" is learnt here, on
    /// the moves the values follow anyway, instead of by un-moving every
    /// position again afterwards (`endless.rs`).
    #[inline(always)]
    fn inform(&self, pred: usize, child: Word, t: i8) -> bool {
        // The predecessor's word is read before anything depends on the
        // child's: both loads in flight at once.
        let current = self.load(pred);
        let ends = child.can_end();
        if child.value() < 0 {
            self.inform_of_loss(pred, current, t, ends)
        } else {
            self.inform_of_win(pred, current, t, ends)
        }
    }

    /// [`Self::inform`] of a child lost by `t`: the predecessor wins by
    /// `t` at least, by the move into it if not already by another.
    #[inline(always)]
    fn inform_of_loss(&self, pred: usize, mut current: Word, t: i8, ends: bool) -> bool {
        loop {
            let admitted = current.value() == UNKNOWN;
            let mut new = current;
            if admitted {
                new = new.with_value(t);
            } else if current.value() != t {
                // Won by more at an earlier threshold: the move into
                // this child does not keep the value.
                return false;
            }
            if ends {
                new = new.with_ending_at_least(t);
            }
            if new.0 == current.0 {
                return false;
            }
            match self.words[pred].compare_exchange_weak(current.0, new.0, Relaxed, Relaxed) {
                Ok(_) => {
                    if !admitted {
                        // Found able to end after it was admitted, maybe
                        // after its own predecessors were told.
                        self.told_too_early.insert(pred as u64);
                    }
                    return admitted;
                }
                Err(now) => current = Word(now),
            }
        }
    }

    /// [`Self::inform`] of a child won by `t`: one internal move fewer
    /// that can escape `W`; the last one admits the predecessor lost by
    /// `t` if its exits are no better. The move keeps the value only then
    /// (the child's value, `t`, is the least of its moves'); a predecessor
    /// already determined got a value that no move into `W_t` keeps.
    ///
    /// The count is taken down by one locked subtraction, and the ending
    /// exit raised by a second update, once a threshold at most (one
    /// compare-and-swap for both, every move, was no faster). Its
    /// compare-and-swap loop is [`Self::inform_of_loss`]'s twin on purpose:
    /// one shared update taking each case's admission as a closure made
    /// the thresholds slower (`results/BENCHMARKS.md`).
    #[inline(always)]
    fn inform_of_win(&self, pred: usize, current: Word, t: i8, ends: bool) -> bool {
        if current.value() != UNKNOWN {
            return false;
        }
        let now = Word(self.words[pred].fetch_sub(1 << 8, Relaxed) - (1 << 8));
        let last = now.internal() == 0 && now.exit() <= -t;
        let raise = ends && now.ending_exit() < -t;
        if !(last || raise) {
            return false;
        }
        let mut current = now;
        loop {
            let mut new = current;
            match current.value() {
                UNKNOWN if last => new = new.with_value(-t),
                UNKNOWN => {}
                // Admitted by the thread that took its last move, which
                // may have passed it on already.
                v if v == -t && !last => {}
                _ => return false,
            }
            if ends {
                new = new.with_ending_at_least(-t);
            }
            if new.0 == current.0 {
                return false;
            }
            match self.words[pred].compare_exchange_weak(current.0, new.0, Relaxed, Relaxed) {
                Ok(_) => {
                    if current.value() != UNKNOWN {
                        self.told_too_early.insert(pred as u64);
                    }
                    return last;
                }
                Err(now) => current = Word(now),
            }
        }
    }

    /// Runs every even threshold from `max_value` down to 2.
    ///
    /// Kpé values are even: totals are even (2·W·K stones), captures take 2
    /// or 4 stones per pit and the final sweep takes an even total. With
    /// every exit even, `W_t = W_{t+1}` and `L_t = L_{t+1}` for odd `t`, so
    /// odd thresholds would admit nothing.
    ///
    /// `predecessors(chunk, out)` must append `(parent, child)` for every
    /// internal move into each `child` of `chunk` (a parent twice if two of
    /// its moves lead to the child).
    pub fn solve<P>(
        &mut self,
        max_value: i8,
        predecessors: P,
        mut on_threshold: impl FnMut(i8, u64),
    ) where
        P: Fn(&[u32], &mut Vec<(u32, u32)>) + Sync,
    {
        debug_assert!(
            self.words
                .iter()
                .all(|w| Word(w.load(Relaxed)).exit() % 2 == 0),
            "odd exit value"
        );
        // Admitted positions whose predecessors are still to be told.
        let pending = Bits::new(self.words.len() as u64);
        for t in (1..=max_value).rev().filter(|t| t % 2 == 0) {
            self.seeds(t, &pending);
            let admitted = AtomicU64::new(0);
            pending.drain(|children| {
                admitted.fetch_add(children.len() as u64, Relaxed);
                for_each_move_into(
                    children,
                    &predecessors,
                    |p| prefetch(&self.words[p]),
                    |p, child| {
                        if self.inform(p, self.load(child), t) {
                            pending.insert(p as u64);
                        }
                    },
                );
            });
            on_threshold(t, admitted.into_inner());
        }
    }
}
