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
//! backwards along value-keeping moves. The retrograde keeps, beside each
//! position's best exit, its best move known to reach a position that can
//! end (its "ending exit"): the captures, with the exits, and the internal
//! moves as it tells each predecessor a child's value, if the child is
//! known to be able to end by then (`retrograde/thresholds.rs`). A position can end
//! when that move equals its value (every move is worth at most the
//! value). What is left is spread here by un-moves: from the positions
//! worth 0, which the retrograde never passes on, and from the few found
//! able to end after their predecessors were told. The solver runs it
//! right after each layer's (and each locked group's) values, and the
//! database stores the bit in the low bit of every entry (`entry.rs`), so
//! queries and statistics read it instead of recomputing it.
//!
//! Learnt during the retrograde, "can end" saves the un-moves of every
//! position that can end, which a spread from all of them would generate
//! a second time (about 6 s of the standard solve, `results/BENCHMARKS.md`).

use crate::infra::prefetch::prefetch;
use crate::retrograde::bits::Bits;
use crate::retrograde::thresholds::{for_each_move_into, Endings};

/// Completes "can end" from what the retrograde learnt (`endings`),
/// spreading it backwards from the positions whose predecessors have not
/// been told along value-keeping internal moves (a child's value negated
/// is the parent's): `edges(chunk, out)` appends `(parent, child)` for
/// every internal move into `chunk`. The positions still to spread from
/// are kept as bits too ([`Bits::drain`]): as lists, the seeds alone took
/// 4 bytes each (half a layer can be seeds).
pub(crate) fn spread(
    values: &[i8],
    endings: Endings,
    edges: impl Fn(&[u32], &mut Vec<(u32, u32)>) + Sync,
) -> Bits {
    let Endings {
        known: bits,
        untold: pending,
    } = endings;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infra::rng::Rng;
    use crate::retrograde::thresholds::random_layer::Layer;
    use crate::retrograde::thresholds::{pack_state, LayerState, NO_EXIT};

    impl Layer {
        /// Values by every threshold's attractors to a fixpoint, one
        /// position at a time (`retrograde/thresholds.rs`'s definition).
        fn naive_values(&self, max: i8) -> Vec<i8> {
            let mut value: Vec<Option<i8>> = vec![None; self.exit.len()];
            for t in (1..=max).rev().filter(|t| t % 2 == 0) {
                let mut changed = true;
                while changed {
                    changed = false;
                    for i in 0..value.len() {
                        if value[i].is_some() {
                            continue;
                        }
                        let children = || self.moves[i].iter().map(|&c| value[c as usize]);
                        let exit = self.exit[i];
                        if (exit != NO_EXIT && exit >= t)
                            || children().any(|v| v.is_some_and(|v| v <= -t))
                        {
                            value[i] = Some(t);
                        } else if exit <= -t && children().all(|v| v.is_some_and(|v| v >= t)) {
                            value[i] = Some(-t);
                        } else {
                            continue;
                        }
                        changed = true;
                    }
                }
            }
            value.into_iter().map(|v| v.unwrap_or(0)).collect()
        }

        /// "Can end" by its definition to a fixpoint (the module's).
        fn naive_can_end(&self, value: &[i8]) -> Vec<bool> {
            let mut can: Vec<bool> = (0..value.len())
                .map(|i| self.ending[i] == value[i])
                .collect();
            let mut changed = true;
            while changed {
                changed = false;
                for i in 0..value.len() {
                    if !can[i]
                        && self.moves[i]
                            .iter()
                            .any(|&c| -value[c as usize] == value[i] && can[c as usize])
                    {
                        can[i] = true;
                        changed = true;
                    }
                }
            }
            can
        }

        /// Values and "can end" as the solver finds them.
        fn solved(&self, max: i8, keep_words: bool) -> (Vec<i8>, Vec<bool>) {
            let size = self.exit.len();
            let mut parents = vec![Vec::new(); size];
            for (p, moves) in self.moves.iter().enumerate() {
                for &c in moves {
                    parents[c as usize].push(p as u32);
                }
            }
            let edges = |chunk: &[u32], out: &mut Vec<(u32, u32)>| {
                for &c in chunk {
                    out.extend(parents[c as usize].iter().map(|&p| (p, c)));
                }
            };
            let words = (0..size)
                .map(|i| pack_state(self.exit[i], self.moves[i].len() as u8, self.ending[i]))
                .collect();
            let mut state = LayerState::from_words(words);
            state.solve(max, edges, |_, _| {});
            let (values, endings) = match keep_words {
                true => {
                    let (values, endings, _) = state.into_values_keeping_words();
                    (values, endings)
                }
                false => state.into_values(),
            };
            let can = spread(&values, endings, edges);
            let can = (0..size).map(|i| can.get(i as u64)).collect();
            (values, can)
        }
    }

    /// The retrograde with "can end" learnt on the way, completed by the
    /// spread, against both definitions run to a fixpoint, on random
    /// layers: small ones many times, and a few large enough to be shared
    /// between the threads (slices of 65,536 positions).
    #[test]
    fn values_and_endings_equal_the_naive_fixpoints_on_random_layers() {
        let mut rng = Rng::new(2026);
        let mut ending = 0;
        for (round, size) in (0..400)
            .map(|r| (r, 2 + r % 60))
            .chain((400..403).map(|r| (r, 200_000)))
        {
            let max = 2 * (1 + rng.below(4)) as i8;
            let layer = Layer::random(&mut rng, size, max);
            let values = layer.naive_values(max);
            let can = layer.naive_can_end(&values);
            let (got_values, got_can) = layer.solved(max, round % 2 == 0);
            assert_eq!(got_values, values, "round {round}: values");
            assert_eq!(got_can, can, "round {round}: can end");
            ending += can.iter().filter(|&&c| c).count();
        }
        assert!(ending > 0);
    }
}
