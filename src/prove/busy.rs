//! How the threads of one proof share its nodes (ABDADA, Weill 1996): the
//! table of the nodes being searched, and the order a node's moves are
//! searched in beside the other threads.

use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

use super::UNIT;

/// Slots of the table of nodes being searched ([`Busy`]).
const BUSY_SLOTS: usize = 1 << 16;
/// Nodes with at least this depth budget left (quarter plies) say they are
/// being searched, and their parents defer them while another thread is
/// inside ([`Busy`]): below it a subtree is cheaper to search twice than
/// the bookkeeping.
pub(super) const SHARE_DEPTH: u32 = 2 * UNIT;

/// Which nodes the threads are searching right now (ABDADA, Weill 1996):
/// a count per slot, indexed by the position's hash, raised on entering a
/// node with [`SHARE_DEPTH`] or more left and lowered on leaving it. A
/// thread searching a node's moves first passes over the moves another
/// thread is inside (all but the first: "young brothers wait"), and comes
/// back to them once the rest is done, when their bounds are mostly in the
/// table. Only the order of the search changes: a collision of two
/// positions on one slot costs time, never soundness.
pub(super) struct Busy(Box<[AtomicU8]>);

impl Busy {
    pub(super) fn new() -> Busy {
        Busy((0..BUSY_SLOTS).map(|_| AtomicU8::new(0)).collect())
    }

    pub(super) fn slot(&self, key: u64) -> &AtomicU8 {
        // The bound table indexes by the high bits: the low ones are
        // independent of its buckets.
        &self.0[key as usize & (BUSY_SLOTS - 1)]
    }

    pub(super) fn enter(&self, key: u64) {
        self.slot(key).fetch_add(1, Relaxed);
    }

    pub(super) fn leave(&self, key: u64) {
        self.slot(key).fetch_sub(1, Relaxed);
    }

    pub(super) fn searched(&self, key: u64) -> bool {
        self.slot(key).load(Relaxed) != 0
    }
}

/// The order a node's moves are searched in beside other threads
/// ([`Busy`]): `order`, passing over each move but a pass's first that
/// another thread is inside, then those deferred moves in further passes
/// until none is left. Without `defer`, just `order`.
pub(super) struct MoveQueue {
    pass: std::vec::IntoIter<usize>,
    deferred: Vec<usize>,
    first: bool,
    defer: bool,
}

impl MoveQueue {
    pub(super) fn new(order: Vec<usize>, defer: bool) -> Self {
        MoveQueue {
            pass: order.into_iter(),
            deferred: Vec::new(),
            first: true,
            defer,
        }
    }

    /// The next move to search; `key(i)` is move `i`'s child's hash.
    pub(super) fn next(&mut self, busy: &Busy, key: impl Fn(usize) -> u64) -> Option<usize> {
        loop {
            let Some(i) = self.pass.next() else {
                if self.deferred.is_empty() {
                    return None;
                }
                self.pass = std::mem::take(&mut self.deferred).into_iter();
                self.first = true;
                continue;
            };
            if self.defer && !self.first && busy.searched(key(i)) {
                self.deferred.push(i);
                continue;
            }
            self.first = false;
            return Some(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(queue: &mut MoveQueue, busy: &Busy) -> Vec<usize> {
        std::iter::from_fn(|| queue.next(busy, |i| i as u64)).collect()
    }

    #[test]
    fn a_move_queue_defers_the_moves_another_thread_is_inside() {
        let busy = Busy::new();
        busy.enter(0);
        busy.enter(2);
        busy.enter(3);
        // Move 0 is a pass's first, searched whoever is inside; 2 and 3
        // wait for the second pass, where 2 comes first and 3 waits again.
        let mut queue = MoveQueue::new(vec![0, 1, 2, 3, 4], true);
        assert_eq!(drain(&mut queue, &busy), vec![0, 1, 4, 2, 3]);
        let mut queue = MoveQueue::new(vec![3, 2, 1], false);
        assert_eq!(drain(&mut queue, &busy), vec![3, 2, 1]);
        busy.leave(2);
        busy.leave(3);
        let mut queue = MoveQueue::new(vec![0, 2, 3], true);
        assert_eq!(drain(&mut queue, &busy), vec![0, 2, 3]);
    }
}
