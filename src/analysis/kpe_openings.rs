//! `sow openings kpe[:WxK]`: the opening report of a solved variant —
//! the start's value, each first move, the perfect-play line, and North's
//! replies to every first move — as Markdown and JSON under `--out`.

use std::path::Path;
use std::time::Instant;

use serde_json::{json, Value};

use super::kpe_db::{self, line_json, moves_json, peak_rss_mib, played_line};
use crate::error::CliError;
use crate::games::kpe::{KpePosition, KpeVariant};
use crate::progress::Progress;
use crate::Game;

/// The report as JSON (the Markdown is rendered from it).
pub fn report(
    variant: KpeVariant,
    db: Option<&Path>,
    progress: Progress,
) -> Result<Value, CliError> {
    let t0 = Instant::now();
    let dir = kpe_db::db_dir(db);
    let solution = kpe_db::open_solution(variant, &dir, progress)?;
    let start = KpePosition::start(variant);
    let mut r = kpe_db::start_json(&solution, variant)?;
    let mut replies = Vec::new();
    for (mv, v) in solution.move_values(&start, None)? {
        let child = start.play_unchecked(&mv);
        let answers = solution.move_values(&child, None)?;
        let reply_line = played_line(&solution, &child, None)?;
        replies.push(json!({
            "move": mv.to_string(),
            "value": v,
            "position": child.to_string(),
            "replies": moves_json(&answers),
            "pv": line_json(&reply_line.moves),
        }));
    }
    r["replies"] = json!(replies);
    r["seconds"] = json!(t0.elapsed().as_secs_f64());
    r["peak_rss_mib"] = json!(peak_rss_mib());
    r["command"] = json!(format!("sow openings {}", variant.tag()));
    Ok(r)
}
