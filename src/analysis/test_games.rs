//! A fake game for tests of the paths that count rather than list: its
//! root has as many moves as asked (Kiothi's openings have hundreds of
//! millions), each ending the game.

use std::fmt;
use std::ops::ControlFlow;

use crate::error::InputError;
use crate::game::{Game, Side};

/// A game whose root has `n` moves, each ending the game.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Wide(pub u32);

impl fmt::Display for Wide {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "wide {}", self.0)
    }
}

impl Game for Wide {
    type Move = u32;
    fn side_to_move(&self) -> Side {
        Side::South
    }
    fn for_each_move<F: FnMut(u32) -> ControlFlow<()>>(&self, mut f: F) -> ControlFlow<()> {
        for m in 0..self.0 {
            f(m)?;
        }
        ControlFlow::Continue(())
    }
    fn play_unchecked(&self, _: &u32) -> Self {
        Wide(0)
    }
    fn parse_move(&self, text: &str) -> Result<u32, InputError> {
        text.parse()
            .ok()
            .filter(|&m| m < self.0)
            .ok_or_else(|| InputError::illegal(text, "no such move"))
    }
    fn captured(&self) -> [u32; 2] {
        [0, 0]
    }
    fn final_sweep(&self) -> [u32; 2] {
        [0, 0]
    }
    fn board_total(&self) -> u32 {
        0
    }
    fn repetition_key(&self) -> Self {
        self.clone()
    }
    fn move_count(&self) -> u64 {
        self.0 as u64
    }
}
