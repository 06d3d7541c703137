//! Lock-free transposition table shared by all search threads.
//!
//! Each entry is two `AtomicU64`: `key ^ data` and `data` (the "XOR trick" of
//! crafty and Stockfish). A torn write (one word from one thread, one from
//! another) makes `word0 ^ word1` differ from the key, so the entry reads as
//! a miss: a probe never returns data stored for a different 64-bit key.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

/// What a stored value says about the true value of the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The value is the searched value.
    Exact,
    /// The true value is at least this (a fail-high).
    Lower,
    /// The true value is at most this (a fail-low).
    Upper,
}

/// A probed entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtEntry {
    pub value: i32,
    /// Draft of the search that produced it; `SOLVED_DEPTH` when `solved`.
    pub depth: u8,
    pub bound: Bound,
    /// The value (as bound) is game-theoretic: no horizon evaluation was used.
    pub solved: bool,
    /// Index of the best move in `Searchable::search_moves` order, if any.
    pub best: Option<u16>,
}

/// Depth recorded for solved entries: usable at every depth.
pub const SOLVED_DEPTH: u8 = 254;

const BUCKET: usize = 4;
const GEN_BITS: u32 = 6;
const GEN_MASK: u64 = (1 << GEN_BITS) - 1;

// data layout: value i16 [0,16) | best+1 u16 [16,32) | depth+1 u8 [32,40)
//              | bound 2 bits [40,42) | solved [42] | generation 6 bits [43,49)
fn pack(e: &TtEntry, generation: u8) -> u64 {
    let bound = match e.bound {
        Bound::Exact => 1u64,
        Bound::Lower => 2,
        Bound::Upper => 3,
    };
    let best = e.best.map_or(0, |b| b as u64 + 1) & 0xFFFF;
    (e.value as i16 as u16 as u64)
        | best << 16
        | (e.depth as u64 + 1) << 32
        | bound << 40
        | (e.solved as u64) << 42
        | (generation as u64 & GEN_MASK) << 43
}

fn unpack(data: u64) -> TtEntry {
    let best = (data >> 16) & 0xFFFF;
    TtEntry {
        value: data as u16 as i16 as i32,
        best: if best == 0 {
            None
        } else {
            Some(best as u16 - 1)
        },
        depth: ((data >> 32) & 0xFF) as u8 - 1,
        bound: match (data >> 40) & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            _ => Bound::Upper,
        },
        solved: (data >> 42) & 1 == 1,
    }
}

fn depth_of(data: u64) -> i32 {
    ((data >> 32) & 0xFF) as i32 - 1
}

fn generation_of(data: u64) -> u8 {
    ((data >> 43) & GEN_MASK) as u8
}

/// The shared table. `Sync`: share it by reference between threads.
pub struct TranspositionTable {
    slots: Box<[[AtomicU64; 2]]>,
    buckets: usize,
    generation: AtomicU8,
}

impl TranspositionTable {
    /// A table of about `mb` mebibytes (at least one bucket of four entries).
    pub fn new(mb: usize) -> Self {
        Self::with_buckets((mb << 20) / (16 * BUCKET))
    }

    /// A table with exactly `buckets` buckets of four entries (tests use 1).
    pub fn with_buckets(buckets: usize) -> Self {
        Self::try_with_buckets(buckets)
            .unwrap_or_else(|layout| std::alloc::handle_alloc_error(layout))
    }

    /// A table of about `mb` mebibytes, or `None` when the memory is not
    /// to be had (the caller refuses the request instead of aborting).
    pub fn try_new(mb: usize) -> Option<Self> {
        let bytes = mb.checked_mul(1 << 20)?;
        Self::try_with_buckets(bytes / (16 * BUCKET)).ok()
    }

    fn try_with_buckets(buckets: usize) -> Result<Self, std::alloc::Layout> {
        let buckets = buckets.max(1);
        Ok(TranspositionTable {
            slots: zeroed_slots(buckets * BUCKET)?,
            buckets,
            generation: AtomicU8::new(0),
        })
    }

    /// Number of entries.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Starts a new search: entries of older searches become preferred victims.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Relaxed);
    }

    /// Empties the table (not concurrently with a search).
    pub fn clear(&self) {
        for s in self.slots.iter() {
            s[0].store(0, Relaxed);
            s[1].store(0, Relaxed);
        }
    }

    fn bucket(&self, key: u64) -> usize {
        ((key as u128 * self.buckets as u128) >> 64) as usize * BUCKET
    }

    /// Asks for `key`'s bucket (one cache line) ahead of its probe.
    pub fn prefetch(&self, key: u64) {
        crate::infra::prefetch::prefetch(&self.slots[self.bucket(key)]);
    }

    /// The entry stored for exactly `key`, if any.
    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        let b = self.bucket(key);
        for slot in &self.slots[b..b + BUCKET] {
            let data = slot[1].load(Relaxed);
            let check = slot[0].load(Relaxed);
            if data != 0 && check ^ data == key {
                return Some(unpack(data));
            }
        }
        None
    }

    /// Stores an entry for `key`. The same key is overwritten (unless the old
    /// entry is solved and the new one is not); otherwise the victim is the
    /// entry with the smallest depth, entries of older searches counting as
    /// 8 plies shallower per generation of age.
    pub fn store(&self, key: u64, entry: TtEntry) {
        let generation = self.generation.load(Relaxed) & GEN_MASK as u8;
        let b = self.bucket(key);
        let bucket = &self.slots[b..b + BUCKET];
        let mut victim = 0;
        let mut worst = i32::MAX;
        for (i, slot) in bucket.iter().enumerate() {
            let data = slot[1].load(Relaxed);
            let check = slot[0].load(Relaxed);
            if data == 0 {
                if worst > i32::MIN {
                    victim = i;
                    worst = i32::MIN;
                }
                continue;
            }
            if check ^ data == key {
                let old = unpack(data);
                if old.solved && !entry.solved {
                    // Keep the proof, but refresh a missing best move.
                    if old.best.is_some() || entry.best.is_none() {
                        return;
                    }
                    let merged = TtEntry {
                        best: entry.best,
                        ..old
                    };
                    write(&bucket[i], key, pack(&merged, generation));
                    return;
                }
                let entry = TtEntry {
                    best: entry.best.or(old.best),
                    ..entry
                };
                write(&bucket[i], key, pack(&entry, generation));
                return;
            }
            let age = (generation.wrapping_sub(generation_of(data)) as u64 & GEN_MASK) as i32;
            let score = depth_of(data) - 8 * age;
            if score < worst {
                worst = score;
                victim = i;
            }
        }
        write(&bucket[victim], key, pack(&entry, generation));
    }

    /// Per-mille of the first 1000 entries used by the current search.
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation.load(Relaxed) & GEN_MASK as u8;
        let n = self.slots.len().min(1000);
        let used = self.slots[..n]
            .iter()
            .filter(|s| {
                let d = s[1].load(Relaxed);
                d != 0 && generation_of(d) == generation
            })
            .count();
        (used * 1000 / n.max(1)) as u32
    }
}

/// `n` empty slots from zeroed memory: the allocator hands out fresh pages
/// that the kernel zeroes lazily, on first touch, so a large table costs
/// nothing until the search uses it (writing 64 MiB of zeros took ~50 ms).
/// `n` zeroed slots, or the layout that could not be allocated.
fn zeroed_slots(n: usize) -> Result<Box<[[AtomicU64; 2]]>, std::alloc::Layout> {
    let layout = std::alloc::Layout::array::<[AtomicU64; 2]>(n)
        .map_err(|_| std::alloc::Layout::new::<[AtomicU64; 2]>())?;
    // SAFETY: the layout has a non-zero size (n >= BUCKET), all-zero bytes
    // are a valid `AtomicU64` (0), and the pointer comes from the global
    // allocator with exactly the layout `Box<[_]>` frees it with.
    unsafe {
        let ptr = std::alloc::alloc_zeroed(layout) as *mut [AtomicU64; 2];
        if ptr.is_null() {
            return Err(layout);
        }
        Ok(Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, n)))
    }
}

fn write(slot: &[AtomicU64; 2], key: u64, data: u64) {
    slot[0].store(key ^ data, Relaxed);
    slot[1].store(data, Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(value: i32, depth: u8) -> TtEntry {
        TtEntry {
            value,
            depth,
            bound: Bound::Exact,
            solved: false,
            best: Some(3),
        }
    }

    #[test]
    fn pack_roundtrip() {
        for e in [
            entry(-17, 0),
            entry(300, 200),
            TtEntry {
                value: -32000,
                depth: SOLVED_DEPTH,
                bound: Bound::Upper,
                solved: true,
                best: None,
            },
            TtEntry {
                value: 5,
                depth: 9,
                bound: Bound::Lower,
                solved: false,
                best: Some(65534),
            },
        ] {
            assert_eq!(unpack(pack(&e, 63)), e);
        }
    }

    #[test]
    fn colliding_keys_never_read_each_other() {
        // One bucket: every key maps to the same four slots.
        let tt = TranspositionTable::with_buckets(1);
        let keys: Vec<u64> = (1..=6u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        for (i, &k) in keys.iter().enumerate() {
            tt.store(k, entry(i as i32, i as u8));
        }
        let mut found = 0;
        for (i, &k) in keys.iter().enumerate() {
            if let Some(e) = tt.probe(k) {
                assert_eq!(e.value, i as i32, "key {i} read another key's entry");
                found += 1;
            }
        }
        assert_eq!(found, 4);
        assert_eq!(tt.probe(0xDEAD_BEEF), None);
        // Depth-preferred: the deepest entries survive.
        assert!(tt.probe(keys[5]).is_some());
        assert!(tt.probe(keys[0]).is_none());
    }

    #[test]
    fn aging_makes_old_entries_victims() {
        let tt = TranspositionTable::with_buckets(1);
        for k in 1..=4u64 {
            tt.store(k, entry(k as i32, 10));
        }
        tt.new_search();
        tt.new_search();
        tt.store(99, entry(99, 2));
        assert_eq!(tt.probe(99).map(|e| e.value), Some(99));
    }

    #[test]
    fn solved_entry_survives_shallow_overwrite() {
        let tt = TranspositionTable::new(1);
        let solved = TtEntry {
            value: 6,
            depth: SOLVED_DEPTH,
            bound: Bound::Exact,
            solved: true,
            best: Some(1),
        };
        tt.store(42, solved);
        tt.store(42, entry(0, 3));
        assert_eq!(tt.probe(42), Some(solved));
    }
}
