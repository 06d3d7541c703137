//! Annotating a played game: for every ply the value before the move, the
//! value of the move played, the best moves, the loss and a mark; per
//! player the share of value-keeping moves, the mean loss and the marks;
//! and the ply at which the result was decided. `sow analyze` prints this
//! (text, `--json`, Markdown) and the web server serves it.

use serde::Serialize;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use super::game_replay::replay;
use super::game_text::GameText;
use super::kiothi_tables::search_method;
use super::marks::{Mark, Thresholds};
use super::oracle::{Judgement, Oracle};
use super::search_budget::Budget;
use super::value_sources::{ValueSources, Valued};
use crate::error::CliError;
use crate::game::{Game, Side};
use crate::games::kiothi::KiothiPosition;
use crate::games::AnyPosition;
use crate::infra::progress::Progress;
use crate::kpe_db::SolveError;
use crate::record::{final_totals, winner_of, GameRecord};
use crate::search::Searchable;

/// One ply of an analysed game. Values are for the mover, in stones.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlyAnalysis {
    /// 1-based.
    pub ply: usize,
    /// `"S"` or `"N"`.
    pub side: String,
    #[serde(rename = "move")]
    pub mv: String,
    /// The position's value before the move (RULES §0).
    pub value: i32,
    /// The value of the move played.
    pub played: i32,
    /// The best moves (every move worth `value`, as far as known).
    pub best: Vec<String>,
    /// `value - played`, at least 0.
    pub loss: i32,
    pub mark: Option<Mark>,
    /// Both values proven.
    pub exact: bool,
    /// The position before the move.
    pub position: String,
    /// South's expected final margin before the move: the captures so far
    /// plus the value, from South's side (the value graph plots this).
    pub south_margin: i32,
    /// Search depth in plies (0: database).
    pub depth: u32,
}

/// Counts of each mark.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MarkCounts {
    #[serde(rename = "??")]
    pub blunders: usize,
    #[serde(rename = "?")]
    pub mistakes: usize,
    #[serde(rename = "?!")]
    pub inaccuracies: usize,
    #[serde(rename = "!")]
    pub only_moves: usize,
}

impl MarkCounts {
    fn add(&mut self, mark: Mark) {
        match mark {
            Mark::Blunder => self.blunders += 1,
            Mark::Mistake => self.mistakes += 1,
            Mark::Inaccuracy => self.inaccuracies += 1,
            Mark::Only => self.only_moves += 1,
        }
    }
}

/// One player's moves in sum (a match's random opening plies left out).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PlayerSummary {
    /// Share (0 to 1) of the player's moves that kept the value (lost less
    /// than the inaccuracy threshold); `null` when the player did not move.
    pub value_keeping: Option<f64>,
    /// Mean loss in stones per move; `null` when the player did not move.
    pub mean_loss: Option<f64>,
    pub marks: MarkCounts,
    pub moves: usize,
    /// The agent or person, when the record names them.
    pub name: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Players {
    #[serde(rename = "S")]
    pub south: PlayerSummary,
    #[serde(rename = "N")]
    pub north: PlayerSummary,
}

/// How the analysed game ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ending {
    /// `over` (no legal move), `repetition` (third occurrence, RULES §0) or
    /// `unfinished` (the record stops earlier, e.g. at a match's ply cap).
    pub end: &'static str,
    pub position: String,
    /// Final stones of South and North: captures plus the sweep, or plus
    /// half the board each for a repetition or an unfinished game (as
    /// `sow match` scores a game stopped at its ply cap).
    pub points: [f64; 2],
    /// `"S"`, `"N"` or `null` for a draw.
    pub winner: Option<String>,
    /// A Kiothi game over (`end` is `over`) won by exactly two warriors:
    /// RULES §2.10's one-warrior victory, reported as such.
    pub one_warrior_victory: bool,
    /// South's expected final margin in the last position, by the oracle.
    pub south_margin: i32,
    pub exact: bool,
}

/// A whole game, annotated (`sow analyze --json`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameAnalysis {
    /// The game and variant, as notation tags it (`kpe`, `kpe:3x3`, `kiothi`).
    pub game: String,
    pub start: String,
    pub plies: Vec<PlyAnalysis>,
    pub players: Players,
    /// The ply after which the result (win, draw or loss) was decided and
    /// stayed so: from the position after this ply on, every position's
    /// proven value gives the game's final result. 0: decided from the
    /// start; `null`: never proven (Kiothi far from the end) or the game
    /// ended otherwise than its value said (a repetition, a record cut short).
    pub decided_at: Option<usize>,
    pub ending: Ending,
    /// Plies at the start that no player chose (a match record's random
    /// opening): annotated, but not in the players' summaries.
    pub opening_plies: usize,
    /// Moves the record gives after the end of the game (after a third
    /// repetition, or once the player to move has none): counted, not
    /// analysed.
    pub ignored_moves: usize,
    /// Where the values come from.
    pub method: String,
    /// The marks' thresholds in stones of loss.
    pub thresholds: ThresholdSet,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ThresholdSet {
    pub exact: Thresholds,
    pub estimate: Thresholds,
}

/// South's view of a value for the mover of `pos`, plus the captures so
/// far: the final margin for South if the value holds.
fn south_margin<G: Game>(pos: &G, value: i32) -> i32 {
    let c = pos.captured();
    let for_south = if pos.side_to_move() == Side::South {
        value
    } else {
        -value
    };
    c[0] as i32 - c[1] as i32 + for_south
}

/// The first index `k` such that every position from `k` on has a proven
/// value whose result (sign of South's margin) is `result`.
fn decided_from(positions: &[(i32, bool)], result: i32) -> Option<usize> {
    let mut k = positions.len();
    while k > 0 {
        let (margin, exact) = positions[k - 1];
        if !exact || margin.signum() != result {
            break;
        }
        k -= 1;
    }
    (k < positions.len()).then_some(k)
}

/// A move whose resulting position has a proven value (the next ply's, or
/// the last position's) is worth exactly the stones it captured minus
/// that value: the judgement takes it, where the search of the move alone
/// may have stopped short of a proof (a search through endgame tables
/// proves the later positions of a game first).
fn played_from_proven_successors<G: Searchable>(
    judged: &mut [Judgement<G::Move>],
    positions: &[G],
    moves: &[G::Move],
    last: (i32, bool),
) {
    for i in 0..judged.len() {
        let (next_value, next_exact) = match judged.get(i + 1) {
            Some(next) => (next.value, next.value_exact),
            None => last,
        };
        if !next_exact || judged[i].exact {
            continue;
        }
        let gain = G::capture_gain(&positions[i], &positions[i + 1]);
        judged[i].set_played(moves[i], gain - next_value, true);
    }
}

/// What is known of a game besides its moves.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameInfo {
    /// South's and North's players, when the record names them.
    pub names: [Option<String>; 2],
    /// Plies at the start that no player chose (a match's random opening):
    /// annotated, but left out of the players' summaries.
    pub opening_plies: usize,
    /// Moves of the record after the end of the game (see
    /// [`GameAnalysis::ignored_moves`]).
    pub ignored_moves: usize,
    /// Where the values come from, in words.
    pub method: String,
}

/// `GameInfo::method` for a Kpé game valued from its solved database.
pub const FROM_DATABASE: &str = "exact, from the solved database";

impl GameInfo {
    /// The players and random opening plies a game's text names, with the
    /// values' `method` in words.
    pub fn new(game: &GameText, method: impl Into<String>) -> Self {
        GameInfo {
            names: game.names.clone(),
            opening_plies: game.opening_plies,
            ignored_moves: 0,
            method: method.into(),
        }
    }

    /// The same, with `moves` of the record after the end of the game
    /// (as `game_replay::replay` counts them).
    pub fn ignoring(self, moves: usize) -> Self {
        GameInfo {
            ignored_moves: moves,
            ..self
        }
    }
}

/// Analyses a played game (`sow analyze`, the web oracle's
/// `/api/analyze`): its moves replayed from `start`, then every ply valued,
/// Kpé exactly from its database, Kiothi by a search of each position
/// within `budget` (its time is per position) through the endgame tables;
/// `progress` shows a bar of the plies.
pub fn analyze_played(
    sources: &ValueSources,
    game: &GameText,
    start: &AnyPosition,
    budget: &Budget,
    stop: Arc<AtomicBool>,
    progress: Progress,
) -> Result<GameAnalysis, CliError> {
    let bar = progress.bar(game.moves.len() as u64 + 1, "analyze");
    let on_ply = &mut |done: usize, all: usize| {
        bar.set_length(all as u64);
        bar.set_position(done as u64)
    };
    let analysis = match start {
        AnyPosition::Kpe(p) => {
            let (record, ignored) = replay(p, game)?;
            let oracle = sources.kpe(p.variant())?;
            let mut oracle = oracle.lock().unwrap_or_else(|e| e.into_inner());
            let info = GameInfo::new(game, FROM_DATABASE).ignoring(ignored);
            analyze_game(&record, &mut *oracle, info, on_ply)?
        }
        AnyPosition::Kiothi(p) => {
            let (record, ignored) = replay(p, game)?;
            let seconds = budget.seconds.unwrap_or_default();
            let mut method = search_method(seconds, budget.threads, &*sources.kiothi_tables()?);
            if sources.kiothi_book(p.setup())?.is_some() {
                method += "; turns 1 and 2 from the opening book where it holds the position";
            }
            method += "; North's turn 2 out of the book by the reply search";
            let mut search = sources.search_oracle(budget, stop)?;
            let info = GameInfo::new(game, method).ignoring(ignored);
            KiothiPosition::with_book(sources, p, budget, &mut search, |oracle| {
                Ok(analyze_game(&record, oracle, info, on_ply)?)
            })?
        }
    };
    bar.finish_and_clear();
    Ok(analysis)
}

/// Annotates every ply of `record` with values from `oracle`;
/// `on_ply(done, total)` follows the work (one call per ply, then one for
/// the last position).
pub fn analyze_game<G: Searchable, O: Oracle<G> + ?Sized>(
    record: &GameRecord<G>,
    oracle: &mut O,
    info: GameInfo,
    on_ply: &mut dyn FnMut(usize, usize),
) -> Result<GameAnalysis, SolveError> {
    let moves = record.moves();
    let JudgedGame {
        positions,
        judged,
        last,
    } = judge_game(record, oracle, on_ply)?;
    let plies: Vec<PlyAnalysis> = (0..moves.len())
        .map(|i| ply_row(i, &positions[i], &judged[i], &moves[i]))
        .collect();
    let players = summarize_players(&plies, &positions, &info);
    let pos = positions.last().expect("the start");
    let (ending, final_sign) = ending(record, pos, last);
    // South's margin before each ply and at the end, with whether it is
    // proven: where the result was decided.
    let margins: Vec<(i32, bool)> = plies
        .iter()
        .zip(&judged)
        .map(|(p, j)| (p.south_margin, j.value_exact))
        .chain([(ending.south_margin, ending.exact)])
        .collect();
    Ok(GameAnalysis {
        game: record
            .start()
            .to_string()
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_string(),
        start: record.start().to_string(),
        plies,
        players,
        decided_at: decided_from(&margins, final_sign),
        ending,
        opening_plies: info.opening_plies,
        ignored_moves: info.ignored_moves,
        method: info.method,
        thresholds: ThresholdSet {
            exact: Thresholds::EXACT,
            estimate: Thresholds::ESTIMATE,
        },
    })
}

/// A game's positions and what the oracle said of them.
struct JudgedGame<G: Searchable> {
    /// The start, then the position after each move.
    positions: Vec<G>,
    /// Each move played, judged from the position before it.
    judged: Vec<Judgement<G::Move>>,
    /// The last position's value, and whether it is proven.
    last: (i32, bool),
}

/// The oracle's judgement of every move played and its value of the last
/// position.
fn judge_game<G: Searchable, O: Oracle<G> + ?Sized>(
    record: &GameRecord<G>,
    oracle: &mut O,
    on_ply: &mut dyn FnMut(usize, usize),
) -> Result<JudgedGame<G>, SolveError> {
    let moves = record.moves();
    let mut positions = Vec::with_capacity(moves.len() + 1);
    let mut judged = Vec::with_capacity(moves.len());
    positions.push(record.start().clone());
    for (i, mv) in moves.iter().enumerate() {
        on_ply(i, moves.len() + 1);
        let pos = &positions[i];
        judged.push(oracle.judge(pos, mv)?);
        let next = pos.play_unchecked(mv);
        positions.push(next);
    }
    on_ply(moves.len(), moves.len() + 1);
    let last = oracle.value(positions.last().expect("the start"))?;
    on_ply(moves.len() + 1, moves.len() + 1);
    played_from_proven_successors(&mut judged, &positions, moves, last);
    Ok(JudgedGame {
        positions,
        judged,
        last,
    })
}

/// Ply `i + 1`: the move `mv` played from `pos`, as judged, with its loss
/// and mark (`!` when it alone keeps the value).
fn ply_row<G: Searchable>(i: usize, pos: &G, j: &Judgement<G::Move>, mv: &G::Move) -> PlyAnalysis {
    let loss = j.loss();
    let t = Thresholds::for_values(j.exact);
    let only = loss == 0 && j.others_best.is_some_and(|o| j.value - o >= t.inaccuracy);
    PlyAnalysis {
        ply: i + 1,
        side: pos.side_to_move().letter().to_string(),
        mv: mv.to_string(),
        value: j.value,
        played: j.played,
        best: j.best.iter().map(|m| m.to_string()).collect(),
        loss,
        mark: t.mark(loss).or(only.then_some(Mark::Only)),
        exact: j.exact,
        position: pos.to_string(),
        south_margin: south_margin(pos, j.value),
        depth: j.depth,
    }
}

/// Each player's moves in sum, the plies no player chose (`info`'s
/// opening) left out.
fn summarize_players<G: Game>(plies: &[PlyAnalysis], positions: &[G], info: &GameInfo) -> Players {
    let mut players = Players::default();
    let mut losses = [0i64; 2];
    let mut keeping = [0usize; 2];
    for (p, pos) in plies.iter().zip(positions).skip(info.opening_plies) {
        let side = pos.side_to_move();
        let summary = match side {
            Side::South => &mut players.south,
            Side::North => &mut players.north,
        };
        summary.moves += 1;
        if let Some(m) = p.mark {
            summary.marks.add(m);
        }
        losses[side.index()] += p.loss as i64;
        keeping[side.index()] += Thresholds::for_values(p.exact).keeps_value(p.loss) as usize;
    }
    for (side, summary) in [(0, &mut players.south), (1, &mut players.north)] {
        if summary.moves > 0 {
            summary.value_keeping = Some(keeping[side] as f64 / summary.moves as f64);
            summary.mean_loss = Some(losses[side] as f64 / summary.moves as f64);
        }
        summary.name = info.names[side].clone();
    }
    players
}

/// How the game ended at `last` (its value `(value, exact)` by the
/// oracle), and the sign of South's final margin (1, 0 or -1).
fn ending<G: Game>(record: &GameRecord<G>, last: &G, (value, exact): (i32, bool)) -> (Ending, i32) {
    let (end, points) = match record.result() {
        Some(r) => (r.termination.word(), r.totals),
        None => ("unfinished", final_totals(last, None)),
    };
    let winner = winner_of(points);
    let final_sign = match winner {
        Some(Side::South) => 1,
        Some(Side::North) => -1,
        None => 0,
    };
    let winner = winner.map(|s| s.letter().to_string());
    let ending = Ending {
        end,
        position: last.to_string(),
        points,
        winner,
        one_warrior_victory: end == "over" && last.ended_in_one_warrior_victory(points),
        south_margin: south_margin(last, value),
        exact,
    };
    (ending, final_sign)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decided_from_needs_a_proven_suffix_with_the_final_result() {
        // Margins for South, with exactness; the game ended won by South.
        let p = [(0, true), (2, false), (4, true), (2, true), (6, true)];
        assert_eq!(decided_from(&p, 1), Some(2));
        assert_eq!(decided_from(&[(0, true), (0, true)], 0), Some(0));
        assert_eq!(decided_from(&[(2, true), (-2, true)], 1), None);
    }
}
