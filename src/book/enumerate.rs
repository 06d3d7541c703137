//! The exhaustive scan of an opening turn: every placement of every lift
//! set, each distinct board scored once (under the first lift set that
//! leaves it, see `turn`), the best K kept with a histogram of all scores.
//!
//! Pits are filled column by column (a pit and the pit opposite it in
//! turn), the lifted pits' columns first, the last pit taking what is
//! left; the score is built along the way from the evaluator's pit and
//! column tables, so that a board costs a few table reads plus the
//! evaluator's whole-board term. The work is split by lift set and by the
//! warriors placed in the first column, and run on rayon's threads.

use rayon::prelude::*;

use crate::games::kiothi::{opposite, PITS, ROW};
use crate::infra::progress::ProgressBar;

use super::score::MAX_COUNT;
use super::topk::{Entry, Histogram, TopK};
use super::turn::{Lift, OpeningTurn};

/// A score the enumeration builds pit by pit, for the mover of the turn.
pub trait ScanEvaluator: Sync {
    /// Term of pit `pit` holding `count` warriors.
    fn pit(&self, pit: usize, count: u8) -> i32;
    /// Term of column `j` (South pit `j`, North pit `19 - j`).
    fn column(&self, j: usize, south: u8, north: u8) -> i32;
    /// Term of the whole board (0 for a separable evaluator).
    fn board(&self, board: &[u8; PITS]) -> i32;

    /// An upper bound of `board` over every board, if one is known (the
    /// bounded best K needs it); 0 for a separable evaluator.
    fn board_bound(&self) -> Option<i32>;

    /// The full score of a board.
    fn score(&self, board: &[u8; PITS]) -> i32 {
        let mut s = self.board(board);
        for (p, &c) in board.iter().enumerate() {
            s += self.pit(p, c);
        }
        for j in 0..ROW {
            s += self.column(j, board[j], board[opposite(j)]);
        }
        s
    }
}

/// What a scan found.
#[derive(Clone, Debug)]
pub struct Found {
    /// Best entries, best first.
    pub best: Vec<Entry>,
    pub histogram: Histogram,
    /// Distinct boards scored.
    pub boards: u64,
    /// Moves that leave a board counted under another lift set.
    pub repeats: u64,
}

/// One lift set's tables in filling order: the evaluator's pit and
/// column terms by warriors placed (the lifted board's counts included).
pub struct LiftTables {
    /// Warriors to place.
    pub n: usize,
    /// The board once the lift set is lifted.
    pub base: [u8; PITS],
    /// Pits in filling order: columns, the lifted pits' first, each
    /// column's pits one after the other (a lifted pit first).
    pub order: [usize; PITS],
    /// Pit terms per level, by warriors placed.
    pit: Vec<Vec<i32>>,
    /// Column terms per column in order, by warriors placed in its first
    /// and second pit (row-major, `n + 1` wide).
    column: Vec<Vec<i32>>,
}

impl LiftTables {
    pub fn new<E: ScanEvaluator>(eval: &E, turn: &OpeningTurn, index: usize) -> LiftTables {
        let lift = turn.lifts[index];
        let base = turn.lifted_board(&lift);
        let n = lift.warriors as usize;
        let [a, b] = lift.pits.map(usize::from);
        let mut cols: Vec<usize> = vec![a.min(opposite(a))];
        if b != a {
            cols.push(b.min(opposite(b)));
        }
        let rest: Vec<usize> = (0..ROW).filter(|j| !cols.contains(j)).collect();
        cols.extend(rest);
        let mut order = [0; PITS];
        for (k, &j) in cols.iter().enumerate() {
            let (first, second) = if opposite(j) == a || opposite(j) == b {
                (opposite(j), j)
            } else {
                (j, opposite(j))
            };
            order[2 * k] = first;
            order[2 * k + 1] = second;
        }
        let count = |p: usize, x: usize| (base[p] as usize + x).min(MAX_COUNT) as u8;
        let pit = order
            .iter()
            .map(|&p| (0..=n).map(|x| eval.pit(p, count(p, x))).collect())
            .collect();
        let column = (0..ROW)
            .map(|k| {
                let (p, q) = (order[2 * k], order[2 * k + 1]);
                let j = p.min(q);
                let mut t = vec![0; (n + 1) * (n + 1)];
                for x in 0..=n {
                    for y in 0..=n - x {
                        let (s, no) = if p < ROW {
                            (count(p, x), count(q, y))
                        } else {
                            (count(q, y), count(p, x))
                        };
                        t[x * (n + 1) + y] = eval.column(j, s, no);
                    }
                }
                t
            })
            .collect();
        LiftTables {
            n,
            base,
            order,
            pit,
            column,
        }
    }

    /// Pit term of the pit of `level` receiving `x`.
    #[inline(always)]
    pub fn pit_score(&self, level: usize, x: usize) -> i32 {
        self.pit[level][x]
    }

    /// Column term of the `k`-th column in order receiving `x` in its
    /// first pit and `y` in its second.
    #[inline(always)]
    pub fn pair_score(&self, k: usize, x: usize, y: usize) -> i32 {
        self.column[k][x * (self.n + 1) + y]
    }

    /// Both pit terms and the column term of the `k`-th column.
    #[inline(always)]
    pub fn column_score(&self, k: usize, x: usize, y: usize) -> i32 {
        self.pit[2 * k][x] + self.pit[2 * k + 1][y] + self.pair_score(k, x, y)
    }
}

/// One lift set, ready to enumerate.
struct Plan<'a, E> {
    eval: &'a E,
    index: u16,
    lift: Lift,
    before: [u8; PITS],
    t: LiftTables,
}

/// One task's running state.
struct Worker {
    top: TopK,
    histogram: Histogram,
    boards: u64,
    repeats: u64,
    board: [u8; PITS],
    placed: [u8; PITS],
}

fn ways(n: usize, k: usize) -> u64 {
    super::count::ways(n as u32, k as u32)
}

impl<'a, E: ScanEvaluator> Plan<'a, E> {
    fn new(eval: &'a E, turn: &OpeningTurn, index: usize) -> Self {
        Plan {
            eval,
            index: index as u16,
            lift: turn.lifts[index],
            before: turn.before(),
            t: LiftTables::new(eval, turn, index),
        }
    }

    /// Places `x` in the pit of `level` and returns the score with its
    /// pit term (and its column term on a column's second pit).
    #[inline(always)]
    fn place(&self, w: &mut Worker, level: usize, x: usize, acc: i32) -> i32 {
        let p = self.t.order[level];
        w.placed[p] = x as u8;
        w.board[p] = self.t.base[p] + x as u8;
        let mut s = acc + self.t.pit_score(level, x);
        if level & 1 == 1 {
            let first = w.placed[self.t.order[level - 1]] as usize;
            s += self.t.pair_score(level / 2, first, x);
        }
        s
    }

    fn go(&self, w: &mut Worker, level: usize, left: usize, acc: i32) {
        if level == PITS - 2 {
            self.last_column(w, left, acc);
            return;
        }
        for x in 0..=left {
            let s = self.place(w, level, x, acc);
            if level == 2 && self.lift.n == 2 && !self.lift.counts(&self.before, &w.placed) {
                w.repeats += ways(left - x, PITS - 3);
                continue;
            }
            self.go(w, level + 1, left - x, s);
        }
    }

    #[inline(always)]
    fn last_column(&self, w: &mut Worker, left: usize, acc: i32) {
        for x in 0..=left {
            let s = self.place(w, PITS - 2, x, acc);
            let s = self.place(w, PITS - 1, left - x, s);
            let score = s + self.eval.board(&w.board);
            w.boards += 1;
            w.histogram.add(score);
            if score >= w.top.threshold() {
                w.top.offer(Entry {
                    score,
                    lift: self.index,
                    placed: w.placed,
                });
            }
        }
    }

    /// Enumerates the placements with `x0`, `x1` in the first two pits.
    fn run(&self, keep: usize, x0: usize, x1: usize) -> Worker {
        let mut w = Worker {
            top: TopK::new(keep),
            histogram: Histogram::new(),
            boards: 0,
            repeats: 0,
            board: self.t.base,
            placed: [0; PITS],
        };
        let s = self.place(&mut w, 0, x0, 0);
        let s = self.place(&mut w, 1, x1, s);
        self.go(&mut w, 2, self.t.n - x0 - x1, s);
        w
    }
}

/// Scans every move of `turn` with `eval`, keeping the `keep` best.
pub fn enumerate<E: ScanEvaluator>(
    turn: &OpeningTurn,
    eval: &E,
    keep: usize,
    bar: &ProgressBar,
) -> Found {
    let plans: Vec<Plan<E>> = (0..turn.lifts.len())
        .map(|i| Plan::new(eval, turn, i))
        .collect();
    let tasks: Vec<(usize, usize, usize)> = plans
        .iter()
        .enumerate()
        .flat_map(|(i, p)| {
            let n = p.t.n;
            (0..=n).flat_map(move |x0| (0..=n - x0).map(move |x1| (i, x0, x1)))
        })
        .collect();
    let total: u64 = plans
        .iter()
        .fold(0u64, |a, p| a.saturating_add(ways(p.t.n, PITS)));
    bar.set_length(total);
    let merged = tasks
        .into_par_iter()
        .map(|(i, x0, x1)| {
            let p = &plans[i];
            let w = p.run(keep, x0, x1);
            bar.inc(ways(p.t.n - x0 - x1, PITS - 2));
            w
        })
        .reduce_with(|mut a, b| {
            a.top.merge(b.top);
            a.histogram.merge(&b.histogram);
            a.boards += b.boards;
            a.repeats += b.repeats;
            a
        });
    bar.finish_and_clear();
    match merged {
        Some(w) => Found {
            best: w.top.into_sorted(),
            histogram: w.histogram,
            boards: w.boards,
            repeats: w.repeats,
        },
        None => Found {
            best: Vec::new(),
            histogram: Histogram::new(),
            boards: 0,
            repeats: 0,
        },
    }
}
