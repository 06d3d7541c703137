//! Kiothi endgame tables: the exact value (RULES §0: the future margin for
//! the player to move) of every play-phase position with at most N warriors
//! on the board and no protected pit, by retrograde analysis, one stone
//! count at a time, fewest stones first.
//!
//! # What a table holds
//! A position's value does not depend on the prisons (RULES §0 counts only
//! what is still to be captured), and the game is the same seen from either
//! side: turned by ten pits (pit `i` to `i + 10 mod 20`), North's row, its
//! leftmost pit and its bonus pits (RULES §2.7–2.8) are South's. So a table
//! keeps one signed byte per board of its stone count, *seen from the
//! mover* (the mover's row first), in the order of [`BoardIndex`].
//!
//! Protection marks are only ever cleared (RULES §2.3), so a position with
//! no mark has children with no mark: the tables are closed under play. Late
//! positions of real games have lost their marks long before (every engine
//! game of `results/kiothi/games/` had none in its last 24 plies); a
//! position that still has one is not in the tables, and the prover
//! searches it.
//!
//! # How a stone count is solved
//! A move that captures `g` warriors (the ending warrior included, RULES
//! §2.9) leads to a board of `n - g` stones, solved before: its value is
//! known at once, `g - V(child)`. A move that captures nothing stays among
//! the boards of `n` stones, and those moves may cycle. The count is solved
//! as Kpé's layers are (`retrograde.rs`), threshold by threshold from `n`
//! down to 1, over the explicit graph of its non-capturing moves (their
//! predecessors cannot be generated backwards through relays, RULES §2.6,
//! so the moves are generated forwards and inverted):
//!
//! - the mover reaches `t` if a capture is worth `t` or more, or a move
//!   leads to a board where the opponent is held to `-t` or less;
//! - the mover is held to `-t` if every capture is worth `-t` or less and
//!   every other move leads to a board where the opponent reaches `t`; a
//!   mover with no move at all (RULES §2.10) loses the `n` warriors left.
//!
//! Both sets only grow as `t` falls, so one counter per board (its moves
//! not yet known to reach `t` for the opponent) serves every threshold and
//! every edge is followed once. What no threshold decides is endless play
//! or an even split: 0 (RULES §0, endless play).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;
use thiserror::Error;

use crate::game::{Game, Side};
use crate::games::kiothi::{KiothiPosition, Phase, Setup, PITS, ROW};
use crate::infra::atomics::as_atomic_u32s;
use crate::infra::checksum::checksum;
use crate::infra::progress::ProgressBar;
use crate::retrograde::index::BoardIndex;

pub mod over_ranks;

/// The most warriors a table can cover: the move graph indexes its moves
/// with `u32`, and 15 warriors (1.9·10⁹ boards) have about 7·10⁹ of them.
pub const MAX_STONES: usize = 14;

/// No capture among a board's moves.
const NO_CAPTURE: i8 = i8::MIN;

/// Boards per work unit of the move generation.
const CHUNK: usize = 1 << 14;

/// The first bytes of a table file.
const MAGIC: &[u8; 8] = b"SOWKTHI1";
/// Magic, stone count, entries, checksum of the payload.
const HEADER: usize = 8 + 8 + 8 + 8;

/// Errors of the endgame table files; each names the file.
#[derive(Debug, Error)]
pub enum EndgameError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a Kiothi endgame table of {stones} stones: {what}; delete it and rebuild it with `sow solve kiothi --stones {stones}`")]
    Corrupt {
        path: PathBuf,
        stones: usize,
        what: String,
    },
}

/// The file of the table of `stones` warriors in the database directory.
pub fn table_path(db: &Path, stones: usize) -> PathBuf {
    db.join("kiothi-endgame")
        .join(format!("stones-{stones:02}.sowdb"))
}

/// What solving one stone count found.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LayerReport {
    pub stones: usize,
    pub boards: u64,
    /// Moves that capture nothing (the edges of the retrograde's graph).
    pub non_capturing_moves: u64,
    /// Boards whose mover gains (value > 0), splits evenly, loses.
    pub mover_gains: u64,
    pub even: u64,
    pub mover_loses: u64,
    pub seconds: f64,
}

/// The tables of every stone count from 0 to `max_stones()`.
#[derive(Debug)]
pub struct KiothiEndgames {
    index: BoardIndex,
    /// `layers[n].values()[rank]`: the value for the mover of the board of
    /// `n` stones of that rank, seen from the mover.
    layers: Vec<Layer>,
}

/// The values of one stone count: solved in this process, or a table
/// file mapped into memory (read in place: a proof starts without
/// copying 1.4 GB of tables first).
#[derive(Debug)]
enum Layer {
    Solved(Vec<i8>),
    Mapped(memmap2::Mmap),
}

impl Layer {
    fn values(&self) -> &[i8] {
        match self {
            Layer::Solved(v) => v,
            // SAFETY: i8 and u8 have the same size and alignment, every
            // bit pattern is valid for both.
            Layer::Mapped(map) => unsafe {
                let payload = &map[HEADER..];
                std::slice::from_raw_parts(payload.as_ptr().cast(), payload.len())
            },
        }
    }
}

/// The board seen from `side`: that side's row first.
fn seen_from(pits: &[u8; PITS], side: Side) -> [u8; PITS] {
    match side {
        Side::South => *pits,
        Side::North => std::array::from_fn(|i| pits[(i + ROW) % PITS]),
    }
}

impl KiothiEndgames {
    /// No table: every lookup misses.
    pub fn empty() -> Self {
        Self::from_layers(Vec::new())
    }

    fn from_layers(layers: Vec<Layer>) -> Self {
        KiothiEndgames {
            index: BoardIndex::new(PITS, MAX_STONES),
            layers,
        }
    }

    /// Boards of `n` stones (one side to move).
    pub fn layer_size(n: usize) -> u64 {
        BoardIndex::new(PITS, MAX_STONES).layer_size(n)
    }

    /// Peak memory of solving the boards of `n` warriors, in bytes: its
    /// move graph (4 bytes a non-capturing move, 7 a board) and the tables
    /// below it. Non-capturing moves per board,
    /// measured: 2.71 (10 warriors), 2.84 (11), 2.97 (12), 3.09 (13);
    /// `0.2 n + 0.8` stays above them. Peak RSS of 13 warriors: 6.75 GiB
    /// measured, 6.9 GiB estimated.
    pub fn memory_estimate(n: usize) -> u64 {
        let boards = Self::layer_size(n);
        let moves = boards * (2 * n as u64 + 8) / 10;
        let below: u64 = (0..n).map(Self::layer_size).sum();
        4 * moves + 7 * boards + below
    }

    /// How many stone counts are covered (0 to `stone_counts() - 1`): the
    /// next count to solve.
    pub fn stone_counts(&self) -> usize {
        self.layers.len()
    }

    /// The largest stone count covered; `None` with no table.
    pub fn max_stones(&self) -> Option<usize> {
        self.layers.len().checked_sub(1)
    }

    /// The exact value of `pos` for its mover, if the tables cover it
    /// (play phase, no protected pit, few enough warriors).
    #[inline]
    pub fn value(&self, pos: &KiothiPosition) -> Option<i32> {
        if pos.protected() != 0 || pos.phase() != Phase::Play {
            return None;
        }
        let n = pos.board_sum() as usize;
        let layer = self.layers.get(n)?.values();
        let board = seen_from(&pos.pits(), pos.side());
        Some(layer[self.index.rank_in_layer(&board, n) as usize] as i32)
    }

    /// Solves the next stone count (one more than the largest covered),
    /// at most [`MAX_STONES`]; `bar` counts its boards.
    pub fn solve_next(&mut self, bar: &ProgressBar) -> LayerReport {
        let n = self.layers.len();
        assert!(n <= MAX_STONES, "{n} stones");
        let t0 = std::time::Instant::now();
        let graph = self.move_graph(n, bar);
        let moves = graph.parents.len() as u64;
        let layer = graph.solve(n);
        let count = |f: fn(i8) -> bool| layer.iter().filter(|&&v| f(v)).count() as u64;
        let report = LayerReport {
            stones: n,
            boards: layer.len() as u64,
            non_capturing_moves: moves,
            mover_gains: count(|v| v > 0),
            even: count(|v| v == 0),
            mover_loses: count(|v| v < 0),
            seconds: t0.elapsed().as_secs_f64(),
        };
        self.layers.push(Layer::Solved(layer));
        report
    }

    /// Every board of `n` stones with its moves: the best capture and the
    /// boards its other moves lead to, inverted. The moves are generated
    /// twice, once to count each board's parents and once to list them,
    /// rather than kept between the two: 4 bytes a move instead of 8
    /// (measured on 13 warriors: 12.4 GiB kept, see results/BENCHMARKS.md).
    fn move_graph(&self, n: usize, bar: &ProgressBar) -> MoveGraph {
        let size = self.index.layer_size(n) as usize;
        bar.set_length(2 * size as u64);
        let mut best = vec![0i8; size];
        let mut degree = vec![0u8; size];
        // Each board's number of parents, then (prefix sums) where its
        // parents start, then (as they are listed) where they end.
        let mut ends = vec![0u32; size];
        let counts = as_atomic_u32s(&mut ends);
        best.par_chunks_mut(CHUNK)
            .zip(degree.par_chunks_mut(CHUNK))
            .enumerate()
            .for_each(|(c, (best, degree))| {
                self.for_each_board(n, c * CHUNK, best.len(), |i, children, b| {
                    best[i] = b.0;
                    degree[i] = b.1;
                    for &child in children {
                        counts[child as usize].fetch_add(1, Relaxed);
                    }
                });
                bar.inc(best.len() as u64);
            });
        let mut total = 0u64;
        for e in ends.iter_mut() {
            let here = *e as u64;
            *e = total as u32;
            total += here;
        }
        assert!(total < u32::MAX as u64, "{total} moves in one stone count");
        let mut parents = vec![0u32; total as usize];
        let cursor = as_atomic_u32s(&mut ends);
        let slots = as_atomic_u32s(&mut parents);
        (0..size.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
            let first = c * CHUNK;
            let len = CHUNK.min(size - first);
            self.for_each_board(n, first, len, |i, children, _| {
                for &child in children {
                    let slot = cursor[child as usize].fetch_add(1, Relaxed);
                    slots[slot as usize].store((first + i) as u32, Relaxed);
                }
            });
            bar.inc(len as u64);
        });
        MoveGraph {
            best,
            degree,
            ends,
            parents,
        }
    }

    /// Calls `visit(i, children, (best, degree))` for the `len` boards of
    /// `n` stones from rank `first` on, `i` counted from `first`, with the
    /// ranks of their non-capturing moves' children ([`Self::board_moves`]).
    fn for_each_board(
        &self,
        n: usize,
        first: usize,
        len: usize,
        mut visit: impl FnMut(usize, &[u32], (i8, u8)),
    ) {
        let mut pits = [0u8; PITS];
        let mut children = Vec::new();
        self.index.unrank(n, first as u64, &mut pits);
        for i in 0..len {
            children.clear();
            let moves = self.board_moves(n, &pits, &mut children);
            visit(i, &children, moves);
            self.index.next(&mut pits);
        }
    }

    /// One board's moves (South to move): its best capture value
    /// ([`NO_CAPTURE`] if none; `-n` with no move at all, RULES §2.10) and
    /// how many non-capturing moves it has, whose children's ranks (seen
    /// from North, the next mover) are pushed on `children`.
    fn board_moves(&self, n: usize, pits: &[u8; PITS], children: &mut Vec<u32>) -> (i8, u8) {
        let pos = KiothiPosition {
            pits: *pits,
            protected: 0,
            side: Side::South,
            phase: Phase::Play,
            prisons: [0, 0],
            // The setup only fixes the game's total, which no value here
            // depends on.
            setup: Setup::SixPit,
        };
        let mut best = NO_CAPTURE;
        let mut degree = 0u8;
        let _ = pos.for_each_child(|_, child| {
            debug_assert_eq!(child.protected(), 0);
            let view = seen_from(&child.pits(), Side::North);
            let rank = self.index.rank(&view);
            let gain = child.prisons()[0] as usize;
            if gain == 0 {
                children.push(rank as u32);
                degree += 1;
            } else {
                let v = gain as i32 - self.layers[n - gain].values()[rank as usize] as i32;
                best = best.max(v as i8);
            }
            std::ops::ControlFlow::Continue(())
        });
        if degree == 0 && best == NO_CAPTURE {
            best = -(n as i8);
        }
        (best, degree)
    }

    /// Reads the tables of 0 to `max_stones` warriors from `db` (fewer if
    /// some are missing: the counts from 0 up to the first missing one).
    pub fn load(db: &Path, max_stones: usize) -> Result<Self, EndgameError> {
        let mut layers = Vec::new();
        for n in 0..=max_stones.min(MAX_STONES) {
            let path = table_path(db, n);
            if !path.exists() {
                break;
            }
            layers.push(read_layer(&path, n)?);
        }
        Ok(Self::from_layers(layers))
    }

    /// Writes the table of `n` stones into `db`, whole under a temporary
    /// name, then renamed.
    pub fn save_layer(&self, db: &Path, n: usize) -> Result<(), EndgameError> {
        let layer = self.layers[n].values();
        let payload: &[u8] = bytes_of(layer);
        let mut header = Vec::with_capacity(HEADER);
        header.extend_from_slice(MAGIC);
        header.extend_from_slice(&(n as u64).to_le_bytes());
        header.extend_from_slice(&(layer.len() as u64).to_le_bytes());
        header.extend_from_slice(&checksum(payload).to_le_bytes());
        debug_assert_eq!(header.len(), HEADER);
        crate::infra::files::write_atomic_parts(&table_path(db, n), &[&header, payload]).map_err(
            |e| EndgameError::Io {
                path: e.path,
                source: e.source,
            },
        )
    }
}

fn bytes_of(values: &[i8]) -> &[u8] {
    // SAFETY: i8 and u8 have the same size and alignment, every bit
    // pattern is valid for both.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast(), values.len()) }
}

/// One table file, mapped and checked: its magic, stone count, length and
/// checksum.
fn read_layer(path: &Path, n: usize) -> Result<Layer, EndgameError> {
    let io = |source| EndgameError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    // SAFETY: table files are written whole under a temporary name and
    // renamed, never modified in place; the checksum below is checked on
    // the mapped bytes themselves.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
    let corrupt = |what: String| EndgameError::Corrupt {
        path: path.to_path_buf(),
        stones: n,
        what,
    };
    if map.len() < HEADER || &map[..8] != MAGIC {
        return Err(corrupt("no table header".into()));
    }
    let word = |i: usize| u64::from_le_bytes(map[8 * i..8 * i + 8].try_into().expect("8 bytes"));
    let expected = KiothiEndgames::layer_size(n);
    if word(1) != n as u64 {
        return Err(corrupt(format!("its header says {} stones", word(1))));
    }
    if word(2) != expected || (map.len() - HEADER) as u64 != expected {
        return Err(corrupt(format!(
            "{} entries in a file of {} bytes, {expected} expected",
            word(2),
            map.len()
        )));
    }
    if checksum(&map[HEADER..]) != word(3) {
        return Err(corrupt("checksum mismatch".into()));
    }
    Ok(Layer::Mapped(map))
}

/// The boards of one stone count: each one's best capture, its number of
/// non-capturing moves, and those moves inverted (who leads to whom).
struct MoveGraph {
    best: Vec<i8>,
    degree: Vec<u8>,
    /// `parents[ends[c - 1]..ends[c]]` (from 0 for the first board): the
    /// boards with a non-capturing move to `c`, once per such move.
    ends: Vec<u32>,
    parents: Vec<u32>,
}

impl MoveGraph {
    fn parents_of(&self, c: usize) -> &[u32] {
        let start = if c == 0 { 0 } else { self.ends[c - 1] };
        &self.parents[start as usize..self.ends[c] as usize]
    }

    /// The value of every board of `n` stones (module doc: thresholds from
    /// `n` down to 1, one counter per board for all of them).
    fn solve(mut self, n: usize) -> Vec<i8> {
        const OPEN: i8 = i8::MIN;
        let size = self.best.len();
        let mut value = vec![OPEN; size];
        // Moves of each board not yet known to lead where the opponent
        // reaches the current threshold (the degrees, counted down).
        let mut left = std::mem::take(&mut self.degree);
        let mut queue = VecDeque::new();
        for t in (1..=n as i8).rev() {
            for p in 0..size {
                if value[p] != OPEN {
                    continue;
                }
                let best = self.best[p];
                if best == t {
                    value[p] = t;
                    queue.push_back(p as u32);
                } else if best == -t && left[p] == 0 {
                    value[p] = -t;
                    queue.push_back(p as u32);
                }
            }
            while let Some(c) = queue.pop_front() {
                let c = c as usize;
                let child_reaches = value[c] > 0;
                for &p in self.parents_of(c) {
                    let p = p as usize;
                    if value[p] != OPEN {
                        continue;
                    }
                    if !child_reaches {
                        // A move to a board where the opponent is held to -t.
                        value[p] = t;
                        queue.push_back(p as u32);
                    } else {
                        left[p] -= 1;
                        if left[p] == 0 && self.best[p] <= -t {
                            value[p] = -t;
                            queue.push_back(p as u32);
                        }
                    }
                }
            }
        }
        for v in &mut value {
            if *v == OPEN {
                *v = 0;
            }
        }
        value
    }
}

impl crate::search::ExactValues<KiothiPosition> for KiothiEndgames {
    fn exact_value(&self, pos: &KiothiPosition) -> Option<i32> {
        self.value(pos)
    }

    fn distance(&self, pos: &KiothiPosition) -> u32 {
        self.max_stones()
            .map_or(0, |m| pos.board_sum().saturating_sub(m as u32))
    }

    fn endgame_stones(&self) -> Option<usize> {
        self.max_stones()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tables(stones: usize) -> KiothiEndgames {
        let mut t = KiothiEndgames::empty();
        while t.max_stones() != Some(stones) {
            t.solve_next(&ProgressBar::hidden());
        }
        t
    }

    #[test]
    fn files_round_trip_and_damage_is_refused() {
        let dir = std::env::temp_dir().join(format!("sow-kiothi-tables-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let t = tables(4);
        for n in 0..=4 {
            t.save_layer(&dir, n).unwrap();
        }
        let back = KiothiEndgames::load(&dir, 14).unwrap();
        assert_eq!(back.max_stones(), Some(4));
        for n in 0..=4 {
            assert_eq!(back.layers[n].values(), t.layers[n].values());
        }
        // Asked for fewer: only those.
        assert_eq!(KiothiEndgames::load(&dir, 2).unwrap().max_stones(), Some(2));

        let path = table_path(&dir, 3);
        let good = std::fs::read(&path).unwrap();
        let damaged = |bytes: Vec<u8>, says: &str| {
            std::fs::write(&path, bytes).unwrap();
            let e = KiothiEndgames::load(&dir, 4).unwrap_err().to_string();
            assert!(e.contains("stones-03.sowdb") && e.contains(says), "{e}");
        };
        damaged(good[..good.len() - 1].to_vec(), "entries");
        damaged(b"not a table".to_vec(), "header");
        let mut flipped = good.clone();
        flipped[HEADER + 5] ^= 0x40;
        damaged(flipped, "checksum");
        let mut other_count = good.clone();
        other_count[8] = 4;
        damaged(other_count, "4 stones");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn both_sides_read_the_same_table() {
        // A board and the same board turned by ten pits with the other
        // side to move are the same position for the mover.
        let t = tables(5);
        let mut rng = crate::infra::rng::Rng::new(3);
        for _ in 0..200 {
            let mut pits = [0u8; PITS];
            for _ in 0..1 + rng.below(5) {
                pits[rng.below(PITS)] += 1;
            }
            let south = KiothiPosition {
                pits,
                protected: 0,
                side: Side::South,
                phase: Phase::Play,
                prisons: [0, 0],
                setup: Setup::SixPit,
            };
            let north = KiothiPosition {
                pits: std::array::from_fn(|i| pits[(i + ROW) % PITS]),
                side: Side::North,
                ..south
            };
            assert_eq!(t.value(&south), t.value(&north), "{south}");
            assert!(t.value(&south).is_some());
        }
    }
}
