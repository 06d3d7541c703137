//! Kiothi openings (`sow::book`): the full scan and its evaluators, the reply search, and the opening book (values against exhaustive minimax, reproducibility, file refusals, `sow openings kiothi`).

mod book;
#[path = "../common/mod.rs"]
mod common;
mod page;
mod scan;
