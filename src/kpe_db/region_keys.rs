//! The compact key index of the locked region on disk
//! (`opening-keys.sowdb`, a plain database file of kind 3).
//!
//! The keys are kept as `compact_keys.rs` describes (ranked, bucketed,
//! low bits packed: about 2 bytes a key on the standard game), one set per
//! stone count. While the region is solved, the same sets are kept per
//! group of one stone count and one class of marks, by local rank
//! (`mark_classes.rs`); [`encode`] merges each count's groups.
//!
//! Payload (little-endian): `G` (u64); `G` records of five u64 (stones,
//! keys, S, byte offset of the directory, byte offset of the fields); then
//! per group the directory (`⌊U / 2^S⌋ + 2` u32 counts, cumulative) and the
//! fields, padded by 8 zero bytes so that any field is read by one
//! unaligned 8-byte load. The values file `opening.sowdb` holds the entry
//! bytes in the same order: by stone count, then `u`.

use super::compact_keys::{self, key_of, rank, stones_of, KeyCursor, Ranker, RegionKey};
use super::endgame::Endgame;
use super::error::DbError;
use super::file::MappedFile;
use super::opening::LockedRegion;
use super::scratch::ScratchVec;
use crate::games::kpe::{KpePosition, KpeVariant};

const RECORD: usize = 5 * 8;

/// A solved region in its files' layout: the key file's payload, in
/// parts (a head of records, then each stone count's directory and
/// fields), and the entry bytes of its positions in the same order.
pub struct EncodedRegion {
    head: Vec<u8>,
    counts: Vec<(Vec<u8>, ScratchVec<u8>)>,
    pub entries: ScratchVec<u8>,
}

impl EncodedRegion {
    /// The key file's payload, part after part.
    pub fn key_parts(&self) -> Vec<&[u8]> {
        let mut parts = vec![&self.head[..]];
        for (dir, fields) in &self.counts {
            parts.push(dir);
            parts.push(fields);
        }
        parts
    }

    /// Bytes of the key file's payload.
    pub fn keys_len(&self) -> usize {
        self.key_parts().iter().map(|p| p.len()).sum()
    }
}

/// Encodes a solved region: each stone count's groups merged into the
/// file's layout (`LockedRegion::for_each_stone_count`), freed as it goes;
/// the fields and entries in the region's scratch (on disk for a region
/// built out of core).
pub fn encode(region: LockedRegion) -> Result<EncodedRegion, DbError> {
    let count_number = region.stone_count_number();
    let mut head = Vec::with_capacity(8 + RECORD * count_number);
    head.extend_from_slice(&(count_number as u64).to_le_bytes());
    let mut entries = region.scratch().zeroed(region.len())?;
    let mut counts = Vec::with_capacity(count_number);
    let mut at = 8 + RECORD * count_number;
    region.for_each_stone_count(&mut entries, |keys| {
        let dir: Vec<u8> = keys.dir.iter().flat_map(|d| d.to_le_bytes()).collect();
        let (dir_at, bits_at) = (at, at + dir.len());
        at = bits_at + keys.fields.len();
        let record = [
            keys.stones as u64,
            keys.len as u64,
            keys.shift as u64,
            dir_at as u64,
            bits_at as u64,
        ];
        head.extend(record.iter().flat_map(|x| x.to_le_bytes()));
        counts.push((dir, keys.fields));
    })?;
    Ok(EncodedRegion {
        head,
        counts,
        entries,
    })
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

/// The key file of a region, mapped, answering "where is this key".
pub struct RegionKeys {
    file: MappedFile,
    pub(crate) eg: Endgame,
    ranker: Ranker,
    groups: Vec<KeyGroup>,
    by_stones: Vec<Option<usize>>,
}

impl RegionKeys {
    /// Reads the group table of a checked key file.
    pub fn new(file: MappedFile, variant: KpeVariant) -> Result<Self, DbError> {
        super::db_check::key_file(&file, variant)?;
        let eg = Endgame::new(variant);
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
        let ranker = Ranker::new(variant);
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
        Ok(RegionKeys {
            file,
            eg,
            ranker,
            groups,
            by_stones,
        })
    }

    pub fn file(&self) -> &MappedFile {
        &self.file
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

    /// Keys of a group's universe: ranked boards times both players' marks.
    pub(crate) fn universe(&self, g: &KeyGroup) -> u64 {
        self.ranker.universe(g.stones)
    }

    pub(crate) fn dir(&self, g: &KeyGroup, b: usize) -> Result<u64, DbError> {
        let bytes = self.file.bytes(g.dir_at + 4 * b, 4)?;
        Ok(u32::from_le_bytes(bytes.try_into().expect("4 bytes")) as u64)
    }

    /// Asks for directory entry `b` of group `g` to be read ahead
    /// ([`MappedFile::read_ahead_bytes`]).
    pub(crate) fn read_ahead_dir(&self, g: &KeyGroup, b: usize) {
        self.file.read_ahead_bytes(g.dir_at + 4 * b, 4);
    }

    /// The low bits of key `j` of group `g`.
    pub(crate) fn field(&self, g: &KeyGroup, j: u64) -> Result<u64, DbError> {
        let bit = j as usize * g.shift as usize;
        let bytes = self.file.bytes(g.bits_at + bit / 8, 8)?;
        Ok(compact_keys::field_at(bytes, bit, g.shift))
    }

    /// The index in the values file of a locked position, if present.
    pub fn find_position(&self, pos: &KpePosition) -> Result<Option<u64>, DbError> {
        self.find(self.ranker.region_key(pos))
    }

    /// The index in the values file of a key, if present.
    pub fn find(&self, key: RegionKey) -> Result<Option<u64>, DbError> {
        let stones = stones_of(key);
        let Some(g) = self.by_stones.get(stones).copied().flatten() else {
            return Ok(None);
        };
        let g = &self.groups[g];
        let u = rank(key);
        let b = (u >> g.shift) as usize;
        if u >= self.universe(g) {
            return Ok(None);
        }
        let (lo, hi) = (self.dir(g, b)?, self.dir(g, b + 1)?);
        super::db_check::bucket(self, g, b, lo, hi)?;
        let low = u & ((1u64 << g.shift) - 1);
        let found = compact_keys::search(lo, hi, low, |j| self.field(g, j))?;
        Ok(found.map(|j| g.first + j))
    }

    /// A decoder of the keys of [`Self::keys_of`] into positions, which
    /// steps from one key to the next in file order.
    pub fn cursor(&self) -> KeyCursor<'_> {
        self.ranker.cursor()
    }

    /// Every key of group `g`, in file order.
    pub fn keys_of(&self, g: usize) -> Result<Vec<RegionKey>, DbError> {
        super::db_check::group(self, g)?;
        let group = self.groups[g];
        let mut keys = Vec::with_capacity(group.keys as usize);
        let buckets = (self.universe(&group) >> group.shift) as usize + 1;
        let mut j = 0u64;
        for b in 0..buckets {
            let end = self.dir(&group, b + 1)?;
            while j < end {
                let u = (b as u64) << group.shift | self.field(&group, j)?;
                keys.push(key_of(group.stones, u));
                j += 1;
            }
        }
        Ok(keys)
    }
}
