//! What the page asks beyond the CLI's models: every legal move's value,
//! the oracle's move at a level, and the games on offer.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use serde::Serialize;

use super::state::AppState;
use crate::cli::search_eval::Budget;
use crate::cli::{AnyPosition, CliError};
use crate::games::kpe::{KpePosition, KpeVariant};
use crate::search::{search, Searchable, TranspositionTable};
use crate::solve::solution::{check_solvable, endgame_positions, Solution, ON_THE_FLY_POSITIONS};

/// One legal move and its value for the mover (RULES §0: the stones it
/// gains now minus the value of the position it leads to).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoveValue {
    #[serde(rename = "move")]
    pub mv: String,
    pub value: i32,
}

/// `/api/values`: every legal move with its value, best first.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ValuesModel {
    pub position: String,
    /// Best first (ties in move order); empty when the game is over or the
    /// moves are too many to value one by one (a Kiothi opening).
    pub moves: Vec<MoveValue>,
    /// Legal moves at the position.
    pub count: u64,
    /// True when every value is exact (Kpé database, or proved by search).
    pub exact: bool,
    /// Search depth after each move (`null` for the database).
    pub depth: Option<u32>,
    /// True when the search was stopped before every move was valued at
    /// `depth` (the values are then those of the last full depth).
    pub interrupted: bool,
}

/// Kpé: exact values from the database.
pub fn kpe_exact(solution: &Solution, pos: &KpePosition) -> Result<ValuesModel, CliError> {
    let extra = solution.region_for(pos, crate::solve::progress::Progress::auto(true))?;
    let moves = solution.move_values(pos, extra.as_ref())?;
    Ok(ValuesModel {
        position: pos.to_string(),
        count: moves.len() as u64,
        moves: moves
            .into_iter()
            .map(|(m, value)| MoveValue {
                mv: m.to_string(),
                value,
            })
            .collect(),
        exact: true,
        depth: None,
        interrupted: false,
    })
}

/// Every move valued by a search of the position after it, deepened one
/// ply at a time across all moves (one shared table) until the budget or
/// the stop flag ends it; the last depth finished for every move counts.
pub fn searched<G: Searchable>(
    pos: &G,
    budget: Budget,
    stop: &AtomicBool,
) -> Result<ValuesModel, CliError> {
    let limits = budget.limits()?;
    let count = pos.move_count();
    let mut model = ValuesModel {
        position: pos.to_string(),
        moves: Vec::new(),
        count,
        exact: false,
        depth: None,
        interrupted: false,
    };
    if count == 0 || count > crate::cli::MOVE_LIST_LIMIT {
        return Ok(model);
    }
    let children: Vec<(String, G, i32)> = pos
        .legal_moves()
        .iter()
        .map(|m| {
            let child = pos.play_unchecked(m);
            let gain = G::capture_gain(pos, &child);
            (m.to_string(), child, gain)
        })
        .collect();
    let tt = TranspositionTable::new(budget.hash_mb);
    let start = std::time::Instant::now();
    let max_depth = limits
        .depth
        .unwrap_or(crate::search::negamax::MAX_PLY as u32);
    for depth in 1..=max_depth {
        let mut values = Vec::with_capacity(children.len());
        let mut exact = true;
        for (mv, child, gain) in &children {
            let left = limits.seconds.map(|s| s - start.elapsed().as_secs_f64());
            if left.is_some_and(|s| s <= 0.0) || stop.load(std::sync::atomic::Ordering::SeqCst) {
                model.interrupted = true;
                return Ok(model);
            }
            let child_limits = crate::search::Limits {
                depth: Some(depth),
                seconds: left,
                nodes: None,
            };
            let r = search(child, &child_limits, budget.threads, &tt, stop, &mut |_| {});
            if r.depth < depth && !r.exact {
                // Cut short by time or stop: this depth is not complete.
                model.interrupted = true;
                return Ok(model);
            }
            exact &= r.exact;
            values.push(MoveValue {
                mv: mv.clone(),
                value: gain - r.value,
            });
        }
        values.sort_by_key(|v| -v.value);
        model.moves = values;
        model.depth = Some(depth);
        model.exact = exact;
        if exact {
            break;
        }
    }
    Ok(model)
}

/// `/api/play`: the oracle's move at a level.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayModel {
    pub position: String,
    pub level: String,
    /// `null` when the game is over.
    #[serde(rename = "move")]
    pub mv: Option<String>,
    /// The move's value for the mover, as far as known.
    pub value: Option<i32>,
    pub exact: bool,
}

/// The levels the oracle plays at.
pub const LEVELS: [&str; 1] = ["perfect"];

/// The move the oracle plays at `level`: `perfect` is the best move (Kpé:
/// the first of the exactly best; Kiothi: the best found in the budget).
pub fn oracle_move(
    state: &AppState,
    pos: &AnyPosition,
    level: &str,
    _seed: u64,
    budget: Budget,
    stop: &AtomicBool,
) -> Result<PlayModel, CliError> {
    if !LEVELS.contains(&level) {
        return Err(CliError::usage(
            "level",
            format!("unknown level `{level}` (expected {})", LEVELS.join(", ")),
        ));
    }
    let (mv, value, exact) = match pos {
        AnyPosition::Kpe(p) => {
            let values = kpe_exact(&*state.solution(p.variant())?, p)?;
            let best = values.moves.first();
            (best.map(|b| b.mv.clone()), best.map(|b| b.value), true)
        }
        AnyPosition::Kiothi(p) => best_by_search(p, budget, stop)?,
    };
    Ok(PlayModel {
        position: pos.to_string(),
        level: level.to_string(),
        mv,
        value,
        exact,
    })
}

fn best_by_search<G: Searchable>(
    pos: &G,
    budget: Budget,
    stop: &AtomicBool,
) -> Result<(Option<String>, Option<i32>, bool), CliError> {
    if pos.is_over() {
        return Ok((None, None, true));
    }
    let tt = TranspositionTable::new(budget.hash_mb);
    let r = search(
        pos,
        &budget.limits()?,
        budget.threads,
        &tt,
        stop,
        &mut |_| {},
    );
    Ok((r.best.map(|m| m.to_string()), Some(r.value), r.exact))
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
            let values = if crate::solve::db::variant_dir(db, variant).is_dir() {
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
    GamesModel { games }
}
