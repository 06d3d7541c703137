//! The opening part of `sow report`'s Kiothi report: South's best opening
//! redistributions among the engine's candidate families and North's best
//! replies, estimated by search (the baseline the opening book is measured
//! against; the book's page is `analysis::book_openings`).
//!
//! Method: the opening has hundreds of millions of moves, so the engine's
//! candidate generator proposes structured families (warriors spread over
//! the own row or the whole board, own empty pits filled, one warrior fed
//! into each empty enemy pit, everything in the leftmost or the rightmost
//! pit) and seeded random placements for every pair of lifted pits. Every
//! candidate is ranked by a shallow search; the best are searched again
//! with the time budget; the same is done for North's replies to South's
//! top moves.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::games::kiothi::KiothiPosition;
use crate::infra::progress::{Progress, ProgressBar};
use crate::search::negamax::Limits;
use crate::search::threads::search;
use crate::search::tt::TranspositionTable;
use crate::search::Searchable;
use crate::Game;

/// Depth of the ranking search of every candidate.
const RANK_DEPTH: u32 = 3;
/// Candidates searched again with the time budget.
const DEEPENED: usize = 8;
/// South moves whose replies are examined.
const REPLIED: usize = 3;

struct Scored {
    mv: String,
    child: KiothiPosition,
    value: i32,
    depth: u32,
    exact: bool,
}

/// Values, for the mover of `pos`, of its candidate moves: all ranked
/// shallowly, the best `DEEPENED` deepened with `seconds` each.
fn rank(
    pos: &KiothiPosition,
    seconds: f64,
    threads: usize,
    tt: &TranspositionTable,
    bar: &ProgressBar,
) -> (usize, Vec<Scored>) {
    let stop = AtomicBool::new(false);
    let value_of = |child: &KiothiPosition, limits: &Limits| {
        let gained = KiothiPosition::capture_gain(pos, child);
        if child.is_over() {
            return (gained + child.terminal_value(), 0, true);
        }
        let r = search(child, limits, threads, tt, &stop, &mut |_| {});
        (gained - r.value, r.depth + 1, r.exact)
    };
    let candidates = pos.search_moves();
    bar.set_length((candidates.len() + DEEPENED.min(candidates.len())) as u64);
    let mut scored: Vec<Scored> = candidates
        .iter()
        .map(|(mv, child)| {
            let (value, depth, exact) = value_of(child, &Limits::depth(RANK_DEPTH));
            bar.inc(1);
            Scored {
                mv: mv.to_string(),
                child: *child,
                value,
                depth,
                exact,
            }
        })
        .collect();
    scored.sort_by_key(|s| -s.value);
    for s in scored.iter_mut().take(DEEPENED) {
        let (value, depth, exact) = value_of(&s.child, &Limits::seconds(seconds));
        (s.value, s.depth, s.exact) = (value, depth, exact);
        bar.inc(1);
    }
    bar.finish_and_clear();
    let deepened = DEEPENED.min(scored.len());
    scored[..deepened].sort_by_key(|s| -s.value);
    (candidates.len(), scored)
}

/// A candidate move and its estimated value for the mover (fields in the
/// JSON's alphabetical key order, as every model of this layer).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoredMove {
    /// Depth of the search that estimated it.
    pub depth: u32,
    pub exact: bool,
    #[serde(rename = "move")]
    pub mv: String,
    pub value: i32,
}

/// North's replies to one of South's best moves.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    pub candidates: usize,
    pub legal_moves: u64,
    #[serde(rename = "move")]
    pub mv: String,
    pub position: String,
    pub replies: Vec<ScoredMove>,
    pub value: i32,
}

/// The opening report (`openings.json`; the page is rendered from it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpeningReport {
    /// Search time per deepened candidate; written by `sow report` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_seconds: Option<f64>,
    pub candidates: usize,
    pub command: String,
    /// Share of the legal first moves ranked.
    pub coverage: f64,
    pub game: String,
    pub legal_moves: u64,
    pub method: String,
    pub moves: Vec<ScoredMove>,
    pub position: String,
    pub replies: Vec<Reply>,
    pub seconds: f64,
}

fn moves_json(list: &[Scored], n: usize) -> Vec<ScoredMove> {
    list.iter()
        .take(n)
        .map(|s| ScoredMove {
            depth: s.depth,
            exact: s.exact,
            mv: s.mv.clone(),
            value: s.value,
        })
        .collect()
}

/// The opening report; a bar per ranking (South's moves, then North's
/// replies to each of South's best) counts the candidates ranked.
pub fn report(
    start: &KiothiPosition,
    seconds: f64,
    threads: usize,
    hash_mb: usize,
    progress: Progress,
) -> OpeningReport {
    let t0 = Instant::now();
    let tt = TranspositionTable::new(hash_mb);
    let bar = progress.count(0, "South", "candidates");
    let (count, south) = rank(start, seconds, threads, &tt, &bar);
    let mut replies = Vec::new();
    for (i, s) in south.iter().take(REPLIED).enumerate() {
        let bar = progress.count(0, format!("reply {}", i + 1), "candidates");
        let (n, north) = rank(&s.child, seconds / 2.0, threads, &tt, &bar);
        replies.push(Reply {
            candidates: n,
            legal_moves: s.child.move_count(),
            mv: s.mv.clone(),
            position: s.child.to_string(),
            replies: moves_json(&north, DEEPENED),
            value: s.value,
        });
    }
    OpeningReport {
        budget_seconds: None,
        game: "kiothi".into(),
        position: start.to_string(),
        legal_moves: start.move_count(),
        candidates: count,
        coverage: count as f64 / start.move_count().max(1) as f64,
        method: format!(
            "candidate families and {} seeded random placements per pair of lifted pits; every candidate ranked by a depth-{RANK_DEPTH} search, the best {DEEPENED} searched {seconds} s each ({threads} threads); North's replies to South's best {REPLIED} moves the same way with half the time",
            crate::search::kiothi_random_samples()
        ),
        moves: moves_json(&south, DEEPENED),
        replies,
        seconds: t0.elapsed().as_secs_f64(),
        command: String::new(),
    }
}
