//! The few collective operations a layered retrograde needs to run over
//! several ranks (processes, or threads standing in for them), bulk
//! synchronous: every rank calls the same operations in the same order.
//!
//! [`Transport`] is implemented over MPI (`ranks/mpi.rs`, cargo
//! feature `mpi`) and, here, by [`InProcess`]: N ranks as threads of one
//! process, for the tests and the default build.

use std::sync::{Barrier, Mutex};

/// How [`Transport::all_reduce`] combines the ranks' values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduce {
    Sum,
    Max,
}

impl Reduce {
    fn apply(self, a: u64, b: u64) -> u64 {
        match self {
            Reduce::Sum => a + b,
            Reduce::Max => a.max(b),
        }
    }
}

/// Collective operations among the ranks of one run. Every rank must call
/// each of them, in the same order, for any to return.
pub trait Transport {
    /// This rank, from 0.
    fn rank(&self) -> usize;
    /// The number of ranks.
    fn size(&self) -> usize;
    /// All-to-all with varying counts (MPI's Alltoallv): `send` holds the
    /// words for rank 0, then for rank 1, and so on, `counts[r]` of them
    /// for rank `r`; returns what every rank sent to this one, rank 0's
    /// first.
    fn all_to_all_v(&self, send: &[u64], counts: &[usize]) -> Vec<u64>;
    /// Combines `values` element by element over the ranks; every rank
    /// gets the result in place.
    fn all_reduce(&self, values: &mut [u64], op: Reduce);
    /// Waits until every rank has called it.
    fn barrier(&self);

    /// Every rank's `value`, in rank order.
    fn all_gather(&self, value: u64) -> Vec<u64> {
        let size = self.size();
        self.all_to_all_v(&vec![value; size], &vec![1; size])
    }

    /// Rank `root`'s `value`, on every rank.
    fn broadcast(&self, value: u64, root: usize) -> u64 {
        self.all_gather(value)[root]
    }
}

/// The state the threads of [`InProcess`] share.
struct Shared {
    size: usize,
    barrier: Barrier,
    /// `mail[from * size + to]`: the words rank `from` sends rank `to`.
    mail: Vec<Mutex<Vec<u64>>>,
    /// Each rank's values of an all-reduce.
    reduce: Vec<Mutex<Vec<u64>>>,
}

/// One rank of a run of N ranks as threads of this process ([`Self::run`]).
pub struct InProcess<'a> {
    rank: usize,
    shared: &'a Shared,
}

impl InProcess<'_> {
    /// Runs `work` on `size` ranks, each a thread of its own, and returns
    /// their results in rank order. A rank that panics makes the others
    /// wait for ever at their next collective, as a crashed MPI rank does:
    /// tests keep their collectives balanced.
    pub fn run<T: Send>(size: usize, work: impl Fn(&InProcess) -> T + Sync) -> Vec<T> {
        assert!(size > 0, "a run has at least one rank");
        let shared = Shared {
            size,
            barrier: Barrier::new(size),
            mail: (0..size * size).map(|_| Mutex::new(Vec::new())).collect(),
            reduce: (0..size).map(|_| Mutex::new(Vec::new())).collect(),
        };
        let work = &work;
        let shared = &shared;
        std::thread::scope(|s| {
            let ranks: Vec<_> = (0..size)
                .map(|rank| s.spawn(move || work(&InProcess { rank, shared })))
                .collect();
            ranks
                .into_iter()
                .map(|r| r.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        })
    }
}

impl Transport for InProcess<'_> {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.shared.size
    }

    fn all_to_all_v(&self, send: &[u64], counts: &[usize]) -> Vec<u64> {
        let size = self.shared.size;
        assert_eq!(counts.len(), size);
        assert_eq!(counts.iter().sum::<usize>(), send.len());
        let mut at = 0;
        for (to, &count) in counts.iter().enumerate() {
            *self.shared.mail[self.rank * size + to]
                .lock()
                .expect("mail") = send[at..at + count].to_vec();
            at += count;
        }
        self.shared.barrier.wait();
        let mut received = Vec::new();
        for from in 0..size {
            let mut slot = self.shared.mail[from * size + self.rank]
                .lock()
                .expect("mail");
            received.append(&mut slot);
        }
        // No rank writes the next exchange's mail before all have read.
        self.shared.barrier.wait();
        received
    }

    fn all_reduce(&self, values: &mut [u64], op: Reduce) {
        *self.shared.reduce[self.rank].lock().expect("reduce") = values.to_vec();
        self.shared.barrier.wait();
        for (r, theirs) in self.shared.reduce.iter().enumerate() {
            if r != self.rank {
                let theirs = theirs.lock().expect("reduce");
                assert_eq!(theirs.len(), values.len(), "all_reduce of unequal lengths");
                for (v, &t) in values.iter_mut().zip(theirs.iter()) {
                    *v = op.apply(*v, t);
                }
            }
        }
        self.shared.barrier.wait();
    }

    fn barrier(&self) {
        self.shared.barrier.wait();
    }
}

/// A run of one rank: the single-process solve through the same code.
pub struct Alone;

impl Transport for Alone {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn all_to_all_v(&self, send: &[u64], counts: &[usize]) -> Vec<u64> {
        assert_eq!(counts, [send.len()]);
        send.to_vec()
    }
    fn all_reduce(&self, _values: &mut [u64], _op: Reduce) {}
    fn barrier(&self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each rank sends rank `to` the words `[from, to]` `from + 1` times;
    /// every rank receives them in rank order. Sums and maxima reach
    /// every rank; one rank alone gets back what it sent.
    #[test]
    fn exchanges_and_reductions_reach_every_rank() {
        for size in 1..=4 {
            let got = InProcess::run(size, |t| {
                let me = t.rank() as u64;
                let mut send = Vec::new();
                let mut counts = Vec::new();
                for to in 0..t.size() as u64 {
                    let words: Vec<u64> = (0..=me).flat_map(|_| [me, to]).collect();
                    counts.push(words.len());
                    send.extend(words);
                }
                let received = t.all_to_all_v(&send, &counts);
                let mut sums = [me, 1];
                t.all_reduce(&mut sums, Reduce::Sum);
                let mut max = [me];
                t.all_reduce(&mut max, Reduce::Max);
                (
                    received,
                    sums,
                    max[0],
                    t.all_gather(me * 10),
                    t.broadcast(me, 0),
                )
            });
            let n = size as u64;
            for (me, (received, sums, max, gathered, root)) in got.into_iter().enumerate() {
                let expected: Vec<u64> = (0..n)
                    .flat_map(|from| (0..=from).flat_map(move |_| [from, me as u64]))
                    .collect();
                assert_eq!(received, expected, "{size} ranks, rank {me}");
                assert_eq!(sums, [n * (n - 1) / 2, n]);
                assert_eq!(max, n - 1);
                assert_eq!(gathered, (0..n).map(|r| r * 10).collect::<Vec<_>>());
                assert_eq!(root, 0);
            }
        }
        assert_eq!(Alone.all_to_all_v(&[7, 8], &[2]), vec![7, 8]);
    }
}
