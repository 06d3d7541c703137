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

use std::sync::atomic::{AtomicI8, AtomicU8, Ordering::Relaxed};

use rayon::prelude::*;

/// Value of a position not yet determined.
pub const UNKNOWN: i8 = i8::MIN;
/// Exit value of a position with no move leaving the layer.
pub const NO_EXIT: i8 = i8::MIN;

/// The working state of one layer.
pub struct LayerState {
    pub value: Vec<AtomicI8>,
    pub internal: Vec<AtomicU8>,
    pub exit: Vec<i8>,
}

impl LayerState {
    /// Builds the state from per-position (exit value, internal move count).
    pub fn new(exit: Vec<i8>, internal: Vec<u8>) -> Self {
        LayerState {
            value: (0..exit.len())
                .into_par_iter()
                .map(|_| AtomicI8::new(UNKNOWN))
                .collect(),
            internal: internal.into_par_iter().map(AtomicU8::new).collect(),
            exit,
        }
    }

    /// Final values: every undetermined position is worth 0.
    pub fn into_values(self) -> Vec<i8> {
        self.value
            .into_par_iter()
            .map(|v| match v.into_inner() {
                UNKNOWN => 0,
                v => v,
            })
            .collect()
    }

    /// Admits position `i` with value `v` if it is still undetermined.
    #[inline]
    fn admit(&self, i: usize, v: i8) -> bool {
        self.value[i]
            .compare_exchange(UNKNOWN, v, Relaxed, Relaxed)
            .is_ok()
    }

    /// Positions that enter `W_t` or `L_t` by their own exits at threshold `t`.
    fn seeds(&self, t: i8) -> Vec<u32> {
        (0..self.exit.len())
            .into_par_iter()
            .filter(|&i| {
                if self.value[i].load(Relaxed) != UNKNOWN {
                    return false;
                }
                let exit = self.exit[i];
                if exit == t {
                    self.admit(i, t)
                } else if exit <= -t && self.internal[i].load(Relaxed) == 0 {
                    self.admit(i, -t)
                } else {
                    false
                }
            })
            .map(|i| i as u32)
            .collect()
    }

    /// Passes the news that position `child` got value `v = ±t` to one
    /// predecessor; returns true if the predecessor got its value now.
    #[inline]
    fn inform(&self, pred: usize, v: i8, t: i8) -> bool {
        if self.value[pred].load(Relaxed) != UNKNOWN {
            return false;
        }
        if v < 0 {
            // The child is lost for its mover: the predecessor wins by t.
            self.admit(pred, t)
        } else {
            let left = self.internal[pred].fetch_sub(1, Relaxed) - 1;
            left == 0 && self.exit[pred] <= -t && self.admit(pred, -t)
        }
    }

    /// Runs every threshold from `max_value` down to 1.
    ///
    /// `predecessors(i, out)` must append the index of the parent of every
    /// internal move that leads to `i` (a parent twice if two of its moves do).
    pub fn solve<P>(&self, max_value: i8, predecessors: P, mut on_threshold: impl FnMut(i8, u64))
    where
        P: Fn(usize, &mut Vec<u32>) + Sync,
    {
        for t in (1..=max_value).rev() {
            let mut frontier = self.seeds(t);
            let mut admitted = frontier.len() as u64;
            while !frontier.is_empty() {
                frontier = frontier
                    .par_chunks(1024)
                    .flat_map_iter(|chunk| {
                        let mut preds = Vec::new();
                        let mut next = Vec::new();
                        for &i in chunk {
                            let v = self.value[i as usize].load(Relaxed);
                            preds.clear();
                            predecessors(i as usize, &mut preds);
                            for &p in &preds {
                                if self.inform(p as usize, v, t) {
                                    next.push(p);
                                }
                            }
                        }
                        next
                    })
                    .collect();
                admitted += frontier.len() as u64;
            }
            on_threshold(t, admitted);
        }
    }
}
