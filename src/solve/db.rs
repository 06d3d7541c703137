//! Database files of a solved Kpé variant.
//!
//! A database is a directory `<db>/kpe-<W>x<K>/` holding one file per
//! endgame layer (`layer-NN.sowdb`, NN = stones on the board) and one file
//! for the locked positions reachable from the start (`opening.sowdb`).
//! Every file is written to a temporary name and renamed when complete, so
//! an interrupted `solve` leaves only whole files and resumes after them.
//!
//! File layout (little-endian):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `SOWDB\0\0\x01` |
//! | 8 | 4 | format version (1) |
//! | 12 | 4 | kind: 1 = endgame layer, 2 = locked region |
//! | 16 | 1 | W |
//! | 17 | 1 | K |
//! | 18 | 2 | reserved (0) |
//! | 20 | 4 | stones on the board (layers; 0 for the region) |
//! | 24 | 8 | entries |
//! | 32 | 8 | payload bytes |
//! | 40 | 8 | checksum of the block checksums |
//! | 48 | 8 | block size (4,096 when written; any power of two from 4 KiB to 1 MiB is read) |
//! | 56 | 8 | number of blocks B |
//! | 64 | 8·B | checksum of each payload block (FNV-1a over 8-byte words) |
//! | 64+8B | payload | layer: one signed byte per board, in rank order; region: entries u64 keys (sorted) then entries value bytes |
//!
//! Values are the exact future margin for the player to move (RULES §0).
//! Each payload block is checked against its checksum the first time it is
//! read, so a probe stays cheap and a corrupt byte is never used silently.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use memmap2::Mmap;
use thiserror::Error;

use crate::games::kpe::KpeVariant;

const MAGIC: [u8; 8] = *b"SOWDB\0\0\x01";
pub const FORMAT_VERSION: u32 = 1;
const HEADER: usize = 64;
/// Payload bytes per checksummed block: small, so that the first probe of
/// a block checks little more than it reads.
const BLOCK: usize = 1 << 12;

/// What a database file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    Layer = 1,
    Region = 2,
}

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

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> DbError + '_ {
    move |source| DbError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// FNV-1a over 8-byte little-endian words (the tail padded with zeros).
pub fn checksum(bytes: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        h = (h ^ u64::from_le_bytes(c.try_into().expect("8 bytes"))).wrapping_mul(0x0100_0000_01b3);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        h = (h ^ u64::from_le_bytes(last)).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The directory of one variant's database.
pub fn variant_dir(db: &Path, variant: KpeVariant) -> PathBuf {
    db.join(format!("kpe-{variant}"))
}

pub fn layer_path(db: &Path, variant: KpeVariant, stones: usize) -> PathBuf {
    variant_dir(db, variant).join(format!("layer-{stones:03}.sowdb"))
}

pub fn region_path(db: &Path, variant: KpeVariant) -> PathBuf {
    variant_dir(db, variant).join("opening.sowdb")
}

/// The identity a file must have to be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileId {
    pub kind: FileKind,
    pub variant: KpeVariant,
    pub stones: u32,
}

/// Writes a database file atomically (temporary file, then rename).
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

/// Writes a database file whose payload is the concatenation of `parts`,
/// without ever holding that concatenation in memory.
pub fn write_file_parts(
    path: &Path,
    id: FileId,
    entries: u64,
    parts: &[&[u8]],
) -> Result<(), DbError> {
    let dir = path.parent().expect("database files live in a directory");
    fs::create_dir_all(dir).map_err(io_err(dir))?;
    let payload_len: usize = parts.iter().map(|p| p.len()).sum();
    let blocks = block_checksums(parts);
    let block_bytes: Vec<u8> = blocks.iter().flat_map(|b| b.to_le_bytes()).collect();
    let mut header = Vec::with_capacity(HEADER);
    header.extend_from_slice(&MAGIC);
    header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    header.extend_from_slice(&(id.kind as u32).to_le_bytes());
    header.extend_from_slice(&[id.variant.w() as u8, id.variant.k() as u8, 0, 0]);
    header.extend_from_slice(&id.stones.to_le_bytes());
    header.extend_from_slice(&entries.to_le_bytes());
    header.extend_from_slice(&(payload_len as u64).to_le_bytes());
    header.extend_from_slice(&checksum(&block_bytes).to_le_bytes());
    header.extend_from_slice(&(BLOCK as u64).to_le_bytes());
    header.extend_from_slice(&(blocks.len() as u64).to_le_bytes());
    debug_assert_eq!(header.len(), HEADER);
    let tmp = path.with_extension("sowdb.tmp");
    let write = || -> std::io::Result<()> {
        let mut out = BufWriter::new(File::create(&tmp)?);
        out.write_all(&header)?;
        out.write_all(&block_bytes)?;
        for part in parts {
            out.write_all(part)?;
        }
        out.into_inner().map_err(|e| e.into_error())?.sync_all()
    };
    // A failed write (disk full, a file size limit, no permission) leaves
    // no partial file behind, and the error names the file being written.
    if let Err(e) = write().and_then(|()| fs::rename(&tmp, path)) {
        let _ = fs::remove_file(&tmp);
        return Err(io_err(path)(e));
    }
    Ok(())
}

/// The bytes of a database file: mapped from disk, or owned (a file read
/// some other way, and the fuzzer, which feeds the checks bytes without a
/// file system).
pub enum FileBytes {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(m) => m,
            FileBytes::Owned(v) => v,
        }
    }
}

/// A memory-mapped database file whose header has been checked.
pub struct MappedFile {
    path: PathBuf,
    map: FileBytes,
    entries: u64,
    data_start: usize,
    block: usize,
    block_sums: Vec<u64>,
    verified: Vec<AtomicU64>,
    /// Layers: the largest value a byte may hold (the game's stones).
    max_value: Option<u32>,
}

fn read_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn read_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

impl MappedFile {
    /// Maps a file and checks its header, its length and the checksum of
    /// its block checksums against what the caller expects.
    pub fn open(path: &Path, id: FileId, expected_entries: Option<u64>) -> Result<Self, DbError> {
        let file = File::open(path).map_err(io_err(path))?;
        // SAFETY: database files are written once (temporary file then
        // rename) and never modified in place afterwards.
        let map = unsafe { Mmap::map(&file) }.map_err(io_err(path))?;
        Self::from_bytes(path, FileBytes::Mapped(map), id, expected_entries)
    }

    /// Checks the bytes of a file named `path` (for messages only: nothing
    /// is read from disk) as [`MappedFile::open`] does.
    pub fn from_bytes(
        path: &Path,
        map: FileBytes,
        id: FileId,
        expected_entries: Option<u64>,
    ) -> Result<Self, DbError> {
        let corrupt = |what: String| DbError::Corrupt {
            path: path.to_path_buf(),
            what,
        };
        let mismatch = |what: String| DbError::Mismatch {
            path: path.to_path_buf(),
            what,
        };
        let truncated = |what: String| DbError::Truncated {
            path: path.to_path_buf(),
            what,
        };
        if map.len() < HEADER {
            return Err(truncated(format!(
                "{} bytes, shorter than the {HEADER}-byte header",
                map.len()
            )));
        }
        if map[..8] != MAGIC {
            return Err(corrupt("bad magic number (not a sow database)".into()));
        }
        let version = read_u32(&map, 8);
        if version != FORMAT_VERSION {
            return Err(mismatch(format!(
                "format version {version}, this sow reads {FORMAT_VERSION}"
            )));
        }
        let kind = read_u32(&map, 12);
        if kind != id.kind as u32 {
            return Err(mismatch(format!(
                "file kind {kind}, expected {}",
                id.kind as u32
            )));
        }
        let (w, k) = (map[16] as usize, map[17] as usize);
        if (w, k) != (id.variant.w(), id.variant.k()) {
            return Err(mismatch(format!(
                "variant {w}x{k}, expected {}",
                id.variant
            )));
        }
        let stones = read_u32(&map, 20);
        if stones != id.stones {
            return Err(mismatch(format!(
                "layer of {stones} stones, expected {}",
                id.stones
            )));
        }
        let entries = read_u64(&map, 24);
        if let Some(expected) = expected_entries {
            if entries != expected {
                return Err(mismatch(format!("{entries} entries, expected {expected}")));
            }
        }
        let payload = read_u64(&map, 32);
        // A layer holds one byte per entry; a region 8 key bytes and one
        // value byte per entry. Checked here so that no later read can
        // index past the payload.
        let per_entry = match id.kind {
            FileKind::Layer => 1,
            FileKind::Region => 9,
        };
        if entries.checked_mul(per_entry) != Some(payload) {
            return Err(corrupt(format!(
                "{payload} payload bytes for {entries} entries of {per_entry} bytes"
            )));
        }
        let block = read_u64(&map, 48);
        let blocks = read_u64(&map, 56);
        if !(block.is_power_of_two() && (1 << 12..=1 << 20).contains(&block))
            || blocks != payload.div_ceil(block)
        {
            return Err(corrupt(format!(
                "block table of {blocks} blocks of {block} bytes for {payload} bytes"
            )));
        }
        // Sizes in u64 with checked sums: a forged header cannot wrap them.
        let expected_len = blocks
            .checked_mul(8)
            .and_then(|t| t.checked_add(HEADER as u64))
            .and_then(|d| d.checked_add(payload));
        if expected_len != Some(map.len() as u64) {
            return Err(truncated(format!(
                "{} bytes, expected {}",
                map.len(),
                expected_len.map_or("more than 2^64".to_string(), |l| l.to_string())
            )));
        }
        let (block, blocks) = (block as usize, blocks as usize);
        let data_start = HEADER + 8 * blocks;
        let table = &map[HEADER..data_start];
        if checksum(table) != read_u64(&map, 40) {
            return Err(corrupt("checksum of the block table does not match".into()));
        }
        let block_sums = (0..blocks).map(|i| read_u64(table, 8 * i)).collect();
        let verified = (0..blocks.div_ceil(64))
            .map(|_| AtomicU64::new(0))
            .collect();
        Ok(MappedFile {
            path: path.to_path_buf(),
            map,
            entries,
            data_start,
            block,
            block_sums,
            verified,
            max_value: (id.kind == FileKind::Layer).then(|| id.variant.total()),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn entries(&self) -> u64 {
        self.entries
    }

    fn payload(&self) -> &[u8] {
        &self.map[self.data_start..]
    }

    /// Checks one block against its checksum (once).
    fn verify_block(&self, b: usize) -> Result<(), DbError> {
        let bit = 1u64 << (b % 64);
        if self.verified[b / 64].load(Relaxed) & bit != 0 {
            return Ok(());
        }
        let payload = self.payload();
        let bytes = &payload[b * self.block..((b + 1) * self.block).min(payload.len())];
        if checksum(bytes) != self.block_sums[b] {
            return Err(DbError::Corrupt {
                path: self.path.clone(),
                what: format!(
                    "checksum of block {b} (bytes {}..) does not match",
                    b * self.block
                ),
            });
        }
        // A value beyond the game's stones is a file that checksums
        // cannot catch (written wrong, or forged): refused all the same.
        if let Some(max) = self.max_value {
            if let Some(i) = bytes
                .iter()
                .position(|&v| (v as i8).unsigned_abs() as u32 > max)
            {
                return Err(DbError::Corrupt {
                    path: self.path.clone(),
                    what: format!(
                        "value {} at byte {} is beyond the game's {max} stones",
                        bytes[i] as i8,
                        b * self.block + i
                    ),
                });
            }
        }
        self.verified[b / 64].fetch_or(bit, Relaxed);
        Ok(())
    }

    /// Checks every block.
    pub fn verify_all(&self) -> Result<(), DbError> {
        use rayon::prelude::*;
        (0..self.block_sums.len())
            .into_par_iter()
            .try_for_each(|b| self.verify_block(b))
    }

    /// Payload bytes `range`, checked.
    pub fn bytes(&self, start: usize, len: usize) -> Result<&[u8], DbError> {
        if start
            .checked_add(len)
            .is_none_or(|end| end > self.payload().len())
        {
            return Err(self.out_of_range(start, len));
        }
        if len > 0 {
            for b in start / self.block..=(start + len - 1) / self.block {
                self.verify_block(b)?;
            }
        }
        Ok(&self.payload()[start..start + len])
    }

    fn out_of_range(&self, start: usize, len: usize) -> DbError {
        DbError::Corrupt {
            path: self.path.clone(),
            what: format!(
                "read of {len} bytes at {start} past the {}-byte payload",
                self.payload().len()
            ),
        }
    }

    /// One payload byte, checked.
    #[inline]
    pub fn byte(&self, at: usize) -> Result<u8, DbError> {
        if at >= self.payload().len() {
            return Err(self.out_of_range(at, 1));
        }
        self.verify_block(at / self.block)?;
        Ok(self.payload()[at])
    }
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
