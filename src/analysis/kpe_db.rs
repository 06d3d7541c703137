//! What the Kpé solver commands share: naming a variant, opening or
//! building its database, and reporting memory.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::move_values::{notation, MoveEntry};

use crate::error::CliError;
use crate::game::Game;
use crate::games::kpe::{KpeMove, KpePosition, KpeVariant};
use crate::infra::progress::Progress;
use crate::kpe_db::paths::default_db_dir;
use crate::kpe_db::{LockedRegion, Solution, SolveError};

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
    crate::infra::limits::peak_rss_mib()
}

/// "win", "draw" or "loss" for the mover.
pub fn result_word(value: i32) -> &'static str {
    match value.signum() {
        1 => "win",
        0 => "draw",
        _ => "loss",
    }
}

/// Move values as `[{"move","value"}]`.
pub fn moves_json(moves: &[(KpeMove, i32)]) -> Vec<MoveEntry> {
    moves.iter().map(|(m, v)| MoveEntry::new(m, *v)).collect()
}

/// Positions of a variant's database.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PositionCounts {
    /// Locked positions reachable from the start.
    pub opening_phase: u64,
    pub total: u64,
    /// Both players unlocked (the endgame database).
    pub unlocked: u64,
}

/// What `solve` and `openings` say of the start (the stable output keys).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StartSummary {
    pub game: String,
    /// First moves and their values for South.
    pub moves: Vec<MoveEntry>,
    pub position: String,
    pub positions: PositionCounts,
    /// The perfect-play line.
    pub pv: Vec<String>,
    pub pv_ends_by: String,
    pub pv_final_position: String,
    /// `win`, `draw` or `loss` for South.
    pub result: String,
    pub value: i32,
    pub variant: String,
}

/// Longest perfect-play line given with a move (`eval` and hints).
pub const LINE_LIMIT: usize = 1000;

/// The perfect-play line with the position it ends in and how it ends.
pub struct PlayedLine {
    pub moves: Vec<KpeMove>,
    pub end: KpePosition,
    pub ended_by: &'static str,
}

/// Plays the principal variation out from `pos` (at most 1,000 moves).
pub fn played_line(
    solution: &Solution,
    pos: &KpePosition,
    extra: Option<&LockedRegion>,
) -> Result<PlayedLine, SolveError> {
    let moves = solution.principal_variation(pos, extra, LINE_LIMIT)?;
    let end = moves.iter().fold(*pos, |p, m| p.play_unchecked(m));
    let ended_by = if end.is_over() {
        "end of game"
    } else {
        "repetition (endless play)"
    };
    Ok(PlayedLine {
        moves,
        end,
        ended_by,
    })
}

/// What `solve` and `openings` say of the start: value, first moves, the
/// perfect-play line and the position counts (the stable output keys).
pub fn start_json(solution: &Solution, variant: KpeVariant) -> Result<StartSummary, CliError> {
    let start = KpePosition::start(variant);
    let value = solution.value(&start, None)?;
    let moves = solution.move_values(&start, None)?;
    let line = played_line(solution, &start, None)?;
    let unlocked = crate::kpe_db::endgame_positions(variant);
    let opening = solution.start_region().len() as u64;
    Ok(StartSummary {
        game: "kpe".into(),
        variant: variant.to_string(),
        position: start.to_string(),
        value,
        result: result_word(value).into(),
        moves: moves_json(&moves),
        pv: notation(&line.moves),
        pv_ends_by: line.ended_by.into(),
        pv_final_position: line.end.to_string(),
        positions: PositionCounts {
            total: unlocked + opening,
            unlocked,
            opening_phase: opening,
        },
    })
}
