//! The endgame layers solved by several ranks together (`sow solve` under
//! `mpirun`, cargo feature `mpi`; in-process ranks in the tests): each
//! layer split over the ranks by ranges of whole file blocks
//! (`retrograde::partition`), each rank computing its range's exits from
//! the smaller layers (every rank holds them, read from their files), the
//! thresholds and "can end" by waves of news between ranks
//! (`retrograde::thresholds::distributed`), and its slice of the layer's
//! file (`db_over_ranks.rs`): the files are byte for byte those of one
//! process. A layer already in the directory is read, not solved, as one
//! process does, so a run stopped in any layer resumes after the last
//! whole one. The locked opening region is then solved by rank 0 alone,
//! as one process solves it.

use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;

use super::db::{self, entry, Encoding, BLOCK};
use super::db_over_ranks::write_values_over_ranks;
use super::endgame::{Endgame, LayerSteps, LayerValues};
use super::estimate::{OutOfCore, Scope};
use super::solution::{
    layer_id, reuse, shared_layer, BuildOptions, Solution, SolveError, SolveStats,
};
use crate::games::kpe::KpeVariant;
use crate::infra::progress::Progress;
use crate::retrograde::exchange::Traffic;
use crate::retrograde::partition::Partition;
use crate::retrograde::thresholds::distributed::spread_endings_over_ranks;
use crate::retrograde::transport::{Reduce, Transport};

/// What the ranks did over the layers they solved together.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct RanksReport {
    pub ranks: usize,
    /// Positions of the layers solved by this run.
    pub positions: u64,
    /// Waves and messages of the thresholds and "can end", summed over
    /// the ranks (`exchange::Traffic::summed`).
    pub traffic: Traffic,
    /// The largest peak resident memory of any rank when the layers were
    /// done, MiB (as `peak_rss_mib` read it on each).
    pub peak_rss_mib_max: f64,
}

impl Endgame {
    /// This rank's slice of layer `n` (entry bytes of the positions
    /// `partition.range(rank)`), every smaller layer being in `layers`;
    /// every rank calls it together. The seconds of its steps, and this
    /// rank's traffic.
    pub fn solve_layer_over_ranks<T: Transport + ?Sized>(
        &self,
        n: usize,
        layers: &impl LayerValues,
        transport: &T,
        partition: &Partition,
        progress: Progress,
    ) -> (Vec<u8>, LayerSteps, Traffic) {
        let range = partition.range(transport.rank());
        let bar = progress.bar(range.end - range.start, format!("layer {n}"));
        let mut steps = LayerSteps::default();
        bar.set_message("exits");
        let start = Instant::now();
        let mut state = self.initial_state_of(n, range, layers, &bar, Vec::new());
        steps.exits = start.elapsed().as_secs_f64();
        let start = Instant::now();
        bar.set_position(0);
        bar.set_length(n as u64 / 2);
        bar.set_message("thresholds");
        let edges = |chunk: &[u32], out: &mut Vec<(u32, u32)>| self.unmove_edges(n, chunk, out);
        let mut traffic =
            state.solve_over_ranks(transport, partition, n as i8, edges, |_, _| bar.inc(1));
        let (values, endings) = state.into_values();
        steps.thresholds = start.elapsed().as_secs_f64();
        let start = Instant::now();
        bar.set_message("endings");
        let (ends, more) = spread_endings_over_ranks(transport, partition, &values, endings, edges);
        traffic.add(more);
        bar.finish_and_clear();
        let mut entries: Vec<u8> = values.into_iter().map(|v| v as u8).collect();
        entries
            .par_iter_mut()
            .enumerate()
            .for_each(|(i, e)| *e = entry(*e as i8, ends.get(i as u64)));
        steps.endings = start.elapsed().as_secs_f64();
        (entries, steps, traffic)
    }

    /// Every endgame layer, smallest first, solved by the ranks together
    /// (or read from its file if there, or taken from another K of the
    /// same W, as [`super::solution::Solution`]'s build does), its file
    /// written; all are returned decoded, on every rank. `peak_rss_mib`
    /// reads this process's peak memory.
    pub fn build_layers_over_ranks<T: Transport + ?Sized>(
        &self,
        db_dir: &Path,
        progress: Progress,
        transport: &T,
        stats: &mut SolveStats,
        peak_rss_mib: fn() -> Option<f64>,
    ) -> Result<(Vec<Vec<u8>>, RanksReport), SolveError> {
        let variant = self.variant;
        let mut layers: Vec<Vec<u8>> = vec![Vec::new(); variant.total() as usize + 1];
        let mut report = RanksReport {
            ranks: transport.size(),
            ..RanksReport::default()
        };
        let mut traffic = Traffic::default();
        for n in self.layers() {
            let (path, id) = (db::layer_path(db_dir, variant, n), layer_id(variant, n));
            let size = self.index.layer_size(n);
            // Every rank reads the same file; a failure on any stops all.
            let found = read_whole(&path, id, size);
            let mut failed = [found.is_err() as u64];
            transport.all_reduce(&mut failed, Reduce::Sum);
            if failed[0] > 0 {
                return Err(found
                    .err()
                    .map_or_else(|| other_rank_failed(&path), Into::into));
            }
            if let Some(entries) = found? {
                layers[n] = entries;
                stats.layers_reused.push(n);
                continue;
            }
            if let Some((entries, from)) = shared_layer(db_dir, variant, n, size) {
                if transport.rank() == 0 {
                    db::write_values(&path, id, &entries, Encoding::Zstd)?;
                }
                transport.barrier();
                layers[n] = entries;
                stats.layers_reused.push(n);
                stats.layers_shared.push((n, from));
                continue;
            }
            let partition = Partition::new(size, transport.size(), BLOCK as u64);
            let (slice, steps, moved) =
                self.solve_layer_over_ranks(n, &layers, transport, &partition, progress);
            stats.layer_steps.add(steps);
            traffic.add(moved);
            write_values_over_ranks(transport, &partition, &path, id, &slice)?;
            drop(slice);
            // The whole layer, for the exits of the larger ones: read from
            // the file just written, as every rank can.
            let found = read_whole(&path, id, size).and_then(|e| {
                e.ok_or_else(|| db::DbError::Io {
                    path: path.clone(),
                    source: std::io::Error::other("not found after it was written: is the database directory shared by every rank?"),
                })
            });
            let mut failed = [found.is_err() as u64];
            transport.all_reduce(&mut failed, Reduce::Sum);
            if failed[0] > 0 {
                return Err(found
                    .err()
                    .map_or_else(|| other_rank_failed(&path), Into::into));
            }
            layers[n] = found?;
            stats.layers_computed.push(n);
            report.positions += size;
        }
        stats.unlocked_positions = self.layers().map(|n| self.index.layer_size(n)).sum();
        report.traffic = traffic.summed(transport);
        let mut peak = [(peak_rss_mib().unwrap_or(0.0) * 1024.0) as u64];
        transport.all_reduce(&mut peak, Reduce::Max);
        report.peak_rss_mib_max = peak[0] as f64 / 1024.0;
        Ok((layers, report))
    }
}

impl Solution {
    /// [`Self::build_with`] by the ranks of `transport` together: the
    /// endgame layers over every rank (`endgame_over_ranks.rs`), the
    /// locked region on rank 0 alone, which returns the solution; the
    /// others return None once the layers are written. Every rank calls
    /// it together; `peak_rss_mib` reads a process's peak memory.
    pub fn build_over_ranks<T: Transport + ?Sized>(
        variant: KpeVariant,
        db_dir: &Path,
        progress: Progress,
        options: BuildOptions,
        transport: &T,
        peak_rss_mib: fn() -> Option<f64>,
    ) -> Result<Option<(Self, SolveStats, RanksReport)>, SolveError> {
        let (mut stats, writer) =
            Self::prepare_over_ranks(variant, db_dir, Scope::Whole, options, transport)?;
        let start = Instant::now();
        let eg = Endgame::new(variant);
        let (layers, report) =
            eg.build_layers_over_ranks(db_dir, progress, transport, &mut stats, peak_rss_mib)?;
        if writer.is_none() {
            return Ok(None);
        }
        let (solution, stats) =
            Self::build_region(eg, db_dir, progress, options.encoding, stats, layers, start)?;
        Ok(Some((solution, stats, report)))
    }

    /// [`Self::build_endgame`] by the ranks of `transport` together; the
    /// statistics on rank 0, None on the others.
    pub fn build_endgame_over_ranks<T: Transport + ?Sized>(
        variant: KpeVariant,
        db_dir: &Path,
        progress: Progress,
        transport: &T,
        peak_rss_mib: fn() -> Option<f64>,
    ) -> Result<Option<(SolveStats, RanksReport)>, SolveError> {
        let options = BuildOptions {
            encoding: Encoding::Zstd,
            out_of_core: OutOfCore::Never,
        };
        let (mut stats, writer) =
            Self::prepare_over_ranks(variant, db_dir, Scope::Endgame, options, transport)?;
        let start = Instant::now();
        let eg = Endgame::new(variant);
        let (_, report) =
            eg.build_layers_over_ranks(db_dir, progress, transport, &mut stats, peak_rss_mib)?;
        stats.layers_seconds = start.elapsed().as_secs_f64();
        stats.seconds = stats.layers_seconds;
        Ok(writer.map(|_| (stats, report)))
    }

    /// [`Self::prepare`] on rank 0 (which takes the writer's lock, and
    /// returns it), its refusal on every rank.
    fn prepare_over_ranks<T: Transport + ?Sized>(
        variant: KpeVariant,
        db_dir: &Path,
        scope: Scope,
        options: BuildOptions,
        transport: &T,
    ) -> Result<(SolveStats, Option<super::lock::DbLock>), SolveError> {
        // Every rank's large blocks go back to the system when freed, as
        // rank 0's do in `prepare`.
        crate::infra::malloc::return_large_blocks_when_freed();
        let prepared = match transport.rank() {
            0 => Some(Self::prepare(variant, db_dir, scope, options.out_of_core)),
            _ => None,
        };
        let refused = transport.broadcast(matches!(prepared, Some(Err(_))) as u64, 0);
        match prepared {
            Some(Ok((stats, writer))) => Ok((stats, Some(writer))),
            Some(Err(e)) => Err(e),
            None if refused == 0 => Ok((SolveStats::default(), None)),
            None => Err(crate::InputError::unsupported(
                "variant",
                format!("{}: refused by rank 0", variant.tag()),
            )
            .into()),
        }
    }
}

/// The entries of a layer's file, checked, or None if it is absent.
fn read_whole(path: &Path, id: db::FileId, size: u64) -> Result<Option<Vec<u8>>, db::DbError> {
    match reuse(path, id, Some(size))? {
        Some(file) => Ok(Some(file.all_entries()?.into_owned())),
        None => Ok(None),
    }
}

/// The error of a rank whose own step went well when another's failed.
pub(super) fn other_rank_failed(path: &Path) -> SolveError {
    SolveError::Db(db::DbError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other("another rank failed reading or writing it"),
    })
}
