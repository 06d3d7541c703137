//! The Kiothi part of `sow report`: engine matches (a score table against
//! baselines and an Elo-versus-thinking-time ladder), game lengths,
//! one-warrior victories and the opening report, all from engine runs made
//! here; then the pictures, `report.md`/`.json`, `strength.md`,
//! `openings.md`/`.json` and the game records under `<out>/kiothi/`.

use std::path::Path;
use std::time::Instant;

use serde_json::{json, Value};

use super::files::{write_atomic, write_in, write_report};
use super::{kiothi_openings, CliError, Out};
use crate::game::Game;
use crate::games::kiothi::{KiothiMove, KiothiPosition, Setup};
use crate::progress::Progress;
use crate::report::kiothi as pictures;
use crate::search::matches::{make_openings, play_match, Balance};
use crate::search::{AgentSpec, MatchConfig, MatchReport};

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
const MATCH: MatchConfig = MatchConfig {
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
const MOVES_PER_AGENT: f64 = 18.0;
/// Share of its time budget a timed alpha-beta move uses: it starts no new
/// iteration after half the budget and stops once the value is proven. In
/// the full report of 2026-11-29 (1823 s), 60 games of `ab:time=1` against
/// `ab:time=0.5` took 392 s and of `ab:time=0.5` against `ab:time=0.25`
/// 191 s, that is 48% and 47% of the budgets.
const AB_TIME_USED: f64 = 0.5;
/// CPU seconds to draw one balanced opening (`sow match random random
/// --games 100 --balance 0` took 37 CPU-s for 50 openings).
const BALANCED_OPENING_SECONDS: f64 = 0.75;
/// Measured: `mcts:10000` spends about 36 ms per move.
const MCTS_SECONDS_PER_PLAYOUT: f64 = 4e-6;
/// Seconds per move assumed for an alpha-beta agent without a time limit.
const UNTIMED_AB_MOVE: f64 = 0.01;
/// The opening report: a fixed ranking cost plus the deepened searches (8
/// South candidates at the budget, 3 × 8 North replies at half of it).
const OPENINGS_FIXED_SECONDS: f64 = 4.0;
const OPENINGS_BUDGETS: f64 = 20.0;

/// Size of the opening report's transposition table, in MiB.
const OPENINGS_HASH_MB: usize = 256;

fn agent(text: &str) -> AgentSpec {
    AgentSpec::parse(text).expect("the plan names valid agents")
}

/// A pairing to play, with the agents parsed.
struct Planned {
    a: AgentSpec,
    b: AgentSpec,
    games: usize,
    /// `baseline` (the score table's own pairings) or `ladder`.
    group: &'static str,
}

impl Planned {
    fn key(&self) -> (String, String) {
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

    fn estimated_seconds(&self, cores: usize) -> f64 {
        let rounds = self.games.div_ceil(self.parallel(cores)) as f64;
        rounds * MOVES_PER_AGENT * (move_seconds(&self.a) + move_seconds(&self.b))
    }

    /// File of the game records, named as `sow match` users named them.
    fn records_name(&self) -> String {
        format!("games/{}-vs-{}.jsonl", self.a, self.b).replace([':', '=', ','], "_")
    }
}

fn move_seconds(agent: &AgentSpec) -> f64 {
    match agent {
        AgentSpec::Random | AgentSpec::Greedy => 0.0,
        AgentSpec::Mcts { playouts } => *playouts as f64 * MCTS_SECONDS_PER_PLAYOUT,
        AgentSpec::AlphaBeta { limits, .. } => {
            limits.seconds.map_or(UNTIMED_AB_MOVE, |s| s * AB_TIME_USED)
        }
    }
}

fn openings_estimate(plan: &Plan) -> f64 {
    OPENINGS_FIXED_SECONDS + OPENINGS_BUDGETS * AB_TIME_USED * plan.openings_seconds
}

/// Estimated duration of the whole plan on `cores` cores.
fn plan_estimate(plan: &Plan, cores: usize) -> f64 {
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

fn ladder_agent(seconds: f64) -> AgentSpec {
    agent(&format!("ab:time={seconds}"))
}

/// Every pairing of the plan, once: the baselines, then each ladder time
/// against the previous one, then each against the reference.
fn pairings(plan: &Plan) -> Vec<Planned> {
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

/// An Elo figure as JSON: a number, or `"+inf"`/`"-inf"` at a score of 1 or 0.
fn elo_json(x: f64) -> Value {
    if x.is_finite() {
        // `+ 0.0` turns the -0 of an even score into 0.
        json!(x + 0.0)
    } else if x.is_nan() {
        Value::Null
    } else if x > 0.0 {
        json!("+inf")
    } else {
        json!("-inf")
    }
}

fn match_json(p: &Planned, r: &MatchReport, seconds: f64, cores: usize) -> Value {
    let decided = r.records.iter().filter(|g| g.winner.is_some()).count();
    // RULES §2 rule 10: a win by exactly two warriors.
    let one_warrior = r
        .records
        .iter()
        .filter(|g| g.winner.is_some() && (g.points[0] - g.points[1]).abs() == 2.0)
        .count();
    json!({
        "a": r.agent_a,
        "b": r.agent_b,
        "group": p.group,
        "games": r.games,
        "wins": r.wins,
        "draws": r.draws,
        "losses": r.losses,
        "score": r.score,
        "elo": elo_json(r.elo),
        "elo_low": elo_json(r.elo_low),
        "elo_high": elo_json(r.elo_high),
        "avg_plies": r.average_plies,
        "decided": decided,
        "one_warrior_victories": one_warrior,
        "one_warrior_share": r.one_warrior_share,
        "records": p.records_name(),
        "seconds": seconds,
        "estimated_seconds": p.estimated_seconds(cores),
    })
}

fn find<'a>(matches: &'a [Value], a: &str, b: &str) -> Option<&'a Value> {
    matches.iter().find(|m| m["a"] == a && m["b"] == b)
}

fn elo_of(v: &Value) -> f64 {
    match v {
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) if s == "+inf" => f64::INFINITY,
        Value::String(s) if s == "-inf" => f64::NEG_INFINITY,
        _ => f64::NAN,
    }
}

fn result_json(m: &Value) -> Value {
    json!({
        "a": m["a"], "b": m["b"], "games": m["games"], "score": m["score"],
        "elo": m["elo"], "elo_low": m["elo_low"], "elo_high": m["elo_high"],
    })
}

/// The ladder: per time, the gain over the previous time, the gains summed
/// from the shortest time, and the result against the reference.
fn ladder_json(plan: &Plan, matches: &[Value]) -> Value {
    let reference = agent(plan.reference).to_string();
    let mut chained = 0.0;
    let mut points = Vec::new();
    let mut previous: Option<String> = None;
    for &t in plan.ladder_seconds {
        let name = ladder_agent(t).to_string();
        let doubling = previous
            .as_deref()
            .and_then(|p| find(matches, &name, p))
            .map(result_json);
        if let Some(d) = &doubling {
            chained += elo_of(&d["elo"]);
        }
        let vs_reference = find(matches, &name, &reference).map(result_json);
        points.push(json!({
            "seconds": t,
            "agent": name,
            "doubling": doubling,
            "chained_elo": elo_json(chained),
            "vs_reference": vs_reference,
            "is_reference": name == reference,
        }));
        previous = Some(name);
    }
    json!({
        "base": ladder_agent(plan.ladder_seconds[0]).to_string(),
        "reference": reference,
        "games": plan.ladder_games,
        "points": points,
    })
}

fn median(sorted: &[usize]) -> f64 {
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2] as f64,
        n => (sorted[n / 2 - 1] + sorted[n / 2]) as f64 / 2.0,
    }
}

/// Length distribution of every game played, with how games ended.
fn lengths_json(reports: &[MatchReport]) -> Value {
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
    let bins: Vec<Value> = (first..=max)
        .step_by(width)
        .map(|from| {
            let to = from + width - 1;
            let games = plies.iter().filter(|&&p| p >= from && p <= to).count();
            json!({"from": from, "to": to, "games": games})
        })
        .collect();
    let ends = |why: &str| {
        reports
            .iter()
            .flat_map(|r| r.records.iter())
            .filter(|g| g.end == why)
            .count()
    };
    json!({
        "games": plies.len(),
        "min": min,
        "median": median(&plies),
        "mean": plies.iter().sum::<usize>() as f64 / plies.len().max(1) as f64,
        "max": max,
        "bin_width": width,
        "bins": bins,
        "ends": {"over": ends("over"), "repetition": ends("repetition"), "ply_cap": ends("ply_cap")},
    })
}

fn one_warrior_json(matches: &[Value]) -> Value {
    let sum = |k: &str| matches.iter().filter_map(|m| m[k].as_u64()).sum::<u64>();
    let (decided, victories) = (sum("decided"), sum("one_warrior_victories"));
    json!({
        "decided": decided,
        "victories": victories,
        "share": victories as f64 / decided.max(1) as f64,
    })
}

/// The opening report's headline, and the best move found spelled out
/// for the board diagram.
fn openings_json(start: &KiothiPosition, r: &Value) -> Value {
    let best = r["moves"][0]["move"].as_str().unwrap_or("");
    let (lifted, placed) = match start.parse_move(best) {
        Ok(KiothiMove::Opening(m)) => (m.lifted().to_vec(), m.placed().to_vec()),
        _ => (Vec::new(), Vec::new()),
    };
    json!({
        "position": r["position"],
        "seconds": r["seconds"],
        "budget_seconds": r["budget_seconds"],
        "candidates": r["candidates"],
        "legal_moves": r["legal_moves"],
        "moves": r["moves"],
        "best": {
            "move": best,
            "value": r["moves"][0]["value"],
            "depth": r["moves"][0]["depth"],
            "lifted": lifted,
            "placed": placed,
            "after": start.play(best).map(|p| p.to_string()).ok(),
        },
    })
}

/// Removes the game records under `<dir>/games` of pairings this plan did
/// not play (left by a former plan): the directory then holds this run's
/// games only.
fn remove_other_records(dir: &Path, planned: &[Planned]) -> Result<(), CliError> {
    let games = dir.join("games");
    let keep: Vec<std::path::PathBuf> =
        planned.iter().map(|p| dir.join(p.records_name())).collect();
    for entry in std::fs::read_dir(&games).map_err(CliError::from)? {
        let path = entry.map_err(CliError::from)?.path();
        let is_record = path.extension().is_some_and(|e| e == "jsonl");
        if is_record && !keep.contains(&path) {
            std::fs::remove_file(&path).map_err(CliError::from)?;
        }
    }
    Ok(())
}

/// Runs the Kiothi part and writes its files under `<out_dir>/kiothi`;
/// returns the summary written to `report.json`.
pub fn run(
    out_dir: &Path,
    quick: bool,
    command: &str,
    progress: Progress,
    out: &mut Out,
) -> Result<Value, CliError> {
    let t0 = Instant::now();
    let plan = if quick { &QUICK } else { &FULL };
    let dir = out_dir.join("kiothi");
    let start = KiothiPosition::start(Setup::SixPit);
    let planned = pairings(plan);
    let threads = rayon::current_num_threads().max(1);
    let estimate = plan_estimate(plan, threads);
    out.info(format!(
        "Kiothi: {} pairings, {} games ({} in parallel), openings at {} s per candidate; estimated {:.0} s",
        planned.len(),
        planned.iter().map(|p| p.games).sum::<usize>(),
        threads,
        plan.openings_seconds,
        estimate
    ))?;
    out.flush()?;

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
        let mut records = Vec::new();
        r.write_records(&mut records).map_err(CliError::from)?;
        write_atomic(&dir.join(p.records_name()), &records)?;
        matches.push(match_json(p, &r, t.elapsed().as_secs_f64(), threads));
        reports.push(r);
    }
    bar.finish_and_clear();
    remove_other_records(&dir, &planned)?;

    let mut opening = kiothi_openings::report(
        &start,
        plan.openings_seconds,
        threads,
        OPENINGS_HASH_MB,
        progress,
    );
    opening["command"] = json!(command);
    opening["budget_seconds"] = json!(plan.openings_seconds);
    write_report(
        &dir,
        "openings",
        &opening,
        &kiothi_openings::markdown(&opening),
    )?;

    let summary = json!({
        "game": "kiothi",
        "command": command,
        "version": env!("CARGO_PKG_VERSION"),
        "date": super::report::today(),
        "machine": super::report::machine(),
        "start": start.to_string(),
        "engine": agent(plan.engine).to_string(),
        "seed": MATCH.seed,
        "opening_plies": MATCH.opening_plies,
        "ply_cap": MATCH.ply_cap,
        "balance": MATCH.balance,
        "parallel_games": threads,
        "confidence_percent": 95,
        "matches": matches,
        "ladder": ladder_json(plan, &matches),
        "game_lengths": lengths_json(&reports),
        "one_warrior": one_warrior_json(&matches),
        "openings": openings_json(&start, &opening),
        "estimated_seconds": estimate,
        "openings_estimated_seconds": openings_estimate(plan),
        "seconds": t0.elapsed().as_secs_f64(),
    });
    write_in(&dir, "elo-time.svg", &pictures::elo_time_chart(&summary))?;
    write_in(&dir, "scores.svg", &pictures::scores_chart(&summary))?;
    write_in(&dir, "game-lengths.svg", &pictures::lengths_chart(&summary))?;
    write_in(
        &dir,
        "one-warrior.svg",
        &pictures::one_warrior_chart(&summary),
    )?;
    write_in(&dir, "openings.svg", &pictures::openings_chart(&summary))?;
    write_in(&dir, "start-board.svg", &pictures::board_diagram(&summary))?;
    write_in(
        &dir,
        "report.json",
        &serde_json::to_string_pretty(&summary).expect("JSON"),
    )?;
    write_in(&dir, "report.md", &pictures::page(&summary))?;
    write_in(&dir, "strength.md", &pictures::strength_page(&summary))?;
    Ok(summary)
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
        assert_eq!(elo_json(f64::INFINITY), json!("+inf"));
        assert_eq!(elo_json(f64::NEG_INFINITY), json!("-inf"));
        assert_eq!(elo_json(12.5), json!(12.5));
        assert_eq!(elo_of(&json!("+inf")), f64::INFINITY);
    }
}
