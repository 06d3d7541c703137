//! `sow analyze <FILE|->`: every ply of a played game valued and marked,
//! per-player summaries and the ply at which the result was decided, as a
//! text table, `--json`, or a Markdown page with its value graph (`--out`).

use std::path::{Path, PathBuf};

use super::{parse_any, AnyPosition, CliError, Out};
use crate::analysis::annotate::{analyze_game, GameAnalysis, GameInfo};
use crate::analysis::game_text::{parse_game_text, GameText};
use crate::analysis::oracle::{Oracle, SearchOracle};
use crate::files;
use crate::game::Game;
use crate::progress::Progress;
use crate::record::{GameRecord, Termination};
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
    /// 0-based line); the first by default.
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

/// Replays the moves from `start` by RULES and §0's repetition rule (the
/// one game loop of `record.rs`); a game that ends by the third repetition
/// stops there, and the moves after it are counted, not played.
pub fn replay<G: Game>(start: &G, game: &GameText) -> Result<(GameRecord<G>, usize), CliError> {
    let mut record = GameRecord::new(start.clone());
    let n = game.moves.len();
    for (i, mv) in game.moves.iter().enumerate() {
        if record.is_finished() {
            return Ok((record, n - i));
        }
        record.push_text(mv).map_err(|e| {
            let mut err = CliError::from(e);
            err.message = format!("move {} of {n} (`{mv}`) refused: {}", i + 1, err.message);
            err.index = Some(i + 1);
            err
        })?;
        if let Some(after) = game.after.get(i) {
            let now = record.current().to_string();
            let listed = parse_any(after).map(|p| p.to_string());
            if listed.as_deref() != Ok(now.as_str()) {
                return Err(CliError::new(
                    "malformed",
                    Some("file"),
                    format!(
                        "the position after move {} is `{now}`, the record says `{after}`",
                        i + 1
                    ),
                ));
            }
        }
    }
    Ok((record, 0))
}

fn replays(start: &AnyPosition, game: &GameText) -> bool {
    crate::with_position!(start, p => replay(p, game).is_ok())
}

/// The start: `--start`, else the record's, else the first standard start
/// that replays every move (`sow apply` text output: the variant of the
/// listed positions; a match record: kiothi, kiothi:five, kpe).
pub fn find_start(game: &GameText, start: Option<&str>) -> Result<AnyPosition, CliError> {
    if let Some(text) = start.or(game.start.as_deref()) {
        return parse_any(text).map_err(|e| {
            let mut err = CliError::from(e);
            err.field = Some("start".into());
            err
        });
    }
    let tag = game
        .after
        .first()
        .and_then(|p| p.split_whitespace().next())
        .map(str::to_string);
    let candidates: Vec<String> = match tag {
        Some(t) if t.starts_with("kiothi") => vec!["kiothi".into(), "kiothi:five".into()],
        Some(t) => vec![t],
        None => vec!["kiothi".into(), "kiothi:five".into(), "kpe".into()],
    };
    for c in &candidates {
        if let Ok(p) = parse_any(c) {
            if replays(&p, game) {
                return Ok(p);
            }
        }
    }
    Err(CliError::new(
        "malformed",
        Some("start"),
        format!(
            "the record does not give its start position and none of {} replays its moves: pass --start POSITION",
            candidates.join(", ")
        ),
    ))
}

/// The command line that reproduces this run, for the page.
fn command_line() -> String {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .map(|a| if a.contains(' ') { format!("'{a}'") } else { a })
        .collect();
    format!("sow {}", args.join(" "))
}

pub fn run(args: &AnalyzeArgs, threads: usize, out: &mut Out) -> Result<(), CliError> {
    super::search_eval::check_hash(args.hash.mb)?;
    if let Some(dir) = &args.out {
        super::paths::check_out_dir("out", dir)?;
    }
    let file = (args.file != "-").then(|| Path::new(&args.file));
    let name = format!("the game file {}", args.file);
    let text = super::paths::read_input(file, "file", &name)?;
    let game = parse_game_text(&text, args.record)?;
    let start = find_start(&game, args.start.as_deref())?;
    let quiet = out.quiet || out.json;
    match &start {
        AnyPosition::Kpe(p) => {
            if args.time.is_some() {
                return Err(CliError::usage(
                    "time",
                    "Kpé games are valued exactly from the database: --time is for Kiothi",
                ));
            }
            let (record, ignored) = replay(p, &game)?;
            let mut oracle = super::eval::kpe_oracle(p, args.db.given(), quiet)?;
            let info = GameInfo {
                names: game.names,
                opening_plies: game.opening_plies,
                method: "exact, from the solved database".to_string(),
            };
            analyze_and_print(&record, ignored, &mut oracle, info, args, out)
        }
        AnyPosition::Kiothi(p) => {
            let (record, ignored) = replay(p, &game)?;
            let seconds = args.time.unwrap_or(DEFAULT_SECONDS);
            let stop = crate::interrupt::ctrl_c_flag();
            let tables = super::kiothi_tables::for_search(args.db.given())?;
            let info = GameInfo {
                names: game.names,
                opening_plies: game.opening_plies,
                method: super::kiothi_tables::search_method(seconds, threads, &tables),
            };
            let mut oracle =
                SearchOracle::new(Limits::seconds(seconds), threads, args.hash.mb, stop)
                    .with_exact(tables);
            analyze_and_print(&record, ignored, &mut oracle, info, args, out)
        }
    }
}

fn analyze_and_print<G: Searchable, O: Oracle<G>>(
    record: &GameRecord<G>,
    ignored: usize,
    oracle: &mut O,
    info: GameInfo,
    args: &AnalyzeArgs,
    out: &mut Out,
) -> Result<(), CliError> {
    let bar = Progress::auto(out.quiet || out.json).bar(record.moves().len() as u64 + 1, "analyze");
    let analysis = analyze_game(record, oracle, info, &mut |done, _| {
        bar.set_position(done as u64)
    })?;
    bar.finish_and_clear();
    if let Some(dir) = &args.out {
        write_page(&analysis, dir)?;
    }
    if out.json {
        return out.model_sorted(&analysis);
    }
    print_text(&analysis, record, ignored, out)?;
    if let Some(dir) = &args.out {
        out.info(format!(
            "wrote {0}/analysis.md, {0}/analysis.json and {0}/values.svg",
            dir.display()
        ))?;
    }
    Ok(())
}

fn write_page(a: &GameAnalysis, dir: &Path) -> Result<(), CliError> {
    use crate::report::analysis::{markdown, value_graph};
    files::write_in(dir, "values.svg", &value_graph(a))?;
    files::write_in(
        dir,
        "analysis.json",
        &serde_json::to_string_pretty(a).expect("JSON"),
    )?;
    files::write_in(
        dir,
        "analysis.md",
        &markdown(a, &command_line(), "values.svg"),
    )?;
    Ok(())
}

fn print_text<G: Game>(
    a: &GameAnalysis,
    record: &GameRecord<G>,
    ignored: usize,
    out: &mut Out,
) -> Result<(), CliError> {
    let cut =
        (ignored > 0 && record.termination() == Some(Termination::Repetition)).then_some(ignored);
    for line in crate::report::analysis::text(a, cut) {
        out.line(line)?;
    }
    Ok(())
}
