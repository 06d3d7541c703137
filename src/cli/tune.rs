//! `sow tune kiothi`: self-play games, their positions' features and
//! realized margins written as CSV (`--data`), a ridge least-squares fit of
//! the evaluation weights, written as `weights.json` (`--out`), which the
//! engine compiles in from `data/kiothi/weights.json`.

use std::path::Path;
use std::time::Instant;

use serde_json::json;

use super::files::write_atomic;
use super::{CliError, Out};
use crate::games::kiothi::KiothiPosition;
use crate::progress::Progress;
use crate::search::tune::{
    self, fit, from_csv, to_csv, Comparison, Errors, SelfPlay, FEATURE_NAMES,
};

/// Tuning settings from the command line.
pub struct TuneArgs<'a> {
    pub games: usize,
    pub depth: u32,
    pub seed: u64,
    pub opening_plies: u32,
    pub ridge: f64,
    pub data: &'a Path,
    pub out: &'a Path,
    /// Fit the existing `data` file instead of playing games.
    pub fit_only: bool,
    /// Self-play with the hand-set evaluation instead of the compiled weights.
    pub hand_eval: bool,
}

fn check(args: &TuneArgs) -> Result<(), CliError> {
    if args.games == 0 && !args.fit_only {
        return Err(CliError::usage("games", "--games must be at least 1"));
    }
    if args.depth == 0 {
        return Err(CliError::usage("depth", "--depth must be at least 1"));
    }
    if !(args.ridge.is_finite() && args.ridge >= 0.0) {
        return Err(CliError::usage(
            "ridge",
            format!("--ridge must be a number >= 0, found {}", args.ridge),
        ));
    }
    Ok(())
}

pub fn run(start: &KiothiPosition, args: &TuneArgs, out: &mut Out) -> Result<(), CliError> {
    check(args)?;
    let clock = Instant::now();
    let (samples, provenance) = if args.fit_only {
        let text = std::fs::read_to_string(args.data).map_err(|e| {
            CliError::new("io", Some("data"), format!("{}: {e}", args.data.display()))
        })?;
        let samples = from_csv(&text)?;
        let provenance = json!({ "data": args.data.display().to_string(), "fit_only": true });
        (samples, provenance)
    } else {
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
        let bar =
            Progress::auto(out.quiet || out.json).count(args.games as u64, "self-play", "games");
        let samples = tune::self_play(start, &cfg, &bar);
        bar.finish_and_clear();
        write_atomic(args.data, to_csv(&samples).as_bytes())?;
        let provenance = json!({
            "data": args.data.display().to_string(),
            "start": start.to_string(),
            "games": args.games,
            "depth": args.depth,
            "seed": args.seed,
            "opening_plies": args.opening_plies,
            "engine_eval": if args.hand_eval { "hand" } else { "compiled" },
            "engine_weights": tune::WEIGHTS,
            "selfplay_seconds": clock.elapsed().as_secs_f64(),
        });
        (samples, provenance)
    };
    let fitted = fit(&samples, args.ridge)
        .map_err(|e| CliError::new("usage", Some("data"), e.to_string()))?;
    write_atomic(
        args.out,
        tune::weights_json(&fitted, provenance.clone()).as_bytes(),
    )?;
    if out.json {
        let weights: serde_json::Map<String, serde_json::Value> = FEATURE_NAMES
            .iter()
            .zip(fitted.real)
            .map(|(n, w)| (n.to_string(), json!(w)))
            .collect();
        return out.json(&json!({
            "positions": samples.len(),
            "weights": weights,
            "weights_fixed": fitted.fixed,
            "train": fitted.train,
            "validation": fitted.validation,
            "data": args.data.display().to_string(),
            "out": args.out.display().to_string(),
            "provenance": provenance,
            "seconds": clock.elapsed().as_secs_f64(),
        }));
    }
    out.line(format!(
        "{} positions ({} train, {} validation) in {}",
        samples.len(),
        fitted.train.positions,
        fitted.validation.positions,
        args.data.display()
    ))?;
    out.line("weights (warriors per unit):")?;
    for (name, w) in FEATURE_NAMES.iter().zip(fitted.real) {
        out.line(format!("  {name:<15} {w:+.4}"))?;
    }
    out.line("error vs realized margin   train rmse/mae    validation rmse/mae")?;
    let row = |name: &str, pick: fn(&Comparison) -> Errors| {
        let (t, v) = (pick(&fitted.train), pick(&fitted.validation));
        format!(
            "  {name:<22} {:>7.3} {:>7.3}      {:>7.3} {:>7.3}",
            t.rmse, t.mae, v.rmse, v.mae
        )
    };
    out.line(row("tuned", |c| c.tuned))?;
    out.line(row("current (compiled)", |c| c.current))?;
    out.line(row("hand-set", |c| c.hand))?;
    out.line(row("zero", |c| c.zero))?;
    out.line(format!("weights written to {}", args.out.display()))?;
    Ok(())
}
