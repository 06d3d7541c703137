//! `sow eval`'s answer, computed once for the command line (text or
//! `--json`) and the web oracle (`/api/eval`): exact from a solved Kpé
//! variant, or by search (Kiothi, or Kpé with a search limit).
//!
//! Fields are declared in alphabetical order: the JSON they print is
//! byte-identical to the `serde_json` maps (sorted keys) `eval` printed
//! before these structs, plus the keys added since (`over`,
//! `final_margin` for Kpé, `moves` with `--multipv`).

use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

use super::book_oracle::{reply_limits, REPLY_SEED};
use super::kpe_db::result_word;
use super::move_values::{notation, search_move_values, MoveEntry, MoveValues};
use super::oracle::{KpeOracle, Oracle};
use super::search_budget::Budget;
use super::value_sources::{ValueSources, Valued};
use crate::book::{is_turn_2, Book, Replies};
use crate::error::CliError;
use crate::game::Game;
use crate::games::kiothi::KiothiPosition;
use crate::games::kpe::KpePosition;
use crate::games::AnyPosition;
use crate::kpe_db::SolveError;
use crate::search::{search_with, SearchResult};

/// `eval` of a Kpé position from its solved database.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExactEvaluation {
    /// A best move; `null` when the game is over.
    pub best: Option<String>,
    /// Whether some line of perfect play (value-keeping moves) reaches the
    /// end of the game; stored in the database by the solve (`endless.rs`).
    pub can_end: bool,
    /// Always true.
    pub exact: bool,
    /// The final margin of the game for the mover if the value holds
    /// (captures so far plus the value).
    pub final_margin: i32,
    /// Every legal move with its value, best first.
    pub moves: Vec<MoveEntry>,
    /// The game is over: the value is the final sweep (RULES §1 rule 5).
    pub over: bool,
    pub position: String,
    /// The perfect-play line, to the end or to the first repetition.
    pub pv: Vec<String>,
    /// `end of game` or `repetition (endless play)`.
    pub pv_ends_by: &'static str,
    /// `win`, `draw` or `loss` of the game for the mover: the sign of
    /// `final_margin` (the value counts only what is still to be won).
    pub result: &'static str,
    /// RULES §0 value for the mover.
    pub value: i32,
}

/// `eval` by search.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SearchEvaluation {
    pub best: Option<String>,
    /// Kiothi, turn 1 or 2: the answer is the opening book's (value, best
    /// move, line and moves; `depth` the book's depth under the position),
    /// not a search's. The key is printed only then.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub book: bool,
    /// Kiothi, North's turn 2 out of the book: the answer is the reply
    /// search's (North's best replies found; `depth` the best reply's
    /// search), not the engine's search over its candidate families. The
    /// key is printed only then.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub reply_search: bool,
    /// Depth of the deepest completed iteration (0 when the game is over).
    pub depth: u32,
    /// Kiothi: the search took exact values from the endgame tables of
    /// boards of up to this many warriors; `null` without tables.
    pub endgame_stones: Option<usize>,
    pub exact: bool,
    pub final_margin: i32,
    /// Ctrl-C stopped the search: the best completed iteration is given.
    pub interrupted: bool,
    /// With `--multipv N`: the N best moves, each with its value, line and
    /// whether it is proven, all from the same depth.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moves: Option<Vec<MoveEntry>>,
    pub nodes: u64,
    pub nps: f64,
    /// Kiothi, exact: perfect play ends in a win by exactly two warriors,
    /// a one-warrior victory (RULES §2 rule 10). Never for an estimate,
    /// whose line need not reach the end.
    pub one_warrior_victory: bool,
    /// The game is over: the value is the final sweep (RULES §2 rule 10).
    pub over: bool,
    pub position: String,
    pub pv: Vec<String>,
    pub seconds: f64,
    pub value: i32,
}

/// Either answer, as `eval --json` prints it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Evaluation {
    Exact(ExactEvaluation),
    Search(SearchEvaluation),
}

/// The final margin for the mover of `pos` if `value` holds.
pub fn final_margin<G: Game>(pos: &G, value: i32) -> i32 {
    let c = pos.captured();
    let me = pos.side_to_move().index();
    c[me] as i32 - c[1 - me] as i32 + value
}

/// The exact evaluation of a Kpé position; with `multipv = Some(n)` the
/// first `n` moves also carry their perfect-play line.
pub fn kpe_evaluation(
    oracle: &mut KpeOracle,
    pos: &KpePosition,
    multipv: Option<usize>,
) -> Result<ExactEvaluation, SolveError> {
    let lines = multipv.unwrap_or(0);
    let values = oracle.move_values_with_lines(pos, lines)?;
    let (value, _) = oracle.value(pos)?;
    let line = oracle.played_line(pos)?;
    Ok(ExactEvaluation {
        best: values.moves.first().map(|m| m.mv.to_string()),
        can_end: oracle.can_end(pos)?,
        exact: true,
        final_margin: final_margin(pos, value),
        moves: values
            .moves
            .iter()
            .enumerate()
            .map(|(i, m)| m.entry(false, i < lines))
            .collect(),
        over: pos.is_over(),
        position: pos.to_string(),
        pv: notation(&line.moves),
        pv_ends_by: line.ended_by,
        result: result_word(final_margin(pos, value)),
        value,
    })
}

impl SearchEvaluation {
    /// The evaluation from a root search (`search::search`).
    pub fn from_root<G: Game>(
        pos: &G,
        root: &SearchResult<G::Move>,
        interrupted: bool,
    ) -> SearchEvaluation {
        let margin = final_margin(pos, root.value);
        SearchEvaluation {
            best: root.best.map(|m| m.to_string()),
            book: false,
            reply_search: false,
            depth: root.depth,
            endgame_stones: None,
            exact: root.exact,
            final_margin: margin,
            interrupted,
            moves: None,
            nodes: root.nodes,
            nps: root.nps,
            one_warrior_victory: root.exact && G::is_one_warrior_victory(margin),
            over: pos.is_over(),
            position: pos.to_string(),
            pv: notation(&root.pv),
            seconds: root.seconds,
            value: root.value,
        }
    }

    /// The evaluation from a per-move search (`--multipv n`): the value,
    /// best move and line are its best move's, and the `n` best moves are
    /// listed. A finished position has no move: its value is the sweep.
    pub fn from_move_values<G: Game>(
        pos: &G,
        values: &MoveValues<G::Move>,
        n: usize,
        interrupted: bool,
    ) -> SearchEvaluation {
        let top = values.moves.first();
        let value = top.map_or_else(|| pos.terminal_value(), |m| m.value);
        let margin = final_margin(pos, value);
        let exact = values.exact() || top.is_none();
        SearchEvaluation {
            best: top.map(|m| m.mv.to_string()),
            book: false,
            reply_search: false,
            depth: values.depth,
            endgame_stones: None,
            exact,
            final_margin: margin,
            interrupted,
            moves: Some(
                values
                    .moves
                    .iter()
                    .take(n)
                    .map(|m| m.entry(true, true))
                    .collect(),
            ),
            nodes: values.nodes,
            nps: values.nodes as f64 / values.seconds.max(1e-9),
            one_warrior_victory: exact && G::is_one_warrior_victory(margin),
            over: pos.is_over(),
            position: pos.to_string(),
            pv: top.map(|m| notation(&m.line)).unwrap_or_default(),
            seconds: values.seconds,
            value,
        }
    }
}

/// The answer for a Kiothi position of turn 1 or 2: the setup's shipped
/// opening book's when it has moves there (a damaged book is refused: the
/// error contract's `database`, naming the file), else at North's turn 2
/// the reply search's within `budget`; `None` elsewhere.
pub fn opening_answer(
    sources: &ValueSources,
    pos: &AnyPosition,
    budget: &Budget,
    multipv: Option<usize>,
) -> Result<Option<Evaluation>, CliError> {
    let AnyPosition::Kiothi(p) = pos else {
        return Ok(None);
    };
    if !p.is_opening() {
        return Ok(None);
    }
    let book = sources.kiothi_book(p.setup())?;
    if let Some(e) = book.and_then(|b| book_evaluation(&b, p, multipv)) {
        return Ok(Some(Evaluation::Search(e)));
    }
    if !is_turn_2(p) {
        return Ok(None);
    }
    let found = reply_limits(budget).search(p, REPLY_SEED).ok();
    Ok(found.map(|r| Evaluation::Search(reply_evaluation(p, &r, multipv))))
}

/// North's best replies found by the reply search, as an evaluation of
/// the turn-2 `pos`; with `multipv = Some(n)` the `n` best found (at most
/// the search's report).
pub fn reply_evaluation(
    pos: &KiothiPosition,
    found: &Replies,
    multipv: Option<usize>,
) -> SearchEvaluation {
    let moves = multipv.map(|n| {
        found
            .replies
            .iter()
            .take(n)
            .map(|r| MoveEntry {
                mv: r.mv.clone(),
                value: r.value,
                exact: Some(false),
                pv: Some(vec![r.mv.clone()]),
            })
            .collect()
    });
    let best = &found.best;
    SearchEvaluation {
        best: Some(best.mv.clone()),
        book: false,
        reply_search: true,
        depth: best.depth,
        endgame_stones: None,
        exact: false,
        final_margin: final_margin(pos, best.value),
        interrupted: false,
        moves,
        nodes: found.nodes,
        nps: found.nodes as f64 / found.seconds.max(1e-9),
        one_warrior_victory: false,
        over: false,
        position: pos.to_string(),
        pv: vec![best.mv.clone()],
        seconds: found.seconds,
        value: best.value,
    }
}

/// The opening book's answer for the Kiothi position `pos`, when the book
/// has moves there (a position it expanded; a leaf of the book is only a
/// short search, which `eval` does better): its value, best move and best
/// line through the book, and with `multipv = Some(n)` its `n` best moves
/// with their lines.
pub fn book_evaluation(
    book: &Book,
    pos: &KiothiPosition,
    multipv: Option<usize>,
) -> Option<SearchEvaluation> {
    let entry = book.lookup(pos)?;
    let best = entry.moves.first()?;
    let moves = multipv.map(|n| {
        entry
            .moves
            .iter()
            .take(n)
            .map(|m| {
                let line = book.move_line(pos, m.mv, crate::book::probe::BOOK_LINE);
                MoveEntry {
                    mv: m.mv.to_string(),
                    value: m.value,
                    exact: Some(false),
                    pv: Some(notation(&line)),
                }
            })
            .collect()
    });
    let margin = final_margin(pos, entry.value);
    Some(SearchEvaluation {
        best: Some(best.mv.to_string()),
        book: true,
        reply_search: false,
        depth: entry.depth,
        endgame_stones: None,
        exact: false,
        final_margin: margin,
        interrupted: false,
        moves,
        nodes: 0,
        nps: 0.0,
        one_warrior_victory: false,
        over: false,
        position: pos.to_string(),
        pv: notation(&book.line(pos, crate::book::probe::BOOK_LINE)),
        seconds: 0.0,
        value: entry.value,
    })
}

/// A completed iteration of a search evaluation, as its progress shows it.
pub enum Iteration {
    /// A depth of the root search: its value and principal variation.
    Root {
        depth: u32,
        value: i32,
        nodes: u64,
        nps: f64,
        pv: String,
    },
    /// A depth of the per-move search (`--multipv`): the moves valued and
    /// the best, with its value.
    Moves {
        depth: u32,
        moves: usize,
        best: Option<(String, i32)>,
        nodes: u64,
        seconds: f64,
    },
}

/// Evaluates `pos`: exact from the Kpé database when `exact` (and the game
/// has one), else by a search within `budget` through the game's exact
/// values, stopped early by `stop` (the best completed iteration is then
/// given, marked interrupted). With `multipv = Some(n)` the first `n`
/// moves come with their lines (by search: every move's child searched to
/// the same depth). `on_iteration` sees each completed depth of a search.
pub fn evaluate(
    sources: &ValueSources,
    pos: &AnyPosition,
    exact: bool,
    budget: &Budget,
    multipv: Option<usize>,
    stop: &AtomicBool,
    on_iteration: &mut dyn FnMut(Iteration),
) -> Result<Evaluation, CliError> {
    match pos {
        AnyPosition::Kpe(p) if exact => {
            let oracle = sources.kpe(p.variant())?;
            let mut oracle = oracle.lock().unwrap_or_else(|e| e.into_inner());
            Ok(Evaluation::Exact(kpe_evaluation(&mut oracle, p, multipv)?))
        }
        AnyPosition::Kpe(p) => search_evaluation(sources, p, budget, multipv, stop, on_iteration),
        AnyPosition::Kiothi(p) => {
            search_evaluation(sources, p, budget, multipv, stop, on_iteration)
        }
    }
}

fn search_evaluation<G: Valued>(
    sources: &ValueSources,
    pos: &G,
    budget: &Budget,
    multipv: Option<usize>,
    stop: &AtomicBool,
    on_iteration: &mut dyn FnMut(Iteration),
) -> Result<Evaluation, CliError> {
    let exact = G::exact_values(sources)?;
    let limits = budget.limits()?;
    let tt = budget.table()?;
    let threads = budget.threads.max(1);
    let mut e = match multipv {
        Some(n) => {
            let values = search_move_values(pos, &limits, threads, &tt, &*exact, stop, &mut |v| {
                let best = v.moves.first().map(|m| (m.mv.to_string(), m.value));
                on_iteration(Iteration::Moves {
                    depth: v.depth,
                    moves: v.moves.len(),
                    best,
                    nodes: v.nodes,
                    seconds: v.seconds,
                })
            });
            SearchEvaluation::from_move_values(pos, &values, n, stop.load(Ordering::SeqCst))
        }
        None => {
            let root = search_with(pos, &limits, threads, &tt, &*exact, stop, &mut |r| {
                on_iteration(Iteration::Root {
                    depth: r.depth,
                    value: r.value,
                    nodes: r.nodes,
                    nps: r.nps,
                    pv: r.pv_string(),
                })
            });
            SearchEvaluation::from_root(pos, &root, stop.load(Ordering::SeqCst))
        }
    };
    e.endgame_stones = exact.endgame_stones();
    Ok(Evaluation::Search(e))
}
