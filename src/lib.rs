//! sow: rules engines, solver and search for the mancala games Kpé and Kiothi.

pub mod analysis;
pub mod book;
pub mod cli;
pub mod error;
pub mod game;
pub mod games;
pub mod infra;
pub mod kiothi_tables;
pub mod kpe_db;
pub mod perft;
pub mod prove;
pub mod record;
pub mod report;
pub mod retrograde;
pub mod search;
pub mod serve;

pub use error::InputError;
pub use game::{Game, Side};
