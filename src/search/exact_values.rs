//! Exact values a search takes instead of searching: endgame tables
//! (`kiothi_tables`). Both the engine search (`negamax`) and the
//! prover (`prove`) probe them.

use super::Searchable;

/// A source of exact values for some positions of a game. They must be
/// true values under RULES §0 (the future margin for the mover, endless
/// play 0), the convention both searches use, so that a value resting on
/// them stays proved.
pub trait ExactValues<G>: Send + Sync {
    /// The value of `pos` for its mover, when known.
    fn exact_value(&self, pos: &G) -> Option<i32>;

    /// How far `pos` is from the positions whose values are known (for
    /// endgame tables: the warriors it has above theirs); 0 without
    /// tables. Only guides the search (df-pn's first numbers, the
    /// deepening's cost of a capture), never a bound.
    fn distance(&self, _pos: &G) -> u32 {
        0
    }

    /// The largest stone count of the endgame tables behind these values
    /// (`endgame_stones` in `eval`'s JSON); `None` without tables.
    fn endgame_stones(&self) -> Option<usize> {
        None
    }
}

/// No table: everything is searched.
pub struct NoTables;

impl<G> ExactValues<G> for NoTables {
    fn exact_value(&self, _: &G) -> Option<i32> {
        None
    }
}

/// The index in `moves` (the children of `pos`, in order) of a move that
/// keeps the exact value of `pos`, when `exact` values `pos` and the
/// children needed.
pub fn keeping_move<G: Searchable>(
    pos: &G,
    moves: &[(G::Move, G)],
    exact: &dyn ExactValues<G>,
) -> Option<usize> {
    let value = exact.exact_value(pos)?;
    moves.iter().position(|(_, child)| {
        let after = if child.is_over() {
            Some(child.terminal_value())
        } else {
            exact.exact_value(child)
        };
        after.is_some_and(|v| G::capture_gain(pos, child) - v == value)
    })
}

/// A line of value-keeping moves from `pos` through the positions `exact`
/// values, to the end of the game, the first repeated position, or `max`
/// moves.
pub fn exact_line<G: Searchable>(pos: &G, exact: &dyn ExactValues<G>, max: usize) -> Vec<G::Move> {
    let mut line = Vec::new();
    let mut pos = pos.clone();
    let mut seen = vec![pos.repetition_key()];
    while line.len() < max {
        let mut moves = pos.search_moves();
        let Some(i) = keeping_move(&pos, &moves, exact) else {
            break;
        };
        let (mv, child) = moves.swap_remove(i);
        line.push(mv);
        if seen.contains(&child.repetition_key()) {
            break;
        }
        seen.push(child.repetition_key());
        pos = child;
    }
    line
}
