//! `sow tune kiothi`: self-play games, their positions' features and
//! realized margins written as CSV (`--data`), a ridge least-squares fit of
//! the evaluation weights, written as `weights.json` (`--out`), which the
//! engine compiles in from `data/kiothi/weights.json`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::{args, parse_any, AnyPosition, CliError, Out};
use crate::analysis::tune::{
    self, fit, from_csv, named_weights, to_csv, Comparison, Errors, Fit, FitError, Sample,
    SelfPlay, TuneOutput, TuneProvenance, FEATURE_NAMES,
};
use crate::games::kiothi::KiothiPosition;
use crate::infra::files::write_atomic;
use crate::infra::progress::Progress;

/// `sow tune`: its command line.
#[derive(clap::Args, Debug)]
pub struct TuneArgs {
    /// `kiothi` or `kiothi:five` (the start of the self-play games).
    pub game: String,
    /// Self-play games, each from its own random opening.
    #[arg(long, default_value_t = 2000, value_parser = args::games)]
    pub games: usize,
    /// Fixed search depth of the self-play engine.
    #[arg(long, default_value_t = 4, value_parser = args::depth)]
    pub depth: u32,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Random plies before the engines take over (0 to 100).
    #[arg(long, default_value_t = 4, value_parser = args::opening_plies)]
    pub opening_plies: u32,
    /// Ridge penalty on every weight but the bias. A fit it spoils (a
    /// singular system, or a ridge so large it swamps the data) is refused
    /// after the self-play, whose data are still written to --data, for a
    /// refit with --fit-only.
    #[arg(long, default_value_t = 1.0)]
    pub ridge: f64,
    /// Self-play data (CSV), written, or read with --fit-only.
    #[arg(long, value_name = "FILE", default_value = "data/kiothi/selfplay.csv")]
    pub data: PathBuf,
    /// Fitted weights (JSON); the engine compiles in data/kiothi/weights.json.
    #[arg(long, value_name = "FILE", default_value = "data/kiothi/weights.json")]
    pub out: PathBuf,
    /// Fit the --data file without playing games.
    #[arg(long)]
    pub fit_only: bool,
    /// Self-play with the hand-set evaluation instead of the compiled weights.
    #[arg(long)]
    pub hand_eval: bool,
}

impl TuneArgs {
    pub fn run(&self, out: &mut Out) -> Result<(), CliError> {
        match parse_any(&self.game)? {
            AnyPosition::Kiothi(p) => run(&p, self, out),
            AnyPosition::Kpe(_) => Err(CliError::usage("game", "sow tune supports Kiothi only")),
        }
    }
}

fn check(args: &TuneArgs) -> Result<(), CliError> {
    if !(args.ridge.is_finite() && args.ridge >= 0.0) {
        return Err(CliError::usage(
            "ridge",
            format!("--ridge must be a number >= 0, found {}", args.ridge),
        ));
    }
    if same_file(&args.data, &args.out) {
        return Err(CliError::usage(
            "out",
            format!(
                "--out {} is the --data file: the weights would replace the self-play data",
                args.out.display()
            ),
        ));
    }
    super::paths::check_out_file("out", &args.out)?;
    if !args.fit_only {
        super::paths::check_out_file("data", &args.data)?;
    }
    Ok(())
}

/// Whether `a` and `b` name the same file: the same path, or the same
/// name in the same directory reached another way (`./x`, a symbolic
/// link); either may not exist yet.
fn same_file(a: &Path, b: &Path) -> bool {
    let resolve = |p: &Path| {
        if let Ok(full) = p.canonicalize() {
            return Some(full);
        }
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        Some(dir.canonicalize().ok()?.join(p.file_name()?))
    };
    a == b || matches!((resolve(a), resolve(b)), (Some(x), Some(y)) if x == y)
}

pub fn run(start: &KiothiPosition, args: &TuneArgs, out: &mut Out) -> Result<(), CliError> {
    check(args)?;
    let clock = Instant::now();
    let (samples, provenance) = if args.fit_only {
        read_samples(args)?
    } else {
        self_play_samples(start, args, out, clock)?
    };
    let fitted = fit(&samples, args.ridge);
    if !args.fit_only {
        // Self-play data too few to fit are not worth a file; those of a
        // fit the ridge spoiled are kept for `--fit-only` with another.
        if let Err(e @ FitError::TooFewRows(_)) = &fitted {
            return Err(CliError::usage(
                "games",
                format!("{e}: play more --games (or fewer --opening-plies)"),
            ));
        }
        write_atomic(&args.data, to_csv(&samples).as_bytes())?;
    }
    let fitted = fitted.map_err(|e| CliError::usage(e.field(), e.to_string()))?;
    write_atomic(
        &args.out,
        tune::weights_json(&fitted, &provenance).as_bytes(),
    )?;
    if out.json {
        return out.model_sorted(&TuneOutput {
            positions: samples.len(),
            weights: named_weights(fitted.real),
            weights_fixed: fitted.fixed,
            train: fitted.train,
            validation: fitted.validation,
            data: args.data.display().to_string(),
            out: args.out.display().to_string(),
            provenance,
            seconds: clock.elapsed().as_secs_f64(),
        });
    }
    print_fit(&fitted, samples.len(), args, out)
}

/// The readable summary of a fit: the weights, and each evaluation's
/// error against the realized margins.
fn print_fit(
    fitted: &Fit,
    positions: usize,
    args: &TuneArgs,
    out: &mut Out,
) -> Result<(), CliError> {
    out.line(format!(
        "{} positions ({} train, {} validation) in {}",
        positions,
        fitted.train.positions,
        fitted.validation.positions,
        args.data.display()
    ))?;
    out.line("weights (warriors per unit):")?;
    for (name, w) in FEATURE_NAMES.iter().zip(fitted.real) {
        out.line(format!("  {name:<15} {w:+.4}"))?;
    }
    out.line("error vs realized margin   train rmse/mae    validation rmse/mae")?;
    // An empty set (the validation set of fewer than five games) has no
    // error: `n/a`, not the 0.000 of a perfect fit.
    let cell = |e: Option<Errors>| match e {
        Some(e) => format!("{:>7.3} {:>7.3}", e.rmse, e.mae),
        None => format!("{:>7} {:>7}", "n/a", "n/a"),
    };
    let row = |name: &str, pick: fn(&Comparison) -> Option<Errors>| {
        let (t, v) = (pick(&fitted.train), pick(&fitted.validation));
        format!("  {name:<22} {}      {}", cell(t), cell(v))
    };
    out.line(row("tuned", |c| c.tuned))?;
    out.line(row("current (compiled)", |c| c.current))?;
    out.line(row("hand-set", |c| c.hand))?;
    out.line(row("zero", |c| c.zero))?;
    out.line(format!("weights written to {}", args.out.display()))?;
    Ok(())
}

/// `--fit-only`: the samples of an earlier self-play, from `--data`.
fn read_samples(args: &TuneArgs) -> Result<(Vec<Sample>, TuneProvenance), CliError> {
    let name = format!("--data {}", args.data.display());
    let text = super::paths::read_input(Some(&args.data), "data", &name)?;
    let samples = from_csv(&text)?;
    let provenance = TuneProvenance {
        data: args.data.display().to_string(),
        fit_only: Some(true),
        depth: None,
        engine_eval: None,
        engine_weights: None,
        games: None,
        opening_plies: None,
        seed: None,
        selfplay_seconds: None,
        start: None,
    };
    Ok((samples, provenance))
}

/// Self-play from `start` (progress on a terminal); `run` writes its
/// samples to `--data` once it knows they can be fitted.
fn self_play_samples(
    start: &KiothiPosition,
    args: &TuneArgs,
    out: &mut Out,
    clock: Instant,
) -> Result<(Vec<Sample>, TuneProvenance), CliError> {
    out.info(format!(
        "self-play: {} games at depth {} from {start} (seed {})",
        args.games, args.depth, args.seed
    ))?;
    let cfg = SelfPlay {
        games: args.games,
        depth: args.depth,
        seed: args.seed,
        opening_plies: args.opening_plies,
        hand_eval: args.hand_eval,
    };
    let bar = Progress::auto(out.quiet || out.json).count(args.games as u64, "self-play", "games");
    let samples = tune::self_play(start, &cfg, &bar);
    bar.finish_and_clear();
    let provenance = TuneProvenance {
        data: args.data.display().to_string(),
        start: Some(start.to_string()),
        games: Some(args.games),
        depth: Some(args.depth),
        seed: Some(args.seed),
        opening_plies: Some(args.opening_plies),
        engine_eval: Some(if args.hand_eval { "hand" } else { "compiled" }.into()),
        engine_weights: Some(tune::WEIGHTS),
        selfplay_seconds: Some(clock.elapsed().as_secs_f64()),
        fit_only: None,
    };
    Ok((samples, provenance))
}
