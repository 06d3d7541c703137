//! `sow solve kpe[:WxK]`: builds (or completes) a variant's database and
//! reports the value of the start and of each first move.

use std::path::Path;
use std::time::Instant;

use serde_json::json;

use super::kpe_db::{self, line_json, line_text, moves_json, peak_rss_mib, played_line};
use super::{CliError, Out};
use crate::games::kpe::{KpePosition, KpeVariant};
use crate::solve::progress::Progress;
use crate::solve::solution::Solution;

pub fn run(variant: KpeVariant, db: Option<&Path>, out: &mut Out) -> Result<(), CliError> {
    let dir = kpe_db::db_dir(db);
    let t0 = Instant::now();
    let (solution, stats) = Solution::build(variant, &dir, Progress::auto(out.quiet || out.json))?;
    let start = KpePosition::start(variant);
    let value = solution.value(&start, None)?;
    let moves = solution.move_values(&start, None)?;
    let line = played_line(&solution, &start, None)?;
    let seconds = t0.elapsed().as_secs_f64();
    let unlocked = stats.unlocked_positions;
    let opening = stats.region_positions;
    let peak = peak_rss_mib();
    if out.json {
        return out.json(&json!({
            "game": "kpe",
            "variant": variant.to_string(),
            "value": value,
            "result": kpe_db::result_word(value),
            "moves": moves_json(&moves),
            "pv": line_json(&line.moves),
            "pv_ends_by": line.ended_by,
            "positions": {"total": unlocked + opening, "unlocked": unlocked, "opening_phase": opening},
            "layers_computed": stats.layers_computed,
            "layers_reused": stats.layers_reused,
            "db": dir.display().to_string(),
            "seconds": seconds,
            "peak_rss_mib": peak,
        }));
    }
    out.line(format!(
        "{} solved, database in {}",
        variant.tag(),
        dir.display()
    ))?;
    out.line(format!(
        "start value {value:+} for South ({}), perfect play",
        kpe_db::result_word(value)
    ))?;
    for (mv, v) in &moves {
        out.line(format!("  first move {mv}: {v:+}"))?;
    }
    out.line(format!(
        "principal variation ({} moves, ends by {}): {}",
        line.moves.len(),
        line.ended_by,
        line_text(&line.moves)
    ))?;
    out.line(format!(
        "positions: {unlocked} unlocked (endgame database), {opening} in the opening phase"
    ))?;
    out.line(format!(
        "layers computed {}, reused {}",
        stats.layers_computed.len(),
        stats.layers_reused.len()
    ))?;
    out.line(format!(
        "time {seconds:.1} s, peak memory {} MiB",
        peak.map_or("?".to_string(), |p| format!("{p:.0}"))
    ))
}
