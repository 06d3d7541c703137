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

use super::bits::Bits;
use super::endgame::Endgame;
use super::opening::{LockedRegion, RegionKey};
use super::rank_bitmap::RankBitmap;
use super::retrograde::for_each_move_into;
use crate::prefetch::prefetch;

/// "Can end" for every position of a group (keys `keys`, members found by
/// `index`, values `values`) of a locked region, from `seeds`: the
/// positions whose value a move leaving the group keeps on a line that can
/// end.
pub(super) fn locked_group(
    region: &LockedRegion,
    index: &RankBitmap,
    keys: &[RegionKey],
    values: &[i8],
    seeds: Bits,
) -> Bits {
    spread(values, seeds, |chunk, out| {
        region.predecessors_of(index, keys, chunk, out)
    })
}

/// "Can end" for every unlocked board of layer `n` of values `values`,
/// from `seeds`: the boards whose value a move leaving the layer keeps on
/// a line that can end (the retrograde finds them with the exits).
pub(super) fn unlocked_layer(eg: &Endgame, n: usize, values: &[i8], seeds: Bits) -> Bits {
    spread(values, seeds, |chunk, out| eg.unmove_edges(n, chunk, out))
}

/// Spreads "can end" backwards from `seeds` along value-keeping internal
/// moves (a child's value negated is the parent's): `edges(chunk, out)`
/// appends `(parent, child)` for every internal move into `chunk`. The
/// positions still to spread from are kept as bits too ([`Bits::drain`]):
/// as lists, the seeds alone took 4 bytes each (half a layer can be seeds).
fn spread(values: &[i8], seeds: Bits, edges: impl Fn(&[u32], &mut Vec<(u32, u32)>) + Sync) -> Bits {
    let pending = seeds.clone();
    let bits = seeds;
    pending.drain(|children| {
        for_each_move_into(
            children,
            &edges,
            |p| prefetch(&values[p]),
            |p, child| {
                if values[p] == -values[child] && bits.insert(p as u64) {
                    pending.insert(p as u64);
                }
            },
        )
    });
    bits
}
