//! Where values come from: the exact Kpé database, or a search within a
//! budget. `analyze` judges each move of a game through an [`Oracle`];
//! `play` asks it for hints and for its own moves.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use super::kpe_db::{played_line, PlayedLine, LINE_LIMIT};
use super::marks::Thresholds;
use super::move_values::{kpe_move_values, search_move_values, MoveValues};
use crate::game::Game;
use crate::games::kpe::{KpeMove, KpePosition};
use crate::infra::progress::Progress;
use crate::kpe_db::LockedRegion;
use crate::kpe_db::{Solution, SolveError};
use crate::search::{
    search_with, ExactValues, Limits, NoTables, SearchResult, Searchable, TranspositionTable,
};

/// What a move of a game was worth, against the position's best.
#[derive(Clone, Debug, PartialEq)]
pub struct Judgement<M> {
    /// The position's value for the mover (RULES §0).
    pub value: i32,
    /// The value of the move played, for the mover.
    pub played: i32,
    /// The best moves found (every move worth `value`, as far as known).
    pub best: Vec<M>,
    /// Both `value` and `played` are proven.
    pub exact: bool,
    /// `value` is proven (whatever `played` is).
    pub value_exact: bool,
    /// The best value among the other moves than the one played, when the
    /// played move keeps the value and the others were all valued (or one
    /// of them came close enough to rule out the only-move mark `!`).
    /// `None` when not known or when there is no other move.
    pub others_best: Option<i32>,
    /// Search depth in plies (0: database).
    pub depth: u32,
}

impl<M: Copy + PartialEq> Judgement<M> {
    /// `value - played`, never negative (a search may value the played
    /// move above the position when their horizons differ: it then counts
    /// as a best move).
    pub fn loss(&self) -> i32 {
        (self.value - self.played).max(0)
    }

    /// Sets the value of the move played, `mv`, to `played` (`exact`: as
    /// proven). A move worth more than the position's estimate raises the
    /// estimate and is its best move; one worth as much is one of them.
    pub fn set_played(&mut self, mv: M, played: i32, exact: bool) {
        if played > self.value && !self.value_exact {
            self.value = played;
            self.best = vec![mv];
        } else if played == self.value && !self.best.contains(&mv) {
            self.best.push(mv);
        }
        self.played = played;
        self.exact = self.value_exact && exact;
    }
}

/// A source of values for the positions of one game.
pub trait Oracle<G: Game> {
    /// Every move with its value, best first (in a Kiothi opening, the
    /// search's candidate moves; see [`MoveValues::complete`]).
    fn move_values(&mut self, pos: &G) -> Result<MoveValues<G::Move>, SolveError>;

    /// The position's value, its best moves and the value of `played`.
    fn judge(&mut self, pos: &G, played: &G::Move) -> Result<Judgement<G::Move>, SolveError>;

    /// The value of a position (for the mover) and whether it is proven.
    fn value(&mut self, pos: &G) -> Result<(i32, bool), SolveError>;

    /// A best move (`None` when the game is over).
    fn best_move(&mut self, pos: &G) -> Result<Option<G::Move>, SolveError> {
        Ok(self.move_values(pos)?.moves.first().map(|m| m.mv))
    }
}

/// A judgement from every move's value (exact sources list them all).
pub(super) fn judge_from_values<M: Copy + PartialEq>(
    values: &MoveValues<M>,
    played: &M,
) -> Option<Judgement<M>> {
    let value = values.best_value()?;
    let mine = values.value_of(played)?;
    let others_best = values
        .moves
        .iter()
        .filter(|m| m.mv != *played)
        .map(|m| m.value)
        .max()
        .filter(|_| values.complete);
    Some(Judgement {
        value,
        played: mine.value,
        best: values.best_moves(),
        exact: values.exact(),
        value_exact: values.exact(),
        others_best,
        depth: values.depth,
    })
}

/// Exact values of a solved Kpé variant.
pub struct KpeOracle {
    solution: Solution,
    /// Locked regions solved for positions outside the start's region
    /// (a game started from such a position), kept for the next questions.
    extra: Vec<LockedRegion>,
    progress: Progress,
}

impl KpeOracle {
    pub fn new(solution: Solution, progress: Progress) -> Self {
        KpeOracle {
            solution,
            extra: Vec::new(),
            progress,
        }
    }

    pub fn solution(&self) -> &Solution {
        &self.solution
    }

    /// The index in `extra` of the locked region that holds `pos`, solved
    /// on demand; `None` when the database answers alone.
    fn region(&mut self, pos: &KpePosition) -> Result<Option<usize>, SolveError> {
        if let Some(i) = self.extra.iter().position(|r| r.value(pos).is_some()) {
            return Ok(Some(i));
        }
        Ok(match self.solution.region_for(pos, self.progress)? {
            Some(r) => {
                self.extra.push(r);
                Some(self.extra.len() - 1)
            }
            None => None,
        })
    }

    /// Every move with its value; the first `lines` get their perfect-play line.
    pub fn move_values_with_lines(
        &mut self,
        pos: &KpePosition,
        lines: usize,
    ) -> Result<MoveValues<KpeMove>, SolveError> {
        // The children of a locked position lie in its region (marks only grow).
        let extra = self.region(pos)?.map(|i| &self.extra[i]);
        kpe_move_values(&self.solution, pos, extra, lines, LINE_LIMIT)
    }

    /// Whether perfect play from `pos` can end (`Solution::can_end`).
    pub fn can_end(&mut self, pos: &KpePosition) -> Result<bool, SolveError> {
        let extra = self.region(pos)?.map(|i| &self.extra[i]);
        self.solution.can_end(pos, extra)
    }

    /// The perfect-play line from `pos`, to the end or the first repetition.
    pub fn played_line(&mut self, pos: &KpePosition) -> Result<PlayedLine, SolveError> {
        let extra = self.region(pos)?.map(|i| &self.extra[i]);
        played_line(&self.solution, pos, extra)
    }
}

impl Oracle<KpePosition> for KpeOracle {
    fn move_values(&mut self, pos: &KpePosition) -> Result<MoveValues<KpeMove>, SolveError> {
        self.move_values_with_lines(pos, 0)
    }

    fn judge(
        &mut self,
        pos: &KpePosition,
        played: &KpeMove,
    ) -> Result<Judgement<KpeMove>, SolveError> {
        let values = self.move_values(pos)?;
        judge_from_values(&values, played).ok_or_else(|| {
            crate::InputError::illegal(played.to_string(), "not a legal move here").into()
        })
    }

    fn value(&mut self, pos: &KpePosition) -> Result<(i32, bool), SolveError> {
        if pos.is_over() {
            return Ok((pos.terminal_value(), true));
        }
        let extra = self.region(pos)?.map(|i| &self.extra[i]);
        Ok((self.solution.value(pos, extra)?, true))
    }
}

/// Values by search within a budget per position: iterative-deepening
/// alpha-beta on `threads` threads, one transposition table for the whole
/// game (positions of a game share much of their trees), and the exact
/// values of endgame tables where they reach.
pub struct SearchOracle<G> {
    pub limits: Limits,
    pub threads: usize,
    tt: TranspositionTable,
    exact: Arc<dyn ExactValues<G>>,
    stop: Arc<AtomicBool>,
}

impl<G: Searchable> SearchOracle<G> {
    /// A search within `limits` on `threads` threads through `tt`.
    pub fn new(
        limits: Limits,
        threads: usize,
        tt: TranspositionTable,
        stop: Arc<AtomicBool>,
    ) -> Self {
        SearchOracle {
            limits,
            threads: threads.max(1),
            tt,
            exact: Arc::new(NoTables),
            stop,
        }
    }

    /// The oracle taking `exact`'s values (endgame tables) instead of
    /// searching below them.
    pub fn with_exact(self, exact: Arc<dyn ExactValues<G>>) -> Self {
        SearchOracle { exact, ..self }
    }

    /// Searches the child of `mv` to `depth - 1` plies (within the time
    /// budget) and returns the move's value for the mover and whether it
    /// is proven.
    fn move_value(&self, pos: &G, mv: &G::Move, depth: u32) -> (i32, bool) {
        let child = pos.play_unchecked(mv);
        let limits = Limits {
            depth: Some(depth.saturating_sub(1).max(1)),
            ..self.limits
        };
        let r = search_with(
            &child,
            &limits,
            self.threads,
            &self.tt,
            &*self.exact,
            &self.stop,
            &mut |_| {},
        );
        (G::capture_gain(pos, &child) - r.value, r.exact)
    }
}

impl<G: Searchable> Oracle<G> for SearchOracle<G> {
    fn move_values(&mut self, pos: &G) -> Result<MoveValues<G::Move>, SolveError> {
        Ok(search_move_values(
            pos,
            &self.limits,
            self.threads,
            &self.tt,
            &*self.exact,
            &self.stop,
            &mut |_| {},
        ))
    }

    /// The root search gives the value, the best move and the depth `d`
    /// reached in the budget; a played move that is not the best is
    /// searched to the same depth (its child to `d - 1`), so that both
    /// values share a horizon. When the played move keeps the value, the
    /// other moves are searched the same way, best guesses first, within a
    /// second budget, to tell whether it was the only one (`!`); this stops
    /// as soon as one of them comes within the inaccuracy threshold.
    fn judge(&mut self, pos: &G, played: &G::Move) -> Result<Judgement<G::Move>, SolveError> {
        let root = self.root(pos);
        let depth = root.depth.max(1);
        let mut j = Judgement {
            value: root.value,
            played: root.value,
            best: root.best.into_iter().collect(),
            exact: root.exact,
            value_exact: root.exact,
            others_best: None,
            depth,
        };
        let (played_value, played_exact) = if j.best.first() == Some(played) {
            (j.value, j.exact)
        } else {
            self.move_value(pos, played, depth)
        };
        // Different horizons may value the played move above the root:
        // it is then the better one found.
        j.set_played(*played, played_value, played_exact);
        if j.played == j.value {
            j.others_best = self.others_best(pos, played, j.value, depth, j.exact);
        }
        Ok(j)
    }

    fn value(&mut self, pos: &G) -> Result<(i32, bool), SolveError> {
        let r = self.root(pos);
        Ok((r.value, r.exact))
    }

    fn best_move(&mut self, pos: &G) -> Result<Option<G::Move>, SolveError> {
        Ok(self.root(pos).best)
    }
}

impl<G: Searchable> SearchOracle<G> {
    /// A search of `pos` within the budget.
    fn root(&self, pos: &G) -> SearchResult<G::Move> {
        search_with(
            pos,
            &self.limits,
            self.threads,
            &self.tt,
            &*self.exact,
            &self.stop,
            &mut |_| {},
        )
    }

    /// The best value of the moves other than `played` (see `judge`), or
    /// `None` when the budget ran out first or there is no other move.
    fn others_best(
        &self,
        pos: &G,
        played: &G::Move,
        value: i32,
        depth: u32,
        exact: bool,
    ) -> Option<i32> {
        let start = std::time::Instant::now();
        let close = value - Thresholds::for_values(exact).inaccuracy;
        // Best guesses first: a close alternative ends the search early.
        let mut others: Vec<(i32, G::Move)> = pos
            .search_moves()
            .into_iter()
            .filter(|(mv, _)| mv != played)
            .map(|(mv, child)| (G::capture_gain(pos, &child) - child.evaluate(), mv))
            .collect();
        if others.is_empty() || (others.len() as u64) + 1 < pos.move_count() {
            // No other move, or candidates only (Kiothi opening): the
            // only-move mark needs every move.
            return None;
        }
        others.sort_by_key(|&(v, _)| -v);
        let mut best = i32::MIN;
        for (_, mv) in others {
            if self
                .limits
                .seconds
                .is_some_and(|s| start.elapsed().as_secs_f64() >= s)
            {
                return None;
            }
            let (v, _) = self.move_value(pos, &mv, depth);
            best = best.max(v);
            if v > close {
                break;
            }
        }
        Some(best)
    }
}
