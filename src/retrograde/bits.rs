//! A set of position indices, one bit each, that both threads fill at once.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

/// A set of position indices, one bit each, shared by the threads.
#[derive(Debug)]
pub struct Bits(Vec<AtomicU64>);

/// A copy of the set (not taken while other threads insert).
impl Clone for Bits {
    fn clone(&self) -> Self {
        Bits(
            self.0
                .iter()
                .map(|w| AtomicU64::new(w.load(Relaxed)))
                .collect(),
        )
    }
}

impl Bits {
    pub fn new(len: u64) -> Self {
        Bits(crate::infra::atomics::atomic_u64s(len.div_ceil(64) as usize))
    }

    /// The set's words, little-endian (not taken while other threads
    /// insert): what a checkpoint stores (`kpe_db/build/checkpoint.rs`).
    pub fn to_le_bytes(&self) -> Vec<u8> {
        self.0
            .iter()
            .flat_map(|w| w.load(Relaxed).to_le_bytes())
            .collect()
    }

    /// The set of `len` indices whose words `bytes` holds
    /// ([`Self::to_le_bytes`]), or None if they are not that many bytes.
    pub fn from_le_bytes(len: u64, bytes: &[u8]) -> Option<Self> {
        let words = len.div_ceil(64) as usize;
        if bytes.len() != 8 * words {
            return None;
        }
        let set = Self::new(len);
        for (w, b) in set.0.iter().zip(bytes.chunks_exact(8)) {
            w.store(u64::from_le_bytes(b.try_into().expect("8 bytes")), Relaxed);
        }
        Some(set)
    }

    #[inline]
    pub fn get(&self, i: u64) -> bool {
        self.0[(i / 64) as usize].load(Relaxed) & (1 << (i % 64)) != 0
    }

    /// Sets bit `i`; true if it was not set before.
    #[inline]
    pub fn insert(&self, i: u64) -> bool {
        let bit = 1 << (i % 64);
        self.0[(i / 64) as usize].fetch_or(bit, Relaxed) & bit == 0
    }

    /// Adds the members `bits` of word `w` (indices `64·w` to `64·w + 63`).
    #[inline]
    pub fn insert_word(&self, w: usize, bits: u64) {
        if bits != 0 {
            self.0[w].fetch_or(bits, Relaxed);
        }
    }

    /// Words of the set (64 indices each).
    pub fn word_count(&self) -> usize {
        self.0.len()
    }

    /// Whether the set has a member (not taken while other threads insert).
    pub fn any(&self) -> bool {
        self.0.par_iter().any(|w| w.load(Relaxed) != 0)
    }

    /// Appends the members of word `w` to `members`, in increasing order,
    /// removing them from the set (a bounded share of the work list, for
    /// the waves over ranks, `ranks/exchange.rs`).
    pub fn take_word(&self, w: usize, members: &mut Vec<u32>) {
        take_members(&self.0[w..w + 1], 64 * w as u64, members);
    }

    /// Empties the set by handing its members to `visit`, a slice of the
    /// index space at a time (both threads taking slices), until none is
    /// left; `visit` may insert members again (anywhere: a slice not yet
    /// taken gets them in this sweep, one already taken in the next). A
    /// work list kept as bits costs one bit a position however many are
    /// pending (as vectors of indices, a wave of a large layer held
    /// hundreds of megabytes). Each task hands its own slice's members on
    /// as it takes them, rather than into one list a sweep, which cost
    /// growth and copies (`results/BENCHMARKS.md`).
    pub fn drain(&self, visit: impl Fn(&[u32]) + Sync) {
        /// Words of one task: 65,536 positions. Four times fewer were
        /// slower on kpe:4x5's thresholds, four times more gained nothing
        /// (`results/BENCHMARKS.md`).
        const TASK_WORDS: usize = 1024;
        loop {
            let any = AtomicBool::new(false);
            self.0.par_chunks(TASK_WORDS).enumerate().for_each_init(
                Vec::new,
                |members, (c, words)| {
                    members.clear();
                    take_members(words, (c * TASK_WORDS * 64) as u64, members);
                    if !members.is_empty() {
                        any.store(true, Relaxed);
                        visit(members);
                    }
                },
            );
            if !any.load(Relaxed) {
                return;
            }
        }
    }
}

/// Appends the members held by `words` (the first of which holds index
/// `base`) to `members`, in increasing order, removing them from the set.
fn take_members(words: &[AtomicU64], base: u64, members: &mut Vec<u32>) {
    for (w, word) in words.iter().enumerate() {
        let mut bits = match word.load(Relaxed) {
            0 => continue,
            _ => word.swap(0, Relaxed),
        };
        let first = base + 64 * w as u64;
        while bits != 0 {
            members.push((first + bits.trailing_zeros() as u64) as u32);
            bits &= bits - 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Draining visits every member once, also those inserted while it
    /// runs before or after the slice being visited, and leaves the set
    /// empty.
    #[test]
    fn drain_visits_each_member_once_including_new_ones() {
        let len = 10_000_000u64;
        let bits = Bits::new(len);
        for i in [3, 70, 5_000_000, len - 1] {
            bits.insert(i);
        }
        let seen = Mutex::new(Vec::new());
        bits.drain(|members| {
            assert!(members.windows(2).all(|w| w[0] < w[1]), "in order");
            for &m in members {
                seen.lock().unwrap().push(m);
                // A chain downwards (into earlier slices) from the last
                // member, and upwards from 70 into a later slice.
                if m as u64 == len - 1 {
                    bits.insert(1_000);
                } else if m == 1_000 {
                    bits.insert(999);
                } else if m == 70 {
                    bits.insert(9_000_000);
                }
            }
        });
        let mut seen = seen.into_inner().unwrap();
        seen.sort_unstable();
        let expected = vec![3, 70, 999, 1_000, 5_000_000, 9_000_000, len as u32 - 1];
        assert_eq!(seen, expected);
        assert!((0..len).step_by(997).all(|i| !bits.get(i)));
        assert!(expected.iter().all(|&i| !bits.get(i as u64)));
    }
}
