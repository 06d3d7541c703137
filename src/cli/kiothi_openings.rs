//! `sow openings kiothi[:five] [--time S]`: South's best opening
//! redistributions and North's best replies, estimated by search.
//!
//! Method: the opening has hundreds of millions of moves, so the engine's
//! candidate generator proposes structured families (warriors spread over
//! the own row or the whole board, own empty pits filled, one warrior fed
//! into each empty enemy pit, everything in the leftmost or the rightmost
//! pit) and seeded random placements for every pair of lifted pits. Every
//! candidate is ranked by a shallow search; the best are searched again
//! with the time budget; the same is done for North's replies to South's
//! top moves.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use serde_json::{json, Value};

use super::files::write_report;
use super::kpe_db::value_table;
use super::{CliError, Out};
use crate::games::kiothi::KiothiPosition;
use crate::progress::{Progress, ProgressBar};
use crate::search::negamax::Limits;
use crate::search::threads::search;
use crate::search::tt::TranspositionTable;
use crate::search::Searchable;
use crate::Game;

/// Depth of the ranking search of every candidate.
const RANK_DEPTH: u32 = 3;
/// Candidates searched again with the time budget.
const DEEPENED: usize = 8;
/// South moves whose replies are examined.
const REPLIED: usize = 3;

struct Scored {
    mv: String,
    child: KiothiPosition,
    value: i32,
    depth: u32,
    exact: bool,
}

/// Values, for the mover of `pos`, of its candidate moves: all ranked
/// shallowly, the best `DEEPENED` deepened with `seconds` each.
fn rank(
    pos: &KiothiPosition,
    seconds: f64,
    threads: usize,
    tt: &TranspositionTable,
    bar: &ProgressBar,
) -> (usize, Vec<Scored>) {
    let stop = AtomicBool::new(false);
    let value_of = |child: &KiothiPosition, limits: &Limits| {
        let gained = KiothiPosition::capture_gain(pos, child);
        if child.is_over() {
            return (gained + child.terminal_value(), 0, true);
        }
        let r = search(child, limits, threads, tt, &stop, &mut |_| {});
        (gained - r.value, r.depth + 1, r.exact)
    };
    let candidates = pos.search_moves();
    bar.set_length((candidates.len() + DEEPENED.min(candidates.len())) as u64);
    let mut scored: Vec<Scored> = candidates
        .iter()
        .map(|(mv, child)| {
            let (value, depth, exact) = value_of(child, &Limits::depth(RANK_DEPTH));
            bar.inc(1);
            Scored {
                mv: mv.to_string(),
                child: *child,
                value,
                depth,
                exact,
            }
        })
        .collect();
    scored.sort_by_key(|s| -s.value);
    for s in scored.iter_mut().take(DEEPENED) {
        let (value, depth, exact) = value_of(&s.child, &Limits::seconds(seconds));
        (s.value, s.depth, s.exact) = (value, depth, exact);
        bar.inc(1);
    }
    bar.finish_and_clear();
    let deepened = DEEPENED.min(scored.len());
    scored[..deepened].sort_by_key(|s| -s.value);
    (candidates.len(), scored)
}

fn moves_json(list: &[Scored], n: usize) -> Value {
    list.iter()
        .take(n)
        .map(|s| json!({"move": s.mv, "value": s.value, "depth": s.depth, "exact": s.exact}))
        .collect()
}

/// The opening report; a bar per ranking (South's moves, then North's
/// replies to each of South's best) counts the candidates ranked.
pub fn report(
    start: &KiothiPosition,
    seconds: f64,
    threads: usize,
    hash_mb: usize,
    progress: Progress,
) -> Value {
    let t0 = Instant::now();
    let tt = TranspositionTable::new(hash_mb);
    let bar = progress.count(0, "South", "candidates");
    let (count, south) = rank(start, seconds, threads, &tt, &bar);
    let mut replies = Vec::new();
    for (i, s) in south.iter().take(REPLIED).enumerate() {
        let bar = progress.count(0, format!("reply {}", i + 1), "candidates");
        let (n, north) = rank(&s.child, seconds / 2.0, threads, &tt, &bar);
        replies.push(json!({
            "move": s.mv,
            "value": s.value,
            "position": s.child.to_string(),
            "candidates": n,
            "legal_moves": s.child.move_count(),
            "replies": moves_json(&north, DEEPENED),
        }));
    }
    json!({
        "game": "kiothi",
        "position": start.to_string(),
        "legal_moves": start.move_count(),
        "candidates": count,
        "coverage": count as f64 / start.move_count().max(1) as f64,
        "method": format!(
            "candidate families and {} seeded random placements per pair of lifted pits; every candidate ranked by a depth-{RANK_DEPTH} search, the best {DEEPENED} searched {seconds} s each ({threads} threads); North's replies to South's best {REPLIED} moves the same way with half the time",
            crate::search::kiothi_random_samples()
        ),
        "moves": moves_json(&south, DEEPENED),
        "replies": replies,
        "seconds": t0.elapsed().as_secs_f64(),
        "command": format!("sow openings {} --time {seconds}", if start.board_sum() == 50 { "kiothi:five" } else { "kiothi" }),
    })
}

pub fn markdown(r: &Value) -> String {
    let mut md = String::from("# Kiothi openings, estimated by search\n\n");
    md += &format!(
        "Generated by `{}` (sow {}) on {}, {}, in {:.0} s. Values are estimates of the future margin for the player to move (RULES §0), not exact.\n\n",
        r["command"].as_str().unwrap_or(""),
        env!("CARGO_PKG_VERSION"),
        super::report::today(),
        super::report::machine(),
        r["seconds"].as_f64().unwrap_or(0.0)
    );
    md += &format!(
        "**Method.** {}.\n\n**Coverage.** {} candidates out of {} legal first moves ({:.2e} of them).\n\n## South's best redistributions\n\n",
        r["method"].as_str().unwrap_or(""),
        r["candidates"],
        r["legal_moves"],
        r["coverage"].as_f64().unwrap_or(0.0)
    );
    md += &value_table("move | value for South", &r["moves"]);
    for rep in r["replies"].as_array().into_iter().flatten() {
        md += &format!(
            "\n## North's replies to {} (value {:+} for South)\n\n{} candidates out of {} legal replies.\n\n",
            rep["move"].as_str().unwrap_or(""),
            rep["value"].as_i64().unwrap_or(0),
            rep["candidates"],
            rep["legal_moves"]
        );
        md += &value_table("reply | value for North", &rep["replies"]);
    }
    md
}

pub fn run(
    start: &KiothiPosition,
    seconds: Option<f64>,
    threads: usize,
    out_dir: &std::path::Path,
    out: &mut Out,
) -> Result<(), CliError> {
    super::search_eval::check_seconds(seconds)?;
    let progress = Progress::auto(out.quiet || out.json);
    let r = report(start, seconds.unwrap_or(1.0), threads, 256, progress);
    let dir = out_dir.join("kiothi");
    let stem = if start.board_sum() == 50 {
        "openings-five"
    } else {
        "openings"
    };
    let (md_path, json_path) = write_report(&dir, stem, &r, &markdown(&r))?;
    if out.json {
        return out.json(&r);
    }
    for m in r["moves"].as_array().into_iter().flatten() {
        out.line(format!(
            "{:+4}  {}",
            m["value"].as_i64().unwrap_or(0),
            m["move"].as_str().unwrap_or("")
        ))?;
    }
    out.line(format!(
        "wrote {} and {}",
        md_path.display(),
        json_path.display()
    ))
}
