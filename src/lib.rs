//! sow: rules engines, solver and search for the mancala games Kpé and Kiothi.

pub mod allocator;
pub mod analysis;
pub mod checksum;
pub mod cli;
pub mod error;
pub mod files;
pub mod game;
pub mod games;
pub mod interrupt;
pub mod limits;
pub mod perft;
pub mod prefetch;
pub mod progress;
pub mod record;
pub mod report;
pub mod rng;
pub mod search;
pub mod serve;
pub mod solve;

pub use error::InputError;
pub use game::{Game, Side};
