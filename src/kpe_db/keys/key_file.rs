//! The key index of the locked region on disk (`opening-keys.sowdb`, a
//! plain database file of kind 3): one compact key set (`compact.rs`) per
//! stone count, about 2 bytes a key on the standard game.
//!
//! Payload (little-endian): `G` (u64); `G` records of five u64 (stones,
//! keys, S, byte offset of the directory, byte offset of the fields); then
//! per group the directory (`⌊U / 2^S⌋ + 2` u32 counts, cumulative) and the
//! fields, padded by 8 zero bytes so that any field is read by one
//! unaligned 8-byte load. The values file `opening.sowdb` holds the entry
//! bytes in the same order: by stone count, then `u`.
//!
//! This module lays the file out ([`KeyFileParts`]) and reads its fields
//! ([`KeyFile`]); what a key index must satisfy is `check/keys.rs`'s, and
//! the lookups that rely on it are `probe/region.rs`'s.

use super::compact::{field_at, CompactKeys};
use super::ranker::Ranker;
use crate::kpe_db::error::DbError;
use crate::kpe_db::file::MappedFile;
use crate::kpe_db::scratch::ScratchVec;

/// Bytes of a group's record.
pub(crate) const RECORD: usize = 5 * 8;

/// A key file's payload being laid out: a head of records, then each
/// stone count's directory and fields, pushed one count after the other.
pub struct KeyFileParts {
    head: Vec<u8>,
    counts: Vec<(Vec<u8>, ScratchVec<u8>)>,
    /// Where the next count's directory goes in the payload.
    at: usize,
}

impl KeyFileParts {
    /// The layout of a file of `count_number` stone counts.
    pub fn new(count_number: usize) -> Self {
        let mut head = Vec::with_capacity(8 + RECORD * count_number);
        head.extend_from_slice(&(count_number as u64).to_le_bytes());
        KeyFileParts {
            head,
            counts: Vec::with_capacity(count_number),
            at: 8 + RECORD * count_number,
        }
    }

    /// Lays out the next stone count's keys (ascending stone counts).
    pub fn push(&mut self, keys: CompactKeys) {
        let dir: Vec<u8> = keys.dir.iter().flat_map(|d| d.to_le_bytes()).collect();
        let (dir_at, bits_at) = (self.at, self.at + dir.len());
        self.at = bits_at + keys.fields.len();
        let record = [
            keys.stones as u64,
            keys.len as u64,
            keys.shift as u64,
            dir_at as u64,
            bits_at as u64,
        ];
        self.head
            .extend(record.iter().flat_map(|x| x.to_le_bytes()));
        self.counts.push((dir, keys.fields));
    }

    /// The key file's payload, part after part.
    pub fn parts(&self) -> Vec<&[u8]> {
        let mut parts = vec![&self.head[..]];
        for (dir, fields) in &self.counts {
            parts.push(dir);
            parts.push(fields);
        }
        parts
    }

    /// Bytes of the key file's payload.
    pub fn payload_len(&self) -> usize {
        self.parts().iter().map(|p| p.len()).sum()
    }
}

/// One stone count of the key file.
#[derive(Clone, Copy, Debug)]
pub struct KeyGroup {
    pub stones: usize,
    pub keys: u64,
    /// Index (in the values file) of the group's first key.
    pub first: u64,
    pub(crate) shift: u32,
    dir_at: usize,
    bits_at: usize,
}

/// A key file, mapped, its group table read: the fields of its groups,
/// read as they are (checked against their checksums, not their sense).
pub struct KeyFile {
    file: MappedFile,
    ranker: Ranker,
    groups: Vec<KeyGroup>,
    by_stones: Vec<Option<usize>>,
}

impl KeyFile {
    /// Reads the group table of a key file whose table was checked
    /// (`check::keys::table`).
    pub fn read(file: MappedFile, ranker: Ranker) -> Result<Self, DbError> {
        let variant = ranker.variant();
        let corrupt = |what: String| DbError::Corrupt {
            path: file.path().to_path_buf(),
            what,
        };
        let read = |at: usize| -> Result<u64, DbError> {
            Ok(u64::from_le_bytes(
                file.bytes(at, 8)?.try_into().expect("8 bytes"),
            ))
        };
        let payload = file.entries() as usize;
        if payload < 8 {
            return Err(corrupt("key file without a group table".into()));
        }
        let count = read(0)? as usize;
        if 8 + RECORD * count > payload {
            return Err(corrupt(format!("{count} groups do not fit")));
        }
        let mut groups = Vec::with_capacity(count);
        let mut by_stones = vec![None; variant.total() as usize + 1];
        let mut first = 0u64;
        for g in 0..count {
            let at = 8 + RECORD * g;
            let stones = read(at)? as usize;
            let keys = read(at + 8)?;
            let shift = read(at + 16)? as u32;
            let dir_at = read(at + 24)? as usize;
            let bits_at = read(at + 32)? as usize;
            let fits = stones < by_stones.len()
                && (1..=56).contains(&shift)
                && dir_at
                    .checked_add(4 * ((ranker.universe(stones) >> shift) as usize + 2))
                    .is_some_and(|end| end <= bits_at)
                && (keys as usize)
                    .checked_mul(shift as usize)
                    .map(|b| bits_at + b.div_ceil(8) + 8)
                    .is_some_and(|end| end <= payload);
            if !fits {
                return Err(corrupt(format!("group {g} does not fit the file")));
            }
            by_stones[stones] = Some(g);
            groups.push(KeyGroup {
                stones,
                keys,
                first,
                shift,
                dir_at,
                bits_at,
            });
            first += keys;
        }
        Ok(KeyFile {
            file,
            ranker,
            groups,
            by_stones,
        })
    }

    pub fn file(&self) -> &MappedFile {
        &self.file
    }

    /// Ranks the positions of the index's variant into keys and back.
    pub fn ranker(&self) -> &Ranker {
        &self.ranker
    }

    /// Positions of the region.
    pub fn len(&self) -> u64 {
        self.groups.iter().map(|g| g.keys).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn groups(&self) -> &[KeyGroup] {
        &self.groups
    }

    /// The group of `stones` stones, if the index has one.
    pub fn group_of(&self, stones: usize) -> Option<&KeyGroup> {
        let g = self.by_stones.get(stones).copied().flatten()?;
        Some(&self.groups[g])
    }

    /// Keys of a group's universe: ranked boards times both players' marks.
    pub fn universe(&self, g: &KeyGroup) -> u64 {
        self.ranker.universe(g.stones)
    }

    /// Buckets of group `g`'s directory.
    pub fn buckets(&self, g: &KeyGroup) -> usize {
        (self.universe(g) >> g.shift) as usize + 1
    }

    /// Directory entry `b` of group `g`: the keys before bucket `b`.
    pub fn dir(&self, g: &KeyGroup, b: usize) -> Result<u64, DbError> {
        let bytes = self.file.bytes(g.dir_at + 4 * b, 4)?;
        Ok(u32::from_le_bytes(bytes.try_into().expect("4 bytes")) as u64)
    }

    /// Asks for directory entry `b` of group `g` to be read ahead
    /// ([`MappedFile::read_ahead_bytes`]).
    pub fn read_ahead_dir(&self, g: &KeyGroup, b: usize) {
        self.file.read_ahead_bytes(g.dir_at + 4 * b, 4);
    }

    /// The low bits of key `j` of group `g`.
    pub fn field(&self, g: &KeyGroup, j: u64) -> Result<u64, DbError> {
        let bit = j as usize * g.shift as usize;
        let bytes = self.file.bytes(g.bits_at + bit / 8, 8)?;
        Ok(field_at(bytes, bit, g.shift))
    }
}
