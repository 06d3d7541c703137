//! `sow tune kiothi`: self-play games, their positions' features and
//! realized margins written as CSV (`--data`), a ridge least-squares fit of
//! the evaluation weights, written as `weights.json` (`--out`), which the
//! engine compiles in from `data/kiothi/weights.json`.

use std::path::PathBuf;
use std::time::Instant;

use super::{args, parse_any, paths, AnyPosition, CliError, Out};
use crate::analysis::tune::{
    self, fit, from_csv, to_csv, FitError, Sample, SelfPlay, TuneOutput, TuneProvenance,
};
use crate::games::kiothi::KiothiPosition;
use crate::infra::files::{self, write_atomic};
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
    #[command(flatten)]
    pub opening: args::OpeningPlies,
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
        let AnyPosition::Kiothi(start) = parse_any(&self.game)? else {
            return Err(CliError::usage("game", "sow tune supports Kiothi only"));
        };
        self.check()?;
        let clock = Instant::now();
        let (samples, provenance) = match self.fit_only {
            true => (self.read_samples()?, TuneProvenance::fit_only(&self.data)),
            false => self.self_play(&start, out, clock)?,
        };
        let fitted = fit(&samples, self.ridge);
        if !self.fit_only {
            // Self-play data too few to fit are not worth a file; those of a
            // fit the ridge spoiled are kept for `--fit-only` with another.
            if let Err(e @ FitError::TooFewRows(_)) = &fitted {
                return Err(CliError::usage(
                    "games",
                    format!("{e}: play more --games (or fewer --opening-plies)"),
                ));
            }
            write_atomic(&self.data, to_csv(&samples).as_bytes())?;
        }
        let fitted = fitted.map_err(|e| CliError::usage(e.field(), e.to_string()))?;
        write_atomic(
            &self.out,
            tune::weights_json(&fitted, &provenance).as_bytes(),
        )?;
        let seconds = clock.elapsed().as_secs_f64();
        let (n, data, to) = (samples.len(), &self.data, &self.out);
        let output = TuneOutput::new(&fitted, n, data, to, provenance, seconds);
        out.result(&output, crate::report::tune::text)
    }

    fn check(&self) -> Result<(), CliError> {
        if !(self.ridge.is_finite() && self.ridge >= 0.0) {
            return Err(CliError::usage(
                "ridge",
                format!("--ridge must be a number >= 0, found {}", self.ridge),
            ));
        }
        if files::same_file(&self.data, &self.out) {
            return Err(CliError::usage(
                "out",
                format!(
                    "--out {} is the --data file: the weights would replace the self-play data",
                    self.out.display()
                ),
            ));
        }
        paths::check_out_file("out", &self.out)?;
        if !self.fit_only {
            paths::check_out_file("data", &self.data)?;
        }
        Ok(())
    }

    /// `--fit-only`: the samples of an earlier self-play, from `--data`.
    fn read_samples(&self) -> Result<Vec<Sample>, CliError> {
        let name = format!("--data {}", self.data.display());
        let text = paths::read_input(Some(&self.data), "data", &name)?;
        Ok(from_csv(&text)?)
    }

    /// Self-play from `start` (progress on a terminal); `run` writes its
    /// samples to `--data` once it knows they can be fitted.
    fn self_play(
        &self,
        start: &KiothiPosition,
        out: &mut Out,
        clock: Instant,
    ) -> Result<(Vec<Sample>, TuneProvenance), CliError> {
        let (games, depth, seed) = (self.games, self.depth, self.seed);
        out.info(format!(
            "self-play: {games} games at depth {depth} from {start} (seed {seed})"
        ))?;
        let cfg = SelfPlay {
            games,
            depth,
            seed,
            opening_plies: self.opening.plies,
            hand_eval: self.hand_eval,
        };
        let progress = Progress::auto(out.quiet || out.json);
        Ok(tune::self_play_with_provenance(
            start, &cfg, &self.data, progress, clock,
        ))
    }
}
