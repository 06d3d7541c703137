//! A search's budget (depth, time, nodes, table size, threads) as the
//! command line and the web oracle give it, checked once, and the default
//! search time of each command that searches when none is given.

use thiserror::Error;

use crate::error::{CliError, ErrorKind};
use crate::search::{Limits, TranspositionTable};

/// `sow eval` by search, with no depth, time or node limit: the whole search.
pub const EVAL_SECONDS: f64 = 5.0;

/// `sow analyze` of a Kiothi game: each position.
pub const ANALYZE_SECONDS: f64 = 1.0;

/// `sow play`: each engine move and each hint (Kiothi, or Kpé with `--time`).
pub const PLAY_SECONDS: f64 = 1.0;

/// The web oracle's searches (`/api/eval`, `/api/values`, `/api/play`)
/// given no `time` or `depth`, at most the server's longest search.
pub const SERVE_SECONDS: f64 = 2.0;

/// The web oracle's analysis of a Kiothi game (`/api/analyze`): each position.
pub const SERVE_ANALYZE_SECONDS: f64 = 0.2;

/// A search's budget; with no depth, time or node limit given,
/// [`EVAL_SECONDS`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Budget {
    pub depth: Option<u32>,
    pub seconds: Option<f64>,
    pub nodes: Option<u64>,
    pub hash_mb: usize,
    pub threads: usize,
}

/// What is wrong with a budget.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum BudgetError {
    #[error("the depth must be at least 1")]
    Depth,
    #[error("a search time must be a number of seconds, at least {min}, found {0}", min = Limits::MIN_SECONDS)]
    Seconds(f64),
    #[error("the node limit must be at least 1")]
    Nodes,
    #[error("a transposition table of {0} MiB cannot be allocated")]
    Table(usize),
}

impl BudgetError {
    /// The part of the budget at fault.
    pub fn field(&self) -> &'static str {
        match self {
            BudgetError::Depth => "depth",
            BudgetError::Seconds(_) => "time",
            BudgetError::Nodes => "nodes",
            BudgetError::Table(_) => "hash",
        }
    }
}

impl From<BudgetError> for CliError {
    fn from(e: BudgetError) -> Self {
        CliError::new(ErrorKind::Usage, Some(e.field()), e.to_string())
    }
}

impl Budget {
    /// Checks the numbers and turns them into search limits.
    pub fn limits(&self) -> Result<Limits, BudgetError> {
        if self.depth == Some(0) {
            return Err(BudgetError::Depth);
        }
        if let Some(s) = self.seconds.filter(|&s| !Limits::takes_seconds(s)) {
            return Err(BudgetError::Seconds(s));
        }
        if self.nodes == Some(0) {
            return Err(BudgetError::Nodes);
        }
        let none = self.depth.is_none() && self.seconds.is_none() && self.nodes.is_none();
        Ok(Limits {
            depth: self.depth,
            seconds: if none {
                Some(EVAL_SECONDS)
            } else {
                self.seconds
            },
            nodes: self.nodes,
        })
    }

    /// Whether a depth, time or node limit was given (a Kpé position is
    /// then searched, not read from its database).
    pub fn limited(&self) -> bool {
        self.depth.is_some() || self.seconds.is_some() || self.nodes.is_some()
    }

    /// The transposition table of `hash_mb` MiB, refused (not aborted)
    /// when the memory is not to be had.
    pub fn table(&self) -> Result<TranspositionTable, BudgetError> {
        TranspositionTable::try_new(self.hash_mb).ok_or(BudgetError::Table(self.hash_mb))
    }
}
