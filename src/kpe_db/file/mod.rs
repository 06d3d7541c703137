//! The database file (`.sowdb`): one container for every file of a
//! database (layers, the region's values and keys, a build's checkpoints).
//!
//! Layout (little-endian):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `SOWDB\0\0\x01` |
//! | 8 | 4 | format version ([`FORMAT_VERSION`]; other versions are refused: re-solve) |
//! | 12 | 4 | kind ([`FileKind`]): 1 = endgame layer, 2 = values of the locked region, 3 = keys of the locked region; 4 to 6 = checkpoints of a region being built |
//! | 16 | 1 | W |
//! | 17 | 1 | K |
//! | 18 | 1 | encoding ([`Encoding`]): 0 = plain, 1 = zstd blocks |
//! | 19 | 1 | reserved (0) |
//! | 20 | 4 | stones on the board (layers; 0 for the region) |
//! | 24 | 8 | entries |
//! | 32 | 8 | payload bytes (as stored) |
//! | 40 | 8 | checksum of the block table |
//! | 48 | 8 | block size (of the decoded payload; 4,096 when written; any power of two from 4 KiB to 1 MiB is read) |
//! | 56 | 8 | number of blocks B |
//! | 64 | 8·B | checksum of each stored payload block (FNV-1a over 8-byte words) |
//! | 64+8B | 8·(B+1) | zstd only: offset of each stored block in the payload, then the payload length |
//! | after | payload | layer: one entry byte (`entry.rs`) per board, in rank order; region values: one entry byte per position, in key-file order; region keys: `keys/key_file.rs` |
//!
//! Value files (layers, region values) are written zstd-compressed, each
//! 4 KiB block of entries on its own, so that a probe decodes one small
//! block; the plain encoding is still read and written (tests compare the
//! two, and the other files are plain).
//!
//! - `header.rs`: the header, written and checked;
//! - `write.rs`: blocks, checksums, compression, atomic writes;
//! - `mapped.rs`: reading, each block checked once, decoded through a cache;
//! - `write_over_ranks.rs`: a value file written by the ranks of a run
//!   together, each its slice (byte for byte the file `write.rs` writes).

mod header;
mod mapped;
mod write;
mod write_over_ranks;

pub use header::{check_header, Encoding, FileId, FileKind, FORMAT_VERSION};
pub use mapped::{EntryCheck, FileBytes, MappedFile};
pub use write::{write_file, write_file_parts, write_values, ValueFile};
pub use write_over_ranks::write_values_over_ranks;

/// Entries per block of a value file: a layer split over ranks in whole
/// blocks gives each rank whole blocks of its file.
pub const BLOCK_ENTRIES: u64 = write::BLOCK as u64;

#[cfg(test)]
mod tests {
    use super::write::BLOCK;
    use super::*;
    use crate::games::kpe::KpeVariant;
    use crate::kpe_db::entry::entry;

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
