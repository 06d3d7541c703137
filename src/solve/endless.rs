//! Positions whose perfect play never ends.
//!
//! A move *keeps the value* of a position when it is optimal: its capture
//! minus the child's value equals the position's value. Perfect play from a
//! position *can end* when some line of value-keeping moves reaches the end
//! of the game (RULES §1.5); otherwise every perfect line goes on forever
//! (it repeats, and the stones left on the board count for nobody, RULES §0),
//! whatever the two players choose among their optimal moves.
//!
//! "Can end" is a least fixpoint computed like the values: layer by layer
//! (stone count) from the smallest, seeded by the end of the game and by
//! value-keeping captures into a position that can end, then spread
//! backwards along value-keeping moves found by un-moves.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::endgame::{Endgame, LayerValues};
use super::opening::{region_key, LockedRegion};
use super::unmove::for_each_unmove;
use crate::games::kpe::KpePosition;
use crate::progress::Progress;
use crate::{Game, Side};

/// Positions handled per parallel task when scanning a layer.
const CHUNK: u64 = 1 << 14;

/// A set of position indices, one bit each, shared by the threads.
pub struct Bits(Vec<AtomicU64>);

impl Bits {
    pub fn new(len: u64) -> Self {
        Bits((0..len.div_ceil(64)).map(|_| AtomicU64::new(0)).collect())
    }

    #[inline]
    pub fn get(&self, i: u64) -> bool {
        self.0[(i / 64) as usize].load(Relaxed) & (1 << (i % 64)) != 0
    }

    /// Sets bit `i`; true if it was not set before.
    #[inline]
    pub fn insert(&self, i: u64) -> bool {
        let bit = 1 << (i % 64);
        self.0[(i / 64) as usize].fetch_or(bit, Relaxed) & bit == 0
    }
}

/// For every position of a solved variant: can perfect play from it end?
pub struct Endings {
    /// By stone count: unlocked boards relative to the mover, in rank order.
    unlocked: Vec<Bits>,
    /// By group of the locked region (ascending stone count), in key order.
    locked: Vec<Bits>,
}

impl Endings {
    /// Computes the fixpoint over the endgame database (`layers`, every
    /// layer readable) and over a locked region solved on top of it.
    pub fn compute(
        eg: &Endgame,
        layers: &impl LayerValues,
        region: &LockedRegion,
        progress: Progress,
    ) -> Self {
        let mut unlocked: Vec<Bits> = Vec::new();
        for n in 0..=eg.variant.total() as usize {
            let bits = if n % 2 == 0 {
                unlocked_layer(eg, n, layers, &unlocked, progress)
            } else {
                Bits::new(0)
            };
            unlocked.push(bits);
        }
        let mut endings = Endings {
            unlocked,
            locked: Vec::new(),
        };
        for g in 0..region.group_count() {
            let bits = endings.solve_locked_group(eg, layers, region, g);
            endings.locked.push(bits);
        }
        endings
    }

    /// Unlocked boards of `n` stones whose perfect play can end.
    pub fn unlocked_layer(&self, n: usize) -> &Bits {
        &self.unlocked[n]
    }

    /// Positions of group `g` of the region whose perfect play can end.
    pub fn locked_group(&self, g: usize) -> &Bits {
        &self.locked[g]
    }

    /// Whether perfect play from `pos` can end; `None` if `pos` is locked
    /// and not in the region.
    pub fn can_end(&self, eg: &Endgame, region: &LockedRegion, pos: &KpePosition) -> Option<bool> {
        let rel = pos.relative();
        if is_unlocked(&rel) {
            let n = rel.board_total() as usize;
            return Some(self.unlocked[n].get(eg.index.rank(rel.pits())));
        }
        let (g, i) = region.locate(region_key(&rel))?;
        Some(self.locked[g].get(i as u64))
    }

    /// Whether a child reached by a value-keeping move (exit of its
    /// layer or group) can end.
    fn child_can_end(&self, eg: &Endgame, region: &LockedRegion, child: &KpePosition) -> bool {
        self.can_end(eg, region, child)
            .expect("the region holds every locked child")
    }

    fn solve_locked_group(
        &self,
        eg: &Endgame,
        layers: &impl LayerValues,
        region: &LockedRegion,
        g: usize,
    ) -> Bits {
        let values = region.group_values(g);
        let bits = Bits::new(values.len() as u64);
        let seeds: Vec<u32> = (0..values.len())
            .into_par_iter()
            .filter(|&i| {
                let pos = region.position(g, i);
                let v = values[i];
                let ends = pos.legal_mask() == 0
                    || any_move(&pos, |child, gained| {
                        let keeps = gained as i8 - value_of(eg, layers, region, child) == v;
                        let leaves = gained > 0 || is_unlocked(child);
                        keeps && leaves && self.child_can_end(eg, region, child)
                    });
                ends && bits.insert(i as u64)
            })
            .map(|i| i as u32)
            .collect();
        spread(&bits, seeds, |i, out| {
            let target = values[i as usize];
            region.for_each_predecessor(g, i as usize, |p| {
                if values[p] == -target {
                    out.push(p as u32);
                }
            });
        });
        bits
    }
}

fn is_unlocked(pos: &KpePosition) -> bool {
    pos.is_unlocked(Side::South) && pos.is_unlocked(Side::North)
}

/// Value of a child for its mover, from the database or the region.
fn value_of(
    eg: &Endgame,
    layers: &impl LayerValues,
    region: &LockedRegion,
    child: &KpePosition,
) -> i8 {
    if is_unlocked(child) {
        eg.probe(layers, child)
    } else {
        region
            .value(child)
            .expect("the region holds every locked child")
    }
}

/// Whether some legal move of `pos` satisfies `f(child, stones gained)`.
fn any_move(pos: &KpePosition, mut f: impl FnMut(&KpePosition, u32) -> bool) -> bool {
    let mut mask = pos.legal_mask();
    while mask != 0 {
        let pit = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        let (child, gained) = pos.sow(pit);
        if f(&child, gained) {
            return true;
        }
    }
    false
}

/// Spreads "can end" backwards from `frontier`: `preds(i, out)` appends
/// the positions whose value-keeping move leads to `i`.
fn spread(bits: &Bits, mut frontier: Vec<u32>, preds: impl Fn(u32, &mut Vec<u32>) + Sync) {
    while !frontier.is_empty() {
        frontier = frontier
            .par_chunks(1024)
            .flat_map_iter(|chunk| {
                let mut found = Vec::new();
                let mut next = Vec::new();
                for &i in chunk {
                    found.clear();
                    preds(i, &mut found);
                    next.extend(found.iter().filter(|&&p| bits.insert(p as u64)));
                }
                next
            })
            .collect();
    }
}

/// "Can end" for every unlocked board of layer `n`, smaller layers done.
fn unlocked_layer(
    eg: &Endgame,
    n: usize,
    layers: &impl LayerValues,
    done: &[Bits],
    progress: Progress,
) -> Bits {
    let size = eg.index.layer_size(n);
    let pits = eg.variant.pits();
    let bar = progress.bar(size, format!("endings {n}"));
    let bits = Bits::new(size);
    let seeds: Vec<u32> = (0..size.div_ceil(CHUNK))
        .into_par_iter()
        .flat_map_iter(|c| {
            let start = c * CHUNK;
            let len = CHUNK.min(size - start);
            let mut board = [0u8; 16];
            eg.index.unrank(n, start, &mut board[..pits]);
            let mut seeds = Vec::new();
            for i in start..start + len {
                let pos = eg.position(&board[..pits]);
                let v = layers.value(n, i);
                let ends = pos.legal_mask() == 0
                    || any_move(&pos, |child, gained| {
                        if gained == 0 {
                            return false;
                        }
                        let rel = child.relative();
                        let rank = eg.index.rank(rel.pits());
                        let m = n - gained as usize;
                        gained as i8 - layers.value(m, rank) == v && done[m].get(rank)
                    });
                if ends && bits.insert(i) {
                    seeds.push(i as u32);
                }
                eg.index.next(&mut board[..pits]);
            }
            bar.inc(len);
            seeds
        })
        .collect();
    spread(&bits, seeds, |i, out| {
        let target = layers.value(n, i as u64);
        let mut board = [0u8; 16];
        eg.index.unrank(n, i as u64, &mut board[..pits]);
        for_each_unmove(eg.variant, &board[..pits], true, |pred, _| {
            let p = eg.index.rank(pred);
            if layers.value(n, p) == -target {
                out.push(p as u32);
            }
        });
    });
    bar.finish_and_clear();
    bits
}
