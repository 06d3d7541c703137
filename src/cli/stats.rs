//! `sow stats GAME --format csv|json`: value statistics per phase and stones
//! on the board, exact for a solved Kpé variant (`analysis::kpe_stats`),
//! estimated by engine self-play for Kiothi (`analysis::kiothi_stats`).

use std::path::Path;

use super::{CliError, Out};
use crate::analysis::kiothi_stats::{self, SelfPlay};
use crate::analysis::kpe_stats;
use crate::games::kiothi::{KiothiPosition, Setup};
use crate::games::kpe::KpeVariant;
use crate::report::stats::{kiothi_csv, kpe_csv};
use crate::solve::progress::Progress;

pub fn run_kpe(
    variant: KpeVariant,
    db: Option<&Path>,
    format: &str,
    out: &mut Out,
) -> Result<(), CliError> {
    if format != "csv" && format != "json" {
        return Err(CliError::usage(
            "format",
            format!("expected `csv` or `json`, found `{format}`"),
        ));
    }
    let rows = kpe_stats::rows(variant, db, Progress::auto(out.quiet || out.json))?;
    if out.json {
        return out.json(&kpe_stats::rows_json(variant, &rows));
    }
    let text = if format == "json" {
        kpe_stats::rows_json(variant, &rows).to_string() + "\n"
    } else {
        kpe_csv(&rows)
    };
    out.writer().write_all(text.as_bytes())?;
    Ok(())
}

pub fn run_kiothi(
    game: &str,
    plan: &SelfPlay,
    format: &str,
    out: &mut Out,
) -> Result<(), CliError> {
    let start = parse_kiothi_game(game)?;
    if format != "csv" && format != "json" {
        return Err(CliError::usage(
            "format",
            format!("expected `csv` or `json`, found `{format}`"),
        ));
    }
    let positions = kiothi_stats::reached_positions(&start, plan)?;
    let samples = kiothi_stats::estimate(
        &positions,
        plan.depth,
        Progress::auto(out.quiet || out.json),
    );
    let rows = kiothi_stats::rows(&samples);
    if out.json {
        return out.json(&kiothi_stats::rows_json(game, plan, &rows));
    }
    let text = if format == "json" {
        kiothi_stats::rows_json(game, plan, &rows).to_string() + "\n"
    } else {
        kiothi_csv(&rows)
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

/// Parses `kiothi` or `kiothi:five` (a game, not a position).
pub fn parse_kiothi_game(text: &str) -> Result<KiothiPosition, CliError> {
    match text {
        "kiothi" => Ok(KiothiPosition::start(Setup::SixPit)),
        "kiothi:five" => Ok(KiothiPosition::start(Setup::FivePit)),
        _ => Err(CliError::new(
            "malformed",
            Some("game"),
            format!("expected `kpe`, `kpe:WxK`, `kiothi` or `kiothi:five`, found `{text}`"),
        )),
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
        assert_eq!(
            parse_kiothi_game("kiothi:six")
                .unwrap_err()
                .field
                .as_deref(),
            Some("game")
        );
    }
}
