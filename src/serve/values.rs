//! What the page asks beyond the commands' own models, from the analysis
//! library through the state's value sources (the command line's own):
//! `eval`'s model, every legal move's value, the oracle's move at a level,
//! the analysis of a game, and the games on offer.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde::Serialize;

use super::state::AppState;
use crate::analysis::annotate::{analyze_played, GameAnalysis};
use crate::analysis::evaluation::{evaluate, Evaluation};
use crate::analysis::game_text::GameText;
use crate::analysis::levels::{level_move, Level};
use crate::analysis::move_values::{MoveEntry, MoveValues};
use crate::analysis::search_budget::Budget;
use crate::error::CliError;
use crate::games::kpe::KpeVariant;
use crate::games::AnyPosition;
use crate::infra::progress::Progress;
use crate::infra::rng::Rng;
use crate::kpe_db::{check_solvable, endgame_positions, ON_THE_FLY_POSITIONS};
use crate::search::Searchable;

/// `/api/eval`: the object of `sow eval --json`, computed as the command
/// computes it. Kpé is exact from the database unless `searched`.
pub fn evaluation(
    state: &AppState,
    pos: &AnyPosition,
    searched: bool,
    budget: Budget,
    stop: Arc<AtomicBool>,
) -> Result<Evaluation, CliError> {
    evaluate(
        &state.sources,
        pos,
        !searched,
        &budget,
        None,
        &stop,
        &mut |_| {},
    )
}

/// `/api/values`: every legal move with its value, best first.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ValuesModel {
    pub position: String,
    /// Best first (ties in move order); empty when the game is over.
    pub moves: Vec<MoveEntry>,
    /// Legal moves at the position.
    pub count: u64,
    /// False when `moves` holds only the search's candidates (a Kiothi
    /// opening, hundreds of millions of legal moves).
    pub complete: bool,
    /// True when every legal move is listed and every value is proven.
    pub exact: bool,
    /// True when the moves are the opening book's (Kiothi turns 1 and 2).
    pub book: bool,
    /// Search depth in plies from the position (`null` for the database).
    pub depth: Option<u32>,
    /// True when the client's stop (or a newer search) ended the search.
    pub interrupted: bool,
}

impl ValuesModel {
    /// The model of `values` (depth 0: from the database), the search
    /// stopped early when `stopped`.
    fn new<G: Searchable>(pos: &G, values: &MoveValues<G::Move>, stopped: bool) -> Self {
        let searched = values.depth > 0;
        ValuesModel {
            position: pos.to_string(),
            moves: values.moves.iter().map(|m| m.entry(true, false)).collect(),
            count: pos.move_count(),
            complete: values.complete,
            exact: values.exact(),
            book: values.book,
            depth: searched.then_some(values.depth),
            interrupted: searched && stopped,
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
    stop: Arc<AtomicBool>,
) -> Result<ValuesModel, CliError> {
    crate::with_position!(pos, p => {
        state.sources.with_oracle(p, !searched, &budget, stop.clone(), |o| {
            let values = o.move_values(p)?;
            Ok(ValuesModel::new(p, &values, stop.load(Ordering::SeqCst)))
        })
    })
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
    let mv = crate::with_position!(pos, p => {
        state.sources.with_oracle(p, true, &budget, stop, |o| {
            Ok(level_move(p, level, o, &mut rng)?.map(|m| m.to_string()))
        })
    })?;
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
    let budget = Budget {
        seconds: Some(seconds),
        depth: None,
        nodes: None,
        ..budget
    };
    analyze_played(&state.sources, game, start, &budget, stop, Progress::Hidden)
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
