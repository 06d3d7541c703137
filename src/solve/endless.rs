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
//! backwards along value-keeping moves found by un-moves. The seeds come
//! with the exits: the retrograde keeps, beside each position's best exit,
//! its best exit into a position that can end, and a position is a seed
//! when that exit equals its value (every exit is worth at most the value). The solver runs
//! it right after each layer's (and each locked group's) values, and the
//! database stores the bit in the low bit of every entry (`db.rs`), so
//! queries and statistics read it instead of recomputing it.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::endgame::Endgame;
use super::opening::{LockedRegion, RegionKey};
use super::retrograde::prefetch;

/// A set of position indices, one bit each, shared by the threads.
#[derive(Debug)]
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

/// "Can end" for every position of group `g` (keys `keys`) of a locked region whose
/// values are solved up to `g`, from `seeds`: the positions whose value a
/// move leaving the group keeps on a line that can end.
pub(super) fn locked_group(
    region: &LockedRegion,
    g: usize,
    keys: &[RegionKey],
    seeds: Vec<u32>,
) -> Bits {
    let values = region.group_values(g);
    spread(values, seeds, |chunk, out| {
        region.predecessors_of(g, keys, chunk, out)
    })
}

/// "Can end" for every unlocked board of layer `n` of values `values`,
/// from `seeds`: the boards whose value a move leaving the layer keeps on
/// a line that can end (the retrograde finds them with the exits).
pub(super) fn unlocked_layer(eg: &Endgame, n: usize, values: &[i8], seeds: Vec<u32>) -> Bits {
    spread(values, seeds, |chunk, out| eg.unmove_edges(n, chunk, out))
}

/// Spreads "can end" backwards from `seeds` along value-keeping internal
/// moves (a child's value negated is the parent's): `edges(chunk, out)`
/// appends `(parent, child)` for every internal move into `chunk`.
fn spread(
    values: &[i8],
    seeds: Vec<u32>,
    edges: impl Fn(&[u32], &mut Vec<(u32, u32)>) + Sync,
) -> Bits {
    let bits = Bits::new(values.len() as u64);
    for &i in &seeds {
        bits.insert(i as u64);
    }
    let mut frontier = seeds;
    while !frontier.is_empty() {
        frontier = frontier
            .par_chunks(1024)
            .flat_map_iter(|chunk| {
                // Every move into the chunk first, each parent's value
                // prefetched, then the test: the cache misses overlap.
                let mut moves = Vec::new();
                edges(chunk, &mut moves);
                for &(p, _) in &moves {
                    prefetch(&values[p as usize]);
                }
                let mut next = Vec::new();
                for &(p, child) in &moves {
                    if values[p as usize] == -values[child as usize] && bits.insert(p as u64) {
                        next.push(p);
                    }
                }
                next
            })
            .collect();
    }
    bits
}
