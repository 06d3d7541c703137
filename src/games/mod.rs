//! Per-game rules, one module each.

mod any;
pub mod game_name;
pub mod kiothi;
pub mod kpe;

pub use any::{parse_any, AnyPosition};
