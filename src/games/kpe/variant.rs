//! The board size option of RULES §1: W pits per row, K stones per pit.

use std::fmt;

use crate::error::InputError;

/// Board size of a Kpé game. The standard game is 4×6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KpeVariant {
    w: u8,
    k: u8,
}

impl KpeVariant {
    pub const STANDARD: KpeVariant = KpeVariant { w: 4, k: 6 };
    pub const W_RANGE: std::ops::RangeInclusive<u8> = 2..=8;
    pub const K_RANGE: std::ops::RangeInclusive<u8> = 1..=8;

    pub fn new(w: u8, k: u8) -> Result<Self, InputError> {
        if !Self::W_RANGE.contains(&w) {
            return Err(InputError::unsupported(
                "variant",
                format!("pits per row W={w} is out of range 2-8"),
            ));
        }
        if !Self::K_RANGE.contains(&k) {
            return Err(InputError::unsupported(
                "variant",
                format!("stones per pit K={k} is out of range 1-8"),
            ));
        }
        Ok(KpeVariant { w, k })
    }

    /// Pits per row.
    #[inline]
    pub fn w(self) -> usize {
        self.w as usize
    }

    /// Stones per pit at the start.
    #[inline]
    pub fn k(self) -> usize {
        self.k as usize
    }

    /// Pits on the board (2W).
    #[inline]
    pub fn pits(self) -> usize {
        2 * self.w as usize
    }

    /// Stones in the game (2WK).
    #[inline]
    pub fn total(self) -> u32 {
        2 * self.w as u32 * self.k as u32
    }

    /// Marks of a player who has started a move from every home pit.
    #[inline]
    pub fn all_marks(self) -> u8 {
        ((1u16 << self.w) - 1) as u8
    }

    /// Parses the `WxK` part of a `kpe:WxK` tag.
    pub fn parse_tag(tag: &str) -> Result<Self, InputError> {
        let bad = || {
            InputError::malformed(
                "variant",
                format!("expected `WxK` such as `3x4`, found `{tag}`"),
            )
        };
        let (w, k) = tag.split_once('x').ok_or_else(bad)?;
        let w: u8 = w.parse().map_err(|_| bad())?;
        let k: u8 = k.parse().map_err(|_| bad())?;
        KpeVariant::new(w, k)
    }

    /// The game tag: `kpe` for the standard game, `kpe:WxK` otherwise.
    pub fn tag(self) -> String {
        if self == Self::STANDARD {
            "kpe".to_string()
        } else {
            format!("kpe:{}x{}", self.w, self.k)
        }
    }
}

impl Default for KpeVariant {
    fn default() -> Self {
        Self::STANDARD
    }
}

impl fmt::Display for KpeVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.w, self.k)
    }
}
