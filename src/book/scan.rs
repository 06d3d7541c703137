//! The scans of an opening turn, as the commands call them: the first
//! moves of a setup (every one, by enumeration, scored by E1) and the
//! replies to a turn-2 position (the exact best K under E2 by bounds, or
//! every one by enumeration when a histogram is wanted).

use std::time::Instant;

use serde::Serialize;

use crate::games::kiothi::{KiothiPosition, OpeningMove, Setup, PITS};
use crate::infra::progress::{Progress, ProgressBar};

use super::best_k::best_k;
use super::count::opening_counts;
use super::enumerate::{enumerate, ScanEvaluator};
use super::error::BookError;
use super::models::{after_first, after_reply};
use super::score::stones;
use super::topk::{Entry, Histogram};
use super::turn::OpeningTurn;

/// How a scan visited the moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ScanMethod {
    /// Every move enumerated and scored.
    Enumeration,
    /// The exact best K of a separable evaluation, by bounds (`best_k`);
    /// the other moves are counted, not scored.
    Bounds,
}

/// One of the best moves of a scan.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScannedMove {
    /// RULES §3 notation.
    #[serde(rename = "move")]
    pub mv: String,
    /// The evaluation's estimate for the mover, in stones.
    pub score: f64,
    #[serde(skip)]
    pub opening: OpeningMove,
    /// The board it leaves.
    #[serde(skip)]
    pub board: [u8; PITS],
}

/// What a scan found. Scores are estimates for the mover of the scanned
/// turn (South at turn 1, North at turn 2), in stones.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scan {
    /// The position scanned (RULES §3).
    pub position: String,
    /// 1 or 2.
    pub turn: u8,
    /// Legal moves (RULES §2.2).
    pub moves: u64,
    /// Distinct boards they leave, each scored once.
    pub boards: u64,
    pub method: ScanMethod,
    /// Boards scored in full (all of them by enumeration).
    pub scored: u64,
    /// Whether `best` is proved to be the best `keep` boards.
    pub exact: bool,
    /// `E1` (board after South's first move) or `E2` (after North's reply).
    pub evaluator: &'static str,
    pub seconds: f64,
    /// The best boards, best first.
    pub best: Vec<ScannedMove>,
    /// Scores of every board in bins of one stone (enumeration only).
    pub histogram: Option<Histogram>,
    /// The same in bins of 1/16 stone (for cuts, see `trust`).
    #[serde(skip)]
    pub fine_histogram: Option<Histogram>,
}

fn moves_of(turn: &OpeningTurn, entries: &[Entry]) -> Vec<ScannedMove> {
    entries
        .iter()
        .map(|e| {
            let lift = &turn.lifts[e.lift as usize];
            let opening = OpeningMove::new(lift.lifted(), e.placed);
            let mut board = turn.lifted_board(lift);
            for (b, &x) in board.iter_mut().zip(e.placed.iter()) {
                *b += x;
            }
            ScannedMove {
                mv: opening.to_string(),
                score: stones(e.score),
                opening,
                board,
            }
        })
        .collect()
}

fn check_keep(keep: usize) -> Result<(), BookError> {
    if keep == 0 {
        return Err(BookError::BadParameter {
            field: "keep",
            message: "a scan keeps at least one move".into(),
        });
    }
    Ok(())
}

/// Enumerates every move of `turn` with `eval`.
fn enumerated<E: ScanEvaluator>(
    turn: &OpeningTurn,
    eval: &E,
    name: &'static str,
    keep: usize,
    bar: &ProgressBar,
) -> Scan {
    let t0 = Instant::now();
    let counts = opening_counts(turn);
    let found = enumerate(turn, eval, keep, bar);
    debug_assert_eq!(found.boards, counts.boards);
    debug_assert_eq!(found.boards + found.repeats, counts.moves);
    Scan {
        position: turn.position.to_string(),
        turn: turn.number(),
        moves: found.boards + found.repeats,
        boards: found.boards,
        method: ScanMethod::Enumeration,
        scored: found.boards,
        exact: true,
        evaluator: name,
        seconds: t0.elapsed().as_secs_f64(),
        best: moves_of(turn, &found.best),
        histogram: Some(found.histogram.by_stone()),
        fine_histogram: Some(found.histogram),
    }
}

/// Every first move of `setup` scored by E1, the `keep` best kept.
pub fn scan_first_moves(setup: Setup, keep: usize, progress: Progress) -> Result<Scan, BookError> {
    check_keep(keep)?;
    let turn = OpeningTurn::expect(&KiothiPosition::start(setup), 1)?;
    let bar = progress.bar(0, "first moves");
    Ok(enumerated(&turn, after_first(), "E1", keep, &bar))
}

/// The `keep` best replies to the turn-2 `position` under E2 by bounds
/// (see `best_k`), scoring at most `limit` boards in full: exact unless
/// the limit was reached (`exact`), whatever North's hand.
pub fn scan_replies(position: &KiothiPosition, keep: usize, limit: u64) -> Result<Scan, BookError> {
    check_keep(keep)?;
    let t0 = Instant::now();
    let turn = OpeningTurn::expect(position, 2)?;
    let counts = opening_counts(&turn);
    let found = best_k(&turn, after_reply(), keep, limit);
    Ok(Scan {
        position: position.to_string(),
        turn: 2,
        moves: counts.moves,
        boards: counts.boards,
        method: ScanMethod::Bounds,
        evaluator: "E2",
        seconds: t0.elapsed().as_secs_f64(),
        scored: found.examined,
        exact: found.exact,
        best: moves_of(&turn, &found.best),
        histogram: None,
        fine_histogram: None,
    })
}

/// Every reply to the turn-2 `position` scored by E2 (with the histogram):
/// as many boards as the turn-1 scan for North's usual hands of 10, and
/// far more (C(n+19, 19) per pair) for larger hands, which it refuses
/// beyond `max_moves`.
pub fn scan_replies_enumerated(
    position: &KiothiPosition,
    keep: usize,
    max_moves: u64,
    progress: Progress,
) -> Result<Scan, BookError> {
    check_keep(keep)?;
    let turn = OpeningTurn::expect(position, 2)?;
    let moves = opening_counts(&turn).moves;
    if moves > max_moves {
        return Err(BookError::BadParameter {
            field: "max_moves",
            message: format!("{moves} replies to enumerate, more than the {max_moves} allowed"),
        });
    }
    let bar = progress.bar(0, "replies");
    Ok(enumerated(&turn, after_reply(), "E2", keep, &bar))
}

/// South's two-ply estimate of the turn-2 `position`: minus North's best
/// reply under E2 (exact by bounds unless `limit` boards were scored), in
/// 1/`SCORE_SCALE` stones.
pub fn two_ply_score(position: &KiothiPosition, limit: u64) -> Result<i32, BookError> {
    let turn = OpeningTurn::expect(position, 2)?;
    let best = best_k(&turn, after_reply(), 1, limit).best;
    Ok(best.first().map_or(0, |e| -e.score))
}
