//! The index of each member of a sorted set of numbers, found in one
//! memory access: a bitmap over the numbers with, beside every word, the
//! count of members before it (a rank bitmap, as succinct data structures
//! call it). Only the pages of 2^15 numbers that hold a member are stored,
//! so it stays small for the clustered sets it serves (`paged_bits.rs`).
//!
//! The locked region's solver builds one for the group it is solving: the
//! un-moves of its retrograde and "can end" passes look up about four
//! candidate parents a child, most of them members. The group's compact
//! key set (`kpe_db/keys/compact.rs`) answers the same question with a
//! binary search whose branches mispredict; here a lookup reads one
//! 16-byte entry, prefetched beforehand (`results/BENCHMARKS.md`). The
//! largest group of the standard game takes 24 MB.

/// Numbers a page covers: 2^15, 512 words.
const PAGE_BITS: u32 = 15;
const PAGE_WORDS: usize = 1 << (PAGE_BITS - 6);
/// `page_of` of a page without a member.
const NO_PAGE: u32 = u32::MAX;

/// One word of the bitmap and the number of members before it.
#[derive(Clone, Copy, Default)]
#[repr(C, align(16))]
struct Entry {
    bits: u64,
    before: u64,
}

pub struct RankBitmap {
    /// For every page of the universe, where its words start in
    /// `entries` (in pages), or [`NO_PAGE`].
    page_of: Vec<u32>,
    entries: Vec<Entry>,
}

impl RankBitmap {
    /// The index of `members` (ascending, below `universe`).
    pub fn new(universe: u64, members: impl IntoIterator<Item = u64>) -> Self {
        let mut page_of = vec![NO_PAGE; universe.div_ceil(1 << PAGE_BITS) as usize];
        let mut entries: Vec<Entry> = Vec::new();
        let mut last = None;
        for u in members {
            debug_assert!(last.is_none_or(|l| l < u), "members ascending");
            last = Some(u);
            let page = &mut page_of[(u >> PAGE_BITS) as usize];
            if *page == NO_PAGE {
                *page = (entries.len() / PAGE_WORDS) as u32;
                entries.resize(entries.len() + PAGE_WORDS, Entry::default());
            }
            let at = *page as usize * PAGE_WORDS + (u >> 6) as usize % PAGE_WORDS;
            entries[at].bits |= 1 << (u & 63);
        }
        let mut before = 0;
        for entry in &mut entries {
            entry.before = before;
            before += entry.bits.count_ones() as u64;
        }
        RankBitmap { page_of, entries }
    }

    /// The entry of `u`'s word, if its page holds a member.
    #[inline]
    fn entry(&self, u: u64) -> Option<&Entry> {
        match self.page_of[(u >> PAGE_BITS) as usize] {
            NO_PAGE => None,
            page => {
                Some(&self.entries[page as usize * PAGE_WORDS + (u >> 6) as usize % PAGE_WORDS])
            }
        }
    }

    /// Asks for the line [`Self::index`] of `u` will read.
    #[inline]
    pub fn prefetch(&self, u: u64) {
        if let Some(entry) = self.entry(u) {
            crate::infra::prefetch::prefetch(entry);
        }
    }

    /// The index of `u` among the members (their number below it), if it
    /// is one.
    #[inline]
    pub fn index(&self, u: u64) -> Option<u64> {
        let entry = self.entry(u)?;
        let bit = 1u64 << (u & 63);
        (entry.bits & bit != 0).then(|| entry.before + (entry.bits & (bit - 1)).count_ones() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infra::rng::Rng;

    #[test]
    fn every_member_is_found_at_its_index_and_nothing_else_is() {
        let universe = 5_000_000u64;
        let mut rng = Rng::new(11);
        // Clustered members, a few scattered, the universe's last number.
        let mut members: Vec<u64> = (0..40_000)
            .map(|_| match rng.next_u64() % 4 {
                0 => rng.next_u64() % universe,
                _ => 1_000_000 + rng.next_u64() % 200_000,
            })
            .chain([universe - 1, 0])
            .collect();
        members.sort_unstable();
        members.dedup();
        let index = RankBitmap::new(universe, members.iter().copied());
        for (j, &u) in members.iter().enumerate() {
            assert_eq!(index.index(u), Some(j as u64), "member {u}");
        }
        for _ in 0..100_000 {
            let u = rng.next_u64() % universe;
            let expected = members.binary_search(&u).ok().map(|j| j as u64);
            assert_eq!(index.index(u), expected, "number {u}");
        }
    }

    #[test]
    fn an_empty_set_has_no_members() {
        let index = RankBitmap::new(1 << 20, []);
        assert_eq!(index.index(0), None);
        assert_eq!(index.index((1 << 20) - 1), None);
    }
}
