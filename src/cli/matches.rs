//! `sow match <AGENT> <AGENT>`: engine-versus-engine games from seeded
//! random openings, each played twice with colours swapped; score, Elo
//! difference with its 95% interval, game lengths, one-warrior victories,
//! and the game records as JSON lines.

use std::path::PathBuf;

use super::{args, parse_any, AnyPosition, CliError, Out};
use crate::analysis::matches::{
    make_openings_until, play_match_until, Balance, MatchConfig, MatchReport, MatchSummary,
};
use crate::error::ErrorKind;
use crate::infra::files::write_atomic;
use crate::infra::progress::Progress;
use crate::search::{AgentSpec, Searchable};

/// `sow match`: its command line.
#[derive(clap::Args, Debug)]
pub struct MatchArgs {
    /// First agent: random, greedy, mcts:PLAYOUTS, ab:depth=D, ab:time=S (or `ab` with --time).
    pub a: String,
    /// Second agent.
    pub b: String,
    /// Start position of every game (`kiothi`, `kiothi:five`, `kpe`...).
    #[arg(long, default_value = "kiothi")]
    pub game: String,
    /// Number of games (each random opening is played twice, colours swapped).
    #[arg(long, default_value_t = 20, value_parser = args::games)]
    pub games: usize,
    /// Seconds per move for an agent given as plain `ab` (refused when
    /// neither agent is plain `ab`: it would apply to none).
    #[arg(long = "time", value_name = "SECONDS", value_parser = args::seconds)]
    pub seconds: Option<f64>,
    /// Seed of the random openings and agents.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Random plies played before the agents take over, 0 to 100 (Kiothi:
    /// the two redistributions count as plies).
    #[arg(long, default_value_t = 4, value_parser = args::opening_plies)]
    pub opening_plies: u32,
    /// Play only balanced openings: random openings whose expected final
    /// margin (stones captured in the opening plus the value of a
    /// one-thread search to --balance-depth) is within MARGIN stones of
    /// even (0: judged a draw).
    #[arg(long, value_name = "MARGIN")]
    pub balance: Option<i32>,
    /// Depth of the search that judges an opening's balance, 1 to 16
    /// (default 8); only with --balance.
    #[arg(long, value_name = "PLIES")]
    pub balance_depth: Option<u32>,
    /// Write the game records as JSON lines to this file.
    #[arg(long, value_name = "FILE")]
    pub records: Option<PathBuf>,
}

impl MatchArgs {
    pub fn run(&self, out: &mut Out) -> Result<(), CliError> {
        match parse_any(&self.game)? {
            AnyPosition::Kpe(p) => run(&p, self, out),
            AnyPosition::Kiothi(p) => run(&p, self, out),
        }
    }
}

/// `ab` alone takes the match's `--time` as its time per move. `which`
/// (`A` or `B`) says in a refusal which of the two agents is at fault.
fn agent(which: &str, text: &str, seconds: Option<f64>) -> Result<AgentSpec, CliError> {
    let spec = match (text, seconds) {
        ("ab", Some(s)) => format!("ab:time={s}"),
        _ => text.to_string(),
    };
    AgentSpec::parse(&spec).map_err(|e| {
        let mut e = CliError::from(e);
        e.message = format!("agent {which} (`{text}`): {}", e.message);
        e
    })
}

/// The two agents; `--time` is refused unless one of them is plain `ab`,
/// the only agent it applies to (`ab:depth=1 --time 0.01` was silently a
/// depth-1 match).
fn agents(args: &MatchArgs) -> Result<(AgentSpec, AgentSpec), CliError> {
    if args.seconds.is_some() && args.a != "ab" && args.b != "ab" {
        return Err(CliError::usage(
            "time",
            "--time applies to an agent given as plain `ab`, and neither is (give a limit in the agent instead: `ab:time=S`)",
        ));
    }
    Ok((
        agent("A", &args.a, args.seconds)?,
        agent("B", &args.b, args.seconds)?,
    ))
}

/// Deepest balance search accepted (deeper ones take minutes per opening).
const MAX_BALANCE_DEPTH: u32 = 16;

/// `--balance-depth` when only `--balance` is given.
const DEFAULT_BALANCE_DEPTH: u32 = 8;

fn balance(args: &MatchArgs) -> Result<Option<Balance>, CliError> {
    let Some(margin) = args.balance else {
        // Refused rather than ignored: a depth alone balances nothing.
        if let Some(depth) = args.balance_depth {
            return Err(CliError::usage(
                "balance-depth",
                format!("--balance-depth {depth} needs --balance MARGIN (openings are balanced only with it)"),
            ));
        }
        return Ok(None);
    };
    let depth = args.balance_depth.unwrap_or(DEFAULT_BALANCE_DEPTH);
    if margin < 0 {
        return Err(CliError::usage(
            "balance",
            format!("--balance must be a margin of 0 stones or more, found {margin}"),
        ));
    }
    if !(1..=MAX_BALANCE_DEPTH).contains(&depth) {
        return Err(CliError::usage(
            "balance-depth",
            format!("--balance-depth must be 1 to {MAX_BALANCE_DEPTH} plies, found {depth}"),
        ));
    }
    Ok(Some(Balance { depth, margin }))
}

pub fn run<G: Searchable>(start: &G, args: &MatchArgs, out: &mut Out) -> Result<(), CliError> {
    let (a, b) = agents(args)?;
    if let Some(path) = &args.records {
        super::paths::check_out_file("records", path)?;
    }
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
    let stop = crate::infra::interrupt::ctrl_c_flag();
    let none_finished = || {
        CliError::new(
            ErrorKind::Interrupted,
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
    if let Some(path) = &args.records {
        let mut buf = Vec::new();
        report.write_records(&mut buf).map_err(CliError::from)?;
        write_atomic(path, &buf).map_err(|e| super::paths::cannot_write("records", e))?;
    }
    let summary = report.summary(&start.to_string(), &cfg);
    if out.json {
        /// The summary and whether Ctrl-C cut the match short.
        #[derive(serde::Serialize)]
        struct Output<'a> {
            #[serde(flatten)]
            summary: &'a MatchSummary,
            interrupted: bool,
        }
        return out.model_sorted(&Output {
            summary: &summary,
            interrupted,
        });
    }
    print_match(
        &start.to_string(),
        &report,
        &summary,
        &cfg,
        interrupted,
        out,
    )
}

/// The readable summary of a match: result, Elo, lengths.
fn print_match(
    start: &str,
    report: &MatchReport,
    summary: &MatchSummary,
    cfg: &MatchConfig,
    interrupted: bool,
    out: &mut Out,
) -> Result<(), CliError> {
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
        "elo   {} (95% interval {} .. {})",
        summary.elo, summary.elo_ci95[0], summary.elo_ci95[1]
    ))?;
    out.line(format!("average length {:.1} plies", report.average_plies))?;
    out.line(format!(
        "one-warrior victories {:.1}% of decided games",
        100.0 * report.one_warrior_share
    ))
}
