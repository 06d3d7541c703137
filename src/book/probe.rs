//! Asking the book: the value of a position and of its book moves, for the
//! commands that meet the opening (`eval`, `play`'s hint, `analyze`, the
//! web page's opening list).

use std::path::{Path, PathBuf};

use hashbrown::HashMap;

use super::dag::{NodeId, NodeState};
use super::error::BookError;
use super::file;
use super::state::{BookState, BuildParams};
use crate::game::Game;
use crate::games::kiothi::{KiothiMove, KiothiPosition, Setup};

/// The shipped book of a setup, relative to the working directory (the
/// repository's root): `data/kiothi/book-six.sowbook` or `book-five.sowbook`.
pub fn default_path(setup: Setup) -> PathBuf {
    let name = match setup {
        Setup::SixPit => "book-six.sowbook",
        Setup::FivePit => "book-five.sowbook",
    };
    Path::new("data").join("kiothi").join(name)
}

/// The book the commands answer from: `default_path` under the working
/// directory when it is there, else under the source tree `sow` was built
/// from (so that a binary built from a checkout finds its book wherever it
/// runs); `None` when neither exists.
pub fn shipped_path(setup: Setup) -> Option<PathBuf> {
    let built_from = Path::new(env!("CARGO_MANIFEST_DIR")).join(default_path(setup));
    [default_path(setup), built_from]
        .into_iter()
        .find(|p| p.exists())
}

/// Longest line through the book given with a move or as a principal
/// variation (`eval`, the book oracle).
pub const BOOK_LINE: usize = 40;

/// A book, read and indexed.
#[derive(Clone, Debug)]
pub struct Book {
    state: BookState,
    /// Positions by their board, marks, side and phase (prisons left out):
    /// the value of a position does not depend on what its prisons hold
    /// (RULES §0), so a position given without them is found too.
    by_board: HashMap<KiothiPosition, NodeId>,
}

/// What the book knows of a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookEntry {
    /// RULES §0 value for the player to move: the minimax of the book's
    /// moves, or, at a leaf of the book, the engine's search.
    pub value: i32,
    /// The height of the book's subtree under the position: for a leaf, the
    /// depth of its search (0 for a finished game); else one more than the
    /// deepest of its moves' children.
    pub depth: u32,
    /// The position's moves in the book, best first (empty at a leaf).
    pub moves: Vec<BookMove>,
    /// The game is over here (the value is exact).
    pub terminal: bool,
}

/// A book move and what it is worth to its mover.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookMove {
    pub mv: KiothiMove,
    /// Warriors it captures minus its child's value (RULES §0); 0 for a
    /// move back to a position on its own line (endless play).
    pub value: i32,
    /// One more than its child's depth.
    pub depth: u32,
}

impl Book {
    /// Reads and checks the book at `path`.
    pub fn open(path: &Path) -> Result<Book, BookError> {
        Ok(Book::from_state(file::read(path)?))
    }

    /// The book held in `bytes`, the contents of a file named `path`.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Book, BookError> {
        Ok(Book::from_state(file::decode(bytes, path)?))
    }

    pub fn from_state(state: BookState) -> Book {
        let by_board = state
            .dag
            .nodes()
            .iter()
            .enumerate()
            .map(|(i, n)| (n.pos.repetition_key(), i as NodeId))
            .collect();
        Book { state, by_board }
    }

    /// The book's graph and counters.
    pub fn state(&self) -> &BookState {
        &self.state
    }

    pub fn params(&self) -> &BuildParams {
        &self.state.params
    }

    /// The start position the book grows from.
    pub fn root(&self) -> &KiothiPosition {
        self.state.root()
    }

    /// Positions in the book.
    pub fn positions(&self) -> usize {
        self.state.dag.len()
    }

    /// The book's best line from `pos`: its best move, then the best move
    /// of the position it leads to, while the book has moves there (at
    /// most `max` moves, and no position twice).
    pub fn line(&self, pos: &KiothiPosition, max: usize) -> Vec<KiothiMove> {
        let mut line = Vec::new();
        let mut seen = vec![pos.repetition_key()];
        let mut at = *pos;
        while line.len() < max {
            let Some(best) = self.lookup(&at).and_then(|e| e.moves.first().map(|m| m.mv)) else {
                break;
            };
            let Some(next) = at.play_move(&best) else {
                break;
            };
            line.push(best);
            if seen.contains(&next.repetition_key()) {
                break;
            }
            seen.push(next.repetition_key());
            at = next;
        }
        line
    }

    /// `mv` from `pos`, then the book's best line after it: at most `max`
    /// moves in all.
    pub fn move_line(&self, pos: &KiothiPosition, mv: KiothiMove, max: usize) -> Vec<KiothiMove> {
        let child = pos.play_move(&mv).expect("a book move is legal");
        let mut line = vec![mv];
        line.extend(self.line(&child, max.saturating_sub(1)));
        line
    }

    /// What the book knows of `pos`, if it holds it (prisons aside).
    pub fn lookup(&self, pos: &KiothiPosition) -> Option<BookEntry> {
        let dag = &self.state.dag;
        let id = dag
            .find(pos)
            .or_else(|| self.by_board.get(&pos.repetition_key()).copied())?;
        let node = dag.node(id);
        let mut moves: Vec<BookMove> = node
            .edges
            .iter()
            .map(|e| BookMove {
                mv: e.mv,
                value: dag.move_value(e),
                depth: dag.move_depth(e),
            })
            .collect();
        // Best first; deeper first among equals; then the book's order.
        moves.sort_by(|a, b| b.value.cmp(&a.value).then(b.depth.cmp(&a.depth)));
        Some(BookEntry {
            value: node.value as i32,
            depth: node.depth as u32,
            moves,
            terminal: node.state == NodeState::Terminal,
        })
    }
}
