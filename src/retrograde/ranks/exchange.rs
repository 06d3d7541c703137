//! Waves of news between ranks, bulk synchronous: the work list of a
//! retrograde over ranks ([`waves`]).
//!
//! Each rank owns a range of the layer (`partition.rs`) and keeps the
//! positions whose news is still to be passed on as bits. A wave: every
//! rank takes up to a budget of them, turns each into messages for the
//! owners of its predecessors (bucketed by rank; its own are applied at
//! once), exchanges the buckets in one all-to-all, applies what it got
//! (which may add positions to its work list), and all ranks sum how many
//! still have work: the waves end when none has. A position's news is
//! whatever the messages say, so the result is the fixpoint the
//! single-process drain reaches, in whatever order the news arrives.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::transport::{Reduce, Transport};
use crate::retrograde::bits::Bits;

/// Children turned into messages by one task.
const TASK: usize = 1024;

/// Messages of one task, by destination rank.
pub struct Outbox {
    buckets: Vec<Vec<u64>>,
}

impl Outbox {
    fn new(ranks: usize) -> Self {
        Outbox {
            buckets: vec![Vec::new(); ranks],
        }
    }

    /// Queues `message` for rank `rank`.
    #[inline]
    pub fn send(&mut self, rank: usize, message: u64) {
        self.buckets[rank].push(message);
    }
}

/// What the waves of a run moved, this rank's share (sums over ranks are
/// the caller's: [`Traffic::summed`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Traffic {
    /// Waves (all-to-all exchanges) run.
    pub waves: u64,
    /// Messages (8 bytes each) sent to other ranks.
    pub messages_sent: u64,
    /// Messages a rank sent itself (applied without an exchange).
    pub messages_local: u64,
    /// The largest number of messages sent by this rank in one wave.
    pub largest_wave: u64,
}

impl Traffic {
    pub fn add(&mut self, other: Traffic) {
        self.waves += other.waves;
        self.messages_sent += other.messages_sent;
        self.messages_local += other.messages_local;
        self.largest_wave = self.largest_wave.max(other.largest_wave);
    }

    /// The traffic of every rank: waves as they are (every rank runs
    /// them all), messages summed, the largest wave the largest of any
    /// rank.
    pub fn summed<T: Transport + ?Sized>(self, transport: &T) -> Traffic {
        let mut sums = [self.messages_sent, self.messages_local];
        transport.all_reduce(&mut sums, Reduce::Sum);
        let mut max = [self.largest_wave];
        transport.all_reduce(&mut max, Reduce::Max);
        Traffic {
            waves: self.waves,
            messages_sent: sums[0],
            messages_local: sums[1],
            largest_wave: max[0],
        }
    }
}

/// Children a rank takes from its work list per wave: with a few
/// predecessors each, a few tens of MiB of messages at most.
pub const WAVE_CHILDREN: usize = 1 << 21;

/// Runs waves until no rank has work left (module doc): `pending` is this
/// rank's work list (local indices); `emit(children, outbox)` turns local
/// children into messages; `apply(message)` applies one message sent to
/// this rank. Every rank must call this together, with the same `budget`
/// (children taken per wave).
pub fn waves<T, E, A>(transport: &T, pending: &Bits, budget: usize, emit: E, apply: A) -> Traffic
where
    T: Transport + ?Sized,
    E: Fn(&[u32], &mut Outbox) + Sync,
    A: Fn(u64) + Sync,
{
    let me = transport.rank();
    let ranks = transport.size();
    let mut traffic = Traffic::default();
    let mut cursor = 0;
    let mut children = Vec::new();
    loop {
        take(pending, &mut cursor, budget, &mut children);
        let local = AtomicU64::new(0);
        let outboxes: Vec<Outbox> = children
            .par_chunks(TASK)
            .map(|chunk| {
                let mut out = Outbox::new(ranks);
                emit(chunk, &mut out);
                // Its own messages are applied here, while the task's
                // children are still in the cache.
                local.fetch_add(out.buckets[me].len() as u64, Relaxed);
                for m in out.buckets[me].drain(..) {
                    apply(m);
                }
                out
            })
            .collect();
        let mut counts = vec![0usize; ranks];
        for out in &outboxes {
            for (c, b) in counts.iter_mut().zip(&out.buckets) {
                *c += b.len();
            }
        }
        let mut send = Vec::with_capacity(counts.iter().sum());
        for r in 0..ranks {
            for out in &outboxes {
                send.extend_from_slice(&out.buckets[r]);
            }
        }
        drop(outboxes);
        let received = transport.all_to_all_v(&send, &counts);
        let sent = send.len() as u64;
        drop(send);
        received
            .par_chunks(1 << 12)
            .for_each(|c| c.iter().for_each(|&m| apply(m)));
        traffic.waves += 1;
        traffic.messages_sent += sent;
        traffic.messages_local += local.into_inner();
        traffic.largest_wave = traffic.largest_wave.max(sent);
        let mut more = [pending.any() as u64];
        transport.all_reduce(&mut more, Reduce::Sum);
        if more[0] == 0 {
            return traffic;
        }
    }
}

/// Takes up to about `budget` members (whole words) of `pending` into
/// `children`, from word `cursor` on, going round.
fn take(pending: &Bits, cursor: &mut usize, budget: usize, children: &mut Vec<u32>) {
    children.clear();
    let words = pending.word_count();
    for _ in 0..words {
        if children.len() >= budget {
            break;
        }
        pending.take_word(*cursor, children);
        *cursor = (*cursor + 1) % words;
    }
}

#[cfg(test)]
mod tests {
    use super::super::partition::Partition;
    use super::super::transport::InProcess;
    use super::*;

    /// Reachability from one position over a ring with chords, spread by
    /// waves over 1 to 4 ranks with small budgets (many waves), reaches
    /// every position once, as it does on one rank.
    #[test]
    fn waves_reach_the_fixpoint_on_any_number_of_ranks() {
        let len = 5_000u64;
        // Position i leads to i + 1 and to 7 i mod len.
        let next = |i: u64| [(i + 1) % len, (7 * i) % len];
        for ranks in 1..=4 {
            for budget in [1, 64, 1 << 20] {
                let seen = InProcess::run(ranks, |t| {
                    let part = Partition::new(len, ranks, 64);
                    let range = part.range(t.rank());
                    let reached = Bits::new(range.end - range.start);
                    let pending = Bits::new(range.end - range.start);
                    let sent = AtomicU64::new(0);
                    if range.contains(&0) {
                        reached.insert(0);
                        pending.insert(0);
                    }
                    let traffic = waves(
                        t,
                        &pending,
                        budget,
                        |children, out| {
                            for &c in children {
                                for n in next(c as u64 + range.start) {
                                    let owner = part.owner(n);
                                    out.send(owner, n - part.start(owner));
                                    sent.fetch_add(1, Relaxed);
                                }
                            }
                        },
                        |m| {
                            if reached.insert(m) {
                                pending.insert(m);
                            }
                        },
                    );
                    let count = (0..range.end - range.start)
                        .filter(|&i| reached.get(i))
                        .count() as u64;
                    let traffic = traffic.summed(t);
                    (count, traffic, sent.into_inner())
                });
                let total: u64 = seen.iter().map(|s| s.0).sum();
                assert_eq!(total, len, "{ranks} ranks, budget {budget}");
                let (_, traffic, _) = seen[0];
                let messages: u64 = seen.iter().map(|s| s.2).sum();
                assert_eq!(traffic.messages_sent + traffic.messages_local, messages);
                assert_eq!(traffic.messages_sent == 0, ranks == 1);
                assert!(seen.iter().all(|s| s.1.waves == traffic.waves));
            }
        }
    }
}
