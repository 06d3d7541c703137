//! Where the book's moves at turns 1 and 2 come from. An opening position
//! has up to 300 million legal moves (RULES §2.2), far too many to value
//! one by one, so a *move provider* proposes them, best first by its own
//! ranking, and the book asks for more as it grows (progressive widening).
//! In play the book takes every legal move and needs no provider.

use std::ops::ControlFlow;

use crate::game::Game;
use crate::games::kiothi::{KiothiMove, KiothiPosition};
use crate::search::Searchable;

/// Proposes the moves of opening positions (turn 1 or turn 2).
pub trait MoveProvider: Sync {
    /// A short name (at most [`PROVIDER_NAME_LEN`] bytes), kept in the
    /// book's header: a book is extended only by the provider that began it,
    /// or its moves would not be reproducible.
    fn name(&self) -> &str;

    /// Up to `count` legal moves of the opening position `pos`, with the
    /// positions they lead to, best first by the provider's ranking.
    /// Deterministic in `(pos, count, seed)`. Asked again with a larger
    /// count, a provider should return the smaller answer's moves first;
    /// the book does not rely on it (it skips moves it already has).
    fn opening_moves(
        &self,
        pos: &KiothiPosition,
        count: usize,
        seed: u64,
    ) -> Vec<(KiothiMove, KiothiPosition)>;
}

/// Longest provider name the book file holds.
pub const PROVIDER_NAME_LEN: usize = 16;

/// The engine's own opening candidates (`Searchable::search_moves` in an
/// opening position: a few placement patterns and seeded random placements
/// per pair of lifted pits, best static evaluation first).
#[derive(Clone, Copy, Debug, Default)]
pub struct EngineCandidates;

impl MoveProvider for EngineCandidates {
    fn name(&self) -> &str {
        "candidates"
    }

    fn opening_moves(
        &self,
        pos: &KiothiPosition,
        count: usize,
        _seed: u64,
    ) -> Vec<(KiothiMove, KiothiPosition)> {
        let mut moves = pos.search_moves();
        moves.truncate(count);
        moves
    }
}

/// Every legal opening move, in the generator's order: for boards with few
/// warriors (tests), where the whole opening can be enumerated.
#[derive(Clone, Copy, Debug, Default)]
pub struct EveryMove;

impl MoveProvider for EveryMove {
    fn name(&self) -> &str {
        "every"
    }

    fn opening_moves(
        &self,
        pos: &KiothiPosition,
        count: usize,
        _seed: u64,
    ) -> Vec<(KiothiMove, KiothiPosition)> {
        let mut out = Vec::new();
        if count == 0 {
            return out;
        }
        let _ = pos.for_each_child(|mv, child| {
            out.push((mv, child));
            if out.len() >= count {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        out
    }
}
