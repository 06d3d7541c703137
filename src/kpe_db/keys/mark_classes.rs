//! Classes of locked positions by their marks: a position's class is the
//! pair of both players' marks, whoever is to move.
//!
//! A move sets at most one mark, the mover's for the pit it starts from,
//! and no mark is ever cleared (RULES §1.2). A move that sets none turns
//! (mover's marks `a`, opponent's `b`) into (`b`, `a`): the same class. A
//! move that sets one leads to a class with one more mark set. Classes are
//! numbered by their number of set marks, so no move leads to a lower
//! class: within a stone count the classes are solved one at a time from
//! the highest down, each by its own retrograde analysis, a move that sets
//! a mark leaving it for one already solved; the exploration goes the other
//! way, lowest class first. Only one class's working state is then whole in
//! memory. (On kpe:4x4, the largest stone count holds 7.6 M locked
//! positions, its largest class 1.6 M; counting set marks alone, 6.1 M.)
//!
//! Within a class a position has a *local rank*: its board's rank times the
//! number of ordered mark pairs of the class (one or two), plus the index of
//! its pair among them (in increasing order of their bits in the ranked key
//! `u`, `ranker.rs`). Local ranks keep the order of `u`, and number
//! only the pairs a class can hold, so a class's compact key set costs
//! about as many bits a key as its whole stone count's.

/// The classes of one board width (mark pairs of `2W` bits).
#[derive(Clone, Debug)]
pub struct MarkClasses {
    /// `2W`: bits of a mark pair.
    bits: u32,
    /// Class of each mark pair (the mover's marks in the low `W` bits).
    class: Vec<u16>,
    /// Index of each mark pair among those of its class.
    index: Vec<u8>,
    /// The mark pairs of each class, ascending.
    pairs: Vec<Vec<u16>>,
}

impl MarkClasses {
    /// The classes of boards of `w` pits a row (at most 8: a mark pair
    /// fits 16 bits).
    pub fn new(w: usize) -> Self {
        assert!(w <= 8, "{w} pits a row");
        let bits = 2 * w as u32;
        let low = (1u32 << w) - 1;
        // Unordered pairs {a, b}, a ≤ b, by number of set marks: the last
        // one is every mark set (unlocked positions).
        let mut unordered: Vec<(u32, u32)> = (0..=low)
            .flat_map(|a| (a..=low).map(move |b| (a, b)))
            .collect();
        unordered.sort_by_key(|&(a, b)| (a.count_ones() + b.count_ones(), a, b));
        let mut class = vec![0u16; 1 << bits];
        let mut index = vec![0u8; 1 << bits];
        let mut pairs = Vec::with_capacity(unordered.len());
        for (c, &(a, b)) in unordered.iter().enumerate() {
            let mut ordered = vec![(a | b << w) as u16, (b | a << w) as u16];
            ordered.sort_unstable();
            ordered.dedup();
            for (i, &pair) in ordered.iter().enumerate() {
                class[pair as usize] = c as u16;
                index[pair as usize] = i as u8;
            }
            pairs.push(ordered);
        }
        MarkClasses {
            bits,
            class,
            index,
            pairs,
        }
    }

    /// Classes of locked positions, `0..count()`: the last class (every
    /// mark set) holds only unlocked positions.
    pub fn count(&self) -> usize {
        self.pairs.len() - 1
    }

    /// The class of ranked key `u`.
    #[inline]
    pub fn of(&self, u: u64) -> usize {
        self.class[(u & self.mask()) as usize] as usize
    }

    /// The class of a position whose players have marks `a` and `b`
    /// (either to move).
    #[inline]
    pub fn of_marks(&self, a: u8, b: u8) -> usize {
        self.class[a as usize | (b as usize) << (self.bits / 2)] as usize
    }

    /// How many marks both players have set in `class`.
    #[inline]
    pub fn marks_set(&self, class: usize) -> u32 {
        self.pairs[class][0].count_ones()
    }

    /// The classes of locked positions whose players have set `marks`
    /// marks in all (below `2W`): consecutive, since classes are numbered
    /// by their number of set marks.
    pub fn with_marks_set(&self, marks: u32) -> std::ops::Range<usize> {
        let locked = &self.pairs[..self.count()];
        let first = locked.partition_point(|p| p[0].count_ones() < marks);
        let end = locked.partition_point(|p| p[0].count_ones() <= marks);
        first..end
    }

    /// Ordered mark pairs of `class`: 1 or 2.
    #[inline]
    pub fn pairs(&self, class: usize) -> u64 {
        self.pairs[class].len() as u64
    }

    /// The local rank (module documentation) of ranked key `u`.
    #[inline]
    pub fn local(&self, u: u64) -> u64 {
        let pair = (u & self.mask()) as usize;
        (u >> self.bits) * self.pairs(self.class[pair] as usize) + self.index[pair] as u64
    }

    /// The ranked key `u` of local rank `local` of `class`.
    #[inline]
    pub fn global(&self, class: usize, local: u64) -> u64 {
        let pairs = &self.pairs[class];
        let n = pairs.len() as u64;
        (local / n) << self.bits | pairs[(local % n) as usize] as u64
    }

    #[inline]
    fn mask(&self) -> u64 {
        (1u64 << self.bits) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_ranks_are_dense_ordered_and_invertible() {
        for w in [1, 2, 4, 5] {
            let classes = MarkClasses::new(w);
            let bits = 2 * w as u32;
            let total: u64 = (0..=classes.count()).map(|c| classes.pairs(c)).sum();
            assert_eq!(total, 1 << bits, "w {w}");
            for class in 0..=classes.count() {
                // Three boards' worth of keys of this class, in `u` order.
                let keys: Vec<u64> = (0u64..3 << bits)
                    .filter(|&u| classes.of(u) == class)
                    .collect();
                let locals: Vec<u64> = keys.iter().map(|&u| classes.local(u)).collect();
                let dense: Vec<u64> = (0..keys.len() as u64).collect();
                assert_eq!(locals, dense, "w {w} class {class}");
                for (&u, &l) in keys.iter().zip(&locals) {
                    assert_eq!(classes.global(class, l), u);
                }
            }
        }
    }

    #[test]
    fn classes_with_as_many_marks_set_are_consecutive() {
        let classes = MarkClasses::new(4);
        let mut next = 0;
        for marks in 0..8 {
            let range = classes.with_marks_set(marks);
            assert_eq!(range.start, next);
            assert!(range.clone().all(|c| classes.marks_set(c) == marks));
            next = range.end;
        }
        assert_eq!(next, classes.count());
    }

    /// What the solver's order rests on: a move that sets no mark stays in
    /// its class, one that sets a mark goes to a higher class, and only
    /// the last class has every mark set.
    #[test]
    fn moves_never_lead_to_a_lower_class() {
        for w in [1usize, 3, 4] {
            let classes = MarkClasses::new(w);
            let all = ((1u32 << w) - 1) as u8;
            for a in 0..=all {
                for b in 0..=all {
                    let before = classes.of_marks(a, b);
                    assert_eq!(before, classes.of_marks(b, a));
                    assert_eq!(before == classes.count(), a == all && b == all);
                    for pit in 0..w {
                        // The mover (marks a) starts from `pit`; the opponent moves next.
                        let after = classes.of_marks(b, a | 1 << pit);
                        if a & 1 << pit != 0 {
                            assert_eq!(after, before, "w {w} {a:b} {b:b} pit {pit}");
                        } else {
                            assert!(after > before, "w {w} {a:b} {b:b} pit {pit}");
                        }
                    }
                }
            }
        }
    }
}
