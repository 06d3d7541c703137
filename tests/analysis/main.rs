//! Analysis on the command line: `analyze`, `tune`, `report`, `export`.

mod analyze;
#[path = "../common/mod.rs"]
mod common;
mod export;
mod report;
mod tune;
