//! A proof as `sow solve '<kiothi position>'` runs it: the endgame tables
//! and the bound table opened, the kept bounds read ([`ProofJob::prepare`]),
//! then the proof, the kept bounds written back and the certificate check
//! ([`ProofJob::run`]), ending in a [`ProveReport`].

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;
use thiserror::Error;

use super::bounds::BoundTable;
use super::certificate::{check_bounds, CertificateError, CertificateReport, CheckLimits};
use super::kept_bounds::{KeptBounds, KeptBoundsError};
use super::{prove_with_tables, ProveLimits, ProveProgress};
use crate::error::{CliError, ErrorKind};
use crate::games::kiothi::KiothiPosition;
use crate::infra::progress::{Progress, ProgressBar};
use crate::kiothi_tables::{EndgameError, KiothiEndgames, MAX_STONES};
use crate::Game;

/// What to prove with, and what to do around the proof.
#[derive(Clone, Debug)]
pub struct ProofRequest {
    /// Wall-clock budget (`None`: until exact or Ctrl-C).
    pub seconds: Option<f64>,
    /// Node budget.
    pub nodes: Option<u64>,
    /// Size of the table of proved bounds, in MiB.
    pub hash_mb: usize,
    pub threads: usize,
    /// Use the endgame tables of at most this many warriors (default: all
    /// in the database directory).
    pub endgame_stones: Option<usize>,
    /// Where the proved bounds are kept between runs.
    pub keep: Option<PathBuf>,
    /// Check the proved bounds by a certificate afterwards.
    pub verify: bool,
}

/// The file of kept bounds and what went through it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KeptReport {
    pub file: String,
    /// Entries read from the file before the proof (0 for a new file).
    pub read: u64,
    /// Entries written back after it.
    pub written: u64,
}

/// What a proof found (the `--json` object of `sow solve POSITION`).
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
    /// Deepest iteration of the deepening search (`Proof::depth`).
    pub depth: u32,
    pub nodes: u64,
    pub seconds: f64,
    /// Stopped by Ctrl-C or a limit before the value was exact.
    pub interrupted: bool,
    /// The endgame tables used: boards of at most this many warriors;
    /// `null` without tables.
    pub endgame_stones: Option<usize>,
    /// The proved interval each time a root test narrowed it, in order:
    /// where a long proof spent its time.
    pub bounds: Vec<ProveProgress>,
    /// The file of kept bounds, `null` without one.
    pub kept: Option<KeptReport>,
    /// The certificate that checked `lower` and `upper`; `null` without a
    /// check, or when Ctrl-C stopped it.
    pub verified: Option<CertificateReport>,
}

/// Why a proof could not be made or reported.
#[derive(Debug, Error)]
pub enum ProofError {
    /// An opening turn: far too many moves for an exact proof.
    #[error(
        "the prover solves play-phase positions (turn 3 on); this opening turn alone has \
         {moves} moves, far beyond an exact proof"
    )]
    Opening { moves: u64 },
    #[error(transparent)]
    Tables(#[from] EndgameError),
    #[error(transparent)]
    Kept(#[from] KeptBoundsError),
    /// The kept bounds could not be written back: what the proof had
    /// reached is not lost.
    #[error("{source} (the proof had reached [{lower:+}, {upper:+}] for the mover)")]
    KeptNotSaved {
        source: KeptBoundsError,
        lower: i32,
        upper: i32,
    },
    /// The certificate check panicked on one of its threads: a bug.
    #[error("the check panicked")]
    CheckPanicked,
    /// The certificate needs more memory than is available.
    #[error(
        "the check needs more than the {available_mib} MiB of memory available for its \
         {positions} positions (the proof had reached [{lower:+}, {upper:+}] for the mover)"
    )]
    CheckTooLarge {
        available_mib: u64,
        positions: u64,
        lower: i32,
        upper: i32,
    },
    /// A proved bound without a certificate (a bug of the prover or the
    /// tables), or the check's threads could not start.
    #[error(transparent)]
    Check(CertificateError),
}

/// A proof ready to run: its tables open, the kept bounds read.
pub struct ProofJob {
    pos: KiothiPosition,
    request: ProofRequest,
    tables: KiothiEndgames,
    table: BoundTable,
    kept: Option<KeptBounds>,
    bar: ProgressBar,
}

impl ProofJob {
    /// Refuses an opening turn, opens the endgame tables found in `db`
    /// and a bound table, then reads the kept bounds (a spinner from
    /// `progress` says so).
    pub fn prepare(
        pos: &KiothiPosition,
        request: ProofRequest,
        db: &Path,
        progress: Progress,
    ) -> Result<ProofJob, ProofError> {
        if pos.is_opening() {
            return Err(ProofError::Opening {
                moves: pos.move_count(),
            });
        }
        let tables = KiothiEndgames::load(db, request.endgame_stones.unwrap_or(MAX_STONES))?;
        let table = BoundTable::new(request.hash_mb);
        let bar = progress.spinner("proving");
        bar.set_message("reading the kept bounds");
        let kept = request
            .keep
            .as_deref()
            .map(|path| KeptBounds::open(path, &table))
            .transpose()?;
        Ok(ProofJob {
            pos: *pos,
            request,
            tables,
            table,
            kept,
            bar,
        })
    }

    /// Proves the position until exact, a limit or `stop` (Ctrl-C), writes
    /// the kept bounds back, checks the bounds when asked: the report.
    pub fn run(self, stop: &AtomicBool) -> Result<ProveReport, ProofError> {
        let ProofJob {
            pos,
            request,
            tables,
            table,
            kept,
            bar,
        } = self;
        let limits = ProveLimits {
            nodes: request.nodes,
            seconds: request.seconds,
            ..ProveLimits::default()
        };
        let threads = request.threads.max(1);
        let mut bounds: Vec<ProveProgress> = Vec::new();
        let proof = prove_with_tables(&pos, &limits, threads, &table, &tables, stop, &mut |p| {
            bar.set_message(progress_line(p));
            record_narrowing(&mut bounds, p);
        });
        let kept = match kept {
            None => None,
            Some(k) => {
                bar.set_message("writing the kept bounds");
                let written = k.save(&table).map_err(|source| ProofError::KeptNotSaved {
                    source,
                    lower: proof.lower,
                    upper: proof.upper,
                })?;
                Some(KeptReport {
                    file: k.path().display().to_string(),
                    read: k.read,
                    written,
                })
            }
        };
        let verified = match request.verify {
            true => verify(
                &pos,
                (proof.lower, proof.upper),
                threads,
                &table,
                &tables,
                stop,
                &bar,
            )?,
            false => None,
        };
        bar.finish_and_clear();
        let me = pos.side_to_move().index();
        let prisons = pos.captured();
        Ok(ProveReport {
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
        })
    }
}

/// Checks the proved bounds by a certificate (`certificate.rs`) on
/// `threads` threads, `None` when `stop` ended the check. Its memo may use
/// the memory available when it starts.
fn verify(
    pos: &KiothiPosition,
    (lower, upper): (i32, i32),
    threads: usize,
    table: &BoundTable,
    tables: &KiothiEndgames,
    stop: &AtomicBool,
    bar: &ProgressBar,
) -> Result<Option<CertificateReport>, ProofError> {
    bar.set_message("verifying the proved bounds");
    let progress = |n: u64| bar.set_message(format!("verifying: {n} positions checked"));
    let available = crate::infra::limits::mem_available_mib();
    let limits = CheckLimits {
        threads,
        max_positions: available.map(CheckLimits::positions_in),
    };
    // A panic on any of the check's threads comes back here (rayon passes
    // it on): an error, not a crash.
    let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        check_bounds(pos, (lower, upper), table, tables, &limits, stop, &progress)
    }))
    .map_err(|_| ProofError::CheckPanicked)?;
    match checked {
        Ok(report) => Ok(Some(report)),
        Err(CertificateError::Stopped) => Ok(None),
        Err(CertificateError::TooLarge { positions }) => Err(ProofError::CheckTooLarge {
            available_mib: available.unwrap_or(0),
            positions,
            lower,
            upper,
        }),
        Err(e) => Err(ProofError::Check(e)),
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

/// The spinner's line while proving.
fn progress_line(p: &ProveProgress) -> String {
    format!(
        "depth {}  value in [{:+}, {:+}]  nodes {}  {:.1} s",
        p.depth, p.lower, p.upper, p.nodes, p.seconds
    )
}

/// A failed proof as the error contract has it: the field is the flag or
/// argument at fault.
impl ProofError {
    pub fn refusal(self) -> CliError {
        let e = self;
        match e {
            ProofError::Opening { .. } => CliError::new(
                ErrorKind::Unsupported,
                Some("position"),
                format!("{e} (use `sow eval` or `sow openings kiothi` for estimates)"),
            ),
            ProofError::Tables(e) => e.into(),
            ProofError::Kept(e) => kept_refusal(&e, String::new()),
            ProofError::KeptNotSaved {
                source,
                lower,
                upper,
            } => kept_refusal(
                &source,
                format!(" (the proof had reached [{lower:+}, {upper:+}] for the mover)"),
            ),
            ProofError::CheckPanicked | ProofError::Check(_) => {
                CliError::new(ErrorKind::Internal, Some("verify"), e.to_string())
            }
            ProofError::CheckTooLarge { .. } => CliError::usage("verify", e.to_string()),
        }
    }
}

/// A refusal of `--keep`'s file, `note` after its message.
fn kept_refusal(e: &KeptBoundsError, note: String) -> CliError {
    let (kind, message) = match e {
        KeptBoundsError::NoRoom { path, most, free } => (
            ErrorKind::Unsupported,
            format!(
                "{} can take up to {} MiB (every entry of the --hash table), {} MiB free there",
                path.display(),
                most >> 20,
                free >> 20
            ),
        ),
        KeptBoundsError::Malformed { .. } => (ErrorKind::Malformed, e.to_string()),
        KeptBoundsError::NotWritable(_)
        | KeptBoundsError::Read { .. }
        | KeptBoundsError::Write(_) => (ErrorKind::Io, e.to_string()),
    };
    CliError::new(kind, Some("keep"), format!("{message}{note}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> ProofRequest {
        ProofRequest {
            seconds: None,
            nodes: None,
            hash_mb: 1,
            threads: 1,
            endgame_stones: None,
            keep: None,
            verify: true,
        }
    }

    /// A directory with no endgame tables in it.
    fn no_tables() -> PathBuf {
        std::env::temp_dir().join(format!("sow-pipeline-no-tables-{}", std::process::id()))
    }

    #[test]
    fn a_late_position_is_proved_verified_and_reported() {
        // Six plies before the end of an engine game.
        let pos: KiothiPosition = "kiothi 0,0,0,0,0,0,0,1,1,1,0,0,0,0,0,0,0,1,1,1 S play 29 25"
            .parse()
            .unwrap();
        let job = ProofJob::prepare(&pos, request(), &no_tables(), Progress::Hidden).unwrap();
        let r = job.run(&AtomicBool::new(false)).unwrap();
        assert!(r.exact && !r.interrupted, "{r:?}");
        assert_eq!(r.value, Some(r.lower));
        assert_eq!(r.final_margin, r.value.map(|v| 29 - 25 + v));
        assert_eq!(r.pv.first(), r.best.as_ref());
        assert_eq!((r.endgame_stones, &r.kept), (None, &None));
        let checked = r.verified.expect("a certificate");
        assert_eq!((checked.lower, checked.upper), (r.lower, r.upper));
        // The last narrowing is the exact value.
        let last = r.bounds.last().unwrap();
        assert_eq!((last.lower, last.upper), (r.lower, r.upper));
    }

    #[test]
    fn an_opening_turn_is_refused_with_its_move_count() {
        let pos: KiothiPosition = "kiothi".parse().unwrap();
        match ProofJob::prepare(&pos, request(), &no_tables(), Progress::Hidden) {
            Err(ProofError::Opening { moves }) => assert_eq!(moves, pos.move_count()),
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("an opening was accepted"),
        }
    }
}
