//! The Kiothi opening book: a graph of positions from turn 1 on, grown
//! best-first and valued by the engine with minimax (`build`), kept in a
//! checksummed file (`file`) and asked by the commands (`probe`).

pub mod build;
pub mod dag;
pub mod error;
pub mod extend;
pub mod file;
pub mod leaf;
pub mod lock;
pub mod probe;
pub mod provider;
pub mod state;

pub use build::{grow, new_book, RunLimits, Stopped};
pub use error::BookError;
pub use probe::{Book, BookEntry, BookMove};
pub use provider::{EngineCandidates, EveryMove, MoveProvider};
pub use state::{BookState, BuildParams};
