//! The exact best K of an opening turn under a separable evaluation (pit
//! and column terms only), without enumerating the placements: a
//! best-first search over the columns, in the enumeration's filling
//! order, whose bound for a partial placement is exact for the columns
//! left: `M_k[r]`, the best score of `r` warriors placed in columns `k..`,
//! by dynamic programming. Complete placements come out of the queue best
//! first. It costs about K × 10 × (n+1)²/2 queue operations for a hand of
//! `n` warriors, whatever the number of placements (C(n+19, 19), which
//! exceeds 10^10 from n = 17 on). The lift set rule of `turn` (a board is
//! counted under the first lift set that leaves it) only involves the
//! first two columns, which are always expanded: the bound there is
//! optimistic, which keeps the order exact.

use std::collections::BinaryHeap;

use crate::games::kiothi::{PITS, ROW};

use super::enumerate::{LiftTables, ScanEvaluator};
use super::topk::{best_first, Entry};
use super::turn::OpeningTurn;

/// Ties at the K-th score kept beyond K, to order them like the
/// enumeration does (by lift set, then placement).
const TIE_SLACK: usize = 4096;

/// A partial placement: columns `0..level/2` of its lift's order filled.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Node {
    bound: i32,
    /// Prefix score (columns filled so far).
    prefix: i32,
    lift: u16,
    /// Next level to fill (a column's first pit; `PITS` when complete).
    level: u8,
    left: u8,
    placed: [u8; PITS],
}

impl Ord for Node {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.bound
            .cmp(&other.bound)
            .then(other.lift.cmp(&self.lift))
            .then(other.placed.cmp(&self.placed))
            .then(self.level.cmp(&other.level))
    }
}

impl PartialOrd for Node {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// `suffix[k][r]`: the best score of `r` warriors in columns `k..ROW` of
/// one lift's order (`i32::MIN` when impossible: never, any `r` fits).
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

/// The `keep` best boards of `turn` under the separable `eval` (whose
/// `board` term must be 0), best first, in the enumeration's total order.
pub fn best_k<E: ScanEvaluator>(turn: &OpeningTurn, eval: &E, keep: usize) -> Vec<Entry> {
    let tables: Vec<LiftTables> = (0..turn.lifts.len())
        .map(|i| LiftTables::new(eval, turn, i))
        .collect();
    let suffixes: Vec<Vec<Vec<i32>>> = tables.iter().map(suffix_best).collect();
    let before = turn.before();
    let mut heap = BinaryHeap::new();
    for (i, t) in tables.iter().enumerate() {
        heap.push(Node {
            bound: suffixes[i][0][t.n],
            prefix: 0,
            lift: i as u16,
            level: 0,
            left: t.n as u8,
            placed: [0; PITS],
        });
    }
    let mut out: Vec<Entry> = Vec::new();
    while let Some(node) = heap.pop() {
        if out.len() >= keep {
            let last = out[keep - 1].score;
            if node.bound < last || out.len() >= keep + TIE_SLACK {
                break;
            }
        }
        let t = &tables[node.lift as usize];
        if node.level as usize == PITS {
            out.push(Entry {
                score: node.prefix,
                lift: node.lift,
                placed: node.placed,
            });
            continue;
        }
        let k = node.level as usize / 2;
        let r = node.left as usize;
        let (p, q) = (t.order[2 * k], t.order[2 * k + 1]);
        let lift = &turn.lifts[node.lift as usize];
        for x in 0..=r {
            // The last column takes every warrior left.
            let ys = if k == ROW - 1 { r - x..=r - x } else { 0..=r - x };
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
    out.sort_unstable_by(best_first);
    out.truncate(keep);
    out
}
