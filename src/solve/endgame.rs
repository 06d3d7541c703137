//! The endgame database: the value of every position in which both players
//! are unlocked, layer by layer (stones on the board), smallest first.

use std::time::Instant;

use rayon::prelude::*;

use super::bits::Bits;
use super::db::{entry, entry_can_end, entry_value};
use super::endless;
use super::index::BoardIndex;
use crate::progress::Progress;

use super::atomics::atomic_u32s;
use super::retrograde::{pack_state, LayerState, NO_EXIT};
use super::unmove::for_each_unmove;
use crate::games::kpe::{KpePosition, KpeVariant};
use crate::Side;

/// Positions handled per parallel task when scanning a layer.
const CHUNK: u64 = 1 << 14;

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
}

impl LayerValues for Vec<Vec<u8>> {
    #[inline]
    fn entry(&self, n: usize, index: u64) -> u8 {
        self[n][index as usize]
    }
}

/// Wall seconds a layer's solution spent in each of its steps, summed over
/// the layers a solve computed: where speed work on the layers should look.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct LayerSteps {
    /// Every position's moves generated, the captures probed in the
    /// smaller layers (the exits of the retrograde).
    pub exits: f64,
    /// The threshold retrograde inside the layer (`retrograde.rs`).
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
            index: BoardIndex::new(variant.pits(), variant.total() as usize),
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

    /// Looks a position with both players unlocked up in solved layers.
    pub fn probe(&self, layers: &impl LayerValues, pos: &KpePosition) -> i8 {
        entry_value(self.probe_entry(layers, pos))
    }

    /// The entry byte (value and "can end") of a position with both
    /// players unlocked, from solved layers.
    pub fn probe_entry(&self, layers: &impl LayerValues, pos: &KpePosition) -> u8 {
        let rel = pos.relative();
        let n: usize = rel.pits().iter().map(|&c| c as usize).sum();
        layers.entry(n, self.index.rank(rel.pits()))
    }

    /// The value of the capture of `gained` stones reaching `child`, and
    /// whether perfect play from the child can end.
    fn capture_option(
        &self,
        layers: &impl LayerValues,
        child: &KpePosition,
        gained: u32,
    ) -> (i8, bool) {
        let e = self.probe_entry(layers, child);
        (gained as i8 - entry_value(e), entry_can_end(e))
    }

    /// Retrograde state (exit value, internal moves) of every position of layer `n`.
    fn initial_state(
        &self,
        n: usize,
        layers: &impl LayerValues,
        bar: &indicatif::ProgressBar,
    ) -> LayerState {
        let size = self.index.layer_size(n);
        let pits = self.variant.pits();
        // Sized once and filled in place: collected from the tasks, the
        // words passed through a list of pieces as large as themselves.
        let mut words = atomic_u32s(size as usize);
        words
            .par_chunks_mut(CHUNK as usize)
            .enumerate()
            .for_each(|(c, words)| {
                let mut board = [0u8; 16];
                self.index.unrank(n, c as u64 * CHUNK, &mut board[..pits]);
                for word in words.iter_mut() {
                    let pos = self.position(&board[..pits]);
                    let (e, k, ending) = self.classify_moves(&pos, n, layers);
                    *word = pack_state(e, k, ending);
                    self.index.next(&mut board[..pits]);
                }
                bar.inc(words.len() as u64);
            });
        LayerState::from_words(words)
    }

    /// (best value leaving the layer, number of moves staying in it, best
    /// value leaving it on a line that can end).
    #[inline]
    fn classify_moves(
        &self,
        pos: &KpePosition,
        n: usize,
        layers: &impl LayerValues,
    ) -> (i8, u8, i8) {
        let mut mask = pos.legal_mask();
        if mask == 0 {
            // RULES §1.5: the opponent sweeps the n stones of their row.
            return (-(n as i8), 0, -(n as i8));
        }
        let mut exit = NO_EXIT;
        let mut ending = NO_EXIT;
        let mut internal = 0u8;
        while mask != 0 {
            let pit = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let (child, gained) = pos.sow(pit);
            if gained > 0 {
                let (value, can_end) = self.capture_option(layers, &child, gained);
                exit = exit.max(value);
                if can_end {
                    ending = ending.max(value);
                }
            } else {
                internal += 1;
            }
        }
        (exit, internal, ending)
    }

    /// Solves layer `n`, all smaller layers being solved in `layers`: the
    /// entry byte (value and whether perfect play can end) of every board.
    pub fn solve_layer(&self, n: usize, layers: &impl LayerValues, progress: Progress) -> Vec<u8> {
        self.solve_layer_timed(n, layers, progress).0
    }

    /// [`Self::solve_layer`], with the seconds each step took.
    pub fn solve_layer_timed(
        &self,
        n: usize,
        layers: &impl LayerValues,
        progress: Progress,
    ) -> (Vec<u8>, LayerSteps) {
        let bar = progress.bar(self.index.layer_size(n), format!("layer {n}"));
        let mut steps = LayerSteps::default();
        let (values, seeds) = self.layer_values(n, layers, &bar, &mut steps);
        let start = Instant::now();
        bar.set_message("endings");
        let ends = endless::unlocked_layer(self, n, &values, seeds);
        bar.finish_and_clear();
        // The entries take the values' place (a second vector of a layer's
        // size would count at the peak).
        let mut entries: Vec<u8> = values.into_iter().map(|v| v as u8).collect();
        entries
            .par_iter_mut()
            .enumerate()
            .for_each(|(i, e)| *e = entry(*e as i8, ends.get(i as u64)));
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
    ) -> (Vec<i8>, Bits) {
        let size = self.index.layer_size(n);
        assert!(size <= u32::MAX as u64, "layer {n} has {size} positions");
        bar.set_message("exits");
        let start = Instant::now();
        let state = self.initial_state(n, layers, bar);
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
        let values = state.into_values();
        steps.thresholds = start.elapsed().as_secs_f64();
        values
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
            for_each_unmove(self.variant, &board[..pits], true, |pred, _| {
                out.push((self.index.rank(pred) as u32, i))
            });
        }
    }

    /// Solves every layer in memory (small variants, tests).
    pub fn solve_all(&self, progress: Progress) -> Vec<Vec<u8>> {
        let mut layers: Vec<Vec<u8>> = vec![Vec::new(); self.variant.total() as usize + 1];
        for n in self.layers() {
            layers[n] = self.solve_layer(n, &layers, progress);
        }
        layers
    }
}
