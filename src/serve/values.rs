//! What the pages asks beyond the CLI's commands, from the analysis
//! library: every legal move's value, the oracle's move at a level, the
//! analysis of a game, and the games on offer. Also `eval`'s model, computed
//! as `sow eval --json` computes it.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde::Serialize;

use super::state::AppState;
use crate::analysis::annotate::{analyze_game, GameAnalysis, GameInfo, FROM_DATABASE};
use crate::analysis::evaluation::{kpe_evaluation, ExactEvaluation, SearchEvaluation};
use crate::analysis::game_text::GameText;
use crate::analysis::kiothi_tables::search_method;
use crate::analysis::levels::{level_move, Level};
use crate::analysis::move_values::{search_move_values, MoveValues};
use crate::analysis::oracle::{KpeOracle, Oracle, SearchOracle};
use crate::analysis::search_budget::Budget;
use crate::error::CliError;
use crate::games::kpe::{KpePosition, KpeVariant};
use crate::games::AnyPosition;
use crate::infra::rng::Rng;
use crate::kpe_db::{check_solvable, endgame_positions, ON_THE_FLY_POSITIONS};
use crate::search::{search_with, ExactValues, NoTables, Searchable, TranspositionTable};

/// Runs `f` with a Kpé variant's oracle (one request at a time per variant).
fn with_kpe<T>(
    state: &AppState,
    pos: &KpePosition,
    f: impl FnOnce(&mut KpeOracle) -> Result<T, CliError>,
) -> Result<T, CliError> {
    let oracle = state.kpe_oracle(pos.variant())?;
    let mut guard = oracle.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut guard)
}

/// `/api/eval`: the object of `sow eval --json` (the analysis library's
/// model, serialized as the CLI serializes it). Kpé is exact from the
/// database unless `searched`.
///
/// What `/api/eval` answers: `sow eval --json`'s object, exact or searched.
#[derive(Serialize)]
#[serde(untagged)]
pub enum Evaluation {
    Exact(ExactEvaluation),
    Search(SearchEvaluation),
}

pub fn evaluation(
    state: &AppState,
    pos: &AnyPosition,
    searched: bool,
    budget: Budget,
    stop: &AtomicBool,
) -> Result<Evaluation, CliError> {
    fn by_search<G: Searchable>(
        pos: &G,
        budget: Budget,
        exact: &dyn ExactValues<G>,
        stop: &AtomicBool,
    ) -> Result<Evaluation, CliError> {
        let limits = budget.limits()?;
        let tt = TranspositionTable::new(budget.hash_mb);
        let result = search_with(pos, &limits, budget.threads, &tt, exact, stop, &mut |_| {});
        let mut e = SearchEvaluation::from_root(pos, &result, stop.load(Ordering::SeqCst));
        e.endgame_stones = exact.endgame_stones();
        Ok(Evaluation::Search(e))
    }
    match pos {
        AnyPosition::Kpe(p) if !searched => with_kpe(state, p, |o| {
            Ok(Evaluation::Exact(kpe_evaluation(o, p, None)?))
        }),
        AnyPosition::Kpe(p) => by_search(p, budget, &NoTables, stop),
        AnyPosition::Kiothi(p) => by_search(p, budget, &*state.kiothi_tables, stop),
    }
}

/// One move and its value for the mover (RULES §0).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoveValue {
    #[serde(rename = "move")]
    pub mv: String,
    pub value: i32,
    pub exact: bool,
}

/// `/api/values`: every legal move with its value, best first.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ValuesModel {
    pub position: String,
    /// Best first (ties in move order); empty when the game is over.
    pub moves: Vec<MoveValue>,
    /// Legal moves at the position.
    pub count: u64,
    /// False when `moves` holds only the search's candidates (a Kiothi
    /// opening, hundreds of millions of legal moves).
    pub complete: bool,
    /// True when every legal move is listed and every value is proven.
    pub exact: bool,
    /// Search depth in plies from the position (`null` for the database).
    pub depth: Option<u32>,
    /// True when the client's stop (or a newer search) ended the search.
    pub interrupted: bool,
}

impl ValuesModel {
    fn new<G: Searchable>(
        pos: &G,
        values: &MoveValues<G::Move>,
        depth: Option<u32>,
        interrupted: bool,
    ) -> Self {
        ValuesModel {
            position: pos.to_string(),
            moves: values
                .moves
                .iter()
                .map(|m| MoveValue {
                    mv: m.mv.to_string(),
                    value: m.value,
                    exact: m.exact,
                })
                .collect(),
            count: pos.move_count(),
            complete: values.complete,
            exact: values.exact(),
            depth,
            interrupted,
        }
    }
}

/// Every move valued: Kpé exact from the database unless `searched`;
/// otherwise the library's per-move search within the budget.
pub fn move_values(
    state: &AppState,
    pos: &AnyPosition,
    searched: bool,
    budget: Budget,
    stop: &AtomicBool,
) -> Result<ValuesModel, CliError> {
    fn by_search<G: Searchable>(
        pos: &G,
        budget: Budget,
        exact: &dyn ExactValues<G>,
        stop: &AtomicBool,
    ) -> Result<ValuesModel, CliError> {
        let limits = budget.limits()?;
        let tt = TranspositionTable::new(budget.hash_mb);
        let v = search_move_values(pos, &limits, budget.threads, &tt, exact, stop, &mut |_| {});
        Ok(ValuesModel::new(
            pos,
            &v,
            Some(v.depth),
            stop.load(Ordering::SeqCst),
        ))
    }
    match pos {
        AnyPosition::Kpe(p) if !searched => with_kpe(state, p, |o| {
            Ok(ValuesModel::new(p, &o.move_values(p)?, None, false))
        }),
        AnyPosition::Kpe(p) => by_search(p, budget, &NoTables, stop),
        AnyPosition::Kiothi(p) => by_search(p, budget, &*state.kiothi_tables, stop),
    }
}

/// `/api/play`: the oracle's move at a level.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayModel {
    pub position: String,
    pub level: Level,
    /// `null` when the game is over.
    #[serde(rename = "move")]
    pub mv: Option<String>,
}

/// The move the oracle plays at `level` (the library's level rules; Kpé
/// valued exactly, Kiothi by search within the budget), drawn with `seed`.
pub fn oracle_move(
    state: &AppState,
    pos: &AnyPosition,
    level: Level,
    seed: u64,
    budget: Budget,
    stop: Arc<AtomicBool>,
) -> Result<PlayModel, CliError> {
    let mut rng = Rng::new(seed);
    let mv = match pos {
        AnyPosition::Kpe(p) => with_kpe(state, p, |o| {
            Ok(level_move(p, level, o, &mut rng)?.map(|m| m.to_string()))
        })?,
        AnyPosition::Kiothi(p) => {
            let mut oracle =
                SearchOracle::new(budget.limits()?, budget.threads, budget.hash_mb, stop)
                    .with_exact(state.kiothi_tables.clone());
            level_move(p, level, &mut oracle, &mut rng)?.map(|m| m.to_string())
        }
    };
    Ok(PlayModel {
        position: pos.to_string(),
        level,
        mv,
    })
}

/// `/api/analyze`: the object of `sow analyze --json` for a game read as
/// `sow analyze` reads it; Kiothi positions get `seconds` each.
pub fn analysis(
    state: &AppState,
    game: &GameText,
    start: &AnyPosition,
    seconds: f64,
    budget: Budget,
    stop: Arc<AtomicBool>,
) -> Result<GameAnalysis, CliError> {
    match start {
        AnyPosition::Kpe(p) => {
            let (record, ignored) = crate::analysis::game_replay::replay(p, game)?;
            let info = GameInfo::new(game, FROM_DATABASE).ignoring(ignored);
            with_kpe(state, p, |o| {
                Ok(analyze_game(&record, o, info, &mut |_, _| {})?)
            })
        }
        AnyPosition::Kiothi(p) => {
            let (record, ignored) = crate::analysis::game_replay::replay(p, game)?;
            let limits = crate::search::Limits::seconds(seconds);
            let mut oracle = SearchOracle::new(limits, budget.threads, budget.hash_mb, stop)
                .with_exact(state.kiothi_tables.clone());
            let method = search_method(seconds, budget.threads, &state.kiothi_tables);
            let info = GameInfo::new(game, method).ignoring(ignored);
            Ok(analyze_game(&record, &mut oracle, info, &mut |_, _| {})?)
        }
    }
}

/// `/api/games`: one start shortcut the page offers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameOffer {
    /// The start shortcut (`kpe:3x3`, `kiothi`...).
    pub start: String,
    /// Where the values come from: `database`, `solved on the fly` or `search`.
    pub values: &'static str,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GamesModel {
    pub games: Vec<GameOffer>,
    /// The oracle's levels, strongest first.
    pub levels: Vec<Level>,
}

/// Kiothi's setups, then every Kpé variant with a database directory under
/// `db` or small enough to be solved on the fly, smallest board first.
pub fn games(db: &Path) -> GamesModel {
    let mut games = vec![
        GameOffer {
            start: "kiothi".into(),
            values: "search",
        },
        GameOffer {
            start: "kiothi:five".into(),
            values: "search",
        },
    ];
    for w in 2..=8 {
        for k in 1..=8 {
            let Ok(variant) = KpeVariant::parse_tag(&format!("{w}x{k}")) else {
                continue;
            };
            // Sizes are counted only for boards up to 5 x 6 (the larger ones
            // are far above the on-the-fly limit, and their count is large).
            let values = if crate::kpe_db::paths::variant_dir(db, variant).is_dir() {
                "database"
            } else if w <= 5
                && k <= 6
                && endgame_positions(variant) <= ON_THE_FLY_POSITIONS
                && check_solvable(variant).is_ok()
            {
                "solved on the fly"
            } else {
                continue;
            };
            let start = if variant == KpeVariant::STANDARD {
                "kpe".to_string()
            } else {
                format!("kpe:{variant}")
            };
            games.push(GameOffer { start, values });
        }
    }
    GamesModel {
        games,
        levels: crate::analysis::levels::RULES
            .iter()
            .map(|r| r.level)
            .collect(),
    }
}
