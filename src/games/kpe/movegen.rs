//! Legal moves (RULES §1.4–1.5) and the `Game` implementation.

use std::ops::ControlFlow;

use super::position::{KpeMove, KpePosition};
use crate::error::InputError;
use crate::game::{Game, Side};

impl KpePosition {
    /// Bit `i` set: the mover may lift its `i`-th pit.
    ///
    /// RULES §1.4: when the opponent's row is empty, only moves that reach it
    /// are legal, unless none does. §1.5: an empty own row has no move.
    #[inline]
    pub fn legal_mask(&self) -> u32 {
        let w = self.variant.w();
        let start = self.row_start(self.side);
        let mut any = 0u32;
        let mut feeding = 0u32;
        for i in 0..w {
            let c = self.pits[start + i] as usize;
            if c > 0 {
                any |= 1 << i;
                if c >= w - i {
                    feeding |= 1 << i;
                }
            }
        }
        // Only when some move does not feed does the opponent's row matter.
        if feeding != 0 && feeding != any && self.row_total(self.side.other()) == 0 {
            feeding
        } else {
            any
        }
    }

    fn explain_illegal(&self, pit: usize) -> String {
        let w = self.variant.w();
        let start = self.row_start(self.side);
        let side = self.side;
        if self.legal_mask() == 0 {
            return "the game is over: the player to move has no stones".to_string();
        }
        if !(start..start + w).contains(&pit) {
            return format!(
                "pit {pit} is not in {side:?}'s row ({start}-{})",
                start + w - 1
            );
        }
        if self.pits[pit] == 0 {
            return format!("pit {pit} is empty");
        }
        format!(
            "the opponent's row is empty and pit {pit} does not reach it (feeding rule, RULES 1.4); legal: {}",
            self.legal_moves().iter().map(|m| m.to_string()).collect::<Vec<_>>().join(",")
        )
    }
}

impl Game for KpePosition {
    type Move = KpeMove;

    fn side_to_move(&self) -> Side {
        self.side
    }

    #[inline]
    fn for_each_move<F: FnMut(KpeMove) -> ControlFlow<()>>(&self, mut f: F) -> ControlFlow<()> {
        let start = self.row_start(self.side);
        let mut mask = self.legal_mask();
        while mask != 0 {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            f(KpeMove((start + i) as u8))?;
        }
        ControlFlow::Continue(())
    }

    #[inline]
    fn play_unchecked(&self, mv: &KpeMove) -> Self {
        self.sow(mv.pit()).0
    }

    fn parse_move(&self, text: &str) -> Result<KpeMove, InputError> {
        let pit: usize = text.trim().parse().map_err(|_| {
            InputError::malformed("move", format!("expected a pit number, found `{text}`"))
        })?;
        let start = self.row_start(self.side);
        let legal = pit >= start
            && pit < start + self.variant.w()
            && self.legal_mask() & (1 << (pit - start)) != 0;
        if legal {
            Ok(KpeMove(pit as u8))
        } else {
            Err(InputError::illegal(text, self.explain_illegal(pit)))
        }
    }

    fn captured(&self) -> [u32; 2] {
        [self.captured[0] as u32, self.captured[1] as u32]
    }

    /// RULES §1.5: stones left on the board go to the side they lie on.
    fn final_sweep(&self) -> [u32; 2] {
        [self.row_total(Side::South), self.row_total(Side::North)]
    }

    fn board_total(&self) -> u32 {
        self.pits().iter().map(|&c| c as u32).sum()
    }

    fn repetition_key(&self) -> Self {
        KpePosition {
            captured: [0; 2],
            ..*self
        }
    }

    #[inline]
    fn move_count(&self) -> u64 {
        self.legal_mask().count_ones() as u64
    }

    fn is_over(&self) -> bool {
        self.legal_mask() == 0
    }
}
