//! The `sow` command line: each command parses and checks its flags, asks
//! the library (`analysis`, `report`, `serve`) for the work, and prints.
//! Output goes through [`Out`], which writes either human text or exactly
//! one JSON object; errors are [`CliError`]s, printed by [`Out::fail`].

pub mod analyze;
pub mod apply;
pub mod args;
pub mod completions;
pub mod eval;
pub mod export;
pub mod kiothi_tables;
pub mod man;
pub mod matches;
pub mod moves;
pub mod openings;
pub mod output;
pub mod over_ranks;
pub mod paths;
pub mod perft;
pub mod play;
pub mod prove;
pub mod report;
pub mod serve;
pub mod show;
pub mod solve;
pub mod stats;
pub mod tune;
pub mod variants;

pub use crate::analysis::position_models::MOVE_LIST_LIMIT;
pub use crate::games::{parse_any, AnyPosition};
pub use output::{CliError, Out};

/// The command line that reproduces this run, for the page. An argument
/// that is not UTF-8 (a file name) is shown lossily: `env::args` panicked.
pub fn command_line() -> String {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .map(|a| if a.contains(' ') { format!("'{a}'") } else { a })
        .collect();
    format!("sow {}", args.join(" "))
}
