//! `sow perft <POSITION> <DEPTH> [--divide]`: RULES §4 on the rayon pool.

use std::time::Instant;

use serde_json::json;

use super::{AnyPosition, CliError, Out, DIVIDE_LIMIT};
use crate::game::Game;

/// `sow perft`: its command line.
#[derive(clap::Args, Debug)]
pub struct PerftArgs {
    /// Position (quoted notation or a shortcut).
    pub position: String,
    /// Number of moves.
    pub depth: u32,
    /// List the count under each root move.
    #[arg(long)]
    pub divide: bool,
}

impl PerftArgs {
    pub fn run(&self, out: &mut Out) -> Result<(), CliError> {
        run(
            &super::parse_position(&self.position)?,
            self.depth,
            self.divide,
            out,
        )
    }
}

pub fn run(pos: &AnyPosition, depth: u32, divide: bool, out: &mut Out) -> Result<(), CliError> {
    crate::with_position!(pos, p => perft(p, depth, divide, out))
}

pub fn perft<G: Game>(p: &G, depth: u32, divide: bool, out: &mut Out) -> Result<(), CliError> {
    if divide {
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
    let t0 = Instant::now();
    let (nodes, split) = if divide && depth > 0 {
        let split = crate::perft::perft_divide(p, depth);
        (split.iter().map(|(_, n)| n).sum(), Some(split))
    } else {
        let split = if divide { Some(Vec::new()) } else { None };
        (crate::perft::perft_parallel(p, depth), split)
    };
    let seconds = t0.elapsed().as_secs_f64();
    let nps = if seconds > 0.0 {
        (nodes as f64 / seconds).round() as u64
    } else {
        0
    };
    if out.json {
        let mut obj = json!({
            "position": p.to_string(),
            "depth": depth,
            "nodes": nodes,
            "seconds": seconds,
            "nps": nps,
            "threads": rayon::current_num_threads(),
        });
        if let Some(split) = &split {
            obj["divide"] = split
                .iter()
                .map(|(mv, n)| json!({"move": mv.to_string(), "nodes": n}))
                .collect();
        }
        return out.json(&obj);
    }
    if let Some(split) = &split {
        for (mv, n) in split {
            out.line(format!("{mv}: {n}"))?;
        }
    }
    if out.quiet {
        return out.line(nodes);
    }
    if split.as_ref().is_some_and(|s| !s.is_empty()) {
        out.line("")?;
    }
    out.line(format!("position {p}"))?;
    out.line(format!("depth    {depth}"))?;
    out.line(format!("nodes    {nodes}"))?;
    out.line(format!("time     {seconds:.3} s"))?;
    out.line(format!(
        "nps      {nps} ({} threads)",
        rayon::current_num_threads()
    ))
}
