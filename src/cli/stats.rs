//! `sow stats GAME --format csv|json`: value statistics per phase and stones
//! on the board, exact for a solved Kpé variant (`analysis::kpe_stats`),
//! estimated by engine self-play for Kiothi (`analysis::kiothi_stats`).

use std::path::Path;

use super::args::{self, TableFormat};
use super::game_arg::{parse_game, GameArg};
use super::{CliError, Out};
use crate::analysis::kiothi_stats::{self, SelfPlay};
use crate::analysis::kpe_stats;
use crate::games::kiothi::KiothiPosition;
use crate::games::kpe::KpeVariant;
use crate::infra::files::line_json;
use crate::infra::progress::Progress;
use crate::report::stats::{kiothi_csv, kpe_csv};

/// `sow stats`: its command line.
#[derive(clap::Args, Debug)]
pub struct StatsArgs {
    /// `kpe`, `kpe:WxK`, `kiothi` or `kiothi:five`.
    #[arg(value_parser = parse_game)]
    pub game: GameArg,
    /// `csv` or `json`.
    #[arg(long, value_enum, default_value = "csv")]
    pub format: TableFormat,
    #[command(flatten)]
    pub db: super::paths::DbDir,
    /// Kiothi: self-play games (default 20).
    #[arg(long, value_name = "N", value_parser = args::games)]
    pub games: Option<usize>,
    /// Kiothi: depth of the engine and of each estimate (default 5).
    #[arg(long, value_name = "D", value_parser = args::depth)]
    pub depth: Option<u32>,
    /// Kiothi: seed of the random openings (default 1).
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
}

impl StatsArgs {
    pub fn run(&self, out: &mut Out) -> Result<(), CliError> {
        match self.game {
            GameArg::Kiothi(_) if self.db.given().is_some() => Err(CliError::usage(
                "db",
                "--db is for Kpé (its solved database); Kiothi statistics come from self-play",
            )),
            GameArg::Kiothi(setup) => {
                let plan = SelfPlay::new(self.games, self.depth, self.seed)?;
                let start = KiothiPosition::start(setup);
                run_kiothi(&start, &self.game.to_string(), &plan, self.format, out)
            }
            GameArg::Kpe(variant) => {
                refuse_for_kpe(self.games, self.depth, self.seed)?;
                run_kpe(variant, self.db.given(), self.format, out)
            }
        }
    }
}

pub fn run_kpe(
    variant: KpeVariant,
    db: Option<&Path>,
    format: TableFormat,
    out: &mut Out,
) -> Result<(), CliError> {
    let rows = kpe_stats::rows(variant, db, Progress::auto(out.quiet || out.json))?;
    if out.json {
        return out.model_sorted(&kpe_stats::rows_json(variant, &rows));
    }
    let text = match format {
        TableFormat::Json => line_json(&kpe_stats::rows_json(variant, &rows)) + "\n",
        TableFormat::Csv => kpe_csv(&rows),
    };
    out.writer().write_all(text.as_bytes())?;
    Ok(())
}

pub fn run_kiothi(
    start: &KiothiPosition,
    game: &str,
    plan: &SelfPlay,
    format: TableFormat,
    out: &mut Out,
) -> Result<(), CliError> {
    let progress = Progress::auto(out.quiet || out.json);
    let positions = kiothi_stats::reached_positions(start, plan, progress)?;
    let samples = kiothi_stats::estimate(&positions, plan.depth, progress);
    let rows = kiothi_stats::rows(&samples);
    if out.json {
        return out.model_sorted(&kiothi_stats::rows_json(game, plan, &rows));
    }
    let text = match format {
        TableFormat::Json => line_json(&kiothi_stats::rows_json(game, plan, &rows)) + "\n",
        TableFormat::Csv => kiothi_csv(&rows),
    };
    out.writer().write_all(text.as_bytes())?;
    Ok(())
}

/// Refuses the self-play options for a game that is solved exactly.
pub fn refuse_for_kpe(
    games: Option<usize>,
    depth: Option<u32>,
    seed: Option<u64>,
) -> Result<(), CliError> {
    let given = [
        ("games", games.is_some()),
        ("depth", depth.is_some()),
        ("seed", seed.is_some()),
    ];
    match given.iter().find(|(_, g)| *g) {
        Some((field, _)) => Err(CliError::usage(
            field,
            format!("--{field} applies to Kiothi statistics (self-play); Kpé statistics are exact"),
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_options_name_their_field() {
        assert_eq!(
            SelfPlay::new(Some(0), None, None)
                .unwrap_err()
                .field
                .as_deref(),
            Some("games")
        );
        assert_eq!(
            SelfPlay::new(None, Some(0), None)
                .unwrap_err()
                .field
                .as_deref(),
            Some("depth")
        );
        assert_eq!(
            refuse_for_kpe(None, None, Some(3))
                .unwrap_err()
                .field
                .as_deref(),
            Some("seed")
        );
        assert!(refuse_for_kpe(None, None, None).is_ok());
    }
}
