//! A layer's positions split over ranks in contiguous ranges of whole
//! blocks, so that a rank's slice of a database file is whole compressed
//! blocks (`kpe_db/file/`, 4,096 entries) and whole words of a bit set.

/// Which rank owns which positions of a layer: rank `r` owns the range
/// `start(r)..start(r + 1)`. Ranges differ by at most one block; with
/// more ranks than blocks, some are empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    /// `starts[r]`, then the layer's size.
    starts: Vec<u64>,
}

impl Partition {
    /// `len` positions over `ranks` ranks, in ranges of whole blocks of
    /// `block` positions (a power of two, at least 64), the last block of
    /// the layer possibly short.
    pub fn new(len: u64, ranks: usize, block: u64) -> Self {
        assert!(ranks > 0 && block.is_power_of_two() && block >= 64);
        let blocks = len.div_ceil(block) as u128;
        let starts = (0..=ranks as u128)
            .map(|r| ((r * blocks / ranks as u128) as u64 * block).min(len))
            .collect();
        Partition { starts }
    }

    pub fn ranks(&self) -> usize {
        self.starts.len() - 1
    }

    /// Positions of the layer.
    pub fn len(&self) -> u64 {
        *self.starts.last().expect("at least one rank")
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first position of rank `rank`'s range.
    pub fn start(&self, rank: usize) -> u64 {
        self.starts[rank]
    }

    /// Rank `rank`'s positions.
    pub fn range(&self, rank: usize) -> std::ops::Range<u64> {
        self.starts[rank]..self.starts[rank + 1]
    }

    /// The rank that owns position `i` (of the layer).
    #[inline]
    pub fn owner(&self, i: u64) -> usize {
        debug_assert!(i < self.len());
        // The last rank whose range starts at or before `i` (empty ranks
        // share their start with the next one).
        self.starts.partition_point(|&s| s <= i) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every position has exactly one owner, whose range holds it; ranges
    /// are whole blocks, uneven by one block at most, empty when there are
    /// more ranks than blocks.
    #[test]
    fn ranges_cover_the_layer_once_in_whole_blocks() {
        for (len, ranks) in [
            (0, 1),
            (0, 3),
            (5, 4),
            (64, 1),
            (200, 3),
            (4096 * 5 + 7, 4),
            (1000, 7),
        ] {
            let block = 64;
            let p = Partition::new(len, ranks, block);
            assert_eq!(p.ranks(), ranks);
            assert_eq!(p.len(), len);
            let mut covered = 0;
            for r in 0..ranks {
                let range = p.range(r);
                assert_eq!(range.start, covered, "{len} over {ranks}");
                assert!(range.start.is_multiple_of(block));
                for i in range.clone() {
                    assert_eq!(p.owner(i), r, "{len} over {ranks}: position {i}");
                }
                covered = range.end;
            }
            assert_eq!(covered, len);
            let sizes: Vec<u64> = (0..ranks)
                .map(|r| p.range(r).end - p.range(r).start)
                .collect();
            let whole: Vec<u64> = sizes[..ranks - 1].to_vec();
            if let (Some(min), Some(max)) = (whole.iter().min(), whole.iter().max()) {
                assert!(max - min <= block, "{sizes:?}");
            }
        }
        // More ranks than blocks: some ranks own nothing.
        let p = Partition::new(100, 4, 64);
        assert_eq!((0..4).filter(|&r| p.range(r).is_empty()).count(), 2);
    }
}
