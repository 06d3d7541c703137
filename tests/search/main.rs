//! The Kiothi and Kpé search engine: values against exhaustive minimax, and `sow eval` / `sow solve` by search on the command line.

mod command;
#[path = "../common/mod.rs"]
mod common;
mod engine;
