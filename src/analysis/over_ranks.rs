//! What the ranks of an MPI run did (`sow solve` under `mpirun`), as
//! `--json`'s `ranks` object; `report::over_ranks` writes its line.

use serde::Serialize;

use crate::infra::limits::peak_rss_mib;
use crate::kpe_db::endgame_over_ranks::RanksLayers;
use crate::retrograde::ranks::{Reduce, Traffic, Transport};

/// The ranks' figures over the layers (or stone counts) they solved.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RanksFigures {
    pub ranks: usize,
    /// Positions (boards) of the layers the ranks solved.
    pub positions: u64,
    /// Waves of news (one all-to-all each).
    pub waves: u64,
    /// Bytes the ranks sent each other, in all.
    pub bytes_exchanged: u64,
    pub bytes_per_position: f64,
    pub bytes_per_wave: f64,
    /// The largest peak resident memory of any rank, MiB.
    pub peak_rss_mib_max: f64,
}

impl RanksFigures {
    /// The figures of `positions` solved with `traffic` (summed over the
    /// ranks), and the largest peak memory of the ranks of `transport`,
    /// which all call this together.
    pub fn of<T: Transport + ?Sized>(transport: &T, positions: u64, traffic: Traffic) -> Self {
        let mut peak = [(peak_rss_mib().unwrap_or(0.0) * 1024.0) as u64];
        transport.all_reduce(&mut peak, Reduce::Max);
        Self::with_peak(
            transport.size(),
            positions,
            traffic,
            peak[0] as f64 / 1024.0,
        )
    }

    /// The figures of the Kpé layers the ranks built (their peak memory
    /// taken when the layers were done).
    pub fn of_layers(layers: &RanksLayers) -> Self {
        Self::with_peak(
            layers.ranks,
            layers.positions,
            layers.traffic,
            layers.peak_rss_mib_max,
        )
    }

    fn with_peak(ranks: usize, positions: u64, traffic: Traffic, peak_rss_mib_max: f64) -> Self {
        let bytes_exchanged = 8 * traffic.messages_sent;
        RanksFigures {
            ranks,
            positions,
            waves: traffic.waves,
            bytes_exchanged,
            bytes_per_position: bytes_exchanged as f64 / positions.max(1) as f64,
            bytes_per_wave: bytes_exchanged as f64 / traffic.waves.max(1) as f64,
            peak_rss_mib_max,
        }
    }
}
