//! An oracle that answers Kiothi's opening from the opening book where the
//! book has moves (turns 1 and 2 of the positions it expanded), North's
//! turn 2 out of the book by the reply search (RULES §2.2: far too many
//! redistributions for the engine's search over its candidate families),
//! and asks another oracle everywhere else: `play` (its hints and its own
//! moves), `analyze` and the web page meet the opening through it, as
//! `eval` does.

use std::cell::RefCell;

use super::move_values::{MoveValue, MoveValues};
use super::oracle::{judge_from_values, Judgement, Oracle};
use super::search_budget::Budget;
use crate::book::probe::BOOK_LINE;
use crate::book::{is_turn_2, Book, Replies, ReplyLimits};
use crate::game::Game;
use crate::games::kiothi::{KiothiMove, KiothiPosition};
use crate::kpe_db::SolveError;

/// Seed of the reply search's random replies where a command answers.
pub const REPLY_SEED: u64 = 1;

/// The reply search that fits a command's `budget`: shaped to its seconds
/// on its threads when it has some, else to its nodes, else the default (a
/// depth limit does not shape it).
pub fn reply_limits(budget: &Budget) -> ReplyLimits {
    ReplyLimits::shaped(budget.seconds, budget.nodes, budget.threads)
}

/// The book's move values of a position, when it has moves there.
pub type BookLookup<'a, G> = Box<dyn Fn(&G) -> Option<MoveValues<<G as Game>::Move>> + 'a>;

/// Kiothi's opening as a lookup: a position `book` expanded gives its book
/// moves, best first, each with its line through the book; North's turn 2
/// out of the book gives the replies the reply search found within
/// `replies` (the last one kept, as a command asks one position several
/// times). Values estimated, not exact; `complete` false, as for any
/// Kiothi opening.
pub fn kiothi_lookup(book: Option<&Book>, replies: ReplyLimits) -> BookLookup<'_, KiothiPosition> {
    let last: RefCell<Option<(KiothiPosition, MoveValues<KiothiMove>)>> = RefCell::new(None);
    Box::new(move |pos: &KiothiPosition| {
        if let Some(values) = book.and_then(|b| book_values(b, pos)) {
            return Some(values);
        }
        if !is_turn_2(pos) {
            return None;
        }
        if let Some((p, v)) = &*last.borrow() {
            if p == pos {
                return Some(v.clone());
            }
        }
        let values = reply_values(&replies.search(pos, REPLY_SEED).ok()?);
        *last.borrow_mut() = Some((*pos, values.clone()));
        Some(values)
    })
}

fn book_values(book: &Book, pos: &KiothiPosition) -> Option<MoveValues<KiothiMove>> {
    let entry = book.lookup(pos).filter(|e| !e.moves.is_empty())?;
    let moves = entry
        .moves
        .iter()
        .map(|m| MoveValue {
            mv: m.mv,
            value: m.value,
            exact: false,
            line: book.move_line(pos, m.mv, BOOK_LINE),
        })
        .collect();
    Some(MoveValues {
        moves,
        complete: false,
        depth: entry.depth,
        nodes: 0,
        seconds: 0.0,
        book: true,
    })
}

/// The reply search's best replies as move values (North's), best first.
pub fn reply_values(found: &Replies) -> MoveValues<KiothiMove> {
    let moves = found
        .replies
        .iter()
        .map(|r| MoveValue {
            mv: KiothiMove::Opening(r.opening),
            value: r.value,
            exact: false,
            line: vec![KiothiMove::Opening(r.opening)],
        })
        .collect();
    MoveValues {
        moves,
        complete: false,
        depth: found.best.depth,
        nodes: found.nodes,
        seconds: found.seconds,
        book: false,
    }
}

/// The opening lookup first, `inner` where it has no moves.
pub struct BookOracle<'a, G: Game> {
    pub lookup: BookLookup<'a, G>,
    pub inner: &'a mut dyn Oracle<G>,
}

impl<G: Game> Oracle<G> for BookOracle<'_, G> {
    fn move_values(&mut self, pos: &G) -> Result<MoveValues<G::Move>, SolveError> {
        match (self.lookup)(pos) {
            Some(values) => Ok(values),
            None => self.inner.move_values(pos),
        }
    }

    /// A book move is judged by the book; a move out of it by the other
    /// oracle, against the book's best value.
    fn judge(&mut self, pos: &G, played: &G::Move) -> Result<Judgement<G::Move>, SolveError> {
        let Some(values) = (self.lookup)(pos) else {
            return self.inner.judge(pos, played);
        };
        if let Some(j) = judge_from_values(&values, played) {
            return Ok(j);
        }
        let mut j = self.inner.judge(pos, played)?;
        if let Some(best) = values.best_value().filter(|&b| b >= j.value) {
            j.value = best;
            j.best = values.best_moves();
            j.value_exact = false;
            j.exact = false;
            j.others_best = None;
        }
        Ok(j)
    }

    fn value(&mut self, pos: &G) -> Result<(i32, bool), SolveError> {
        match (self.lookup)(pos).and_then(|v| v.best_value()) {
            Some(v) => Ok((v, false)),
            None => self.inner.value(pos),
        }
    }
}
