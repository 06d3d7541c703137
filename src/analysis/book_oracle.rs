//! An oracle that answers from Kiothi's opening book where the book has
//! moves (turns 1 and 2 of the positions it expanded) and asks another
//! oracle everywhere else: `play` (its hints and its own moves), `analyze`
//! and the web page meet the opening through it, as `eval` does.

use super::move_values::{MoveValue, MoveValues};
use super::oracle::{judge_from_values, Judgement, Oracle};
use crate::book::probe::BOOK_LINE;
use crate::book::Book;
use crate::game::Game;
use crate::games::kiothi::KiothiPosition;
use crate::kpe_db::SolveError;

/// The book's move values of a position, when it has moves there.
pub type BookLookup<'a, G> = Box<dyn Fn(&G) -> Option<MoveValues<<G as Game>::Move>> + 'a>;

/// `book` as a lookup: a position it expanded gives its book moves, best
/// first, each with its line through the book (values estimated, not
/// exact; `complete` false, as for any Kiothi opening).
pub fn kiothi_lookup(book: &Book) -> BookLookup<'_, KiothiPosition> {
    Box::new(move |pos: &KiothiPosition| {
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
    })
}

/// The book first, `inner` where the book has no moves.
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
