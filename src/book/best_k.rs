//! The exact best K of an opening turn without enumerating every
//! placement: a best-first search over the columns, in the enumeration's
//! filling order, ordered by the separable part of the evaluation (pit and
//! column terms). Its bound for a partial placement is exact for the
//! columns left — `M_k[r]`, the best separable score of `r` warriors in
//! columns `k..`, by dynamic programming — so complete placements come out
//! best separable score first. Each is then scored in full (the
//! evaluator's whole-board term added); the search stops when the next
//! separable bound, plus the largest whole-board term there can be
//! (`ScanEvaluator::board_bound`), cannot reach the K-th best full score:
//! the K kept are then exactly the best K. A separable evaluation stops
//! after K boards; one whose whole-board term is a penalty (E2's: minus
//! South's best capture) after the boards whose separable score is within
//! the K-th best penalty of the top. A cap on the boards examined makes
//! the search stop early on a hard turn (the result says so).
//!
//! The lift set rule of `turn` (a board is counted under the first lift
//! set that leaves it) only involves the first two columns, which are
//! always expanded: the bound there is optimistic, which keeps the order.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::games::kiothi::{PITS, ROW};

use super::enumerate::{LiftTables, ScanEvaluator};
use super::topk::{best_first, Entry};
use super::turn::OpeningTurn;

/// What the bounded search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BestK {
    /// The best boards, best first, in the enumeration's total order.
    pub best: Vec<Entry>,
    /// Boards scored in full.
    pub examined: u64,
    /// Whether `best` is proved to be the best K (false when the cap on
    /// the boards examined stopped the search first).
    pub exact: bool,
}

/// A partial placement: the first `level / 2` columns of its lift's order
/// filled.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Node {
    bound: i32,
    /// Separable score of the columns filled so far.
    prefix: i32,
    lift: u16,
    /// Next level to fill (a column's first pit; `PITS` when complete).
    level: u8,
    left: u8,
    placed: [u8; PITS],
}

impl Ord for Node {
    fn cmp(&self, other: &Self) -> Ordering {
        self.bound
            .cmp(&other.bound)
            .then(other.lift.cmp(&self.lift))
            .then(other.placed.cmp(&self.placed))
            .then(self.level.cmp(&other.level))
    }
}

impl PartialOrd for Node {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A kept entry, the worst on top of the heap.
#[derive(PartialEq, Eq)]
struct Kept(Entry);

impl Ord for Kept {
    fn cmp(&self, other: &Self) -> Ordering {
        best_first(&self.0, &other.0)
    }
}

impl PartialOrd for Kept {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// `suffix[k][r]`: the best separable score of `r` warriors in columns
/// `k..ROW` of one lift's order (`i32::MIN` when impossible).
fn suffix_best(t: &LiftTables) -> Vec<Vec<i32>> {
    let n = t.n;
    let mut suffix = vec![vec![i32::MIN; n + 1]; ROW + 1];
    suffix[ROW][0] = 0;
    for k in (0..ROW).rev() {
        for r in 0..=n {
            let mut best = i32::MIN;
            for x in 0..=r {
                for y in 0..=r - x {
                    let rest = suffix[k + 1][r - x - y];
                    if rest != i32::MIN {
                        best = best.max(t.column_score(k, x, y) + rest);
                    }
                }
            }
            suffix[k][r] = best;
        }
    }
    suffix
}

/// The `keep` best boards of `turn` under `eval`, examining at most
/// `limit` boards in full. `eval` must bound its whole-board term.
pub fn best_k<E: ScanEvaluator>(turn: &OpeningTurn, eval: &E, keep: usize, limit: u64) -> BestK {
    let all: Vec<usize> = (0..turn.lifts.len()).collect();
    best_k_of_lifts(turn, eval, &all, keep, limit)
}

/// The `keep` best boards of each lift set of `turn` (boards counted
/// under it, see `turn`), best first: a shortlist that every way of
/// lifting enters.
pub fn best_k_per_lift<E: ScanEvaluator>(
    turn: &OpeningTurn,
    eval: &E,
    keep: usize,
    limit: u64,
) -> BestK {
    let mut out = BestK {
        best: Vec::new(),
        examined: 0,
        exact: true,
    };
    for i in 0..turn.lifts.len() {
        let one = best_k_of_lifts(turn, eval, &[i], keep, limit);
        out.best.extend(one.best);
        out.examined += one.examined;
        out.exact &= one.exact;
    }
    out.best.sort_unstable_by(best_first);
    out
}

/// `best_k` over the lift sets listed in `lifts` only.
pub fn best_k_of_lifts<E: ScanEvaluator>(
    turn: &OpeningTurn,
    eval: &E,
    lifts: &[usize],
    keep: usize,
    limit: u64,
) -> BestK {
    let extra = eval
        .board_bound()
        .expect("best_k needs an evaluator whose whole-board term is bounded");
    // Tables and bounds of the listed lift sets only.
    let tables: Vec<Option<LiftTables>> = (0..turn.lifts.len())
        .map(|i| lifts.contains(&i).then(|| LiftTables::new(eval, turn, i)))
        .collect();
    let suffixes: Vec<Vec<Vec<i32>>> = tables
        .iter()
        .map(|t| t.as_ref().map_or_else(Vec::new, suffix_best))
        .collect();
    let before = turn.before();
    let mut heap = BinaryHeap::new();
    for (i, t) in tables.iter().enumerate() {
        let Some(t) = t else { continue };
        heap.push(Node {
            bound: suffixes[i][0][t.n],
            prefix: 0,
            lift: i as u16,
            level: 0,
            left: t.n as u8,
            placed: [0; PITS],
        });
    }
    let mut kept: BinaryHeap<Kept> = BinaryHeap::new();
    let mut examined = 0u64;
    let mut exact = true;
    while let Some(node) = heap.pop() {
        if kept.len() >= keep {
            let worst = kept.peek().map_or(i32::MIN, |k| k.0.score);
            if node.bound.saturating_add(extra) < worst {
                break;
            }
        }
        let t = tables[node.lift as usize]
            .as_ref()
            .expect("nodes come from listed lift sets");
        if node.level as usize == PITS {
            if examined >= limit {
                exact = false;
                break;
            }
            examined += 1;
            let mut board = t.base;
            for (b, &x) in board.iter_mut().zip(node.placed.iter()) {
                *b += x;
            }
            let e = Entry {
                score: node.prefix + eval.board(&board),
                lift: node.lift,
                placed: node.placed,
            };
            if kept.len() < keep {
                kept.push(Kept(e));
            } else if kept
                .peek()
                .is_some_and(|w| best_first(&e, &w.0) == Ordering::Less)
            {
                kept.pop();
                kept.push(Kept(e));
            }
            continue;
        }
        let k = node.level as usize / 2;
        let r = node.left as usize;
        let (p, q) = (t.order[2 * k], t.order[2 * k + 1]);
        let lift = &turn.lifts[node.lift as usize];
        for x in 0..=r {
            // The last column takes every warrior left.
            let ys = if k == ROW - 1 {
                r - x..=r - x
            } else {
                0..=r - x
            };
            for y in ys {
                let mut placed = node.placed;
                placed[p] = x as u8;
                placed[q] = y as u8;
                if k == 1 && lift.n == 2 && !lift.counts(&before, &placed) {
                    continue;
                }
                let prefix = node.prefix + t.column_score(k, x, y);
                let left = r - x - y;
                let rest = suffixes[node.lift as usize][k + 1][left];
                if rest == i32::MIN {
                    continue;
                }
                heap.push(Node {
                    bound: prefix + rest,
                    prefix,
                    lift: node.lift,
                    level: (2 * k + 2) as u8,
                    left: left as u8,
                    placed,
                });
            }
        }
    }
    let mut best: Vec<Entry> = kept.into_iter().map(|k| k.0).collect();
    best.sort_unstable_by(best_first);
    BestK {
        best,
        examined,
        exact,
    }
}
