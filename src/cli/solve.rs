//! `sow solve kpe[:WxK]`: builds (or completes) a variant's database and
//! reports the value of the start and of each first move.

use std::path::Path;
use std::time::Instant;

use serde_json::json;

use super::kpe_db::{self, peak_rss_mib};
use super::{CliError, Out};
use crate::games::kpe::KpeVariant;
use crate::progress::Progress;
use crate::solve::solution::Solution;

pub fn run(variant: KpeVariant, db: Option<&Path>, out: &mut Out) -> Result<(), CliError> {
    let dir = kpe_db::db_dir(db);
    let t0 = Instant::now();
    let (solution, stats) = Solution::build(variant, &dir, Progress::auto(out.quiet || out.json))?;
    let mut r = kpe_db::start_json(&solution, variant)?;
    r["layers_computed"] = json!(stats.layers_computed);
    r["layers_reused"] = json!(stats.layers_reused);
    r["db"] = json!(dir.display().to_string());
    r["seconds"] = json!(t0.elapsed().as_secs_f64());
    r["phase_seconds"] = json!({
        "layers": stats.layers_seconds,
        "opening_explore": stats.explore_seconds,
        "opening_solve": stats.region_seconds,
    });
    r["peak_rss_mib"] = json!(peak_rss_mib());
    if out.json {
        return out.json(&r);
    }
    out.line(format!(
        "{} solved, database in {}",
        variant.tag(),
        dir.display()
    ))?;
    out.line(format!(
        "start value {:+} for South ({}), perfect play",
        r["value"].as_i64().unwrap_or(0),
        r["result"].as_str().unwrap_or("")
    ))?;
    for m in r["moves"].as_array().into_iter().flatten() {
        out.line(format!(
            "  first move {}: {:+}",
            m["move"].as_str().unwrap_or(""),
            m["value"].as_i64().unwrap_or(0)
        ))?;
    }
    let pv = kpe_db::strings(&r["pv"]);
    out.line(format!(
        "principal variation ({} moves, ends by {}): {}",
        pv.len(),
        r["pv_ends_by"].as_str().unwrap_or(""),
        pv.join(" ")
    ))?;
    let p = &r["positions"];
    out.line(format!(
        "positions: {} unlocked (endgame database), {} in the opening phase",
        p["unlocked"], p["opening_phase"]
    ))?;
    out.line(format!(
        "layers computed {}, reused {}",
        stats.layers_computed.len(),
        stats.layers_reused.len()
    ))?;
    out.line(format!(
        "time {:.1} s (endgame layers {:.1} s, opening phase: exploration {:.1} s, solution {:.1} s), peak memory {} MiB",
        t0.elapsed().as_secs_f64(),
        stats.layers_seconds,
        stats.explore_seconds,
        stats.region_seconds,
        peak_rss_mib().map_or("?".to_string(), |p| format!("{p:.0}"))
    ))
}
