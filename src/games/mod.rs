//! Per-game rules, one module each.

pub mod kiothi;
pub mod kpe;
