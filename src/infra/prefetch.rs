//! A hint to the CPU that some memory is about to be read: the solvers and
//! the prover fetch the cache lines of many table entries before using any,
//! so that their misses overlap instead of following one another.

/// Asks the CPU to bring `x`'s cache line in ahead of its use.
#[inline]
pub fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint; any address is allowed.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(x as *const T as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
