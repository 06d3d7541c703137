//! `sow solve '<kiothi position>' --keep FILE`: the prover's table of
//! proved bounds read from FILE before the proof and written back to it
//! after (`prove::bounds_file`), also when Ctrl-C or a limit stopped the
//! proof: a long proof can be stopped and taken up again.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::CliError;
use crate::error::ErrorKind;
use crate::infra::files;
use crate::kpe_db::estimate::disk_budget;
use crate::prove::bounds::BoundTable;
use crate::prove::bounds_file::{self, kiothi_fingerprint};

/// The field of every refusal (the flag).
const FIELD: &str = "keep";

/// A file of kept bounds, read into a proof's table.
pub struct KeptBounds {
    path: PathBuf,
    /// This build's rules fingerprint (`bounds_file::fingerprint`).
    fingerprint: u64,
    /// Entries the file held (0 for a new file).
    pub read: u64,
}

impl KeptBounds {
    /// Checks, before any work, that FILE can be written back (a regular
    /// file or none, a writable directory, disk space for every entry
    /// `table` can hold: `$SOW_DISK_MIB` sets the budget, as for a solve),
    /// then reads what FILE holds into `table`.
    pub fn open(path: &Path, table: &BoundTable) -> Result<Self, CliError> {
        files::check_writable_parent(path).map_err(|e| refusal(ErrorKind::Io, e.to_string()))?;
        let most = largest_file(table);
        // The budget of the file system FILE is on (or its directory's).
        if let Some(free) = disk_budget(path).filter(|&free| free < most) {
            return Err(refusal(
                ErrorKind::Unsupported,
                format!(
                    "{} can take up to {} MiB (every entry of the --hash table), {} MiB free there",
                    path.display(),
                    most >> 20,
                    free >> 20
                ),
            ));
        }
        let fingerprint = kiothi_fingerprint();
        let read = if path.exists() {
            read_into(path, fingerprint, table)?
        } else {
            0
        };
        Ok(KeptBounds {
            path: path.to_path_buf(),
            fingerprint,
            read,
        })
    }

    /// Writes `table` back to the file (a temporary renamed over it): the
    /// entries written.
    pub fn save(&self, table: &BoundTable) -> Result<u64, CliError> {
        let fail = |source| files::WriteError {
            path: self.path.clone(),
            source,
        };
        files::write_atomic_with(&self.path, |file| {
            let mut out = BufWriter::new(file);
            let n = bounds_file::write(table, self.fingerprint, &mut out).map_err(fail)?;
            out.flush().map_err(fail)?;
            Ok(n)
        })
        .map_err(|e: files::WriteError| refusal(ErrorKind::Io, e.to_string()))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The largest file `table` can make: every slot an entry, and the
/// header and trailer.
fn largest_file(table: &BoundTable) -> u64 {
    table.bytes() as u64 + 64
}

fn read_into(path: &Path, fingerprint: u64, table: &BoundTable) -> Result<u64, CliError> {
    let file = fs::File::open(path)
        .map_err(|e| refusal(ErrorKind::Io, format!("reading {}: {e}", path.display())))?;
    // SAFETY: the file is only read, and only while this function runs;
    // sow replaces it by a rename, never writes into it.
    let map = unsafe { memmap2::Mmap::map(&file) }
        .map_err(|e| refusal(ErrorKind::Io, format!("reading {}: {e}", path.display())))?;
    bounds_file::read(&map, fingerprint, table).map_err(|e| {
        refusal(
            ErrorKind::Malformed,
            format!("{}: {e} (remove it to start afresh)", path.display()),
        )
    })
}

fn refusal(kind: ErrorKind, message: String) -> CliError {
    CliError::new(kind, Some(FIELD), message)
}
