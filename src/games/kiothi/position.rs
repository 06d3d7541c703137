//! The Kiothi position (RULES §2.11): board, protection marks, side to move,
//! phase, prisons and setup.

use crate::game::Side;

/// Pits on the board.
pub const PITS: usize = 20;
/// Pits in each row.
pub const ROW: usize = 10;
/// Mask of the 20 pits in a `u32`.
pub const ALL_PITS: u32 = (1 << PITS) - 1;

/// Opening (turn 1 with South to move, turn 2 with North) or play (turn 3 on).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Phase {
    Opening,
    Play,
}

impl Phase {
    pub fn token(self) -> &'static str {
        match self {
            Phase::Opening => "opening",
            Phase::Play => "play",
        }
    }
}

/// Starting layout (RULES §2.1): six pits of 5 each (60 in all) or the
/// five-pit option (50 in all).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Setup {
    SixPit,
    FivePit,
}

impl Setup {
    /// Warriors in the game (board plus prisons).
    pub fn total(self) -> u32 {
        match self {
            Setup::SixPit => 60,
            Setup::FivePit => 50,
        }
    }

    /// The setup whose total is `total`, if any.
    pub fn from_total(total: u32) -> Option<Setup> {
        match total {
            60 => Some(Setup::SixPit),
            50 => Some(Setup::FivePit),
            _ => None,
        }
    }

    /// Board at the start: 5 warriors in each of the rightmost six (five) pits of each row.
    pub fn start_board(self) -> [u8; PITS] {
        let filled = match self {
            Setup::SixPit => 6,
            Setup::FivePit => 5,
        };
        let mut pits = [0u8; PITS];
        for i in ROW - filled..ROW {
            pits[i] = 5;
            pits[i + ROW] = 5;
        }
        pits
    }
}

/// First pit of `side`'s row (its leftmost pit).
#[inline]
pub fn row_start(side: Side) -> usize {
    match side {
        Side::South => 0,
        Side::North => ROW,
    }
}

/// Bitmask of `side`'s row.
#[inline]
pub fn row_mask(side: Side) -> u32 {
    ((1u32 << ROW) - 1) << row_start(side)
}

/// Owner of pit `pit`.
#[inline]
pub fn owner(pit: usize) -> Side {
    if pit < ROW {
        Side::South
    } else {
        Side::North
    }
}

/// The pit opposite `pit` (RULES §2: `19-i`).
#[inline]
pub fn opposite(pit: usize) -> usize {
    PITS - 1 - pit
}

/// A Kiothi position. `Display` writes the canonical RULES §3 notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KiothiPosition {
    pub(crate) pits: [u8; PITS],
    pub(crate) protected: u32,
    pub(crate) side: Side,
    pub(crate) phase: Phase,
    pub(crate) prisons: [u16; 2],
    pub(crate) setup: Setup,
}

impl KiothiPosition {
    /// Turn 1 of a game with the given setup.
    pub fn start(setup: Setup) -> KiothiPosition {
        KiothiPosition {
            pits: setup.start_board(),
            protected: 0,
            side: Side::South,
            phase: Phase::Opening,
            prisons: [0, 0],
            setup,
        }
    }

    /// Turn 1 on a board of the caller's choosing, for tests of code that
    /// walks whole opening trees (a real setup has 300 million first
    /// moves). Not a setup of the game: the notation takes only the totals
    /// of RULES §2.1 (so such a position prints but does not parse back),
    /// and no command builds one. Its `setup()` answers `SixPit`.
    #[doc(hidden)]
    pub fn test_opening(pits: [u8; PITS]) -> KiothiPosition {
        KiothiPosition {
            pits,
            ..KiothiPosition::start(Setup::SixPit)
        }
    }

    /// The 20 pit counts in pit order.
    pub fn pits(&self) -> [u8; PITS] {
        self.pits
    }

    /// Protected marks: bit `i` set when pit `i` is protected.
    pub fn protected(&self) -> u32 {
        self.protected
    }

    /// Prisons, indexed by `Side::index`.
    pub fn prisons(&self) -> [u16; 2] {
        self.prisons
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn setup(&self) -> Setup {
        self.setup
    }

    pub fn side(&self) -> Side {
        self.side
    }

    /// True on turn 1 or turn 2.
    pub fn is_opening(&self) -> bool {
        self.phase == Phase::Opening
    }

    /// Warriors on the board.
    pub fn board_sum(&self) -> u32 {
        self.pits.iter().map(|&c| c as u32).sum()
    }

    /// Warriors in `side`'s row.
    pub fn row_sum(&self, side: Side) -> u32 {
        let s = row_start(side);
        self.pits[s..s + ROW].iter().map(|&c| c as u32).sum()
    }
}
