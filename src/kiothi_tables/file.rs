//! The file of one stone count's table (`<db>/kiothi-endgame/stones-NN.sowdb`):
//! a 32-byte header (magic `SOWKTHI1`, stone count, entries, checksum of
//! the payload, little-endian u64 each) and one signed byte per board of
//! that count, in rank order. Written whole under a temporary name and
//! renamed; read mapped, checked whole before use.

use std::path::{Path, PathBuf};

use memmap2::Mmap;
use thiserror::Error;

use crate::infra::checksum::checksum;

/// The first bytes of a table file.
const MAGIC: &[u8; 8] = b"SOWKTHI1";
/// Magic, stone count, entries, checksum of the payload.
pub(super) const HEADER: usize = 8 + 8 + 8 + 8;

/// Errors of the endgame table files; each names the file.
#[derive(Debug, Error)]
pub enum EndgameError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a Kiothi endgame table of {stones} stones: {what}; delete it and rebuild it with `sow solve kiothi --stones {stones}`")]
    Corrupt {
        path: PathBuf,
        stones: usize,
        what: String,
    },
}

/// The file of the table of `stones` warriors in the database directory.
pub fn table_path(db: &Path, stones: usize) -> PathBuf {
    db.join("kiothi-endgame")
        .join(format!("stones-{stones:02}.sowdb"))
}

/// Writes the table of `n` stones (`values`, one a board) into `db`, whole
/// under a temporary name, then renamed.
pub(super) fn write(db: &Path, n: usize, values: &[i8]) -> Result<(), EndgameError> {
    let payload: &[u8] = bytes_of(values);
    let header = header(n, values.len() as u64, checksum(payload));
    crate::infra::files::write_atomic_parts(&table_path(db, n), &[&header, payload]).map_err(|e| {
        EndgameError::Io {
            path: e.path,
            source: e.source,
        }
    })
}

/// The header of the table of `n` stones: `entries` boards whose payload
/// has the checksum `sum` (also summed in slices, `retrograde_over_ranks.rs`).
pub(super) fn header(n: usize, entries: u64, sum: u64) -> Vec<u8> {
    let mut header = Vec::with_capacity(HEADER);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&(n as u64).to_le_bytes());
    header.extend_from_slice(&entries.to_le_bytes());
    header.extend_from_slice(&sum.to_le_bytes());
    debug_assert_eq!(header.len(), HEADER);
    header
}

/// A table's values as the bytes of its payload.
pub(super) fn bytes_of(values: &[i8]) -> &[u8] {
    // SAFETY: i8 and u8 have the same size and alignment, every bit
    // pattern is valid for both.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast(), values.len()) }
}

/// One table file of `n` stones holding `entries` boards, mapped and
/// checked: its magic, stone count, length and checksum. Its values are
/// the bytes after [`HEADER`].
pub(super) fn read(path: &Path, n: usize, entries: u64) -> Result<Mmap, EndgameError> {
    let io = |source| EndgameError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    // SAFETY: table files are written whole under a temporary name and
    // renamed, never modified in place; the checksum below is checked on
    // the mapped bytes themselves.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
    let corrupt = |what: String| EndgameError::Corrupt {
        path: path.to_path_buf(),
        stones: n,
        what,
    };
    if map.len() < HEADER || &map[..8] != MAGIC {
        return Err(corrupt("no table header".into()));
    }
    let word = |i: usize| u64::from_le_bytes(map[8 * i..8 * i + 8].try_into().expect("8 bytes"));
    if word(1) != n as u64 {
        return Err(corrupt(format!("its header says {} stones", word(1))));
    }
    if word(2) != entries || (map.len() - HEADER) as u64 != entries {
        return Err(corrupt(format!(
            "{} entries in a file of {} bytes, {entries} expected",
            word(2),
            map.len()
        )));
    }
    if checksum(&map[HEADER..]) != word(3) {
        return Err(corrupt("checksum mismatch".into()));
    }
    Ok(map)
}
