//! A set of position indices, one bit each, that both threads fill at once.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

/// A set of position indices, one bit each, shared by the threads.
#[derive(Debug)]
pub struct Bits(Vec<AtomicU64>);

impl Bits {
    pub fn new(len: u64) -> Self {
        Bits((0..len.div_ceil(64)).map(|_| AtomicU64::new(0)).collect())
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

    /// The members in `range`, in increasing order.
    pub fn members(&self, range: std::ops::Range<u64>) -> Vec<u32> {
        range
            .into_par_iter()
            .filter(|&i| self.get(i))
            .map(|i| i as u32)
            .collect()
    }
}
