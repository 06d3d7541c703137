//! Game-tree search: iterative-deepening principal variation search with a
//! shared lock-free transposition table, Lazy SMP threads, and the
//! game-playing agents (matches between them are in `crate::analysis`).
//!
//! Values follow RULES §0: the future margin for the player to move. A move
//! that captures `g` stones is worth `g - value(child)`; a finished game is
//! worth `Game::terminal_value`; a position already on the current line
//! scores 0 (endless play).

pub mod agents;
pub mod exact_values;
pub mod hand_eval;
pub mod kiothi_eval;

/// Random placements per pair of lifted pits among Kiothi opening candidates.
pub fn kiothi_random_samples() -> usize {
    kiothi_eval::RANDOM_SAMPLES
}
mod kpe_eval;
pub mod negamax;
pub mod threads;
pub mod tt;
pub mod zobrist;

use std::ops::ControlFlow;

use crate::game::Game;

pub use agents::{Agent, AgentSpec};
pub use exact_values::{ExactValues, NoTables};
pub use negamax::{Limits, SearchResult};
pub use threads::{search, search_fresh, search_with};
pub use tt::TranspositionTable;

/// Larger than any value a game can reach (boards hold at most 128 stones).
pub const INFINITY: i32 = 30_000;

/// Slots of the history heuristic table per side.
pub const HISTORY_SLOTS: usize = 1024;

/// What the search needs from a game beyond its rules.
pub trait Searchable: Game {
    /// Zobrist hash of everything `repetition_key` keeps (counts, marks or
    /// protection, side to move, phase); captured stones are not hashed.
    fn zobrist(&self) -> u64;

    /// Heuristic estimate of the future margin for the player to move, used
    /// at the search horizon (same scale as values: stones).
    fn evaluate(&self) -> i32;

    /// A hand-set evaluation kept for comparison (`ab:eval=hand`); by
    /// default the same as `evaluate`.
    fn evaluate_hand(&self) -> i32 {
        self.evaluate()
    }

    /// Stones the mover of `parent` gained by the move leading to `child`.
    fn capture_gain(parent: &Self, child: &Self) -> i32 {
        let me = parent.side_to_move().index();
        child.captured()[me] as i32 - parent.captured()[me] as i32
    }

    /// The moves the search considers, with their children, in a fixed order
    /// (the transposition table stores a best move as an index in it).
    /// Default: every legal move. A game whose positions have too many moves
    /// (a Kiothi opening) returns a selection of candidates instead.
    fn search_moves(&self) -> Vec<(Self::Move, Self)> {
        let mut out = Vec::new();
        let _ = self.for_each_child(|mv, child| {
            out.push((mv, child));
            ControlFlow::Continue(())
        });
        out
    }

    /// [`Self::search_moves`] into `out` (cleared first), for searches that
    /// keep one buffer from node to node. Default: through `search_moves`.
    fn search_moves_into(&self, out: &mut Vec<(Self::Move, Self)>) {
        out.clear();
        out.extend(self.search_moves());
    }

    /// Slot of a move in the history table, in `0..HISTORY_SLOTS`.
    fn history_slot(mv: &Self::Move) -> usize;

    /// A cheap estimate of how many moves the player to move has, without
    /// playing them (the prover's proof-number search starts a new node's
    /// numbers from it). Default: unknown, 1.
    fn mobility(&self) -> u32 {
        1
    }
}
