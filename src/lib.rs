//! sow: rules engines, solver and search for the mancala games Kpé and Kiothi.

pub mod error;
pub mod game;
pub mod games;
pub mod perft;
pub mod search;

pub use error::InputError;
pub use game::{Game, Side};
