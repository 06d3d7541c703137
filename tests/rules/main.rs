//! The rules of both games: hand-worked positions, properties, and a second implementation of each game compared move by move (RULES.md).

#[path = "../common/mod.rs"]
mod common;
mod kpe_rules;
mod properties;
mod reference_kiothi;
mod reference_kpe;
