//! `sow solve kpe[:WxK]`: builds (or completes) a variant's database and
//! reports the value of the start and of each first move.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::game_arg::parse_kpe_game;
use super::over_ranks::RanksFigures;
use super::{CliError, Out};
use crate::analysis::kpe_db::{self, peak_rss_mib};
use crate::games::kpe::KpeVariant;
use crate::infra::progress::Progress;
use crate::kpe_db::endgame::LayerSteps;
use crate::kpe_db::estimate::{Estimate, OutOfCore};
use crate::kpe_db::solution::{BuildOptions, RegionResumed, Solution, SolveStats};
use crate::retrograde::transport::Transport;

/// `sow solve`: its command line.
#[derive(clap::Args, Debug)]
pub struct SolveArgs {
    /// `kpe`, `kpe:WxK`, `kiothi` (its endgame tables), or a Kiothi
    /// play-phase position (quoted notation) whose exact value is proved.
    pub game: String,
    #[command(flatten)]
    pub db: super::paths::DbDir,
    /// Kiothi: stop after this many seconds with the proved bounds (default: no limit).
    #[arg(long, value_name = "SECONDS", value_parser = super::args::seconds)]
    pub time: Option<f64>,
    /// Kiothi: stop after this many nodes with the proved bounds.
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Kiothi: table of proved bounds, in MiB.
    // 128 MiB: larger tables cost more than they save in a 60 s proof
    // (first-touch page faults: 512 MiB took 8 s more than 128 MiB on the
    // same proof at the same node count; results/kiothi/exact.compare.md).
    #[arg(long, value_name = "MB", default_value_t = 128, value_parser = super::args::hash_mb)]
    pub hash: usize,
    /// Kiothi: the endgame tables cover boards of at most this many
    /// warriors: `sow solve kiothi` builds them (default 10), a proof uses
    /// those in --db (default: all there are).
    #[arg(long, value_name = "N", value_parser = super::args::endgame_stones)]
    pub stones: Option<usize>,
    /// Kiothi position: keep the proved bounds in FILE from one run to the
    /// next: read before the proof when FILE exists, written back after it
    /// (also when Ctrl-C or a limit stopped it), so that a stopped proof
    /// goes on where it was.
    #[arg(long, value_name = "FILE")]
    pub keep: Option<PathBuf>,
    /// Kiothi position: check the proved bounds afterwards by a second,
    /// independent method: a certificate walked move by move down to the
    /// end of the game or the endgame tables (`prove::certificate`).
    #[arg(long)]
    pub verify: bool,
    /// Kpé: build only the endgame database (every layer of positions in
    /// which both players are unlocked), not the opening region: for a
    /// variant whose whole solve does not fit; a later full solve reuses it.
    #[arg(long)]
    pub endgame_only: bool,
    /// Kpé: where the opening region's keys and values go while it is
    /// built: in memory, or out of core in scratch files mapped from the
    /// database directory (slower, bounded by disk rather than memory);
    /// `auto` (the default) goes out of core only when the estimate says
    /// memory does not suffice.
    #[arg(long, value_enum, value_name = "WHEN")]
    pub out_of_core: Option<OutOfCore>,
}

impl SolveArgs {
    pub fn run(&self, out: &mut Out) -> Result<(), CliError> {
        #[cfg(feature = "mpi")]
        if let Some(mpi) = crate::retrograde::mpi::Mpi::init() {
            let db = kpe_db::db_dir(self.db.given());
            return super::over_ranks::run(&mpi, &db, out, |out| self.run_on(Some(&mpi), out));
        }
        self.run_on(None, out)
    }

    /// [`Self::run`], by the ranks of `ranks` together when given (an MPI
    /// run, `over_ranks.rs`).
    pub(super) fn run_on(
        &self,
        ranks: Option<&dyn Transport>,
        out: &mut Out,
    ) -> Result<(), CliError> {
        let db = kpe_db::db_dir(self.db.given());
        if self.endgame_only && self.game.trim_start().starts_with("kiothi") {
            return Err(CliError::usage(
                "endgame-only",
                "--endgame-only is for Kpé (its unlocked layers); Kiothi's endgame tables are `sow solve kiothi --stones N`",
            ));
        }
        if self.out_of_core.is_some() && self.game.trim_start().starts_with("kiothi") {
            return Err(CliError::usage(
                "out-of-core",
                "--out-of-core is for Kpé (where its opening region is built)",
            ));
        }
        if self.game.trim() == "kiothi" {
            refuse_given(
                &[("keep", self.keep.is_some()), ("verify", self.verify)],
                |flag| {
                    format!("--{flag} is for the proof of a Kiothi position; `sow solve kiothi` builds endgame tables")
                },
            )?;
            let stones = self.stones.unwrap_or(super::kiothi_tables::DEFAULT_STONES);
            return match ranks {
                Some(t) => super::kiothi_tables::run_on(Some(t), stones, &db, out),
                None => super::kiothi_tables::run(stones, &db, out),
            };
        }
        if self.game.trim_start().starts_with("kiothi") {
            if ranks.is_some() {
                return Err(CliError::usage(
                    "game",
                    "under mpirun, `sow solve` builds a Kpé database or the Kiothi endgame tables; a Kiothi position is proved by one process",
                ));
            }
            let args = super::prove::ProveArgs {
                seconds: self.time,
                nodes: self.nodes,
                hash_mb: self.hash,
                threads: rayon::current_num_threads(),
                endgame_stones: self.stones,
                keep: self.keep.clone(),
                verify: self.verify,
            };
            let pos = crate::games::kiothi::parse_position(&self.game).map_err(CliError::from)?;
            return super::prove::run(&pos, args, &db, out);
        }
        let kiothi_only = [
            ("time", self.time.is_some()),
            ("nodes", self.nodes.is_some()),
            ("stones", self.stones.is_some()),
            ("keep", self.keep.is_some()),
            ("verify", self.verify),
        ];
        refuse_given(&kiothi_only, |flag| {
            format!("--{flag} is for Kiothi (a proof or the endgame tables); a Kpé solve always runs to the end")
        })?;
        let variant = parse_kpe_game(&self.game)?;
        let out_of_core = self.out_of_core.unwrap_or_default();
        match (ranks, self.endgame_only) {
            (Some(t), _) => run_over_ranks(t, variant, &db, self.endgame_only, out_of_core, out),
            (None, true) => run_endgame(variant, self.db.given(), out),
            (None, false) => run(variant, self.db.given(), out_of_core, out),
        }
    }
}

/// Refuses the first flag of `flags` that was given (`(name, given)`), with
/// `why(name)` as the message: flags that do not apply to this solve.
fn refuse_given(flags: &[(&str, bool)], why: impl Fn(&str) -> String) -> Result<(), CliError> {
    match flags.iter().find(|(_, given)| *given) {
        Some(&(flag, _)) => Err(CliError::usage(flag, why(flag))),
        None => Ok(()),
    }
}

/// `sow solve kpe:WxK --endgame-only`: the endgame layers alone.
fn run_endgame(variant: KpeVariant, db: Option<&Path>, out: &mut Out) -> Result<(), CliError> {
    let dir = kpe_db::db_dir(db);
    let stats = Solution::build_endgame(variant, &dir, Progress::auto(out.quiet || out.json))?;
    report_endgame(variant, &stats, &dir, None, out)
}

/// What `sow solve kpe:WxK --endgame-only` prints once the layers are
/// built; `ranks` when the ranks of an MPI run built them together.
pub(super) fn report_endgame(
    variant: KpeVariant,
    stats: &SolveStats,
    dir: &Path,
    ranks: Option<&RanksFigures>,
    out: &mut Out,
) -> Result<(), CliError> {
    /// `sow solve --endgame-only --json`: what was built, and the run's figures.
    #[derive(serde::Serialize)]
    struct EndgameOutput<'a> {
        variant: String,
        unlocked_positions: u64,
        #[serde(flatten)]
        build: BuildFigures<'a>,
        /// Under `mpirun` only: what the ranks did.
        #[serde(skip_serializing_if = "Option::is_none")]
        ranks: Option<&'a RanksFigures>,
    }
    if out.json {
        return out.model_sorted(&EndgameOutput {
            variant: variant.tag(),
            unlocked_positions: stats.unlocked_positions,
            build: BuildFigures::of(stats, dir, stats.seconds),
            ranks,
        });
    }
    out.line(format!(
        "{} endgame database built in {} (no opening region: `sow solve {}` adds it)",
        variant.tag(),
        dir.display(),
        variant.tag()
    ))?;
    out.line(format!("positions: {} unlocked", stats.unlocked_positions))?;
    out.line(layers_line(stats))?;
    if let Some(e) = &stats.estimate {
        out.line(format!("estimate before building: {}", e.summary()))?;
    }
    out.line(format!(
        "time {:.1} s{}, peak memory {} MiB",
        stats.seconds,
        layer_steps_note(stats, " (", ")"),
        peak_rss_mib().map_or("?".to_string(), |p| format!("{p:.0}"))
    ))?;
    match ranks {
        Some(r) => out.line(r.line()),
        None => Ok(()),
    }
}

/// What `solve --json` tells of a build, with or without the region.
#[derive(serde::Serialize)]
struct BuildFigures<'a> {
    db: String,
    estimate: &'a Option<crate::kpe_db::estimate::Estimate>,
    layers_computed: &'a [usize],
    layers_reused: &'a [usize],
    /// Reused layers taken from another K of the same W: (stones, variant).
    layers_shared: Vec<(usize, String)>,
    /// Whether the region was built out of core (`--out-of-core`).
    out_of_core: bool,
    /// What the region took from an interrupted build's checkpoints.
    region_resumed: Option<RegionResumed>,
    /// The computed layers' seconds by step (all zero when none was).
    layer_steps: LayerSteps,
    peak_rss_mib: Option<f64>,
    seconds: f64,
}

impl<'a> BuildFigures<'a> {
    fn of(stats: &'a SolveStats, dir: &Path, seconds: f64) -> Self {
        BuildFigures {
            db: dir.display().to_string(),
            estimate: &stats.estimate,
            layers_computed: &stats.layers_computed,
            layers_reused: &stats.layers_reused,
            layers_shared: stats
                .layers_shared
                .iter()
                .map(|(n, v)| (*n, v.tag()))
                .collect(),
            out_of_core: stats.out_of_core,
            region_resumed: stats.region_resumed,
            layer_steps: stats.layer_steps,
            peak_rss_mib: peak_rss_mib(),
            seconds,
        }
    }
}

/// "layers computed N, reused M" and where shared ones came from.
fn layers_line(stats: &SolveStats) -> String {
    format!(
        "layers computed {}, reused {}{}",
        stats.layers_computed.len(),
        stats.layers_reused.len(),
        shared_note(&stats.layers_shared)
    )
}

pub fn run(
    variant: KpeVariant,
    db: Option<&Path>,
    out_of_core: OutOfCore,
    out: &mut Out,
) -> Result<(), CliError> {
    let dir = kpe_db::db_dir(db);
    let t0 = Instant::now();
    let options = BuildOptions {
        out_of_core,
        ..Default::default()
    };
    let progress = Progress::auto(out.quiet || out.json);
    let (solution, stats) = Solution::build_with(variant, &dir, progress, options)?;
    report(&solution, variant, &stats, &dir, t0, None, out)
}

/// `sow solve kpe:WxK [--endgame-only]` as one of the ranks of an MPI run
/// (`over_ranks.rs`): the layers over every rank, the opening region and
/// the report on rank 0.
fn run_over_ranks(
    transport: &dyn Transport,
    variant: KpeVariant,
    db: &Path,
    endgame_only: bool,
    out_of_core: OutOfCore,
    out: &mut Out,
) -> Result<(), CliError> {
    let t0 = Instant::now();
    let progress = Progress::auto(out.quiet || out.json || transport.rank() != 0);
    if endgame_only {
        let built =
            Solution::build_endgame_over_ranks(variant, db, progress, transport, peak_rss_mib)?;
        return match built {
            Some((stats, report)) => {
                let figures = RanksFigures::of_layers(&report);
                report_endgame(variant, &stats, db, Some(&figures), out)
            }
            None => Ok(()),
        };
    }
    let options = BuildOptions {
        out_of_core,
        ..Default::default()
    };
    let built =
        Solution::build_over_ranks(variant, db, progress, options, transport, peak_rss_mib)?;
    match built {
        Some((solution, stats, report)) => {
            let figures = RanksFigures::of_layers(&report);
            self::report(&solution, variant, &stats, db, t0, Some(&figures), out)
        }
        None => Ok(()),
    }
}

/// What `sow solve kpe:WxK` prints once the database is built; `ranks`
/// when the ranks of an MPI run built its layers together.
pub(super) fn report(
    solution: &Solution,
    variant: KpeVariant,
    stats: &SolveStats,
    dir: &Path,
    t0: Instant,
    ranks: Option<&RanksFigures>,
    out: &mut Out,
) -> Result<(), CliError> {
    let start = kpe_db::start_json(solution, variant)?;
    let seconds = t0.elapsed().as_secs_f64();
    if out.json {
        return out.model_sorted(&SolveOutput {
            start: &start,
            build: BuildFigures::of(stats, dir, seconds),
            phase_seconds: PhaseSeconds {
                layers: stats.layers_seconds,
                opening_explore: stats.explore_seconds,
                opening_solve: stats.region_seconds,
            },
            ranks,
        });
    }
    out.line(format!(
        "{} solved, database in {}",
        variant.tag(),
        dir.display()
    ))?;
    print_start(&start, out)?;
    if let Some(e) = &stats.estimate {
        out.line(estimate_line(e, stats.out_of_core))?;
    }
    print_build(&start, stats, seconds, out)?;
    match ranks {
        Some(r) => out.line(r.line()),
        None => Ok(()),
    }
}

/// `sow solve --json`: the start summary and the run's figures.
#[derive(serde::Serialize)]
struct SolveOutput<'a> {
    #[serde(flatten)]
    start: &'a kpe_db::StartSummary,
    #[serde(flatten)]
    build: BuildFigures<'a>,
    phase_seconds: PhaseSeconds,
    /// Under `mpirun` only: what the ranks did.
    #[serde(skip_serializing_if = "Option::is_none")]
    ranks: Option<&'a RanksFigures>,
}

#[derive(serde::Serialize)]
struct PhaseSeconds {
    layers: f64,
    opening_explore: f64,
    opening_solve: f64,
}

/// The start's value, each first move's and the perfect line.
fn print_start(r: &kpe_db::StartSummary, out: &mut Out) -> Result<(), CliError> {
    out.line(format!(
        "start value {:+} for South ({}), perfect play",
        r.value, r.result
    ))?;
    for m in &r.moves {
        out.line(format!("  first move {}: {:+}", m.mv, m.value))?;
    }
    out.line(format!(
        "principal variation ({} moves, ends by {}): {}",
        r.pv.len(),
        r.pv_ends_by,
        r.pv.join(" ")
    ))
}

/// What the solve was estimated to need before it started, in MiB.
fn estimate_line(e: &Estimate, out_of_core: bool) -> String {
    let mib = |b: u64| b >> 20;
    let avail = |b: Option<u64>| b.map_or("?".to_string(), |b| format!("{}", mib(b)));
    let (memory, scratch) = match out_of_core {
        false => (e.memory, String::new()),
        true => (
            e.memory_out_of_core,
            format!(" and {} MiB of scratch", mib(e.scratch_disk)),
        ),
    };
    format!(
        "estimate before solving: memory {} MiB ({} available), disk {} MiB{scratch} ({} available)",
        mib(memory),
        avail(e.memory_available),
        mib(e.disk),
        avail(e.disk_available)
    )
}

/// The database's size, how it was built, and the time and memory taken.
fn print_build(
    r: &kpe_db::StartSummary,
    stats: &SolveStats,
    seconds: f64,
    out: &mut Out,
) -> Result<(), CliError> {
    out.line(format!(
        "positions: {} unlocked (endgame database), {} in the opening phase",
        r.positions.unlocked, r.positions.opening_phase
    ))?;
    out.line(layers_line(stats))?;
    if stats.out_of_core {
        out.line(
            "opening region built out of core (scratch files mapped from the database directory)",
        )?;
    }
    if let Some(r) = stats.region_resumed {
        out.line(format!(
            "opening region resumed from an interrupted build: {} of {} stone counts explored and {} of {} runs of groups solved were reused",
            r.stone_counts_reused, r.stone_counts, r.runs_reused, r.runs
        ))?;
    }
    out.line(format!(
        "time {:.1} s (endgame layers {:.1} s{}; opening phase: exploration {:.1} s, solution {:.1} s), peak memory {} MiB",
        seconds,
        stats.layers_seconds,
        layer_steps_note(stats, ": ", ""),
        stats.explore_seconds,
        stats.region_seconds,
        peak_rss_mib().map_or("?".to_string(), |p| format!("{p:.0}"))
    ))
}

/// `before` then "exits A s, thresholds B s, endings C s" then `after`
/// when the solve computed layers, else nothing.
fn layer_steps_note(stats: &SolveStats, before: &str, after: &str) -> String {
    let s = stats.layer_steps;
    if stats.layers_computed.is_empty() {
        return String::new();
    }
    format!(
        "{before}exits {:.1} s, thresholds {:.1} s, endings {:.1} s{after}",
        s.exits, s.thresholds, s.endings
    )
}

/// " (N of them from kpe:WxK)" for the layers a solve took from other
/// variants, else nothing.
fn shared_note(shared: &[(usize, KpeVariant)]) -> String {
    let mut from: Vec<String> = shared.iter().map(|(_, v)| v.tag()).collect();
    // Each variant once, even if the layers' sources alternate.
    from.sort_unstable();
    from.dedup();
    match shared.len() {
        0 => String::new(),
        count => format!(" ({count} of them from {})", from.join(", ")),
    }
}
