//! The command-line contract: every command's output, `--json`, the error contract and exit codes, and the command reference.

mod commands;
#[path = "../common/mod.rs"]
mod common;
mod contract;
mod docs_reference;
