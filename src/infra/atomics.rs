//! Atomics over plain memory, for the solvers' arrays that both threads
//! fill.
//!
//! - Vectors of zero atomics allocated zeroed (`calloc`): a large one
//!   comes as fresh pages the kernel clears when a thread first touches
//!   them, so the threads that fill it share the clearing (collected from
//!   an iterator, every page would be cleared, then zeroed again, by the
//!   one thread that allocates: `results/BENCHMARKS.md`).
//! - Plain slices seen as atomics while the threads update them.

use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicU32, AtomicU64};

/// `len` zero `AtomicU64`s.
pub fn atomic_u64s(len: usize) -> Vec<AtomicU64> {
    let mut plain = ManuallyDrop::new(vec![0u64; len]);
    // SAFETY: `AtomicU64` has the size, alignment and bit validity of
    // `u64`; the allocation is handed over whole, with its length and
    // capacity, and the forgotten vector never frees it.
    unsafe { Vec::from_raw_parts(plain.as_mut_ptr().cast(), plain.len(), plain.capacity()) }
}

/// `u32`s seen as atomics, for the threads that update them.
pub fn as_atomic_u32s(values: &mut [u32]) -> &[AtomicU32] {
    // SAFETY: `AtomicU32` has the size, alignment and bit validity of
    // `u32`, and the exclusive borrow keeps every other access out while
    // the atomic view lives.
    unsafe { &*(values as *mut [u32] as *const [AtomicU32]) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering::Relaxed;

    #[test]
    fn zeroed_atomics_are_zero_and_usable() {
        for len in [0, 1, 1000, 3 << 20] {
            let b = atomic_u64s(len);
            assert_eq!(b.len(), len);
            assert!(b.iter().all(|w| w.load(Relaxed) == 0));
            if len > 0 {
                b[len / 2].fetch_or(1 << 63, Relaxed);
                assert_eq!(b[len / 2].load(Relaxed), 1 << 63);
            }
        }
    }
}
