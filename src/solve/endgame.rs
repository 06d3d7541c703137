//! The endgame database: the value of every position in which both players
//! are unlocked, layer by layer (stones on the board), smallest first.

use rayon::prelude::*;

use super::index::BoardIndex;
use crate::progress::Progress;
use std::sync::atomic::AtomicU32;

use super::retrograde::{pack_state, LayerState, NO_EXIT};
use super::unmove::for_each_unmove;
use crate::games::kpe::{KpePosition, KpeVariant};
use crate::Side;

/// Positions handled per parallel task when scanning a layer.
const CHUNK: u64 = 1 << 14;

/// Read access to solved layers.
pub trait LayerValues: Sync {
    /// Value of board `index` of layer `n` (boards of `n` stones relative
    /// to the mover). The layer must be solved and readable.
    fn value(&self, n: usize, index: u64) -> i8;
}

impl LayerValues for Vec<Vec<i8>> {
    fn value(&self, n: usize, index: u64) -> i8 {
        self[n][index as usize]
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
        let rel = pos.relative();
        let n: usize = rel.pits().iter().map(|&c| c as usize).sum();
        layers.value(n, self.index.rank(rel.pits()))
    }

    /// The value of the child reached by a capture of `gained` stones.
    fn capture_option(&self, layers: &impl LayerValues, child: &KpePosition, gained: u32) -> i8 {
        gained as i8 - self.probe(layers, child)
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
        let words: Vec<AtomicU32> = (0..size.div_ceil(CHUNK))
            .into_par_iter()
            .flat_map_iter(|c| {
                let start = c * CHUNK;
                let len = CHUNK.min(size - start) as usize;
                let mut words = Vec::with_capacity(len);
                let mut board = [0u8; 16];
                self.index.unrank(n, start, &mut board[..pits]);
                for _ in 0..len {
                    let pos = self.position(&board[..pits]);
                    let (e, k) = self.classify_moves(&pos, n, layers);
                    words.push(pack_state(e, k));
                    self.index.next(&mut board[..pits]);
                }
                bar.inc(len as u64);
                words
            })
            .collect();
        LayerState::from_words(words)
    }

    /// (best value leaving the layer, number of moves staying in it).
    #[inline]
    fn classify_moves(&self, pos: &KpePosition, n: usize, layers: &impl LayerValues) -> (i8, u8) {
        let mut mask = pos.legal_mask();
        if mask == 0 {
            // RULES §1.5: the opponent sweeps the n stones of their row.
            return (-(n as i8), 0);
        }
        let mut exit = NO_EXIT;
        let mut internal = 0u8;
        while mask != 0 {
            let pit = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let (child, gained) = pos.sow(pit);
            if gained > 0 {
                exit = exit.max(self.capture_option(layers, &child, gained));
            } else {
                internal += 1;
            }
        }
        (exit, internal)
    }

    /// Solves layer `n`, all smaller layers being solved in `layers`.
    pub fn solve_layer(&self, n: usize, layers: &impl LayerValues, progress: Progress) -> Vec<i8> {
        let size = self.index.layer_size(n);
        assert!(size <= u32::MAX as u64, "layer {n} has {size} positions");
        let bar = progress.bar(size, format!("layer {n}"));
        bar.set_message("exits");
        let state = self.initial_state(n, layers, &bar);
        let pits = self.variant.pits();
        bar.set_position(0);
        bar.set_length(n as u64 / 2);
        bar.set_message("thresholds");
        state.solve(
            n as i8,
            |chunk, out| {
                let mut board = [0u8; 16];
                for &i in chunk {
                    self.index.unrank(n, i as u64, &mut board[..pits]);
                    for_each_unmove(self.variant, &board[..pits], true, |pred, _| {
                        out.push((self.index.rank(pred) as u32, i))
                    });
                }
            },
            |_, _| bar.inc(1),
        );
        bar.finish_and_clear();
        state.into_values()
    }

    /// Solves every layer in memory (small variants, tests).
    pub fn solve_all(&self, progress: Progress) -> Vec<Vec<i8>> {
        let mut layers: Vec<Vec<i8>> = vec![Vec::new(); self.variant.total() as usize + 1];
        for n in self.layers() {
            layers[n] = self.solve_layer(n, &layers, progress);
        }
        layers
    }
}
