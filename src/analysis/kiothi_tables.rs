//! The Kiothi endgame tables as the oracles use them (`eval`, `analyze`,
//! `play`, the web oracle): opened from the database directory, and named
//! on the pages and lines that took values from them. Building them is
//! `kiothi_tables` (`sow solve kiothi`).

use std::path::Path;
use std::sync::Arc;

use crate::error::CliError;
use crate::error::ErrorKind;
use crate::kiothi_tables::{KiothiEndgames, MAX_STONES};

/// The endgame tables in the database directory (`--db`, else the
/// default) for a search (`eval`, `analyze`, `play`, `serve`): every stone
/// count there is, memory-mapped and checked; none when it has none.
/// An explicit `db` must be a directory; only the default one may be
/// absent (no tables).
pub fn for_search(db: Option<&Path>) -> Result<Arc<KiothiEndgames>, CliError> {
    if let Some(dir) = db {
        check_given_dir(dir)?;
    }
    let db = crate::analysis::kpe_db::db_dir(db);
    Ok(Arc::new(KiothiEndgames::load(&db, MAX_STONES)?))
}

/// Refuses a `--db` given on the command line that is not a directory: a
/// typo there silently gave a search without tables (Kpé refuses it too).
fn check_given_dir(dir: &Path) -> Result<(), CliError> {
    let refuse = |why: String| {
        CliError::new(
            ErrorKind::Database,
            Some("db"),
            format!("--db {}: {why}", dir.display()),
        )
    };
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(refuse("not a directory".into())),
        Err(e) => Err(refuse(e.to_string())),
    }
}

/// What tables of 0-`n` warriors give, as `eval`, `solve` and `play`
/// print it.
pub fn coverage(n: usize) -> String {
    format!("exact values of boards of 0-{n} warriors")
}

/// How a Kiothi search took its values, for an analysis page.
pub fn search_method(seconds: f64, threads: usize, tables: &KiothiEndgames) -> String {
    let tables = match tables.max_stones() {
        Some(n) => format!("; endgame tables of 0-{n} warriors"),
        None => String::new(),
    };
    format!("search, {seconds} s per position on {threads} thread(s) (exact where proved{tables})")
}
