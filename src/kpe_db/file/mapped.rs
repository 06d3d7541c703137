//! Reading database files: mapped (or given as bytes), the header and
//! block table checked at open, each block checked against its checksum
//! the first time it is read and, when compressed, decoded through a small
//! cache, so that a probe reads and checks little more than one block and
//! a corrupt byte is never used silently.
//!
//! What the entries mean is not this layer's business: a reader that
//! knows (`check/entries.rs`) hands the file an [`EntryCheck`], run on
//! every block as it is decoded and on every entry read from a plain file.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use memmap2::{Advice, Mmap};

use super::header::{read_u64, Encoding, FileId, Header, HEADER};
use crate::infra::checksum::checksum;
use crate::kpe_db::error::DbError;

/// Decoded blocks kept per compressed file, so that warm probes skip zstd.
const CACHE_SLOTS: usize = 64;

/// A check of decoded entries beyond their checksums (`check/entries.rs`):
/// a file whose checksums hold may still hold what no solve writes.
pub trait EntryCheck: Send + Sync {
    /// Checks entries `first..first + entries.len()` of the file `path`.
    fn check(&self, path: &Path, first: u64, entries: &[u8]) -> Result<(), DbError>;
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
    /// The check of decoded entries the reader asked for, if any.
    check: Option<Box<dyn EntryCheck>>,
}

/// A decoded block and its number.
type CachedBlock = Option<(usize, Box<[u8]>)>;

thread_local! {
    static DECOMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

impl MappedFile {
    /// Maps a file and checks its header, its length and the checksum of
    /// its block table against what the caller expects.
    pub fn open(path: &Path, id: FileId, expected_entries: Option<u64>) -> Result<Self, DbError> {
        let file = File::open(path).map_err(DbError::io(path))?;
        // SAFETY: database files are written once (temporary file then
        // rename) and never modified in place afterwards.
        let map = unsafe { Mmap::map(&file) }.map_err(DbError::io(path))?;
        // Probes read a few scattered blocks. Without this hint every page
        // fault reads around the page as much as the device's readahead
        // (megabytes: a cold `eval` read hundreds of them). Whole-file
        // readers ask for the sequential pattern themselves
        // (`all_entries`). Only a hint: errors ignored.
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
            check: None,
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

    /// The file, its decoded entries checked by `check` from now on.
    pub fn with_check(mut self, check: impl EntryCheck + 'static) -> Self {
        self.set_check(check);
        self
    }

    /// Checks the decoded entries by `check` from now on.
    pub fn set_check(&mut self, check: impl EntryCheck + 'static) {
        self.check = Some(Box::new(check));
    }

    /// Runs the reader's check ([`EntryCheck`]) on entries `first..`.
    #[inline]
    fn check_entries(&self, first: u64, entries: &[u8]) -> Result<(), DbError> {
        match &self.check {
            None => Ok(()),
            Some(check) => check.check(&self.path, first, entries),
        }
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
    /// would otherwise be its own read, waited for in turn. Only a hint.
    /// Whole-file reads do without it: readahead serves them better than a
    /// call a block (`results/BENCHMARKS.md`).
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
        self.check_entries((b * self.block) as u64, out)
    }

    /// Entry `i` of a value file, checked (and decoded, through a small
    /// cache of blocks, when compressed).
    #[inline]
    pub fn entry(&self, i: u64) -> Result<u8, DbError> {
        if self.encoding == Encoding::Plain {
            let e = self.byte(i as usize)?;
            return self.check_entries(i, &[e]).map(|()| e);
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
                self.check_entries(0, all)?;
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
