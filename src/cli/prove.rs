//! `sow solve '<kiothi position>'`: the exact value of a late Kiothi
//! position by the prover (`prove`): no time limit unless `--time`
//! or `--nodes` is given, the proved bounds on a spinner on a terminal
//! (`progress::Progress::spinner`), and
//! on Ctrl-C (or a limit) the best proved lower and upper bounds.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

use super::kept_bounds::KeptBounds;
use super::{CliError, Out};
use crate::error::ErrorKind;
use crate::games::kiothi::KiothiPosition;
use crate::infra::progress::{Progress, ProgressBar};
use crate::kiothi_tables::{KiothiEndgames, MAX_STONES};
use crate::prove::bounds::BoundTable;
use crate::prove::certificate::{check_bounds, CertificateError, CertificateReport, CheckLimits};
use crate::prove::{prove_with_tables, Method, PlyCost, ProveLimits, ProveProgress};
use crate::Game;

/// The options of `solve` for a Kiothi position.
#[derive(Clone, Debug)]
pub struct ProveArgs {
    pub seconds: Option<f64>,
    pub nodes: Option<u64>,
    pub hash_mb: usize,
    pub threads: usize,
    /// Use the endgame tables of at most this many warriors (default: all
    /// in the database directory).
    pub endgame_stones: Option<usize>,
    /// Where the proved bounds are kept between runs (`--keep`).
    pub keep: Option<PathBuf>,
    /// Check the proved bounds by a certificate afterwards (`--verify`).
    pub verify: bool,
}

/// `--keep`: the file and what went through it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KeptReport {
    pub file: String,
    /// Entries read from the file before the proof (0 for a new file).
    pub read: u64,
    /// Entries written back after it.
    pub written: u64,
}

/// The `--json` object (and the data of the human output).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProveReport {
    pub position: String,
    /// The exact value for the mover (RULES §0), `null` when not proved.
    pub value: Option<i32>,
    pub best: Option<String>,
    pub pv: Vec<String>,
    pub exact: bool,
    /// Proved bounds on the value (equal when exact).
    pub lower: i32,
    pub upper: i32,
    /// The final margin of the game for the mover (prisons so far plus the
    /// value), when exact.
    pub final_margin: Option<i32>,
    /// Deepest iteration of the prover: its depth budget, in plies of full
    /// cost (lines through nodes with few moves run deeper).
    pub depth: u32,
    pub nodes: u64,
    pub seconds: f64,
    /// Stopped by Ctrl-C, `--time` or `--nodes` before the value was exact.
    pub interrupted: bool,
    /// The endgame tables used: boards of at most this many warriors
    /// (`sow solve kiothi`); `null` without tables.
    pub endgame_stones: Option<usize>,
    /// The proved interval each time a root test narrowed it, in order:
    /// where a long proof spent its time (e.g. raising the lower bound to
    /// the value, then refuting one more).
    pub bounds: Vec<ProveProgress>,
    /// The file of `--keep`, `null` without it.
    pub kept: Option<KeptReport>,
    /// `--verify`: the certificate that checked `lower` and `upper`;
    /// `null` without it, or when Ctrl-C stopped the check.
    pub verified: Option<CertificateReport>,
}

/// Proves `pos` with the endgame tables found in `db` and prints the report.
pub fn run(
    pos: &KiothiPosition,
    args: ProveArgs,
    db: &Path,
    out: &mut Out,
) -> Result<(), CliError> {
    args.seconds.map(super::args::check_seconds).transpose()?;
    if args.nodes == Some(0) {
        return Err(CliError::usage("nodes", "--nodes must be at least 1"));
    }
    // At most the memory available, as `eval --hash` (`--hash` near
    // `usize::MAX` overflowed the table's size, a panic).
    super::args::check_hash(args.hash_mb)?;
    if pos.is_opening() {
        return Err(CliError::new(
            ErrorKind::Unsupported,
            Some("position"),
            format!(
                "the prover solves play-phase positions (turn 3 on); this opening turn alone has {} moves, \
                 far beyond an exact proof (use `sow eval` or `sow openings kiothi` for estimates)",
                pos.move_count()
            ),
        ));
    }
    let tables = KiothiEndgames::load(db, args.endgame_stones.unwrap_or(MAX_STONES))?;
    let table = BoundTable::new(args.hash_mb);
    let bar = Progress::auto(out.quiet || out.json).spinner("proving");
    bar.set_message("reading the kept bounds");
    let kept = args
        .keep
        .as_deref()
        .map(|path| KeptBounds::open(path, &table))
        .transpose()?;
    let stop = crate::infra::interrupt::ctrl_c_flag();
    let limits = ProveLimits {
        nodes: args.nodes,
        seconds: args.seconds,
        ply_cost: ply_cost_setting()?,
        method: method_setting()?,
        pn_table_mb: None,
        question: None,
    };
    let mut bounds: Vec<ProveProgress> = Vec::new();
    let proof = prove_with_tables(
        pos,
        &limits,
        args.threads.max(1),
        &table,
        &tables,
        &stop,
        &mut |p| {
            bar.set_message(progress_line(p));
            record_narrowing(&mut bounds, p);
        },
    );
    let kept = match kept {
        None => None,
        Some(k) => {
            bar.set_message("writing the kept bounds");
            // A failed write must not lose the proof's answer: the refusal
            // says what was proved.
            let written = k.save(&table).map_err(|mut e| {
                e.message = format!(
                    "{} (the proof had reached [{:+}, {:+}] for the mover)",
                    e.message, proof.lower, proof.upper
                );
                e
            })?;
            Some(KeptReport {
                file: k.path().display().to_string(),
                read: k.read,
                written,
            })
        }
    };
    let verified = match args.verify {
        true => verify(
            pos,
            (proof.lower, proof.upper),
            args.threads.max(1),
            &table,
            &tables,
            &stop,
            &bar,
        )?,
        false => None,
    };
    bar.finish_and_clear();
    let me = pos.side_to_move().index();
    let prisons = pos.captured();
    let report = ProveReport {
        position: pos.to_string(),
        value: proof.value(),
        best: proof.best.map(|m| m.to_string()),
        pv: proof.pv.iter().map(|m| m.to_string()).collect(),
        exact: proof.exact(),
        lower: proof.lower,
        upper: proof.upper,
        final_margin: proof
            .value()
            .map(|v| prisons[me] as i32 - prisons[1 - me] as i32 + v),
        depth: proof.depth,
        nodes: proof.nodes,
        seconds: proof.seconds,
        interrupted: proof.interrupted || (stop.load(Ordering::SeqCst) && !proof.exact()),
        endgame_stones: tables.max_stones(),
        bounds,
        kept,
        verified,
    };
    if out.json {
        let value = serde_json::to_value(&report)
            .map_err(|e| CliError::new(ErrorKind::Io, None, format!("encoding JSON: {e}")))?;
        return out.json(&value);
    }
    print_human(pos, &report, out)
}

/// `--verify`: checks the proved bounds by a certificate
/// (`prove::certificate`) on `threads` threads, `None` when Ctrl-C stopped
/// the check. A bound without a certificate is a bug of the prover or the
/// tables: an internal error naming the position. The check's memo may use
/// what memory is left when it starts; a check that needs more is refused
/// with the bounds the proof had reached.
fn verify(
    pos: &KiothiPosition,
    bounds: (i32, i32),
    threads: usize,
    table: &BoundTable,
    tables: &KiothiEndgames,
    stop: &AtomicBool,
    bar: &ProgressBar,
) -> Result<Option<CertificateReport>, CliError> {
    bar.set_message("verifying the proved bounds");
    let progress = |n: u64| bar.set_message(format!("verifying: {n} positions checked"));
    let available = crate::infra::limits::mem_available_mib();
    let limits = CheckLimits {
        threads,
        max_positions: available.map(CheckLimits::positions_in),
    };
    // A panic on any of the check's threads comes back here (rayon passes
    // it on): an internal error, not a crash.
    let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        check_bounds(pos, bounds, table, tables, &limits, stop, &progress)
    }))
    .map_err(|_| CliError::new(ErrorKind::Internal, Some("verify"), "the check panicked"))?;
    match checked {
        Ok(report) => Ok(Some(report)),
        Err(CertificateError::Stopped) => Ok(None),
        Err(CertificateError::TooLarge { positions }) => Err(CliError::usage(
            "verify",
            format!(
                "the check needs more than the {} MiB of memory available for its {positions} \
                 positions (the proof had reached [{:+}, {:+}] for the mover)",
                available.unwrap_or(0),
                bounds.0,
                bounds.1
            ),
        )),
        Err(e) => Err(CliError::new(
            ErrorKind::Internal,
            Some("verify"),
            e.to_string(),
        )),
    }
}

/// Environment variable that replaces the prover's ply costs (quarter plies
/// for nodes of 1, 2, 3-4, 5+ moves, e.g. `4,4,4,4` for one ply per move):
/// for measuring the prover (`scripts/kiothi_exact.sh --compare`), not for
/// play; any setting gives exact values.
pub const PLY_COST_VAR: &str = "SOW_PROVE_PLY_COST";

fn ply_cost_setting() -> Result<PlyCost, CliError> {
    match std::env::var(PLY_COST_VAR) {
        Err(_) => Ok(PlyCost::default()),
        Ok(text) => PlyCost::parse(&text).ok_or_else(|| {
            CliError::usage(
                PLY_COST_VAR,
                format!(
                    "{PLY_COST_VAR} must be four quarter-ply costs `a,b,c,d` from 0 to 16, \
                     the last at least 1 (got `{text}`)"
                ),
            )
        }),
    }
}

/// Environment variable that chooses how the prover answers its tests
/// (`pn`, the default: proof-number search on every thread; `mixed`: proof
/// numbers on one thread, iterative deepening on the others; `id`:
/// iterative deepening alone): for measuring the prover, not
/// for play; every method gives exact values.
pub const METHOD_VAR: &str = "SOW_PROVE_METHOD";

fn method_setting() -> Result<Method, CliError> {
    match std::env::var(METHOD_VAR) {
        Err(_) => Ok(Method::default()),
        Ok(text) => Method::parse(&text).ok_or_else(|| {
            CliError::usage(
                METHOD_VAR,
                format!("{METHOD_VAR} must be `mixed`, `pn` or `id` (got `{text}`)"),
            )
        }),
    }
}

/// Keeps `p` when it narrows the interval of the last one kept (the
/// prover reports after every root test, most of which leave it as it was).
fn record_narrowing(bounds: &mut Vec<ProveProgress>, p: &ProveProgress) {
    let narrows = bounds
        .last()
        .is_none_or(|last| (p.lower, p.upper) != (last.lower, last.upper));
    if narrows {
        bounds.push(*p);
    }
}

fn progress_line(p: &ProveProgress) -> String {
    format!(
        "depth {}  value in [{:+}, {:+}]  nodes {}  {:.1} s",
        p.depth, p.lower, p.upper, p.nodes, p.seconds
    )
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
