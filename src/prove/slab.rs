//! Memory for the prover's lock-free tables (`bounds.rs`, `pn_table.rs`):
//! buckets of one cache line, each [`BUCKET`] entries of two words (the
//! "XOR trick": `key ^ data` and `data`), in zeroed memory that is aligned
//! to a huge page when the table is large enough.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Entries per bucket.
pub(super) const BUCKET: usize = 4;

/// One entry: `key ^ data` (or a variant of it) and `data`, 0 when empty.
pub(super) type Entry = [AtomicU64; 2];

/// The bucket of `key` among `buckets`: the key's high bits, scaled (any
/// count of buckets, not only powers of two).
#[inline]
fn index(key: u64, buckets: usize) -> usize {
    ((key as u128 * buckets as u128) >> 64) as usize
}

/// What redoing an entry would cost, as both tables keep it in 6 bits: the
/// bit length of the nodes that computed it (0 to 63).
pub(super) fn work(nodes: u64) -> u8 {
    (64 - nodes.leading_zeros()).min(63) as u8
}

/// The entry of a bucket that a new key replaces: the first empty one,
/// else the first of least `work` (what redoing the entry would cost).
pub(super) fn victim(bucket: &[Entry; BUCKET], work: impl Fn(&Entry) -> u8) -> usize {
    let mut victim = 0;
    let mut cheapest = u8::MAX as u16 + 1;
    for (i, entry) in bucket.iter().enumerate() {
        if entry[1].load(Relaxed) == 0 {
            return i;
        }
        let w = work(entry) as u16;
        if w < cheapest {
            cheapest = w;
            victim = i;
        }
    }
    victim
}

/// One bucket: exactly one cache line, so a probe costs one memory access.
#[repr(C, align(64))]
struct Bucket([Entry; BUCKET]);

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
    /// Buckets in about `mb` mebibytes, at least one.
    pub(super) fn of_mebibytes(mb: usize) -> Slab {
        Slab::new(((mb << 20) / std::mem::size_of::<Bucket>()).max(1))
    }

    #[cfg(target_os = "linux")]
    fn new(len: usize) -> Slab {
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
    fn new(len: usize) -> Slab {
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

    /// The size of the buckets in bytes.
    pub(super) fn bytes(&self) -> usize {
        self.len * std::mem::size_of::<Bucket>()
    }

    /// The bucket that holds `key`.
    pub(super) fn bucket(&self, key: u64) -> &[Entry; BUCKET] {
        let i = index(key, self.len);
        // SAFETY: `index` < len: in bounds, initialised (zeroed atomics),
        // owned by self.
        unsafe { &(*self.ptr.as_ptr().add(i)).0 }
    }

    /// Every bucket, in memory order.
    pub(super) fn buckets(&self) -> impl Iterator<Item = &[Entry; BUCKET]> {
        // SAFETY: `i < len`: in bounds, initialised (zeroed atomics), owned
        // by self.
        (0..self.len).map(move |i| unsafe { &(*self.ptr.as_ptr().add(i)).0 })
    }

    /// Asks the CPU to bring `key`'s bucket into the cache (why: the
    /// tables' own `prefetch`, e.g. `BoundTable::prefetch`).
    #[inline]
    pub(super) fn prefetch(&self, key: u64) {
        crate::infra::prefetch::prefetch(self.bucket(key))
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
        let s = Slab::of_mebibytes(4);
        assert_eq!(s.bytes(), 4 << 20);
        if cfg!(target_os = "linux") {
            assert!(s.huge_page_aligned());
        }
        assert_eq!(s.bucket(u64::MAX)[BUCKET - 1][1].load(Relaxed), 0);
    }

    #[test]
    fn work_is_the_bit_length_of_the_nodes_within_six_bits() {
        assert_eq!(work(0), 0);
        assert_eq!(work(1), 1);
        assert_eq!(work(1023), 10);
        assert_eq!(work(1024), 11);
        assert_eq!(work(u64::MAX), 63);
    }

    #[test]
    fn the_victim_is_the_first_empty_entry_else_the_cheapest() {
        let bucket: [Entry; BUCKET] = Default::default();
        let fill = |i: usize, work: u64| bucket[i][1].store(work << 8 | 1, Relaxed);
        let work = |e: &Entry| (e[1].load(Relaxed) >> 8) as u8;
        assert_eq!(victim(&bucket, work), 0);
        fill(0, 5);
        fill(1, 3);
        assert_eq!(victim(&bucket, work), 2);
        fill(2, 3);
        fill(3, 9);
        assert_eq!(victim(&bucket, work), 1, "the first of least work");
    }

    #[test]
    fn index_spreads_keys_over_any_count_of_buckets() {
        assert_eq!(index(0, 7), 0);
        assert_eq!(index(u64::MAX, 7), 6);
        assert_eq!(index(1 << 63, 10), 5);
    }
}
