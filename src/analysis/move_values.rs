//! Every move of a position with its value: exact from a solved Kpé
//! variant, or by a search of each move's child (Kiothi, or Kpé with a
//! search limit). This is what `eval --multipv`, `play`'s `hint` and its
//! weaker levels, and the web server's hints stand on.
//!
//! Values follow RULES §0: the future margin for the mover of the position,
//! so a move worth `v` leads to a child worth `gain - v` for the opponent.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::game::Game;
use crate::games::kpe::{KpeMove, KpePosition};
use crate::kpe_db::LockedRegion;
use crate::kpe_db::{Solution, SolveError};
use crate::search::exact_values::exact_line;
use crate::search::negamax::MAX_PLY;
use crate::search::{search_with, ExactValues, Limits, Searchable, TranspositionTable};

/// One move and what it is worth to the mover.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveValue<M> {
    pub mv: M,
    /// RULES §0 value of the move for the mover of the position.
    pub value: i32,
    /// Proven (database, or a search in which every line ended).
    pub exact: bool,
    /// The move and the best play after it (may be empty past the move when
    /// lines were not asked for).
    pub line: Vec<M>,
}

impl<M: std::fmt::Display> MoveValue<M> {
    /// The move in notation with its value (the JSON row); `with_exact`
    /// adds whether the value is proven, `with_line` the move's line.
    pub fn entry(&self, with_exact: bool, with_line: bool) -> MoveEntry {
        MoveEntry {
            mv: self.mv.to_string(),
            value: self.value,
            exact: with_exact.then_some(self.exact),
            pv: with_line.then(|| notation(&self.line)),
        }
    }
}

/// A [`MoveValue`] as the JSON outputs give it: the move in notation and
/// its value, and where asked for, whether it is proven and its line
/// (`eval`, `solve`, `openings`, the web oracle's `/api/values`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveEntry {
    #[serde(rename = "move")]
    pub mv: String,
    pub value: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pv: Option<Vec<String>>,
}

impl MoveEntry {
    /// A move and its value alone.
    pub fn new(mv: &impl std::fmt::Display, value: i32) -> Self {
        MoveEntry {
            mv: mv.to_string(),
            value,
            exact: None,
            pv: None,
        }
    }
}

/// Moves as notation strings.
pub fn notation<M: std::fmt::Display>(line: &[M]) -> Vec<String> {
    line.iter().map(|m| m.to_string()).collect()
}

/// The moves of a position with their values, best first.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveValues<M> {
    /// Best first; ties keep the move generator's order.
    pub moves: Vec<MoveValue<M>>,
    /// True when `moves` holds every legal move. A Kiothi opening has
    /// hundreds of millions: the search then values its candidate moves
    /// only (`Searchable::search_moves`), and this is false.
    pub complete: bool,
    /// Search depth of the values in plies from the position (the child
    /// searches went one ply less); 0 for database values.
    pub depth: u32,
    /// Nodes searched (0 for database values).
    pub nodes: u64,
    /// The values are the opening book's (Kiothi turns 1 and 2).
    pub book: bool,
    pub seconds: f64,
}

impl<M: Copy + PartialEq> MoveValues<M> {
    /// The best value, `None` when there is no move.
    pub fn best_value(&self) -> Option<i32> {
        self.moves.first().map(|m| m.value)
    }

    /// Every move worth the best value.
    pub fn best_moves(&self) -> Vec<M> {
        let Some(best) = self.best_value() else {
            return Vec::new();
        };
        self.moves
            .iter()
            .take_while(|m| m.value == best)
            .map(|m| m.mv)
            .collect()
    }

    /// The value of `mv`, if it is among the moves.
    pub fn value_of(&self, mv: &M) -> Option<&MoveValue<M>> {
        self.moves.iter().find(|m| m.mv == *mv)
    }

    /// True when every legal move is listed and every value is proven: the
    /// position's value (the best one) is exact.
    pub fn exact(&self) -> bool {
        self.complete && self.moves.iter().all(|m| m.exact)
    }
}

/// Sorts best first, keeping the given order among equal values.
fn sort_best_first<M>(moves: &mut [MoveValue<M>]) {
    moves.sort_by_key(|m| -m.value);
}

/// Every legal move of a Kpé position with its exact value from `solution`
/// (`extra`: the locked region solved for a position outside the start's,
/// see `Solution::region_for`). The first `lines` moves (best first) get
/// their perfect-play line, played until the game ends or a position
/// repeats (at most `max_line` moves).
pub fn kpe_move_values(
    solution: &Solution,
    pos: &KpePosition,
    extra: Option<&LockedRegion>,
    lines: usize,
    max_line: usize,
) -> Result<MoveValues<KpeMove>, SolveError> {
    let start = Instant::now();
    let mut moves = Vec::new();
    for (k, (mv, value)) in solution.move_values(pos, extra)?.into_iter().enumerate() {
        let mut line = vec![mv];
        if k < lines {
            let child = pos.play_unchecked(&mv);
            line.extend(solution.principal_variation(&child, extra, max_line.saturating_sub(1))?);
        }
        moves.push(MoveValue {
            mv,
            value,
            exact: true,
            line,
        });
    }
    Ok(MoveValues {
        moves,
        complete: true,
        depth: 0,
        nodes: 0,
        seconds: start.elapsed().as_secs_f64(),
        book: false,
    })
}

/// Depth 1: each move valued by its child's end, endgame-table value or
/// static evaluation, from the mover's view, best first.
fn depth_one_values<G: Searchable>(
    pos: &G,
    children: &[(G::Move, G)],
    exact: &dyn ExactValues<G>,
) -> Vec<MoveValue<G::Move>> {
    let mut moves: Vec<MoveValue<G::Move>> = children
        .iter()
        .map(|(mv, child)| {
            let gain = G::capture_gain(pos, child);
            let known = if child.is_over() {
                Some(child.terminal_value())
            } else {
                exact.exact_value(child)
            };
            let mut line = vec![*mv];
            if known.is_some() {
                line.extend(exact_line(child, exact, MAX_PLY));
            }
            MoveValue {
                mv: *mv,
                value: gain - known.unwrap_or_else(|| child.evaluate()),
                exact: known.is_some(),
                line,
            }
        })
        .collect();
    sort_best_first(&mut moves);
    moves
}

/// Per-move search within a budget: iterative deepening over the root, in
/// which each depth searches every candidate move's child one ply less
/// deep, with a full window (so every value is the move's own value at that
/// depth, not a bound), sharing `tt` between moves and depths. Moves are
/// tried best first from the previous depth. The result is the deepest
/// depth at which every move was searched; a move whose child was proven
/// keeps its exact value.
///
/// `limits`: `depth` counts plies from the position; `seconds` and `nodes`
/// bound the whole call (the last, incomplete depth is dropped). Depth 1
/// (each child valued by the static evaluation, or its end) is always
/// completed, whatever the limits. `on_depth` sees each completed depth.
///
/// In a Kiothi opening the candidates are the search's
/// (`Searchable::search_moves`: structured redistribution families and
/// seeded random placements per pair of lifted pits), not all of the
/// hundreds of millions of legal moves; `complete` says so.
///
/// `exact` (endgame tables) values the children it covers, and the
/// positions below them, without search.
pub fn search_move_values<G: Searchable>(
    pos: &G,
    limits: &Limits,
    threads: usize,
    tt: &TranspositionTable,
    exact: &dyn ExactValues<G>,
    stop: &AtomicBool,
    on_depth: &mut dyn FnMut(&MoveValues<G::Move>),
) -> MoveValues<G::Move> {
    let start = Instant::now();
    let children = pos.search_moves();
    let complete = children.len() as u64 == pos.move_count();
    let max_depth = limits
        .depth
        .unwrap_or(MAX_PLY as u32)
        .clamp(1, MAX_PLY as u32);
    let mut done = MoveValues {
        moves: depth_one_values(pos, &children, exact),
        complete,
        depth: 1,
        nodes: children.len() as u64,
        seconds: start.elapsed().as_secs_f64(),
        book: false,
    };
    on_depth(&done);
    let mut nodes = done.nodes;
    let child_of = |mv: &G::Move| {
        children
            .iter()
            .find(|(m, _)| m == mv)
            .map(|(_, c)| c)
            .expect("a candidate move")
    };
    'deepen: for depth in 2..=max_depth {
        if done.moves.iter().all(|m| m.exact) {
            break;
        }
        let mut next = Vec::with_capacity(done.moves.len());
        for prev in &done.moves {
            if prev.exact {
                next.push(prev.clone());
                continue;
            }
            let elapsed = start.elapsed().as_secs_f64();
            let seconds = limits.seconds.map(|s| s - elapsed);
            let node_budget = limits.nodes.map(|n| n.saturating_sub(nodes));
            if seconds.is_some_and(|s| s <= 0.0)
                || node_budget == Some(0)
                || stop.load(Ordering::Relaxed)
            {
                break 'deepen;
            }
            let child = child_of(&prev.mv);
            let child_limits = Limits {
                depth: Some(depth - 1),
                seconds,
                nodes: node_budget,
            };
            let r = search_with(child, &child_limits, threads, tt, exact, stop, &mut |_| {});
            nodes += r.nodes;
            if !r.exact && r.depth < depth - 1 {
                // Stopped by the budget before this depth: drop the depth.
                break 'deepen;
            }
            let mut line = vec![prev.mv];
            line.extend(r.pv.iter().copied());
            next.push(MoveValue {
                mv: prev.mv,
                value: G::capture_gain(pos, child) - r.value,
                exact: r.exact,
                line,
            });
        }
        sort_best_first(&mut next);
        done = MoveValues {
            moves: next,
            complete,
            depth,
            nodes,
            seconds: start.elapsed().as_secs_f64(),
            book: false,
        };
        on_depth(&done);
        // The next depth costs several times this one: do not start it
        // when it would most likely not finish in time.
        if let Some(s) = limits.seconds {
            if start.elapsed().as_secs_f64() > 0.4 * s {
                break;
            }
        }
    }
    done.nodes = nodes;
    done.seconds = start.elapsed().as_secs_f64();
    done
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::kpe::parse_position;
    use crate::infra::progress::Progress;
    use crate::search::{search_fresh, NoTables};

    #[test]
    fn kpe_database_values_are_sorted_exact_and_complete() {
        let pos = parse_position("kpe:3x3 0,4,2,3,0,3 S xxx xxx 4 2").unwrap();
        let solution = Solution::in_memory(pos.variant(), Progress::Hidden);
        let mv = kpe_move_values(&solution, &pos, None, 1, 100).unwrap();
        assert!(mv.exact());
        let listed: Vec<(String, i32)> = mv
            .moves
            .iter()
            .map(|m| (m.mv.to_string(), m.value))
            .collect();
        // As the `sow eval` example of docs/reference.md: move 1 keeps +4, move 2 gives +0.
        assert_eq!(listed, [("1".to_string(), 4), ("2".to_string(), 0)]);
        assert!(mv.moves[0].line.len() > 1, "the best move has its line");
        assert_eq!(mv.moves[1].line.len(), 1, "only one line was asked for");
        assert_eq!(mv.best_moves().len(), 1);
    }

    #[test]
    fn per_move_search_agrees_with_the_database_when_proven() {
        // A small endgame: every child is solved by the search.
        let pos = parse_position("kpe:2x2 1,0,2,1 S xx xx 2 2").unwrap();
        let solution = Solution::in_memory(pos.variant(), Progress::Hidden);
        let exact = kpe_move_values(&solution, &pos, None, 0, 0).unwrap();
        let tt = TranspositionTable::new(8);
        let stop = AtomicBool::new(false);
        let searched = search_move_values(
            &pos,
            &Limits::depth(60),
            1,
            &tt,
            &NoTables,
            &stop,
            &mut |_| {},
        );
        assert!(searched.exact(), "{searched:?}");
        for m in &exact.moves {
            assert_eq!(searched.value_of(&m.mv).unwrap().value, m.value);
        }
    }

    #[test]
    fn best_value_agrees_with_the_root_search_at_the_same_depth() {
        // Depth-limited, one thread: both are deterministic. The root search
        // and the per-move search give the same value at every depth.
        let pos = crate::games::kiothi::parse_position(
            "kiothi 2,2,0,2*,1*,2*,0,6,0,8,3,4,1,2,1,1,9,0,3,2 S play 9 2",
        )
        .unwrap();
        for depth in 1..=4 {
            let tt = TranspositionTable::new(16);
            let stop = AtomicBool::new(false);
            let per_move = search_move_values(
                &pos,
                &Limits::depth(depth),
                1,
                &tt,
                &NoTables,
                &stop,
                &mut |_| {},
            );
            let root = search_fresh(&pos, &Limits::depth(depth), 16);
            assert_eq!(per_move.depth, depth);
            assert_eq!(per_move.best_value(), Some(root.value), "depth {depth}");
            assert!(per_move.complete);
            assert_eq!(per_move.moves.len() as u64, pos.move_count());
        }
    }
}
