//! A position's value from the tables, and the tables as the searches
//! take exact values (`search::ExactValues`).

use super::tables::{seen_from, KiothiEndgames};
use crate::games::kiothi::{KiothiPosition, Phase};

impl KiothiEndgames {
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
