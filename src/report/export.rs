//! The rows of `sow export`: every position of a solved Kpé variant with
//! its exact value, streamed as CSV.
//!
//! Columns ([`HEADER`]):
//! - `position`: RULES §3 notation, always quoted (it holds commas). The
//!   mover is South: the solver stores boards relative to the player to move
//!   (RULES §1, symmetry). Captures do not change a value (RULES §0) but the
//!   notation needs them to make up the total: unlocked positions split the
//!   captured stones as evenly as captures in 2s allow (South one pair more
//!   when the pairs are odd); in a locked position only an unlocked player
//!   can have captured, so that player holds them all.
//! - `phase`: `unlocked` (both players unlocked: the endgame database) or
//!   `opening` (at least one player with an unset mark: the opening phase
//!   reachable from the start).
//! - `stones`: stones on the board.
//! - `value`: the exact future margin for the mover (RULES §0).
//! - `result`: `win`, `draw` or `loss` for the mover of what is still on
//!   the board: the sign of `value` (the captures above are notional).
//!
//! `--positions N` exports every board of the unlocked layer of N stones
//! (reachable or not, in the database's rank order); `all` exports every
//! unlocked layer, smallest first, then the locked positions of the start's
//! region by stone count. Rows are written as they are produced, through one
//! reused buffer: memory stays constant whatever the size of the export.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

use thiserror::Error;

use crate::error::{CliError, ErrorKind};
use crate::games::kpe::{KpePosition, KpeVariant};
use crate::infra::progress::Progress;
use crate::kpe_db::entry::entry_value;
use crate::kpe_db::Solution;
use crate::{Game, Side};

/// The CSV header line.
pub const HEADER: &str = "position,phase,stones,value,result\n";

/// Output is handed to the writer in chunks of about this many bytes.
const CHUNK: usize = 1 << 20;

/// Which positions to export.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selection {
    /// The unlocked layer of this many stones on the board.
    Layer(usize),
    /// Every unlocked layer, then the locked region of the start.
    All,
}

/// A selection that names no layer of the variant; each message ends with
/// the layers there are.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SelectionError {
    #[error("`{0}`: expected a layer (stones on the board) or `all`; {1}")]
    NotALayer(String, Layers),
    #[error("{0} is out of range: {1}")]
    OutOfRange(usize, Layers),
    #[error("{0} is odd: captures take 2 or 4 stones, so {1}")]
    Odd(usize, Layers),
}

/// The unlocked layers of a variant, as a refusal names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layers(KpeVariant);

impl std::fmt::Display for Layers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (tag, total) = (self.0.tag(), self.0.total());
        write!(
            f,
            "the unlocked layers of {tag} are the even stone counts 0, 2, ..., {total}"
        )
    }
}

impl Selection {
    /// `text`: an even stone count of `variant`'s board, or `all`.
    pub fn parse(variant: KpeVariant, text: &str) -> Result<Selection, SelectionError> {
        let layers = Layers(variant);
        if text == "all" {
            return Ok(Selection::All);
        }
        let n: usize = text
            .parse()
            .map_err(|_| SelectionError::NotALayer(text.to_string(), layers))?;
        match n {
            n if n > variant.total() as usize => Err(SelectionError::OutOfRange(n, layers)),
            n if n % 2 == 1 => Err(SelectionError::Odd(n, layers)),
            n => Ok(Selection::Layer(n)),
        }
    }
}

/// `sow export --out FILE --json`: what was written.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ExportSummary {
    pub format: String,
    pub game: String,
    pub out: String,
    /// The `--positions` selection.
    pub positions: String,
    pub rows: u64,
    pub variant: String,
}

/// Writes every selected row to `w`; returns the number of rows.
pub fn export(
    solution: &Solution,
    selection: Selection,
    progress: Progress,
    w: &mut dyn Write,
    stop: Option<&AtomicBool>,
) -> Result<u64, CliError> {
    let eg = &solution.eg;
    let layers: Vec<usize> = match selection {
        Selection::Layer(n) => vec![n],
        Selection::All => eg.layers().collect(),
    };
    let mut len: u64 = layers.iter().map(|&n| eg.index.layer_size(n)).sum();
    if selection == Selection::All {
        len += solution.start_region().len() as u64;
    }
    let bar = progress.bar(len, "export");
    let mut rows = RowWriter::new(solution.variant(), w, stop, &bar);
    rows.header()?;
    for n in layers {
        export_layer(solution, n, &mut rows)?;
    }
    if selection == Selection::All {
        export_region(solution, &mut rows)?;
    }
    rows.finish()?;
    bar.finish_and_clear();
    Ok(rows.count)
}

/// Every board of unlocked layer `n`, in rank order, with its value.
fn export_layer(solution: &Solution, n: usize, rows: &mut RowWriter) -> Result<(), CliError> {
    let index = &solution.eg.index;
    let values = solution.layer_entries(n)?;
    let pits = index.pits();
    let mut board = [0u8; 16];
    index.unrank(n, 0, &mut board[..pits]);
    let all = rows.variant.all_marks();
    let captured = rows.variant.total() as usize - n;
    let half = captured / 2;
    let split = if half.is_multiple_of(2) {
        [half, half]
    } else {
        [half + 1, half - 1]
    };
    for (i, &v) in values.iter().enumerate() {
        if i > 0 {
            index.next(&mut board[..pits]);
        }
        rows.row(
            &board[..pits],
            [all, all],
            split,
            "unlocked",
            n,
            entry_value(v),
        )?;
    }
    Ok(())
}

/// The locked positions of the start's region, by stone count.
fn export_region(solution: &Solution, rows: &mut RowWriter) -> Result<(), CliError> {
    solution
        .start_region()
        .for_each(|pos, e| region_row(rows, pos, entry_value(e)))
}

/// One locked position (mover as South).
fn region_row(rows: &mut RowWriter, pos: &KpePosition, value: i8) -> Result<(), CliError> {
    let v = rows.variant;
    let marks = [pos.marks(Side::South), pos.marks(Side::North)];
    let stones = pos.board_total() as usize;
    let captured = v.total() as usize - stones;
    // Only an unlocked player captures (RULES §1.2-1.3); a locked region
    // position has at most one unlocked player.
    let split = if marks[0] == v.all_marks() {
        [captured, 0]
    } else {
        [0, captured]
    };
    rows.row(pos.pits(), marks, split, "opening", stones, value)
}

/// Formats rows into one reused buffer and hands it over in chunks.
///
/// Hand-written rather than the `csv` crate (which every other CSV of the
/// project uses): the standard game exports 909,730,957 rows, and on this
/// machine writing 5 million rows of this shape to a sink took 2.6-2.9 s
/// this way against 4.8-7.6 s through `csv::Writer::write_record` with the
/// same preformatted fields (3 runs each, 2 cores shared with other jobs,
/// so noisy; the crate scans every field for characters to quote): 1.7 to
/// 2.9 times slower, several minutes more for a full export. The format is
/// fixed and simple (one quoted field, no quote inside), and
/// `tests/export.rs` reads the output back with the `csv` crate.
struct RowWriter<'a> {
    variant: KpeVariant,
    tag: Vec<u8>,
    w: &'a mut dyn Write,
    buf: Vec<u8>,
    stop: Option<&'a AtomicBool>,
    bar: &'a indicatif::ProgressBar,
    pending: u64,
    count: u64,
}

impl<'a> RowWriter<'a> {
    fn new(
        variant: KpeVariant,
        w: &'a mut dyn Write,
        stop: Option<&'a AtomicBool>,
        bar: &'a indicatif::ProgressBar,
    ) -> Self {
        RowWriter {
            variant,
            tag: variant.tag().into_bytes(),
            w,
            buf: Vec::with_capacity(CHUNK + 1024),
            stop,
            bar,
            pending: 0,
            count: 0,
        }
    }

    fn header(&mut self) -> Result<(), CliError> {
        self.buf.extend_from_slice(HEADER.as_bytes());
        Ok(())
    }

    /// One row: the position (mover South) and its value.
    #[inline]
    fn row(
        &mut self,
        board: &[u8],
        marks: [u8; 2],
        captured: [usize; 2],
        phase: &str,
        stones: usize,
        value: i8,
    ) -> Result<(), CliError> {
        let b = &mut self.buf;
        b.push(b'"');
        b.extend_from_slice(&self.tag);
        b.push(b' ');
        for (i, &c) in board.iter().enumerate() {
            if i > 0 {
                b.push(b',');
            }
            push_number(b, c as usize);
        }
        b.extend_from_slice(b" S ");
        push_marks(b, marks[0], self.variant.w());
        b.push(b' ');
        push_marks(b, marks[1], self.variant.w());
        b.push(b' ');
        push_number(b, captured[0]);
        b.push(b' ');
        push_number(b, captured[1]);
        b.extend_from_slice(b"\",");
        b.extend_from_slice(phase.as_bytes());
        b.push(b',');
        push_number(b, stones);
        b.push(b',');
        if value < 0 {
            b.push(b'-');
        }
        push_number(b, value.unsigned_abs() as usize);
        b.extend_from_slice(match value.signum() {
            1 => b",win\n".as_slice(),
            0 => b",draw\n",
            _ => b",loss\n",
        });
        self.pending += 1;
        if self.buf.len() >= CHUNK {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), CliError> {
        if self.stop.is_some_and(|s| s.load(Ordering::SeqCst)) {
            return Err(CliError::new(
                ErrorKind::Interrupted,
                None,
                "interrupted (Ctrl-C)",
            ));
        }
        self.w.write_all(&self.buf)?;
        self.buf.clear();
        self.bar.inc(self.pending);
        self.count += self.pending;
        self.pending = 0;
        Ok(())
    }

    fn finish(&mut self) -> Result<(), CliError> {
        self.flush()?;
        self.w.flush()?;
        Ok(())
    }
}

/// Decimal digits of a small number (below 1000: pit counts, stones, values).
#[inline]
fn push_number(b: &mut Vec<u8>, n: usize) {
    debug_assert!(n < 1000);
    if n >= 100 {
        b.push(b'0' + (n / 100) as u8);
    }
    if n >= 10 {
        b.push(b'0' + (n / 10 % 10) as u8);
    }
    b.push(b'0' + (n % 10) as u8);
}

/// RULES §3 marks: `x` set, `.` unset, in pit order.
#[inline]
fn push_marks(b: &mut Vec<u8>, bits: u8, w: usize) {
    for i in 0..w {
        b.push(if bits & (1 << i) != 0 { b'x' } else { b'.' });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_in_decimal() {
        let mut b = Vec::new();
        for n in [0, 7, 10, 48, 99, 100, 128, 255] {
            b.clear();
            push_number(&mut b, n);
            assert_eq!(String::from_utf8(b.clone()).unwrap(), n.to_string());
        }
    }
}
