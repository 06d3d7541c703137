//! `sow solve '<kiothi position>'`: the exact value of a late Kiothi
//! position by the prover (`prove::pipeline`): no time limit unless
//! `--time` or `--nodes` is given, the proved bounds on a spinner on a
//! terminal, and on Ctrl-C (or a limit) the best proved lower and upper
//! bounds. Here: the flags checked, the library's errors named by flag,
//! the report printed.

use std::path::Path;

use super::args::check_seconds;
use super::{CliError, Out};
use crate::error::ErrorKind;
use crate::games::kiothi::KiothiPosition;
use crate::infra::progress::Progress;
use crate::prove::pipeline::{ProofError, ProofJob, ProveReport};
use crate::Game;

/// The options of `solve` for a Kiothi position.
pub use crate::prove::pipeline::ProofRequest as ProveArgs;

/// Proves `pos` with the endgame tables found in `db` and prints the report.
pub fn run(
    pos: &KiothiPosition,
    args: ProveArgs,
    db: &Path,
    out: &mut Out,
) -> Result<(), CliError> {
    args.seconds.map(check_seconds).transpose()?;
    if args.nodes == Some(0) {
        return Err(CliError::usage("nodes", "--nodes must be at least 1"));
    }
    // At most the memory available, as `eval --hash` (`--hash` near
    // `usize::MAX` overflowed the table's size, a panic).
    super::args::check_hash(args.hash_mb)?;
    let progress = Progress::auto(out.quiet || out.json);
    let job = ProofJob::prepare(pos, args, db, progress).map_err(ProofError::refusal)?;
    let stop = crate::infra::interrupt::ctrl_c_flag();
    let report = job.run(&stop).map_err(ProofError::refusal)?;
    if out.json {
        let value = serde_json::to_value(&report)
            .map_err(|e| CliError::new(ErrorKind::Io, None, format!("encoding JSON: {e}")))?;
        return out.json(&value);
    }
    print_human(pos, &report, out)
}

fn print_human(pos: &KiothiPosition, r: &ProveReport, out: &mut Out) -> Result<(), CliError> {
    if r.interrupted {
        out.line("interrupted: the bounds proved so far")?;
    }
    out.info(format!("position {}", r.position))?;
    let side = format!("{:?}", pos.side_to_move());
    match r.value {
        // `--quiet`: the value (or bounds) and best move alone.
        Some(v) => out.line(format!(
            "value    {v:+} for {side} to move (exact; depth {}, {} nodes, {:.1} s)",
            r.depth, r.nodes, r.seconds
        ))?,
        None => out.line(format!(
            "value    between {:+} and {:+} for {side} to move (proved bounds; depth {}, {} nodes, {:.1} s)",
            r.lower, r.upper, r.depth, r.nodes, r.seconds
        ))?,
    }
    out.line(format!("best     {}", r.best.as_deref().unwrap_or("-")))?;
    if let Some(n) = r.endgame_stones {
        out.info(format!(
            "tables   {}",
            crate::analysis::kiothi_tables::coverage(n)
        ))?;
    }
    out.info(format!("pv       {}", r.pv.join(" ")))?;
    if let Some(m) = r.final_margin {
        out.info(format!(
            "final    margin {m:+} for {side} (prisons so far plus the value)"
        ))?;
    }
    if let Some(k) = &r.kept {
        out.info(format!(
            "kept     {} ({} entries read, {} written)",
            k.file, k.read, k.written
        ))?;
    }
    if let Some(c) = &r.verified {
        out.info(format!(
            "verified [{:+}, {:+}] by a certificate of {} positions ({} table leaves, {} game ends, {} repetitions; {} children proved again; {:.1} s)",
            c.lower, c.upper, c.positions, c.table_leaves, c.game_ends, c.repetitions, c.reproved, c.seconds
        ))?;
    }
    Ok(())
}
