//! The `sow` command line, as library functions the thin binary calls.
//!
//! Every command is written generically over [`Game`](crate::game::Game) plus
//! the small [`Board`] trait for drawing, and dispatched on [`AnyPosition`].
//! Output goes through [`Out`], which writes either human text or exactly one
//! JSON object; errors are [`CliError`]s, printed by [`Out::fail`].

pub mod apply;
pub mod board;
// KIOTHI: remove this `cfg` once `sow::games::kiothi` is merged (draft Board impl).
#[cfg(any())]
mod kiothi_board;
pub mod moves;
pub mod output;
pub mod perft;
pub mod position;
pub mod show;

pub use board::Board;
pub use output::{CliError, Out};
pub use position::{parse_any, AnyPosition};

/// Above this many legal moves, `show` and `moves` print the count only
/// (`moves --all` enumerates them anyway).
pub const MOVE_LIST_LIMIT: u64 = 10_000;

/// `perft --divide` refuses roots with more moves than this.
pub const DIVIDE_LIMIT: u64 = 100_000;
