//! A random layer for the tests of the threshold retrograde (one process,
//! over ranks, and "can end"): each position's best exit, best exit that
//! can end (or [`NO_EXIT`]) and internal moves (children, a child twice
//! for two moves into it).

use super::NO_EXIT;
use crate::infra::rng::Rng;

pub(crate) struct Layer {
    pub exit: Vec<i8>,
    pub ending: Vec<i8>,
    pub moves: Vec<Vec<u32>>,
}

impl Layer {
    /// `size` positions with up to three moves each and exits, even, in
    /// `-max..=max`; a position without moves has an exit (the game's end).
    pub fn random(rng: &mut Rng, size: usize, max: i8) -> Self {
        let even = |rng: &mut Rng| 2 * rng.below(max as usize + 1) as i8 - max;
        let mut layer = Layer {
            exit: Vec::new(),
            ending: Vec::new(),
            moves: Vec::new(),
        };
        for i in 0..size {
            let moves: Vec<u32> = match size {
                1 => Vec::new(),
                _ => (0..rng.below(4))
                    .map(|_| ((i + 1 + rng.below(size - 1)) % size) as u32)
                    .collect(),
            };
            let exit = match rng.below(3) {
                0 if !moves.is_empty() => NO_EXIT,
                _ => even(rng),
            };
            let ending = match (exit, rng.below(3)) {
                (NO_EXIT, _) | (_, 0) => NO_EXIT,
                (_, 1) => exit,
                _ => even(rng).min(exit),
            };
            layer.exit.push(exit);
            layer.ending.push(ending);
            layer.moves.push(moves);
        }
        layer
    }

    /// Each position's parents (a parent twice for two moves).
    pub fn parents(&self) -> Vec<Vec<u32>> {
        let mut parents = vec![Vec::new(); self.moves.len()];
        for (p, m) in self.moves.iter().enumerate() {
            for &c in m {
                parents[c as usize].push(p as u32);
            }
        }
        parents
    }
}
