//! Engine matches: pairs of games from seeded random openings, each opening
//! played twice with colours swapped; score, Elo difference with a 95%
//! interval, game length, one-warrior victories and JSON-lines records.

use std::io::Write;

use rayon::prelude::*;
use serde::Serialize;

use std::sync::atomic::{AtomicBool, Ordering};

use super::elo::{elo_interval, Elo};
use super::match_game::MatchGame;
use crate::game::Side;
use crate::infra::progress::ProgressBar;
use crate::infra::rng::{splitmix64, Rng};
use crate::record::play_out;
use crate::search::{search, Limits, Searchable, TranspositionTable};
use crate::search::{Agent, AgentSpec};

/// How a match is played.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchConfig {
    /// Games in all (an odd count plays the last opening once).
    pub games: usize,
    /// Random plies played from the start to make each opening.
    pub opening_plies: u32,
    /// Seed of openings and agents.
    pub seed: u64,
    /// Plies (after the opening) after which a game stops, the board shared evenly.
    pub ply_cap: u32,
    /// Keep only balanced openings (`None`: every random opening).
    pub balance: Option<Balance>,
}

/// Random openings can be lost for one side whoever plays it: then each of
/// a pair of games goes to the same colour and tells nothing about the
/// agents. A balanced opening is one whose expected final margin (the
/// stones captured in the opening plus its value by a search to `depth`
/// plies on one thread) is within `margin` stones of even. Random openings
/// are drawn until one is balanced (at most `BALANCE_TRIES`; after that the
/// most balanced one drawn is kept).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Balance {
    pub depth: u32,
    pub margin: i32,
}

/// Random openings drawn at most for one balanced opening.
pub const BALANCE_TRIES: usize = 1000;

/// The most games a match or a self-play plays: every game's record is
/// kept in memory (18446744073709551615 overflowed a count, and four
/// billion ate the memory).
pub const MAX_GAMES: u64 = 1_000_000;

/// The most random opening plies of a match or a self-play: a tenth of
/// their games' ply cap (`tune::PLY_CAP`, the match's `ply_cap`, 1000
/// plies). An opening is a short random start for the agents to take over
/// from; 4294967295 random plies played every game to its end at random
/// (a match then scored random play, a self-play found no position to
/// sample).
pub const MAX_OPENING_PLIES: u32 = 100;

impl Default for MatchConfig {
    fn default() -> Self {
        MatchConfig {
            games: 100,
            opening_plies: 4,
            seed: 1,
            ply_cap: 1000,
            balance: None,
        }
    }
}

/// One game, as written to the JSON-lines record.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameRecord {
    pub game: usize,
    /// The position the game started from, before the opening plies (RULES
    /// §3): what `sow analyze` replays the record from.
    pub start: String,
    /// Agent playing South and North.
    pub south: String,
    pub north: String,
    /// The random opening plies, then the agents' moves (RULES §3 notation).
    pub opening: Vec<String>,
    /// With balanced openings: the expected final margin for the player to
    /// move at the opening's end (stones captured in the opening plus the
    /// balance search's value; `null` otherwise).
    pub opening_value: Option<i32>,
    pub moves: Vec<String>,
    /// Why it ended: `over` (no legal move), `repetition` (third occurrence)
    /// or `ply_cap`.
    pub end: String,
    /// Plies in all, the opening included.
    pub plies: usize,
    /// Final stones of South and North (captures plus sweep, or half the
    /// board each when the game was stopped).
    pub points: [f64; 2],
    /// `S`, `N` or `null` for a draw.
    pub winner: Option<char>,
    /// Score of the first agent (1, 0.5 or 0).
    pub score_a: f64,
}

/// The outcome of a match, from the first agent's view.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatchReport {
    pub agent_a: String,
    pub agent_b: String,
    pub games: usize,
    pub wins: usize,
    pub draws: usize,
    pub losses: usize,
    /// Points per game of the first agent (win 1, draw 0.5).
    pub score: f64,
    /// Elo difference (first minus second) and its 95% interval; infinite
    /// at a score of 0 or 1 (written as [`super::elo::Elo`] writes it).
    #[serde(serialize_with = "super::elo::as_elo")]
    pub elo: f64,
    #[serde(serialize_with = "super::elo::as_elo")]
    pub elo_low: f64,
    #[serde(serialize_with = "super::elo::as_elo")]
    pub elo_high: f64,
    pub average_plies: f64,
    /// Share of decided games won by exactly two stones (one warrior).
    pub one_warrior_share: f64,
    #[serde(skip)]
    pub records: Vec<GameRecord>,
}

/// The result of `sow match` (its `--json` object and its text): fields in
/// the JSON's (alphabetical) key order.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct MatchSummary {
    /// The two agents, first one's view.
    pub agents: [String; 2],
    /// Mean game length in plies.
    pub avg_length: f64,
    pub balance: Option<Balance>,
    pub draws: usize,
    pub elo: Elo,
    /// The 95% interval of `elo` (Wilson score interval).
    pub elo_ci95: [Elo; 2],
    pub games: usize,
    pub losses: usize,
    pub one_warrior_share: f64,
    pub score: f64,
    pub seed: u64,
    /// The start position of every game.
    pub start: String,
    pub wins: usize,
}

impl MatchReport {
    /// The summary of this match, played from `start` with `cfg`.
    pub fn summary(&self, start: &str, cfg: &MatchConfig) -> MatchSummary {
        MatchSummary {
            agents: [self.agent_a.clone(), self.agent_b.clone()],
            avg_length: self.average_plies,
            balance: cfg.balance,
            draws: self.draws,
            elo: Elo(self.elo),
            elo_ci95: [Elo(self.elo_low), Elo(self.elo_high)],
            games: self.games,
            losses: self.losses,
            one_warrior_share: self.one_warrior_share,
            score: self.score,
            seed: cfg.seed,
            start: start.to_string(),
            wins: self.wins,
        }
    }

    /// Writes every game record as one JSON object per line.
    pub fn write_records<W: Write>(&self, mut out: W) -> std::io::Result<()> {
        for r in &self.records {
            serde_json::to_writer(&mut out, r)?;
            out.write_all(b"\n")?;
        }
        Ok(())
    }
}

/// Plays `cfg.games` games between agents `a` and `b` from `start` and
/// reports the result from `a`'s view. Games run in parallel (rayon) when
/// both agents think on one thread.
pub fn run_match<G: MatchGame>(
    start: &G,
    a: &AgentSpec,
    b: &AgentSpec,
    cfg: &MatchConfig,
) -> MatchReport {
    run_match_with_progress(start, a, b, cfg, &ProgressBar::hidden())
}

/// `run_match`, advancing `bar` by one per opening drawn and per game played
/// (its length is set here).
pub fn run_match_with_progress<G: MatchGame>(
    start: &G,
    a: &AgentSpec,
    b: &AgentSpec,
    cfg: &MatchConfig,
    bar: &ProgressBar,
) -> MatchReport {
    let count = cfg.games.div_ceil(2);
    bar.set_length((count + cfg.games) as u64);
    let openings = make_openings(start, cfg, count, bar);
    play_match(&openings, a, b, cfg, bar)
}

/// The first `count` openings of matches played with `cfg` (in parallel),
/// advancing `bar` by one per opening.
pub fn make_openings<G: Searchable>(
    start: &G,
    cfg: &MatchConfig,
    count: usize,
    bar: &ProgressBar,
) -> Vec<Opening<G>> {
    make_openings_until(start, cfg, count, bar, &AtomicBool::new(false)).expect("never stopped")
}

/// `sow match --json`: the summary, and whether Ctrl-C cut the match short.
#[derive(Serialize)]
pub struct MatchOutcome<'a> {
    #[serde(flatten)]
    pub summary: &'a MatchSummary,
    pub interrupted: bool,
}

/// `run_match_with_progress`, drawing no new opening and starting no new
/// game once `stop` is set (Ctrl-C): the report holds the games that
/// finished; `None` when none did.
pub fn run_match_until<G: MatchGame>(
    start: &G,
    a: &AgentSpec,
    b: &AgentSpec,
    cfg: &MatchConfig,
    bar: &ProgressBar,
    stop: &AtomicBool,
) -> Option<MatchReport> {
    let count = cfg.games.div_ceil(2);
    bar.set_length((count + cfg.games) as u64);
    let openings = make_openings_until(start, cfg, count, bar, stop)?;
    let report = play_match_until(&openings, a, b, cfg, bar, stop);
    (report.games > 0).then_some(report)
}

/// `make_openings`, or `None` as soon as `stop` is set (Ctrl-C).
pub fn make_openings_until<G: Searchable>(
    start: &G,
    cfg: &MatchConfig,
    count: usize,
    bar: &ProgressBar,
    stop: &AtomicBool,
) -> Option<Vec<Opening<G>>> {
    (0..count as u64)
        .into_par_iter()
        .map(|id| {
            (!stop.load(Ordering::Relaxed)).then(|| {
                let opening = make_opening(start, cfg, id);
                bar.inc(1);
                opening
            })
        })
        .collect()
}

/// `run_match` from openings made beforehand by `make_openings` with the
/// same `cfg` (several matches can share them): game `g` is played from
/// `openings[g / 2]`; `bar` advances by one per game.
pub fn play_match<G: MatchGame>(
    openings: &[Opening<G>],
    a: &AgentSpec,
    b: &AgentSpec,
    cfg: &MatchConfig,
    bar: &ProgressBar,
) -> MatchReport {
    play_match_until(openings, a, b, cfg, bar, &AtomicBool::new(false))
}

/// `play_match`, starting no new game once `stop` is set (Ctrl-C): the
/// report holds the games that finished.
pub fn play_match_until<G: MatchGame>(
    openings: &[Opening<G>],
    a: &AgentSpec,
    b: &AgentSpec,
    cfg: &MatchConfig,
    bar: &ProgressBar,
    stop: &AtomicBool,
) -> MatchReport {
    assert!(
        openings.len() >= cfg.games.div_ceil(2),
        "fewer openings than the games need"
    );
    let play = |g: usize| {
        (!stop.load(Ordering::Relaxed)).then(|| {
            let record = play_game(&openings[g / 2], a, b, cfg, g);
            bar.inc(1);
            record
        })
    };
    let records: Vec<GameRecord> = if a.threads() == 1 && b.threads() == 1 {
        (0..cfg.games).into_par_iter().filter_map(play).collect()
    } else {
        (0..cfg.games).filter_map(play).collect()
    };
    summarize(&a.to_string(), &b.to_string(), records)
}

/// The report of a match's game records, from the view of agent `a`.
pub fn summarize(a: &str, b: &str, records: Vec<GameRecord>) -> MatchReport {
    let scores: Vec<f64> = records.iter().map(|r| r.score_a).collect();
    let games = records.len();
    let wins = scores.iter().filter(|&&s| s == 1.0).count();
    let losses = scores.iter().filter(|&&s| s == 0.0).count();
    let decided: Vec<&GameRecord> = records.iter().filter(|r| r.winner.is_some()).collect();
    let one_warrior = decided
        .iter()
        .filter(|r| (r.points[0] - r.points[1]).abs() == 2.0)
        .count();
    let (elo, elo_low, elo_high) = elo_interval(&scores);
    MatchReport {
        agent_a: a.to_string(),
        agent_b: b.to_string(),
        games,
        wins,
        draws: games - wins - losses,
        losses,
        score: scores.iter().sum::<f64>() / games.max(1) as f64,
        elo,
        elo_low,
        elo_high,
        average_plies: records.iter().map(|r| r.plies as f64).sum::<f64>() / games.max(1) as f64,
        one_warrior_share: one_warrior as f64 / decided.len().max(1) as f64,
        records,
    }
}

pub fn seed_for(base: u64, a: u64, b: u64) -> u64 {
    let mut s =
        base ^ a.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ b.wrapping_mul(0xD1B5_4A32_D192_ED03);
    splitmix64(&mut s)
}

/// The plies of an opening (notation), the position they reach and, when
/// balanced, its expected final margin for the player to move.
#[derive(Clone, Debug)]
pub struct Opening<G> {
    /// The position the plies were played from.
    pub start: G,
    pub plies: Vec<String>,
    pub position: G,
    pub value: Option<i32>,
}

/// `plies` random plies from `start` (fewer if the game ends).
/// The one random-opening helper: `plies` uniformly random moves from
/// `start` (fewer if the game ends), drawn from `rng`.
pub fn random_opening<G: Searchable>(start: &G, plies: u32, rng: &mut Rng) -> Opening<G> {
    let mut position = start.clone();
    let mut played = Vec::new();
    for _ in 0..plies {
        let moves = position.search_moves();
        if moves.is_empty() {
            break;
        }
        let (mv, child) = &moves[rng.below(moves.len())];
        played.push(mv.to_string());
        position = child.clone();
    }
    Opening {
        start: start.clone(),
        plies: played,
        position,
        value: None,
    }
}

/// Stones the player to move has captured more than the other (a random
/// opening can capture: a search value, the future margin, leaves it out).
fn captured_lead<G: Searchable>(position: &G) -> i32 {
    let captured = position.captured();
    let me = position.side_to_move().index();
    captured[me] as i32 - captured[1 - me] as i32
}

/// Opening number `id` of a match played with `cfg` (balanced if asked; the
/// first random opening drawn is the one an unbalanced match plays).
pub fn make_opening<G: Searchable>(start: &G, cfg: &MatchConfig, id: u64) -> Opening<G> {
    let mut rng = Rng::new(seed_for(cfg.seed, id, 0));
    let Some(balance) = cfg.balance else {
        return random_opening(start, cfg.opening_plies, &mut rng);
    };
    let tt = TranspositionTable::new(4);
    let stop = AtomicBool::new(false);
    let mut best: Option<Opening<G>> = None;
    for _ in 0..BALANCE_TRIES {
        let mut opening = random_opening(start, cfg.opening_plies, &mut rng);
        tt.clear();
        let future = search(
            &opening.position,
            &Limits::depth(balance.depth),
            1,
            &tt,
            &stop,
            &mut |_| {},
        )
        .value;
        let value = future + captured_lead(&opening.position);
        opening.value = Some(value);
        let better = best
            .as_ref()
            .is_none_or(|b| value.abs() < b.value.map_or(i32::MAX, i32::abs));
        if better {
            best = Some(opening);
        }
        if value.abs() <= balance.margin {
            break;
        }
    }
    best.expect("BALANCE_TRIES is positive")
}

/// The engine of self-play (tuning data, Kiothi statistics): alpha-beta at
/// a fixed depth on one thread, the compiled or the hand-set evaluation.
pub fn self_play_engine(depth: u32, hand_eval: bool) -> AgentSpec {
    AgentSpec::AlphaBeta {
        limits: Limits::depth(depth),
        threads: 1,
        tt_mb: 16,
        hand_eval,
        reply_opening: false,
    }
}

/// Game `g`: opening `g / 2`, with `a` playing South in even games.
fn play_game<G: MatchGame>(
    opening: &Opening<G>,
    a: &AgentSpec,
    b: &AgentSpec,
    cfg: &MatchConfig,
    g: usize,
) -> GameRecord {
    let a_is_south = g.is_multiple_of(2);
    let (south, north) = if a_is_south { (a, b) } else { (b, a) };
    let agents = [
        G::agent(south, seed_for(cfg.seed, g as u64, 1)),
        G::agent(north, seed_for(cfg.seed, g as u64, 2)),
    ];
    let names = [south.to_string(), north.to_string()];
    play_game_between(opening, agents, names, a_is_south, cfg, g)
}

/// Game `g` from `opening` between built agents (South's first), named
/// `names`; `a_is_south` says which of them is the match's first agent.
pub fn play_game_between<G: Searchable>(
    opening: &Opening<G>,
    mut agents: [Box<dyn Agent<G> + '_>; 2],
    names: [String; 2],
    a_is_south: bool,
    cfg: &MatchConfig,
    g: usize,
) -> GameRecord {
    let mut record = crate::record::GameRecord::new(opening.position.clone());
    let (stop, points) = play_out(&mut record, cfg.ply_cap as usize, |pos| {
        agents[pos.side_to_move().index()].choose(pos)
    });
    let moves: Vec<String> = record.moves().iter().map(|m| m.to_string()).collect();
    let winner = if points[0] > points[1] {
        Some(Side::South)
    } else if points[1] > points[0] {
        Some(Side::North)
    } else {
        None
    };
    let a_side = if a_is_south { Side::South } else { Side::North };
    let score_a = match winner {
        None => 0.5,
        Some(s) if s == a_side => 1.0,
        Some(_) => 0.0,
    };
    GameRecord {
        game: g,
        start: opening.start.to_string(),
        south: names[0].clone(),
        north: names[1].clone(),
        plies: opening.plies.len() + moves.len(),
        opening: opening.plies.clone(),
        opening_value: opening.value,
        moves,
        end: stop.word().to_string(),
        points,
        winner: winner.map(Side::letter),
        score_a,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::kiothi::{KiothiPosition, Setup};
    use crate::search::search_fresh;

    #[test]
    fn captured_lead_is_for_the_player_to_move() {
        let p = crate::games::kiothi::parse_position(
            "kiothi 2,3,2,3,0,9,0,0,0,0,0,2,1,1,1*,7*,5*,5*,0,0 S play 0 19",
        )
        .unwrap();
        assert_eq!(captured_lead(&p), -19);
    }

    #[test]
    fn balanced_openings_are_searched_and_within_the_margin() {
        let start = KiothiPosition::start(Setup::SixPit);
        let plain = MatchConfig::default();
        let with = |margin| MatchConfig {
            balance: Some(Balance { depth: 4, margin }),
            ..MatchConfig::default()
        };
        let random = make_openings(&start, &plain, 6, &ProgressBar::hidden());
        let anything = make_openings(&start, &with(1000), 6, &ProgressBar::hidden());
        let even = make_openings(&start, &with(0), 6, &ProgressBar::hidden());
        let mut redrawn = 0;
        for ((r, a), e) in random.iter().zip(&anything).zip(&even) {
            assert_eq!(r.value, None);
            // A margin accepting everything keeps the first draw: the
            // opening an unbalanced match plays.
            assert_eq!(a.plies, r.plies);
            let v =
                search_fresh(&e.position, &Limits::depth(4), 4).value + captured_lead(&e.position);
            assert_eq!(e.value, Some(v));
            assert_eq!(v, 0, "{:?}", e.plies);
            redrawn += (e.plies != r.plies) as usize;
        }
        assert!(
            redrawn > 0,
            "some random opening should have been unbalanced"
        );
    }
}
