//! [`HandEval`], the wrapper that makes any searcher use
//! `Searchable::evaluate_hand` (the `ab:eval=hand` agents).

use std::fmt;
use std::ops::ControlFlow;

use super::Searchable;
use crate::error::InputError;
use crate::game::{Game, Side};

/// A position searched with its game's hand-set evaluation
/// (`Searchable::evaluate_hand`) instead of `evaluate`; everything else is
/// the wrapped game's.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HandEval<G>(pub G);

impl<G: fmt::Display> fmt::Display for HandEval<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<G: Game> Game for HandEval<G> {
    type Move = G::Move;

    fn side_to_move(&self) -> Side {
        self.0.side_to_move()
    }
    fn for_each_move<F: FnMut(G::Move) -> ControlFlow<()>>(&self, f: F) -> ControlFlow<()> {
        self.0.for_each_move(f)
    }
    fn play_unchecked(&self, mv: &G::Move) -> Self {
        HandEval(self.0.play_unchecked(mv))
    }
    fn parse_move(&self, text: &str) -> Result<G::Move, InputError> {
        self.0.parse_move(text)
    }
    fn captured(&self) -> [u32; 2] {
        self.0.captured()
    }
    fn final_sweep(&self) -> [u32; 2] {
        self.0.final_sweep()
    }
    fn board_total(&self) -> u32 {
        self.0.board_total()
    }
    fn repetition_key(&self) -> Self {
        HandEval(self.0.repetition_key())
    }
    fn for_each_child<F: FnMut(G::Move, Self) -> ControlFlow<()>>(
        &self,
        mut f: F,
    ) -> ControlFlow<()> {
        self.0.for_each_child(|mv, child| f(mv, HandEval(child)))
    }
    fn move_count(&self) -> u64 {
        self.0.move_count()
    }
    fn is_over(&self) -> bool {
        self.0.is_over()
    }
    fn terminal_value(&self) -> i32 {
        self.0.terminal_value()
    }
}

impl<G: Searchable> Searchable for HandEval<G> {
    fn zobrist(&self) -> u64 {
        self.0.zobrist()
    }
    fn evaluate(&self) -> i32 {
        self.0.evaluate_hand()
    }
    fn evaluate_hand(&self) -> i32 {
        self.0.evaluate_hand()
    }
    fn search_moves(&self) -> Vec<(G::Move, Self)> {
        self.0
            .search_moves()
            .into_iter()
            .map(|(mv, child)| (mv, HandEval(child)))
            .collect()
    }
    fn history_slot(mv: &G::Move) -> usize {
        G::history_slot(mv)
    }
}
