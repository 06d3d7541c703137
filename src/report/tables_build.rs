//! The text of `sow solve kiothi`: a line per stone count solved, then the
//! build's summary.

use crate::analysis::tables_build::TablesReport;
use crate::kiothi_tables::LayerReport;
use crate::report::over_ranks::ranks_line;

/// The line of a stone count, printed as soon as it is solved.
pub fn layer_line(r: &LayerReport) -> String {
    format!(
        "{:>2} stones: {:>11} boards, {:>12} non-capturing moves; mover gains {}, even {}, loses {}; {:.1} s",
        r.stones, r.boards, r.non_capturing_moves, r.mover_gains, r.even, r.mover_loses, r.seconds
    )
}

/// The build's summary (and, over MPI ranks, what the ranks did).
pub fn text(r: &TablesReport) -> Vec<String> {
    let mut lines = vec![format!(
        "Kiothi endgame tables of 0-{} warriors in {}: {} boards, {} bytes ({} stone counts reused, {} solved), {:.1} s",
        r.stones,
        r.dir,
        r.boards,
        r.bytes_on_disk,
        r.reused.len(),
        r.solved.len(),
        r.seconds
    )];
    lines.extend(r.ranks.as_ref().map(ranks_line));
    lines
}
