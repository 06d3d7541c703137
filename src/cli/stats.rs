//! `sow stats GAME --format csv|json`: value statistics per phase and stones
//! on the board, exact for a solved Kpé variant (`analysis::kpe_stats`),
//! estimated by engine self-play for Kiothi (`analysis::kiothi_stats`).

use super::args::{self, TableFormat};
use super::{CliError, Out};
use crate::analysis::kiothi_stats::{self, SelfPlay};
use crate::analysis::kpe_stats;
use crate::games::game_name::{parse_game, GameName};
use crate::games::kiothi::KiothiPosition;
use crate::infra::progress::Progress;
use crate::report::stats::{kiothi_csv, kpe_csv};

/// `sow stats`: its command line.
#[derive(clap::Args, Debug)]
pub struct StatsArgs {
    /// `kpe`, `kpe:WxK`, `kiothi` or `kiothi:five`.
    #[arg(value_parser = parse_game)]
    pub game: GameName,
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
        let progress = Progress::auto(out.quiet || out.json);
        let (json, csv) = match self.game {
            GameName::Kiothi(_) if self.db.given().is_some() => {
                return Err(CliError::usage(
                    "db",
                    "--db is for Kpé (its solved database); Kiothi statistics come from self-play",
                ))
            }
            GameName::Kiothi(setup) => {
                let plan = SelfPlay::new(self.games, self.depth, self.seed)?;
                let rows = kiothi_stats::sample(&KiothiPosition::start(setup), &plan, progress)?;
                let json = kiothi_stats::rows_json(&self.game.to_string(), &plan, &rows);
                (serde_json::to_value(json), kiothi_csv(&rows))
            }
            GameName::Kpe(variant) => {
                self.refuse_self_play_flags()?;
                let rows = kpe_stats::rows(variant, self.db.given(), progress)?;
                (
                    serde_json::to_value(kpe_stats::rows_json(variant, &rows)),
                    kpe_csv(&rows),
                )
            }
        };
        let json = json.expect("statistics serialize");
        if out.json {
            return out.json(&json);
        }
        let text = match self.format {
            TableFormat::Json => format!("{json}\n"),
            TableFormat::Csv => csv,
        };
        out.writer().write_all(text.as_bytes())?;
        Ok(())
    }

    /// Refuses the self-play flags for a game that is solved exactly.
    fn refuse_self_play_flags(&self) -> Result<(), CliError> {
        let given = [
            ("games", self.games.is_some()),
            ("depth", self.depth.is_some()),
            ("seed", self.seed.is_some()),
        ];
        args::refuse_given(&given, |flag| {
            format!("--{flag} applies to Kiothi statistics (self-play); Kpé statistics are exact")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        stats: StatsArgs,
    }

    #[test]
    fn self_play_flags_are_refused_for_kpe_naming_their_field() {
        let given = Cli::parse_from(["stats", "kpe", "--seed", "3"]).stats;
        let e = given.refuse_self_play_flags().unwrap_err();
        assert_eq!(e.field.as_deref(), Some("seed"));
        let none = Cli::parse_from(["stats", "kpe"]).stats;
        assert!(none.refuse_self_play_flags().is_ok());
    }
}
