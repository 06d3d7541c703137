//! Kiothi openings (RULES §2.2): the full scan of the opening
//! redistributions of a turn, the evaluations made for it, and the reply
//! search that values a turn-2 position (and through it a first move).
//!
//! Values are RULES §0 future margins for the player to move at the
//! position searched; scan scores are estimates, in stones, for the mover
//! of the scanned turn (South at turn 1, North at turn 2).

pub mod best_k;
pub mod correlation;
pub mod count;
pub mod engine;
pub mod enumerate;
pub mod error;
pub mod fit;
pub mod model;
pub mod models;
pub mod reply;
pub mod ridge;
pub mod sample;
pub mod scan;
pub mod score;
pub mod topk;
pub mod trust;
pub mod turn;

pub use count::{opening_counts, OpeningCounts};
pub use engine::{EngineValuer, Valued};
pub use error::BookError;
pub use reply::{first_move_value, reply_search, FirstMoveValue, Replies, ReplyBudget, ReplyValue};
pub use sample::random_opening_move;
pub use scan::{scan_first_moves, scan_replies, scan_replies_enumerated, Scan, ScanMethod, ScannedMove};
pub use turn::{Lift, OpeningTurn};
