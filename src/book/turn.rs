//! An opening turn as the scans see it (RULES §2.2): the mover's lift sets,
//! the board left once they are lifted, and which lift set counts a board
//! that several of them can leave.
//!
//! A board `B` is left by lift set `L` when every pit outside `L` holds at
//! least its count before the turn (placing only adds there). So the pits
//! of the mover's row that end below their old count (the *deficit* set
//! `D`) must all be lifted: `B` is reachable from exactly the lift sets
//! containing `D`. The scans count `B` once, under the first lift set (in
//! `lift_sets` order, increasing pairs) that contains `D`.

use crate::game::Side;
use crate::games::kiothi::{KiothiPosition, Phase, PITS};

use super::error::BookError;

/// One lift set of the turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lift {
    /// The lifted pits, increasing (`pits[1] == pits[0]` when one pit is lifted).
    pub pits: [u8; 2],
    /// One or two pits.
    pub n: u8,
    /// Warriors lifted.
    pub warriors: u32,
    /// `accept[da][db]`: whether a board in which the first (second) lifted
    /// pit ends below its old count when `da` (`db`) is counted under this
    /// lift set.
    pub accept: [[bool; 2]; 2],
}

impl Lift {
    /// The lifted pits as a slice.
    pub fn lifted(&self) -> &[u8] {
        &self.pits[..self.n as usize]
    }

    /// Whether the board left by placing `placed` is counted under this lift.
    pub fn counts(&self, before: &[u8; PITS], placed: &[u8; PITS]) -> bool {
        let [a, b] = self.pits.map(usize::from);
        let da = placed[a] < before[a];
        let db = placed[b] < before[b];
        self.accept[da as usize][db as usize]
    }
}

/// Turn 1 or turn 2 of a game, ready to scan.
#[derive(Clone, Debug)]
pub struct OpeningTurn {
    /// The position before the move.
    pub position: KiothiPosition,
    /// Lift sets in `KiothiPosition::lift_sets` order.
    pub lifts: Vec<Lift>,
}

impl OpeningTurn {
    /// The turn of an opening position; refuses a play-phase position and a
    /// mover without an occupied pit.
    pub fn new(position: &KiothiPosition) -> Result<OpeningTurn, BookError> {
        if position.phase() != Phase::Opening {
            return Err(BookError::NotOpening {
                position: position.to_string(),
            });
        }
        let sets = position.lift_sets();
        let sets = sets.as_slice();
        if sets.is_empty() {
            return Err(BookError::NoMove {
                position: position.to_string(),
            });
        }
        let first_with = |d: &[u8]| {
            sets.iter()
                .position(|(p, n, _)| d.iter().all(|x| p[..*n as usize].contains(x)))
        };
        let lifts = sets
            .iter()
            .enumerate()
            .map(|(i, &(pits, n, warriors))| {
                let mut accept = [[false; 2]; 2];
                for (da, row) in accept.iter_mut().enumerate() {
                    for (db, cell) in row.iter_mut().enumerate() {
                        let mut d = Vec::new();
                        if da == 1 {
                            d.push(pits[0]);
                        }
                        if db == 1 && n == 2 {
                            d.push(pits[1]);
                        }
                        *cell = n == 1 || first_with(&d) == Some(i);
                    }
                }
                Lift {
                    pits,
                    n,
                    warriors,
                    accept,
                }
            })
            .collect();
        Ok(OpeningTurn {
            position: *position,
            lifts,
        })
    }

    /// The turn of `position`, which must be turn `wanted` (1 or 2).
    pub fn expect(position: &KiothiPosition, wanted: u8) -> Result<OpeningTurn, BookError> {
        let turn = OpeningTurn::new(position)?;
        let found = turn.number();
        if found != wanted {
            return Err(BookError::WrongTurn {
                position: position.to_string(),
                found,
                wanted,
            });
        }
        Ok(turn)
    }

    /// 1 with South to move, 2 with North (RULES §3).
    pub fn number(&self) -> u8 {
        match self.position.side() {
            Side::South => 1,
            Side::North => 2,
        }
    }

    /// The counts before the turn.
    pub fn before(&self) -> [u8; PITS] {
        self.position.pits()
    }

    /// The board once `lift` is lifted, before anything is placed.
    pub fn lifted_board(&self, lift: &Lift) -> [u8; PITS] {
        let mut b = self.position.pits();
        for &p in lift.lifted() {
            b[p as usize] = 0;
        }
        b
    }
}
