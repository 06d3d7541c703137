//! A file of kept bounds (`sow solve POSITION --keep FILE`): the prover's
//! table of proved bounds read from FILE before a proof and written back
//! after it, also when a limit or Ctrl-C stopped the proof, so that a long
//! proof can be taken up again. The layout is `bounds_file.rs`'s.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::bounds::BoundTable;
use super::bounds_file::{self, kiothi_fingerprint, BoundFileError};
use crate::infra::files::{self, WriteError};
use crate::infra::limits::disk_budget;

/// Why a file of kept bounds cannot be used.
#[derive(Debug, Error)]
pub enum KeptBoundsError {
    /// FILE cannot be replaced, or its directory written (checked before
    /// any work).
    #[error(transparent)]
    NotWritable(WriteError),
    /// The disk has no room for a file of every entry the table can hold.
    #[error(
        "{} can take up to {} MiB (every entry of the bound table), {} MiB free there",
        path.display(), most >> 20, free >> 20
    )]
    NoRoom {
        path: PathBuf,
        /// Bytes of the largest file the table can make.
        most: u64,
        /// Bytes the disk budget allows (`$SOW_DISK_MIB`, else free space).
        free: u64,
    },
    /// FILE could not be opened or mapped.
    #[error("reading {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// FILE is not a file of bounds this build can use.
    #[error("{}: {source} (remove it to start afresh)", path.display())]
    Malformed {
        path: PathBuf,
        source: BoundFileError,
    },
    /// Writing FILE back failed.
    #[error(transparent)]
    Write(WriteError),
}

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
    pub fn open(path: &Path, table: &BoundTable) -> Result<Self, KeptBoundsError> {
        files::check_writable_parent(path).map_err(KeptBoundsError::NotWritable)?;
        let most = largest_file(table);
        // The budget of the file system FILE is on (or its directory's).
        if let Some(free) = disk_budget(path).filter(|&free| free < most) {
            return Err(KeptBoundsError::NoRoom {
                path: path.to_path_buf(),
                most,
                free,
            });
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
    pub fn save(&self, table: &BoundTable) -> Result<u64, KeptBoundsError> {
        let fail = |source| WriteError {
            path: self.path.clone(),
            source,
        };
        files::write_atomic_with(&self.path, |file| {
            let mut out = BufWriter::new(file);
            let n = bounds_file::write(table, self.fingerprint, &mut out).map_err(fail)?;
            out.flush().map_err(fail)?;
            Ok(n)
        })
        .map_err(KeptBoundsError::Write)
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

fn read_into(path: &Path, fingerprint: u64, table: &BoundTable) -> Result<u64, KeptBoundsError> {
    let unreadable = |source| KeptBoundsError::Read {
        path: path.to_path_buf(),
        source,
    };
    let file = fs::File::open(path).map_err(unreadable)?;
    // SAFETY: the file is only read, and only while this function runs;
    // sow replaces it by a rename, never writes into it.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(unreadable)?;
    bounds_file::read(&map, fingerprint, table).map_err(|source| KeptBoundsError::Malformed {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prove::bounds::Proved;

    #[test]
    fn bounds_kept_in_a_file_come_back_and_a_damaged_file_is_refused() {
        let dir = std::env::temp_dir().join(format!("sow-kept-bounds-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bounds.bnd");
        let table = BoundTable::new(1);
        let kept = KeptBounds::open(&path, &table).unwrap();
        assert_eq!((kept.read, kept.path()), (0, path.as_path()));
        let p = Proved {
            lo: -3,
            hi: 5,
            best: Some(1),
            open: None,
        };
        table.store(42 << 8, p, 7);
        assert_eq!(kept.save(&table).unwrap(), 1);

        let back = BoundTable::new(1);
        assert_eq!(KeptBounds::open(&path, &back).unwrap().read, 1);
        assert_eq!(back.probe(42 << 8), Some(p));

        let bytes = fs::read(&path).unwrap();
        fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        let e = KeptBounds::open(&path, &BoundTable::new(1)).err().unwrap();
        assert!(matches!(e, KeptBoundsError::Malformed { .. }), "{e}");
        assert!(
            e.to_string().ends_with("(remove it to start afresh)"),
            "{e}"
        );
        // A directory in FILE's place cannot be replaced.
        let e = KeptBounds::open(&dir, &BoundTable::new(1)).err().unwrap();
        assert!(matches!(e, KeptBoundsError::NotWritable(_)), "{e}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
