//! Lock-free table of *proved* bounds for the exact prover.
//!
//! Unlike the search's transposition table (`tt.rs`), an entry here is not a
//! value at some draft: it is an interval `[lo, hi]` that the true RULES §0
//! value of the position is known to lie in, whatever the depth. Storing
//! the same key again intersects the intervals, so knowledge only grows.
//! Entries use the same "XOR trick" as `tt.rs` (two `AtomicU64`, `key ^ data`
//! and `data`): a torn write reads as a miss, never as another key's bounds.
//! A lost update (two threads storing the same key at once) only loses
//! knowledge; every interval ever stored is sound on its own.

use std::sync::atomic::Ordering::Relaxed;

use super::slab::{victim, Entry, Slab};

/// What the table knows about a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proved {
    /// The true value is at least `lo` ...
    pub lo: i32,
    /// ... and at most `hi`.
    pub hi: i32,
    /// Index (in `Searchable::search_moves` order) of the move that proved
    /// the last lower bound, for move ordering and the principal variation.
    pub best: Option<u16>,
    /// The last test that stayed open (neither answer proved).
    pub open: Option<Open>,
}

/// A test `V ≥ t` left open by a search with a depth budget of `depth`
/// (the prover's quarter plies), in a search mode (`need`, 0 to 3, the
/// prover's): the same test at no greater budget would end the same way,
/// unless new bounds were proved since. Budgets above 254 are stored as
/// 254, which can only make a later search redo the test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Open {
    pub t: i32,
    pub depth: u32,
    pub need: u8,
}

/// Bounds are stored with this offset in 10 bits: values in [-511, 512].
const OFFSET: i32 = 511;
/// Largest storable bound: no board holds more stones.
pub const LIMIT: i32 = 512;

fn field(v: i32) -> u64 {
    (v.clamp(-OFFSET, LIMIT) + OFFSET) as u64
}

fn unfield(bits: u64) -> i32 {
    (bits & 0x3FF) as i32 - OFFSET
}

// data: lo [0,10) | hi [10,20) | best+1 [20,32) | work 6 bits [32,38)
//       | open t [38,48) | open depth+1 u8 [48,56) | open need [56,58) | 1 [58]
fn pack(p: &Proved, work: u8) -> u64 {
    let best = p.best.filter(|&b| b < 0xFFF).map_or(0, |b| b as u64 + 1);
    let open = p.open.map_or(0, |o| {
        field(o.t) << 38 | (o.depth.min(254) as u64 + 1) << 48 | (o.need as u64 & 3) << 56
    });
    field(p.lo) | field(p.hi) << 10 | best << 20 | (work.min(63) as u64) << 32 | open | 1 << 58
}

fn unpack(data: u64) -> Proved {
    let best = (data >> 20) & 0xFFF;
    let open_depth = (data >> 48) & 0xFF;
    Proved {
        lo: unfield(data),
        hi: unfield(data >> 10),
        best: (best != 0).then(|| best as u16 - 1),
        open: (open_depth != 0).then(|| Open {
            t: unfield(data >> 38),
            depth: open_depth as u32 - 1,
            need: ((data >> 56) & 3) as u8,
        }),
    }
}

fn work_of(data: u64) -> u8 {
    ((data >> 32) & 63) as u8
}

/// The shared table of proved bounds. `Sync`: share it by reference.
pub struct BoundTable {
    slots: Slab,
}

impl BoundTable {
    /// A table of about `mb` mebibytes (16 bytes an entry, at least one bucket).
    pub fn new(mb: usize) -> Self {
        // One 10-bit field per bound (see `pack`): no board exceeds LIMIT.
        BoundTable {
            slots: Slab::of_mebibytes(mb),
        }
    }

    /// The table's size in bytes.
    pub fn bytes(&self) -> usize {
        self.slots.bytes()
    }

    /// Asks the CPU to bring `key`'s bucket into the cache: a node
    /// prefetches every child's bucket before probing them, so the misses
    /// overlap instead of following one another.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        self.slots.prefetch(key)
    }

    /// The bounds stored for exactly `key`, if any.
    pub fn probe(&self, key: u64) -> Option<Proved> {
        self.probe_with_work(key).map(|(p, _)| p)
    }

    /// [`BoundTable::probe`], with the work of the largest search that
    /// stored into the entry (the log2 of its nodes): how large a proof
    /// behind the bounds may be.
    pub fn probe_with_work(&self, key: u64) -> Option<(Proved, u8)> {
        self.slots.bucket(key).iter().find_map(|slot| {
            let data = slot[1].load(Relaxed);
            (data != 0 && slot[0].load(Relaxed) ^ data == key)
                .then(|| (unpack(data), work_of(data)))
        })
    }

    /// Adds what was proved about `key`: the stored interval becomes the
    /// intersection with `p`. `work` (the log2 of the nodes the proof took)
    /// decides which entry of a full bucket is replaced: the cheapest to redo.
    pub fn store(&self, key: u64, p: Proved, work: u8) {
        let bucket = self.slots.bucket(key);
        for slot in bucket {
            let data = slot[1].load(Relaxed);
            if data != 0 && slot[0].load(Relaxed) ^ data == key {
                let old = unpack(data);
                let merged = Proved {
                    lo: p.lo.max(old.lo),
                    hi: p.hi.min(old.hi),
                    best: p.best.or(old.best),
                    open: p.open.or(old.open),
                };
                // Sound bounds never cross; if they did (a hash collision of
                // 64-bit keys), keep the newer proof rather than nonsense.
                let merged = if merged.lo > merged.hi { p } else { merged };
                write(slot, key, pack(&merged, work.max(work_of(data))));
                return;
            }
        }
        let victim = victim(bucket, |e| work_of(e[1].load(Relaxed)));
        write(&bucket[victim], key, pack(&p, work));
    }

    /// Calls `f(key, data)` for every stored entry, `data` packed as this
    /// module packs it: what `bounds_file` writes. Only when no proof is
    /// storing: an entry read while a thread writes it could pair one
    /// key's bounds with another key (the probe's XOR check is not made
    /// here, it needs the key).
    pub fn for_each_entry(&self, mut f: impl FnMut(u64, u64)) {
        for bucket in self.slots.buckets() {
            for slot in bucket {
                let data = slot[1].load(Relaxed);
                if data != 0 {
                    f(slot[0].load(Relaxed) ^ data, data);
                }
            }
        }
    }

    /// Stores an entry that [`BoundTable::for_each_entry`] gave (read back
    /// by `bounds_file`), merged with what the table knows of `key`.
    /// `false`, and nothing stored, when `data` is not an entry this module
    /// packs (a corrupt file): no bits outside the fields, `lo ≤ hi`.
    pub fn restore(&self, key: u64, data: u64) -> bool {
        let p = unpack(data);
        let valid = data != 0 && pack(&p, work_of(data)) == data && p.lo <= p.hi;
        if valid {
            self.store(key, p, work_of(data));
        }
        valid
    }
}

fn write(slot: &Entry, key: u64, data: u64) {
    slot[0].store(key ^ data, Relaxed);
    slot[1].store(data, Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_intersect_and_round_trip() {
        let t = BoundTable::new(1);
        assert_eq!(t.probe(42), None);
        t.store(
            42,
            Proved {
                lo: -30,
                hi: 12,
                best: None,
                open: None,
            },
            3,
        );
        t.store(
            42,
            Proved {
                lo: -4,
                hi: 40,
                best: Some(7),
                open: Some(Open {
                    t: -3,
                    depth: 9,
                    need: 2,
                }),
            },
            1,
        );
        assert_eq!(
            t.probe(42),
            Some(Proved {
                lo: -4,
                hi: 12,
                best: Some(7),
                open: Some(Open {
                    t: -3,
                    depth: 9,
                    need: 2
                }),
            })
        );
        assert_eq!(t.probe(43), None);
    }

    #[test]
    fn a_huge_page_table_stores_probes_and_prefetches() {
        // 4 MiB: on Linux the slab is aligned to a huge page.
        let t = BoundTable::new(4);
        if cfg!(target_os = "linux") {
            assert!(t.slots.huge_page_aligned());
        }
        let p = Proved {
            lo: -3,
            hi: 5,
            best: Some(2),
            open: None,
        };
        for k in (1..20_000u64).map(|k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15)) {
            t.prefetch(k);
            t.store(k, p, 1);
        }
        let found = (1..20_000u64)
            .map(|k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .filter(|&k| t.probe(k) == Some(p))
            .count();
        // 65,536 buckets of 4: almost nothing is evicted.
        assert!(found > 19_900, "{found}");
        assert_eq!(t.probe(0x1234_5678), None);
    }

    #[test]
    fn a_full_bucket_keeps_the_costliest_proofs() {
        // One bucket: every key lands in it.
        let t = BoundTable::new(0);
        let p = Proved {
            lo: 0,
            hi: 0,
            best: None,
            open: None,
        };
        for k in 1..=4u64 {
            t.store(k, p, 10 + k as u8);
        }
        t.store(99, p, 0);
        assert_eq!(t.probe(1), None, "the cheapest entry is the victim");
        assert!(t.probe(4).is_some() && t.probe(99).is_some());
    }
}
