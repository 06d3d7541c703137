//! Analysis: what positions and games are worth, on top of the engines
//! (`solve/` for exact Kpé values, `search/` for Kiothi estimates). The CLI
//! and the web server print these results; nothing here prints.

pub mod annotate;
pub mod evaluation;
pub mod game_text;
pub mod levels;
pub mod move_values;
pub mod oracle;
