//! `sow perft <POSITION> <DEPTH> [--divide] [--max-nodes N]`: RULES §4 on
//! the rayon pool (`analysis::perft_report`), with a progress bar, Ctrl-C,
//! and a refusal of walks far out of reach.

use super::{args, CliError, Out};
use crate::analysis::perft_report::{perft_report, PerftRefusal, DEFAULT_MAX_NODES, DIVIDE_LIMIT};
use crate::error::ErrorKind;
use crate::infra::progress::Progress;
use crate::report::perft::text;

/// `sow perft`'s flags.
#[derive(clap::Args, Debug)]
pub struct PerftArgs {
    /// Position (quoted notation or a shortcut).
    pub position: String,
    /// Number of moves (at most 1000).
    #[arg(value_parser = args::perft_depth)]
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

impl PerftArgs {
    pub fn run(&self, out: &mut Out) -> Result<(), CliError> {
        let pos = super::parse_any(&self.position)?;
        let bar = Progress::auto(out.quiet || out.json).count(0, "perft", "subtrees");
        let stop = crate::infra::interrupt::ctrl_c_flag();
        let (depth, divide, max) = (self.depth, self.divide, self.max_nodes);
        let report =
            crate::with_position!(&pos, p => perft_report(p, depth, divide, max, &bar, &stop));
        bar.finish_and_clear();
        let report = report.map_err(refusal)?;
        let quiet = out.quiet;
        out.result(&report, |r| text(r, quiet))
    }
}

/// A refused or interrupted walk, in the words of the flags.
fn refusal(e: PerftRefusal) -> CliError {
    match e {
        PerftRefusal::TooWide(count) => CliError::usage(
            "divide",
            format!("the position has {count} root moves, more than the {DIVIDE_LIMIT} `--divide` can list; run perft without --divide"),
        ),
        PerftRefusal::OutOfReach { depth, guess, max_nodes } => CliError::usage(
            "depth",
            format!(
                "perft to depth {depth} is out of reach: about {guess:.1e} positions to generate (estimated from {} random lines), more than --max-nodes {max_nodes}; raise --max-nodes to run it anyway",
                crate::analysis::perft_report::PROBES
            ),
        ),
        PerftRefusal::Interrupted(seconds) => CliError::new(
            ErrorKind::Interrupted,
            None,
            format!("perft interrupted (Ctrl-C) after {seconds:.1} s"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_root_is_refused_naming_divide() {
        let err = refusal(PerftRefusal::TooWide(DIVIDE_LIMIT + 1));
        assert_eq!(err.kind, ErrorKind::Usage);
        assert_eq!(err.field.as_deref(), Some("divide"));
    }
}
