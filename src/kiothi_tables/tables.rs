//! The tables of every stone count from 0 to N: each solved in this
//! process or a table file mapped into memory (read in place: a proof
//! starts without copying 1.4 GB of tables first).

use std::path::Path;

use super::file::{self, table_path, EndgameError, HEADER};
use crate::game::Side;
use crate::games::kiothi::{PITS, ROW};
use crate::retrograde::index::BoardIndex;

/// The most warriors a table can cover: the move graph indexes its moves
/// with `u32`, and 15 warriors (1.9·10⁹ boards) have about 7·10⁹ of them.
pub const MAX_STONES: usize = 14;

/// The tables of every stone count from 0 to `max_stones()`.
#[derive(Debug)]
pub struct KiothiEndgames {
    pub(super) index: BoardIndex,
    /// `layers[n].values()[rank]`: the value for the mover of the board of
    /// `n` stones of that rank, seen from the mover.
    pub(super) layers: Vec<Layer>,
}

/// The values of one stone count: solved in this process, or its table
/// file mapped.
#[derive(Debug)]
pub(super) enum Layer {
    Solved(Vec<i8>),
    Mapped(memmap2::Mmap),
}

impl Layer {
    pub(super) fn values(&self) -> &[i8] {
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
pub(super) fn seen_from(pits: &[u8; PITS], side: Side) -> [u8; PITS] {
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

    /// How many stone counts are covered (0 to `stone_counts() - 1`): the
    /// next count to solve.
    pub fn stone_counts(&self) -> usize {
        self.layers.len()
    }

    /// The largest stone count covered; `None` with no table.
    pub fn max_stones(&self) -> Option<usize> {
        self.layers.len().checked_sub(1)
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
            let map = file::read(&path, n, Self::layer_size(n))?;
            layers.push(Layer::Mapped(map));
        }
        Ok(Self::from_layers(layers))
    }

    /// Writes the table of `n` stones into `db`, whole under a temporary
    /// name, then renamed.
    pub fn save_layer(&self, db: &Path, n: usize) -> Result<(), EndgameError> {
        file::write(db, n, self.layers[n].values())
    }
}
