//! Kiothi (RULES §2): position, sowing, move generation, opening and notation.

mod movegen;
mod notation;
mod opening;
mod opening_count;
mod position;
mod sowing;

#[cfg(test)]
mod tests;

use std::ops::ControlFlow;

use crate::error::InputError;
use crate::game::{Game, Side};

pub use movegen::PlayRefusal;
pub use notation::{parse_position, KiothiSetup};
pub use opening::{placements, OpeningMove};
pub use position::{
    opposite, owner, row_mask, row_start, KiothiPosition, Phase, Setup, ALL_PITS, PITS, ROW,
};
pub(crate) use sowing::Words;
pub use sowing::MAX_LAPS;

/// A Kiothi move; `Display` writes RULES §3 notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KiothiMove {
    /// Turn 3 on: lift `count` warriors from `pit` (`7x3`).
    Play { pit: u8, count: u8 },
    /// Turn 1 or 2: the redistribution (`4+5>0,0,1,…`).
    Opening(OpeningMove),
}

impl KiothiPosition {
    /// Plays `mv` if it is legal here, `None` otherwise.
    pub fn play_move(&self, mv: &KiothiMove) -> Option<KiothiPosition> {
        match mv {
            KiothiMove::Play { pit, count } => self.try_play(*pit as usize, *count as u32).ok(),
            KiothiMove::Opening(m) => {
                self.check_opening(m).ok()?;
                Some(self.play_opening(m))
            }
        }
    }
}

impl Game for KiothiPosition {
    type Move = KiothiMove;

    fn side_to_move(&self) -> Side {
        self.side
    }

    fn for_each_move<F: FnMut(KiothiMove) -> ControlFlow<()>>(&self, mut f: F) -> ControlFlow<()> {
        match self.phase {
            Phase::Opening => self.for_each_opening_move(|m| f(KiothiMove::Opening(m))),
            Phase::Play => self.for_each_play_child(|m, _| f(m)),
        }
    }

    fn play_unchecked(&self, mv: &KiothiMove) -> KiothiPosition {
        match mv {
            KiothiMove::Opening(m) => self.play_opening(m),
            KiothiMove::Play { pit, count } => match self.try_play(*pit as usize, *count as u32) {
                Ok(p) => p,
                Err(e) => panic!("play_unchecked: illegal move {mv} ({e:?}) in {self}"),
            },
        }
    }

    fn parse_move(&self, text: &str) -> Result<KiothiMove, InputError> {
        self.parse_move_impl(text)
    }

    fn is_one_warrior_victory(&self, totals: [f64; 2]) -> bool {
        (totals[0] - totals[1]).abs() == 2.0 && self.is_over()
    }

    fn captured(&self) -> [u32; 2] {
        [self.prisons[0] as u32, self.prisons[1] as u32]
    }

    /// RULES §2.10: every warrior on the board goes to the prison of the
    /// player not to move.
    fn final_sweep(&self) -> [u32; 2] {
        let mut out = [0; 2];
        out[self.side.other().index()] = self.board_sum();
        out
    }

    fn board_total(&self) -> u32 {
        self.board_sum()
    }

    fn repetition_key(&self) -> KiothiPosition {
        KiothiPosition {
            prisons: [0, 0],
            ..*self
        }
    }

    /// The play-phase generator already sows each move: each is sown once.
    fn for_each_child<F: FnMut(KiothiMove, KiothiPosition) -> ControlFlow<()>>(
        &self,
        mut f: F,
    ) -> ControlFlow<()> {
        match self.phase {
            Phase::Opening => {
                self.for_each_opening_move(|m| f(KiothiMove::Opening(m), self.play_opening(&m)))
            }
            Phase::Play => self.for_each_play_child(f),
        }
    }

    /// Opening: combinatorial, C(n+19, 19) per lift set. Play: the legal
    /// moves, which must be sown to be known.
    fn move_count(&self) -> u64 {
        match self.phase {
            Phase::Opening => self.opening_move_count(),
            Phase::Play => self.play_move_count(),
        }
    }

    /// RULES §2.2 counted (see `opening_count`): depth 1 at either opening
    /// turn, depth 2 from turn 1, split by lift set (`4+5`, or `4` alone).
    fn perft_by_formula(&self, depth: u32) -> Option<Vec<(String, u64)>> {
        let split = self.opening_divide_by_formula(depth)?;
        Some(
            split
                .into_iter()
                .map(|(pits, n)| {
                    let label = pits.iter().map(u8::to_string).collect::<Vec<_>>();
                    (label.join("+"), n)
                })
                .collect(),
        )
    }

    /// Opening: the placement is unranked, not enumerated.
    fn nth_child(&self, index: u64) -> Option<KiothiPosition> {
        match self.phase {
            Phase::Opening => Some(self.play_opening(&self.nth_opening_move(index)?)),
            Phase::Play => crate::game::nth_child_by_enumeration(self, index),
        }
    }

    fn is_over(&self) -> bool {
        match self.phase {
            Phase::Opening => self.lift_sets().as_slice().is_empty(),
            Phase::Play => self
                .for_each_play_child(|_, _| ControlFlow::Break(()))
                .is_continue(),
        }
    }
}
