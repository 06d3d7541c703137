//! The Kiothi part of `sow report`: engine matches (a score table against
//! baselines and an Elo-versus-thinking-time ladder), game lengths,
//! one-warrior victories and the opening report, all from engine runs made
//! here; then the pictures, `report.md`/`.json`, `strength.md`,
//! `candidate-openings.md`/`.json` (the engine's candidate families searched) and the game records under `<out>/kiothi/`.

use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::kiothi_openings::{self, OpeningReport, ScoredMove};
use super::provenance::{machine, today};
use crate::infra::progress::Progress;

use super::elo::Elo;
use super::matches::{make_openings, play_match, Balance, MatchConfig, MatchReport};
use crate::game::Game;
use crate::games::kiothi::{KiothiMove, KiothiPosition};
use crate::search::AgentSpec;

/// One pairing of the score table: `a` plays `b` over `games` games.
pub struct Pairing {
    pub a: &'static str,
    pub b: &'static str,
    pub games: usize,
}

/// Everything the Kiothi part plays; the one place to adjust its budget.
pub struct Plan {
    /// The default engine as reported in the headline.
    pub engine: &'static str,
    /// The score table: the engine and the baselines against each other.
    pub baselines: &'static [Pairing],
    /// Seconds per move of the ladder, each the double of the previous;
    /// the engine `ab:time=T` plays each time against the previous one and
    /// against `reference`.
    pub ladder_seconds: &'static [f64],
    pub ladder_games: usize,
    pub reference: &'static str,
    /// Search time per deepened candidate of the opening report.
    pub openings_seconds: f64,
}

/// `sow report`: estimated at 2088 s on 2 cores (the estimate is printed
/// before the run and written in the report). The ladder ends at the
/// headline's 1 s so that its last doubling and reference points are
/// measured at the headline time too; its reference is its shortest time.
pub const FULL: Plan = Plan {
    engine: "ab:time=1",
    baselines: &[
        Pairing {
            a: "ab:time=1",
            b: "mcts:10000",
            games: 40,
        },
        Pairing {
            a: "ab:time=1",
            b: "greedy",
            games: 100,
        },
        Pairing {
            a: "ab:time=1",
            b: "random",
            games: 10,
        },
        Pairing {
            a: "mcts:10000",
            b: "greedy",
            games: 30,
        },
        Pairing {
            a: "mcts:10000",
            b: "mcts:1000",
            games: 30,
        },
        Pairing {
            a: "mcts:1000",
            b: "greedy",
            games: 50,
        },
        Pairing {
            a: "greedy",
            b: "random",
            games: 50,
        },
    ],
    ladder_seconds: &[0.015625, 0.03125, 0.0625, 0.125, 0.25, 0.5, 1.0],
    ladder_games: 60,
    reference: "ab:time=0.015625",
    openings_seconds: 1.0,
};

/// `sow report --quick` (CI): a few games per pairing at tiny budgets.
pub const QUICK: Plan = Plan {
    engine: "ab:time=0.02",
    baselines: &[
        Pairing {
            a: "ab:time=0.02",
            b: "mcts:300",
            games: 4,
        },
        Pairing {
            a: "ab:time=0.02",
            b: "greedy",
            games: 4,
        },
        Pairing {
            a: "ab:time=0.02",
            b: "random",
            games: 2,
        },
        Pairing {
            a: "mcts:300",
            b: "greedy",
            games: 4,
        },
        Pairing {
            a: "greedy",
            b: "random",
            games: 4,
        },
    ],
    ladder_seconds: &[0.005, 0.01, 0.02],
    ladder_games: 2,
    reference: "ab:time=0.005",
    openings_seconds: 0.01,
};

/// Match settings shared by every pairing (those of `sow match`).
pub const MATCH: MatchConfig = MatchConfig {
    games: 0,
    opening_plies: 4,
    seed: 1,
    ply_cap: 1000,
    balance: Some(Balance {
        depth: 8,
        margin: 0,
    }),
};

/// Moves each agent makes in a game, for the estimate: games last 35 to
/// 41 plies on average (results/kiothi/strength.md), 4 of them random.
pub const MOVES_PER_AGENT: f64 = 18.0;
/// Share of its time budget a timed alpha-beta move uses: it starts no new
/// iteration after half the budget and stops once the value is proven. In
/// the full report of 2026-11-29 (1823 s), 60 games of `ab:time=1` against
/// `ab:time=0.5` took 392 s and of `ab:time=0.5` against `ab:time=0.25`
/// 191 s, that is 48% and 47% of the budgets.
pub const AB_TIME_USED: f64 = 0.5;
/// CPU seconds to draw one balanced opening (`sow match random random
/// --games 100 --balance 0` took 37 CPU-s for 50 openings).
pub const BALANCED_OPENING_SECONDS: f64 = 0.75;
/// Measured: `mcts:10000` spends about 36 ms per move.
pub const MCTS_SECONDS_PER_PLAYOUT: f64 = 4e-6;
/// Seconds per move assumed for an alpha-beta agent without a time limit.
pub const UNTIMED_AB_MOVE: f64 = 0.01;
/// The opening report: a fixed ranking cost plus the deepened searches (8
/// South candidates at the budget, 3 × 8 North replies at half of it).
pub const OPENINGS_FIXED_SECONDS: f64 = 4.0;
pub const OPENINGS_BUDGETS: f64 = 20.0;

/// Size of the opening report's transposition table, in MiB.
pub const OPENINGS_HASH_MB: usize = 256;

pub fn agent(text: &str) -> AgentSpec {
    AgentSpec::parse(text).expect("the plan names valid agents")
}

/// A pairing to play, with the agents parsed.
pub struct Planned {
    pub a: AgentSpec,
    pub b: AgentSpec,
    pub games: usize,
    /// `baseline` (the score table's own pairings) or `ladder`.
    pub group: &'static str,
}

impl Planned {
    pub fn key(&self) -> (String, String) {
        (self.a.to_string(), self.b.to_string())
    }

    /// Games run in parallel (`run_match`) on `cores` when both agents
    /// think on one thread.
    fn parallel(&self, cores: usize) -> usize {
        if self.a.threads() == 1 && self.b.threads() == 1 {
            cores.max(1)
        } else {
            1
        }
    }

    pub fn estimated_seconds(&self, cores: usize) -> f64 {
        let rounds = self.games.div_ceil(self.parallel(cores)) as f64;
        rounds * MOVES_PER_AGENT * (move_seconds(&self.a) + move_seconds(&self.b))
    }

    /// File of the game records, named as `sow match` users named them.
    pub fn records_name(&self) -> String {
        format!("games/{}-vs-{}.jsonl", self.a, self.b).replace([':', '=', ','], "_")
    }
}

pub fn move_seconds(agent: &AgentSpec) -> f64 {
    match agent {
        AgentSpec::Random | AgentSpec::Greedy => 0.0,
        AgentSpec::Mcts { playouts } => *playouts as f64 * MCTS_SECONDS_PER_PLAYOUT,
        AgentSpec::AlphaBeta { limits, .. } => {
            limits.seconds.map_or(UNTIMED_AB_MOVE, |s| s * AB_TIME_USED)
        }
    }
}

pub fn openings_estimate(plan: &Plan) -> f64 {
    OPENINGS_FIXED_SECONDS + OPENINGS_BUDGETS * AB_TIME_USED * plan.openings_seconds
}

/// Estimated duration of the whole plan on `cores` cores.
pub fn plan_estimate(plan: &Plan, cores: usize) -> f64 {
    let planned = pairings(plan);
    let most_games = planned.iter().map(|p| p.games).max().unwrap_or(0);
    let balancing = most_games.div_ceil(2) as f64 * BALANCED_OPENING_SECONDS / cores.max(1) as f64;
    planned
        .iter()
        .map(|p| p.estimated_seconds(cores))
        .sum::<f64>()
        + balancing
        + openings_estimate(plan)
}

pub fn ladder_agent(seconds: f64) -> AgentSpec {
    agent(&format!("ab:time={seconds}"))
}

/// Every pairing of the plan, once: the baselines, then each ladder time
/// against the previous one, then each against the reference.
pub fn pairings(plan: &Plan) -> Vec<Planned> {
    let mut list: Vec<Planned> = plan
        .baselines
        .iter()
        .map(|p| Planned {
            a: agent(p.a),
            b: agent(p.b),
            games: p.games,
            group: "baseline",
        })
        .collect();
    let ladder: Vec<AgentSpec> = plan
        .ladder_seconds
        .iter()
        .map(|&t| ladder_agent(t))
        .collect();
    let reference = agent(plan.reference);
    let doublings = ladder.windows(2).map(|w| (w[1].clone(), w[0].clone()));
    let against_reference = ladder.iter().map(|a| (a.clone(), reference.clone()));
    for (a, b) in doublings.chain(against_reference) {
        let p = Planned {
            a,
            b,
            games: plan.ladder_games,
            group: "ladder",
        };
        if p.a != p.b && !list.iter().any(|q| q.key() == p.key()) {
            list.push(p);
        }
    }
    list
}

/// One pairing's result in the report (fields, like every model here, in
/// the JSON's alphabetical key order).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchRow {
    pub a: String,
    pub avg_plies: f64,
    pub b: String,
    /// Games won by either side.
    pub decided: usize,
    pub draws: usize,
    pub elo: Elo,
    pub elo_high: Elo,
    pub elo_low: Elo,
    pub estimated_seconds: f64,
    pub games: usize,
    /// `baseline` (the score table's own pairings) or `ladder`.
    pub group: String,
    pub losses: usize,
    pub one_warrior_share: f64,
    pub one_warrior_victories: usize,
    /// File of the game records, under the report's directory.
    pub records: String,
    pub score: f64,
    pub seconds: f64,
    pub wins: usize,
}

/// A pairing's result as the ladder cites it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchResult {
    pub a: String,
    pub b: String,
    pub elo: Elo,
    pub elo_high: Elo,
    pub elo_low: Elo,
    pub games: usize,
    pub score: f64,
}

/// One thinking time of the ladder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LadderPoint {
    pub agent: String,
    /// The doubling gains summed from the shortest time.
    pub chained_elo: Elo,
    /// Against the previous (half) time; `None` at the shortest.
    pub doubling: Option<MatchResult>,
    pub is_reference: bool,
    pub seconds: f64,
    pub vs_reference: Option<MatchResult>,
}

/// Elo against thinking time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ladder {
    pub base: String,
    pub games: usize,
    pub points: Vec<LadderPoint>,
    pub reference: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LengthBin {
    pub from: usize,
    pub games: usize,
    pub to: usize,
}

/// How the games ended (RULES §0): no legal move, third repetition, ply cap.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ends {
    pub over: usize,
    pub ply_cap: usize,
    pub repetition: usize,
}

/// Length distribution of every game played.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameLengths {
    pub bin_width: usize,
    pub bins: Vec<LengthBin>,
    pub ends: Ends,
    pub games: usize,
    pub max: usize,
    pub mean: f64,
    pub median: f64,
    pub min: usize,
}

/// One-warrior victories over all pairings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OneWarrior {
    pub decided: u64,
    pub share: f64,
    pub victories: u64,
}

/// South's best opening found, spelled out for the board diagram.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BestOpening {
    /// The position after it.
    pub after: Option<String>,
    pub depth: u32,
    /// Pits emptied.
    pub lifted: Vec<u8>,
    #[serde(rename = "move")]
    pub mv: String,
    /// Warriors placed, per pit.
    pub placed: Vec<u8>,
    pub value: i32,
}

/// The opening report's headline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpeningsSummary {
    pub best: BestOpening,
    pub budget_seconds: f64,
    pub candidates: usize,
    pub legal_moves: u64,
    pub moves: Vec<ScoredMove>,
    pub position: String,
    pub seconds: f64,
}

/// The Kiothi report (`kiothi/report.json`); every page and picture is
/// rendered from it (`report::kiothi`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KiothiReport {
    pub balance: Option<Balance>,
    pub command: String,
    pub confidence_percent: u32,
    pub date: String,
    /// The default engine of the headline.
    pub engine: String,
    pub estimated_seconds: f64,
    pub game: String,
    pub game_lengths: GameLengths,
    pub ladder: Ladder,
    pub machine: String,
    pub matches: Vec<MatchRow>,
    pub one_warrior: OneWarrior,
    pub opening_plies: u32,
    pub openings: OpeningsSummary,
    pub openings_estimated_seconds: f64,
    pub parallel_games: usize,
    pub ply_cap: u32,
    pub seconds: f64,
    pub seed: u64,
    pub start: String,
    pub version: String,
}

impl KiothiReport {
    /// The score table's pairings of the default engine.
    pub fn engine_matches(&self) -> impl Iterator<Item = &MatchRow> {
        self.matches
            .iter()
            .filter(move |m| m.a == self.engine && m.group == "baseline")
    }
}

/// Plays the plan from the six-pit start and estimates the openings: the
/// whole Kiothi report. `on_match` receives each pairing's games as soon as
/// they are played (`sow report` writes its records then).
pub fn run<E>(
    plan: &Plan,
    command: &str,
    threads: usize,
    progress: Progress,
    mut on_match: impl FnMut(&Planned, &MatchReport) -> Result<(), E>,
) -> Result<(KiothiReport, OpeningReport), E> {
    let t0 = Instant::now();
    let start = KiothiPosition::start(crate::games::kiothi::Setup::SixPit);
    let planned = pairings(plan);
    let estimate = plan_estimate(plan, threads);
    let most_games = planned.iter().map(|p| p.games).max().unwrap_or(0);
    // One bar for the plan: the balanced openings drawn, then every game.
    let drawn = most_games.div_ceil(2);
    let total_games: usize = planned.iter().map(|p| p.games).sum();
    let bar = progress.count((drawn + total_games) as u64, "kiothi", "openings + games");
    bar.set_message("drawing balanced openings");
    let openings = make_openings(&start, &MATCH, drawn, &bar);
    let mut matches = Vec::new();
    let mut reports = Vec::new();
    for p in &planned {
        bar.set_message(format!("{} vs {}", p.a, p.b));
        let t = Instant::now();
        let cfg = MatchConfig {
            games: p.games,
            ..MATCH
        };
        let r = play_match(&openings, &p.a, &p.b, &cfg, &bar);
        on_match(p, &r)?;
        matches.push(match_row(p, &r, t.elapsed().as_secs_f64(), threads));
        reports.push(r);
    }
    bar.finish_and_clear();

    let mut opening = kiothi_openings::report(
        &start,
        plan.openings_seconds,
        threads,
        OPENINGS_HASH_MB,
        progress,
    );
    opening.command = command.to_string();
    opening.budget_seconds = Some(plan.openings_seconds);

    let report = KiothiReport {
        balance: MATCH.balance,
        command: command.to_string(),
        confidence_percent: 95,
        date: today(),
        engine: agent(plan.engine).to_string(),
        estimated_seconds: estimate,
        game: "kiothi".into(),
        game_lengths: game_lengths(&reports),
        ladder: ladder(plan, &matches),
        machine: machine(),
        one_warrior: one_warrior(&matches),
        matches,
        opening_plies: MATCH.opening_plies,
        openings: openings_summary(&start, &opening),
        openings_estimated_seconds: openings_estimate(plan),
        parallel_games: threads,
        ply_cap: MATCH.ply_cap,
        seconds: t0.elapsed().as_secs_f64(),
        seed: MATCH.seed,
        start: start.to_string(),
        version: env!("CARGO_PKG_VERSION").into(),
    };
    Ok((report, opening))
}

pub fn match_row(p: &Planned, r: &MatchReport, seconds: f64, cores: usize) -> MatchRow {
    let decided = r.records.iter().filter(|g| g.winner.is_some()).count();
    // RULES §2 rule 10: a win by exactly two warriors.
    let one_warrior = r
        .records
        .iter()
        .filter(|g| g.winner.is_some() && (g.points[0] - g.points[1]).abs() == 2.0)
        .count();
    MatchRow {
        a: r.agent_a.clone(),
        avg_plies: r.average_plies,
        b: r.agent_b.clone(),
        decided,
        draws: r.draws,
        elo: Elo(r.elo),
        elo_high: Elo(r.elo_high),
        elo_low: Elo(r.elo_low),
        estimated_seconds: p.estimated_seconds(cores),
        games: r.games,
        group: p.group.into(),
        losses: r.losses,
        one_warrior_share: r.one_warrior_share,
        one_warrior_victories: one_warrior,
        records: p.records_name(),
        score: r.score,
        seconds,
        wins: r.wins,
    }
}

pub fn find<'a>(matches: &'a [MatchRow], a: &str, b: &str) -> Option<&'a MatchRow> {
    matches.iter().find(|m| m.a == a && m.b == b)
}

impl From<&MatchRow> for MatchResult {
    fn from(m: &MatchRow) -> Self {
        MatchResult {
            a: m.a.clone(),
            b: m.b.clone(),
            elo: m.elo,
            elo_high: m.elo_high,
            elo_low: m.elo_low,
            games: m.games,
            score: m.score,
        }
    }
}

/// The ladder: per time, the gain over the previous time, the gains summed
/// from the shortest time, and the result against the reference.
pub fn ladder(plan: &Plan, matches: &[MatchRow]) -> Ladder {
    let reference = agent(plan.reference).to_string();
    let mut chained = 0.0;
    let mut points = Vec::new();
    let mut previous: Option<String> = None;
    for &t in plan.ladder_seconds {
        let name = ladder_agent(t).to_string();
        let doubling = previous
            .as_deref()
            .and_then(|p| find(matches, &name, p))
            .map(MatchResult::from);
        if let Some(d) = &doubling {
            chained += d.elo.0;
        }
        let vs_reference = find(matches, &name, &reference).map(MatchResult::from);
        points.push(LadderPoint {
            seconds: t,
            is_reference: name == reference,
            agent: name.clone(),
            doubling,
            chained_elo: Elo(chained),
            vs_reference,
        });
        previous = Some(name);
    }
    Ladder {
        base: ladder_agent(plan.ladder_seconds[0]).to_string(),
        reference,
        games: plan.ladder_games,
        points,
    }
}

pub fn median(sorted: &[usize]) -> f64 {
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2] as f64,
        n => (sorted[n / 2 - 1] + sorted[n / 2]) as f64 / 2.0,
    }
}

/// Length distribution of every game played, with how games ended.
pub fn game_lengths(reports: &[MatchReport]) -> GameLengths {
    let mut plies: Vec<usize> = reports
        .iter()
        .flat_map(|r| r.records.iter().map(|g| g.plies))
        .collect();
    plies.sort_unstable();
    let (min, max) = (
        plies.first().copied().unwrap_or(0),
        plies.last().copied().unwrap_or(0),
    );
    // At most about 20 bins, 5 plies wide or a multiple of 5.
    let width = ((max - min + 1).div_ceil(20)).div_ceil(5).max(1) * 5;
    let first = min / width * width;
    let bins = (first..=max)
        .step_by(width)
        .map(|from| {
            let to = from + width - 1;
            let games = plies.iter().filter(|&&p| p >= from && p <= to).count();
            LengthBin { from, games, to }
        })
        .collect();
    let ends = |why: &str| {
        reports
            .iter()
            .flat_map(|r| r.records.iter())
            .filter(|g| g.end == why)
            .count()
    };
    GameLengths {
        games: plies.len(),
        min,
        median: median(&plies),
        mean: plies.iter().sum::<usize>() as f64 / plies.len().max(1) as f64,
        max,
        bin_width: width,
        bins,
        ends: Ends {
            over: ends("over"),
            repetition: ends("repetition"),
            ply_cap: ends("ply_cap"),
        },
    }
}

pub fn one_warrior(matches: &[MatchRow]) -> OneWarrior {
    let decided: u64 = matches.iter().map(|m| m.decided as u64).sum();
    let victories: u64 = matches.iter().map(|m| m.one_warrior_victories as u64).sum();
    OneWarrior {
        decided,
        victories,
        share: victories as f64 / decided.max(1) as f64,
    }
}

/// The opening report's headline, and the best move found spelled out
/// for the board diagram.
pub fn openings_summary(start: &KiothiPosition, r: &OpeningReport) -> OpeningsSummary {
    let first = r.moves.first();
    let best = first.map_or("", |m| m.mv.as_str());
    let (lifted, placed) = match start.parse_move(best) {
        Ok(KiothiMove::Opening(m)) => (m.lifted().to_vec(), m.placed().to_vec()),
        _ => (Vec::new(), Vec::new()),
    };
    OpeningsSummary {
        best: BestOpening {
            after: start.play(best).map(|p| p.to_string()).ok(),
            depth: first.map_or(0, |m| m.depth),
            lifted,
            mv: best.to_string(),
            placed,
            value: first.map_or(0, |m| m.value),
        },
        budget_seconds: r.budget_seconds.unwrap_or(0.0),
        candidates: r.candidates,
        legal_moves: r.legal_moves,
        moves: r.moves.clone(),
        position: r.position.clone(),
        seconds: r.seconds,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_are_valid_and_deduplicated() {
        for plan in [&FULL, &QUICK] {
            let list = pairings(plan);
            let mut keys: Vec<_> = list.iter().map(Planned::key).collect();
            keys.sort();
            keys.dedup();
            assert_eq!(keys.len(), list.len());
            assert!(plan.ladder_seconds.windows(2).all(|w| w[1] == 2.0 * w[0]));
            agent(plan.engine);
            agent(plan.reference);
        }
        // The issue #4 headline pairings, at least 20 games each.
        let full = pairings(&FULL);
        for b in ["mcts:10000", "greedy"] {
            let p = full
                .iter()
                .find(|p| p.key() == ("ab:time=1".into(), b.into()));
            assert!(p.is_some_and(|p| p.games >= 20), "{b}");
        }
    }

    #[test]
    fn estimate_counts_rounds_of_parallel_games() {
        let p = Planned {
            a: agent("ab:time=1"),
            b: agent("random"),
            games: 4,
            group: "baseline",
        };
        assert_eq!(p.estimated_seconds(2), 2.0 * MOVES_PER_AGENT * AB_TIME_USED);
        assert_eq!(p.estimated_seconds(1), 4.0 * MOVES_PER_AGENT * AB_TIME_USED);
        assert_eq!(p.records_name(), "games/ab_time_1-vs-random.jsonl");
    }

    #[test]
    fn plans_fit_their_budgets() {
        let full = plan_estimate(&FULL, 2);
        eprintln!("full plan on 2 cores: estimated {full:.0} s");
        assert!(full < 40.0 * 60.0, "{full}");
        assert!(plan_estimate(&QUICK, 1) < 30.0);
    }

    #[test]
    fn infinite_elo_is_written_as_text() {
        let text = |x: f64| serde_json::to_string(&Elo(x)).unwrap();
        assert_eq!(text(f64::INFINITY), "\"+inf\"");
        assert_eq!(text(f64::NEG_INFINITY), "\"-inf\"");
        assert_eq!(text(12.5), "12.5");
    }
}
