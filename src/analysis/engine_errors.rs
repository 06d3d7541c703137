//! How the engines' failures read in the error contract ([`CliError`]):
//! a database that cannot be read is kind `database`, field `db`; a bad
//! request keeps the kind and field of its [`InputError`]. Here, not in
//! `error.rs`, so that the root error types (which the rules use) do not
//! depend on the solver.
//!
//! [`InputError`]: crate::InputError

use crate::error::{CliError, ErrorKind};
use crate::kiothi_tables::EndgameError;
use crate::kpe_db::DbError;
use crate::kpe_db::SolveError;

impl From<SolveError> for CliError {
    fn from(e: SolveError) -> Self {
        match e {
            SolveError::Input(e) => e.into(),
            SolveError::Db(e) => CliError::new(ErrorKind::Database, Some("db"), e.to_string()),
        }
    }
}

impl From<DbError> for CliError {
    fn from(e: DbError) -> Self {
        SolveError::Db(e).into()
    }
}

impl From<EndgameError> for CliError {
    fn from(e: EndgameError) -> Self {
        CliError::new(ErrorKind::Database, Some("db"), e.to_string())
    }
}
