//! Exact values a search takes instead of searching: endgame tables
//! (`solve::kiothi_endgame`). Both the engine search (`negamax`) and the
//! prover (`prove`) probe them.

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
}

/// No table: everything is searched.
pub struct NoTables;

impl<G> ExactValues<G> for NoTables {
    fn exact_value(&self, _: &G) -> Option<i32> {
        None
    }
}
