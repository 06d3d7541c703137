//! `sow analyze <FILE|->`: every ply of a played game valued and marked,
//! per-player summaries and the ply at which the result was decided, as a
//! text table, `--json`, or a Markdown page with its value graph (`--out`).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use super::{AnyPosition, CliError, Out};
use crate::analysis::annotate::{analyze_game, GameAnalysis, GameInfo, FROM_DATABASE};
use crate::analysis::game_replay::{find_start, replay};
use crate::analysis::game_text::parse_game_text;
use crate::analysis::kiothi_tables::search_method;
use crate::analysis::oracle::{Oracle, SearchOracle};
use crate::error::ErrorKind;
use crate::infra::files;
use crate::infra::progress::Progress;
use crate::record::GameRecord;
use crate::search::{Limits, Searchable};

/// Search time per position when `--time` is not given (Kiothi).
pub const DEFAULT_SECONDS: f64 = 1.0;

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
    #[arg(long, value_name = "SECONDS", value_parser = super::args::seconds)]
    pub time: Option<f64>,
    #[command(flatten)]
    pub hash: super::args::SearchHash,
    #[command(flatten)]
    pub db: super::paths::DbDir,
    /// Also write DIR/analysis.md, DIR/analysis.json and DIR/values.svg.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// The command line that reproduces this run, for the page. An argument
/// that is not UTF-8 (a file name) is shown lossily: `env::args` panicked.
fn command_line() -> String {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .map(|a| if a.contains(' ') { format!("'{a}'") } else { a })
        .collect();
    format!("sow {}", args.join(" "))
}

impl AnalyzeArgs {
    pub fn run(&self, threads: usize, out: &mut Out) -> Result<(), CliError> {
        super::search_eval::check_hash(self.hash.mb)?;
        if let Some(dir) = &self.out {
            // Checked before the analysis, created only when written: a
            // refused game leaves no empty directory behind.
            super::paths::check_out_dir("out", dir)?;
        }
        let file = (self.file != "-").then(|| Path::new(&self.file));
        let name = format!("the game file {}", self.file);
        let text = super::paths::read_input(file, "file", &name)?;
        let game = parse_game_text(&text, self.record)?;
        let start = find_start(&game, self.start.as_deref())?;
        let quiet = out.quiet || out.json;
        match &start {
            AnyPosition::Kpe(p) => {
                if self.time.is_some() {
                    return Err(CliError::usage(
                        "time",
                        "Kpé games are valued exactly from the database: --time is for Kiothi",
                    ));
                }
                let (record, ignored) = replay(p, &game)?;
                let mut oracle = super::eval::kpe_oracle(p, self.db.given(), quiet)?;
                let info = GameInfo::new(&game, FROM_DATABASE).ignoring(ignored);
                analyze_and_print(&record, &mut oracle, info, None, self, out)
            }
            AnyPosition::Kiothi(p) => {
                let (record, ignored) = replay(p, &game)?;
                let seconds = self.time.unwrap_or(DEFAULT_SECONDS);
                let stop = crate::infra::interrupt::ctrl_c_flag();
                let tables = crate::analysis::kiothi_tables::for_search(self.db.given())?;
                let method = search_method(seconds, threads, &tables);
                let info = GameInfo::new(&game, method).ignoring(ignored);
                let mut oracle = SearchOracle::new(
                    Limits::seconds(seconds),
                    threads,
                    self.hash.mb,
                    stop.clone(),
                )
                .with_exact(tables);
                analyze_and_print(&record, &mut oracle, info, Some(&stop), self, out)
            }
        }
    }
}

/// Analyses the game and prints it (and writes the page). `stop` is the
/// searches' Ctrl-C flag, if they have one.
fn analyze_and_print<G: Searchable, O: Oracle<G>>(
    record: &GameRecord<G>,
    oracle: &mut O,
    info: GameInfo,
    stop: Option<&AtomicBool>,
    args: &AnalyzeArgs,
    out: &mut Out,
) -> Result<(), CliError> {
    let bar = Progress::auto(out.quiet || out.json).bar(record.moves().len() as u64 + 1, "analyze");
    let analysis = analyze_game(record, oracle, info, &mut |done, _| {
        bar.set_position(done as u64)
    })?;
    bar.finish_and_clear();
    // After Ctrl-C the remaining plies were searched to depth 1 only: the
    // analysis is wrong, so nothing is printed or written.
    if stop.is_some_and(|s| s.load(Ordering::SeqCst)) {
        return Err(CliError::new(
            ErrorKind::Interrupted,
            None,
            "analysis interrupted (Ctrl-C): nothing printed or written",
        ));
    }
    if let Some(dir) = &args.out {
        write_page(&analysis, dir)?;
    }
    if out.json {
        return out.model_sorted(&analysis);
    }
    for line in crate::report::analysis::text(&analysis) {
        out.line(line)?;
    }
    if let Some(dir) = &args.out {
        out.info(format!(
            "wrote {0}/analysis.md, {0}/analysis.json and {0}/values.svg",
            dir.display()
        ))?;
    }
    Ok(())
}

/// The page's three files, written as a set (`files::write_set_in`): a
/// failure half-way must not leave a new graph beside an older analysis.
fn write_page(a: &GameAnalysis, dir: &Path) -> Result<(), CliError> {
    use crate::report::analysis::{markdown, value_graph};
    let svg = value_graph(a);
    let json = serde_json::to_string_pretty(a).expect("JSON");
    let md = markdown(a, &command_line(), "values.svg");
    files::write_set_in(
        dir,
        &[
            ("values.svg", svg.as_bytes()),
            ("analysis.json", json.as_bytes()),
            ("analysis.md", md.as_bytes()),
        ],
    )?;
    Ok(())
}
