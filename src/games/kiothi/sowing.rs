//! Sowing of one play-phase move (RULES §2.3–2.6): the laps, the first-lap
//! restriction, relays, clearing of protection marks and the detection of
//! moves that never end.
//!
//! The board is held as 20 bytes packed in three `u64` words so that a lap
//! is one table lookup and three additions: a hand of `h` warriors adds
//! `h / 20` to every pit, then 1 to the `h % 20` pits after the origin.
//! Counts never exceed 60, so bytes never carry into each other.

use crate::game::Side;

use super::position::{row_mask, PITS};

/// RULES §2.6 **Choice**: a move whose sowing has not ended after this many
/// laps (the first lap and 9,999 relays) never ends and is not legal.
pub const MAX_LAPS: u32 = 10_000;

/// The board as packed bytes: pit `i` is byte `i % 8` (little-endian) of word `i / 8`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Words(pub(crate) [u64; 3]);

/// `RUNS[start][len]`: 1 in the `len` pits `start, start+1, …` (mod 20).
static RUNS: [[[u64; 3]; PITS]; PITS] = build_runs();
/// `MARK_RUNS[start][len]`: the same run as a pit bitmask.
static MARK_RUNS: [[u32; PITS]; PITS] = build_mark_runs();
/// 1 in each of the 20 pits.
const ONES: [u64; 3] = [0x0101_0101_0101_0101, 0x0101_0101_0101_0101, 0x0101_0101];

const fn build_runs() -> [[[u64; 3]; PITS]; PITS] {
    let mut t = [[[0u64; 3]; PITS]; PITS];
    let mut start = 0;
    while start < PITS {
        let mut len = 0;
        while len < PITS {
            let mut i = 0;
            while i < len {
                let pit = (start + i) % PITS;
                t[start][len][pit / 8] |= 1u64 << ((pit % 8) * 8);
                i += 1;
            }
            len += 1;
        }
        start += 1;
    }
    t
}

const fn build_mark_runs() -> [[u32; PITS]; PITS] {
    let mut t = [[0u32; PITS]; PITS];
    let mut start = 0;
    while start < PITS {
        let mut len = 0;
        while len < PITS {
            let mut i = 0;
            while i < len {
                t[start][len] |= 1u32 << ((start + i) % PITS);
                i += 1;
            }
            len += 1;
        }
        start += 1;
    }
    t
}

const LOW_SEVEN: u64 = 0x7F7F_7F7F_7F7F_7F7F;
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// `BYTE_MASKS[m]`: 0xFF in byte `i` of the word when bit `i` of `m` is set.
static BYTE_MASKS: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let mut i = 0;
        while i < 8 {
            if m & (1 << i) != 0 {
                t[m] |= 0xFF << (8 * i);
            }
            i += 1;
        }
        m += 1;
    }
    t
};

impl Words {
    /// Bit `i` set when pit `i` holds warriors (the search's evaluation
    /// masks and sums over the same packed board as the sowing).
    #[inline]
    pub(crate) fn occupied(&self) -> u32 {
        let bits = |w: u64| {
            let high = (((w & LOW_SEVEN) + LOW_SEVEN) | w) & HIGH_BITS;
            ((high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
        };
        bits(self.0[0]) | bits(self.0[1]) << 8 | bits(self.0[2]) << 16
    }

    /// Warriors in the pits of `mask` (no sum exceeds the 60 warriors of
    /// the game, so bytes never carry).
    #[inline]
    pub(crate) fn sum(&self, mask: u32) -> i32 {
        let bytes = |shift: u32| BYTE_MASKS[((mask >> shift) & 0xFF) as usize];
        let picked = (self.0[0] & bytes(0)) + (self.0[1] & bytes(8)) + (self.0[2] & bytes(16));
        (picked.wrapping_mul(0x0101_0101_0101_0101) >> 56) as i32
    }

    #[inline]
    pub(crate) fn from_pits(pits: &[u8; PITS]) -> Words {
        let mut b = [0u8; 24];
        b[..PITS].copy_from_slice(pits);
        Words([
            u64::from_le_bytes(b[0..8].try_into().unwrap()),
            u64::from_le_bytes(b[8..16].try_into().unwrap()),
            u64::from_le_bytes(b[16..24].try_into().unwrap()),
        ])
    }

    #[inline]
    pub(crate) fn to_pits(self) -> [u8; PITS] {
        let mut b = [0u8; 24];
        b[0..8].copy_from_slice(&self.0[0].to_le_bytes());
        b[8..16].copy_from_slice(&self.0[1].to_le_bytes());
        b[16..24].copy_from_slice(&self.0[2].to_le_bytes());
        b[..PITS].try_into().unwrap()
    }

    /// The word holding `pit`, selected without indexing so that the board
    /// stays in registers (indexed stores would force it to memory and cause
    /// store-forwarding stalls against the whole-word additions).
    #[inline(always)]
    fn word(&self, pit: usize) -> u64 {
        let w = if pit < 8 { self.0[0] } else { self.0[1] };
        if pit < 16 {
            w
        } else {
            self.0[2]
        }
    }

    #[inline(always)]
    pub(crate) fn get(&self, pit: usize) -> u32 {
        ((self.word(pit) >> ((pit & 7) * 8)) & 0xff) as u32
    }

    /// Adds `n` times the pattern `pat` to every word.
    #[inline(always)]
    fn add(&mut self, pat: &[u64; 3], n: u64) {
        self.0[0] = self.0[0].wrapping_add(pat[0].wrapping_mul(n));
        self.0[1] = self.0[1].wrapping_add(pat[1].wrapping_mul(n));
        self.0[2] = self.0[2].wrapping_add(pat[2].wrapping_mul(n));
    }

    /// Empties `pit` and returns what it held.
    #[inline(always)]
    fn take(&mut self, pit: usize) -> u32 {
        let v = self.get(pit);
        self.sub(pit, v);
        v
    }

    #[inline(always)]
    pub(crate) fn sub(&mut self, pit: usize, n: u32) {
        self.add(&RUNS[pit][1], (n as u64).wrapping_neg());
    }

    /// One lap: sows `hand` warriors from the pit after `from`, clears the
    /// marks of every pit sown into, returns the pit of the last warrior.
    #[inline(always)]
    fn lap(&mut self, marks: &mut u32, from: usize, hand: u32) -> usize {
        let start = if from == PITS - 1 { 0 } else { from + 1 };
        let hand = hand as usize;
        if hand < PITS {
            // The common case: less than a whole lap.
            self.add(&RUNS[start][hand], 1);
            *marks &= !MARK_RUNS[start][hand];
            let last = from + hand;
            return if last >= PITS { last - PITS } else { last };
        }
        let whole = hand / PITS;
        let rest = hand - whole * PITS;
        self.add(&ONES, whole as u64);
        *marks = 0;
        self.add(&RUNS[start][rest], 1);
        (from + hand) % PITS
    }
}

/// How the sowing of `(p, c)` went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sown {
    /// The move ended in pit `end` (which now holds exactly 1), before captures.
    End {
        board: Words,
        marks: u32,
        end: usize,
    },
    /// RULES §2.5: the first lap's last warrior landed in this own occupied pit.
    FirstLap(usize),
    /// RULES §2.6: the relays never end (cycle detected or cap reached).
    NeverEnds,
}

/// Sows `count` warriors lifted from `pit` for `side` (RULES §2.3–2.6).
/// `pit` must be in `side`'s row and hold at least `count ≥ 1` warriors.
#[inline]
pub(crate) fn sow(mut board: Words, mut marks: u32, side: Side, pit: usize, count: u32) -> Sown {
    debug_assert!(count >= 1 && board.get(pit) >= count);
    board.sub(pit, count);
    marks &= !(1u32 << pit);
    let last = board.lap(&mut marks, pit, count);
    if board.get(last) == 1 {
        return Sown::End {
            board,
            marks,
            end: last,
        };
    }
    if row_mask(side) & (1u32 << last) != 0 {
        return Sown::FirstLap(last);
    }
    let [a, b, c] = board.0;
    relays(a, b, c, marks, last)
}

/// Relays from `pos`, whose last warrior has just landed in an occupied pit.
///
/// The trajectory from a relay start depends only on the counts and the pit
/// (not on the marks), so a repeated `(board, pit)` at relay starts means the
/// move never ends. Brent's cycle detection finds the repeat within about
/// twice the cycle length past its start; the lap cap bounds the rest.
#[inline(never)]
fn relays(a: u64, b: u64, c: u64, mut marks: u32, mut pos: usize) -> Sown {
    // A local built from scalars stays in registers.
    let mut board = Words([a, b, c]);
    let mut laps = 1u32;
    let mut saved = (board, usize::MAX);
    let mut power = 1u32;
    let mut lam = 0u32;
    loop {
        // Nearly every move ends within a few laps: cycle detection and the
        // cap only start after `QUIET_LAPS`.
        if laps >= QUIET_LAPS {
            if laps >= MAX_LAPS {
                return Sown::NeverEnds;
            }
            if pos == saved.1 && board == saved.0 {
                return Sown::NeverEnds;
            }
            lam += 1;
            if lam == power {
                saved = (board, pos);
                power <<= 1;
                lam = 0;
            }
        }
        let hand = board.take(pos);
        laps += 1;
        let last = board.lap(&mut marks, pos, hand);
        if board.get(last) == 1 {
            return Sown::End {
                board,
                marks,
                end: last,
            };
        }
        pos = last;
    }
}

/// Laps sown before cycle detection starts (it only has to be less than `MAX_LAPS`).
const QUIET_LAPS: u32 = 24;

/// Plain lap-by-lap, warrior-by-warrior sowing without arithmetic laps or
/// cycle detection, to cross-check [`sow`] in tests.
#[cfg(test)]
pub(crate) fn sow_plain(pits: [u8; PITS], marks: u32, side: Side, pit: usize, count: u32) -> Sown {
    let mut b = pits;
    let mut marks = marks & !(1 << pit);
    b[pit] -= count as u8;
    let mut hand = count;
    let mut pos = pit;
    let mut laps = 0;
    loop {
        laps += 1;
        let mut was_occupied = false;
        while hand > 0 {
            pos = (pos + 1) % PITS;
            was_occupied = b[pos] > 0;
            b[pos] += 1;
            marks &= !(1 << pos);
            hand -= 1;
        }
        if !was_occupied {
            return Sown::End {
                board: Words::from_pits(&b),
                marks,
                end: pos,
            };
        }
        if laps == 1 && super::position::owner(pos) == side {
            return Sown::FirstLap(pos);
        }
        if laps >= MAX_LAPS {
            return Sown::NeverEnds;
        }
        hand = b[pos] as u32;
        b[pos] = 0;
    }
}
