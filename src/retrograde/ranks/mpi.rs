//! [`Transport`] over MPI (cargo feature `mpi`, Open MPI through the `mpi`
//! crate): one rank a process, started by `mpirun` or Slurm's `srun`.

use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::*;
use mpi::Count;

use super::transport::{Reduce, Transport};

/// Whether this process was started by an MPI launcher (`mpirun`,
/// `srun`): only then is MPI initialised, so that the binary run by hand
/// is the single-process solver and never waits for a runtime.
pub fn launched() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

/// MPI's world: every rank of the run.
pub struct Mpi {
    // Finalises MPI when dropped, after the world.
    _universe: mpi::environment::Universe,
    world: SimpleCommunicator,
}

impl Mpi {
    /// Initialises MPI (once a process), if this process was launched by
    /// an MPI launcher ([`launched`]). Only the thread that initialised it
    /// calls MPI (the solver's worker threads never do).
    pub fn init() -> Option<Mpi> {
        if !launched() {
            return None;
        }
        let (universe, _) = mpi::initialize_with_threading(mpi::Threading::Funneled)?;
        let world = universe.world();
        Some(Mpi {
            _universe: universe,
            world,
        })
    }

    /// Stops every rank of the run with `code` (a rank that fails alone
    /// would leave the others waiting at their next collective).
    pub fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }
}

/// Words per peer and exchange: MPI counts are `int`s.
const MAX_COUNT: usize = 1 << 30;

impl Transport for Mpi {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn all_to_all_v(&self, send: &[u64], counts: &[usize]) -> Vec<u64> {
        let size = self.size();
        assert_eq!(counts.len(), size);
        let starts: Vec<usize> = counts
            .iter()
            .scan(0, |at, &c| {
                let s = *at;
                *at += c;
                Some(s)
            })
            .collect();
        // What each rank sends this one, then as many rounds as the
        // largest count needs (one, but for buckets past 2^30 words).
        let mut theirs = vec![0u64; size];
        let mine: Vec<u64> = counts.iter().map(|&c| c as u64).collect();
        self.world.all_to_all_into(&mine[..], &mut theirs[..]);
        let largest = counts
            .iter()
            .copied()
            .chain(theirs.iter().map(|&c| c as usize))
            .max()
            .unwrap_or(0);
        let mut rounds_all = [largest.div_ceil(MAX_COUNT) as u64];
        self.all_reduce(&mut rounds_all, Reduce::Max);
        let total: usize = theirs.iter().map(|&c| c as usize).sum();
        let mut received = vec![0u64; total];
        let their_starts: Vec<usize> = theirs
            .iter()
            .scan(0, |at, &c| {
                let s = *at;
                *at += c as usize;
                Some(s)
            })
            .collect();
        for round in 0..rounds_all[0] as usize {
            let piece = |count: usize| count.saturating_sub(round * MAX_COUNT).min(MAX_COUNT);
            let send_counts: Vec<Count> = counts.iter().map(|&c| piece(c) as Count).collect();
            let recv_counts: Vec<Count> =
                theirs.iter().map(|&c| piece(c as usize) as Count).collect();
            let gather = |starts: &[usize], pieces: &[Count], buf: &[u64]| -> Vec<u64> {
                let mut out = Vec::new();
                for (s, &p) in starts.iter().zip(pieces) {
                    let at = s + round * MAX_COUNT;
                    out.extend_from_slice(
                        &buf[at.min(buf.len())..(at + p as usize).min(buf.len())],
                    );
                }
                out
            };
            let send_buf = gather(&starts, &send_counts, send);
            let displs = |c: &[Count]| -> Vec<Count> {
                c.iter()
                    .scan(0, |at, &n| {
                        let s = *at;
                        *at += n;
                        Some(s)
                    })
                    .collect()
            };
            let mut recv_buf = vec![0u64; recv_counts.iter().map(|&c| c as usize).sum()];
            {
                let sp = Partition::new(&send_buf[..], &send_counts[..], displs(&send_counts));
                let mut rp =
                    PartitionMut::new(&mut recv_buf[..], &recv_counts[..], displs(&recv_counts));
                self.world.all_to_all_varcount_into(&sp, &mut rp);
            }
            let mut at = 0;
            for (s, &p) in their_starts.iter().zip(&recv_counts) {
                let to = s + round * MAX_COUNT;
                received[to..to + p as usize].copy_from_slice(&recv_buf[at..at + p as usize]);
                at += p as usize;
            }
        }
        received
    }

    fn all_reduce(&self, values: &mut [u64], op: Reduce) {
        let mine = values.to_vec();
        match op {
            Reduce::Sum => self.world.all_reduce_into(
                &mine[..],
                values,
                mpi::collective::SystemOperation::sum(),
            ),
            Reduce::Max => self.world.all_reduce_into(
                &mine[..],
                values,
                mpi::collective::SystemOperation::max(),
            ),
        }
    }

    /// A barrier that sleeps while it waits: ranks done with their share
    /// wait here while rank 0 goes on alone (the Kpé opening region),
    /// without taking a core from it as a spinning barrier would.
    fn barrier(&self) {
        let mut request = self.world.immediate_barrier();
        loop {
            match request.test() {
                Ok(_) => return,
                Err(pending) => request = pending,
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }
}
