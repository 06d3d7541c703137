//! `sow match <AGENT> <AGENT>`: engine-versus-engine games from seeded
//! random openings, each played twice with colours swapped; score, Elo
//! difference with its 95% interval, game lengths, one-warrior victories,
//! and the game records as JSON lines.

use std::path::PathBuf;

use super::{args, parse_any, AnyPosition, CliError, Out};
use crate::analysis::match_game::{check_agents, MatchGame};
use crate::analysis::matches::{run_match_until, Balance, MatchConfig, MatchOutcome};
use crate::error::ErrorKind;
use crate::infra::files::write_atomic;
use crate::infra::progress::Progress;
use crate::search::AgentSpec;

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
    #[command(flatten)]
    pub opening: args::OpeningPlies,
    /// Play only balanced openings: random openings whose expected final
    /// margin (stones captured in the opening plus the value of a
    /// one-thread search to --balance-depth) is within MARGIN stones of
    /// even (0: judged a draw).
    #[arg(long, value_name = "MARGIN", value_parser = |t: &str| args::bounded::<i32>("balance", t, 0, i32::MAX as u64))]
    pub balance: Option<i32>,
    /// Depth of the search that judges an opening's balance, 1 to 16
    /// (default 8); only with --balance.
    #[arg(long, value_name = "PLIES", requires = "balance", value_parser = |t: &str| args::bounded::<u32>("balance-depth", t, 1, 16))]
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

/// `--balance-depth` when only `--balance` is given.
const DEFAULT_BALANCE_DEPTH: u32 = 8;

pub fn run<G: MatchGame>(start: &G, args: &MatchArgs, out: &mut Out) -> Result<(), CliError> {
    let (a, b) = agents(args)?;
    check_agents::<G>(&[&a, &b])?;
    if let Some(path) = &args.records {
        super::paths::check_out_file("records", path)?;
    }
    let cfg = MatchConfig {
        games: args.games,
        opening_plies: args.opening.plies,
        seed: args.seed,
        ply_cap: 1000,
        balance: args.balance.map(|margin| Balance {
            margin,
            depth: args.balance_depth.unwrap_or(DEFAULT_BALANCE_DEPTH),
        }),
    };
    let bar = Progress::auto(out.quiet || out.json).count(0, "match", "openings + games");
    // Ctrl-C starts no new game: the report holds the finished ones.
    let stop = crate::infra::interrupt::ctrl_c_flag();
    let report = run_match_until(start, &a, &b, &cfg, &bar, &stop);
    bar.finish_and_clear();
    let interrupted = stop.load(std::sync::atomic::Ordering::SeqCst);
    let report = report.ok_or_else(|| {
        let message = "interrupted before the first game finished";
        CliError::new(ErrorKind::Interrupted, None, message)
    })?;
    if let Some(path) = &args.records {
        let mut buf = Vec::new();
        report.write_records(&mut buf).map_err(CliError::from)?;
        write_atomic(path, &buf).map_err(|e| super::paths::cannot_write("records", e))?;
    }
    let summary = report.summary(&start.to_string(), &cfg);
    if out.json {
        return out.model_sorted(&MatchOutcome {
            summary: &summary,
            interrupted,
        });
    }
    out.lines(crate::report::matches::text(
        &start.to_string(),
        &report,
        &summary,
        &cfg,
        interrupted,
    ))
}
