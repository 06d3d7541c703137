//! The text of `sow openings kiothi --scan` and of a book build.

use crate::analysis::opening_book::BookRun;
use crate::book::Scan;

/// The scan's counts and speed, then its best first moves with their scores.
pub fn scan_text(scan: &Scan) -> Vec<String> {
    let rate = scan.boards as f64 / scan.seconds.max(1e-9) / 1e6;
    let mut lines = vec![format!(
        "{} first moves, {} distinct boards, scored by {} in {:.1} s ({rate:.1} M boards/s)",
        scan.moves, scan.boards, scan.evaluator, scan.seconds
    )];
    lines.extend(
        scan.best
            .iter()
            .map(|m| format!("{:+8.2}  {}", m.score, m.mv)),
    );
    lines
}

/// What the build did, the start's value and its best book moves.
pub fn run_text(r: &BookRun) -> Vec<String> {
    let mut lines = vec![
        format!(
            "book {}: {} positions (+{}), {} expansions (+{}), {} bytes; stopped: {}",
            r.book,
            r.positions,
            r.added_positions,
            r.expansions,
            r.added_expansions,
            r.file_bytes,
            r.stopped
        ),
        format!(
            "start value {:+} for South (book depth {}, {} first moves in the book)",
            r.value, r.depth, r.moves
        ),
    ];
    lines.extend(
        r.best
            .iter()
            .map(|m| format!("{:+4}  depth {:3}  {}", m.value, m.depth, m.mv)),
    );
    lines
}
