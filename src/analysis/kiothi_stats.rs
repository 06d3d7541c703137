//! `sow stats kiothi[:five] --format csv|json [--games N] [--depth D] [--seed S]`:
//! value statistics of Kiothi, which cannot be solved, from engine self-play.
//!
//! Method: `N` games of the alpha-beta engine at fixed depth `D` against
//! itself, from seeded random openings exactly as `sow match` plays them
//! ([`OPENING_PLIES`] random plies, each opening played twice with colours
//! swapped). Every distinct position the games reach (board, protection,
//! side to move, phase: prisons do not change a future margin) is valued by
//! a fresh depth-`D` search on one thread with an emptied transposition
//! table, so that the figures depend on the seed only. The value is that
//! estimate of the future margin for the mover (RULES §0), in stones.
//!
//! CSV columns, as for Kpé (`sow stats kpe`): `phase` (`opening` or `play`,
//! RULES §3), `stones` (warriors on the board), `value` (the estimate),
//! `positions` (distinct positions reached with that phase, stones and
//! estimate). JSON: the method, `games`, `depth`, `seed`, `opening_plies`,
//! the counts, and one object per phase and stone count with `positions`,
//! `wins`, `draws`, `losses`, `exact` (estimates proven exact by the search)
//! and `histogram` (value → positions).

use std::collections::BTreeMap;

use hashbrown::HashSet;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::kpe_stats::{outcomes, Outcomes};
use super::matches::{run_match_with_progress, MatchConfig};
use thiserror::Error;

use crate::error::{CliError, ErrorKind};
use crate::games::kiothi::{KiothiPosition, Phase};
use crate::infra::progress::Progress;
use crate::search::{search, AgentSpec, Limits, SearchResult, TranspositionTable};
use crate::Game;

pub const DEFAULT_GAMES: usize = 20;
pub const DEFAULT_DEPTH: u32 = 5;
pub const DEFAULT_SEED: u64 = 1;
/// Random plies before the engine plays (the default of `sow match`).
pub const OPENING_PLIES: u32 = 4;
/// Transposition table of each estimating search (emptied before each).
const ESTIMATE_TT_MB: usize = 4;

/// How the statistics are sampled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelfPlay {
    pub games: usize,
    pub depth: u32,
    pub seed: u64,
}

/// What is wrong with a self-play plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum SelfPlayError {
    #[error("the number of games must be at least 1")]
    NoGames,
    #[error("the depth must be at least 1")]
    NoDepth,
}

impl SelfPlayError {
    /// The setting at fault.
    pub fn field(self) -> &'static str {
        match self {
            SelfPlayError::NoGames => "games",
            SelfPlayError::NoDepth => "depth",
        }
    }
}

impl From<SelfPlayError> for CliError {
    fn from(e: SelfPlayError) -> Self {
        CliError::new(ErrorKind::Usage, Some(e.field()), e.to_string())
    }
}

impl SelfPlay {
    /// The settings given, defaults for the others, checked.
    pub fn new(
        games: Option<usize>,
        depth: Option<u32>,
        seed: Option<u64>,
    ) -> Result<Self, SelfPlayError> {
        let plan = SelfPlay {
            games: games.unwrap_or(DEFAULT_GAMES),
            depth: depth.unwrap_or(DEFAULT_DEPTH),
            seed: seed.unwrap_or(DEFAULT_SEED),
        };
        if plan.games == 0 {
            return Err(SelfPlayError::NoGames);
        }
        if plan.depth == 0 {
            return Err(SelfPlayError::NoDepth);
        }
        Ok(plan)
    }

    fn agent(&self) -> AgentSpec {
        super::matches::self_play_engine(self.depth, false)
    }
}

/// One valued position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    pub phase: Phase,
    pub stones: u32,
    pub value: i32,
    pub exact: bool,
}

/// Positions of one phase and stone count, by estimated value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub phase: &'static str,
    pub stones: u32,
    pub histogram: BTreeMap<i32, u64>,
    pub exact: u64,
}

impl Row {
    pub fn positions(&self) -> u64 {
        self.histogram.values().sum()
    }
}

/// The statistics of `plan` from `start`: the positions its games reach,
/// each valued, by phase and stones.
pub fn sample(
    start: &KiothiPosition,
    plan: &SelfPlay,
    progress: Progress,
) -> Result<Vec<Row>, CliError> {
    let positions = reached_positions(start, plan, progress)?;
    Ok(rows(&estimate(&positions, plan.depth, progress)))
}

/// Every distinct position (prisons cleared) the self-play games reach, in
/// the order they are first reached.
pub fn reached_positions(
    start: &KiothiPosition,
    plan: &SelfPlay,
    progress: Progress,
) -> Result<Vec<KiothiPosition>, CliError> {
    let cfg = MatchConfig {
        games: plan.games,
        opening_plies: OPENING_PLIES,
        seed: plan.seed,
        ..MatchConfig::default()
    };
    let agent = plan.agent();
    let bar = progress.count(0, "self-play", "openings + games");
    let report = run_match_with_progress(start, &agent, &agent, &cfg, &bar);
    bar.finish_and_clear();
    let mut seen = HashSet::new();
    let mut positions = Vec::new();
    for record in &report.records {
        let mut pos = *start;
        let mut keep = |p: &KiothiPosition| {
            let key = p.repetition_key();
            if seen.insert(key) {
                positions.push(key);
            }
        };
        keep(&pos);
        for mv in record.opening.iter().chain(&record.moves) {
            pos = pos.play(mv).map_err(|e| {
                CliError::new(
                    ErrorKind::Internal,
                    None,
                    format!("replaying game {}: {e}", record.game),
                )
            })?;
            keep(&pos);
        }
    }
    Ok(positions)
}

/// Values every position by a depth-`depth` search on one thread with an
/// emptied table (parallel over positions, deterministic).
pub fn estimate(positions: &[KiothiPosition], depth: u32, progress: Progress) -> Vec<Sample> {
    let bar = progress.count(positions.len() as u64, "estimate", "positions");
    let limits = Limits::depth(depth);
    let samples = positions
        .par_iter()
        .map_init(
            || {
                (
                    TranspositionTable::new(ESTIMATE_TT_MB),
                    std::sync::atomic::AtomicBool::new(false),
                )
            },
            |(tt, stop), pos| {
                tt.clear();
                let result: SearchResult<_> = search(pos, &limits, 1, tt, stop, &mut |_| {});
                bar.inc(1);
                Sample {
                    phase: pos.phase(),
                    stones: pos.board_total(),
                    value: result.value,
                    exact: result.exact,
                }
            },
        )
        .collect();
    bar.finish_and_clear();
    samples
}

/// Rows by phase (opening first), then stones.
pub fn rows(samples: &[Sample]) -> Vec<Row> {
    let mut groups: BTreeMap<(Phase, u32), Row> = BTreeMap::new();
    for s in samples {
        let row = groups.entry((s.phase, s.stones)).or_insert_with(|| Row {
            phase: s.phase.token(),
            stones: s.stones,
            histogram: BTreeMap::new(),
            exact: 0,
        });
        *row.histogram.entry(s.value).or_insert(0) += 1;
        row.exact += s.exact as u64;
    }
    groups.into_values().collect()
}

/// A plain description of the method, for the JSON.
pub fn method(plan: &SelfPlay) -> String {
    format!(
        "self-play: {} games of ab:depth={} against itself from seeded random openings \
         ({OPENING_PLIES} random plies, each opening played twice with colours swapped, as `sow match`); \
         every distinct position reached (prisons ignored) valued by a fresh depth-{} \
         alpha-beta search on one thread; value = that estimate of the mover's future margin",
        plan.games, plan.depth, plan.depth
    )
}

/// One row of `sow stats kiothi --format json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KiothiStatsRow {
    /// Positions whose estimate is exact (the search saw the end).
    pub exact: u64,
    #[serde(flatten)]
    pub outcomes: Outcomes,
    /// `opening` or `play`.
    pub phase: String,
    pub stones: u32,
}

/// `sow stats kiothi --format json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KiothiStats {
    pub depth: u32,
    pub exact_positions: u64,
    pub game: String,
    pub games: usize,
    pub method: String,
    pub opening_plies: u32,
    pub positions: u64,
    pub rows: Vec<KiothiStatsRow>,
    pub seed: u64,
}

/// The `--format json` object.
pub fn rows_json(game: &str, plan: &SelfPlay, rows: &[Row]) -> KiothiStats {
    KiothiStats {
        depth: plan.depth,
        exact_positions: rows.iter().map(|r| r.exact).sum::<u64>(),
        game: game.into(),
        games: plan.games,
        method: method(plan),
        opening_plies: OPENING_PLIES,
        positions: rows.iter().map(Row::positions).sum::<u64>(),
        rows: rows
            .iter()
            .map(|r| KiothiStatsRow {
                exact: r.exact,
                outcomes: outcomes(&r.histogram),
                phase: r.phase.into(),
                stones: r.stones,
            })
            .collect(),
        seed: plan.seed,
    }
}

/// Rows of five samples (three play positions with 40 stones), for tests.
#[cfg(test)]
pub fn fixture_rows() -> Vec<Row> {
    let s = |phase, stones, value| Sample {
        phase,
        stones,
        value,
        exact: value == 0,
    };
    rows(&[
        s(Phase::Play, 40, 2),
        s(Phase::Opening, 60, 0),
        s(Phase::Play, 40, 2),
        s(Phase::Play, 38, -1),
        s(Phase::Play, 40, 0),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_group_by_phase_then_stones() {
        let rows = fixture_rows();
        let keys: Vec<_> = rows.iter().map(|r| (r.phase, r.stones)).collect();
        assert_eq!(keys, [("opening", 60), ("play", 38), ("play", 40)]);
        assert_eq!(rows[2].histogram, BTreeMap::from([(0, 1), (2, 2)]));
        let wins = outcomes(&rows[2].histogram).wins;
        assert_eq!((wins, rows[2].exact), (2, 1));
    }

    #[test]
    fn bad_settings_name_their_field() {
        assert_eq!(
            SelfPlay::new(Some(0), None, None).unwrap_err().field(),
            "games"
        );
        assert_eq!(
            SelfPlay::new(None, Some(0), None).unwrap_err().field(),
            "depth"
        );
    }
}
