//! The binary's allocator: the system's, asking the kernel to back large
//! blocks with 2 MiB pages.
//!
//! The solver and the search touch large arrays at random (a layer's
//! retrograde words, the solved layers a capture probes, the region's keys,
//! the transposition table). With 4 KiB pages such a touch often misses the
//! TLB as well as the cache. Kernels set to give huge pages only where asked
//! (`/sys/kernel/mm/transparent_hugepage/enabled` = `madvise`, as on this
//! project's machines) give none to glibc's blocks unless the process
//! starts with `GLIBC_TUNABLES=glibc.malloc.hugetlb=1`, which a program
//! cannot set for itself; so the blocks are advised here. Measured on
//! kpe:4x5 (`results/BENCHMARKS.md`): 7% less wall time, the same peak.

use std::alloc::{GlobalAlloc, Layout, System};

/// The system allocator, with `MADV_HUGEPAGE` on blocks of
/// [`ADVISED_FROM`] bytes and more.
pub struct HugePages;

/// A huge page.
#[cfg(test)]
const HUGE_PAGE: usize = 2 << 20;
/// Smaller blocks share heap pages with others; advising them would split
/// the heap's mappings for little gain.
const ADVISED_FROM: usize = 4 << 20;

/// A base page.
const PAGE: usize = 4096;

/// Advises the pages of `size` bytes from `ptr`, the first and last
/// rounded out to whole pages.
///
/// A block this large is a mapping of its own (`infra::malloc`), from the
/// page before `ptr` (the allocator's header) to the page after its end:
/// the advice covers all of it. Advised only on the huge pages inside, the
/// mapping was split in three, and `mremap` refuses a range of several
/// mappings: glibc then grew a large vector by a copy, the old and new
/// blocks both in memory, and shrank none (`shrink_to_fit` freed nothing;
/// `results/BENCHMARKS.md`).
fn advise(ptr: *mut u8, size: usize) {
    if ptr.is_null() || size < ADVISED_FROM {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        let start = (ptr as usize) & !(PAGE - 1);
        let end = (ptr as usize + size).next_multiple_of(PAGE);
        if end > start {
            // SAFETY: the range covers a block just allocated to us and
            // the rest of the pages it starts and ends in; the advice
            // changes how pages are backed, not their contents.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
}

// SAFETY: every call is passed on to `System` unchanged; `advise` only adds
// advice on memory the call returned.
unsafe impl GlobalAlloc for HugePages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = System.alloc(layout);
        advise(ptr, layout.size());
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr = System.alloc_zeroed(layout);
        advise(ptr, layout.size());
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = System.realloc(ptr, layout, new_size);
        if new_size > layout.size() {
            advise(new, new_size);
        }
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The start and end of the mapping of this process that holds `addr`
    /// (`/proc/self/maps`).
    #[cfg(target_os = "linux")]
    fn mapping_of(addr: usize) -> (usize, usize) {
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
        maps.lines()
            .filter_map(|line| {
                let (start, end) = line.split_whitespace().next()?.split_once('-')?;
                let start = usize::from_str_radix(start, 16).ok()?;
                let end = usize::from_str_radix(end, 16).ok()?;
                Some((start, end))
            })
            .find(|&(start, end)| (start..end).contains(&addr))
            .expect("a mapping holds the block")
    }

    /// An advised block stays one mapping, so that growing or shrinking it
    /// moves its pages (`mremap`) instead of copying them. (Advised only
    /// on its whole huge pages, the block was three mappings.)
    #[cfg(target_os = "linux")]
    #[test]
    fn advised_blocks_stay_one_mapping() {
        let alloc = HugePages;
        let size = 4 * HUGE_PAGE + 100;
        let layout = Layout::from_size_align(size, 8).unwrap();
        // SAFETY: a layout of non-zero size, freed with the layout it was
        // (re)allocated with.
        unsafe {
            let ptr = alloc.alloc(layout);
            let (start, end) = mapping_of(ptr as usize);
            assert!(start <= ptr as usize && ptr as usize + size <= end);
            let grown = alloc.realloc(ptr, layout, 2 * size);
            let (start, end) = mapping_of(grown as usize);
            assert!(start <= grown as usize && grown as usize + 2 * size <= end);
            alloc.dealloc(grown, Layout::from_size_align(2 * size, 8).unwrap());
        }
    }

    /// Blocks of every size come back usable, keep their contents through
    /// growth and shrinking, and zeroed blocks are zero.
    #[test]
    fn blocks_small_and_large_behave_as_the_system_allocator() {
        let alloc = HugePages;
        for size in [
            1usize,
            4096,
            ADVISED_FROM - 1,
            ADVISED_FROM,
            3 * HUGE_PAGE + 17,
        ] {
            let layout = Layout::from_size_align(size, 8).unwrap();
            // SAFETY: layouts of non-zero size; every block is freed with
            // the layout it was (re)allocated with.
            unsafe {
                let zeroed = alloc.alloc_zeroed(layout);
                assert!(std::slice::from_raw_parts(zeroed, size)
                    .iter()
                    .all(|&b| b == 0));
                alloc.dealloc(zeroed, layout);
                let ptr = alloc.alloc(layout);
                std::ptr::write_bytes(ptr, 0xa5, size);
                let grown = alloc.realloc(ptr, layout, 2 * size + HUGE_PAGE);
                assert!(std::slice::from_raw_parts(grown, size)
                    .iter()
                    .all(|&b| b == 0xa5));
                let grown_layout = Layout::from_size_align(2 * size + HUGE_PAGE, 8).unwrap();
                let shrunk = alloc.realloc(grown, grown_layout, size);
                assert!(std::slice::from_raw_parts(shrunk, size)
                    .iter()
                    .all(|&b| b == 0xa5));
                alloc.dealloc(shrunk, layout);
            }
        }
    }
}
