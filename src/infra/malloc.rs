//! How the solve asks the C allocator to hand freed memory back.
//!
//! The solve allocates and frees vectors of one layer's or one locked
//! group's size over and over (retrograde words, frontiers, decoded keys).
//! glibc serves a freed block of up to 32 MiB from its heaps afterwards
//! (its mmap threshold rises with every large block freed), and the
//! threads' heaps keep such memory. With blocks of 1 MiB and more always
//! mapped, and unmapped when freed, kpe:4x5's peak is a fifth lower in
//! the same time (`results/BENCHMARKS.md`).

/// Blocks of this size and more are mapped on their own, and returned to
/// the system when freed.
const MMAP_THRESHOLD: i32 = 1 << 20;

/// Sets the allocator's mmap threshold for the rest of the process (glibc
/// only; elsewhere nothing changes).
pub fn return_large_blocks_when_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes a tuning parameter of the allocator.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
    }
}
