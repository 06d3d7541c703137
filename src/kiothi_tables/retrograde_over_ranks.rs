//! A stone count of the Kiothi endgame tables solved by several ranks
//! together (`sow solve kiothi` under `mpirun`, cargo feature `mpi`;
//! in-process ranks in the tests), writing the file one process writes.
//!
//! The boards of the count are split over the ranks by ranges
//! (`retrograde/ranks/partition.rs`). Each rank generates its boards' moves (the
//! captures read the smaller tables, which every rank maps from the
//! shared directory) and sends every non-capturing move to the owner of
//! the board it leads to, twice, as one process does: once to count each
//! board's parents, once to list them; so each rank holds its boards'
//! parents, inverted. The thresholds then run as in one process, each
//! decided board's news travelling to its parents' owners in waves
//! (`retrograde/ranks/exchange.rs`). The file is written in slices, its checksum
//! summed rank after rank.

use std::path::Path;
use std::sync::atomic::{AtomicI8, AtomicU32, AtomicU8, Ordering::Relaxed};

use rayon::prelude::*;

use super::file::{self, table_path, EndgameError, HEADER};
use super::retrograde::LayerReport;
use super::tables::{KiothiEndgames, Layer, MAX_STONES};
use crate::infra::checksum::Checksum;
use crate::infra::progress::ProgressBar;
use crate::retrograde::bits::Bits;
use crate::retrograde::ranks::file::write_over_ranks;
use crate::retrograde::ranks::{
    waves, Outbox, Partition, Reduce, Traffic, Transport, WAVE_CHILDREN,
};

/// Boards per range: whole words of the work lists' bits, and 8-byte
/// words of the file's checksum.
const RANGE_BLOCK: u64 = 4096;

/// Value of a board not decided yet.
const OPEN: i8 = i8::MIN;

/// One rank's boards of a stone count with their moves, inverted.
struct RankGraph {
    best: Vec<i8>,
    degree: Vec<u8>,
    /// As `MoveGraph`'s: `parents[ends[c - 1]..ends[c]]` are the boards
    /// (ranks in the whole count) with a non-capturing move to board `c`
    /// of this range.
    ends: Vec<u32>,
    parents: Vec<u32>,
}

impl RankGraph {
    fn parents_of(&self, c: usize) -> &[u32] {
        let start = if c == 0 { 0 } else { self.ends[c - 1] };
        &self.parents[start as usize..self.ends[c] as usize]
    }
}

impl KiothiEndgames {
    /// [`Self::solve_next`] by the ranks of `transport` together, its
    /// table written into `db` (the file one process writes) and mapped on
    /// every rank; the report's counts are the whole count's, its seconds
    /// this rank's. Every rank calls it together.
    pub fn solve_next_over_ranks<T: Transport + ?Sized>(
        &mut self,
        db: &Path,
        transport: &T,
        bar: &ProgressBar,
    ) -> Result<(LayerReport, Traffic), EndgameError> {
        let n = self.layers.len();
        assert!(n <= MAX_STONES, "{n} stones");
        let t0 = std::time::Instant::now();
        let partition = Partition::new(Self::layer_size(n), transport.size(), RANGE_BLOCK);
        let (graph, mut traffic) = self.rank_graph(n, transport, &partition, bar);
        let moves = graph.parents.len() as u64;
        let (values, more) = solve_over_ranks(graph, n, transport, &partition);
        traffic.add(more);
        let count = |f: fn(i8) -> bool| values.iter().filter(|&&v| f(v)).count() as u64;
        let mut sums = [moves, count(|v| v > 0), count(|v| v == 0), count(|v| v < 0)];
        transport.all_reduce(&mut sums, Reduce::Sum);
        let path = table_path(db, n);
        write_table_over_ranks(transport, &partition, &path, n, &values)?;
        drop(values);
        self.layers
            .push(Layer::Mapped(file::read(&path, n, partition.len())?));
        let report = LayerReport {
            stones: n,
            boards: partition.len(),
            non_capturing_moves: sums[0],
            mover_gains: sums[1],
            even: sums[2],
            mover_loses: sums[3],
            seconds: t0.elapsed().as_secs_f64(),
        };
        Ok((report, traffic.summed(transport)))
    }

    /// This rank's boards of `n` stones with their moves, inverted: every
    /// rank generates its boards' moves twice (`MoveGraph`'s way), sending
    /// each non-capturing move to its child's owner, first to be counted,
    /// then to be listed.
    fn rank_graph<T: Transport + ?Sized>(
        &self,
        n: usize,
        transport: &T,
        partition: &Partition,
        bar: &ProgressBar,
    ) -> (RankGraph, Traffic) {
        let range = partition.range(transport.rank());
        let first = range.start;
        let size = (range.end - range.start) as usize;
        bar.set_length(2 * size as u64);
        let best: Vec<AtomicI8> = (0..size).map(|_| AtomicI8::new(0)).collect();
        let degree: Vec<AtomicU8> = (0..size).map(|_| AtomicU8::new(0)).collect();
        let counts: Vec<AtomicU32> = (0..size).map(|_| AtomicU32::new(0)).collect();
        // Every board of the range, once.
        let all = || {
            let bits = Bits::new(size as u64);
            (0..size.div_ceil(64)).for_each(|w| {
                let len = (size - 64 * w).min(64);
                bits.insert_word(w, u64::MAX >> (64 - len));
            });
            bits
        };
        // Boards taken by a wave come in runs of consecutive ranks.
        let moves_of = |boards: &[u32], out: &mut Outbox, record: bool| {
            for run in boards.chunk_by(|a, b| a + 1 == *b) {
                let start = first as usize + run[0] as usize;
                self.for_each_board(n, start, run.len(), |i, kids, (b, d)| {
                    let local = run[0] as usize + i;
                    if record {
                        best[local].store(b, Relaxed);
                        degree[local].store(d, Relaxed);
                    }
                    for &child in kids {
                        let owner = partition.owner(child as u64);
                        let child_local = child as u64 - partition.start(owner);
                        let parent = (first as usize + local) as u64;
                        out.send(owner, child_local << 32 | parent);
                    }
                });
            }
            bar.inc(boards.len() as u64);
        };
        let mut traffic = waves(
            transport,
            &all(),
            WAVE_CHILDREN,
            |boards, out| moves_of(boards, out, true),
            |m| {
                counts[(m >> 32) as usize].fetch_add(1, Relaxed);
            },
        );
        let mut ends: Vec<u32> = counts.into_iter().map(AtomicU32::into_inner).collect();
        let mut total = 0u64;
        for e in ends.iter_mut() {
            let here = *e as u64;
            *e = total as u32;
            total += here;
        }
        assert!(
            total < u32::MAX as u64,
            "{total} moves into one rank's boards"
        );
        let cursor: Vec<AtomicU32> = ends.iter().map(|&e| AtomicU32::new(e)).collect();
        let slots: Vec<AtomicU32> = (0..total).map(|_| AtomicU32::new(0)).collect();
        traffic.add(waves(
            transport,
            &all(),
            WAVE_CHILDREN,
            |boards, out| moves_of(boards, out, false),
            |m| {
                let slot = cursor[(m >> 32) as usize].fetch_add(1, Relaxed);
                slots[slot as usize].store(m as u32, Relaxed);
            },
        ));
        for (e, c) in ends.iter_mut().zip(cursor) {
            *e = c.into_inner();
        }
        let graph = RankGraph {
            best: best.into_iter().map(AtomicI8::into_inner).collect(),
            degree: degree.into_iter().map(AtomicU8::into_inner).collect(),
            ends,
            parents: slots.into_iter().map(AtomicU32::into_inner).collect(),
        };
        (graph, traffic)
    }
}

/// The values of a rank's boards (`MoveGraph::solve`'s thresholds from
/// `n` down to 1, over the ranks): a message carries the parent's index
/// in its owner's range and whether the child's mover reaches the
/// threshold.
fn solve_over_ranks<T: Transport + ?Sized>(
    graph: RankGraph,
    n: usize,
    transport: &T,
    partition: &Partition,
) -> (Vec<i8>, Traffic) {
    let size = graph.best.len();
    let value: Vec<AtomicI8> = (0..size).map(|_| AtomicI8::new(OPEN)).collect();
    let left: Vec<AtomicU8> = graph.degree.iter().map(|&d| AtomicU8::new(d)).collect();
    let pending = Bits::new(size as u64);
    let mut traffic = Traffic::default();
    for t in (1..=n as i8).rev() {
        // The seeds: boards decided by their captures alone.
        (0..size).into_par_iter().for_each(|p| {
            if value[p].load(Relaxed) != OPEN {
                return;
            }
            let best = graph.best[p];
            if best == t || (best == -t && left[p].load(Relaxed) == 0) {
                value[p].store(best, Relaxed);
                pending.insert(p as u64);
            }
        });
        let emit = |children: &[u32], out: &mut Outbox| {
            for &c in children {
                let reaches = value[c as usize].load(Relaxed) > 0;
                for &p in graph.parents_of(c as usize) {
                    let owner = partition.owner(p as u64);
                    let local = p as u64 - partition.start(owner);
                    out.send(owner, local << 1 | reaches as u64);
                }
            }
        };
        let apply = |m: u64| {
            let p = (m >> 1) as usize;
            if value[p].load(Relaxed) != OPEN {
                return;
            }
            let decided = if m & 1 == 0 {
                // A move to a board where the opponent is held to -t.
                value[p].compare_exchange(OPEN, t, Relaxed, Relaxed).is_ok()
            } else {
                // One move fewer that can escape; the last one holds the
                // mover to -t if its captures are no better. (A count
                // taken down after the board was decided is never read.)
                let was = left[p].fetch_sub(1, Relaxed);
                was == 1
                    && graph.best[p] <= -t
                    && value[p]
                        .compare_exchange(OPEN, -t, Relaxed, Relaxed)
                        .is_ok()
            };
            if decided {
                pending.insert(p as u64);
            }
        };
        traffic.add(waves(transport, &pending, WAVE_CHILDREN, emit, apply));
    }
    let values = value
        .into_iter()
        .map(|v| match v.into_inner() {
            OPEN => 0,
            v => v,
        })
        .collect();
    (values, traffic)
}

/// Writes the table of `n` stones, `values` being this rank's slice
/// (`KiothiEndgames::save_layer`'s file): the payload's checksum is
/// summed rank after rank, each going on from the one before.
fn write_table_over_ranks<T: Transport + ?Sized>(
    transport: &T,
    partition: &Partition,
    path: &Path,
    n: usize,
    values: &[i8],
) -> Result<(), EndgameError> {
    let payload = file::bytes_of(values);
    let mut sum = Checksum::default().value();
    for r in 0..transport.size() {
        if r == transport.rank() {
            let mut h = Checksum::resume(sum);
            h.bytes(payload);
            sum = h.value();
        }
        sum = transport.broadcast(sum, r);
    }
    let offset = HEADER as u64 + partition.start(transport.rank());
    let head = || file::header(n, partition.len(), sum);
    write_over_ranks(transport, path, offset, &[payload], head).map_err(|e| EndgameError::Io {
        path: e.path,
        source: e.source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrograde::ranks::InProcess;

    /// Over 1 to 4 ranks (uneven ranges; empty ranks on the smallest
    /// counts), every table file is byte for byte the single process's.
    #[test]
    fn ranks_write_the_single_process_tables() {
        let dir = std::env::temp_dir().join(format!("sow-kiothi-ranks-{}", std::process::id()));
        let single = dir.join("single");
        let mut t = KiothiEndgames::empty();
        for n in 0..=6 {
            t.solve_next(&ProgressBar::hidden());
            t.save_layer(&single, n).unwrap();
        }
        for ranks in 1..=4 {
            let db = dir.join(format!("ranks-{ranks}"));
            let crossed = InProcess::run(ranks, |tr| {
                let mut tables = KiothiEndgames::empty();
                let mut sent = 0;
                for n in 0..=6 {
                    let (report, traffic) = tables
                        .solve_next_over_ranks(&db, tr, &ProgressBar::hidden())
                        .unwrap();
                    assert_eq!(report.stones, n);
                    sent += traffic.messages_sent;
                }
                sent
            });
            for n in 0..=6 {
                let a = std::fs::read(table_path(&single, n)).unwrap();
                let b = std::fs::read(table_path(&db, n)).unwrap();
                assert!(a == b, "{ranks} ranks, {n} stones");
            }
            assert_eq!(crossed[0] > 0, ranks > 1);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
