//! A validated Kpé position and the sowing of a move (RULES §1.1–1.3).

use std::fmt;

use super::variant::KpeVariant;
use crate::game::Side;

/// Largest board: W = 8.
pub const MAX_PITS: usize = 16;

/// A word with the byte 1 in each of its `k` lowest bytes.
#[inline]
fn byte_ones(k: usize) -> u128 {
    if k == 0 {
        0
    } else {
        (u128::MAX / 255) >> (8 * (16 - k))
    }
}

/// A Kpé move: the index of the pit the mover lifts (RULES §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KpeMove(pub u8);

impl KpeMove {
    #[inline]
    pub fn pit(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for KpeMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A Kpé position (RULES §1.6). Pits beyond `2W` are always zero.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct KpePosition {
    pub(super) pits: [u8; MAX_PITS],
    pub(super) variant: KpeVariant,
    pub(super) side: Side,
    /// Bit `i` of `marks[s]`: side `s` has started a move from its `i`-th pit.
    pub(super) marks: [u8; 2],
    pub(super) captured: [u16; 2],
}

impl KpePosition {
    /// The start of the game: K stones in every pit, South to move, no marks.
    pub fn start(variant: KpeVariant) -> Self {
        let mut pits = [0u8; MAX_PITS];
        pits[..variant.pits()].fill(variant.k() as u8);
        KpePosition {
            pits,
            variant,
            side: Side::South,
            marks: [0; 2],
            captured: [0; 2],
        }
    }

    /// Builds a position from its parts without checking them; the caller
    /// (a solver decoding its own index) guarantees they are consistent.
    pub fn from_parts(
        variant: KpeVariant,
        pits: &[u8],
        side: Side,
        marks: [u8; 2],
        captured: [u16; 2],
    ) -> Self {
        let mut all = [0u8; MAX_PITS];
        all[..pits.len()].copy_from_slice(pits);
        KpePosition {
            pits: all,
            variant,
            side,
            marks,
            captured,
        }
    }

    /// [`Self::from_parts`] with the pits as one word (pit `i` in byte
    /// `i`, little-endian; bytes past `2W` zero), as the solver's scans
    /// step them (`BoardIndex::next_word`).
    #[inline]
    pub fn from_pits_word(
        variant: KpeVariant,
        pits: u128,
        side: Side,
        marks: [u8; 2],
        captured: [u16; 2],
    ) -> Self {
        debug_assert!(variant.pits() == 16 || pits >> (8 * variant.pits()) == 0);
        KpePosition {
            pits: pits.to_le_bytes(),
            variant,
            side,
            marks,
            captured,
        }
    }

    pub fn variant(&self) -> KpeVariant {
        self.variant
    }

    /// The pits as one word, as [`Self::from_pits_word`] takes them (pit
    /// `i` in byte `i`, little-endian; bytes past `2W` zero).
    #[inline]
    pub fn pits_word(&self) -> u128 {
        u128::from_le_bytes(self.pits)
    }

    /// Pit counts in pit order (2W of them).
    pub fn pits(&self) -> &[u8] {
        &self.pits[..self.variant.pits()]
    }

    pub fn side(&self) -> Side {
        self.side
    }

    /// Mark bits of a side (bit i: the owner's i-th pit has been played).
    pub fn marks(&self, side: Side) -> u8 {
        self.marks[side.index()]
    }

    /// True once a side has started a move from each of its pits (RULES §1.2).
    pub fn is_unlocked(&self, side: Side) -> bool {
        self.marks[side.index()] == self.variant.all_marks()
    }

    /// First pit index of a side's row.
    #[inline]
    pub fn row_start(&self, side: Side) -> usize {
        side.index() * self.variant.w()
    }

    /// The side owning a pit.
    #[inline]
    pub fn owner(&self, pit: usize) -> Side {
        if pit < self.variant.w() {
            Side::South
        } else {
            Side::North
        }
    }

    /// Stones in a side's row.
    pub fn row_total(&self, side: Side) -> u32 {
        let start = self.row_start(side);
        self.pits[start..start + self.variant.w()]
            .iter()
            .map(|&c| c as u32)
            .sum()
    }

    /// The same position seen from the other side: the board turned by W
    /// pits, players, marks and captures swapped (RULES §1, symmetry).
    pub fn rotated(&self) -> Self {
        // The two rows (W bytes each, pits past 2W zero) swap places as
        // halves of one word: the solver ranks a turned board for every
        // child it looks up, and a modular index a pit showed in its
        // profile.
        debug_assert!(self.pits[self.variant.pits()..].iter().all(|&c| c == 0));
        let half = 8 * self.variant.w() as u32;
        let word = u128::from_le_bytes(self.pits);
        let south = word & ((1u128 << half) - 1);
        let pits = ((word >> half) | south << half).to_le_bytes();
        KpePosition {
            pits,
            variant: self.variant,
            side: self.side.other(),
            marks: [self.marks[1], self.marks[0]],
            captured: [self.captured[1], self.captured[0]],
        }
    }

    /// The position relative to the player to move: rotated if needed so
    /// that the mover is South. Solvers store positions this way.
    pub fn relative(&self) -> Self {
        match self.side {
            Side::South => *self,
            Side::North => self.rotated(),
        }
    }

    /// The whole laps and the stones after them of a move from `pit`, and
    /// the pit its last stone falls into (RULES §1.1, Choice: whole laps
    /// sow every pit, the origin included, and the rest follow it).
    #[inline]
    fn sowing_shape(&self, pit: usize) -> (usize, usize, usize) {
        let n = self.variant.pits();
        let stones = self.pits[pit] as usize;
        let (laps, rest) = if stones < n {
            (0, stones)
        } else {
            (stones / n, stones % n)
        };
        let last = if pit + rest >= n {
            pit + rest - n
        } else {
            pit + rest
        };
        (laps, rest, last)
    }

    /// The mover's marks once the move from `pit` has started (RULES
    /// §1.2: the mark is set when the move starts).
    #[inline]
    fn mover_marks_after(&self, pit: usize) -> u8 {
        self.marks[self.side.index()] | 1 << (pit - self.row_start(self.side))
    }

    /// Whether the move from `pit` sets the mover's mark for it (RULES
    /// §1.2: its first move from that pit).
    #[inline]
    pub fn move_sets_mark(&self, pit: usize) -> bool {
        self.mover_marks_after(pit) != self.marks[self.side.index()]
    }

    /// Whether both players are unlocked after the move from `pit` (RULES
    /// §1.2: it may set the mover's last mark).
    #[inline]
    pub fn move_unlocks_both(&self, pit: usize) -> bool {
        self.mover_marks_after(pit) == self.variant.all_marks()
            && self.is_unlocked(self.side.other())
    }

    /// Whether the move from `pit` captures (RULES §1.3), known without
    /// sowing: the mover is unlocked once the move's mark is set, and the
    /// last stone makes a 2 or a 4 in the opponent's row (the chain
    /// backwards starts only there). The solver's exits ask this of every
    /// move and sow only the captures (`kpe_db/endgame.rs`).
    #[inline]
    pub fn move_captures(&self, pit: usize) -> bool {
        let (laps, rest, last) = self.sowing_shape(pit);
        // With no stone past the whole laps the last falls in the origin,
        // the mover's own pit; otherwise the last pit got a stone a lap
        // and the last one.
        rest > 0
            && self.mover_marks_after(pit) == self.variant.all_marks()
            && self.owner(last) != self.side
            && matches!(self.pits[last] as usize + laps + 1, 2 | 4)
    }

    /// Sows the stones of `pit` (RULES §1.1–1.3) and passes the turn.
    /// Returns the child and the number of stones captured.
    ///
    /// Always inlined: called, it returned the child through memory, its
    /// two capture counts written as two 2-byte stores that the caller
    /// read back as one 4-byte load, which waited for both stores to
    /// reach the cache (a quarter of the region exploration's samples
    /// after each call). Inlined, the child stays in registers: the
    /// standard solve's exits took 13.1 s against 14.7 s, its exploration
    /// 10.5-10.8 s against 12.5 s (`results/BENCHMARKS.md`).
    #[inline(always)]
    pub fn sow(&self, pit: usize) -> (Self, u32) {
        let n = self.variant.pits();
        let w = self.variant.w();
        let me = self.side;
        let mut marks = self.marks;
        marks[me.index()] = self.mover_marks_after(pit);
        // All pits are updated at once as bytes of one word (no count
        // reaches 256, so no byte carries into the next): the origin is
        // emptied, then the whole laps and the rest (`sowing_shape`).
        let (laps, rest, last) = self.sowing_shape(pit);
        let tail = rest.min(n - 1 - pit);
        let sown = laps as u128 * byte_ones(n)
            // From the last pit of a 16-pit board nothing follows (tail 0),
            // and a shift by 128 bits would overflow.
            + byte_ones(tail).checked_shl(8 * (pit as u32 + 1)).unwrap_or(0)
            + byte_ones(rest - tail);
        let mut word = (u128::from_le_bytes(self.pits) & !(0xff << (8 * pit))) + sown;
        let mut gained = 0u32;
        if marks[me.index()] == self.variant.all_marks() {
            // §1.3: capture 2s and 4s backwards from the last pit while in
            // the opponent's row. On the word, not its bytes: bytes written
            // one by one and then read back as a word stalled the store
            // (a quarter of the solver's time in `sow`).
            let opp_start = self.row_start(me.other());
            let mut at = last;
            while at >= opp_start && at < opp_start + w {
                let count = (word >> (8 * at)) as u8;
                if !matches!(count, 2 | 4) {
                    break;
                }
                gained += count as u32;
                word &= !(0xff << (8 * at));
                if at == opp_start {
                    break;
                }
                at -= 1;
            }
        }
        let mut captured = self.captured;
        captured[me.index()] += gained as u16;
        let next = KpePosition {
            pits: word.to_le_bytes(),
            variant: self.variant,
            side: me.other(),
            marks,
            captured,
        };
        (next, gained)
    }
}
