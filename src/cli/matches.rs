//! `sow match <AGENT> <AGENT>`: engine-versus-engine games from seeded
//! random openings, each played twice with colours swapped; score, Elo
//! difference with its 95% interval, game lengths, one-warrior victories,
//! and the game records as JSON lines.

use std::path::Path;

use serde_json::json;

use super::files::write_atomic;
use super::{CliError, Out};
use crate::progress::Progress;
use crate::search::matches::{make_openings_until, play_match_until, Balance, MatchConfig};
use crate::search::{AgentSpec, Searchable};

/// Match settings from the command line.
pub struct MatchArgs<'a> {
    pub a: &'a str,
    pub b: &'a str,
    pub games: usize,
    pub seconds: Option<f64>,
    pub seed: u64,
    pub opening_plies: u32,
    /// Margin of balanced openings, if asked.
    pub balance: Option<i32>,
    pub balance_depth: u32,
    pub records: Option<&'a Path>,
}

/// `ab` alone takes the match's `--time` as its time per move.
fn agent(text: &str, seconds: Option<f64>) -> Result<AgentSpec, CliError> {
    let text = match (text, seconds) {
        ("ab", Some(s)) => format!("ab:time={s}"),
        _ => text.to_string(),
    };
    Ok(AgentSpec::parse(&text)?)
}

/// Deepest balance search accepted (deeper ones take minutes per opening).
const MAX_BALANCE_DEPTH: u32 = 16;

fn balance(args: &MatchArgs) -> Result<Option<Balance>, CliError> {
    let Some(margin) = args.balance else {
        return Ok(None);
    };
    if margin < 0 {
        return Err(CliError::usage(
            "balance",
            format!("--balance must be a margin of 0 stones or more, found {margin}"),
        ));
    }
    if !(1..=MAX_BALANCE_DEPTH).contains(&args.balance_depth) {
        return Err(CliError::usage(
            "balance-depth",
            format!(
                "--balance-depth must be 1 to {MAX_BALANCE_DEPTH} plies, found {}",
                args.balance_depth
            ),
        ));
    }
    Ok(Some(Balance {
        depth: args.balance_depth,
        margin,
    }))
}

pub fn run<G: Searchable>(start: &G, args: &MatchArgs, out: &mut Out) -> Result<(), CliError> {
    if args.games == 0 {
        return Err(CliError::usage("games", "--games must be at least 1"));
    }
    if let Some(s) = args.seconds {
        if !(s.is_finite() && s > 0.0) {
            return Err(CliError::usage(
                "time",
                format!("--time must be a positive number of seconds, found {s}"),
            ));
        }
    }
    let a = agent(args.a, args.seconds)?;
    let b = agent(args.b, args.seconds)?;
    let cfg = MatchConfig {
        games: args.games,
        opening_plies: args.opening_plies,
        seed: args.seed,
        ply_cap: 1000,
        balance: balance(args)?,
    };
    let bar = Progress::auto(out.quiet || out.json).count(0, "match", "openings + games");
    let count = cfg.games.div_ceil(2);
    bar.set_length((count + cfg.games) as u64);
    // Ctrl-C starts no new game: the report holds the finished ones.
    let stop = super::search_eval::stop_on_ctrl_c();
    let none_finished = || {
        CliError::new(
            "interrupted",
            None,
            "interrupted before the first game finished",
        )
    };
    let openings =
        make_openings_until(start, &cfg, count, &bar, &stop).ok_or_else(none_finished)?;
    let report = play_match_until(&openings, &a, &b, &cfg, &bar, &stop);
    bar.finish_and_clear();
    let interrupted = stop.load(std::sync::atomic::Ordering::SeqCst);
    if report.games == 0 {
        return Err(none_finished());
    }
    if let Some(path) = args.records {
        let mut buf = Vec::new();
        report.write_records(&mut buf).map_err(CliError::from)?;
        write_atomic(path, &buf)?;
    }
    let finite = |x: f64| if x.is_finite() { json!(x) } else { json!(null) };
    if out.json {
        return out.json(&json!({
            "agents": [report.agent_a, report.agent_b],
            "games": report.games,
            "wins": report.wins,
            "draws": report.draws,
            "losses": report.losses,
            "score": report.score,
            "elo": finite(report.elo),
            "elo_ci95": [finite(report.elo_low), finite(report.elo_high)],
            "avg_length": report.average_plies,
            "one_warrior_share": report.one_warrior_share,
            "start": start.to_string(),
            "seed": args.seed,
            "balance": cfg.balance,
            "interrupted": interrupted,
        }));
    }
    out.line(format!(
        "{} vs {} from {}",
        report.agent_a, report.agent_b, start
    ))?;
    if let Some(b) = cfg.balance {
        out.line(format!(
            "openings balanced: expected final margin (captures plus a depth-{1} search) within {0} stones of even",
            b.margin, b.depth
        ))?;
    }
    if interrupted {
        out.line(format!(
            "interrupted: {} of {} games finished",
            report.games, cfg.games
        ))?;
    }
    out.line(format!(
        "games {}: +{} ={} -{} for {}, score {:.1}%",
        report.games,
        report.wins,
        report.draws,
        report.losses,
        report.agent_a,
        100.0 * report.score
    ))?;
    out.line(format!(
        "elo   {:+.0} (95% interval {:+.0} .. {:+.0})",
        report.elo, report.elo_low, report.elo_high
    ))?;
    out.line(format!("average length {:.1} plies", report.average_plies))?;
    out.line(format!(
        "one-warrior victories {:.1}% of decided games",
        100.0 * report.one_warrior_share
    ))
}
