//! The format of the prover's proved bounds kept in a file from one run
//! to the next (`sow solve POSITION --keep FILE`, `kept_bounds.rs`). A
//! bound is true of its position whatever proof found it, so a file can be
//! read back into the table of any later proof of the same game: an
//! interrupted proof goes on where it stopped.
//!
//! Layout (little-endian):
//!
//! | offset | bytes | field |
//! |---:|---:|---|
//! | 0 | 8 | magic `SOWBNDS1` |
//! | 8 | 4 | format version ([`VERSION`]) |
//! | 12 | 4 | bytes per entry (16) |
//! | 16 | 8 | rules fingerprint ([`fingerprint`]) |
//! | 24 | 16·N | each entry: the position's key, the packed bounds (`bounds.rs`) |
//! | 24+16·N | 8 | entries `N` (counted as they are written: one pass) |
//! | 32+16·N | 8 | checksum of everything before it (`crate::infra::checksum`) |
//!
//! The reader works on bytes (a mapped file, or a fuzzer's input): nothing
//! it is given makes it panic or allocate beyond the table it fills.

use std::io::{self, Write};

use thiserror::Error;

use super::bounds::BoundTable;
use crate::infra::checksum::Checksum;
use crate::search::Searchable;

/// The file's first eight bytes.
pub const MAGIC: [u8; 8] = *b"SOWBNDS1";
/// Raised whenever the entries' packing (`bounds.rs`) changes.
pub const VERSION: u32 = 1;
const HEADER: usize = 24;
const ENTRY: usize = 16;
const TRAILER: usize = 16;

/// Why a file of kept bounds was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum BoundFileError {
    #[error("not a file of proved bounds (it does not start with SOWBNDS1)")]
    NotBoundFile,
    #[error("format version {found}; this sow reads version {VERSION}")]
    Version { found: u32 },
    #[error("{found}-byte entries; this sow reads {ENTRY}-byte entries")]
    EntrySize { found: u32 },
    #[error(
        "written under other rules or position keys (fingerprint {found:016x}, this sow's \
         {expected:016x}): its bounds would be wrong here"
    )]
    OtherRules { found: u64, expected: u64 },
    #[error("{len} bytes where its end announces {entries} entries: truncated or damaged")]
    Length { len: usize, entries: u64 },
    #[error("its checksum does not match: the file is damaged")]
    Checksum,
    #[error("entry {index} is not a proved interval: the file is damaged")]
    Entry { index: u64 },
}

/// A number that changes when anything the kept bounds rest on changes:
/// the position keys (`Searchable::zobrist`), the moves, their order (an
/// entry keeps its proving move's index), their gains, and the value of a
/// finished game, all taken on `samples`.
pub fn fingerprint<G: Searchable>(samples: &[G]) -> u64 {
    let mut h = Checksum::default();
    for pos in samples {
        h.word(pos.zobrist());
        let moves = pos.search_moves();
        if moves.is_empty() {
            h.word(pos.terminal_value() as i64 as u64);
        }
        for (_, child) in &moves {
            h.word(child.zobrist());
            h.word(G::capture_gain(pos, child) as i64 as u64);
        }
    }
    h.value()
}

/// The Kiothi positions of [`kiothi_fingerprint`]: a late game with relays
/// and captures, protected pits, and a finished game.
const KIOTHI_SAMPLES: [&str; 3] = [
    "kiothi 1,1,2,9,0,5,5,0,0,2,1,1,1,5,1,0,3,0,2,2 S play 9 10",
    "kiothi 0,3,0,2*,0,12,1,1,1,0,0,4,2*,0,1,0,3,5,2,6 S play 10 7",
    "kiothi 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3 S play 30 27",
];

/// [`fingerprint`] of this build's Kiothi rules.
pub fn kiothi_fingerprint() -> u64 {
    let samples: Vec<crate::games::kiothi::KiothiPosition> = KIOTHI_SAMPLES
        .iter()
        .map(|s| s.parse().expect("the samples are valid positions"))
        .collect();
    fingerprint(&samples)
}

/// Writes every entry of `table` to `out` in the layout above; returns
/// how many. Run it when no proof is storing into the table.
pub fn write(table: &BoundTable, fingerprint: u64, out: &mut impl Write) -> io::Result<u64> {
    let mut sum = Checksum::default();
    let mut put = |out: &mut dyn Write, word: u64| {
        sum.word(word);
        out.write_all(&word.to_le_bytes())
    };
    put(out, u64::from_le_bytes(MAGIC))?;
    put(out, VERSION as u64 | (ENTRY as u64) << 32)?;
    put(out, fingerprint)?;
    let mut result = Ok(());
    let mut entries = 0u64;
    table.for_each_entry(|key, data| {
        if result.is_ok() {
            result = put(out, key).and_then(|_| put(out, data));
            entries += 1;
        }
    });
    result?;
    put(out, entries)?;
    out.write_all(&sum.value().to_le_bytes())?;
    Ok(entries)
}

/// Reads `bytes` (a file of [`write`]) into `table`; returns how many
/// entries it held. `fingerprint` is this build's (refused when the file's
/// differs). On an error, entries before the faulty one may have been
/// stored: every one stored was checked, so the table stays sound.
pub fn read(bytes: &[u8], fingerprint: u64, table: &BoundTable) -> Result<u64, BoundFileError> {
    let entries = check_header(bytes, fingerprint)?;
    for (index, e) in bytes[HEADER..bytes.len() - TRAILER]
        .chunks_exact(ENTRY)
        .enumerate()
    {
        let key = u64::from_le_bytes(e[..8].try_into().expect("8 bytes"));
        let data = u64::from_le_bytes(e[8..].try_into().expect("8 bytes"));
        if !table.restore(key, data) {
            return Err(BoundFileError::Entry {
                index: index as u64,
            });
        }
    }
    Ok(entries)
}

/// The header's checks, the length and the checksum: the count of entries.
fn check_header(bytes: &[u8], fingerprint: u64) -> Result<u64, BoundFileError> {
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    if bytes.len() < HEADER + TRAILER || bytes[..8] != MAGIC {
        return Err(BoundFileError::NotBoundFile);
    }
    let (version, entry) = (word(8) as u32, (word(8) >> 32) as u32);
    if version != VERSION {
        return Err(BoundFileError::Version { found: version });
    }
    if entry as usize != ENTRY {
        return Err(BoundFileError::EntrySize { found: entry });
    }
    if word(16) != fingerprint {
        return Err(BoundFileError::OtherRules {
            found: word(16),
            expected: fingerprint,
        });
    }
    let room = bytes.len() - HEADER - TRAILER;
    let end = bytes.len() - TRAILER;
    let entries = word(end);
    if !room.is_multiple_of(ENTRY) || (room / ENTRY) as u64 != entries {
        return Err(BoundFileError::Length {
            len: bytes.len(),
            entries,
        });
    }
    if crate::infra::checksum::checksum(&bytes[..end + 8]) != word(end + 8) {
        return Err(BoundFileError::Checksum);
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prove::bounds::Proved;

    fn filled() -> BoundTable {
        let t = BoundTable::new(1);
        for key in 1..200u64 {
            let k = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let v = (key % 23) as i32 - 11;
            let p = Proved {
                lo: v - (key % 3) as i32,
                hi: v,
                best: (key % 2 == 0).then_some((key % 7) as u16),
                open: None,
            };
            t.store(k, p, (key % 40) as u8);
        }
        t
    }

    fn entries(t: &BoundTable) -> Vec<(u64, u64)> {
        let mut v = Vec::new();
        t.for_each_entry(|k, d| v.push((k, d)));
        v.sort_unstable();
        v
    }

    #[test]
    fn a_table_written_and_read_back_holds_the_same_entries() {
        let t = filled();
        let mut bytes = Vec::new();
        let n = write(&t, 42, &mut bytes).unwrap();
        assert_eq!(n, entries(&t).len() as u64);
        assert_eq!(bytes.len(), HEADER + 16 * n as usize + TRAILER);
        let back = BoundTable::new(1);
        assert_eq!(read(&bytes, 42, &back), Ok(n));
        assert_eq!(entries(&back), entries(&t));
        // Into a smaller table: fewer entries, each one as written.
        let small = BoundTable::new(0);
        read(&bytes, 42, &small).unwrap();
        let all = entries(&t);
        for e in entries(&small) {
            assert!(all.contains(&e), "{e:?}");
        }
    }

    #[test]
    fn a_damaged_or_foreign_file_is_refused() {
        let mut bytes = Vec::new();
        write(&filled(), 42, &mut bytes).unwrap();
        let t = BoundTable::new(1);
        assert_eq!(
            read(&bytes, 43, &t),
            Err(BoundFileError::OtherRules {
                found: 42,
                expected: 43
            })
        );
        let cut = &bytes[..bytes.len() - 16];
        assert!(matches!(
            read(cut, 42, &t),
            Err(BoundFileError::Length { .. })
        ));
        assert_eq!(read(b"SOWBNDS", 42, &t), Err(BoundFileError::NotBoundFile));
        let mut flipped = bytes.clone();
        flipped[HEADER + 3] ^= 1;
        assert_eq!(read(&flipped, 42, &t), Err(BoundFileError::Checksum));
        let mut version = bytes.clone();
        version[8] = 9;
        assert_eq!(
            read(&version, 42, &t),
            Err(BoundFileError::Version { found: 9 })
        );
        // A well-formed file whose entry is not a proved interval (lo > hi):
        // the checksum made right again, as a forger would.
        let mut forged = bytes.clone();
        let data = HEADER + 8;
        let bad: u64 = 600 | 5 << 10 | 1 << 58;
        forged[data..data + 8].copy_from_slice(&bad.to_le_bytes());
        let end = forged.len() - 8;
        let sum = crate::infra::checksum::checksum(&forged[..end]);
        forged[end..].copy_from_slice(&sum.to_le_bytes());
        assert_eq!(
            read(&forged, 42, &t),
            Err(BoundFileError::Entry { index: 0 })
        );
    }

    #[test]
    fn the_kiothi_fingerprint_follows_the_rules_and_keys() {
        use crate::games::kiothi::KiothiPosition;
        let a: KiothiPosition = KIOTHI_SAMPLES[0].parse().unwrap();
        let b: KiothiPosition = KIOTHI_SAMPLES[1].parse().unwrap();
        assert_eq!(kiothi_fingerprint(), kiothi_fingerprint());
        assert_ne!(fingerprint(&[a]), fingerprint(&[b]));
        assert_ne!(fingerprint(&[a, b]), fingerprint(&[b, a]));
    }
}
