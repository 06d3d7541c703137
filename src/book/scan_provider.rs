//! The book's opening moves from the scans (`scan`), in place of the
//! engine's few candidate families: at the setup's turn 1, the best first
//! moves of the full scan (every first move scored by E1), re-ranked by
//! North's best reply under E2 (the exact best reply by bounds, so each
//! move is ranked by a two-ply minimax of the scan's evaluations); at turn
//! 2, the reply scan's best replies under E2. The engine then values
//! whatever the book takes, so the scan only has to keep the good moves
//! among those it proposes.

use rayon::prelude::*;

use crate::games::kiothi::{KiothiMove, KiothiPosition, OpeningMove, Setup};
use crate::infra::progress::Progress;

use super::best_k::best_k;
use super::error::BookError;
use super::models::{after_first, after_reply};
use super::provider::MoveProvider;
use super::scan::{scan_first_moves, two_ply_score};
use super::score::stones;
use super::turn::OpeningTurn;

/// First moves kept from the full scan and re-ranked: the most a book's
/// turn 1 can hold from this provider.
pub const FIRST_MOVES_KEPT: usize = 1024;

/// Most boards a reply scan scores in full (see `best_k`).
pub const REPLY_SCAN_LIMIT: u64 = 100_000;

/// A first move ranked by the scans.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RankedFirstMove {
    pub opening: OpeningMove,
    /// E1's score of the board it leaves, for South, in stones.
    pub score: f64,
    /// Minus North's best reply under E2, for South, in stones.
    pub two_ply: f64,
}

/// Proposes the scans' best opening moves (see the module).
#[derive(Clone, Debug)]
pub struct ScanProvider {
    start: KiothiPosition,
    first: Vec<RankedFirstMove>,
    /// Distinct boards of the full scan and its seconds, for the record.
    pub boards: u64,
    pub scan_seconds: f64,
}

impl ScanProvider {
    /// Scans every first move of `setup` and re-ranks its best `keep`.
    pub fn new(setup: Setup, keep: usize, progress: Progress) -> Result<ScanProvider, BookError> {
        let scan = scan_first_moves(setup, keep, progress)?;
        let start = KiothiPosition::start(setup);
        let mut first = scan
            .best
            .par_iter()
            .enumerate()
            .map(|(i, m)| {
                let v = two_ply_score(&start.play_opening(&m.opening), REPLY_SCAN_LIMIT)?;
                Ok((v, i, m))
            })
            .collect::<Result<Vec<_>, BookError>>()?;
        // Best two-ply estimate first; ties keep the scan's order.
        first.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        Ok(ScanProvider {
            start,
            first: first
                .into_iter()
                .map(|(v, _, m)| RankedFirstMove {
                    opening: m.opening,
                    score: m.score,
                    two_ply: stones(v),
                })
                .collect(),
            boards: scan.boards,
            scan_seconds: scan.seconds,
        })
    }

    /// The first moves it proposes, best first.
    pub fn first_moves(&self) -> &[RankedFirstMove] {
        &self.first
    }

    fn with_children(
        pos: &KiothiPosition,
        moves: impl Iterator<Item = OpeningMove>,
    ) -> Vec<(KiothiMove, KiothiPosition)> {
        moves
            .map(|m| (KiothiMove::Opening(m), pos.play_opening(&m)))
            .collect()
    }
}

impl MoveProvider for ScanProvider {
    fn name(&self) -> &str {
        "scan"
    }

    fn opening_moves(
        &self,
        pos: &KiothiPosition,
        count: usize,
        _seed: u64,
    ) -> Vec<(KiothiMove, KiothiPosition)> {
        if *pos == self.start {
            return Self::with_children(pos, self.first.iter().take(count).map(|m| m.opening));
        }
        // Another turn 1 (a test board) by E1's bounds, a turn 2 by E2's.
        let Ok(turn) = OpeningTurn::new(pos) else {
            return Vec::new();
        };
        let eval = match turn.number() {
            1 => after_first(),
            _ => after_reply(),
        };
        let best = best_k(&turn, eval, count, REPLY_SCAN_LIMIT).best;
        Self::with_children(
            pos,
            best.iter()
                .map(|e| OpeningMove::new(turn.lifts[e.lift as usize].lifted(), e.placed)),
        )
    }
}
