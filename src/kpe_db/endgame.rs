//! The endgame database: the value of every position in which both players
//! are unlocked, layer by layer (stones on the board), smallest first.

use std::mem::MaybeUninit;
use std::sync::atomic::AtomicU32;
use std::time::Instant;

use rayon::prelude::*;

use super::endless;
use super::entry::{entry_can_end, entry_value, layer_entries};
use crate::infra::progress::Progress;
use crate::retrograde::index::BoardIndex;

use super::unmove::for_each_unmove_word;
use crate::games::kpe::{KpePosition, KpeVariant};
use crate::infra::prefetch::prefetch;
use crate::retrograde::thresholds::{pack_state, Endings, LayerState, NO_EXIT};
use crate::{Game, Side};

/// Positions handled per parallel task when scanning a layer.
const CHUNK: u64 = 1 << 14;

/// Positions whose captures' entries are prefetched together when the
/// exits are computed ([`Endgame::classify_batch`]): with at most four
/// moves a position, a few dozen misses in flight.
const PREFETCHED_POSITIONS: usize = 16;

/// A capture from position `position` of a batch, taking `gained` stones,
/// into board `index` of the smaller layer.
struct Capture {
    position: u8,
    gained: u8,
    index: u64,
}

/// Read access to solved layers.
pub trait LayerValues: Sync {
    /// Entry byte ([`entry`]) of board `index` of layer `n` (boards of `n`
    /// stones relative to the mover). The layer must be solved and readable.
    fn entry(&self, n: usize, index: u64) -> u8;

    /// Value of board `index` of layer `n`.
    #[inline]
    fn value(&self, n: usize, index: u64) -> i8 {
        entry_value(self.entry(n, index))
    }

    /// Whether perfect play from board `index` of layer `n` can end.
    #[inline]
    fn can_end(&self, n: usize, index: u64) -> bool {
        entry_can_end(self.entry(n, index))
    }

    /// Asks the CPU to bring the entry of board `index` of layer `n` into
    /// the cache ahead of [`Self::entry`] (a hint: layers that are not in
    /// memory do nothing).
    #[inline]
    fn prefetch(&self, _n: usize, _index: u64) {}
}

impl LayerValues for Vec<Vec<u8>> {
    #[inline]
    fn entry(&self, n: usize, index: u64) -> u8 {
        self[n][index as usize]
    }

    #[inline]
    fn prefetch(&self, n: usize, index: u64) {
        prefetch(&self[n][index as usize]);
    }
}

/// Wall seconds a layer's solution spent in each of its steps, summed over
/// the layers a solve computed: where speed work on the layers should look.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct LayerSteps {
    /// Every position's moves generated, the captures probed in the
    /// smaller layers (the exits of the retrograde).
    pub exits: f64,
    /// The threshold retrograde inside the layer (`retrograde/thresholds.rs`).
    pub thresholds: f64,
    /// The "can end" spread (`endless.rs`) and the entry bytes.
    pub endings: f64,
}

impl LayerSteps {
    pub fn add(&mut self, other: LayerSteps) {
        self.exits += other.exits;
        self.thresholds += other.thresholds;
        self.endings += other.endings;
    }
}

/// Board geometry shared by the endgame computations of one variant.
#[derive(Clone, Debug)]
pub struct Endgame {
    pub variant: KpeVariant,
    pub index: BoardIndex,
}

impl Endgame {
    pub fn new(variant: KpeVariant) -> Self {
        Endgame {
            variant,
            index: BoardIndex::kpe(variant),
        }
    }

    /// Layers that occur: even stone counts up to the total (captures
    /// remove 2 or 4 stones per pit).
    pub fn layers(&self) -> impl Iterator<Item = usize> {
        (0..=self.variant.total() as usize).step_by(2)
    }

    /// The unlocked position of a relative board (mover as South).
    pub fn position(&self, board: &[u8]) -> KpePosition {
        let all = self.variant.all_marks();
        KpePosition::from_parts(self.variant, board, Side::South, [all, all], [0, 0])
    }

    /// [`Self::position`] of a board held as one word (`BoardIndex::next_word`).
    #[inline]
    fn position_of_word(&self, board: u128) -> KpePosition {
        let all = self.variant.all_marks();
        KpePosition::from_pits_word(self.variant, board, Side::South, [all, all], [0, 0])
    }

    /// Looks a position with both players unlocked up in solved layers.
    pub fn probe(&self, layers: &impl LayerValues, pos: &KpePosition) -> i8 {
        entry_value(self.probe_entry(layers, pos))
    }

    /// The entry byte (value and "can end") of a position with both
    /// players unlocked, from solved layers.
    pub fn probe_entry(&self, layers: &impl LayerValues, pos: &KpePosition) -> u8 {
        let (n, index) = self.probe_at(pos);
        layers.entry(n, index)
    }

    /// Where [`Self::probe_entry`] reads a position's entry: its layer and
    /// the index of its board there.
    #[inline]
    pub(crate) fn probe_at(&self, pos: &KpePosition) -> (usize, u64) {
        let n = pos.board_total() as usize;
        (n, self.board_index(pos, n))
    }

    /// The index of a position's board of `n` stones (which the caller
    /// knows: a capture's child has its parent's count less the capture),
    /// relative to its mover, in its layer. Always inlined, the stones not
    /// summed again: it is on the exits' hot path.
    #[inline(always)]
    fn board_index(&self, pos: &KpePosition, n: usize) -> u64 {
        self.index.rank_in_layer(pos.relative().pits(), n)
    }

    /// Retrograde state (exit value, internal moves) of every position of
    /// layer `n`, in the memory of `words` (the emptied words of a smaller
    /// layer, [`LayerState::into_values_keeping_words`], grown if need be).
    fn initial_state(
        &self,
        n: usize,
        layers: &impl LayerValues,
        bar: &indicatif::ProgressBar,
        words: Vec<AtomicU32>,
    ) -> LayerState {
        let all = 0..self.index.layer_size(n);
        self.initial_state_of(n, all, layers, bar, words)
    }

    /// [`Self::initial_state`] of the positions `range` of layer `n` (a
    /// rank's share, `endgame_over_ranks.rs`), the first of them the
    /// state's position 0.
    pub(super) fn initial_state_of(
        &self,
        n: usize,
        range: std::ops::Range<u64>,
        layers: &impl LayerValues,
        bar: &indicatif::ProgressBar,
        mut words: Vec<AtomicU32>,
    ) -> LayerState {
        let size = (range.end - range.start) as usize;
        // Sized once and filled in place: collected from the tasks, the
        // words passed through a list of pieces as large as themselves.
        // Grown, a large block is moved by the kernel (`mremap`), not
        // copied, and keeps the pages it had.
        words.clear();
        words.reserve_exact(size);
        words.spare_capacity_mut()[..size]
            .par_chunks_mut(CHUNK as usize)
            .enumerate()
            .for_each(|(c, words)| {
                let mut board = self.index.unrank_word(n, range.start + c as u64 * CHUNK);
                let mut captures = Vec::with_capacity(4 * PREFETCHED_POSITIONS);
                for batch in words.chunks_mut(PREFETCHED_POSITIONS) {
                    self.classify_batch(n, layers, &mut board, batch, &mut captures);
                }
                bar.inc(words.len() as u64);
            });
        // SAFETY: the tasks wrote every one of the `size` words.
        unsafe { words.set_len(size) };
        LayerState::from_words(words)
    }

    /// The retrograde words of the positions of layer `n` from `board`
    /// (its pits as one word, `BoardIndex::next_word`) on, one a word of
    /// `words` (`board` ends on the next position). Two
    /// steps: every position's moves are sown, the entries of the captures'
    /// children asked for ([`LayerValues::prefetch`]), then read, so that
    /// the cache misses of these probes (scattered over the smaller
    /// layers) overlap instead of following one another.
    fn classify_batch(
        &self,
        n: usize,
        layers: &impl LayerValues,
        board: &mut u128,
        words: &mut [MaybeUninit<AtomicU32>],
        captures: &mut Vec<Capture>,
    ) {
        let mut internal = [0u8; PREFETCHED_POSITIONS];
        let mut exit = [NO_EXIT; PREFETCHED_POSITIONS];
        let mut ending = [NO_EXIT; PREFETCHED_POSITIONS];
        captures.clear();
        for k in 0..words.len() {
            let pos = self.position_of_word(*board);
            let mut mask = pos.legal_mask();
            if mask == 0 {
                // RULES §1.5: the opponent sweeps the n stones of their row.
                exit[k] = -(n as i8);
                ending[k] = -(n as i8);
            }
            while mask != 0 {
                let pit = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                // Most moves capture nothing: they are only counted, not
                // sown.
                if !pos.move_captures(pit) {
                    internal[k] += 1;
                    continue;
                }
                let (child, gained) = pos.sow(pit);
                debug_assert!(gained > 0);
                let index = self.board_index(&child, n - gained as usize);
                layers.prefetch(n - gained as usize, index);
                captures.push(Capture {
                    position: k as u8,
                    gained: gained as u8,
                    index,
                });
            }
            *board = self.index.next_word(*board).unwrap_or(*board);
        }
        for c in captures.iter() {
            let e = layers.entry(n - c.gained as usize, c.index);
            let value = c.gained as i8 - entry_value(e);
            let k = c.position as usize;
            exit[k] = exit[k].max(value);
            if entry_can_end(e) {
                ending[k] = ending[k].max(value);
            }
        }
        for (k, word) in words.iter_mut().enumerate() {
            word.write(pack_state(exit[k], internal[k], ending[k]));
        }
    }

    /// Solves layer `n`, all smaller layers being solved in `layers`: the
    /// entry byte (value and whether perfect play can end) of every board.
    pub fn solve_layer(&self, n: usize, layers: &impl LayerValues, progress: Progress) -> Vec<u8> {
        self.solve_layer_timed(n, layers, progress, &mut Vec::new())
            .0
    }

    /// Memory for the retrograde's words of every layer
    /// ([`Self::solve_layer_timed`]), reserved for the largest at once:
    /// pages count only once touched, and a block grown at every layer
    /// is moved by the kernel (`mremap`) every time, to an address where
    /// its huge pages need not line up (tried: `results/BENCHMARKS.md`).
    /// Where the system will not map that much (a variant whose largest
    /// layer the solver could not hold, all of whose computed layers are
    /// smaller), it starts empty and grows with the layers instead.
    pub fn words_buffer(&self) -> Vec<AtomicU32> {
        let largest = self.index.layer_size(self.variant.total() as usize);
        let mut words = Vec::new();
        if let Ok(largest) = usize::try_from(largest) {
            let _ = words.try_reserve_exact(largest);
        }
        words
    }

    /// [`Self::solve_layer`], with the seconds each step took. `words` is
    /// the memory of the retrograde's words, kept by the caller from one
    /// layer to the next (taken and given back, emptied, except after the
    /// largest layer, `n` = every stone, which gives it to the system).
    pub fn solve_layer_timed(
        &self,
        n: usize,
        layers: &impl LayerValues,
        progress: Progress,
        words: &mut Vec<AtomicU32>,
    ) -> (Vec<u8>, LayerSteps) {
        let bar = progress.bar(self.index.layer_size(n), format!("layer {n}"));
        let mut steps = LayerSteps::default();
        let (values, endings) = self.layer_values(n, layers, &bar, &mut steps, words);
        let start = Instant::now();
        bar.set_message("endings");
        let ends = endless::spread(&values, endings, |chunk, out| {
            self.unmove_edges(n, chunk, out)
        });
        bar.finish_and_clear();
        let entries = layer_entries(values, &ends);
        steps.endings = start.elapsed().as_secs_f64();
        (entries, steps)
    }

    /// The values of layer `n` by threshold retrograde analysis, and the
    /// seeds of "can end" (`endless.rs`).
    fn layer_values(
        &self,
        n: usize,
        layers: &impl LayerValues,
        bar: &indicatif::ProgressBar,
        steps: &mut LayerSteps,
        words: &mut Vec<AtomicU32>,
    ) -> (Vec<i8>, Endings) {
        let size = self.index.layer_size(n);
        assert!(size <= u32::MAX as u64, "layer {n} has {size} positions");
        bar.set_message("exits");
        let start = Instant::now();
        let mut state = self.initial_state(n, layers, bar, std::mem::take(words));
        steps.exits = start.elapsed().as_secs_f64();
        let start = Instant::now();
        bar.set_position(0);
        bar.set_length(n as u64 / 2);
        bar.set_message("thresholds");
        state.solve(
            n as i8,
            |chunk, out| self.unmove_edges(n, chunk, out),
            |_, _| bar.inc(1),
        );
        let (values, endings) = if n == self.variant.total() as usize {
            // The largest layer: the peak of the layers' phase is set here
            // (module `retrograde`, `LayerState::into_values`).
            state.into_values()
        } else {
            let (values, endings, emptied) = state.into_values_keeping_words();
            *words = emptied;
            (values, endings)
        };
        steps.thresholds = start.elapsed().as_secs_f64();
        (values, endings)
    }

    /// Appends `(parent, child)` for every internal (non-capturing) move
    /// into each board `child` of `chunk` of layer `n`.
    pub(super) fn unmove_edges(&self, n: usize, chunk: &[u32], out: &mut Vec<(u32, u32)>) {
        let pits = self.variant.pits();
        let mut board = [0u8; 16];
        let mut at = None;
        for &i in chunk {
            self.index.seek(n, at, i as u64, &mut board[..pits]);
            at = Some(i as u64);
            let word = u128::from_le_bytes(board);
            for_each_unmove_word(self.variant, word, n, true, |pred, _| {
                out.push((self.index.rank_in_layer(pred, n) as u32, i))
            });
        }
    }

    /// Solves every layer in memory (small variants, tests).
    pub fn solve_all(&self, progress: Progress) -> Vec<Vec<u8>> {
        let solved = self.solve_layers(progress, &mut InMemory);
        solved.unwrap_or_else(|never| match never {})
    }

    /// The per-layer loop: every layer, smallest first, each taken from
    /// `store` if it has it, else solved from the smaller ones and given to
    /// `store` to keep. Returns every layer, decoded.
    pub fn solve_layers<S: LayerStore>(
        &self,
        progress: Progress,
        store: &mut S,
    ) -> Result<Vec<Vec<u8>>, S::Error> {
        let mut layers: Vec<Vec<u8>> = vec![Vec::new(); self.variant.total() as usize + 1];
        // The retrograde's words, kept from one layer to the next.
        let mut words = self.words_buffer();
        for n in self.layers() {
            if let Some(entries) = store.take(n)? {
                layers[n] = entries;
                continue;
            }
            let (entries, steps) = self.solve_layer_timed(n, &layers, progress, &mut words);
            store.keep(n, &entries, steps)?;
            layers[n] = entries;
        }
        Ok(layers)
    }
}

/// Where [`Endgame::solve_layers`] takes the layers it need not solve and
/// keeps those it solves (a database's files, `build/layers.rs`).
pub trait LayerStore {
    type Error;
    /// Layer `n`'s entries, if they need not be solved.
    fn take(&mut self, n: usize) -> Result<Option<Vec<u8>>, Self::Error>;
    /// Keeps layer `n`, just solved (its entries, and the seconds its
    /// steps took).
    fn keep(&mut self, n: usize, entries: &[u8], steps: LayerSteps) -> Result<(), Self::Error>;
}

/// Layers solved in memory and kept nowhere else.
struct InMemory;

impl LayerStore for InMemory {
    type Error = std::convert::Infallible;

    fn take(&mut self, _: usize) -> Result<Option<Vec<u8>>, Self::Error> {
        Ok(None)
    }

    fn keep(&mut self, _: usize, _: &[u8], _: LayerSteps) -> Result<(), Self::Error> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words' memory is reserved for the largest layer where it can
    /// be mapped, and asking for a variant far too large to solve gives
    /// an empty buffer, not an abort.
    #[test]
    fn words_buffer_is_reserved_for_the_largest_layer_or_left_empty() {
        let standard = Endgame::new(KpeVariant::STANDARD);
        let words = standard.words_buffer();
        assert!(words.is_empty());
        assert!(words.capacity() as u64 >= standard.index.layer_size(48));
        // 16 pits and 128 stones: C(143, 15) boards in the largest layer.
        let huge = Endgame::new(KpeVariant::new(8, 8).unwrap());
        let words = huge.words_buffer();
        assert!(words.is_empty());
        assert!((words.capacity() as u64) < huge.index.layer_size(128));
    }
}
