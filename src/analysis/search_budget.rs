//! A search's budget as a user gives it (`--depth`, `--time`, `--nodes`,
//! `--hash`, `--threads`, or the web oracle's query), checked once for the
//! command line and the web oracle alike.

use crate::error::CliError;
use crate::search::Limits;

/// A search's budget (`eval`, the web oracle); with no depth, time or node
/// limit given, [`DEFAULT_SECONDS`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Budget {
    pub depth: Option<u32>,
    pub seconds: Option<f64>,
    pub nodes: Option<u64>,
    pub hash_mb: usize,
    pub threads: usize,
}

/// The search time when no limit is given.
pub const DEFAULT_SECONDS: f64 = 5.0;

impl Budget {
    /// Checks the numbers and turns them into search limits.
    pub fn limits(&self) -> Result<Limits, CliError> {
        if self.depth == Some(0) {
            return Err(CliError::usage("depth", "--depth must be at least 1"));
        }
        self.seconds.map(check_seconds).transpose()?;
        if self.nodes == Some(0) {
            return Err(CliError::usage("nodes", "--nodes must be at least 1"));
        }
        if self.hash_mb == 0 {
            return Err(CliError::usage("hash", "--hash must be at least 1 MiB"));
        }
        let none = self.depth.is_none() && self.seconds.is_none() && self.nodes.is_none();
        Ok(Limits {
            depth: self.depth,
            seconds: if none {
                Some(DEFAULT_SECONDS)
            } else {
                self.seconds
            },
            nodes: self.nodes,
        })
    }
}

/// Refuses a `--time` that is not finite or under `Limits::MIN_SECONDS`.
pub fn check_seconds(s: f64) -> Result<f64, CliError> {
    if !Limits::takes_seconds(s) {
        return Err(CliError::usage(
            "time",
            format!(
                "--time must be a number of seconds, at least {}, found {s}",
                Limits::MIN_SECONDS
            ),
        ));
    }
    Ok(s)
}
