//! Kiothi openings (RULES §2.2), one room: the full scan of the opening
//! redistributions of a turn and the evaluations made for it (`turn`,
//! `count`, `enumerate`, `scan`, `topk`, `best_k`, `model`, `models`,
//! `fit`, `ridge`), the reply search that values a turn-2 position and
//! through it a first move, and chooses North's reply in play (`reply`,
//! `engine`, `reply_agent`), the measures of how far
//! the scan can be trusted (`trust`, `correlation`, `sample`), and the
//! opening book: a graph of positions from turn 1 on, keyed by position,
//! grown best-first by drop-out expansion over the moves a `provider`
//! proposes, valued by the engine at its leaves with minimax (`dag`,
//! `build`, `extend`, `leaf`, `state`), kept in a checksummed, locked file
//! (`file`, `lock`) and asked by the commands (`probe`).
//!
//! Values are RULES §0 future margins for the player to move at the
//! position searched; scan scores are estimates, in stones, for the mover
//! of the scanned turn (South at turn 1, North at turn 2).

pub mod best_k;
pub mod build;
pub mod correlation;
pub mod count;
pub mod dag;
pub mod engine;
pub mod enumerate;
pub mod error;
pub mod extend;
pub mod file;
pub mod fit;
pub mod leaf;
pub mod lock;
pub mod model;
pub mod models;
pub mod probe;
pub mod provider;
pub mod reply;
pub mod reply_agent;
pub mod ridge;
pub mod sample;
pub mod scan;
pub mod scan_provider;
pub mod score;
pub mod state;
pub mod topk;
pub mod trust;
pub mod turn;

pub use build::{grow, new_book, RunLimits, Stopped};
pub use count::{opening_counts, OpeningCounts};
pub use engine::{EngineValuer, Valued};
pub use error::BookError;
pub use probe::{default_path, Book, BookEntry, BookMove};
pub use provider::{EngineCandidates, EveryMove, MoveProvider};
pub use reply::{
    first_move_value, is_turn_2, reply_search, FirstMoveValue, Replies, ReplyBudget, ReplyLimits,
    ReplyValue,
};
pub use reply_agent::ReplyAgent;
pub use sample::random_opening_move;
pub use scan::{
    scan_first_moves, scan_replies, scan_replies_enumerated, Scan, ScanMethod, ScannedMove,
};
pub use scan_provider::ScanProvider;
pub use state::{BookState, BuildParams};
pub use turn::{Lift, OpeningTurn};
