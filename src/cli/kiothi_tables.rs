//! `sow solve kiothi [--stones N]`: builds the Kiothi endgame tables
//! (`kiothi_tables::build`) into the database directory, reusing the stone
//! counts already there; `sow solve '<kiothi position>'` then takes exact
//! values from them.

use std::path::Path;

use super::{CliError, Out};
use crate::analysis::tables_build::build_tables;
use crate::infra::progress::Progress;
use crate::report::tables_build::{layer_line, text};
use crate::retrograde::ranks::Transport;

pub use crate::analysis::tables_build::DEFAULT_STONES;

/// Builds the tables of 0 to `stones` warriors into `db`, by the ranks of
/// `ranks` together when given (an MPI run: every rank calls this, rank 0
/// alone prints).
pub fn run(
    ranks: Option<&dyn Transport>,
    stones: usize,
    db: &Path,
    out: &mut Out,
) -> Result<(), CliError> {
    let progress = Progress::auto(out.quiet || out.json || ranks.is_some_and(|t| t.rank() != 0));
    let json = out.json;
    let report = build_tables(ranks, stones, db, progress, |layer| match json {
        true => Ok(()),
        false => out.line(layer_line(layer)),
    })?;
    out.result(&report, text)
}
