//! The compact key index of the locked region on disk
//! (`opening-keys.sowdb`, a plain database file of kind 3).
//!
//! In memory the region keys are 64-bit packed positions, mixed so that a
//! directory by their top bits finds them fast while solving. On disk a
//! position of `n` stones is instead *ranked*: `u = rank(board) · 4^W +
//! mover marks · 2^W + opponent marks`, below `U = C(n+2W-1, 2W-1) · 4^W`.
//! The keys of one stone count, sorted by `u`, are split into buckets by
//! `u >> S` and each key keeps only its `S` low bits, bit-packed; a
//! directory of `u32` gives each bucket's first key. With `S` five bits
//! above `⌊log₂(U/N)⌋` a bucket holds 16 to 32 keys on average, so a key costs about
//! `log₂(U/N) + 6.5` bits (the idea of Elias–Fano's split into high and low
//! bits, with a plain directory instead of a unary one): about 2.3 bytes
//! on the standard game, against 8 for a sorted `u64`. A lookup reads one
//! directory pair and binary-searches some 16 fixed-width fields.
//!
//! Payload (little-endian): `G` (u64); `G` records of five u64 (stones,
//! keys, S, byte offset of the directory, byte offset of the fields); then
//! per group the directory (`⌊U / 2^S⌋ + 2` u32 counts, cumulative) and the
//! fields, padded by 8 zero bytes so that any field is read by one
//! unaligned 8-byte load. The values file `opening.sowdb` holds the entry
//! bytes in the same order: by stone count, then `u`.

use rayon::prelude::*;

use super::db::entry;
use super::db::{DbError, MappedFile};
use super::endgame::Endgame;
use super::opening::{stones_of, unmix, LockedRegion, RegionKey};
use crate::games::kpe::KpeVariant;

const RECORD: usize = 5 * 8;
/// Bits per key above `log₂(U/N)`: buckets of 16 to 32 keys.
const EXTRA_BITS: u32 = 5;

/// Ranking of packed keys (see the module documentation).
struct Ranker<'a> {
    eg: &'a Endgame,
    pit_bits: usize,
}

impl<'a> Ranker<'a> {
    fn new(eg: &'a Endgame) -> Self {
        let v = eg.variant;
        Ranker {
            eg,
            pit_bits: 32 - v.total().leading_zeros() as usize,
        }
    }

    fn marks_bits(&self) -> usize {
        2 * self.eg.variant.w()
    }

    fn universe(&self, stones: usize) -> u64 {
        self.eg.index.layer_size(stones) << self.marks_bits()
    }

    fn board_of(&self, key: RegionKey, board: &mut [u8]) {
        let mask = (1u64 << self.pit_bits) - 1;
        for (i, c) in board.iter_mut().enumerate() {
            *c = ((key >> (self.pit_bits * i)) & mask) as u8;
        }
    }

    fn rank(&self, key: RegionKey) -> u64 {
        let pits = self.eg.variant.pits();
        let mut board = [0u8; 16];
        self.board_of(key, &mut board[..pits]);
        let marks = key >> (self.pit_bits * pits);
        self.eg.index.rank(&board[..pits]) << self.marks_bits() | marks
    }

    fn unrank(&self, stones: usize, u: u64) -> RegionKey {
        let pits = self.eg.variant.pits();
        let mut board = [0u8; 16];
        self.eg
            .index
            .unrank(stones, u >> self.marks_bits(), &mut board[..pits]);
        let mut key = 0u64;
        for (i, &c) in board[..pits].iter().enumerate() {
            key |= (c as u64) << (self.pit_bits * i);
        }
        let marks = u & ((1u64 << self.marks_bits()) - 1);
        key | marks << (self.pit_bits * pits)
    }
}

/// Low bits kept per key for `keys` keys below `universe`.
fn shift_for(universe: u64, keys: usize) -> u32 {
    let ratio = (universe / keys.max(1) as u64).max(1);
    (ratio.ilog2() + EXTRA_BITS).min(56)
}

/// The key-file payload of a solved region, and the entry bytes of its
/// positions in the same order. Consumes the region one group at a time,
/// reusing each group's key vector for its ranked keys (rank above the
/// entry byte, `u < 2^42` for every variant `check_solvable` accepts), so
/// that encoding needs no memory beyond the region's own: this was the
/// solve's peak (16 bytes a position twice over for the largest group,
/// then the whole payload; kpe:4x5 1,728 MiB, the standard game 4.5 GiB).
pub fn encode(eg: &Endgame, region: LockedRegion) -> (Vec<u8>, Vec<u8>) {
    let ranker = Ranker::new(eg);
    let groups = region.group_count();
    // Sized exactly up front: a doubling vector could hold twice the payload.
    let layout = |stones: usize, keys: usize| {
        let shift = shift_for(ranker.universe(stones), keys);
        let buckets = (ranker.universe(stones) >> shift) as usize + 1;
        (
            shift,
            buckets,
            4 * (buckets + 1) + (keys * shift as usize).div_ceil(8) + 8,
        )
    };
    let size = 8
        + RECORD * groups
        + region
            .counts()
            .iter()
            .map(|&(s, k)| layout(s, k).2)
            .sum::<usize>();
    let mut payload = Vec::with_capacity(size);
    payload.extend_from_slice(&(groups as u64).to_le_bytes());
    payload.resize(8 + RECORD * groups, 0);
    let mut entries = Vec::with_capacity(region.len());
    for (g, (stones, mut packed, values, ends)) in region.into_groups().enumerate() {
        packed.par_iter_mut().enumerate().for_each(|(i, k)| {
            let e = entry(values[i], ends.get(i as u64));
            *k = ranker.rank(unmix(*k)) << 8 | e as u64;
        });
        drop((values, ends));
        packed.par_sort_unstable();
        debug_assert!(
            ranker.universe(stones) < 1 << 56,
            "ranked keys leave 8 bits for the entry"
        );
        let (shift, buckets, _) = layout(stones, packed.len());
        let mut dir = vec![0u32; buckets + 1];
        for &p in &packed {
            dir[(p >> 8 >> shift) as usize + 1] += 1;
        }
        for i in 1..dir.len() {
            dir[i] += dir[i - 1];
        }
        let dir_at = payload.len();
        payload.extend(dir.iter().flat_map(|d| d.to_le_bytes()));
        let bits_at = payload.len();
        let mut fields = vec![0u8; (packed.len() * shift as usize).div_ceil(8) + 8];
        // (fields: the bit-packed low bits, 8 zero bytes of padding)
        let mask = (1u64 << shift) - 1;
        for (j, &p) in packed.iter().enumerate() {
            let bit = j * shift as usize;
            let at = bit / 8;
            let word = ((p >> 8) & mask) << (bit % 8);
            let old = u64::from_le_bytes(fields[at..at + 8].try_into().expect("8 bytes"));
            fields[at..at + 8].copy_from_slice(&(old | word).to_le_bytes());
        }
        payload.extend_from_slice(&fields);
        let record = [
            stones as u64,
            packed.len() as u64,
            shift as u64,
            dir_at as u64,
            bits_at as u64,
        ];
        let at = 8 + RECORD * g;
        for (i, x) in record.iter().enumerate() {
            payload[at + 8 * i..at + 8 * i + 8].copy_from_slice(&x.to_le_bytes());
        }
        entries.extend(packed.iter().map(|&p| p as u8));
    }
    debug_assert_eq!(payload.len(), size);
    (payload, entries)
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
        let ranker = Ranker::new(&eg);
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

    pub(crate) fn dir(&self, g: &KeyGroup, b: usize) -> Result<u64, DbError> {
        let bytes = self.file.bytes(g.dir_at + 4 * b, 4)?;
        Ok(u32::from_le_bytes(bytes.try_into().expect("4 bytes")) as u64)
    }

    /// The low bits of key `j` of group `g`.
    pub(crate) fn field(&self, g: &KeyGroup, j: u64) -> Result<u64, DbError> {
        let bit = j as usize * g.shift as usize;
        let bytes = self.file.bytes(g.bits_at + bit / 8, 8)?;
        let word = u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
        Ok((word >> (bit % 8)) & ((1u64 << g.shift) - 1))
    }

    /// The index in the values file of a relative key, if present.
    pub fn find(&self, key: RegionKey) -> Result<Option<u64>, DbError> {
        let stones = stones_of(self.eg.variant, key);
        let Some(g) = self.by_stones.get(stones).copied().flatten() else {
            return Ok(None);
        };
        let g = &self.groups[g];
        let ranker = Ranker::new(&self.eg);
        let u = ranker.rank(key);
        let b = (u >> g.shift) as usize;
        if u >= ranker.universe(stones) {
            return Ok(None);
        }
        let (mut lo, mut hi) = (self.dir(g, b)?, self.dir(g, b + 1)?);
        super::db_check::bucket(self, g, b, lo, hi)?;
        let low = u & ((1u64 << g.shift) - 1);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.field(g, mid)?.cmp(&low) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Ok(Some(g.first + mid)),
            }
        }
        Ok(None)
    }

    /// Every relative key of group `g`, in file order.
    pub fn keys_of(&self, g: usize) -> Result<Vec<RegionKey>, DbError> {
        super::db_check::group(self, g)?;
        let group = self.groups[g];
        let ranker = Ranker::new(&self.eg);
        let mut keys = Vec::with_capacity(group.keys as usize);
        let buckets = (ranker.universe(group.stones) >> group.shift) as usize + 1;
        let mut j = 0u64;
        for b in 0..buckets {
            let end = self.dir(&group, b + 1)?;
            while j < end {
                let u = (b as u64) << group.shift | self.field(&group, j)?;
                keys.push(ranker.unrank(group.stones, u));
                j += 1;
            }
        }
        Ok(keys)
    }
}
