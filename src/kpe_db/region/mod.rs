//! The locked phase of Kpé (RULES §1.2): positions in which at least one
//! player still has an unset mark. They are enumerated forward from a root
//! (the start, or any locked position a user asks about) and solved by the
//! same threshold retrograde method as the endgame, one *group* at a time:
//! the positions of one stone count (captures only lower it) and one class
//! of marks (`keys/mark_classes.rs`: setting a mark only raises it), with
//! moves out of the group as exits and un-moves, checked for membership, as
//! predecessors. The groups are kept by local rank, compact
//! (`keys/compact.rs`).
//!
//! - `explore.rs`: the forward closure of the root, group by group, the
//!   keys found for later groups waiting in `seeds.rs`;
//! - `exits.rs`: what the moves into the unlocked layers are worth (the one
//!   pass that reads the layers);
//! - `solve.rs`: the groups solved run by run, smallest stone count first
//!   (the region's per-run loop);
//! - `order.rs`: the solved region in the key file's order (stone count,
//!   then ranked key), as its files and readers take it.

mod exits;
mod explore;
mod order;
pub mod seeds;
mod solve;

pub(crate) use explore::Explored;

use crate::games::kpe::{KpePosition, KpeVariant};
use crate::kpe_db::entry::entry;
use crate::kpe_db::keys::compact::CompactKeys;
use crate::kpe_db::keys::ranker::{key_of, rank, stones_of, Ranker, RegionKey};
use crate::kpe_db::scratch::{Scratch, ScratchVec};
use crate::retrograde::bits::Bits;
use crate::Side;

/// Values of every locked position reachable from a root.
#[derive(Debug)]
pub struct LockedRegion {
    variant: KpeVariant,
    ranker: Ranker,
    /// Local ranks of the groups (module documentation), compact
    /// (`keys/compact.rs`), by ascending stone count and then descending
    /// class: the order they are solved in. The values of a group are in
    /// the order of its keys.
    groups: Vec<CompactKeys>,
    /// The class of each group.
    classes: Vec<usize>,
    /// The values of each group, once solved (empty before).
    values: Vec<ScratchVec<i8>>,
    /// Whether perfect play can end, per group (filled as groups are solved).
    ends: Vec<Bits>,
    /// Group of each stone count and class ([`slot`]).
    by_slot: Vec<Option<usize>>,
    /// Where the groups' keys and values live (`kpe_db/scratch.rs`).
    scratch: Scratch,
}

fn is_locked(pos: &KpePosition) -> bool {
    !(pos.is_unlocked(Side::South) && pos.is_unlocked(Side::North))
}

/// The class of a position's marks (`keys/mark_classes.rs`).
fn class_of(ranker: &Ranker, pos: &KpePosition) -> usize {
    ranker
        .classes()
        .of_marks(pos.marks(Side::South), pos.marks(Side::North))
}

/// The index of (stones, class) among the groups a variant can have.
fn slot(ranker: &Ranker, stones: usize, class: usize) -> usize {
    stones * ranker.classes().count() + class
}

impl LockedRegion {
    /// The region of `groups` (class and local ranks), in solving order,
    /// none solved: what [`Self::explore`] returns, or a checkpoint of it
    /// (`build/checkpoint.rs`).
    pub(crate) fn from_explored(
        variant: KpeVariant,
        groups: Vec<(usize, CompactKeys)>,
        scratch: Scratch,
    ) -> Self {
        let ranker = Ranker::new(variant);
        let mut by_slot = vec![None; slot(&ranker, variant.total() as usize + 1, 0)];
        for (i, (class, keys)) in groups.iter().enumerate() {
            by_slot[slot(&ranker, keys.stones, *class)] = Some(i);
        }
        let (classes, groups): (Vec<usize>, Vec<CompactKeys>) = groups.into_iter().unzip();
        LockedRegion {
            variant,
            ranker,
            values: groups.iter().map(|_| ScratchVec::default()).collect(),
            groups,
            classes,
            ends: Vec::new(),
            by_slot,
            scratch,
        }
    }

    pub fn len(&self) -> usize {
        self.groups.iter().map(|g| g.len).sum()
    }

    pub fn variant(&self) -> KpeVariant {
        self.variant
    }

    /// Each group's class and keys, in solving order.
    pub(crate) fn explored_groups(&self) -> impl Iterator<Item = (usize, &CompactKeys)> {
        self.classes.iter().copied().zip(&self.groups)
    }

    /// Positions in group `g`.
    pub(crate) fn group_len(&self, g: usize) -> usize {
        self.groups[g].len
    }

    /// The values and "can end" bits of solved group `g`.
    pub(crate) fn solved_group(&self, g: usize) -> (&ScratchVec<i8>, &Bits) {
        (&self.values[g], &self.ends[g])
    }

    /// Gives group `g`, the first one not solved, its values and "can
    /// end" bits from a checkpoint (`build/checkpoint.rs`).
    pub(crate) fn restore_solved(&mut self, g: usize, values: ScratchVec<i8>, ends: Bits) {
        assert_eq!(g, self.ends.len(), "groups are restored in solving order");
        self.replace_values(g, values);
        self.ends.push(ends);
    }

    /// Puts the same values of group `g` in other storage (a checkpoint's
    /// file, `build/checkpoint.rs`).
    pub(crate) fn replace_values(&mut self, g: usize, values: ScratchVec<i8>) {
        assert_eq!(values.len(), self.groups[g].len, "one value a position");
        self.values[g] = values;
    }

    /// Where the region's arrays live (`kpe_db/scratch.rs`).
    pub fn scratch(&self) -> &Scratch {
        &self.scratch
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The keys of indices `range` of group `g`, in index order.
    fn group_keys_in(&self, g: usize, range: std::ops::Range<usize>) -> Vec<RegionKey> {
        let (stones, class) = (self.groups[g].stones, self.classes[g]);
        let classes = self.ranker.classes();
        self.groups[g].map_ranked_in(range, |local| key_of(stones, classes.global(class, local)))
    }

    /// Every key of group `g`, in index order.
    fn group_keys(&self, g: usize) -> Vec<RegionKey> {
        self.group_keys_in(g, 0..self.groups[g].len)
    }

    /// (group, index) of a key.
    fn locate(&self, key: RegionKey) -> Option<(usize, usize)> {
        let u = rank(key);
        let classes = self.ranker.classes();
        let class = classes.of(u);
        if class >= classes.count() {
            return None; // every mark set: not a locked position
        }
        let g = self
            .by_slot
            .get(slot(&self.ranker, stones_of(key), class))
            .copied()
            .flatten()?;
        self.groups[g]
            .find(classes.local(u))
            .map(|i| (g, i as usize))
    }

    /// The value of a locked position of the region.
    pub fn value(&self, pos: &KpePosition) -> Option<i8> {
        if pos.variant() != self.variant {
            return None;
        }
        self.locate(self.ranker.region_key(pos))
            .map(|(g, i)| self.values[g][i])
    }

    /// The entry byte (value, and whether perfect play can end) of a
    /// locked position of a solved region.
    pub fn entry(&self, pos: &KpePosition) -> Option<u8> {
        if pos.variant() != self.variant {
            return None;
        }
        let (g, i) = self.locate(self.ranker.region_key(pos))?;
        Some(self.entry_at(g, i))
    }

    /// The entry byte of position `i` of solved group `g`.
    fn entry_at(&self, g: usize, i: usize) -> u8 {
        entry(self.values[g][i], self.ends[g].get(i as u64))
    }
}
