//! df-pn's table of proof and disproof numbers (`dfpn.rs`), by position
//! and threshold. The numbers only choose what df-pn expands: a collision
//! or a lost entry costs time, never a wrong answer (answers are bounds,
//! kept in the bound table, `bounds.rs`).

use std::sync::atomic::Ordering::Relaxed;

use super::slab::{victim, work, Entry, Slab};

/// Proof and disproof numbers are capped here ("infinite").
pub(super) const PN_INF: u64 = u32::MAX as u64;

/// Bits of the key word that hold an entry's work (the log2 of the nodes
/// its numbers took); the key is checked on the other 58.
const WORK_BITS: u32 = 6;
const WORK_MASK: u64 = (1 << WORK_BITS) - 1;

/// The numbers of tests not yet answered, in buckets of one cache line
/// (`slab.rs`). A full bucket gives up the entry whose numbers took the
/// fewest nodes, so that the numbers of large subtrees outlive those of
/// leaves. Entries use the "XOR trick" of `bounds.rs`: a torn entry reads
/// as a miss.
pub(super) struct PnTable {
    slots: Slab,
}

impl PnTable {
    /// A table of about `mb` mebibytes (16 bytes an entry, at least one
    /// bucket).
    pub(super) fn new(mb: usize) -> PnTable {
        PnTable {
            slots: Slab::of_mebibytes(mb),
        }
    }

    fn key(key: u64, t: i32) -> u64 {
        // A threshold changes the whole key (the high bits pick the bucket).
        key ^ (t as i64 as u64)
            .wrapping_add(0x51)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    pub(super) fn prefetch(&self, key: u64, t: i32) {
        self.slots.prefetch(Self::key(key, t))
    }

    /// Whether `slot` holds the test `k`, and if so its data and work.
    fn holds(slot: &Entry, k: u64) -> Option<(u64, u8)> {
        let data = slot[1].load(Relaxed);
        let tagged = slot[0].load(Relaxed) ^ data;
        (data != 0 && tagged & !WORK_MASK == k & !WORK_MASK).then_some((data, work_of(tagged)))
    }

    /// The numbers stored for the test, if any (never 0: answers are
    /// bounds, kept in the bound table).
    pub(super) fn probe(&self, key: u64, t: i32) -> Option<(u64, u64)> {
        let k = Self::key(key, t);
        self.slots.bucket(k).iter().find_map(|s| {
            Self::holds(s, k).map(|(data, _)| ((data & 0xFFFF_FFFF).max(1), (data >> 32).max(1)))
        })
    }

    /// Keeps the numbers of a test that took `nodes` nodes to reach.
    pub(super) fn store(&self, key: u64, t: i32, phi: u64, delta: u64, nodes: u64) {
        let k = Self::key(key, t);
        let data = phi.clamp(1, PN_INF) | delta.clamp(1, PN_INF) << 32;
        let work = work(nodes) as u64;
        let bucket = self.slots.bucket(k);
        if let Some((slot, old)) = bucket
            .iter()
            .find_map(|s| Self::holds(s, k).map(|(_, w)| (s, w)))
        {
            // The same test: the newest numbers, and the larger work.
            return write(slot, k, data, work.max(old as u64));
        }
        let victim = victim(bucket, |e| work_of(e[0].load(Relaxed) ^ e[1].load(Relaxed)));
        write(&bucket[victim], k, data, work)
    }
}

/// The work an entry holds, from its key word with the data XORed out.
fn work_of(tagged: u64) -> u8 {
    (tagged & WORK_MASK) as u8
}

fn write(slot: &Entry, k: u64, data: u64, work: u64) {
    slot[0].store((k & !WORK_MASK | work) ^ data, Relaxed);
    slot[1].store(data, Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_round_trip_by_position_and_threshold() {
        // Keys that differ above the work bits, as positions' hashes do.
        const A: u64 = 42 << WORK_BITS;
        const B: u64 = 43 << WORK_BITS;
        let t = PnTable::new(1);
        assert_eq!(t.probe(A, 3), None);
        t.store(A, 3, 7, 1 << 40, 1);
        // Capped at "infinite", and another threshold is another test.
        assert_eq!(t.probe(A, 3), Some((7, PN_INF)));
        assert_eq!(t.probe(A, 4), None);
        assert_eq!(t.probe(B, 3), None);
        // Never 0: an answer is a bound, not a number.
        t.store(A, 3, 0, 0, 1);
        assert_eq!(t.probe(A, 3), Some((1, 1)));
    }

    #[test]
    fn a_full_bucket_keeps_the_numbers_that_took_most_nodes() {
        // One bucket: every test lands in it.
        let t = PnTable::new(0);
        let key = |k: u64| k << WORK_BITS;
        for k in 1..=4u64 {
            t.store(key(k), 0, 5, 6, 1 << (10 + k));
        }
        t.store(key(99), 0, 7, 8, 1);
        assert_eq!(t.probe(key(1), 0), None, "the cheapest entry is the victim");
        assert_eq!(t.probe(key(2), 0), Some((5, 6)));
        assert_eq!(t.probe(key(99), 0), Some((7, 8)));
        // Storing a test again updates it in place, keeping its work.
        t.store(key(4), 0, 9, 9, 1);
        t.store(key(100), 0, 1, 1, 1);
        assert_eq!(t.probe(key(4), 0), Some((9, 9)));
        assert_eq!(t.probe(key(99), 0), None);
    }
}
