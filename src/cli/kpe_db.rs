//! What the Kpé solver commands share: naming a variant, opening or
//! building its database, and reporting memory.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::CliError;
use crate::games::kpe::{KpeMove, KpePosition, KpeVariant};
use crate::progress::Progress;
use crate::solve::solution::{default_db_dir, Solution, SolveError};

impl From<SolveError> for CliError {
    fn from(e: SolveError) -> Self {
        match e {
            SolveError::Input(e) => e.into(),
            SolveError::Db(e) => CliError::new("database", Some("db"), e.to_string()),
        }
    }
}

impl From<crate::solve::db::DbError> for CliError {
    fn from(e: crate::solve::db::DbError) -> Self {
        SolveError::Db(e).into()
    }
}

/// Parses `kpe` or `kpe:WxK` (a game, not a position).
pub fn parse_kpe_game(text: &str) -> Result<KpeVariant, CliError> {
    match text.split_once(':') {
        None if text == "kpe" => Ok(KpeVariant::STANDARD),
        Some(("kpe", size)) => Ok(KpeVariant::parse_tag(size)?),
        _ => Err(CliError::new(
            "malformed",
            Some("game"),
            format!("expected `kpe` or `kpe:WxK` (W 2-8, K 1-8), found `{text}`"),
        )),
    }
}

/// The database directory: `--db`, else `$SOW_DB`, else the user's data directory.
pub fn db_dir(db: Option<&Path>) -> PathBuf {
    db.map(Path::to_path_buf).unwrap_or_else(default_db_dir)
}

/// Opens a variant's database, or solves a small variant on the fly.
pub fn open_solution(
    variant: KpeVariant,
    db: &Path,
    progress: Progress,
) -> Result<Solution, CliError> {
    Ok(Solution::open_or_solve(variant, db, progress)?)
}

/// Peak resident memory of this process so far, in MiB (Linux).
pub fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

pub use crate::analysis::evaluation::result_word;

/// Move values as `[{"move","value"}]`.
pub fn moves_json(moves: &[(KpeMove, i32)]) -> Value {
    moves
        .iter()
        .map(|(m, v)| json!({"move": m.to_string(), "value": v}))
        .collect()
}

/// A line of moves as notation strings.
pub fn line_json(line: &[KpeMove]) -> Value {
    line.iter().map(|m| m.to_string()).collect()
}

pub fn line_text(line: &[KpeMove]) -> String {
    line.iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The perfect-play line (the analysis layer computes it).
pub use crate::analysis::evaluation::{played_line, PlayedLine};

/// The strings of a JSON array (moves of a line).
pub fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m.as_str())
        .collect()
}

/// A Markdown table of `{"move","value"}` objects.
pub fn value_table(header: &str, moves: &Value) -> String {
    let mut md = format!("| {header} |\n|---|---|\n");
    for m in moves.as_array().into_iter().flatten() {
        md += &format!(
            "| {} | {:+} |\n",
            m["move"].as_str().unwrap_or(""),
            m["value"].as_i64().unwrap_or(0)
        );
    }
    md
}

/// What `solve` and `openings` say of the start: value, first moves, the
/// perfect-play line and the position counts (the stable output keys).
pub fn start_json(solution: &Solution, variant: KpeVariant) -> Result<Value, CliError> {
    let start = KpePosition::start(variant);
    let value = solution.value(&start, None)?;
    let moves = solution.move_values(&start, None)?;
    let line = played_line(solution, &start, None)?;
    let unlocked = crate::solve::solution::endgame_positions(variant);
    let opening = solution.start_region().len() as u64;
    Ok(json!({
        "game": "kpe",
        "variant": variant.to_string(),
        "position": start.to_string(),
        "value": value,
        "result": result_word(value),
        "moves": moves_json(&moves),
        "pv": line_json(&line.moves),
        "pv_ends_by": line.ended_by,
        "pv_final_position": line.end.to_string(),
        "positions": {"total": unlocked + opening, "unlocked": unlocked, "opening_phase": opening},
    }))
}
