//! One stone count of the Kiothi tables solved from the counts below it.
//!
//! A move that captures `g` warriors (the ending warrior included, RULES
//! §2.9) leads to a board of `n - g` stones, solved before: its value is
//! known at once, `g - V(child)`. A move that captures nothing stays among
//! the boards of `n` stones, and those moves may cycle. The count is solved
//! as Kpé's layers are (`retrograde/thresholds.rs`), threshold by threshold from `n`
//! down to 1, over the explicit graph of its non-capturing moves (their
//! predecessors cannot be generated backwards through relays, RULES §2.6,
//! so the moves are generated forwards and inverted):
//!
//! - the mover reaches `t` if a capture is worth `t` or more, or a move
//!   leads to a board where the opponent is held to `-t` or less;
//! - the mover is held to `-t` if every capture is worth `-t` or less and
//!   every other move leads to a board where the opponent reaches `t`; a
//!   mover with no move at all (RULES §2.10) loses the `n` warriors left.
//!
//! Both sets only grow as `t` falls, so one counter per board (its moves
//! not yet known to reach `t` for the opponent) serves every threshold and
//! every edge is followed once. What no threshold decides is endless play
//! or an even split: 0 (RULES §0, endless play).

use std::collections::VecDeque;
use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;

use super::tables::{seen_from, KiothiEndgames, Layer, MAX_STONES};
use crate::game::{Game, Side};
use crate::games::kiothi::{KiothiPosition, Phase, Setup, PITS};
use crate::infra::atomics::as_atomic_u32s;
use crate::infra::progress::ProgressBar;

/// No capture among a board's moves.
const NO_CAPTURE: i8 = i8::MIN;

/// Boards per work unit of the move generation.
const CHUNK: usize = 1 << 14;

/// What solving one stone count found.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LayerReport {
    pub stones: usize,
    pub boards: u64,
    /// Moves that capture nothing (the edges of the retrograde's graph).
    pub non_capturing_moves: u64,
    /// Boards whose mover gains (value > 0), splits evenly, loses.
    pub mover_gains: u64,
    pub even: u64,
    pub mover_loses: u64,
    pub seconds: f64,
}

impl KiothiEndgames {
    /// Peak memory of solving the boards of `n` warriors, in bytes: its
    /// move graph (4 bytes a non-capturing move, 7 a board) and the tables
    /// below it. A board has 2.7 to 3.1 non-capturing moves from 10 to 13
    /// warriors, below `0.2 n + 0.8` (measured, `results/BENCHMARKS.md`).
    pub fn memory_estimate(n: usize) -> u64 {
        let boards = Self::layer_size(n);
        let moves = boards * (2 * n as u64 + 8) / 10;
        let below: u64 = (0..n).map(Self::layer_size).sum();
        4 * moves + 7 * boards + below
    }

    /// Solves the next stone count (one more than the largest covered),
    /// at most [`MAX_STONES`]; `bar` counts its boards.
    pub fn solve_next(&mut self, bar: &ProgressBar) -> LayerReport {
        let n = self.layers.len();
        assert!(n <= MAX_STONES, "{n} stones");
        let t0 = std::time::Instant::now();
        let graph = self.move_graph(n, bar);
        let moves = graph.parents.len() as u64;
        let layer = graph.solve(n);
        let count = |f: fn(i8) -> bool| layer.iter().filter(|&&v| f(v)).count() as u64;
        let report = LayerReport {
            stones: n,
            boards: layer.len() as u64,
            non_capturing_moves: moves,
            mover_gains: count(|v| v > 0),
            even: count(|v| v == 0),
            mover_loses: count(|v| v < 0),
            seconds: t0.elapsed().as_secs_f64(),
        };
        self.layers.push(Layer::Solved(layer));
        report
    }

    /// Every board of `n` stones with its moves: the best capture and the
    /// boards its other moves lead to, inverted. The moves are generated
    /// twice, once to count each board's parents and once to list them,
    /// rather than kept between the two: 4 bytes a move instead of 8.
    fn move_graph(&self, n: usize, bar: &ProgressBar) -> MoveGraph {
        let size = self.index.layer_size(n) as usize;
        bar.set_length(2 * size as u64);
        let mut best = vec![0i8; size];
        let mut degree = vec![0u8; size];
        // Each board's number of parents, then (prefix sums) where its
        // parents start, then (as they are listed) where they end.
        let mut ends = vec![0u32; size];
        let counts = as_atomic_u32s(&mut ends);
        best.par_chunks_mut(CHUNK)
            .zip(degree.par_chunks_mut(CHUNK))
            .enumerate()
            .for_each(|(c, (best, degree))| {
                self.for_each_board(n, c * CHUNK, best.len(), |i, children, b| {
                    best[i] = b.0;
                    degree[i] = b.1;
                    for &child in children {
                        counts[child as usize].fetch_add(1, Relaxed);
                    }
                });
                bar.inc(best.len() as u64);
            });
        let mut total = 0u64;
        for e in ends.iter_mut() {
            let here = *e as u64;
            *e = total as u32;
            total += here;
        }
        assert!(total < u32::MAX as u64, "{total} moves in one stone count");
        let mut parents = vec![0u32; total as usize];
        let cursor = as_atomic_u32s(&mut ends);
        let slots = as_atomic_u32s(&mut parents);
        (0..size.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
            let first = c * CHUNK;
            let len = CHUNK.min(size - first);
            self.for_each_board(n, first, len, |i, children, _| {
                for &child in children {
                    let slot = cursor[child as usize].fetch_add(1, Relaxed);
                    slots[slot as usize].store((first + i) as u32, Relaxed);
                }
            });
            bar.inc(len as u64);
        });
        MoveGraph {
            best,
            degree,
            ends,
            parents,
        }
    }

    /// Calls `visit(i, children, (best, degree))` for the `len` boards of
    /// `n` stones from rank `first` on, `i` counted from `first`, with the
    /// ranks of their non-capturing moves' children ([`Self::board_moves`]).
    pub(super) fn for_each_board(
        &self,
        n: usize,
        first: usize,
        len: usize,
        mut visit: impl FnMut(usize, &[u32], (i8, u8)),
    ) {
        let mut pits = [0u8; PITS];
        let mut children = Vec::new();
        self.index.unrank(n, first as u64, &mut pits);
        for i in 0..len {
            children.clear();
            let moves = self.board_moves(n, &pits, &mut children);
            visit(i, &children, moves);
            self.index.next(&mut pits);
        }
    }

    /// One board's moves (South to move): its best capture value
    /// ([`NO_CAPTURE`] if none; `-n` with no move at all, RULES §2.10) and
    /// how many non-capturing moves it has, whose children's ranks (seen
    /// from North, the next mover) are pushed on `children`.
    fn board_moves(&self, n: usize, pits: &[u8; PITS], children: &mut Vec<u32>) -> (i8, u8) {
        let pos = KiothiPosition {
            pits: *pits,
            protected: 0,
            side: Side::South,
            phase: Phase::Play,
            prisons: [0, 0],
            // The setup only fixes the game's total, which no value here
            // depends on.
            setup: Setup::SixPit,
        };
        let mut best = NO_CAPTURE;
        let mut degree = 0u8;
        let _ = pos.for_each_child(|_, child| {
            debug_assert_eq!(child.protected(), 0);
            let view = seen_from(&child.pits(), Side::North);
            let rank = self.index.rank(&view);
            let gain = child.prisons()[0] as usize;
            if gain == 0 {
                children.push(rank as u32);
                degree += 1;
            } else {
                let v = gain as i32 - self.layers[n - gain].values()[rank as usize] as i32;
                best = best.max(v as i8);
            }
            std::ops::ControlFlow::Continue(())
        });
        if degree == 0 && best == NO_CAPTURE {
            best = -(n as i8);
        }
        (best, degree)
    }
}

/// The boards of one stone count: each one's best capture, its number of
/// non-capturing moves, and those moves inverted (who leads to whom).
struct MoveGraph {
    best: Vec<i8>,
    degree: Vec<u8>,
    /// `parents[ends[c - 1]..ends[c]]` (from 0 for the first board): the
    /// boards with a non-capturing move to `c`, once per such move.
    ends: Vec<u32>,
    parents: Vec<u32>,
}

impl MoveGraph {
    fn parents_of(&self, c: usize) -> &[u32] {
        let start = if c == 0 { 0 } else { self.ends[c - 1] };
        &self.parents[start as usize..self.ends[c] as usize]
    }

    /// The value of every board of `n` stones (module doc: thresholds from
    /// `n` down to 1, one counter per board for all of them).
    fn solve(mut self, n: usize) -> Vec<i8> {
        const OPEN: i8 = i8::MIN;
        let size = self.best.len();
        let mut value = vec![OPEN; size];
        // Moves of each board not yet known to lead where the opponent
        // reaches the current threshold (the degrees, counted down).
        let mut left = std::mem::take(&mut self.degree);
        let mut queue = VecDeque::new();
        for t in (1..=n as i8).rev() {
            for p in 0..size {
                if value[p] != OPEN {
                    continue;
                }
                let best = self.best[p];
                if best == t {
                    value[p] = t;
                    queue.push_back(p as u32);
                } else if best == -t && left[p] == 0 {
                    value[p] = -t;
                    queue.push_back(p as u32);
                }
            }
            while let Some(c) = queue.pop_front() {
                let c = c as usize;
                let child_reaches = value[c] > 0;
                for &p in self.parents_of(c) {
                    let p = p as usize;
                    if value[p] != OPEN {
                        continue;
                    }
                    if !child_reaches {
                        // A move to a board where the opponent is held to -t.
                        value[p] = t;
                        queue.push_back(p as u32);
                    } else {
                        left[p] -= 1;
                        if left[p] == 0 && self.best[p] <= -t {
                            value[p] = -t;
                            queue.push_back(p as u32);
                        }
                    }
                }
            }
        }
        for v in &mut value {
            if *v == OPEN {
                *v = 0;
            }
        }
        value
    }
}
