//! `sow openings GAME`: the opening report of a game, written as Markdown
//! and JSON under `--out` (Kpé: exact, from the solved database; Kiothi:
//! estimated by search).

use std::path::{Path, PathBuf};

use super::{args, CliError, Out};
use crate::analysis::kpe_openings::KpeOpeningReport;
use crate::analysis::{kiothi_openings, kpe_openings};
use crate::games::game_name::{parse_game, GameName};
use crate::games::kiothi::KiothiPosition;
use crate::games::kpe::KpeVariant;
use crate::infra::files::write_report;
use crate::infra::progress::Progress;
use crate::report::{kiothi_openings as kiothi_page, kpe_openings as kpe_page};

/// `sow openings`: its command line.
#[derive(clap::Args, Debug)]
pub struct OpeningsArgs {
    /// `kpe`, `kpe:WxK`, `kiothi` or `kiothi:five`.
    #[arg(value_parser = parse_game)]
    pub game: GameName,
    #[command(flatten)]
    pub db: super::paths::DbDir,
    /// Directory of the reports.
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub out: PathBuf,
    /// Kiothi: search time per candidate, in seconds.
    #[arg(long, value_name = "SECONDS", value_parser = args::seconds)]
    pub time: Option<f64>,
}

impl OpeningsArgs {
    pub fn run(&self, out: &mut Out) -> Result<(), CliError> {
        super::paths::check_out_dir("out", &self.out)?;
        self.refuse_other_games_flags()?;
        match self.game {
            GameName::Kiothi(setup) => run_kiothi(
                &KiothiPosition::start(setup),
                self.time,
                rayon::current_num_threads(),
                &self.out,
                out,
            ),
            GameName::Kpe(v) => run_kpe(v, self.db.given(), &self.out, out),
        }
    }

    /// `--time` and `--db` each serve one game: given to the other they
    /// were silently ignored.
    fn refuse_other_games_flags(&self) -> Result<(), CliError> {
        match self.game {
            GameName::Kpe(_) if self.time.is_some() => Err(CliError::usage(
                "time",
                "--time is for Kiothi (searched openings); Kpé openings are exact, from the database",
            )),
            GameName::Kiothi(_) if self.db.given().is_some() => Err(CliError::usage(
                "db",
                "--db is for Kpé (its solved database); Kiothi openings are searched",
            )),
            _ => Ok(()),
        }
    }
}

pub fn run_kpe(
    variant: KpeVariant,
    db: Option<&Path>,
    out_dir: &Path,
    out: &mut Out,
) -> Result<(), CliError> {
    let r = kpe_openings::report(variant, db, Progress::auto(out.quiet || out.json))?;
    let dir = out_dir.join("kpe");
    let stem = if variant == KpeVariant::STANDARD {
        "openings".to_string()
    } else {
        format!("openings-{variant}")
    };
    let (md_path, json_path) = write_report(&dir, &stem, &r, &kpe_page::markdown(&r))?;
    if out.json {
        /// The report and the two files written.
        #[derive(serde::Serialize)]
        struct WithFiles<'a> {
            #[serde(flatten)]
            report: &'a KpeOpeningReport,
            files: [String; 2],
        }
        return out.model_sorted(&WithFiles {
            report: &r,
            files: [
                md_path.display().to_string(),
                json_path.display().to_string(),
            ],
        });
    }
    let s = &r.start;
    out.line(format!(
        "start value {:+} for South ({})",
        s.value, s.result
    ))?;
    for m in &s.moves {
        out.line(format!("  first move {}: {:+}", m.mv, m.value))?;
    }
    out.line(format!("perfect play: {}", s.pv.join(" ")))?;
    out.line(format!(
        "wrote {} and {}",
        md_path.display(),
        json_path.display()
    ))
}

pub fn run_kiothi(
    start: &KiothiPosition,
    seconds: Option<f64>,
    threads: usize,
    out_dir: &std::path::Path,
    out: &mut Out,
) -> Result<(), CliError> {
    let progress = Progress::auto(out.quiet || out.json);
    let r = kiothi_openings::report(start, seconds.unwrap_or(1.0), threads, 256, progress);
    let dir = out_dir.join("kiothi");
    let stem = if start.board_sum() == 50 {
        "openings-five"
    } else {
        "openings"
    };
    let (md_path, json_path) = write_report(&dir, stem, &r, &kiothi_page::markdown(&r))?;
    if out.json {
        return out.model_sorted(&r);
    }
    for m in &r.moves {
        out.line(format!("{:+4}  {}", m.value, m.mv))?;
    }
    out.line(format!(
        "wrote {} and {}",
        md_path.display(),
        json_path.display()
    ))
}
