//! Reliability: limits, locks, interrupted writes, and the regressions the fuzzers found.

#[path = "../common/mod.rs"]
mod common;
mod fuzz_regressions;
mod reliability;
