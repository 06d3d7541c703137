//! A set of mixed region keys (`opening::mix`: already uniform 64-bit
//! values) by open addressing with linear probing, whose slots can be
//! prefetched: the exploration inserts a batch of keys at a time, asking
//! for every key's slot first, so that the cache misses of the inserts
//! overlap. `hashbrown`'s set, used before, offers no way to prefetch a
//! slot, and `perf annotate` put about half of the standard game's
//! exploration samples on its probes' loads; with this set kpe:4x5's
//! exploration took 7-9% less time (results/BENCHMARKS.md, 2026-12-03).

use crate::prefetch::prefetch;

/// The slot value of an empty slot; the key 0 is kept apart ([`KeySet::zero`]).
const EMPTY: u64 = 0;

/// The set grows (doubles) beyond this share of its slots: 3/4 keeps a
/// linear probe to a line or two.
const MAX_LOAD: (usize, usize) = (3, 4);

/// Keys whose slots are asked for ahead of the insert ([`KeySet::insert_each`]).
const AHEAD: usize = 64;

#[derive(Debug, Default)]
pub struct KeySet {
    slots: Vec<u64>,
    /// Keys other than 0 held.
    len: usize,
    /// Whether the key 0 is held (it cannot sit in a slot: 0 marks empty).
    zero: bool,
}

impl KeySet {
    /// Number of keys held.
    pub fn len(&self) -> usize {
        self.len + self.zero as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The slot where the probe for `key` starts. The mixed key's high
    /// half: the shard of a sharded set is its top bits, and keys that
    /// share them must still spread over the slots.
    #[inline]
    fn home(&self, key: u64) -> usize {
        (key.rotate_left(32) as usize) & (self.slots.len() - 1)
    }

    /// Makes room for `more` keys without growing during their inserts.
    pub fn reserve(&mut self, more: usize) {
        let needed = self.len + more;
        if !self.slots.is_empty() && needed * MAX_LOAD.1 <= self.slots.len() * MAX_LOAD.0 {
            return;
        }
        let mut capacity = self.slots.len().max(16);
        while needed * MAX_LOAD.1 > capacity * MAX_LOAD.0 {
            capacity *= 2;
        }
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; capacity]);
        for key in old.into_iter().filter(|&k| k != EMPTY) {
            let mut at = self.home(key);
            while self.slots[at] != EMPTY {
                at = (at + 1) & (capacity - 1);
            }
            self.slots[at] = key;
        }
    }

    /// Asks the CPU for `key`'s first slot ahead of [`Self::insert`].
    #[inline]
    pub fn prefetch(&self, key: u64) {
        if !self.slots.is_empty() {
            prefetch(&self.slots[self.home(key)]);
        }
    }

    /// Adds `key`; true if it was not held before.
    #[inline]
    pub fn insert(&mut self, key: u64) -> bool {
        if key == EMPTY {
            return !std::mem::replace(&mut self.zero, true);
        }
        self.reserve(1);
        let mask = self.slots.len() - 1;
        let mut at = self.home(key);
        loop {
            match self.slots[at] {
                EMPTY => {
                    self.slots[at] = key;
                    self.len += 1;
                    return true;
                }
                k if k == key => return false,
                _ => at = (at + 1) & mask,
            }
        }
    }

    /// Inserts the key of every item, calling `new` with the items whose
    /// key was not held before, in order. The slots of the next
    /// [`AHEAD`] keys are asked for while one is inserted, so that their
    /// cache misses overlap.
    pub fn insert_each<T: Copy>(
        &mut self,
        items: &[T],
        key: impl Fn(&T) -> u64,
        mut new: impl FnMut(T),
    ) {
        // Room made a block at a time: for all the items at once it could
        // double the table for keys that are mostly held already.
        for block in items.chunks(1024) {
            self.reserve(block.len());
            for item in block.iter().take(AHEAD) {
                self.prefetch(key(item));
            }
            for (i, item) in block.iter().enumerate() {
                if let Some(ahead) = block.get(i + AHEAD) {
                    self.prefetch(key(ahead));
                }
                if self.insert(key(item)) {
                    new(*item);
                }
            }
        }
    }

    /// Every key held, in no particular order.
    pub fn into_keys(self) -> impl Iterator<Item = u64> {
        let zero = self.zero.then_some(0);
        self.slots.into_iter().filter(|&k| k != EMPTY).chain(zero)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::opening::mix;

    /// The set holds what a standard set holds, through growth, repeated
    /// keys and the key 0, whose slot value marks an empty slot.
    #[test]
    fn agrees_with_a_standard_set() {
        let mut ours = KeySet::default();
        let mut reference = std::collections::HashSet::new();
        let mut rng = crate::rng::Rng::new(7);
        for round in 0..40_000u64 {
            // Mixed keys of a small range (many repeats), and raw ones
            // sharing their top bits (one shard's keys).
            let key = match round % 3 {
                0 => mix(rng.below(5_000) as u64),
                1 => 0x3f << 58 | rng.below(20_000) as u64,
                _ => rng.below(3) as u64,
            };
            if round % 1_000 == 0 {
                ours.reserve(round as usize % 300);
            }
            ours.prefetch(key);
            assert_eq!(ours.insert(key), reference.insert(key), "key {key:#x}");
            assert_eq!(ours.len(), reference.len());
        }
        assert!(reference.contains(&0));
        let mut keys: Vec<u64> = ours.into_keys().collect();
        let mut expected: Vec<u64> = reference.into_iter().collect();
        keys.sort_unstable();
        expected.sort_unstable();
        assert_eq!(keys, expected);
    }

    /// Inserting a list at once finds the same new keys, in order, as
    /// inserting them one by one.
    #[test]
    fn insert_each_reports_the_new_items_in_order() {
        let items: Vec<(u64, usize)> = (0..5_000).map(|i| (mix(i as u64 * 7 % 3_001), i)).collect();
        let mut one_by_one = KeySet::default();
        let expected: Vec<usize> = items
            .iter()
            .filter(|(k, _)| one_by_one.insert(*k))
            .map(|&(_, i)| i)
            .collect();
        let mut at_once = KeySet::default();
        let mut found = Vec::new();
        at_once.insert_each(&items, |&(k, _)| k, |(_, i)| found.push(i));
        assert_eq!(found, expected);
        assert_eq!(at_once.len(), 3_001);
    }

    #[test]
    fn an_empty_set_has_no_keys() {
        let set = KeySet::default();
        set.prefetch(12);
        assert!(set.is_empty());
        assert_eq!(set.into_keys().count(), 0);
    }
}
