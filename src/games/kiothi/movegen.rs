//! Play-phase moves (RULES §2.4–2.9): generation, captures, prisons.

use std::ops::ControlFlow;

use crate::game::Side;

use super::position::{opposite, row_mask, row_start, KiothiPosition, Phase, PITS, ROW};
use super::sowing::{sow, Sown, Words};
use super::KiothiMove;

/// RULES §2.8: the enemy pits of the leftmost bonus (opposite the mover's
/// second, third and fourth pits): South 18, 17, 16; North 8, 7, 6.
#[inline]
fn bonus_mask(side: Side) -> u32 {
    match side {
        Side::South => (1 << 16) | (1 << 17) | (1 << 18),
        Side::North => (1 << 6) | (1 << 7) | (1 << 8),
    }
}

/// Why a play move is not legal (RULES §2.4–2.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayRefusal {
    /// Not in the play phase, or the pit is not the mover's.
    NotOwnPit,
    /// `count` is not in `1..=k`.
    BadCount,
    /// RULES §2.5: the last warrior of the first lap lands in this own occupied pit.
    FirstLap(u8),
    /// RULES §2.6: the relays never end.
    NeverEnds,
}

impl KiothiPosition {
    /// Applies the end of a move that ended in `end` (RULES §2.7–2.9).
    #[inline]
    pub(crate) fn finish(&self, board: Words, marks: u32, end: usize) -> KiothiPosition {
        let side = self.side;
        let mut pits = board.to_pits();
        let mut prisons = self.prisons;
        if row_mask(side) & (1 << end) != 0 {
            let mut captured = 0u32;
            // Rule 7: the opposite pit, if occupied and not protected.
            let opp = opposite(end);
            if pits[opp] > 0 && marks & (1 << opp) == 0 {
                captured += pits[opp] as u32;
                pits[opp] = 0;
            }
            // Rule 8 (Choice: judged on its own, not optional): all three
            // bonus pits occupied and none protected.
            if end == row_start(side) {
                let bonus = bonus_mask(side);
                if marks & bonus == 0 {
                    let base = opposite(end) - 3; // 16 for South, 6 for North
                    let (a, b, c) = (pits[base], pits[base + 1], pits[base + 2]);
                    if a > 0 && b > 0 && c > 0 {
                        captured += (a + b + c) as u32;
                        pits[base] = 0;
                        pits[base + 1] = 0;
                        pits[base + 2] = 0;
                    }
                }
            }
            // Rule 9: with any capture the ending warrior goes to prison too.
            if captured > 0 {
                debug_assert_eq!(pits[end], 1);
                captured += pits[end] as u32;
                pits[end] = 0;
                prisons[side.index()] += captured as u16;
            }
        }
        KiothiPosition {
            pits,
            protected: marks,
            side: side.other(),
            phase: Phase::Play,
            prisons,
            setup: self.setup,
        }
    }

    /// Plays `(pit, count)` in the play phase, or says why it is illegal.
    pub fn try_play(&self, pit: usize, count: u32) -> Result<KiothiPosition, PlayRefusal> {
        if self.phase != Phase::Play || pit >= PITS || row_mask(self.side) & (1 << pit) == 0 {
            return Err(PlayRefusal::NotOwnPit);
        }
        if count == 0 || count > self.pits[pit] as u32 {
            return Err(PlayRefusal::BadCount);
        }
        match sow(
            Words::from_pits(&self.pits),
            self.protected,
            self.side,
            pit,
            count,
        ) {
            Sown::End { board, marks, end } => Ok(self.finish(board, marks, end)),
            Sown::FirstLap(l) => Err(PlayRefusal::FirstLap(l as u8)),
            Sown::NeverEnds => Err(PlayRefusal::NeverEnds),
        }
    }

    /// Every legal play move with its child, pit increasing then count increasing.
    #[inline]
    pub(crate) fn for_each_play_child<F: FnMut(KiothiMove, KiothiPosition) -> ControlFlow<()>>(
        &self,
        mut f: F,
    ) -> ControlFlow<()> {
        let side = self.side;
        let board = Words::from_pits(&self.pits);
        let own = row_mask(side);
        let start = row_start(side);
        for pit in start..start + ROW {
            let k = self.pits[pit] as u32;
            for count in 1..=k {
                // Cheap first-lap refusal: a hand under 20 that lands in an
                // own pit other than the origin that was occupied before.
                if count < PITS as u32 {
                    let last = (pit + count as usize) % PITS;
                    if own & (1 << last) != 0 && self.pits[last] != 0 {
                        continue;
                    }
                }
                if let Sown::End { board, marks, end } =
                    sow(board, self.protected, side, pit, count)
                {
                    f(
                        KiothiMove::Play {
                            pit: pit as u8,
                            count: count as u8,
                        },
                        self.finish(board, marks, end),
                    )?;
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// Number of legal play moves.
    pub(crate) fn play_move_count(&self) -> u64 {
        let mut n = 0;
        let _ = self.for_each_play_child(|_, _| {
            n += 1;
            ControlFlow::Continue(())
        });
        n
    }
}
