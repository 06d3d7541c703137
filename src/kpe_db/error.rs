//! The errors of the Kpé database: [`DbError`] for its files (each names
//! the file or directory at fault), [`SolveError`] for a question about a
//! position (a database error, or a position the database cannot answer).

use std::path::{Path, PathBuf};

use thiserror::Error;

/// Errors of database files. Each names the file at fault.
#[derive(Debug, Error)]
pub enum DbError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: corrupt database file: {what}")]
    Corrupt { path: PathBuf, what: String },
    #[error("{path}: database file does not match: {what}")]
    Mismatch { path: PathBuf, what: String },
    #[error("{path}: truncated database file: {what}")]
    Truncated { path: PathBuf, what: String },
    /// A file of another format version than the one this sow reads
    /// (`reads`).
    #[error("{path}: database format version {version}, this sow reads version {reads}: delete {dir} and re-solve with `{hint}`")]
    OldFormat {
        path: PathBuf,
        version: u32,
        reads: u32,
        dir: PathBuf,
        hint: String,
    },
    #[error("no database for {variant} in {dir}: run `{hint}`")]
    Missing {
        variant: String,
        dir: PathBuf,
        hint: String,
    },
    #[error("incomplete database for {variant} in {dir} ({what}): {state}")]
    Incomplete {
        variant: String,
        dir: PathBuf,
        what: String,
        state: String,
    },
}

impl DbError {
    /// The I/O error of `path`, as a closure for `map_err`.
    pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> DbError + '_ {
        move |source| DbError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Errors answering a question about a Kpé position.
#[derive(Debug, Error)]
pub enum SolveError {
    #[error(transparent)]
    Db(#[from] DbError),
    #[error(transparent)]
    Input(#[from] crate::InputError),
}
