//! A set of numbers below a large universe kept as a bitmap whose 4 KiB
//! pages are allocated when first written: the locked region's
//! exploration (`kpe_db/region/explore.rs`) keeps the positions of the
//! group it is closing here, by local rank.
//!
//! Why a bitmap: the keys a group reaches are clustered (hundreds a page
//! of 32,768 ranks: the largest group of the standard game, 14.2 M keys,
//! lies on 2,955 pages, 12 MB; the ignored test `clustering_of_group_keys`
//! counts them). An insert is one atomic `or` on a word, both threads
//! inserting at once, and the keys come out in ascending order by walking
//! the pages: no hash set to shard, grow or sort (`results/BENCHMARKS.md`).

use std::alloc::{alloc_zeroed, dealloc, handle_alloc_error, Layout};
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};

use rayon::prelude::*;

/// Ranks a page holds: 2^15 bits, 4 KiB.
const PAGE_BITS: u32 = 15;
const PAGE_WORDS: usize = 1 << (PAGE_BITS - 6);

struct Page([AtomicU64; PAGE_WORDS]);

const PAGE_LAYOUT: Layout = Layout::new::<Page>();

/// A set of numbers below a universe, bit by bit, pages allocated on
/// first insert; both threads may insert at once.
pub struct PagedBits {
    pages: Vec<AtomicPtr<Page>>,
}

// SAFETY: the pages are only reached through atomics and freed by `drop`,
// which has the set to itself.
unsafe impl Send for PagedBits {}
unsafe impl Sync for PagedBits {}

impl PagedBits {
    /// An empty set of numbers below `universe`.
    pub fn new(universe: u64) -> Self {
        let pages = universe.div_ceil(1 << PAGE_BITS) as usize;
        PagedBits {
            pages: (0..pages)
                .map(|_| AtomicPtr::new(std::ptr::null_mut()))
                .collect(),
        }
    }

    /// The page of `p`, allocated (zeroed) if no insert has made it yet.
    fn page(&self, p: usize) -> &Page {
        let slot = &self.pages[p];
        let mut page = slot.load(Ordering::Acquire);
        if page.is_null() {
            // SAFETY: `Page` is not zero-sized; all-zero atomics are valid.
            let fresh = unsafe { alloc_zeroed(PAGE_LAYOUT) } as *mut Page;
            if fresh.is_null() {
                handle_alloc_error(PAGE_LAYOUT);
            }
            page = match slot.compare_exchange(
                std::ptr::null_mut(),
                fresh,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => fresh,
                Err(theirs) => {
                    // SAFETY: `fresh` was allocated above with this layout
                    // and never shared.
                    unsafe { dealloc(fresh as *mut u8, PAGE_LAYOUT) };
                    theirs
                }
            };
        }
        // SAFETY: a page, once in its slot, lives until the set is dropped.
        unsafe { &*page }
    }

    /// Adds `i`; whether it was new. Of several threads inserting the same
    /// number at once, exactly one is told it was.
    #[inline]
    pub fn insert(&self, i: u64) -> bool {
        let page = self.page((i >> PAGE_BITS) as usize);
        let word = &page.0[(i >> 6) as usize & (PAGE_WORDS - 1)];
        let bit = 1u64 << (i & 63);
        word.fetch_or(bit, Ordering::Relaxed) & bit == 0
    }

    /// Asks for the word of `i` ahead of an insert, if its page exists.
    #[inline]
    pub fn prefetch(&self, i: u64) {
        let page = self.pages[(i >> PAGE_BITS) as usize].load(Ordering::Acquire);
        if !page.is_null() {
            // SAFETY: as in `page`.
            crate::infra::prefetch::prefetch(
                &unsafe { &*page }.0[(i >> 6) as usize & (PAGE_WORDS - 1)],
            );
        }
    }

    /// The allocated pages with their first numbers, ascending.
    fn allocated(&self) -> impl Iterator<Item = (u64, &Page)> + '_ {
        self.pages.iter().enumerate().filter_map(|(p, slot)| {
            let page = slot.load(Ordering::Acquire);
            // SAFETY: as in `page`.
            (!page.is_null()).then(|| ((p as u64) << PAGE_BITS, unsafe { &*page }))
        })
    }

    /// Number of numbers held (both threads counting pages).
    pub fn len(&self) -> usize {
        self.pages
            .par_iter()
            .map(|slot| {
                let page = slot.load(Ordering::Acquire);
                match page.is_null() {
                    true => 0,
                    // SAFETY: as in `page`.
                    false => unsafe { &*page }
                        .0
                        .iter()
                        .map(|w| w.load(Ordering::Relaxed).count_ones() as usize)
                        .sum(),
                }
            })
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every number held, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.allocated().flat_map(|(first, page)| {
            page.0.iter().enumerate().flat_map(move |(k, w)| {
                let base = first + 64 * k as u64;
                let mut bits = w.load(Ordering::Relaxed);
                std::iter::from_fn(move || {
                    (bits != 0).then(|| {
                        let b = bits.trailing_zeros() as u64;
                        bits &= bits - 1;
                        base + b
                    })
                })
            })
        })
    }
}

impl Drop for PagedBits {
    fn drop(&mut self) {
        for slot in &mut self.pages {
            let page = *slot.get_mut();
            if !page.is_null() {
                // SAFETY: allocated by `page` with this layout, freed once.
                unsafe { dealloc(page as *mut u8, PAGE_LAYOUT) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infra::rng::Rng;

    #[test]
    fn agrees_with_a_standard_set_and_lists_in_order() {
        let universe = 10_000_000u64;
        let set = PagedBits::new(universe);
        let mut expected = std::collections::BTreeSet::new();
        let mut rng = Rng::new(7);
        for _ in 0..50_000 {
            // Clustered and scattered numbers, repeats included, the last
            // number of the universe among them.
            let i = match rng.next_u64() % 3 {
                0 => rng.next_u64() % 1000,
                1 => universe - 1 - rng.next_u64() % 3,
                _ => rng.next_u64() % universe,
            };
            assert_eq!(set.insert(i), expected.insert(i), "insert {i}");
        }
        assert_eq!(set.len(), expected.len());
        assert!(set.iter().eq(expected.iter().copied()));
    }

    #[test]
    fn threads_inserting_at_once_are_each_told_new_once() {
        let set = PagedBits::new(1 << 20);
        let news: usize = (0..8u64)
            .into_par_iter()
            .map(|t| {
                (0..100_000u64)
                    .filter(|&k| set.insert((k * 7 + t) % (1 << 20)))
                    .count()
            })
            .sum();
        assert_eq!(news, set.len());
        assert!(set.iter().zip(set.iter().skip(1)).all(|(a, b)| a < b));
    }

    #[test]
    fn an_empty_set_has_no_numbers() {
        let set = PagedBits::new(1 << 34);
        assert!(set.is_empty());
        assert_eq!(set.iter().next(), None);
    }
}
