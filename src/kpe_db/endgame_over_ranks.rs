//! The endgame layers solved by several ranks together (`sow solve` under
//! `mpirun`, cargo feature `mpi`; in-process ranks in the tests): the
//! per-layer loop of `endgame.rs` over ranks. Each layer is split over the
//! ranks by ranges of whole file blocks (`retrograde/ranks/partition.rs`);
//! each rank computes its range's exits from the smaller layers (every
//! rank holds them whole), the thresholds and "can end" by waves of news
//! between ranks (`retrograde/thresholds/distributed.rs`), and gives its
//! slice to the store, which writes the layer's file with the other ranks
//! and gives back the whole layer (`build/layers_over_ranks.rs`).

use std::time::Instant;

use super::endgame::{Endgame, LayerSteps, LayerValues};
use super::entry::layer_entries;
use super::file::BLOCK_ENTRIES;
use crate::infra::limits::peak_rss_mib;
use crate::infra::progress::Progress;
use crate::retrograde::ranks::{Partition, Reduce, Traffic, Transport};
use crate::retrograde::thresholds::distributed::spread_endings_over_ranks;

/// What the ranks did over the layers they solved together.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct RanksLayers {
    pub ranks: usize,
    /// Positions of the layers solved by this run.
    pub positions: u64,
    /// Waves and messages of the thresholds and "can end", summed over
    /// the ranks (`Traffic::summed`).
    pub traffic: Traffic,
    /// The largest peak resident memory of any rank when the layers were
    /// done, MiB.
    pub peak_rss_mib_max: f64,
}

/// Where [`Endgame::solve_layers_over_ranks`] takes the layers it need not
/// solve and keeps those it solves; every rank calls each method together.
pub trait LayerStoreOverRanks {
    type Error;
    /// Layer `n`'s entries, whole, if they need not be solved (on every
    /// rank, or an error on every rank).
    fn take(&mut self, n: usize) -> Result<Option<Vec<u8>>, Self::Error>;
    /// Keeps this rank's `slice` of layer `n`, just solved (the positions
    /// `partition.range(rank)`, and the seconds its steps took), and gives
    /// back the whole layer.
    fn keep(
        &mut self,
        n: usize,
        partition: &Partition,
        slice: Vec<u8>,
        steps: LayerSteps,
    ) -> Result<Vec<u8>, Self::Error>;
}

impl Endgame {
    /// [`Self::solve_layers`] by the ranks of `transport` together: every
    /// layer, smallest first, taken from `store` or solved over the ranks
    /// and kept there. Returns every layer, decoded, on every rank, and
    /// what the ranks did.
    pub fn solve_layers_over_ranks<T: Transport + ?Sized, S: LayerStoreOverRanks>(
        &self,
        progress: Progress,
        transport: &T,
        store: &mut S,
    ) -> Result<(Vec<Vec<u8>>, RanksLayers), S::Error> {
        let mut layers: Vec<Vec<u8>> = vec![Vec::new(); self.variant.total() as usize + 1];
        let mut traffic = Traffic::default();
        let mut positions = 0;
        for n in self.layers() {
            if let Some(entries) = store.take(n)? {
                layers[n] = entries;
                continue;
            }
            let size = self.index.layer_size(n);
            let partition = Partition::new(size, transport.size(), BLOCK_ENTRIES);
            let (slice, steps, moved) =
                self.solve_layer_over_ranks(n, &layers, transport, &partition, progress);
            traffic.add(moved);
            layers[n] = store.keep(n, &partition, slice, steps)?;
            positions += size;
        }
        let mut peak = [(peak_rss_mib().unwrap_or(0.0) * 1024.0) as u64];
        transport.all_reduce(&mut peak, Reduce::Max);
        let done = RanksLayers {
            ranks: transport.size(),
            positions,
            traffic: traffic.summed(transport),
            peak_rss_mib_max: peak[0] as f64 / 1024.0,
        };
        Ok((layers, done))
    }

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
        let entries = layer_entries(values, &ends);
        steps.endings = start.elapsed().as_secs_f64();
        (entries, steps, traffic)
    }
}
