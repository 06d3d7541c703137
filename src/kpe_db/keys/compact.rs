//! A compact sorted set of ranked keys (`ranker.rs`) of one stone count,
//! as the key file keeps them (`key_file.rs`); the region, while it is
//! solved, keeps each group of one count and one class of marks the same
//! way, by the keys' local ranks below the group's own `U`
//! (`mark_classes.rs`).
//!
//! The keys, sorted by `u`, are split into buckets by `u >> S` and each key
//! keeps only its `S` low bits, bit-packed; a directory of `u32` gives each
//! bucket's first key. With `S` five bits above `⌊log₂(U/N)⌋` a bucket
//! holds 16 to 32 keys on average, so a key costs about `log₂(U/N) + 6.5`
//! bits (the idea of Elias–Fano's split into high and low bits, with a
//! plain directory instead of a unary one): about 2 bytes on the standard
//! game, against 8 for a 64-bit key ([`RegionKey`]). A lookup reads one
//! directory pair and binary-searches some 16 fixed-width fields. A key's
//! index in the set is its position in `u` order, which is also the order
//! of the values.

use rayon::prelude::*;

use super::ranker::{key_of, RegionKey};
use crate::kpe_db::error::DbError;
use crate::kpe_db::scratch::{Scratch, ScratchVec};

/// Bits per key above `log₂(U/N)`: buckets of 16 to 32 keys.
const EXTRA_BITS: u32 = 5;

/// The directory and field widths of `keys` keys below `universe`:
/// (low bits kept per key, buckets).
pub fn layout(universe: u64, keys: usize) -> (u32, usize) {
    let ratio = (universe / keys.max(1) as u64).max(1);
    let shift = (ratio.ilog2() + EXTRA_BITS).min(56);
    (shift, (universe >> shift) as usize + 1)
}

/// Bytes of the bit-packed fields of `keys` keys of `shift` bits, with the
/// 8 zero bytes that let any field be read by one unaligned 8-byte load.
pub fn fields_len(keys: usize, shift: u32) -> usize {
    (keys * shift as usize).div_ceil(8) + 8
}

/// Field `j` (`shift` bits) of bit-packed `fields`.
#[inline]
pub fn field(fields: &[u8], shift: u32, j: u64) -> u64 {
    let bit = j as usize * shift as usize;
    let at = bit / 8;
    field_at(&fields[at..at + 8], bit, shift)
}

/// The `shift`-bit field starting at bit `bit` of the packed fields, from
/// the 8 bytes that start at byte `bit / 8`.
#[inline]
pub fn field_at(bytes: &[u8], bit: usize, shift: u32) -> u64 {
    let word = u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
    (word >> (bit % 8)) & ((1u64 << shift) - 1)
}

/// The index in `lo..hi` (one bucket) whose field is `low`, if any.
#[inline]
pub fn search<E>(
    mut lo: u64,
    mut hi: u64,
    low: u64,
    field: impl Fn(u64) -> Result<u64, E>,
) -> Result<Option<u64>, E> {
    while lo < hi {
        let mid = (lo + hi) / 2;
        match field(mid)?.cmp(&low) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return Ok(Some(mid)),
        }
    }
    Ok(None)
}

/// The keys of one stone count, compact (module documentation).
#[derive(Debug, Default)]
pub struct CompactKeys {
    pub stones: usize,
    pub len: usize,
    pub shift: u32,
    /// Cumulative key counts: bucket `b` holds keys `dir[b]..dir[b + 1]`
    /// (about half a bit a key: kept in memory).
    pub dir: Vec<u32>,
    /// The keys' low bits, in `scratch` (`scratch.rs`): the bulk.
    pub fields: ScratchVec<u8>,
}

impl CompactKeys {
    /// The bucket of a ranked key, and the range of indices it holds.
    #[inline]
    pub fn bucket(&self, u: u64) -> Option<(u64, u64)> {
        let b = (u >> self.shift) as usize;
        let (lo, hi) = (*self.dir.get(b)?, *self.dir.get(b + 1)?);
        Some((lo as u64, hi as u64))
    }

    /// The index of ranked key `u` in the range of its bucket.
    #[inline]
    pub fn find_in(&self, u: u64, (lo, hi): (u64, u64)) -> Option<u64> {
        let low = u & ((1u64 << self.shift) - 1);
        let found: Result<_, std::convert::Infallible> =
            search(lo, hi, low, |j| Ok(field(&self.fields, self.shift, j)));
        found.unwrap_or_else(|e| match e {})
    }

    /// The index of ranked key `u`.
    #[inline]
    pub fn find(&self, u: u64) -> Option<u64> {
        self.find_in(u, self.bucket(u)?)
    }

    /// Every ranked key, in index order.
    pub fn ranked(&self) -> Vec<u64> {
        self.ranked_in(0..self.len)
    }

    /// The ranked keys of indices `range`, in index order.
    pub fn ranked_in(&self, range: std::ops::Range<usize>) -> Vec<u64> {
        self.map_ranked_in(range, |u| u)
    }

    /// Every key ([`RegionKey`]), in index order.
    pub fn keys(&self) -> Vec<RegionKey> {
        self.keys_in(0..self.len)
    }

    /// The keys ([`RegionKey`]) of indices `range`, in index order.
    pub fn keys_in(&self, range: std::ops::Range<usize>) -> Vec<RegionKey> {
        self.map_ranked_in(range, |u| key_of(self.stones, u))
    }

    /// Every ranked key in index order, decoded one after the other.
    pub fn iter_ranked(&self) -> impl Iterator<Item = u64> + '_ {
        let mut b = 0;
        (0..self.len as u64).map(move |j| {
            while self.dir[b + 1] as u64 <= j {
                b += 1;
            }
            (b as u64) << self.shift | field(&self.fields, self.shift, j)
        })
    }

    /// `f` of the ranked key of each index of `range`, in index order,
    /// decoded a run of indices per task.
    pub fn map_ranked_in(
        &self,
        range: std::ops::Range<usize>,
        f: impl Fn(u64) -> u64 + Sync,
    ) -> Vec<u64> {
        // Allocated zeroed: its pages are cleared by the threads that
        // fill them, not one by one here.
        let mut out = vec![0u64; range.len()];
        out.par_chunks_mut(PACKED_RUN)
            .enumerate()
            .for_each(|(c, out)| {
                let first = range.start + c * PACKED_RUN;
                // The bucket of the first index: the last whose start is
                // not past it.
                let mut b = self.dir.partition_point(|&d| d as usize <= first) - 1;
                for (j, slot) in (first..).zip(out) {
                    while self.dir[b + 1] as usize <= j {
                        b += 1;
                    }
                    *slot = f((b as u64) << self.shift | field(&self.fields, self.shift, j as u64));
                }
            });
        out
    }
}

/// Builds a [`CompactKeys`] from its keys given one at a time in
/// ascending order, without holding them.
pub struct CompactKeysBuilder {
    keys: CompactKeys,
    pushed: usize,
    pending: u128,
    bits: u32,
    at: usize,
}

impl CompactKeysBuilder {
    /// A builder of a set of `len` keys below `universe`, its fields in
    /// `scratch`.
    pub fn new(
        scratch: &Scratch,
        universe: u64,
        stones: usize,
        len: usize,
    ) -> Result<Self, DbError> {
        let (shift, buckets) = layout(universe, len);
        Ok(CompactKeysBuilder {
            keys: CompactKeys {
                stones,
                len,
                shift,
                dir: vec![0; buckets + 1],
                fields: scratch.zeroed(fields_len(len, shift))?,
            },
            pushed: 0,
            pending: 0,
            bits: 0,
            at: 0,
        })
    }

    /// Adds the next key (larger than every key before it).
    #[inline]
    pub fn push(&mut self, u: u64) {
        let k = &mut self.keys;
        k.dir[(u >> k.shift) as usize + 1] += 1;
        self.pending |= ((u & ((1u64 << k.shift) - 1)) as u128) << self.bits;
        self.bits += k.shift;
        while self.bits >= 8 {
            k.fields[self.at] = self.pending as u8;
            self.pending >>= 8;
            self.bits -= 8;
            self.at += 1;
        }
        self.pushed += 1;
    }

    /// The set, once its `len` keys are pushed.
    pub fn finish(mut self) -> CompactKeys {
        assert_eq!(self.pushed, self.keys.len, "keys pushed");
        if self.bits > 0 {
            self.keys.fields[self.at] = self.pending as u8;
        }
        for b in 1..self.keys.dir.len() {
            self.keys.dir[b] += self.keys.dir[b - 1];
        }
        self.keys
    }
}

/// Keys per task when packing or unpacking the fields: a multiple of 8.
const PACKED_RUN: usize = 1 << 15;
#[cfg(test)]
mod tests {
    use super::super::ranker::Ranker;
    use super::*;
    use crate::games::kpe::KpeVariant;
    use crate::infra::rng::Rng;

    /// The set of sorted keys `ranked`, built one key at a time.
    fn built(universe: u64, stones: usize, ranked: &[u64]) -> CompactKeys {
        let mut builder =
            CompactKeysBuilder::new(&Scratch::Memory, universe, stones, ranked.len()).unwrap();
        ranked.iter().for_each(|&u| builder.push(u));
        builder.finish()
    }

    #[test]
    fn every_key_is_found_at_its_sorted_index_and_no_other_key_is() {
        let v = KpeVariant::new(3, 2).unwrap();
        let ranker = Ranker::new(v);
        let stones = 8;
        let universe = ranker.universe(stones);
        let mut rng = Rng::new(3);
        for wanted in [1usize, 2, 17, 500, 3000] {
            let mut ranked: Vec<u64> = (0..wanted)
                .map(|_| rng.below(universe as usize) as u64)
                .collect();
            ranked.sort_unstable();
            ranked.dedup();
            let set = built(universe, stones, &ranked);
            assert_eq!(set.len, ranked.len());
            assert_eq!(set.ranked(), ranked);
            let n = ranked.len();
            for (a, b) in [(0, n), (0, n / 2), (n / 3, n), (n / 2, n / 2 + 1), (n, n)] {
                assert_eq!(set.ranked_in(a..b), ranked[a..b], "slice {a}..{b}");
            }
            for (i, &u) in ranked.iter().enumerate() {
                assert_eq!(set.find(u), Some(i as u64), "key {u}");
                let key = key_of(stones, u);
                let parts = ranker.parts(key);
                assert_eq!(ranker.region_key(&parts.position(v)), key);
            }
            for u in 0..universe {
                if ranked.binary_search(&u).is_err() {
                    assert_eq!(set.find(u), None, "absent key {u}");
                }
            }
        }
    }

    /// Sets of many runs of keys, some buckets crowded and some empty:
    /// the directory and fields built are those counted and packed here
    /// by hand, and decoding a run of keys per task across runs gives the
    /// keys back.
    #[test]
    fn sets_built_and_read_in_runs_equal_one_pass_in_order() {
        let v = KpeVariant::new(4, 6).unwrap();
        let ranker = Ranker::new(v);
        let stones = 40;
        let universe = ranker.universe(stones);
        let mut rng = Rng::new(11);
        let mut ranked: Vec<u64> = (0..3 * PACKED_RUN + 77)
            .map(|_| rng.below(universe as usize) as u64)
            .collect();
        ranked.extend(universe / 2..universe / 2 + 2 * PACKED_RUN as u64);
        ranked.sort_unstable();
        ranked.dedup();
        let set = built(universe, stones, &ranked);
        assert!(ranked.len() > 4 * PACKED_RUN);
        let shift = set.shift;
        let mut dir = vec![0u32; set.dir.len()];
        for &u in &ranked {
            dir[(u >> shift) as usize + 1] += 1;
        }
        for i in 1..dir.len() {
            dir[i] += dir[i - 1];
        }
        assert_eq!(set.dir, dir);
        let mut fields = vec![0u8; fields_len(ranked.len(), shift)];
        for (j, &u) in ranked.iter().enumerate() {
            let bit = j * shift as usize;
            let word = (u & ((1 << shift) - 1)) << (bit % 8);
            let at = bit / 8;
            let old = u64::from_le_bytes(fields[at..at + 8].try_into().unwrap());
            fields[at..at + 8].copy_from_slice(&(old | word).to_le_bytes());
        }
        assert!(set.fields[..] == fields[..], "fields differ");
        assert_eq!(set.ranked(), ranked);
        assert!(set.iter_ranked().eq(ranked.iter().copied()));
        let n = ranked.len();
        let cut = PACKED_RUN;
        for (a, b) in [(1, n - 1), (cut - 1, 2 * cut + 1), (cut, cut), (n - 3, n)] {
            assert_eq!(set.ranked_in(a..b), ranked[a..b], "slice {a}..{b}");
            let keys: Vec<u64> = ranked[a..b].iter().map(|&u| key_of(stones, u)).collect();
            assert_eq!(set.keys_in(a..b), keys, "keys {a}..{b}");
        }
    }
}
