//! Memory for the prover's lock-free tables (`bounds.rs`, `prove/dfpn.rs`):
//! buckets of one cache line, each [`BUCKET`] entries of two words (the
//! "XOR trick": `key ^ data` and `data`), in zeroed memory that is aligned
//! to a huge page when the table is large enough.

use std::sync::atomic::AtomicU64;

/// Entries per bucket.
pub(super) const BUCKET: usize = 4;

/// The bucket of `key` among `buckets`: the key's high bits, scaled (any
/// count of buckets, not only powers of two).
#[inline]
pub(super) fn index(key: u64, buckets: usize) -> usize {
    ((key as u128 * buckets as u128) >> 64) as usize
}

/// One bucket: exactly one cache line, so a probe costs one memory access.
#[repr(C, align(64))]
pub(super) struct Bucket(pub(super) [[AtomicU64; 2]; BUCKET]);

/// Huge pages (where the kernel offers them) for tables at least this large.
const HUGE_PAGE: usize = 2 << 20;

/// The buckets, in zeroed memory aligned to a huge page when the table is
/// large enough. Probes are random accesses over the whole table (the
/// prover's hottest cost when profiled: a cache and a TLB miss each), and
/// huge pages spare most of the TLB misses and page faults. On Linux the
/// memory is mapped directly (fresh zero pages, advised as huge before
/// anything touches them: the allocator's aligned path would write zeros
/// over 4 KiB pages first); elsewhere it comes from the allocator.
pub(super) struct Slab {
    ptr: std::ptr::NonNull<Bucket>,
    len: usize,
    /// What to give back: the mapping (base, length) or the allocation.
    #[cfg(target_os = "linux")]
    mapping: (*mut libc::c_void, usize),
    #[cfg(not(target_os = "linux"))]
    layout: std::alloc::Layout,
}

// SAFETY: the slab owns its buckets, which are atomics (shared safely).
unsafe impl Send for Slab {}
// SAFETY: as above: only `&Bucket` (atomics) is handed out.
unsafe impl Sync for Slab {}

impl Slab {
    #[cfg(target_os = "linux")]
    pub(super) fn new(len: usize) -> Slab {
        let size = len * std::mem::size_of::<Bucket>();
        let map_len = size + HUGE_PAGE;
        // SAFETY: an anonymous private mapping (zero-filled by the kernel)
        // that this slab owns until `drop` unmaps it.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            let layout = std::alloc::Layout::from_size_align(size, HUGE_PAGE)
                .unwrap_or(std::alloc::Layout::new::<Bucket>());
            std::alloc::handle_alloc_error(layout)
        }
        let skip = (HUGE_PAGE - base as usize % HUGE_PAGE) % HUGE_PAGE;
        // SAFETY: `skip < HUGE_PAGE`, so `[start, start + size)` lies in the
        // mapping; the hint may fail harmlessly (no huge pages offered).
        let start = unsafe {
            let start = (base as *mut u8).add(skip);
            if size >= HUGE_PAGE {
                libc::madvise(start as *mut libc::c_void, size, libc::MADV_HUGEPAGE);
            }
            start as *mut Bucket
        };
        Slab {
            ptr: std::ptr::NonNull::new(start).expect("mmap returned a valid address"),
            len,
            mapping: (base, map_len),
        }
    }

    #[cfg(not(target_os = "linux"))]
    pub(super) fn new(len: usize) -> Slab {
        let size = len * std::mem::size_of::<Bucket>();
        let layout = std::alloc::Layout::from_size_align(size, std::mem::align_of::<Bucket>())
            .expect("bound table size fits the address space");
        // SAFETY: `size > 0` (len >= 1); all-zero bytes are valid atomics.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) } as *mut Bucket;
        let Some(ptr) = std::ptr::NonNull::new(ptr) else {
            std::alloc::handle_alloc_error(layout)
        };
        Slab { ptr, len, layout }
    }

    /// Whether the buckets start on a huge page boundary.
    #[cfg(test)]
    pub(super) fn huge_page_aligned(&self) -> bool {
        (self.ptr.as_ptr() as usize).is_multiple_of(HUGE_PAGE)
    }

    pub(super) fn get(&self, i: usize) -> &Bucket {
        assert!(i < self.len);
        // SAFETY: in bounds, initialised (zeroed atomics), owned by self.
        unsafe { &*self.ptr.as_ptr().add(i) }
    }
}

impl Drop for Slab {
    fn drop(&mut self) {
        // SAFETY: mapped (allocated) in `new` with exactly these arguments.
        #[cfg(target_os = "linux")]
        unsafe {
            libc::munmap(self.mapping.0, self.mapping.1);
        }
        #[cfg(not(target_os = "linux"))]
        unsafe {
            std::alloc::dealloc(self.ptr.as_ptr() as *mut u8, self.layout)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_is_one_cache_line_and_large_slabs_sit_on_huge_pages() {
        assert_eq!(std::mem::size_of::<Bucket>(), 64);
        let s = Slab::new((4 << 20) / 64);
        if cfg!(target_os = "linux") {
            assert!(s.huge_page_aligned());
        }
        assert_eq!(
            s.get(0).0[0][1].load(std::sync::atomic::Ordering::Relaxed),
            0
        );
    }

    #[test]
    fn index_spreads_keys_over_any_count_of_buckets() {
        assert_eq!(index(0, 7), 0);
        assert_eq!(index(u64::MAX, 7), 6);
        assert_eq!(index(1 << 63, 10), 5);
    }
}
