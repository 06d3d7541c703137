//! Iterative deepening of a test `V ≥ t`, where df-pn leaves it open
//! (lines past its ply cap): a depth budget in quarter plies
//! ([`ply_cost`]), proved bounds in and out, the three-valued pruning of
//! [`Need`], and the moves shared between the threads ([`MoveQueue`]).

use std::sync::atomic::Ordering::Relaxed;

use super::busy::{MoveQueue, SHARE_DEPTH};
use super::worker::{Kid, Worker};
use super::{Iv, INF, NONE_REP, UNIT};
use crate::prove::bounds::{Open, Proved};
use crate::search::Searchable;

/// Plies from the root beyond which every ply costs a full one.
const FREE_PLIES: usize = 400;

/// What a ply costs of an iteration's depth budget, in quarter plies
/// ([`UNIT`]), by the moves of the node it leaves: a forced move nothing, a
/// choice of two half a ply, of three or four three quarters, more a full
/// ply. The lines where one side runs short of moves, the way Kiothi games
/// end (RULES §2.10), then reach the end in early iterations. Past
/// [`FREE_PLIES`] every ply costs a full one, which bounds the line. The
/// budget only decides how far an iteration looks: every bound is proved
/// whatever it is.
pub(super) fn ply_cost(moves: usize, ply: usize) -> u32 {
    if ply >= FREE_PLIES {
        return UNIT;
    }
    match moves {
        0 | 1 => 0,
        2 => 2,
        3 | 4 => 3,
        _ => UNIT,
    }
}

/// Which answers of a test `V ≥ t` its caller can use. A node needs all its
/// moves to fail to answer "no", so once one move is left open (at this
/// depth) only "yes" remains possible: a caller that needs "no" stops
/// there, and the node's later moves are searched for "yes" only. This is
/// the pruning of a three-valued search; without it an open subtree would
/// be searched in full to the horizon.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Need {
    /// Either answer (the root, and a node whose moves all failed so far).
    Both,
    /// Only "yes, `V ≥ t`": some move must be proved to reach `t`.
    Ge,
    /// Only "no, `V < t`": every move must be proved to fail.
    Lt,
}

impl Need {
    /// What the node's children must answer for the node's needs: a "yes"
    /// here is a child's "no", and the other way round.
    fn child(self) -> Need {
        match self {
            Need::Both => Need::Both,
            Need::Ge => Need::Lt,
            Need::Lt => Need::Ge,
        }
    }
}

/// The test a deepening node answers: `V ≥ t` at the position of hash `key`,
/// `ply` plies below the root, with `depth` quarter plies of budget left
/// ([`ply_cost`]), for a caller that needs `need`.
struct TestAt {
    key: u64,
    depth: u32,
    ply: usize,
    t: i32,
    need: Need,
}

impl<G: Searchable> Worker<'_, '_, G> {
    /// The test `V(pos) ≥ t` with a budget of `depth` quarter plies left
    /// ([`ply_cost`]); `pos` is not yet on the line (which
    /// holds its `ply` ancestors).
    fn test(&mut self, pos: &G, key: u64, depth: u32, ply: usize, t: i32, need: Need) -> Iv {
        self.count_node();
        let at = TestAt {
            key,
            depth,
            ply,
            t,
            need,
        };
        let nodes_before = self.visited;
        let stored = match self.test_without_moves(pos, &at, nodes_before) {
            Ok(stored) => stored,
            Err(answer) => return answer,
        };
        let moves = pos.search_moves();
        if moves.is_empty() {
            return self.game_over(pos, key, nodes_before);
        }
        let cost = ply_cost(moves.len(), ply).min(depth);
        let distance = self.ctx.exact.distance(pos);
        self.path.push(key, pos.clone());
        let mut rep = NONE_REP;
        let mut kids = self.kids(pos, moves, &mut rep);
        let mut order = Vec::with_capacity(kids.len());
        self.order_into(&mut kids, t, stored.best, ply, depth, &mut order);
        let proved_by = self.test_moves(&at, &mut kids, order, cost, distance, &mut rep);
        self.path.pop();
        if ply == 0 {
            self.note_root(&kids);
        }
        if let Some(i) = proved_by {
            let (mv, gain) = (kids[i].mv, kids[i].gain);
            self.reward(mv, gain, ply, depth);
        }
        let board = pos.board_total() as i32;
        let (best_idx, best_lo) = kids
            .iter()
            .enumerate()
            .map(|(i, k)| (i, k.lo))
            .max_by_key(|&(i, l)| (l, std::cmp::Reverse(i)))
            .unwrap_or((0, -INF));
        let all_hi = kids.iter().map(|k| k.hi).max().unwrap_or(-INF);
        let (lo, hi) = (stored.lo.max(best_lo), stored.hi.min(all_hi));
        if rep >= ply {
            let best = proved_by
                .or((best_lo > -board).then_some(best_idx))
                .filter(|&i| i < u16::MAX as usize)
                .map(|i| i as u16);
            let open = (lo < t && t <= hi && !self.aborted).then_some(Open {
                t,
                depth,
                need: need as u8,
            });
            self.store(key, Proved { lo, hi, best, open }, nodes_before);
            rep = NONE_REP;
        }
        Iv { lo, hi, rep }
    }

    /// The test's answer when no move need be searched: the search was
    /// stopped, the position repeats one on the line, its stored bounds
    /// decide the test (or an as deep search of it was left open), or the
    /// depth budget is spent. Otherwise the stored bounds.
    fn test_without_moves(
        &mut self,
        pos: &G,
        at: &TestAt,
        nodes_before: u64,
    ) -> Result<Proved, Iv> {
        let iv = |lo, hi, rep| Err(Iv { lo, hi, rep });
        if self.aborted {
            let b = pos.board_total() as i32;
            return iv(-b, b, NONE_REP);
        }
        if let Some(i) = self.on_line(at.key, pos) {
            return iv(0, 0, i);
        }
        let stored = self.known(pos, at.key);
        let same_open = stored.open.is_some_and(|o| {
            o.t == at.t
                && o.depth >= at.depth
                && (o.need == Need::Both as u8 || o.need == at.need as u8)
        });
        if stored.lo >= at.t || stored.hi < at.t || same_open {
            return iv(stored.lo, stored.hi, NONE_REP);
        }
        if at.depth == 0 {
            return match pos.is_over() {
                true => Err(self.game_over(pos, at.key, nodes_before)),
                false => iv(stored.lo, stored.hi, NONE_REP),
            };
        }
        Ok(stored)
    }

    /// Searches the node's moves in `order` until one proves the test (its
    /// index is returned), all fail, the caller's need is settled
    /// ([`Need`]) or the search is stopped. `cost` is the budget a move
    /// takes ([`ply_cost`]), `distance` the node's distance
    /// to the tables.
    fn test_moves(
        &mut self,
        at: &TestAt,
        kids: &mut [Kid<G>],
        order: Vec<usize>,
        cost: u32,
        distance: u32,
        rep: &mut usize,
    ) -> Option<usize> {
        let t = at.t;
        let mut need = at.need;
        // With other threads, this node says it is being searched, and
        // passes over the children another thread is inside ([`Busy`]).
        let shared = self.ctx.threads > 1 && at.depth >= SHARE_DEPTH;
        let defer = self.ctx.threads > 1 && at.depth - cost >= SHARE_DEPTH;
        if shared {
            self.ctx.busy.enter(at.key);
        }
        let mut proved_by = None;
        // A move already known to prove the test leaves nothing to search.
        let settled = kids.iter().any(|k| k.lo >= t);
        let mut queue = MoveQueue::new(if settled { Vec::new() } else { order }, defer);
        while let Some(i) = queue.next(&self.ctx.busy, |i| kids[i].key) {
            let kid = &kids[i];
            let (child, ckey, gain) = (kid.pos.clone(), kid.key, kid.gain);
            // A capture that brings the board nearer the endgame tables
            // costs half a ply's budget: those lines reach exact values
            // sooner.
            let closer = gain > 0 && self.ctx.exact.distance(&child) < distance;
            let r = self.test(
                &child,
                ckey,
                at.depth - if closer { cost / 2 } else { cost },
                at.ply + 1,
                gain - t + 1,
                need.child(),
            );
            *rep = (*rep).min(r.rep);
            let kid = &mut kids[i];
            kid.lo = kid.lo.max(gain - r.hi);
            kid.hi = kid.hi.min(gain - r.lo);
            if kid.lo >= t {
                proved_by = Some(i);
                break;
            }
            if self.aborted {
                break;
            }
            if kid.hi >= t {
                // This move is open: the node can no longer fail low
                // at this depth, only a later move can still prove it.
                match need {
                    Need::Lt => break,
                    Need::Both | Need::Ge => need = Need::Ge,
                }
            }
        }
        if shared {
            self.ctx.busy.leave(at.key);
        }
        proved_by
    }

    /// This worker's pass over the root's moves for `V ≥ t` (the root on
    /// the line), each child with `budget` quarter plies: the moves in
    /// `order`, those another thread is inside deferred to a second pass,
    /// until one proves the test, all fail, or the test is answered by
    /// another worker. The moves' proved bounds, starting from `kids`'.
    pub(super) fn test_root_moves(
        &mut self,
        kids: &[Kid<G>],
        order: Vec<usize>,
        budget: u32,
        root_budget: u32,
        t: i32,
    ) -> Vec<(i32, i32)> {
        let mut bounds: Vec<(i32, i32)> = kids.iter().map(|k| (k.lo, k.hi)).collect();
        let defer = self.ctx.threads > 1 && budget >= SHARE_DEPTH;
        let mut need = Need::Both;
        let mut queue = MoveQueue::new(order, defer);
        while let Some(i) = queue.next(&self.ctx.busy, |i| kids[i].key) {
            if self.aborted || self.ctx.cancel.load(Relaxed) {
                break;
            }
            let kid = &kids[i];
            let r = self.test(&kid.pos, kid.key, budget, 1, kid.gain - t + 1, need.child());
            let b = &mut bounds[i];
            b.0 = b.0.max(kid.gain - r.hi);
            b.1 = b.1.min(kid.gain - r.lo);
            if b.0 >= t {
                self.reward(kid.mv, kid.gain, 0, root_budget);
                break;
            }
            if self.aborted {
                break;
            }
            if b.1 >= t {
                need = Need::Ge;
            }
        }
        bounds
    }
}
