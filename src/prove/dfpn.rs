//! Depth-first proof-number search (df-pn, Nagai 2002) for one test
//! `V ≥ t` of the prover.
//!
//! A test is an AND/OR question: the mover proves `V(n) ≥ t` with one move
//! whose child fails its own test `V(c) ≥ gain - t + 1`, and refutes it
//! only when every child passes. Each node carries a proof number φ (the
//! least work still needed to prove the test) and a disproof number δ (to
//! refute it): `φ(n) = min δ(c)`, `δ(n) = Σ φ(c)`. The search expands the
//! most proving line, so where one side runs short of moves (the way
//! Kiothi games end, RULES §2.10) it reaches the end of the game without a
//! uniform depth.
//!
//! Soundness does not rest on the numbers: they only choose what to expand
//! (`pn_table.rs`). What a node is comes from the proved bounds of its
//! moves, as in the deepening search: a finished game's sweep, captures,
//! the bound table, the endgame tables, and a repetition of the line scored
//! 0 (RULES §0). Bounds that rest on a repetition above the node are not
//! stored (`mod.rs`).

use super::bounds::Proved;
use super::pn_table::PN_INF;
use super::worker::{Kid, Worker};
use super::{Iv, NONE_REP};
use crate::search::Searchable;

/// A node this many plies below the root is left unexpanded (its numbers
/// are [`PN_STUCK`]): a line of a late game that long has stopped
/// capturing, and the deepening search bounds it instead.
const PN_MAX_PLY: usize = 240;
/// Nodes this close to the root tell the other threads they are inside.
const PN_SHARE_PLY: usize = 16;
/// The numbers of a node left unexpanded: large, so that the search looks
/// elsewhere first, and not infinite, which would claim an answer.
const PN_STUCK: u64 = 1 << 28;

/// The answer of a df-pn call: the numbers of the node's test, and the
/// proved bounds of its value (with the repetition they rest on).
#[derive(Clone, Copy, Debug)]
pub(super) struct Pn {
    /// Proof number of `V ≥ t` (0: proved).
    pub phi: u64,
    /// Disproof number (0: refuted).
    pub delta: u64,
    pub iv: Iv,
}

/// How much dearer a new node's proof number is for each warrior by which
/// the engine's evaluation (`Searchable::evaluate`) falls short of its
/// test's threshold: a test the evaluation doubts is tried last.
const EVAL_DOUBT: u64 = 10;

/// The same for the disproof number, past a margin: [`EVAL_DOUBT`] times
/// dearer for each warrior by which the evaluation passes the threshold
/// beyond `EVAL_SURE_MARGIN`. Without a margin the refutations (the last
/// test of every exact value) slowed down more than the proofs sped up.
const EVAL_SURE_MARGIN: i32 = 8;

/// What refuting a new node's test is expected to cost, for its number of
/// moves `m` (`Searchable::mobility`): `⌈m²/4⌉ + 1`. Refuting takes every
/// move, and a position with many moves also has more ways out below each
/// of them, so the cost grows faster than the count.
fn refutation_weight(moves: u32) -> u64 {
    let m = moves.max(1) as u64;
    (m * m).div_ceil(4) + 1
}

/// A new node's proof and disproof numbers for the test `V(pos) ≥ t`:
/// proving takes one move, refuting every move ([`refutation_weight`],
/// counted twice); both are multiplied by `far`, one more than the node's
/// distance to the endgame tables in warriors, so that the search goes for
/// the captures that reach them; then by the evaluation's doubt
/// ([`EVAL_DOUBT`]) and confidence ([`EVAL_SURE_MARGIN`]). The constants
/// were chosen by measuring node counts (`results/kiothi/exact.experiments.md`).
fn first_numbers<G: Searchable>(pos: &G, t: i32, far: u64) -> (u64, u64) {
    let e = pos.evaluate();
    let doubt = (t - e).max(0) as u64;
    let sure = (e - t - EVAL_SURE_MARGIN).max(0) as u64;
    (
        far * (1 + EVAL_DOUBT * doubt),
        2 * far * refutation_weight(pos.mobility()) * (1 + EVAL_DOUBT * sure),
    )
}

/// The buffers of one node of df-pn, kept from node to node (a stack of
/// them, one in use per ply of the line) rather than allocated at every
/// node.
struct Scratch<G: Searchable> {
    moves: Vec<(G::Move, G)>,
    kids: Vec<Kid<G>>,
    order: Vec<usize>,
    nums: Vec<Num>,
}

impl<G: Searchable> Default for Scratch<G> {
    fn default() -> Self {
        Scratch {
            moves: Vec::new(),
            kids: Vec::new(),
            order: Vec::new(),
            nums: Vec::new(),
        }
    }
}

/// A move's numbers for the node's test: `prove` (the child's δ, what
/// proving the node through this move costs) and `refute` (the child's φ).
#[derive(Clone, Copy, Debug)]
struct Num {
    prove: u64,
    refute: u64,
}

/// The numbers a move's proved bounds give, if they settle it for `t`.
fn settled<G: Searchable>(k: &Kid<G>, t: i32) -> Option<Num> {
    if k.lo >= t {
        Some(Num {
            prove: 0,
            refute: PN_INF,
        })
    } else if k.hi < t {
        Some(Num {
            prove: PN_INF,
            refute: 0,
        })
    } else {
        None
    }
}

/// A node's answer when its proved bounds `[lo, hi]` settle `V ≥ t` (numbers
/// 0 and ∞), or [`PN_STUCK`] for both when they do not.
fn answer(t: i32, lo: i32, hi: i32, rep: usize) -> Pn {
    let (phi, delta) = if lo >= t {
        (0, PN_INF)
    } else if hi < t {
        (PN_INF, 0)
    } else {
        (PN_STUCK, PN_STUCK)
    };
    Pn {
        phi,
        delta,
        iv: Iv { lo, hi, rep },
    }
}

/// A node's numbers from its moves': φ the least cost of proving through
/// one move, δ the sum of refuting each; with the most proving move (the
/// first in `order` among equals) and the second least proving number.
fn node_numbers(nums: &[Num], order: &[usize]) -> (u64, u64, Option<usize>, u64) {
    let delta = nums.iter().fold(0u64, |d, n| (d + n.refute).min(PN_INF));
    let mut best = None;
    let (mut first, mut second) = (PN_INF, PN_INF);
    for &i in order {
        let p = nums[i].prove;
        if p < first {
            second = first;
            first = p;
            best = Some(i);
        } else if p < second {
            second = p;
        }
    }
    (first, delta, best, second)
}

/// df-pn on one worker's thread: the worker, and the buffers of the nodes
/// on its line.
pub(super) struct ProofNumbers<'w, 'a, 'c, G: Searchable> {
    w: &'w mut Worker<'a, 'c, G>,
    scratch: Vec<Scratch<G>>,
    /// Plies past which a line is left unexpanded ([`PN_MAX_PLY`] unless
    /// `ProveLimits::pn_max_ply` says otherwise).
    max_ply: usize,
}

impl<'w, 'a, 'c, G: Searchable> ProofNumbers<'w, 'a, 'c, G> {
    pub(super) fn new(w: &'w mut Worker<'a, 'c, G>) -> Self {
        let max_ply = w.ctx.limits.pn_max_ply.unwrap_or(PN_MAX_PLY);
        ProofNumbers {
            w,
            scratch: Vec::new(),
            max_ply,
        }
    }

    /// df-pn on `V(pos) ≥ t` until its proof number reaches `th_phi` or its
    /// disproof number `th_delta` (or it is answered, or the search is
    /// stopped). `pos` is not on the line yet (which holds its `ply`
    /// ancestors). The interval returned is proved whatever happens.
    pub(super) fn mid(
        &mut self,
        pos: &G,
        key: u64,
        ply: usize,
        t: i32,
        th_phi: u64,
        th_delta: u64,
    ) -> Pn {
        self.w.count_node();
        let stored = self.w.known(pos, key);
        let (lo, hi) = (stored.lo, stored.hi);
        if self.w.aborted || lo >= t || hi < t || ply >= self.max_ply {
            return answer(t, lo, hi, NONE_REP);
        }
        let nodes_before = self.w.visited;
        let mut s = self.scratch.pop().unwrap_or_default();
        pos.search_moves_into(&mut s.moves);
        if s.moves.is_empty() {
            self.scratch.push(s);
            let iv = self.w.game_over(pos, key, nodes_before);
            return answer(t, iv.lo, iv.hi, NONE_REP);
        }
        self.w.path.push(key, pos.clone());
        let mut rep = NONE_REP;
        let Scratch {
            moves,
            kids,
            order,
            nums,
        } = &mut s;
        self.w.kids_into(pos, moves.drain(..), &mut rep, kids);
        for k in kids.iter() {
            self.w.ctx.pn.prefetch(k.key, k.gain - t + 1);
        }
        // The moves in the deepening search's order: ties between equal
        // numbers go to the move it would try first.
        self.w.order_into(kids, t, stored.best, ply, 0, order);
        self.first_move_numbers(kids, t, nums);
        let par = self.w.ctx.threads > 1 && ply < PN_SHARE_PLY;
        if par {
            self.w.ctx.busy.enter(key);
        }
        let (mut phi, mut delta);
        loop {
            let (best, second);
            (phi, delta, best, second) = node_numbers(nums, order);
            if phi == 0 || delta == 0 || phi >= th_phi || delta >= th_delta || self.w.aborted {
                break;
            }
            if phi >= PN_STUCK && delta >= PN_STUCK {
                // Only lines left unexpanded at the ply cap remain.
                break;
            }
            let Some(best) = best else { break };
            let (i, second) = if par {
                self.shared_choice(kids, nums, order, th_phi, (best, second))
            } else {
                (best, second)
            };
            let n = nums[i];
            // The child's own thresholds: its φ (the node's δ share) may
            // grow until the node's δ reaches its threshold, its δ (the
            // node's φ) until it passes the second best move (by a quarter
            // more, to switch between two close moves less often).
            let c_phi = th_delta.saturating_sub(delta - n.refute).min(PN_INF);
            let c_delta = th_phi
                .min(second.saturating_add(second / 4 + 1))
                .min(PN_INF);
            let (child, ckey, gain) = (kids[i].pos.clone(), kids[i].key, kids[i].gain);
            let r = self.mid(&child, ckey, ply + 1, gain - t + 1, c_phi, c_delta);
            rep = rep.min(r.iv.rep);
            let kid = &mut kids[i];
            kid.lo = kid.lo.max(gain - r.iv.hi);
            kid.hi = kid.hi.min(gain - r.iv.lo);
            nums[i] = settled(kid, t).unwrap_or(Num {
                prove: r.delta.max(1),
                refute: r.phi.max(1),
            });
        }
        if par {
            self.w.ctx.busy.leave(key);
        }
        self.w.path.pop();
        if ply == 0 {
            self.w.note_root(kids);
        }
        let best_lo = kids.iter().map(|k| k.lo).max().unwrap_or(lo);
        let all_hi = kids.iter().map(|k| k.hi).max().unwrap_or(hi);
        let (lo, hi) = (lo.max(best_lo), hi.min(all_hi));
        if rep >= ply {
            let best = kids.iter().position(|k| k.lo >= t).map(|i| i as u16);
            let open = None;
            self.w
                .store(key, Proved { lo, hi, best, open }, nodes_before);
            rep = NONE_REP;
        }
        self.scratch.push(s);
        let mut out = answer(t, lo, hi, rep);
        if lo < t && t <= hi {
            let nodes = self.w.visited - nodes_before;
            self.w.ctx.pn.store(key, t, phi, delta, nodes);
            out.phi = phi.max(1);
            out.delta = delta.max(1);
        }
        out
    }

    /// Each move's numbers for the node's test `V ≥ t`: from its proved
    /// bounds when they settle it, else from df-pn's table, else a new
    /// child's first numbers ([`first_numbers`]).
    fn first_move_numbers(&self, kids: &[Kid<G>], t: i32, out: &mut Vec<Num>) {
        out.clear();
        out.extend(kids.iter().map(|k| {
            settled(k, t).unwrap_or_else(|| {
                // The child's test: `V(child) ≥ child_t`.
                let child_t = k.gain - t + 1;
                let (phi, delta) = self.w.ctx.pn.probe(k.key, child_t).unwrap_or_else(|| {
                    let far = 1 + self.w.ctx.exact.distance(&k.pos) as u64;
                    first_numbers(&k.pos, child_t, far)
                });
                Num {
                    prove: delta,
                    refute: phi,
                }
            })
        }));
    }

    /// The move to expand when other threads search beside this one, given
    /// the most proving move and the second best number (`chosen`): another
    /// thread's move looks worse by as much again, so that this thread
    /// tries the next one unless the first is far better (virtual proof
    /// numbers).
    fn shared_choice(
        &self,
        kids: &[Kid<G>],
        nums: &[Num],
        order: &[usize],
        th_phi: u64,
        chosen: (usize, u64),
    ) -> (usize, u64) {
        let (mut eb, mut e1, mut e2) = (chosen.0, PN_INF, PN_INF);
        for &j in order {
            let p = nums[j].prove;
            let p = if p > 0 && self.w.ctx.busy.searched(kids[j].key) {
                (p * 2 + 1).min(PN_INF)
            } else {
                p
            };
            if p < e1 {
                e2 = e1;
                e1 = p;
                eb = j;
            } else if p < e2 {
                e2 = p;
            }
        }
        if nums[eb].prove < th_phi {
            (eb, e2)
        } else {
            chosen
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_evaluation_makes_the_first_numbers_dearer_only_past_its_margins() {
        use crate::games::kiothi::KiothiPosition;
        let pos: KiothiPosition = "kiothi 0,1,0,10,1,0,0,2,2,4,3,1,1,0,2,1,4,0,2,0 S play 11 15"
            .parse()
            .unwrap();
        let (e, m) = (pos.evaluate(), refutation_weight(pos.mobility()));
        // At the evaluation itself: neither doubted nor sure.
        assert_eq!(first_numbers(&pos, e, 3), (3, 6 * m));
        // Above it the proof number grows, the disproof number stays.
        assert_eq!(first_numbers(&pos, e + 2, 1), (1 + 2 * EVAL_DOUBT, 2 * m));
        // Below it, within the margin, both stay; past it, δ grows.
        assert_eq!(first_numbers(&pos, e - EVAL_SURE_MARGIN, 1), (1, 2 * m));
        let past = first_numbers(&pos, e - EVAL_SURE_MARGIN - 3, 1);
        assert_eq!(past, (1, 2 * m * (1 + 3 * EVAL_DOUBT)));
    }

    #[test]
    fn refuting_weighs_a_quarter_of_the_square_of_the_moves_plus_one() {
        let weights: Vec<u64> = (0..=6).map(refutation_weight).collect();
        // No move counts as one (a finished game never gets here).
        assert_eq!(weights, [2, 2, 2, 4, 5, 8, 10]);
    }

    #[test]
    fn a_node_proves_through_its_cheapest_move_and_refutes_through_all() {
        let num = |prove, refute| Num { prove, refute };
        let nums = [num(5, 1), num(3, 2), num(3, 4), num(9, 8)];
        // φ the least proof cost; ties go to the first move in `order`;
        // δ the sum of the refutation costs; the second least proof cost.
        assert_eq!(node_numbers(&nums, &[0, 1, 2, 3]), (3, 15, Some(1), 3));
        assert_eq!(node_numbers(&nums, &[2, 1, 0, 3]), (3, 15, Some(2), 3));
        assert_eq!(node_numbers(&nums, &[3, 0]), (5, 15, Some(0), 9));
        // δ stops at "infinite"; a proved move (0) is the best at once.
        let nums = [num(0, PN_INF), num(7, PN_INF)];
        assert_eq!(node_numbers(&nums, &[1, 0]), (0, PN_INF, Some(0), 7));
        assert_eq!(node_numbers(&[], &[]), (PN_INF, 0, None, PN_INF));
    }
}
