//! The line `sow solve` under `mpirun` adds to its text: what the ranks did.

use crate::analysis::over_ranks::RanksFigures;

pub fn ranks_line(r: &RanksFigures) -> String {
    format!(
        "over {} ranks: {} positions solved together in {} waves, {} bytes exchanged ({:.2} a position, {:.0} a wave), peak memory of a rank {:.0} MiB",
        r.ranks,
        r.positions,
        r.waves,
        r.bytes_exchanged,
        r.bytes_per_position,
        r.bytes_per_wave,
        r.peak_rss_mib_max
    )
}
