//! The 64-byte header every database file starts with: what the file is
//! (kind, variant, stones), how its payload is stored, and the geometry of
//! its blocks; written by `write.rs`, checked before anything else is read.

use std::fs::File;
use std::path::Path;

use crate::games::kpe::KpeVariant;
use crate::kpe_db::error::DbError;
use crate::kpe_db::paths::solve_hint;

pub(super) const MAGIC: [u8; 8] = *b"SOWDB\0\0\x01";
/// The format this sow reads and writes: version 3 ranks boards with the
/// rows interleaved (`retrograde/index.rs`); other versions are refused.
pub const FORMAT_VERSION: u32 = 3;
pub(super) const HEADER: usize = 64;

/// What a database file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    Layer = 1,
    Region = 2,
    RegionKeys = 3,
    /// Checkpoints of a region being built (`build/checkpoint.rs`): a
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

/// The identity a file must have to be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileId {
    pub kind: FileKind,
    pub variant: KpeVariant,
    pub stones: u32,
}

impl FileId {
    /// The endgame layer of `stones` stones of `variant`.
    pub fn layer(variant: KpeVariant, stones: usize) -> Self {
        FileId {
            kind: FileKind::Layer,
            variant,
            stones: stones as u32,
        }
    }

    /// The values of `variant`'s locked region.
    pub fn region(variant: KpeVariant) -> Self {
        FileId {
            kind: FileKind::Region,
            variant,
            stones: 0,
        }
    }

    /// The key index of `variant`'s locked region.
    pub fn region_keys(variant: KpeVariant) -> Self {
        FileId {
            kind: FileKind::RegionKeys,
            variant,
            stones: 0,
        }
    }
}

pub(super) fn read_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

pub(super) fn read_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// What the 64-byte header of a database file says (beside its identity
/// and the checksum of its block table).
pub(super) struct Header {
    pub entries: u64,
    pub encoding: Encoding,
    /// Payload bytes, as stored.
    pub payload: usize,
    /// Decoded bytes per block.
    pub block: usize,
    pub blocks: usize,
}

impl Header {
    /// The header of a file of identity `id` whose block table has the
    /// checksum `table_sum`.
    pub fn bytes(&self, id: FileId, table_sum: u64) -> Vec<u8> {
        let mut header = Vec::with_capacity(HEADER);
        header.extend_from_slice(&MAGIC);
        header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        header.extend_from_slice(&(id.kind as u32).to_le_bytes());
        header.extend_from_slice(&[
            id.variant.w() as u8,
            id.variant.k() as u8,
            self.encoding as u8,
            0,
        ]);
        header.extend_from_slice(&id.stones.to_le_bytes());
        header.extend_from_slice(&self.entries.to_le_bytes());
        header.extend_from_slice(&(self.payload as u64).to_le_bytes());
        header.extend_from_slice(&table_sum.to_le_bytes());
        header.extend_from_slice(&(self.block as u64).to_le_bytes());
        header.extend_from_slice(&(self.blocks as u64).to_le_bytes());
        debug_assert_eq!(header.len(), HEADER);
        header
    }

    /// Checks the header `map` (at least its first 64 bytes) of a file of
    /// `file_len` bytes named `path` against what `id` expects: magic,
    /// version, kind, variant, layer, entries, block geometry and length.
    pub fn check(
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
                reads: FORMAT_VERSION,
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
    let file = File::open(path).map_err(DbError::io(path))?;
    let len = file.metadata().map_err(DbError::io(path))?.len() as usize;
    let mut head = Vec::with_capacity(HEADER);
    file.take(HEADER as u64)
        .read_to_end(&mut head)
        .map_err(DbError::io(path))?;
    Header::check(path, &head, len, id, expected_entries).map(|_| ())
}
