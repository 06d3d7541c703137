//! Tuning the Kiothi horizon evaluation by self-play (`sow tune kiothi`):
//! games of the engine against itself from seeded random openings, the
//! feature vector and realized future margin (RULES §0) of every position
//! it moved from, and a ridge least-squares fit of the weights.

use std::collections::BTreeMap;
use std::path::Path;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::matches::random_opening;
use crate::error::InputError;
use crate::game::{Game, Side};
use crate::games::kiothi::{KiothiPosition, Phase};
use crate::infra::progress::{Progress, ProgressBar};
use crate::infra::rng::{splitmix64, Rng};
use crate::record::{play_out, GameRecord};
use crate::search::AgentSpec;
use crate::search::Searchable;

pub use crate::search::kiothi_eval::{
    features, Feature, FEATURES, FEATURE_NAMES, WEIGHTS, WEIGHT_SCALE,
};

/// One sampled position: where it occurred, its features, the hand-set
/// evaluation and the margin the game then realized for its mover.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Self-play game number (each game has its own random opening).
    pub game: usize,
    /// Plies played before the position, the opening included.
    pub ply: usize,
    pub mover: Side,
    pub features: [i32; FEATURES],
    pub hand: i32,
    /// RULES §0 from the position on, as the game went: the mover's later
    /// captures and sweep minus the opponent's (a game stopped by repetition
    /// or the ply cap shares the board evenly, so it can end in `.5`).
    pub target: f64,
}

/// Self-play settings.
#[derive(Clone, Debug, PartialEq)]
pub struct SelfPlay {
    /// Games, each from its own random opening.
    pub games: usize,
    /// Fixed search depth of the engine.
    pub depth: u32,
    pub seed: u64,
    /// Random plies before the engine takes over (both redistributions included).
    pub opening_plies: u32,
    /// Search with the hand-set evaluation instead of the compiled weights.
    pub hand_eval: bool,
}

/// Plies after which a self-play game stops, the board shared evenly.
pub const PLY_CAP: usize = 1000;

/// One self-play game: the positions the engine moved from, and the final
/// stones of South and North.
#[derive(Clone, Debug)]
pub struct PlayedGame {
    pub game: usize,
    /// Plies of random opening before `positions[0]`.
    pub opening_plies: usize,
    pub positions: Vec<KiothiPosition>,
    /// Captures plus sweep; half the board each when stopped by the third
    /// occurrence of a position or the ply cap (RULES §0).
    pub points: [f64; 2],
}

/// The engine of self-play (one spec for every self-play).
pub use super::matches::self_play_engine;

/// Plays the self-play games (in parallel) and samples every play-phase
/// position the engine moved from. The engine plays both sides: the
/// colour-swapped twin of a game would be the same game, so each opening
/// is played once. `bar` advances by one per game.
pub fn self_play(start: &KiothiPosition, cfg: &SelfPlay, bar: &ProgressBar) -> Vec<Sample> {
    let engine = self_play_engine(cfg.depth, cfg.hand_eval);
    let games: Vec<PlayedGame> = (0..cfg.games)
        .into_par_iter()
        .map(|g| {
            let game = play_game(start, &engine, cfg, g);
            bar.inc(1);
            game
        })
        .collect();
    games.iter().flat_map(samples_of_game).collect()
}

/// [`self_play`] with a progress bar of its games, and the provenance of
/// its samples (to be written to `data`), timed from `clock`.
pub fn self_play_with_provenance(
    start: &KiothiPosition,
    cfg: &SelfPlay,
    data: &Path,
    progress: Progress,
    clock: std::time::Instant,
) -> (Vec<Sample>, TuneProvenance) {
    let bar = progress.count(cfg.games as u64, "self-play", "games");
    let samples = self_play(start, cfg, &bar);
    bar.finish_and_clear();
    let seconds = clock.elapsed().as_secs_f64();
    (
        samples,
        TuneProvenance::self_play(cfg, start, data, seconds),
    )
}

/// Game `g`: random opening plies from a seed of (`cfg.seed`, `g`), then
/// the engine on both sides until the game ends, a position occurs for the
/// third time, or `PLY_CAP` plies.
pub fn play_game(
    start: &KiothiPosition,
    engine: &AgentSpec,
    cfg: &SelfPlay,
    g: usize,
) -> PlayedGame {
    let mut state = cfg.seed ^ (g as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut rng = Rng::new(splitmix64(&mut state));
    let opening = random_opening(start, cfg.opening_plies, &mut rng);
    let mut agent = engine.build::<KiothiPosition>(rng.next_u64());
    let mut record = GameRecord::new(opening.position);
    let (_, points) = play_out(&mut record, PLY_CAP, |pos| agent.choose(pos));
    // The positions the engine moved from: the start and every one after a
    // move but the last.
    let positions = std::iter::once(*record.start())
        .chain(record.positions().iter().copied())
        .take(record.moves().len())
        .collect();
    let opening_plies = opening.plies.len();
    PlayedGame {
        game: g,
        opening_plies,
        positions,
        points,
    }
}

/// The samples of a game: each play-phase position the engine moved from,
/// with the margin the game then realized for its mover.
pub fn samples_of_game(game: &PlayedGame) -> Vec<Sample> {
    game.positions
        .iter()
        .enumerate()
        .filter(|(_, p)| p.phase() == Phase::Play)
        .map(|(i, p)| {
            let me = p.side_to_move().index();
            let prisons = p.captured();
            let gained = |s: usize| game.points[s] - prisons[s] as f64;
            Sample {
                game: game.game,
                ply: game.opening_plies + i,
                mover: p.side_to_move(),
                features: features(p),
                hand: p.evaluate_hand(),
                target: gained(me) - gained(1 - me),
            }
        })
        .collect()
}

/// The CSV header: game, ply, mover, the features, hand, target.
pub fn csv_header() -> String {
    let mut cols = vec!["game", "ply", "mover"];
    cols.extend(FEATURE_NAMES);
    cols.extend(["hand", "target"]);
    cols.join(",")
}

/// The samples as CSV (header first, one sample a line), by the `csv` crate.
pub fn to_csv(samples: &[Sample]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let header = csv_header();
    // Writing to memory cannot fail.
    w.write_record(header.split(',')).expect("CSV to memory");
    for s in samples {
        let mut row = vec![
            s.game.to_string(),
            s.ply.to_string(),
            s.mover.letter().to_string(),
        ];
        row.extend(s.features.iter().map(i32::to_string));
        row.extend([s.hand.to_string(), s.target.to_string()]);
        w.write_record(&row).expect("CSV to memory");
    }
    String::from_utf8(w.into_inner().expect("CSV to memory")).expect("UTF-8 fields")
}

/// Parses `to_csv` output (by the `csv` crate); the header must match this
/// build's features.
pub fn from_csv(text: &str) -> Result<Vec<Sample>, InputError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut records = reader.records();
    let header = match records.next() {
        Some(Ok(h)) => h.iter().collect::<Vec<_>>().join(","),
        _ => String::new(),
    };
    if header != csv_header() {
        return Err(InputError::malformed(
            "data",
            format!("header must be `{}`, found `{header}`", csv_header()),
        ));
    }
    let mut samples = Vec::new();
    for record in records {
        let record = record.map_err(|e| InputError::malformed("data", e.to_string()))?;
        let line = record.position().map_or(0, |p| p.line());
        if record.iter().all(str::is_empty) {
            continue;
        }
        let cells: Vec<&str> = record.iter().collect();
        samples.push(
            parse_row(&cells)
                .map_err(|m| InputError::malformed("data", format!("line {line}: {m}")))?,
        );
    }
    Ok(samples)
}

/// The largest feature, `hand` or `target` a data row may hold (a
/// position has at most 60 warriors and 20 pits): beyond, the fit's sums
/// and the fixed-point evaluation would overflow.
pub const MAX_FEATURE: i32 = 10_000;

fn parse_row(cells: &[&str]) -> Result<Sample, String> {
    if cells.len() != FEATURES + 5 {
        return Err(format!(
            "expected {} fields, found {}",
            FEATURES + 5,
            cells.len()
        ));
    }
    let int = |i: usize| -> Result<i64, String> {
        cells[i]
            .parse()
            .map_err(|_| format!("`{}` is not an integer", cells[i]))
    };
    // A feature or `hand` is a few warriors or pits: one beyond i32 was
    // cut to its low bits, one near it overflowed `evaluate_with`.
    let small = |i: usize| -> Result<i32, String> {
        i32::try_from(int(i)?)
            .ok()
            .filter(|v| v.abs() <= MAX_FEATURE)
            .ok_or_else(|| {
                format!(
                    "`{}` is out of range (-{MAX_FEATURE} to {MAX_FEATURE})",
                    cells[i]
                )
            })
    };
    let mut features = [0; FEATURES];
    for (k, f) in features.iter_mut().enumerate() {
        *f = small(3 + k)?;
    }
    let target: f64 = cells[FEATURES + 4]
        .parse()
        .ok()
        .filter(|t: &f64| t.abs() <= MAX_FEATURE as f64)
        .ok_or_else(|| {
            format!(
                "`{}` is not a number from -{MAX_FEATURE} to {MAX_FEATURE}",
                cells[FEATURES + 4]
            )
        })?;
    Ok(Sample {
        game: int(0)?
            .try_into()
            .map_err(|_| "negative game".to_string())?,
        ply: int(1)?.try_into().map_err(|_| "negative ply".to_string())?,
        mover: Side::from_letter(cells[2])
            .ok_or_else(|| format!("mover `{}` is not S or N", cells[2]))?,
        features,
        hand: small(FEATURES + 3)?,
        target,
    })
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting; `None`
/// when `a` is singular (or not square, or sized unlike `b`).
pub fn solve_linear(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    if a.len() != n || a.iter().any(|row| row.len() != n) {
        return None;
    }
    let scale = a
        .iter()
        .flatten()
        .fold(0.0f64, |m, v| m.max(v.abs()))
        .max(f64::MIN_POSITIVE);
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() <= 1e-12 * scale {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..n {
            let factor = a[row][col] / a[col][col];
            if factor != 0.0 {
                let (pivot_rows, rest) = a.split_at_mut(row);
                for (x, p) in rest[0][col..].iter_mut().zip(&pivot_rows[col][col..]) {
                    *x -= factor * p;
                }
                b[row] -= factor * b[col];
            }
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let tail: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - tail) / a[row][row];
    }
    Some(x)
}

/// Ridge regression by the normal equations: the `w` minimizing
/// `Σ (y - w·x)² + Σ penalty[j] w[j]²`. `None` when the system is singular
/// or the rows are not all `penalty.len()` wide.
pub fn ridge_regression(x: &[Vec<f64>], y: &[f64], penalty: &[f64]) -> Option<Vec<f64>> {
    let n = penalty.len();
    if x.len() != y.len() || x.iter().any(|r| r.len() != n) {
        return None;
    }
    let mut a = vec![vec![0.0; n]; n];
    let mut b = vec![0.0; n];
    for (row, &t) in x.iter().zip(y) {
        for i in 0..n {
            b[i] += row[i] * t;
            for j in 0..n {
                a[i][j] += row[i] * row[j];
            }
        }
    }
    for (i, p) in penalty.iter().enumerate() {
        a[i][i] += p;
    }
    solve_linear(a, b)
}

/// Whether a sample belongs to the validation set: one game in five (all
/// positions of a game fall on the same side of the split).
pub fn is_validation(s: &Sample) -> bool {
    s.game % 5 == 4
}

/// Root-mean-square and mean absolute error of a predictor.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Errors {
    pub rmse: f64,
    pub mae: f64,
}

/// `None` for an empty set: it has no error, and 0 (what a mean over no
/// position came out as) would read as a perfect fit.
fn errors(samples: &[&Sample], predict: impl Fn(&Sample) -> f64) -> Option<Errors> {
    if samples.is_empty() {
        return None;
    }
    let n = samples.len() as f64;
    let (sq, abs) = samples.iter().fold((0.0, 0.0), |(sq, abs), s| {
        let e = predict(s) - s.target;
        (sq + e * e, abs + e.abs())
    });
    Some(Errors {
        rmse: (sq / n).sqrt(),
        mae: abs / n,
    })
}

/// The engine's integer evaluation from features and fixed-point weights.
pub fn evaluate_with(weights: &[i32; FEATURES], f: &[i32; FEATURES]) -> i32 {
    // In i64, saturated to i32: a fitted weight may be as large as i32
    // holds (the engine's own weights and features are small).
    let sum: i64 = weights
        .iter()
        .zip(f)
        .map(|(&w, &x)| i64::from(w) * i64::from(x))
        .sum();
    let v = (sum + i64::from(WEIGHT_SCALE / 2)) >> WEIGHT_SCALE.trailing_zeros();
    v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

/// Errors of the evaluations compared on one set of positions; each `None`
/// (JSON `null`, printed `n/a`) when the set is empty, as the validation
/// set is with fewer than five games (see [`is_validation`]).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Comparison {
    pub positions: usize,
    /// The fitted weights, rounded to the engine's fixed point.
    pub tuned: Option<Errors>,
    /// The weights compiled into this build.
    pub current: Option<Errors>,
    /// The hand-set evaluation.
    pub hand: Option<Errors>,
    /// Always 0 (the spread of the targets).
    pub zero: Option<Errors>,
}

/// A fit and how it compares.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    pub ridge: f64,
    /// Fitted weights in warriors per feature unit.
    pub real: [f64; FEATURES],
    /// The same in the fixed point of `weights.json` (`WEIGHT_SCALE` = 1).
    pub fixed: [i32; FEATURES],
    pub train: Comparison,
    pub validation: Comparison,
}

/// Why a fit failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FitError {
    #[error("{0} training positions are too few to fit {FEATURES} weights")]
    TooFewRows(usize),
    #[error("the normal equations are singular (a feature is constant or collinear); use a larger --ridge")]
    Singular,
    /// The ridge is larger than every entry of the data's normal equations,
    /// so that the solver's relative pivot threshold, scaled by the ridge,
    /// dwarfs the unpenalized bias pivot (a ridge of 1e15 on a few hundred
    /// positions): the data are lost in rounding, and a larger ridge, the
    /// advice for a singular system, would only make it worse.
    #[error("--ridge {ridge:e} swamps the data (the largest entry of its normal equations is {data:e}): the fit is lost in rounding; use a smaller --ridge")]
    RidgeTooLarge { ridge: f64, data: f64 },
}

impl FitError {
    /// The input to blame: the ridge when it swamps the data, else the data.
    pub fn field(&self) -> &'static str {
        match self {
            FitError::RidgeTooLarge { .. } => "ridge",
            FitError::TooFewRows(_) | FitError::Singular => "data",
        }
    }
}

/// Fits the weights on the training samples (ridge `ridge` on every weight
/// but the bias) and compares the evaluations on both sets.
pub fn fit(samples: &[Sample], ridge: f64) -> Result<Fit, FitError> {
    let (validation, train): (Vec<&Sample>, Vec<&Sample>) =
        samples.iter().partition(|s| is_validation(s));
    if train.len() < FEATURES {
        return Err(FitError::TooFewRows(train.len()));
    }
    let x: Vec<Vec<f64>> = train
        .iter()
        .map(|s| s.features.iter().map(|&f| f as f64).collect())
        .collect();
    let y: Vec<f64> = train.iter().map(|s| s.target).collect();
    let mut penalty = [ridge; FEATURES];
    penalty[Feature::Bias as usize] = 0.0;
    let w = ridge_regression(&x, &y, &penalty)
        .filter(|w| w.iter().all(|v| v.is_finite()))
        .ok_or_else(|| {
            // The largest entry of XᵀX is on its diagonal (Cauchy-Schwarz).
            let data = (0..FEATURES)
                .map(|j| x.iter().map(|r| r[j] * r[j]).sum::<f64>())
                .fold(0.0f64, f64::max);
            if ridge > data {
                FitError::RidgeTooLarge { ridge, data }
            } else {
                FitError::Singular
            }
        })?;
    let mut real = [0.0; FEATURES];
    real.copy_from_slice(&w);
    let fixed = real.map(|v| (v * WEIGHT_SCALE as f64).round() as i32);
    let compare = |set: &[&Sample]| Comparison {
        positions: set.len(),
        tuned: errors(set, |s| evaluate_with(&fixed, &s.features) as f64),
        current: errors(set, |s| evaluate_with(&WEIGHTS, &s.features) as f64),
        hand: errors(set, |s| s.hand as f64),
        zero: errors(set, |_| 0.0),
    };
    Ok(Fit {
        ridge,
        train: compare(&train),
        validation: compare(&validation),
        real,
        fixed,
    })
}

/// Weights by feature name.
pub fn named_weights(weights: [f64; FEATURES]) -> BTreeMap<String, f64> {
    FEATURE_NAMES
        .iter()
        .zip(weights)
        .map(|(n, w)| (n.to_string(), w))
        .collect()
}

/// How the weights were obtained: from a data file (`--fit-only`), or by
/// self-play (its settings).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneProvenance {
    pub data: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// `hand` or `compiled`: the evaluation of the self-play engine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_eval: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_weights: Option<[i32; FEATURES]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fit_only: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub games: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening_plies: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selfplay_seconds: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
}

impl TuneProvenance {
    /// Weights fitted to the data file `data` alone.
    pub fn fit_only(data: &Path) -> Self {
        TuneProvenance {
            data: data.display().to_string(),
            fit_only: Some(true),
            depth: None,
            engine_eval: None,
            engine_weights: None,
            games: None,
            opening_plies: None,
            seed: None,
            selfplay_seconds: None,
            start: None,
        }
    }

    /// Weights fitted to the self-play `cfg` from `start` (written to
    /// `data`), which took `seconds`.
    pub fn self_play(cfg: &SelfPlay, start: &KiothiPosition, data: &Path, seconds: f64) -> Self {
        TuneProvenance {
            data: data.display().to_string(),
            start: Some(start.to_string()),
            games: Some(cfg.games),
            depth: Some(cfg.depth),
            seed: Some(cfg.seed),
            opening_plies: Some(cfg.opening_plies),
            engine_eval: Some(if cfg.hand_eval { "hand" } else { "compiled" }.into()),
            engine_weights: Some(WEIGHTS),
            selfplay_seconds: Some(seconds),
            fit_only: None,
        }
    }
}

/// `sow tune --json`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TuneOutput {
    pub data: String,
    pub out: String,
    pub positions: usize,
    pub provenance: TuneProvenance,
    pub seconds: f64,
    pub train: Comparison,
    pub validation: Comparison,
    pub weights: BTreeMap<String, f64>,
    pub weights_fixed: [i32; FEATURES],
}

impl TuneOutput {
    /// What a fit of `positions` positions gives, its data in `data` and
    /// its weights written to `out`, after `seconds`.
    pub fn new(
        fit: &Fit,
        positions: usize,
        data: &Path,
        out: &Path,
        provenance: TuneProvenance,
        seconds: f64,
    ) -> Self {
        TuneOutput {
            positions,
            weights: named_weights(fit.real),
            weights_fixed: fit.fixed,
            train: fit.train,
            validation: fit.validation,
            data: data.display().to_string(),
            out: out.display().to_string(),
            provenance,
            seconds,
        }
    }
}

/// `weights.json`: the fixed-point weights the engine compiles in
/// (`scale` and `weights` are read by `kiothi_eval`), the real ones, and
/// how they were obtained (`provenance`, free-form).
pub fn weights_json(fit: &Fit, provenance: &TuneProvenance) -> String {
    let names = FEATURE_NAMES.map(|n| format!("\"{n}\"")).join(", ");
    let fixed = fit.fixed.map(|w| w.to_string()).join(", ");
    /// The `fit` object of `weights.json`.
    #[derive(Serialize)]
    struct Fitted<'a> {
        provenance: &'a TuneProvenance,
        ridge: f64,
        train: &'a Comparison,
        validation: &'a Comparison,
        weights_real: BTreeMap<String, f64>,
    }
    let fitted = serde_json::to_value(Fitted {
        provenance,
        ridge: fit.ridge,
        train: &fit.train,
        validation: &fit.validation,
        weights_real: named_weights(fit.real.map(|w| (w * 1e4).round() / 1e4)),
    })
    .expect("plain JSON");
    format!(
        "{{\n  \"game\": \"kiothi\",\n  \"scale\": {WEIGHT_SCALE},\n  \"features\": [{names}],\n  \"weights\": [{fixed}],\n  \"fit\": {}\n}}\n",
        serde_json::to_string_pretty(&fitted)
            .expect("plain JSON")
            .replace('\n', "\n  ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Samples of games 0 to 3 (all training) with varied features, one of
    /// them (`constant`) the same in every sample.
    fn samples(constant: Option<usize>) -> Vec<Sample> {
        (0..40)
            .map(|i| {
                let mut features = [0; FEATURES];
                for (j, f) in features.iter_mut().enumerate() {
                    *f = ((i * (j + 3) + j * j) % 7) as i32;
                }
                features[Feature::Bias as usize] = 1;
                if let Some(c) = constant {
                    features[c] = 1;
                }
                Sample {
                    game: i % 4,
                    ply: i,
                    mover: Side::South,
                    features,
                    hand: 0,
                    target: (i % 5) as f64,
                }
            })
            .collect()
    }

    #[test]
    fn a_failed_fit_says_whether_the_ridge_or_the_data_is_at_fault() {
        let s = samples(None);
        let fitted = fit(&s, 1.0).unwrap();
        // No game of the validation set (one in five): no error, not 0.
        assert_eq!(fitted.validation.positions, 0);
        assert_eq!(fitted.validation.tuned, None);
        assert!(fitted.train.tuned.is_some());
        for ridge in [1e15, 1e100] {
            let e = fit(&s, ridge).unwrap_err();
            assert!(matches!(e, FitError::RidgeTooLarge { .. }), "{e}");
            assert_eq!(e.field(), "ridge");
            assert!(e.to_string().contains("use a smaller --ridge"), "{e}");
        }
        // A constant feature beside the bias with no ridge: the data's fault.
        let e = fit(&samples(Some(1)), 0.0).unwrap_err();
        assert_eq!(e, FitError::Singular);
        assert_eq!(e.field(), "data");
        assert!(fit(&samples(Some(1)), 1.0).is_ok());
    }
}
