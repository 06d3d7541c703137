//! Process infrastructure every layer may use: atomic file writes,
//! checksums, the seeded random generator, progress bars, Ctrl-C, resource
//! limits, the allocator, prefetching and atomic views of buffers.

pub mod allocator;
pub mod atomics;
pub mod checksum;
pub mod duration;
pub mod files;
pub mod interrupt;
pub mod limits;
pub mod malloc;
pub mod prefetch;
pub mod progress;
pub mod rng;
