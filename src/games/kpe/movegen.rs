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
        let (any, feeding, opponent_empty) = if self.variant.total() < 128 {
            self.row_masks_swar()
        } else {
            self.row_masks_loop()
        };
        // Only when some move does not feed does the opponent's row matter.
        if feeding != 0 && feeding != any && opponent_empty {
            feeding
        } else {
            any
        }
    }

    /// (non-empty own pits, own pits whose stones reach the opponent's
    /// row, opponent's row empty), one pit at a time.
    fn row_masks_loop(&self) -> (u32, u32, bool) {
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
        (any, feeding, self.row_total(self.side.other()) == 0)
    }

    /// The same as [`Self::row_masks_loop`], all pits of a row at once as
    /// the bytes of one word; valid while no pit can hold 128 stones.
    #[inline]
    fn row_masks_swar(&self) -> (u32, u32, bool) {
        const HIGH: u64 = 0x8080_8080_8080_8080;
        const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
        let w = self.variant.w();
        let keep = if w == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * w)) - 1
        };
        let word = u128::from_le_bytes(self.pits);
        let own = (word >> (8 * self.row_start(self.side))) as u64 & keep;
        let theirs = (word >> (8 * self.row_start(self.side.other()))) as u64 & keep;
        // Byte i of `need` is 128 - (w - i): adding it sets the high bit
        // exactly when pit i holds at least w - i stones.
        let need = HIGH - (0x0102_0304_0506_0708u64 >> (8 * (8 - w)));
        let to_bits =
            |high: u64| (((high >> 7) & keep).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32;
        let any = to_bits((own + (LOW7 & keep)) & HIGH);
        let feeding = to_bits((own + (need & keep)) & HIGH);
        (any, feeding, theirs == 0)
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
