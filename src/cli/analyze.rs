//! `sow analyze <FILE|->`: every ply of a played game valued and marked,
//! per-player summaries and the ply at which the result was decided, as a
//! text table, `--json`, or a Markdown page with its value graph (`--out`).

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::{args, paths, AnyPosition, CliError, Out};
use crate::analysis::annotate::analyze_played;
use crate::analysis::game_replay::{find_start, StartError};
use crate::analysis::game_text::{parse_game_text, GameTextError};
use crate::analysis::search_budget::{Budget, ANALYZE_SECONDS};
use crate::analysis::value_sources::ValueSources;
use crate::error::ErrorKind;
use crate::infra::progress::Progress;
use crate::report::analysis::{text, write_page};

#[derive(clap::Args, Debug)]
pub struct AnalyzeArgs {
    /// The game: a file, or `-` for standard input. A start position line
    /// then moves; `sow match --records` or `sow play` JSON lines; `sow
    /// apply` output (text or --json).
    #[arg(value_name = "FILE|-")]
    pub file: String,
    /// Start position for a record that does not give one (a `sow match`
    /// record starts from the match's --game; without this, `kiothi`,
    /// `kiothi:five` and `kpe` are tried). Overrides the record's start.
    #[arg(long, value_name = "POSITION")]
    pub start: Option<String>,
    /// Which game of a JSON-lines file (its `game` number, else its
    /// 0-based place among the records); the first by default.
    #[arg(long, value_name = "N")]
    pub record: Option<usize>,
    /// Kiothi: search time per position, in seconds (default 1).
    #[arg(long, value_name = "SECONDS", value_parser = args::seconds)]
    pub time: Option<f64>,
    #[command(flatten)]
    pub hash: args::SearchHash,
    #[command(flatten)]
    pub db: paths::DbDir,
    /// Also write DIR/analysis.md, DIR/analysis.json and DIR/values.svg.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

impl AnalyzeArgs {
    pub fn run(&self, threads: usize, out: &mut Out) -> Result<(), CliError> {
        args::check_hash(self.hash.mb)?;
        if let Some(dir) = &self.out {
            // Checked before the analysis, created only when written: a
            // refused game leaves no empty directory behind.
            paths::check_out_dir("out", dir)?;
        }
        let file = (self.file != "-").then(|| Path::new(&self.file));
        let name = format!("the game file {}", self.file);
        let input = paths::read_input(file, "file", &name)?;
        let game = parse_game_text(&input, self.record).map_err(record_flag)?;
        let start = find_start(&game, self.start.as_deref()).map_err(|e| match e {
            StartError::NotFound(c) => {
                let message = format!("{}: pass --start POSITION", StartError::not_found(&c));
                CliError::new(ErrorKind::Malformed, Some("start"), message)
            }
            e => e.into(),
        })?;
        let kiothi = matches!(start, AnyPosition::Kiothi(_));
        if !kiothi && self.time.is_some() {
            return Err(CliError::usage(
                "time",
                "Kpé games are valued exactly from the database: --time is for Kiothi",
            ));
        }
        let quiet = out.quiet || out.json;
        let sources = ValueSources::new(self.db.given(), Progress::auto(quiet));
        let budget = Budget {
            seconds: Some(self.time.unwrap_or(ANALYZE_SECONDS)),
            hash_mb: self.hash.mb,
            threads,
            ..Budget::default()
        };
        // Kiothi's searches stop at Ctrl-C; a Kpé database read ends as usual.
        let stop = match kiothi {
            true => crate::infra::interrupt::ctrl_c_flag(),
            false => Arc::default(),
        };
        let progress = Progress::auto(quiet);
        let analysis = analyze_played(&sources, &game, &start, &budget, stop.clone(), progress)?;
        // After Ctrl-C the remaining plies were searched to depth 1 only: the
        // analysis is wrong, so nothing is printed or written.
        if stop.load(Ordering::SeqCst) {
            return Err(CliError::new(
                ErrorKind::Interrupted,
                None,
                "analysis interrupted (Ctrl-C): nothing printed or written",
            ));
        }
        if let Some(dir) = &self.out {
            write_page(&analysis, dir, &super::command_line())?;
        }
        if out.json {
            return out.model_sorted(&analysis);
        }
        out.lines(text(&analysis))?;
        if let Some(dir) = &self.out {
            out.info(format!(
                "wrote {0}/analysis.md, {0}/analysis.json and {0}/values.svg",
                dir.display()
            ))?;
        }
        Ok(())
    }
}

/// `--record` given for an input of one game: the flag named.
fn record_flag(e: GameTextError) -> CliError {
    match e {
        GameTextError::NotRecords => CliError::new(
            ErrorKind::Malformed,
            Some("record"),
            "--record picks a game of a JSON-lines file; this input holds one game",
        ),
        e => e.into(),
    }
}
