//! The one abstraction every solver, search and command is written against.

use std::fmt::{Debug, Display};
use std::hash::Hash;
use std::ops::ControlFlow;

use crate::error::InputError;

/// A player. South moves first (RULES §0). Named `S` or `N` on the
/// command line (`sow play --as N`), as in the notation.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, clap::ValueEnum,
)]
pub enum Side {
    #[value(name = "S", alias = "s")]
    South,
    #[value(name = "N", alias = "n")]
    North,
}

impl Side {
    pub const BOTH: [Side; 2] = [Side::South, Side::North];

    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    #[inline]
    pub fn other(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
        }
    }

    pub fn letter(self) -> char {
        match self {
            Side::South => 'S',
            Side::North => 'N',
        }
    }

    pub fn from_letter(text: &str) -> Option<Side> {
        match text {
            "S" => Some(Side::South),
            "N" => Some(Side::North),
            _ => None,
        }
    }
}

/// A position of a two-player mancala game, with its rules.
///
/// Positions are immutable values: `play` returns the child. Every method
/// follows RULES.md for the game that implements it.
pub trait Game: Clone + Eq + Hash + Debug + Display + Send + Sync + Sized + 'static {
    /// A legal move's description; `Display` writes RULES §3 notation.
    type Move: Copy + Eq + Hash + Debug + Display + Send + Sync + 'static;

    /// The player to move.
    fn side_to_move(&self) -> Side;

    /// Calls `f` with every legal move, in a fixed order, until it breaks.
    ///
    /// Some positions (a Kiothi opening) have hundreds of millions of moves:
    /// this is a lazy enumeration, never a materialised list.
    fn for_each_move<F: FnMut(Self::Move) -> ControlFlow<()>>(&self, f: F) -> ControlFlow<()>;

    /// Plays a move known to be legal (as given by `for_each_move`).
    fn play_unchecked(&self, mv: &Self::Move) -> Self;

    /// Parses a move in RULES §3 notation and checks that it is legal here.
    fn parse_move(&self, text: &str) -> Result<Self::Move, InputError>;

    /// Stones captured so far (Kpé) or in prison (Kiothi), indexed by `Side::index`.
    fn captured(&self) -> [u32; 2];

    /// What each side receives from the board when the game ends here
    /// (RULES Kpé §1.5, Kiothi §2.10). Only meaningful when `is_over`.
    fn final_sweep(&self) -> [u32; 2];

    /// Stones still on the board.
    fn board_total(&self) -> u32;

    /// The position with its captures/prisons cleared: everything that decides
    /// the future of play (board, marks, side to move, phase). Two positions
    /// with equal keys are the same position for RULES §0's repetition rule.
    fn repetition_key(&self) -> Self;

    /// Calls `f` with every legal move and the position it leads to.
    /// Games whose move generator already plays the move override this.
    fn for_each_child<F: FnMut(Self::Move, Self) -> ControlFlow<()>>(
        &self,
        mut f: F,
    ) -> ControlFlow<()> {
        self.for_each_move(|mv| f(mv, self.play_unchecked(&mv)))
    }

    /// Number of legal moves; games may count without enumerating.
    fn move_count(&self) -> u64 {
        let mut n = 0u64;
        let _ = self.for_each_move(|_| {
            n += 1;
            ControlFlow::Continue(())
        });
        n
    }

    /// RULES §4 perft to `depth` counted without enumerating the moves,
    /// where the rules allow it, split by groups of root moves (a label and
    /// the sequences starting with a move of that group; the counts add up
    /// to perft). `None`: the tree must be enumerated.
    fn perft_by_formula(&self, _depth: u32) -> Option<Vec<(String, u64)>> {
        None
    }

    /// The position after the `index`-th legal move (in `for_each_move`'s
    /// order), `None` past the last. Games with huge move lists unrank.
    fn nth_child(&self, index: u64) -> Option<Self> {
        nth_child_by_enumeration(self, index)
    }

    /// All legal moves. Check `move_count` first where it may be huge.
    fn legal_moves(&self) -> Vec<Self::Move> {
        let mut out = Vec::new();
        let _ = self.for_each_move(|mv| {
            out.push(mv);
            ControlFlow::Continue(())
        });
        out
    }

    /// True when the player to move has no legal move: the game is over.
    fn is_over(&self) -> bool {
        self.for_each_move(|_| ControlFlow::Break(())).is_continue()
    }

    /// Parses and plays a move, refusing an illegal one with the reason.
    fn play(&self, text: &str) -> Result<Self, InputError> {
        let mv = self.parse_move(text)?;
        Ok(self.play_unchecked(&mv))
    }

    /// Whether a final margin (either side's) is one the rules name
    /// apart: none in Kpé; Kiothi's one-warrior victory, a win by exactly
    /// two warriors (RULES §2 rule 10).
    fn is_one_warrior_victory(_final_margin: i32) -> bool {
        false
    }

    /// A game over here (the player to move has no legal move) with final
    /// `totals` (per `Side::index`) that is a one-warrior victory, reported
    /// as such; a game stopped otherwise (a third repetition) is none.
    fn ended_in_one_warrior_victory(&self, totals: [f64; 2]) -> bool {
        self.is_over() && Self::is_one_warrior_victory((totals[0] - totals[1]) as i32)
    }

    /// Value of a finished game for the player to move: RULES §0's margin
    /// counted from here, i.e. only the final sweep.
    fn terminal_value(&self) -> i32 {
        let sweep = self.final_sweep();
        let me = self.side_to_move().index();
        sweep[me] as i32 - sweep[1 - me] as i32
    }
}

/// `Game::nth_child` by walking the children up to `index`.
pub fn nth_child_by_enumeration<G: Game>(pos: &G, index: u64) -> Option<G> {
    let mut i = 0u64;
    let mut found = None;
    let _ = pos.for_each_child(|_, child| {
        if i == index {
            found = Some(child);
            return ControlFlow::Break(());
        }
        i += 1;
        ControlFlow::Continue(())
    });
    found
}
