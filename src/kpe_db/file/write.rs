//! Writing database files: the payload cut into blocks of 4 KiB, each
//! checksummed and, for value files, compressed by zstd on its own; the
//! header and block table in front; all written to a temporary name and
//! renamed when whole (`infra/files.rs`).

use std::borrow::Cow;
use std::fs;
use std::path::Path;

use super::header::{Encoding, FileId, Header};
use crate::infra::checksum::checksum;
use crate::kpe_db::error::DbError;

/// zstd level of value blocks: level 1 compresses the standard game's
/// largest layer as well as level 3 (3.4×) and faster; higher levels cost
/// solve time for little (`results/BENCHMARKS.md`).
const ZSTD_LEVEL: i32 = 1;
/// Payload bytes per checksummed block: small, so that the first probe of
/// a block checks little more than it reads.
pub(super) const BLOCK: usize = 1 << 12;

/// Writes a plain database file atomically (temporary file, then rename).
pub fn write_file(path: &Path, id: FileId, entries: u64, payload: &[u8]) -> Result<(), DbError> {
    write_file_parts(path, id, entries, &[payload])
}

/// Checksums of the 4 KiB blocks of a payload given as consecutive parts
/// (blocks may straddle parts).
fn block_checksums(parts: &[&[u8]]) -> Vec<u64> {
    let mut sums = Vec::new();
    let mut pending: Vec<u8> = Vec::with_capacity(BLOCK);
    for part in parts {
        let mut rest = *part;
        if !pending.is_empty() {
            let take = (BLOCK - pending.len()).min(rest.len());
            pending.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if pending.len() == BLOCK {
                sums.push(checksum(&pending));
                pending.clear();
            }
        }
        let whole = rest.len() / BLOCK * BLOCK;
        sums.extend(rest[..whole].chunks_exact(BLOCK).map(checksum));
        pending.extend_from_slice(&rest[whole..]);
    }
    if !pending.is_empty() {
        sums.push(checksum(&pending));
    }
    sums
}

fn u64_bytes(words: impl IntoIterator<Item = u64>) -> Vec<u8> {
    words.into_iter().flat_map(u64::to_le_bytes).collect()
}

/// Writes a plain database file whose payload is the concatenation of
/// `parts`, without ever holding that concatenation in memory.
pub fn write_file_parts(
    path: &Path,
    id: FileId,
    entries: u64,
    parts: &[&[u8]],
) -> Result<(), DbError> {
    let sums = block_checksums(parts);
    let blocks = sums.len();
    write_raw(
        path,
        id,
        Encoding::Plain,
        entries,
        (blocks, &u64_bytes(sums)),
        parts,
    )
}

/// Writes a value file (one entry byte per position) in `encoding`.
pub fn write_values(
    path: &Path,
    id: FileId,
    values: &[u8],
    encoding: Encoding,
) -> Result<(), DbError> {
    ValueFile::encode(values, encoding).write(path, id)
}

/// A value file's contents, encoded: what [`write_values`] writes, made
/// apart from the writing so that a thread of its own can write it while
/// the solve goes on ([`Self::into_owned`], `build/layers.rs`).
pub struct ValueFile<'a> {
    encoding: Encoding,
    entries: u64,
    /// Checksummed blocks, and the table of their checksums (then, for
    /// compressed blocks, their offsets).
    block_count: usize,
    table: Vec<u8>,
    /// The payload, in parts: the values themselves when plain.
    parts: Vec<Cow<'a, [u8]>>,
}

impl<'a> ValueFile<'a> {
    /// Encodes `values` (both threads compressing blocks). Plain values
    /// are borrowed, not copied.
    pub fn encode(values: &'a [u8], encoding: Encoding) -> Self {
        use rayon::prelude::*;
        let entries = values.len() as u64;
        if encoding == Encoding::Plain {
            let sums = block_checksums(&[values]);
            return ValueFile {
                encoding,
                entries,
                block_count: sums.len(),
                table: u64_bytes(sums),
                parts: vec![Cow::Borrowed(values)],
            };
        }
        let blocks = compressed_blocks(values);
        let mut offsets = Vec::with_capacity(blocks.len() + 1);
        let mut at = 0u64;
        for b in &blocks {
            offsets.push(at);
            at += b.len() as u64;
        }
        offsets.push(at);
        let sums: Vec<u64> = blocks.par_iter().map(|b| checksum(b)).collect();
        ValueFile {
            encoding,
            entries,
            block_count: blocks.len(),
            table: u64_bytes(sums.into_iter().chain(offsets)),
            parts: blocks,
        }
    }

    /// The file holding its own bytes (a copy of every part still
    /// borrowed from the values: all of them when plain, the few blocks
    /// that did not compress otherwise), for a thread that outlives them.
    pub fn into_owned(self) -> ValueFile<'static> {
        ValueFile {
            encoding: self.encoding,
            entries: self.entries,
            block_count: self.block_count,
            table: self.table,
            parts: (self.parts.into_iter())
                .map(|p| Cow::Owned(p.into_owned()))
                .collect(),
        }
    }

    /// Writes the file to `path` (a temporary file, then renamed).
    pub fn write(&self, path: &Path, id: FileId) -> Result<(), DbError> {
        let parts: Vec<&[u8]> = self.parts.iter().map(|p| &p[..]).collect();
        write_raw(
            path,
            id,
            self.encoding,
            self.entries,
            (self.block_count, &self.table),
            &parts,
        )
    }
}

/// The stored blocks of zstd-encoded `values` (both threads compressing):
/// each [`BLOCK`] of entries compressed on its own, or kept as it is when
/// that is no smaller. A slice of a layer starting at a block boundary
/// gives that layer's blocks (`write_over_ranks.rs`).
pub(super) fn compressed_blocks(values: &[u8]) -> Vec<Cow<'_, [u8]>> {
    use rayon::prelude::*;
    values
        .par_chunks(BLOCK)
        .map_init(
            || zstd::bulk::Compressor::new(ZSTD_LEVEL),
            |c, raw| match c.as_mut().ok().and_then(|c| c.compress(raw).ok()) {
                Some(z) if z.len() < raw.len() => Cow::Owned(z),
                _ => Cow::Borrowed(raw),
            },
        )
        .collect()
}

/// Writes header, block table (`blocks` blocks) and payload parts to a
/// temporary file, then renames it.
fn write_raw(
    path: &Path,
    id: FileId,
    encoding: Encoding,
    entries: u64,
    (blocks, table): (usize, &[u8]),
    parts: &[&[u8]],
) -> Result<(), DbError> {
    let dir = path.parent().expect("database files live in a directory");
    fs::create_dir_all(dir).map_err(DbError::io(dir))?;
    let header = Header {
        entries,
        encoding,
        payload: parts.iter().map(|p| p.len()).sum(),
        block: BLOCK,
        blocks,
    };
    let header = header.bytes(id, checksum(table));
    // A failed write (disk full, a file size limit, no permission) leaves
    // no partial file behind, and the error names the file being written.
    let mut all: Vec<&[u8]> = Vec::with_capacity(parts.len() + 2);
    all.push(&header);
    all.push(table);
    all.extend_from_slice(parts);
    crate::infra::files::write_atomic_parts(path, &all).map_err(|e| DbError::io(path)(e.source))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_checksums_of_parts_equal_those_of_their_concatenation() {
        let whole: Vec<u8> = (0..3 * BLOCK + 1234)
            .map(|i| (i * 7 + i / 13) as u8)
            .collect();
        let direct: Vec<u64> = whole.chunks(BLOCK).map(checksum).collect();
        for cuts in [
            vec![],
            vec![5],
            vec![BLOCK],
            vec![100, 4000, 4100, 9000],
            vec![1, 2, 3],
        ] {
            let mut parts = Vec::new();
            let mut at = 0;
            for &c in &cuts {
                parts.push(&whole[at..c]);
                at = c;
            }
            parts.push(&whole[at..]);
            assert_eq!(block_checksums(&parts), direct, "cuts {cuts:?}");
        }
    }
}
