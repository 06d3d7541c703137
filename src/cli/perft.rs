//! `sow perft <POSITION> <DEPTH> [--divide] [--max-nodes N]`: RULES §4 on
//! the rayon pool, with a progress bar, Ctrl-C, and a refusal of walks far
//! out of reach.

use std::time::Instant;

use serde::Serialize;

use super::{CliError, Out, DIVIDE_LIMIT};
use crate::error::ErrorKind;
use crate::game::Game;
use crate::infra::progress::Progress;
use crate::perft::{estimate, perft_count, Count};

/// `sow perft`'s flags.
#[derive(clap::Args, Debug)]
pub struct PerftArgs {
    /// Position (quoted notation or a shortcut).
    pub position: String,
    /// Number of moves (at most 1000).
    #[arg(value_parser = super::args::perft_depth)]
    pub depth: u32,
    /// List the count under each root move (a Kiothi opening counted by
    /// formula: under each lifted pair of pits, whatever the placement).
    #[arg(long)]
    pub divide: bool,
    /// Refuse a walk estimated to generate more positions than this
    /// (trees counted by formula are never refused).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_NODES)]
    pub max_nodes: u64,
}

/// About an hour of walking on 2 cores: Kiothi's play phase walks about
/// 2·10^7 positions per CPU-second (perft 7 of the turn-3 position of
/// `rule2_rule3_protection_marks_after_turn_2`: 269,274,991 in 13 s of CPU),
/// Kpé faster.
pub const DEFAULT_MAX_NODES: u64 = 100_000_000_000;

/// Random lines sampled to estimate the size of a walk.
const PROBES: u32 = 64;

/// One line of `--divide`.
#[derive(Serialize, Debug)]
pub struct DivideLine {
    /// A root move in notation, or the lifted pits (`4+5`) of a group of
    /// opening moves counted by formula.
    #[serde(rename = "move")]
    pub group: String,
    pub nodes: u64,
}

/// `sow perft --json`'s object (README: output contract).
#[derive(Serialize, Debug)]
pub struct PerftReport {
    pub position: String,
    pub depth: u32,
    pub nodes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub divide: Option<Vec<DivideLine>>,
    /// `move` (one line per root move) or `lifted pits` (per lift set of a
    /// Kiothi opening, counted by formula); with `divide` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub divide_by: Option<&'static str>,
    pub seconds: f64,
    /// Nodes per second; `null` when the nodes were counted by formula.
    pub nps: Option<u64>,
    /// True when the nodes were counted by formula, not visited.
    pub counted: bool,
    pub threads: usize,
}

impl PerftArgs {
    pub fn run(&self, out: &mut Out) -> Result<(), CliError> {
        let pos = super::parse_position(&self.position)?;
        crate::with_position!(&pos, p => perft(p, self, out))
    }
}

pub fn perft<G: Game>(p: &G, args: &PerftArgs, out: &mut Out) -> Result<(), CliError> {
    let depth = args.depth;
    let by_formula = p.perft_by_formula(depth).is_some();
    if args.divide && !by_formula {
        let count = p.move_count();
        if count > DIVIDE_LIMIT {
            return Err(CliError::usage(
                "divide",
                format!(
                    "the position has {count} root moves, more than the {DIVIDE_LIMIT} `--divide` can list; run perft without --divide"
                ),
            ));
        }
    }
    if !by_formula && depth > 1 {
        let guess = estimate(p, depth, PROBES, 1);
        if guess > args.max_nodes as f64 {
            return Err(CliError::usage(
                "depth",
                format!(
                    "perft to depth {depth} is out of reach: about {guess:.1e} positions to generate (estimated from {PROBES} random lines), more than --max-nodes {}; raise --max-nodes to run it anyway",
                    args.max_nodes
                ),
            ));
        }
    }
    let bar = Progress::auto(out.quiet || out.json).count(0, "perft", "subtrees");
    let stop = crate::infra::interrupt::ctrl_c_flag();
    let t0 = Instant::now();
    let counted = perft_count(p, depth, &bar, &stop);
    bar.finish_and_clear();
    let Count {
        nodes,
        split,
        counted,
    } = counted.map_err(|_| {
        CliError::new(
            ErrorKind::Interrupted,
            None,
            format!(
                "perft interrupted (Ctrl-C) after {:.1} s",
                t0.elapsed().as_secs_f64()
            ),
        )
    })?;
    let seconds = t0.elapsed().as_secs_f64();
    let report = PerftReport {
        position: p.to_string(),
        depth,
        nodes,
        divide: args.divide.then(|| {
            split
                .into_iter()
                .map(|(group, nodes)| DivideLine { group, nodes })
                .collect()
        }),
        divide_by: args
            .divide
            .then_some(if counted { "lifted pits" } else { "move" }),
        seconds,
        nps: (!counted).then(|| {
            if seconds > 0.0 {
                (nodes as f64 / seconds).round() as u64
            } else {
                0
            }
        }),
        counted,
        threads: rayon::current_num_threads(),
    };
    if out.json {
        return out.json(&serde_json::to_value(&report).map_err(internal)?);
    }
    print_text(&report, out)
}

fn internal(e: serde_json::Error) -> CliError {
    CliError::new(ErrorKind::Internal, None, e.to_string())
}

fn print_text(r: &PerftReport, out: &mut Out) -> Result<(), CliError> {
    if let Some(lines) = &r.divide {
        for l in lines {
            out.line(format!("{}: {}", l.group, l.nodes))?;
        }
    }
    if out.quiet {
        return out.line(r.nodes);
    }
    if r.divide.as_ref().is_some_and(|s| !s.is_empty()) {
        out.line("")?;
    }
    out.line(format!("position {}", r.position))?;
    out.line(format!("depth    {}", r.depth))?;
    out.line(format!("nodes    {}", r.nodes))?;
    out.line(format!("time     {:.3} s", r.seconds))?;
    if r.divide_by == Some("lifted pits") {
        out.line("divide   per lifted pair: each line counts the sequences whose first move lifts those pits, whatever the placement")?;
    }
    match r.nps {
        Some(nps) => out.line(format!("nps      {nps} ({} threads)", r.threads)),
        None => {
            out.line("method   counted by formula (RULES §2.2 redistributions), not enumerated")
        }
    }
}
