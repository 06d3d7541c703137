//! `sow solve kpe[:WxK]`'s text: the start's value, first moves and line,
//! the database's size, and how the build went.

use super::over_ranks::ranks_line;
use crate::analysis::kpe_solve::{BuildFigures, KpeEndgameBuild, KpeSolve};
use crate::kpe_db::estimate::Estimate;

/// A whole solve.
pub fn text(s: &KpeSolve) -> Vec<String> {
    let (r, b) = (&s.start, &s.build);
    let mut lines = vec![
        format!("{} solved, database in {}", s.tag, b.db),
        format!(
            "start value {:+} for South ({}), perfect play",
            r.value, r.result
        ),
    ];
    lines.extend(
        r.moves
            .iter()
            .map(|m| format!("  first move {}: {:+}", m.mv, m.value)),
    );
    lines.push(format!(
        "principal variation ({} moves, ends by {}): {}",
        r.pv.len(),
        r.pv_ends_by,
        r.pv.join(" ")
    ));
    lines.extend(b.estimate.map(|e| estimate_line(&e, b.out_of_core)));
    lines.push(format!(
        "positions: {} unlocked (endgame database), {} in the opening phase",
        r.positions.unlocked, r.positions.opening_phase
    ));
    lines.push(layers_line(b));
    if b.out_of_core {
        lines.push(
            "opening region built out of core (scratch files mapped from the database directory)"
                .into(),
        );
    }
    if let Some(r) = b.region_resumed {
        lines.push(format!(
            "opening region resumed from an interrupted build: {} of {} stone counts explored and {} of {} runs of groups solved were reused",
            r.stone_counts_reused, r.stone_counts, r.runs_reused, r.runs
        ));
    }
    let p = &s.phase_seconds;
    lines.push(format!(
        "time {:.1} s (endgame layers {:.1} s{}; opening phase: exploration {:.1} s, solution {:.1} s), peak memory {}",
        b.seconds,
        p.layers,
        layer_steps_note(b, ": ", ""),
        p.opening_explore,
        p.opening_solve,
        peak(b)
    ));
    lines.extend(s.ranks.as_ref().map(ranks_line));
    lines
}

/// The endgame layers alone.
pub fn endgame_text(e: &KpeEndgameBuild) -> Vec<String> {
    let b = &e.build;
    let mut lines = vec![
        format!(
            "{0} endgame database built in {1} (no opening region: `sow solve {0}` adds it)",
            e.variant, b.db
        ),
        format!("positions: {} unlocked", e.unlocked_positions),
        layers_line(b),
    ];
    lines.extend(
        b.estimate
            .map(|e| format!("estimate before building: {}", e.summary())),
    );
    lines.push(format!(
        "time {:.1} s{}, peak memory {}",
        b.seconds,
        layer_steps_note(b, " (", ")"),
        peak(b)
    ));
    lines.extend(e.ranks.as_ref().map(ranks_line));
    lines
}

fn peak(b: &BuildFigures) -> String {
    b.peak_rss_mib
        .map_or("?".to_string(), |p| format!("{p:.0}"))
        + " MiB"
}

/// "layers computed N, reused M", and where shared ones came from.
fn layers_line(b: &BuildFigures) -> String {
    let mut from: Vec<&str> = b.layers_shared.iter().map(|(_, v)| v.as_str()).collect();
    // Each variant once, even if the layers' sources alternate.
    from.sort_unstable();
    from.dedup();
    let shared = match b.layers_shared.len() {
        0 => String::new(),
        count => format!(" ({count} of them from {})", from.join(", ")),
    };
    format!(
        "layers computed {}, reused {}{shared}",
        b.layers_computed.len(),
        b.layers_reused.len()
    )
}

/// What the solve was estimated to need before it started, in MiB.
fn estimate_line(e: &Estimate, out_of_core: bool) -> String {
    let mib = |b: u64| b >> 20;
    let avail = |b: Option<u64>| b.map_or("?".to_string(), |b| format!("{}", mib(b)));
    let (memory, scratch) = match out_of_core {
        false => (e.memory, String::new()),
        true => (
            e.memory_out_of_core,
            format!(" and {} MiB of scratch", mib(e.scratch_disk)),
        ),
    };
    format!(
        "estimate before solving: memory {} MiB ({} available), disk {} MiB{scratch} ({} available)",
        mib(memory),
        avail(e.memory_available),
        mib(e.disk),
        avail(e.disk_available)
    )
}

/// `before` then "exits A s, thresholds B s, endings C s" then `after`
/// when the solve computed layers, else nothing.
fn layer_steps_note(b: &BuildFigures, before: &str, after: &str) -> String {
    let s = b.layer_steps;
    if b.layers_computed.is_empty() {
        return String::new();
    }
    format!(
        "{before}exits {:.1} s, thresholds {:.1} s, endings {:.1} s{after}",
        s.exits, s.thresholds, s.endings
    )
}
