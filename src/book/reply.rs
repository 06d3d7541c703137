//! The reply search: North's best redistribution at turn 2 (RULES §2.2),
//! and through it the value of a first move.
//!
//! The reply scan's shortlist (the best replies under E2, exactly, see
//! `scan_replies`, and the best few of each pair of pits lifted, so that
//! every way of lifting is tried), with a few seeded random replies,
//! duplicates dropped, is searched by the
//! engine in play phase, each reply with the same node budget on one
//! thread (deterministic), replies in parallel. The best few are then
//! improved locally: a step searches the best neighbours under E2 (and a
//! few seeded random ones) of the current reply — one warrior moved from a
//! target pit to another pit, or another pair lifted with the same
//! placement — and moves to the best one if it beats the current reply;
//! a climb ends when no searched neighbour improves or after `steps`.
//! Every reply searched is kept; the best by value wins (ties: E2 score,
//! then notation).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::game::Side;
use crate::games::kiothi::{KiothiMove, KiothiPosition, OpeningMove, Phase, PITS};
use crate::infra::rng::{fnv1a, Rng};

use super::best_k::{best_k, best_k_per_lift};
use super::engine::EngineValuer;
use super::enumerate::ScanEvaluator;
use super::error::BookError;
use super::model::TableEval;
use super::models::after_reply;
use super::sample::random_opening_move;
use super::score::stones;
use super::turn::OpeningTurn;

/// What a reply search may spend.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplyBudget {
    /// Replies of the scan's shortlist searched: its best ...
    pub shortlist: usize,
    /// ... and the best of each lift set (pair of pits lifted).
    pub per_lift: usize,
    /// Most boards the reply scan scores in full (see `best_k`).
    pub scan_limit: u64,
    /// Seeded random replies searched with them.
    pub random: usize,
    /// Node budget of each engine search.
    pub nodes: u64,
    /// Best replies improved locally.
    pub climbs: usize,
    /// Neighbours searched per step: the best under E2 ...
    pub neighbours: usize,
    /// ... and this many more drawn at random.
    pub explore: usize,
    /// Most steps of a climb.
    pub steps: usize,
    /// Replies reported.
    pub report: usize,
}

impl Default for ReplyBudget {
    fn default() -> Self {
        ReplyBudget {
            shortlist: 16,
            per_lift: 2,
            scan_limit: 100_000,
            random: 4,
            nodes: 10_000,
            climbs: 3,
            neighbours: 10,
            explore: 2,
            steps: 6,
            report: 5,
        }
    }
}

impl ReplyBudget {
    /// This budget with every count and the node budget multiplied by `k`
    /// (steps and the report unchanged).
    pub fn scaled(&self, k: u64) -> ReplyBudget {
        let m = |x: usize| x.saturating_mul(k as usize);
        ReplyBudget {
            shortlist: m(self.shortlist),
            per_lift: m(self.per_lift),
            scan_limit: self.scan_limit.saturating_mul(k),
            random: m(self.random),
            nodes: self.nodes.saturating_mul(k),
            climbs: m(self.climbs),
            neighbours: m(self.neighbours),
            explore: m(self.explore),
            steps: self.steps,
            report: self.report,
        }
    }

    /// The default search shaped to take about `seconds` of one thread (a
    /// move's time in play): each engine search gets the share of
    /// `seconds` × [`ENGINE_NODES_PER_SECOND`] that [`TYPICAL_SEARCHES`]
    /// searches leave, at least [`MIN_NODES`] and at most the default's
    /// nodes. The climbs stop at the time [`ReplyLimits`] gives.
    pub fn for_seconds(seconds: f64) -> ReplyBudget {
        Self::for_nodes((seconds.max(0.0) * ENGINE_NODES_PER_SECOND) as u64)
    }

    /// The default search shaped to spend about `nodes` engine nodes in
    /// all (see [`ReplyBudget::for_seconds`]).
    pub fn for_nodes(nodes: u64) -> ReplyBudget {
        let d = ReplyBudget::default();
        let share = (nodes as f64 / TYPICAL_SEARCHES) as u64;
        ReplyBudget {
            nodes: share.clamp(MIN_NODES, d.nodes),
            ..d
        }
    }

    fn check(&self) -> Result<(), BookError> {
        if self.shortlist + self.random == 0 || self.nodes == 0 || self.report == 0 {
            return Err(BookError::BadParameter {
                field: "budget",
                message: "a reply search needs a shortlist or random replies, nodes and a report of at least one reply".into(),
            });
        }
        Ok(())
    }
}

/// Engine nodes a CPU-second searching the positions after turn 2: 1.2 to
/// 1.7 million measured on this 2-core machine (2026-12-07) by `sow --json
/// eval POSITION --depth 30` of the boards after 4+5>0,1,2,3,6,7,8,9,9,9,
/// 6+7>0,0,1,2,3,4,5,8,9,9 and 8+9>0,1,2,3,4,5,6,7,8,9, its `nodes` over
/// the user seconds of `/usr/bin/time`; see [`ReplyBudget::for_seconds`].
pub const ENGINE_NODES_PER_SECOND: f64 = 1_300_000.0;

/// A default reply search's engine nodes over the node budget of one
/// search: 65 to 78 in the same measurement (searches that end early
/// spend less than the budget), so about the searches it pays for.
pub const TYPICAL_SEARCHES: f64 = 70.0;

/// Fewest nodes of an engine search in a reply search shaped to a time.
pub const MIN_NODES: u64 = 500;

/// A reply and its value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReplyValue {
    /// RULES §3 notation.
    #[serde(rename = "move")]
    pub mv: String,
    /// RULES §0 value for the player who replies (North), in stones.
    pub value: i32,
    /// Plies looked at: the reply and the engine's search below it.
    pub depth: u32,
    /// E2's estimate (the scan score), in stones.
    pub score: f64,
    #[serde(skip)]
    pub opening: OpeningMove,
}

/// What a reply search found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Replies {
    /// The turn-2 position (RULES §3).
    pub position: String,
    /// The best reply found; its value is North's value of the position.
    pub best: ReplyValue,
    /// The best replies found, best first (`best` first).
    pub replies: Vec<ReplyValue>,
    /// Distinct replies searched by the engine.
    pub searched: usize,
    /// Engine nodes spent.
    pub nodes: u64,
    pub seconds: f64,
    pub seed: u64,
    pub budget: ReplyBudget,
}

/// A first move and its value through North's best reply.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FirstMoveValue {
    #[serde(rename = "move")]
    pub mv: String,
    /// RULES §0 value for South: minus North's best reply's value.
    pub value: i32,
    /// Plies: the first move and the best reply's depth.
    pub depth: u32,
    /// North's reply search from the position it leaves.
    pub replies: Replies,
}

/// A reply searched: its move, E2 score and engine result.
#[derive(Clone, Copy)]
struct Searched {
    opening: OpeningMove,
    score: i32,
    value: i32,
    depth: u32,
}

/// A reply not searched yet.
#[derive(Clone, Copy)]
struct Candidate {
    opening: OpeningMove,
    board: [u8; PITS],
    score: i32,
}

struct Search<'a> {
    e2: &'a TableEval,
    turn: OpeningTurn,
    budget: &'a ReplyBudget,
    known: HashMap<[u8; PITS], Searched>,
    nodes: u64,
    /// No climb step begins after it.
    deadline: Option<Instant>,
}

impl Search<'_> {
    fn candidate(&self, opening: OpeningMove) -> Candidate {
        let child = self.turn.position.play_opening(&opening);
        let board = child.pits();
        Candidate {
            opening,
            board,
            score: self.e2.score(&board),
        }
    }

    /// Searches the candidates not searched yet, in parallel.
    fn search(&mut self, mut cands: Vec<Candidate>) {
        cands.retain(|c| !self.known.contains_key(&c.board));
        cands.sort_by_key(|c| c.board);
        cands.dedup_by(|a, b| a.board == b.board);
        let pos = self.turn.position;
        let nodes = self.budget.nodes;
        let results: Vec<(Candidate, i32, u32, u64)> = cands
            .into_par_iter()
            .map_init(
                || EngineValuer::new(nodes),
                |v, c| {
                    let child = pos.play_opening(&c.opening);
                    let r = v.value(&child);
                    (c, -r.value, r.depth + 1, r.nodes)
                },
            )
            .collect();
        for (c, value, depth, n) in results {
            self.nodes += n;
            self.known.insert(
                c.board,
                Searched {
                    opening: c.opening,
                    score: c.score,
                    value,
                    depth,
                },
            );
        }
    }

    /// The moves one step away from `mv`: a warrior moved, or another lift set.
    fn neighbours(&self, mv: &OpeningMove) -> Vec<Candidate> {
        let placed = mv.placed();
        let mut out = Vec::new();
        for from in 0..PITS {
            if placed[from] == 0 {
                continue;
            }
            for to in 0..PITS {
                if to != from {
                    let mut p = placed;
                    p[from] -= 1;
                    p[to] += 1;
                    out.push(self.candidate(OpeningMove::new(mv.lifted(), p)));
                }
            }
        }
        let hand: u32 = placed.iter().map(|&x| x as u32).sum();
        for lift in &self.turn.lifts {
            if lift.lifted() == mv.lifted() {
                continue;
            }
            let mut p = placed;
            let mut have = hand;
            while have < lift.warriors {
                p[most(&p)] += 1;
                have += 1;
            }
            while have > lift.warriors {
                p[most(&p)] -= 1;
                have -= 1;
            }
            out.push(self.candidate(OpeningMove::new(lift.lifted(), p)));
        }
        out
    }

    /// Hill climbing from `start`; returns nothing, every search is kept.
    fn climb(&mut self, start: [u8; PITS], rng: &mut Rng) {
        let mut current = start;
        for _ in 0..self.budget.steps {
            if self.deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            let here = self.known[&current];
            let mut near = self.neighbours(&here.opening);
            near.sort_by(|a, b| b.score.cmp(&a.score).then(a.board.cmp(&b.board)));
            near.dedup_by(|a, b| a.board == b.board);
            let fresh: Vec<Candidate> = near
                .iter()
                .filter(|c| !self.known.contains_key(&c.board) && c.board != current)
                .copied()
                .collect();
            let mut batch: Vec<Candidate> =
                fresh.iter().take(self.budget.neighbours).copied().collect();
            let rest: Vec<Candidate> = fresh.iter().skip(self.budget.neighbours).copied().collect();
            for _ in 0..self.budget.explore.min(rest.len()) {
                batch.push(rest[rng.below(rest.len())]);
            }
            self.search(batch);
            let best = near
                .iter()
                .filter_map(|c| self.known.get(&c.board).map(|s| (c.board, *s)))
                .max_by(|a, b| better(&a.1, &b.1).then(b.0.cmp(&a.0)));
            match best {
                Some((board, s)) if s.value > here.value => current = board,
                _ => break,
            }
        }
    }
}

/// The pit with the most warriors placed (the lowest such pit).
fn most(p: &[u8; PITS]) -> usize {
    let mut best = 0;
    for i in 1..PITS {
        if p[i] > p[best] {
            best = i;
        }
    }
    best
}

/// Orders searched replies worst to best: value, then E2 score.
fn better(a: &Searched, b: &Searched) -> std::cmp::Ordering {
    a.value.cmp(&b.value).then(a.score.cmp(&b.score))
}

fn reply_value(s: &Searched) -> ReplyValue {
    ReplyValue {
        mv: s.opening.to_string(),
        value: s.value,
        depth: s.depth,
        score: stones(s.score),
        opening: s.opening,
    }
}

/// North's best replies to the turn-2 `position`, searched within
/// `budget`; `seed` draws the random replies and neighbours.
pub fn reply_search(
    position: &KiothiPosition,
    budget: &ReplyBudget,
    seed: u64,
) -> Result<Replies, BookError> {
    reply_search_with(position, after_reply(), budget, seed)
}

/// What a reply search in play may spend: its budget, and the time after
/// which it begins no climb step (the shortlist is always searched).
#[derive(Clone, Debug, PartialEq)]
pub struct ReplyLimits {
    pub budget: ReplyBudget,
    pub time: Option<Duration>,
}

impl ReplyLimits {
    /// The reply search shaped to `seconds` on `threads` (and stopped at
    /// them), else to `nodes` in all, else the default.
    pub fn shaped(seconds: Option<f64>, nodes: Option<u64>, threads: usize) -> ReplyLimits {
        let budget = match (seconds, nodes) {
            (Some(s), _) => ReplyBudget::for_seconds(s * threads.max(1) as f64),
            (None, Some(n)) => ReplyBudget::for_nodes(n),
            (None, None) => ReplyBudget::default(),
        };
        ReplyLimits {
            budget,
            time: seconds.map(|s| Duration::from_secs_f64(s.max(0.0))),
        }
    }

    /// North's best replies to the turn-2 `position` within these limits;
    /// `seed` draws the random replies and neighbours.
    pub fn search(&self, position: &KiothiPosition, seed: u64) -> Result<Replies, BookError> {
        let deadline = self.time.map(|t| Instant::now() + t);
        search_replies(position, after_reply(), &self.budget, seed, deadline)
    }
}

/// Whether `pos` is North's turn-2 redistribution (RULES §2.2), the
/// position a reply search answers.
pub fn is_turn_2(pos: &KiothiPosition) -> bool {
    pos.phase() == Phase::Opening && pos.side() == Side::North
}

/// `reply_search` with the evaluation `e2` of the boards after the reply
/// instead of the compiled-in one (for fitting and measuring).
pub fn reply_search_with(
    position: &KiothiPosition,
    e2: &TableEval,
    budget: &ReplyBudget,
    seed: u64,
) -> Result<Replies, BookError> {
    search_replies(position, e2, budget, seed, None)
}

fn search_replies(
    position: &KiothiPosition,
    e2: &TableEval,
    budget: &ReplyBudget,
    seed: u64,
    deadline: Option<Instant>,
) -> Result<Replies, BookError> {
    budget.check()?;
    let t0 = Instant::now();
    let turn = OpeningTurn::expect(position, 2)?;
    let mut rng = Rng::new(seed ^ fnv1a(&position.pits()));
    let mut shortlist = best_k(&turn, e2, budget.shortlist, budget.scan_limit).best;
    if budget.per_lift > 0 {
        shortlist.extend(best_k_per_lift(&turn, e2, budget.per_lift, budget.scan_limit).best);
    }
    let mut s = Search {
        e2,
        turn,
        budget,
        known: HashMap::new(),
        nodes: 0,
        deadline,
    };
    let mut first: Vec<Candidate> = shortlist
        .iter()
        .map(|e| {
            let lift = &s.turn.lifts[e.lift as usize];
            s.candidate(OpeningMove::new(lift.lifted(), e.placed))
        })
        .collect();
    for _ in 0..budget.random {
        if let Some(m) = random_opening_move(position, &mut rng) {
            first.push(s.candidate(m));
        }
    }
    s.search(first);
    let mut order: Vec<([u8; PITS], Searched)> = s.known.iter().map(|(b, v)| (*b, *v)).collect();
    order.sort_by(|a, b| better(&b.1, &a.1).then(a.0.cmp(&b.0)));
    for (board, _) in order.iter().take(budget.climbs) {
        s.climb(*board, &mut rng);
    }
    let mut all: Vec<Searched> = s.known.values().copied().collect();
    all.sort_by(|a, b| {
        better(b, a).then_with(|| a.opening.to_string().cmp(&b.opening.to_string()))
    });
    let replies: Vec<ReplyValue> = all.iter().take(budget.report).map(reply_value).collect();
    Ok(Replies {
        position: position.to_string(),
        best: replies[0].clone(),
        replies,
        searched: s.known.len(),
        nodes: s.nodes,
        seconds: t0.elapsed().as_secs_f64(),
        seed,
        budget: budget.clone(),
    })
}

/// The value of South's first move `mv` from the turn-1 `start`: minus
/// North's best reply found by `reply_search`.
pub fn first_move_value(
    start: &KiothiPosition,
    mv: &OpeningMove,
    budget: &ReplyBudget,
    seed: u64,
) -> Result<FirstMoveValue, BookError> {
    first_move_value_with(start, mv, after_reply(), budget, seed)
}

/// `first_move_value` with the evaluation `e2` (see `reply_search_with`).
pub fn first_move_value_with(
    start: &KiothiPosition,
    mv: &OpeningMove,
    e2: &TableEval,
    budget: &ReplyBudget,
    seed: u64,
) -> Result<FirstMoveValue, BookError> {
    let turn = OpeningTurn::expect(start, 1)?;
    let after = turn
        .position
        .play_move(&KiothiMove::Opening(*mv))
        .ok_or_else(|| BookError::BadParameter {
            field: "move",
            message: format!("{mv} is not a legal first move of {start}"),
        })?;
    let replies = reply_search_with(&after, e2, budget, seed)?;
    Ok(FirstMoveValue {
        mv: mv.to_string(),
        value: -replies.best.value,
        depth: replies.best.depth + 1,
        replies,
    })
}
