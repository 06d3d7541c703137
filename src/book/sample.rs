//! Random opening moves, uniform over the legal moves of a turn (RULES
//! §2.2 counts a move per lift set and placement), drawn by unranking.

use crate::games::kiothi::{KiothiPosition, OpeningMove, Phase};
use crate::infra::rng::Rng;

/// A uniformly random legal move of an opening position; `None` in the
/// play phase or when the mover has no move.
pub fn random_opening_move(pos: &KiothiPosition, rng: &mut Rng) -> Option<OpeningMove> {
    if pos.phase() != Phase::Opening {
        return None;
    }
    let n = pos.opening_move_count();
    if n == 0 {
        return None;
    }
    pos.nth_opening_move(rng.below(n as usize) as u64)
}
