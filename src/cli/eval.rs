//! `sow eval <POSITION>`: the value of a position, its best move and line,
//! and its moves: exact for Kpé from its database (or solved on the fly
//! for a small variant), by deep search for Kiothi or with a search limit;
//! with `--multipv N` the first N moves with their lines.

use std::sync::Arc;

use super::{args, parse_any, AnyPosition, CliError, Out};
use crate::analysis::evaluation::{evaluate, opening_answer};
use crate::analysis::search_budget::Budget;
use crate::analysis::value_sources::ValueSources;
use crate::infra::progress::Progress;
use crate::report::evaluation::{iteration_line, text};

/// `sow eval`: its command line.
#[derive(clap::Args, Debug)]
pub struct EvalArgs {
    /// Position (quoted notation or a shortcut).
    pub position: String,
    #[command(flatten)]
    pub db: super::paths::DbDir,
    /// Search depth limit (plies).
    #[arg(long, value_parser = args::depth)]
    pub depth: Option<u32>,
    /// Search time limit in seconds.
    #[arg(long, value_name = "SECONDS", value_parser = args::seconds)]
    pub time: Option<f64>,
    /// Search node limit.
    #[arg(long, value_parser = args::nodes)]
    pub nodes: Option<u64>,
    #[command(flatten)]
    pub hash: args::SearchHash,
    /// The N best moves with values and lines (by search: each move's
    /// child searched to the same depth, sharing the budget).
    #[arg(long, value_name = "N")]
    pub multipv: Option<usize>,
}

impl EvalArgs {
    pub fn run(&self, out: &mut Out) -> Result<(), CliError> {
        let pos = parse_any(&self.position)?;
        let budget = Budget {
            depth: self.depth,
            seconds: self.time,
            nodes: self.nodes,
            hash_mb: self.hash.mb,
            threads: rayon::current_num_threads(),
        };
        let quiet = out.quiet || out.json;
        let sources = ValueSources::new(self.db.given(), Progress::auto(quiet));
        let exact = !budget.limited();
        let kiothi = matches!(pos, AnyPosition::Kiothi(_));
        if kiothi {
            sources.kiothi_tables()?;
        }
        if self.multipv == Some(0) {
            return Err(CliError::usage("multipv", "--multipv must be at least 1"));
        }
        // Ctrl-C stops a search (its best completed iteration is printed);
        // a database read or an on-the-fly solve it ends as usual.
        let stop = match kiothi || !exact {
            true => {
                args::check_hash(self.hash.mb)?;
                crate::infra::interrupt::ctrl_c_flag()
            }
            false => Arc::default(),
        };
        if let Some(e) = opening_answer(&sources, &pos, &budget, self.multipv)? {
            let side = crate::with_position!(&pos, p => crate::game::Game::side_to_move(p));
            let quiet = out.quiet;
            return out.result(&e, |e| text(e, side, quiet));
        }
        let mut printed = Ok(());
        let e = evaluate(
            &sources,
            &pos,
            exact,
            &budget,
            self.multipv,
            &stop,
            &mut |it| {
                if !out.json && printed.is_ok() {
                    printed = out.info(iteration_line(&it)).and_then(|_| out.flush());
                }
            },
        )?;
        printed?;
        let side = crate::with_position!(&pos, p => crate::game::Game::side_to_move(p));
        let quiet = out.quiet;
        out.result(&e, |e| text(e, side, quiet))
    }
}
