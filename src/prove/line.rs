//! The line of play a search is on, root first, with a quick test of
//! whether a position is on it.
//!
//! The prover asks that of every child it generates (a child repeating a
//! position of the line is worth 0 there, RULES §0 endless play). Lines run
//! 40 plies and more in late Kiothi proofs; a count per bucket of keys
//! answers "not on the line" for almost every child without scanning it.

/// Buckets of the filter (a power of two).
const BUCKETS: usize = 1 << 10;

/// Positions with their hashes, root first.
#[derive(Clone, Debug)]
pub struct Line<G> {
    entries: Vec<(u64, G)>,
    /// How many entries' keys fall in each bucket.
    counts: Box<[u32; BUCKETS]>,
}

impl<G> Default for Line<G> {
    fn default() -> Self {
        Line {
            entries: Vec::new(),
            counts: Box::new([0; BUCKETS]),
        }
    }
}

fn bucket(key: u64) -> usize {
    // The top bits: the low ones also index the tables' buckets.
    (key >> (64 - BUCKETS.trailing_zeros())) as usize
}

impl<G> Line<G> {
    pub fn push(&mut self, key: u64, pos: G) {
        self.counts[bucket(key)] += 1;
        self.entries.push((key, pos));
    }

    pub fn pop(&mut self) -> Option<(u64, G)> {
        let top = self.entries.pop()?;
        self.counts[bucket(top.0)] -= 1;
        Some(top)
    }

    pub fn clear(&mut self) {
        while self.pop().is_some() {}
    }

    pub fn last(&self) -> Option<&(u64, G)> {
        self.entries.last()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Index of the last entry with hash `key` for which `same` holds.
    pub fn rposition(&self, key: u64, same: impl Fn(&G) -> bool) -> Option<usize> {
        if self.counts[bucket(key)] == 0 {
            return None;
        }
        self.entries.iter().rposition(|(k, p)| *k == key && same(p))
    }

    /// Index of the first entry with hash `key` for which `same` holds.
    pub fn position(&self, key: u64, same: impl Fn(&G) -> bool) -> Option<usize> {
        if self.counts[bucket(key)] == 0 {
            return None;
        }
        self.entries.iter().position(|(k, p)| *k == key && same(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_is_on_the_line_and_nothing_once_it_is_left() {
        let mut line = Line::default();
        // Two keys in one bucket, one in another.
        let (a, b, c) = (1u64 << 63 | 1, 1u64 << 63 | 2, 5u64);
        assert_eq!(bucket(a), bucket(b));
        line.push(a, "a");
        line.push(c, "c");
        line.push(a, "a again");
        assert_eq!(line.rposition(a, |_| true), Some(2));
        assert_eq!(line.position(a, |_| true), Some(0));
        assert_eq!(line.rposition(a, |p| *p == "a"), Some(0));
        assert_eq!(line.rposition(b, |_| true), None, "same bucket, other key");
        assert_eq!(line.pop(), Some((a, "a again")));
        assert_eq!(line.rposition(a, |p| *p == "a again"), None);
        line.clear();
        assert_eq!(line.rposition(a, |_| true), None);
        assert_eq!(line.rposition(c, |_| true), None);
        assert_eq!(line.len(), 0);
        assert_eq!(line.last(), None);
    }
}
