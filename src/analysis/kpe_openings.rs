//! `sow openings kpe[:WxK]`: the opening report of a solved variant —
//! the start's value, each first move, the perfect-play line, and North's
//! replies to every first move — as Markdown and JSON under `--out`.

use std::path::Path;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::kpe_db::{self, moves_json, peak_rss_mib, played_line, StartSummary};
use super::move_values::{notation, MoveEntry};
use crate::error::CliError;
use crate::games::kpe::{KpePosition, KpeVariant};
use crate::infra::progress::Progress;
use crate::Game;

/// North's replies to one first move.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KpeReply {
    #[serde(rename = "move")]
    pub mv: String,
    pub position: String,
    /// North's best line from there.
    pub pv: Vec<String>,
    /// North's replies, valued for North.
    pub replies: Vec<MoveEntry>,
    /// The first move's value for South.
    pub value: i32,
}

/// The opening report (`openings.json`; the page is rendered from it).
/// Its JSON has the start summary's keys at the top level.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KpeOpeningReport {
    #[serde(flatten)]
    pub start: StartSummary,
    pub command: String,
    pub peak_rss_mib: Option<f64>,
    pub replies: Vec<KpeReply>,
    pub seconds: f64,
}

/// The report (the Markdown is rendered from it).
pub fn report(
    variant: KpeVariant,
    db: Option<&Path>,
    progress: Progress,
) -> Result<KpeOpeningReport, CliError> {
    let t0 = Instant::now();
    let dir = kpe_db::db_dir(db);
    let solution = kpe_db::open_solution(variant, &dir, progress)?;
    let start = KpePosition::start(variant);
    let summary = kpe_db::start_json(&solution, variant)?;
    let mut replies = Vec::new();
    for (mv, v) in solution.move_values(&start, None)? {
        let child = start.play_unchecked(&mv);
        let answers = solution.move_values(&child, None)?;
        let reply_line = played_line(&solution, &child, None)?;
        replies.push(KpeReply {
            mv: mv.to_string(),
            value: v,
            position: child.to_string(),
            replies: moves_json(&answers),
            pv: notation(&reply_line.moves),
        });
    }
    Ok(KpeOpeningReport {
        start: summary,
        command: format!("sow openings {}", variant.tag()),
        peak_rss_mib: peak_rss_mib(),
        replies,
        seconds: t0.elapsed().as_secs_f64(),
    })
}
