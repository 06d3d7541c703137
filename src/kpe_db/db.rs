//! Database files of a solved Kpé variant.
//!
//! A database is a directory `<db>/kpe-<W>x<K>/` holding one file per
//! endgame layer (`layer-NNN.sowdb`, NNN = stones on the board, three digits) and one file
//! for the locked positions reachable from the start (`opening.sowdb`).
//! Every file is written to a temporary name and renamed when complete, so
//! an interrupted `solve` leaves only whole files and resumes after them.
//!
//! File layout (little-endian):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `SOWDB\0\0\x01` |
//! | 8 | 4 | format version (3; earlier files are refused: re-solve. Version 3 ranks boards with the rows interleaved, `index.rs`) |
//! | 12 | 4 | kind: 1 = endgame layer, 2 = values of the locked region, 3 = keys of the locked region; 4 to 6 = checkpoints of a region being built (`region_checkpoint.rs`) |
//! | 16 | 1 | W |
//! | 17 | 1 | K |
//! | 18 | 1 | encoding: 0 = plain, 1 = zstd blocks |
//! | 19 | 1 | reserved (0) |
//! | 20 | 4 | stones on the board (layers; 0 for the region) |
//! | 24 | 8 | entries |
//! | 32 | 8 | payload bytes (as stored) |
//! | 40 | 8 | checksum of the block table |
//! | 48 | 8 | block size (of the decoded payload; 4,096 when written; any power of two from 4 KiB to 1 MiB is read) |
//! | 56 | 8 | number of blocks B |
//! | 64 | 8·B | checksum of each stored payload block (FNV-1a over 8-byte words) |
//! | 64+8B | 8·(B+1) | zstd only: offset of each stored block in the payload, then the payload length |
//! | after | payload | layer: one entry byte per board, in rank order; region values: one entry byte per position, in key-file order; region keys: see `region_keys.rs` |
//!
//! An *entry byte* is a value with a flag in its low bit ([`entry`]):
//! values are the exact future margin for the player to move (RULES §0),
//! always even in Kpé, so the low bit is free and says whether perfect play
//! from the position can end (`endless.rs`). Value files (layers, region
//! values) are written zstd-compressed, each 4 KiB block of entries on its
//! own, so that a probe decodes one small block; the plain encoding is
//! still read and written (tests compare the two). Each stored block is
//! checked against its checksum the first time it is read, so a probe stays
//! cheap and a corrupt byte is never used silently.

use std::borrow::Cow;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use memmap2::{Advice, Mmap};
use thiserror::Error;

use crate::games::kpe::KpeVariant;

const MAGIC: [u8; 8] = *b"SOWDB\0\0\x01";
pub const FORMAT_VERSION: u32 = 3;
/// zstd level of value blocks. On the 4 KiB blocks of the standard game's
/// 48-stone layer (its 202,927,725 entries decoded, `zstd -b1 -B4096`
/// against `-b3`), level 1 compresses 3.415× at 193 MB/s a core and
/// level 3 3.412× at 171 MB/s; higher levels cost solve time for little,
/// and the negative ones give up a quarter of the ratio (2.59× at
/// `--fast=1`) for 246 MB/s.
const ZSTD_LEVEL: i32 = 1;
/// Decoded blocks kept per compressed file, so that warm probes skip zstd.
const CACHE_SLOTS: usize = 64;
pub(super) const HEADER: usize = 64;
/// Payload bytes per checksummed block: small, so that the first probe of
/// a block checks little more than it reads.
pub(super) const BLOCK: usize = 1 << 12;

/// What a database file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    Layer = 1,
    Region = 2,
    RegionKeys = 3,
    /// Checkpoints of a region being built (`region_checkpoint.rs`): a
    /// stone count's explored groups, the values of a run of solved
    /// groups, the keys found for the stone counts not yet explored.
    RegionExplored = 4,
    RegionSolvedRun = 5,
    RegionSeeds = 6,
}

/// How a file's payload is stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Encoding {
    Plain = 0,
    /// Each block of `block size` decoded bytes compressed on its own by
    /// zstd (stored as is when that would not make it smaller): what
    /// every build writes.
    #[default]
    Zstd = 1,
}

/// The entry byte of a position: its value (even, RULES §0) with the
/// "perfect play can end" flag in the low bit.
#[inline]
pub fn entry(value: i8, can_end: bool) -> u8 {
    debug_assert!(value % 2 == 0, "odd value {value}");
    (value as u8 & !1) | can_end as u8
}

/// The value of an entry byte.
#[inline]
pub fn entry_value(e: u8) -> i8 {
    (e & !1) as i8
}

/// Whether perfect play can end, from an entry byte.
#[inline]
pub fn entry_can_end(e: u8) -> bool {
    e & 1 != 0
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
    #[error("{path}: database format version {version}, this sow reads version {FORMAT_VERSION}: delete {dir} and re-solve with `{hint}`")]
    OldFormat {
        path: PathBuf,
        version: u32,
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

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> DbError + '_ {
    move |source| DbError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The files' checksum (`crate::infra::checksum`), where the database layer's
/// callers have always found it.
pub use crate::infra::checksum::checksum;

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

/// The compact key index of the locked region (`region_keys.rs`).
pub fn region_keys_path(db: &Path, variant: KpeVariant) -> PathBuf {
    variant_dir(db, variant).join("opening-keys.sowdb")
}

/// The command that (re)builds a variant's database.
pub fn solve_hint(db: &Path, variant: KpeVariant) -> String {
    format!("sow solve {} --db {}", variant.tag(), db.display())
}

/// The identity a file must have to be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileId {
    pub kind: FileKind,
    pub variant: KpeVariant,
    pub stones: u32,
}

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
/// the solve goes on ([`Self::into_owned`], `Solution::build_layers`).
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
/// gives that layer's blocks (`db_over_ranks.rs`).
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

/// The 64-byte header of a file of `entries` entries whose payload is
/// `payload_len` bytes in `blocks` blocks, described by `table`.
pub(super) fn header(
    id: FileId,
    encoding: Encoding,
    entries: u64,
    payload_len: u64,
    (blocks, table): (usize, &[u8]),
) -> Vec<u8> {
    let mut header = Vec::with_capacity(HEADER);
    header.extend_from_slice(&MAGIC);
    header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    header.extend_from_slice(&(id.kind as u32).to_le_bytes());
    header.extend_from_slice(&[
        id.variant.w() as u8,
        id.variant.k() as u8,
        encoding as u8,
        0,
    ]);
    header.extend_from_slice(&id.stones.to_le_bytes());
    header.extend_from_slice(&entries.to_le_bytes());
    header.extend_from_slice(&payload_len.to_le_bytes());
    header.extend_from_slice(&checksum(table).to_le_bytes());
    header.extend_from_slice(&(BLOCK as u64).to_le_bytes());
    header.extend_from_slice(&(blocks as u64).to_le_bytes());
    debug_assert_eq!(header.len(), HEADER);
    header
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
    fs::create_dir_all(dir).map_err(io_err(dir))?;
    let payload_len: usize = parts.iter().map(|p| p.len()).sum();
    let header = header(id, encoding, entries, payload_len as u64, (blocks, table));
    // A failed write (disk full, a file size limit, no permission) leaves
    // no partial file behind, and the error names the file being written.
    let mut all: Vec<&[u8]> = Vec::with_capacity(parts.len() + 2);
    all.push(&header);
    all.push(table);
    all.extend_from_slice(parts);
    crate::infra::files::write_atomic_parts(path, &all).map_err(|e| io_err(path)(e.source))
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
    encoding: Encoding,
    data_start: usize,
    /// Decoded bytes per block.
    block: usize,
    block_sums: Vec<u64>,
    /// zstd: where each stored block starts in the payload, then its end.
    offsets: Vec<u64>,
    verified: Vec<AtomicU64>,
    /// zstd: recently decoded blocks, by block number modulo the slots.
    cache: Vec<Mutex<CachedBlock>>,
    /// What the entries are, for the content checks (`db_check.rs`).
    content: super::db_check::Content,
}

/// A decoded block and its number.
type CachedBlock = Option<(usize, Box<[u8]>)>;

fn read_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn read_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

thread_local! {
    static DECOMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// What the 64-byte header of a database file says, once checked.
struct Header {
    entries: u64,
    encoding: Encoding,
    payload: usize,
    block: usize,
    blocks: usize,
}

impl Header {
    /// Checks the header `map` (at least its first 64 bytes) of a file of
    /// `file_len` bytes named `path` against what `id` expects: magic,
    /// version, kind, variant, layer, entries, block geometry and length.
    fn check(
        path: &Path,
        map: &[u8],
        file_len: usize,
        id: FileId,
        expected_entries: Option<u64>,
    ) -> Result<Header, DbError> {
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
        if file_len < HEADER || map.len() < HEADER {
            return Err(truncated(format!(
                "{} bytes, shorter than the {HEADER}-byte header",
                file_len
            )));
        }
        if map[..8] != MAGIC {
            return Err(corrupt("bad magic number (not a sow database)".into()));
        }
        let version = read_u32(map, 8);
        if version != FORMAT_VERSION {
            let dir = path.parent().unwrap_or(Path::new("."));
            return Err(DbError::OldFormat {
                path: path.to_path_buf(),
                version,
                dir: dir.to_path_buf(),
                hint: solve_hint(dir.parent().unwrap_or(Path::new(".")), id.variant),
            });
        }
        let kind = read_u32(map, 12);
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
        let encoding = match map[18] {
            0 => Encoding::Plain,
            1 => Encoding::Zstd,
            e => return Err(corrupt(format!("unknown encoding {e}"))),
        };
        let stones = read_u32(map, 20);
        if stones != id.stones {
            return Err(mismatch(format!(
                "layer of {stones} stones, expected {}",
                id.stones
            )));
        }
        let entries = read_u64(map, 24);
        if let Some(expected) = expected_entries {
            if entries != expected {
                return Err(mismatch(format!("{entries} entries, expected {expected}")));
            }
        }
        let (payload, block, blocks) =
            Self::check_geometry(path, map, file_len, encoding, entries)?;
        Ok(Header {
            entries,
            encoding,
            payload,
            block,
            blocks,
        })
    }

    /// Checks the block geometry the header `map` gives against its
    /// encoding, its entries and the file's length; returns the payload's
    /// size, the block size and the block count.
    fn check_geometry(
        path: &Path,
        map: &[u8],
        file_len: usize,
        encoding: Encoding,
        entries: u64,
    ) -> Result<(usize, usize, usize), DbError> {
        let payload = read_u64(map, 32) as usize;
        let block = read_u64(map, 48) as usize;
        let blocks = read_u64(map, 56) as usize;
        let decoded = match encoding {
            Encoding::Plain => payload,
            Encoding::Zstd => entries as usize,
        };
        if !(block.is_power_of_two() && (1 << 12..=1 << 20).contains(&block))
            || blocks != decoded.div_ceil(block)
        {
            return Err(DbError::Corrupt {
                path: path.to_path_buf(),
                what: format!(
                    "block table of {blocks} blocks of {block} bytes for {decoded} bytes"
                ),
            });
        }
        // Sizes with checked sums: a forged header cannot wrap them.
        let table_len = match encoding {
            Encoding::Plain => blocks.checked_mul(8),
            Encoding::Zstd => blocks.checked_mul(16).and_then(|t| t.checked_add(8)),
        };
        let expected_len = table_len
            .and_then(|t| t.checked_add(HEADER))
            .and_then(|d| d.checked_add(payload));
        if expected_len != Some(file_len) {
            return Err(DbError::Truncated {
                path: path.to_path_buf(),
                what: format!(
                    "{} bytes, expected {}",
                    file_len,
                    expected_len.map_or("more than 2^64".to_string(), |l| l.to_string())
                ),
            });
        }
        Ok((payload, block, blocks))
    }
}

/// Checks the header of the database file `path` without mapping it (64
/// bytes read): a reader lists a database's files this way and maps each
/// when it first needs it.
pub fn check_header(path: &Path, id: FileId, expected_entries: Option<u64>) -> Result<(), DbError> {
    use std::io::Read;
    let file = File::open(path).map_err(io_err(path))?;
    let len = file.metadata().map_err(io_err(path))?.len() as usize;
    let mut head = Vec::with_capacity(HEADER);
    file.take(HEADER as u64)
        .read_to_end(&mut head)
        .map_err(io_err(path))?;
    Header::check(path, &head, len, id, expected_entries).map(|_| ())
}

impl MappedFile {
    /// Maps a file and checks its header, its length and the checksum of
    /// its block table against what the caller expects.
    pub fn open(path: &Path, id: FileId, expected_entries: Option<u64>) -> Result<Self, DbError> {
        let file = File::open(path).map_err(io_err(path))?;
        // SAFETY: database files are written once (temporary file then
        // rename) and never modified in place afterwards.
        let map = unsafe { Mmap::map(&file) }.map_err(io_err(path))?;
        // Probes read a few scattered blocks. Without this hint every page
        // fault reads around the page as much as the device's readahead
        // (8 MiB here: `/sys/block/vda/queue/read_ahead_kb`), so one cold
        // `eval` read 334 MB. Whole-file readers ask for the sequential
        // pattern themselves (`all_entries`). Only a hint: errors ignored.
        let _ = map.advise(Advice::Random);
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
        let Header {
            entries,
            encoding,
            payload,
            block,
            blocks,
        } = Header::check(path, &map, map.len(), id, expected_entries)?;
        let corrupt = |what: String| DbError::Corrupt {
            path: path.to_path_buf(),
            what,
        };
        let data_start = map.len() - payload;
        if let FileBytes::Mapped(m) = &map {
            // The block table is read whole just below: one read ahead of
            // it rather than a page fault per page (random-access hint).
            let _ = m.advise_range(Advice::WillNeed, 0, data_start);
        }
        let table = &map[HEADER..data_start];
        if checksum(table) != read_u64(&map, 40) {
            return Err(corrupt("checksum of the block table does not match".into()));
        }
        let block_sums = (0..blocks).map(|i| read_u64(table, 8 * i)).collect();
        let offsets: Vec<u64> = match encoding {
            Encoding::Plain => Vec::new(),
            Encoding::Zstd => (0..=blocks)
                .map(|i| read_u64(table, 8 * (blocks + i)))
                .collect(),
        };
        if encoding == Encoding::Zstd
            && (offsets.windows(2).any(|w| w[0] > w[1])
                || offsets.first() != Some(&0)
                || offsets.last() != Some(&(payload as u64)))
        {
            return Err(corrupt("block offsets out of order".into()));
        }
        let verified = (0..blocks.div_ceil(64))
            .map(|_| AtomicU64::new(0))
            .collect();
        let slots = if encoding == Encoding::Zstd {
            CACHE_SLOTS
        } else {
            0
        };
        Ok(MappedFile {
            path: path.to_path_buf(),
            map,
            entries,
            encoding,
            data_start,
            block,
            block_sums,
            offsets,
            verified,
            cache: (0..slots).map(|_| Mutex::new(None)).collect(),
            content: super::db_check::Content::of(id),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn entries(&self) -> u64 {
        self.entries
    }

    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    pub fn content(&self) -> &super::db_check::Content {
        &self.content
    }

    pub fn set_content(&mut self, content: super::db_check::Content) {
        self.content = content;
    }

    /// Tells the kernel the whole file will be read in order (readahead
    /// back on, undoing [`MappedFile::open`]'s random-access hint).
    pub fn advise_sequential(&self) {
        if let FileBytes::Mapped(map) = &self.map {
            let _ = map.advise(Advice::Sequential);
        }
    }

    fn payload(&self) -> &[u8] {
        &self.map[self.data_start..]
    }

    /// Payload bytes (as stored).
    pub fn payload_len(&self) -> usize {
        self.payload().len()
    }

    /// Where the payload starts in the file.
    pub fn payload_offset(&self) -> usize {
        self.data_start
    }

    /// The stored bytes of block `b`.
    fn stored_block(&self, b: usize) -> &[u8] {
        let payload = self.payload();
        match self.encoding {
            Encoding::Plain => &payload[b * self.block..((b + 1) * self.block).min(payload.len())],
            Encoding::Zstd => &payload[self.offsets[b] as usize..self.offsets[b + 1] as usize],
        }
    }

    /// Checks one block against its checksum (once).
    fn verify_block(&self, b: usize) -> Result<(), DbError> {
        if self.is_verified(b) {
            return Ok(());
        }
        if checksum(self.stored_block(b)) != self.block_sums[b] {
            return Err(self.corrupt_block(b));
        }
        self.verified[b / 64].fetch_or(1 << (b % 64), Relaxed);
        Ok(())
    }

    /// Asks the kernel for all the pages of block `b` at once, before a
    /// probe reads them. Blocks do not start on page boundaries (the
    /// payload follows the header and block table), so most span two
    /// pages; under [`MappedFile::open`]'s random-access hint each page
    /// would otherwise be its own read, waited for in turn: a cold locked
    /// probe waited for 4 to 6 reads one after the other instead of 3.
    /// Only a hint. Whole-file reads do without it (a call a block, and
    /// readahead serves them: `stats kpe` took 5.0 s instead of 2.3 s).
    fn read_ahead(&self, b: usize) {
        if let FileBytes::Mapped(map) = &self.map {
            let stored = self.stored_block(b);
            let start = stored.as_ptr() as usize - map.as_ptr() as usize;
            let _ = map.advise_range(Advice::WillNeed, start, stored.len());
        }
    }

    /// Asks the kernel for the blocks holding payload bytes
    /// `start..start + len` of a plain file ([`Self::read_ahead`]), to be
    /// read later: several such requests are then waited for together
    /// rather than one after the other. Only a hint; a range past the
    /// payload is left to the read to report.
    pub fn read_ahead_bytes(&self, start: usize, len: usize) {
        let first = start / self.block;
        let last = (start + len.max(1) - 1) / self.block;
        for b in first..=last {
            self.read_ahead_unread(b);
        }
    }

    /// [`Self::read_ahead`] of block `b` if it exists and was not read yet.
    fn read_ahead_unread(&self, b: usize) {
        if b < self.block_sums.len() && !self.is_verified(b) {
            self.read_ahead(b);
        }
    }

    /// Whether block `b` (one of the file's) was checked already.
    #[inline]
    fn is_verified(&self, b: usize) -> bool {
        self.verified[b / 64].load(Relaxed) & 1 << (b % 64) != 0
    }

    fn corrupt_block(&self, b: usize) -> DbError {
        DbError::Corrupt {
            path: self.path.clone(),
            what: format!(
                "checksum of block {b} (entries {}..) does not match",
                b * self.block
            ),
        }
    }

    /// Checks every block.
    pub fn verify_all(&self) -> Result<(), DbError> {
        use rayon::prelude::*;
        (0..self.block_sums.len())
            .into_par_iter()
            .try_for_each(|b| self.verify_block(b))
    }

    /// Payload bytes `range` of a plain file, checked.
    pub fn bytes(&self, start: usize, len: usize) -> Result<&[u8], DbError> {
        debug_assert_eq!(self.encoding, Encoding::Plain);
        if start
            .checked_add(len)
            .is_none_or(|end| end > self.payload().len())
        {
            return Err(self.out_of_range(start, len));
        }
        if len > 0 {
            let (first, last) = (start / self.block, (start + len - 1) / self.block);
            let unread = !self.is_verified(first) || !self.is_verified(last);
            if unread && len <= self.block {
                // A probe's read ([`Self::read_ahead`]).
                self.read_ahead_bytes(start, len);
            }
            for b in first..=last {
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

    /// One payload byte of a plain file, checked.
    #[inline]
    pub fn byte(&self, at: usize) -> Result<u8, DbError> {
        if at >= self.payload().len() {
            return Err(self.out_of_range(at, 1));
        }
        let b = at / self.block;
        if !self.is_verified(b) {
            self.read_ahead(b);
            self.verify_block(b)?;
        }
        Ok(self.payload()[at])
    }

    /// Decoded block `b` (checked).
    fn decode_block(&self, b: usize) -> Result<Vec<u8>, DbError> {
        let mut out = vec![0u8; self.block_len(b)];
        self.decode_block_into(b, &mut out)?;
        Ok(out)
    }

    /// Entries in block `b`: a whole block but for the last.
    fn block_len(&self, b: usize) -> usize {
        self.block.min(self.entries as usize - b * self.block)
    }

    /// Decodes block `b` (checked) into `out`, exactly its length.
    fn decode_block_into(&self, b: usize, out: &mut [u8]) -> Result<(), DbError> {
        self.verify_block(b)?;
        let stored = self.stored_block(b);
        debug_assert_eq!(out.len(), self.block_len(b));
        if stored.len() == out.len() {
            // Stored as is (incompressible).
            out.copy_from_slice(stored);
        } else {
            let decoded = DECOMPRESSOR.with(|d| {
                let mut d = d.borrow_mut();
                if d.is_none() {
                    *d = zstd::bulk::Decompressor::new().ok();
                }
                d.as_mut()?.decompress_to_buffer(stored, &mut *out).ok()
            });
            if decoded != Some(out.len()) {
                return Err(self.corrupt_block(b));
            }
        }
        super::db_check::check_entries(self, (b * self.block) as u64, out)
    }

    /// Entry `i` of a value file, checked (and decoded, through a small
    /// cache of blocks, when compressed).
    #[inline]
    pub fn entry(&self, i: u64) -> Result<u8, DbError> {
        if self.encoding == Encoding::Plain {
            let e = self.byte(i as usize)?;
            return super::db_check::check_entries(self, i, &[e]).map(|()| e);
        }
        let b = i as usize / self.block;
        let at = i as usize % self.block;
        let mut slot = self.cache[b % CACHE_SLOTS]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some((held, bytes)) = slot.as_ref() {
            if *held == b {
                return Ok(bytes[at]);
            }
        }
        self.read_ahead_unread(b);
        let bytes = self.decode_block(b)?;
        let e = bytes[at];
        *slot = Some((b, bytes.into_boxed_slice()));
        Ok(e)
    }

    /// Every entry of a value file, decoded and checked.
    pub fn all_entries(&self) -> Result<std::borrow::Cow<'_, [u8]>, DbError> {
        use rayon::prelude::*;
        self.advise_sequential();
        match self.encoding {
            Encoding::Plain => {
                let all = self.bytes(0, self.entries as usize)?;
                super::db_check::check_entries(self, 0, all)?;
                Ok(all.into())
            }
            Encoding::Zstd => {
                // Each block decoded straight into its place (a zeroed
                // allocation, cleared by the threads that fill it).
                let mut all = vec![0u8; self.entries as usize];
                all.par_chunks_mut(self.block)
                    .enumerate()
                    .try_for_each(|(b, out)| self.decode_block_into(b, out))?;
                Ok(all.into())
            }
        }
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

    /// A value file encoded apart, made to own its bytes and written later
    /// (`ValueFile`, as the solve's writer thread does) is the file
    /// `write_values` writes, in both encodings and for an empty payload,
    /// and reads back whole.
    #[test]
    fn value_files_encoded_apart_are_the_files_written_in_line() {
        let dir = std::env::temp_dir().join(format!("sow-value-file-{}", std::process::id()));
        let id = FileId {
            kind: FileKind::Layer,
            variant: KpeVariant::STANDARD,
            stones: 8,
        };
        // Even values of at most the 8 stones, none marked as ending.
        let values: Vec<u8> = (0..5 * BLOCK + 77)
            .map(|i| entry(2 * (i % 9 * (i % 3) % 9) as i8 - 8, false))
            .collect();
        for encoding in [Encoding::Plain, Encoding::Zstd] {
            for values in [&values[..], &[]] {
                let (inline, apart) = (dir.join("inline.sowdb"), dir.join("apart.sowdb"));
                write_values(&inline, id, values, encoding).unwrap();
                let owned = ValueFile::encode(values, encoding).into_owned();
                owned.write(&apart, id).unwrap();
                let bytes = std::fs::read(&apart).unwrap();
                assert_eq!(bytes, std::fs::read(&inline).unwrap(), "{encoding:?}");
                if encoding == Encoding::Plain {
                    // The plain file the other plain files are written as.
                    let plain = dir.join("plain.sowdb");
                    write_file(&plain, id, values.len() as u64, values).unwrap();
                    assert_eq!(bytes, std::fs::read(&plain).unwrap());
                }
                let file = MappedFile::open(&apart, id, Some(values.len() as u64)).unwrap();
                assert_eq!(&file.all_entries().unwrap()[..], values, "{encoding:?}");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
