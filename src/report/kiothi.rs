//! The Kiothi report: pictures of the engine matches and of the opening
//! estimate, and the pages that show them, all rendered from the summary
//! JSON written by `sow report` (`kiothi/report.json`).

use serde_json::Value;

use super::svg::{BarChart, HBarChart, LineChart, Point};
use crate::analysis::elo::Elo;

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

fn list(v: &Value) -> impl Iterator<Item = &Value> {
    v.as_array().into_iter().flatten()
}

/// A signed figure (an Elo difference, a value): `+123`, `-2`, `+inf`,
/// `-inf`; `n/a` when absent.
pub fn signed(v: &Value) -> String {
    match v {
        // Rounded first, and -0 made +0: -0.4 is written +0, not -0.
        Value::Number(n) => format!("{:+.0}", n.as_f64().unwrap_or(0.0).round() + 0.0),
        Value::String(s) => s.clone(),
        _ => "n/a".into(),
    }
}

/// A share as a percentage: `62.5%`.
pub fn pct(v: &Value) -> String {
    format!("{:.1}%", 100.0 * num(v))
}

/// A finite Elo interval for a whisker, infinite bounds kept (drawn to the edge).
fn interval(m: &Value) -> Option<(f64, f64)> {
    let (lo, hi) = (
        Elo::from_json(&m["elo_low"]),
        Elo::from_json(&m["elo_high"]),
    );
    (!lo.is_nan() && !hi.is_nan()).then_some((lo, hi))
}

fn pairing(m: &Value) -> String {
    format!("{} vs {}", text(&m["a"]), text(&m["b"]))
}

/// A row of the match table (see [`match_table_head`]).
pub fn match_row(m: &Value) -> String {
    format!(
        "| `{}` | `{}` | {} | {}/{}/{} | {} | {} | {} .. {} | {:.1} | {} ({} of {}) | {:.0} ({:.0}) |\n",
        text(&m["a"]),
        text(&m["b"]),
        m["games"],
        m["wins"],
        m["draws"],
        m["losses"],
        pct(&m["score"]),
        signed(&m["elo"]),
        signed(&m["elo_low"]),
        signed(&m["elo_high"]),
        num(&m["avg_plies"]),
        pct(&m["one_warrior_share"]),
        m["one_warrior_victories"],
        m["decided"],
        num(&m["seconds"]),
        num(&m["estimated_seconds"]),
    )
}

pub fn match_table_head(summary: &Value) -> String {
    format!(
        "| A | B | games | +/=/- | score | Elo | {}% interval | avg plies | one-warrior victories (of decided games) | seconds (estimated) |\n|---|---|---|---|---|---|---|---|---|---|\n",
        summary["confidence_percent"]
    )
}

/// A row of the ladder table.
pub fn ladder_row(p: &Value) -> String {
    let result = |r: &Value| {
        if r.is_null() {
            "—".to_string()
        } else {
            format!(
                "{} over {} games: {} ({} .. {})",
                pct(&r["score"]),
                r["games"],
                signed(&r["elo"]),
                signed(&r["elo_low"]),
                signed(&r["elo_high"])
            )
        }
    };
    let vs_reference = if p["is_reference"] == true {
        "the reference".to_string()
    } else {
        result(&p["vs_reference"])
    };
    format!(
        "| {} | `{}` | {} | {} | {} |\n",
        p["seconds"],
        text(&p["agent"]),
        result(&p["doubling"]),
        signed(&p["chained_elo"]),
        vs_reference
    )
}

/// Elo against thinking time: the gain of each doubling, the gains summed
/// from the shortest time, and the result against the fixed reference.
pub fn elo_time_chart(summary: &Value) -> String {
    let ladder = &summary["ladder"];
    let points: Vec<&Value> = list(&ladder["points"]).collect();
    let at = |p: &Value, y: f64, interval: Option<(f64, f64)>| Point {
        x: num(&p["seconds"]),
        y,
        interval,
    };
    let reference: Vec<Point> = points
        .iter()
        .map(|p| {
            if p["is_reference"] == true {
                at(p, 0.0, None)
            } else {
                let r = &p["vs_reference"];
                at(p, Elo::from_json(&r["elo"]), interval(r))
            }
        })
        .collect();
    let chained: Vec<Point> = points
        .iter()
        .map(|p| at(p, Elo::from_json(&p["chained_elo"]), None))
        .collect();
    let doubling: Vec<Point> = points
        .iter()
        .filter(|p| !p["doubling"].is_null())
        .map(|p| {
            at(
                p,
                Elo::from_json(&p["doubling"]["elo"]),
                interval(&p["doubling"]),
            )
        })
        .collect();
    LineChart {
        title: "Kiothi: Elo of the engine ab:time=T against its thinking time T".into(),
        x_label: "seconds per move T (log2 scale)".into(),
        y_label: "Elo (95% interval)".into(),
        series: vec![
            (format!("vs {}", text(&ladder["reference"])), reference),
            (
                format!("doublings summed from {}", text(&ladder["base"])),
                chained,
            ),
            ("gain of each doubling (T vs T/2)".into(), doubling),
        ],
        log2_x: true,
    }
    .render()
}

/// Score of A per pairing.
pub fn scores_chart(summary: &Value) -> String {
    let matches: Vec<&Value> = list(&summary["matches"]).collect();
    HBarChart {
        title: "Kiothi: score of A in each pairing (A vs B)".into(),
        x_label: "score of A (%; win 1, draw 1/2)".into(),
        y_label: "pairing".into(),
        categories: matches.iter().map(|m| pairing(m)).collect(),
        values: matches.iter().map(|m| 100.0 * num(&m["score"])).collect(),
        value_labels: matches
            .iter()
            .map(|m| {
                format!(
                    "{} ({}/{}/{})",
                    pct(&m["score"]),
                    m["wins"],
                    m["draws"],
                    m["losses"]
                )
            })
            .collect(),
        range: Some((0.0, 100.0)),
    }
    .render()
}

/// Histogram of game lengths over every game played.
pub fn lengths_chart(summary: &Value) -> String {
    let lengths = &summary["game_lengths"];
    let bins: Vec<&Value> = list(&lengths["bins"]).collect();
    BarChart {
        title: format!("Kiothi: length of the {} games played", lengths["games"]),
        x_label: "plies in the game (random opening plies included)".into(),
        y_label: "games".into(),
        categories: bins
            .iter()
            .map(|b| format!("{}-{}", b["from"], b["to"]))
            .collect(),
        series: vec![(
            "games".into(),
            bins.iter().map(|b| num(&b["games"])).collect(),
        )],
        stacked: false,
        log_y: false,
    }
    .render()
}

/// Share of decided games won by exactly two warriors, per pairing.
pub fn one_warrior_chart(summary: &Value) -> String {
    let matches: Vec<&Value> = list(&summary["matches"]).collect();
    HBarChart {
        title: "Kiothi: one-warrior victories per pairing".into(),
        x_label: "share of decided games won by exactly two warriors (%)".into(),
        y_label: "pairing".into(),
        categories: matches.iter().map(|m| pairing(m)).collect(),
        values: matches
            .iter()
            .map(|m| 100.0 * num(&m["one_warrior_share"]))
            .collect(),
        value_labels: matches
            .iter()
            .map(|m| {
                format!(
                    "{} ({} of {})",
                    pct(&m["one_warrior_share"]),
                    m["one_warrior_victories"],
                    m["decided"]
                )
            })
            .collect(),
        range: Some((0.0, 100.0)),
    }
    .render()
}

fn depth_label(m: &Value) -> String {
    if m["exact"] == true {
        format!("{:+}, exact", m["value"].as_i64().unwrap_or(0))
    } else {
        format!(
            "{:+}, depth {}",
            m["value"].as_i64().unwrap_or(0),
            m["depth"]
        )
    }
}

/// Estimated value of South's best opening redistributions, with the depth
/// of the search that estimated each.
pub fn openings_chart(summary: &Value) -> String {
    let moves: Vec<&Value> = list(&summary["openings"]["moves"]).collect();
    HBarChart {
        title: "Kiothi: South's best opening redistributions found".into(),
        x_label: "estimated value for South (stones; label: value, search depth)".into(),
        y_label: "opening move".into(),
        categories: moves.iter().map(|m| text(&m["move"]).to_string()).collect(),
        values: moves.iter().map(|m| num(&m["value"])).collect(),
        value_labels: moves.iter().map(|m| depth_label(m)).collect(),
        range: None,
    }
    .render()
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The start position with South's best opening move found: lifted pits
/// outlined, the warriors placed in each pit written `+n`.
pub fn board_diagram(summary: &Value) -> String {
    const W: usize = 10;
    const CELL: f64 = 60.0;
    let best = &summary["openings"]["best"];
    let start = text(&summary["start"]);
    let pits: Vec<u64> = start
        .split_whitespace()
        .nth(1)
        .unwrap_or("")
        .split(',')
        .map(|c| c.trim_end_matches('*').parse().unwrap_or(0))
        .collect();
    let lifted: Vec<u64> = list(&best["lifted"]).filter_map(Value::as_u64).collect();
    let placed: Vec<u64> = list(&best["placed"]).filter_map(Value::as_u64).collect();
    let mut s = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="740" height="310" viewBox="0 0 740 310" font-family="sans-serif" font-size="13">
<rect width="100%" height="100%" fill="white"/>
<text x="10" y="20" font-size="15">Kiothi start: South's best opening redistribution found</text>
<text x="10" y="40" fill="#495057">{}</text>
"##,
        escape(start)
    );
    for (i, &count) in pits.iter().enumerate() {
        // North's row on top, pit 19 above pit 0 (opposite pits face each other).
        let (col, row) = if i < W { (i, 1) } else { (2 * W - 1 - i, 0) };
        let x = 80.0 + CELL * col as f64;
        let y = 70.0 + 90.0 * row as f64;
        let stroke = if lifted.contains(&(i as u64)) {
            r##"stroke="#c92a2a" stroke-width="4""##
        } else {
            r##"stroke="#495057""##
        };
        let w = CELL - 8.0;
        s += &format!(
            r##"<rect x="{x}" y="{y}" width="{w}" height="50" rx="20" fill="#f8f0e3" {stroke}/><text x="{cx}" y="{ty}" text-anchor="middle" font-size="18">{count}</text><text x="{cx}" y="{ly}" text-anchor="middle" fill="#868e96">pit {i}</text>
"##,
            cx = x + w / 2.0,
            ty = y + 31.0,
            ly = if row == 0 { y - 6.0 } else { y + 66.0 },
        );
        let add = placed.get(i).copied().unwrap_or(0);
        if add > 0 {
            s += &format!(
                r##"<text x="{}" y="{}" text-anchor="middle" fill="#2b8a3e" font-weight="bold">+{add}</text>
"##,
                x + w - 2.0,
                y + 12.0
            );
        }
    }
    let caption = format!(
        "best found: {} (value {} for South, depth {})",
        text(&best["move"]),
        signed(&best["value"]),
        best["depth"]
    );
    s += &format!(
        r##"<text x="10" y="100">North</text><text x="10" y="190">South</text><text x="10" y="250">{}</text><text x="10" y="270" fill="#495057">red outline: the lifted pits; green +n: warriors placed in the pit</text><text x="10" y="290" fill="#495057">after: {}</text>
</svg>
"##,
        escape(&caption),
        escape(text(&best["after"]))
    );
    s
}

/// The provenance line every Kiothi page starts with.
pub fn provenance(summary: &Value) -> String {
    format!(
        "Generated by `{}` (sow {}) on {}, {}, in {:.1} s (estimated {:.0} s). Engines with a time limit think on a shared machine: their strength depends on its load.",
        text(&summary["command"]),
        text(&summary["version"]),
        text(&summary["date"]),
        text(&summary["machine"]),
        num(&summary["seconds"]),
        num(&summary["estimated_seconds"])
    )
}

/// How openings were balanced (`sow match --balance`), if they were.
fn balance_text(balance: &Value) -> String {
    if balance.is_null() {
        return String::new();
    }
    format!(
        ", kept only when balanced: a random opening is played when its expected final margin (the stones captured in the opening plus the value of a one-thread search to depth {}) is within {} stones of even, else another is drawn, since an opening lost for one colour gives both games of its pair to that colour whoever plays it",
        balance["depth"], balance["margin"]
    )
}

fn method(summary: &Value) -> String {
    format!(
        "Each pairing A vs B plays from `{}`: seeded random openings ({} random plies, the two redistributions included; seed {}){}, each played twice with colours swapped, {} games in parallel, a game stopped after {} plies. Every pairing plays the same openings, in the same order. Score and Elo are for A; intervals are {}%. Game records (JSON lines) are in `games/`.",
        text(&summary["start"]),
        summary["opening_plies"],
        summary["seed"],
        balance_text(&summary["balance"]),
        summary["parallel_games"],
        summary["ply_cap"],
        summary["confidence_percent"]
    )
}

fn match_table(summary: &Value) -> String {
    let mut md = match_table_head(summary);
    for m in list(&summary["matches"]) {
        md += &match_row(m);
    }
    md
}

/// One headline sentence per pairing of the default engine.
pub fn headline(m: &Value) -> String {
    format!(
        "`{}` against `{}`: {} over {} games (+{} ={} -{}), Elo {} ({} .. {})",
        text(&m["a"]),
        text(&m["b"]),
        pct(&m["score"]),
        m["games"],
        m["wins"],
        m["draws"],
        m["losses"],
        signed(&m["elo"]),
        signed(&m["elo_low"]),
        signed(&m["elo_high"])
    )
}

/// The score table's pairings of the default engine.
fn engine_matches(summary: &Value) -> impl Iterator<Item = &Value> {
    list(&summary["matches"])
        .filter(move |m| m["a"] == summary["engine"] && m["group"] == "baseline")
}

/// The report page, rendered from the summary.
pub fn page(summary: &Value) -> String {
    let mut md = format!("# Kiothi engine report\n\n{}\n\n", provenance(summary));
    md += &format!(
        "**The default engine `{}`**, the alpha-beta search with a time limit per move:\n\n",
        text(&summary["engine"])
    );
    for m in engine_matches(summary) {
        md += &format!("- {}\n", headline(m));
    }
    md += &format!("\n## Score table\n\n{}\n\n", method(summary));
    md += &match_table(summary);
    md += "\n![score per pairing](scores.svg)\n\n";

    let ladder = &summary["ladder"];
    md += &format!(
        "## Elo against thinking time\n\nThe engine `ab:time=T` at each time T plays the engine with half of T ({} games; the gain of that doubling) and the fixed reference `{}`. The middle column sums the doubling gains from `{}`. While doubling the time gains Elo, the curves rise; where the gains stop, they flatten. Points at an infinite Elo (a score of 0 or 1) are left out of the picture.\n\n",
        ladder["games"],
        text(&ladder["reference"]),
        text(&ladder["base"])
    );
    md += "| seconds per move | agent | against half the time: score, Elo (interval) | doublings summed | against the reference: score, Elo (interval) |\n|---|---|---|---|---|\n";
    for p in list(&ladder["points"]) {
        md += &ladder_row(p);
    }
    md += "\n![Elo against thinking time](elo-time.svg)\n\n";

    let g = &summary["game_lengths"];
    md += &format!(
        "## Game lengths\n\n{} games, from {} to {} plies (median {}, mean {:.1}). {} ended with no legal move, {} by repetition, {} at the ply cap.\n\n![game lengths](game-lengths.svg)\n\n| plies | games |\n|---|---|\n",
        g["games"],
        g["min"],
        g["max"],
        g["median"],
        num(&g["mean"]),
        g["ends"]["over"],
        g["ends"]["repetition"],
        g["ends"]["ply_cap"]
    );
    for b in list(&g["bins"]) {
        md += &format!("| {}-{} | {} |\n", b["from"], b["to"], b["games"]);
    }

    let w = &summary["one_warrior"];
    md += &format!(
        "\n## One-warrior victories\n\nA win by exactly two warriors is a one-warrior victory. Over all pairings, {} of {} decided games ({}) ended so; per pairing in the score table and below.\n\n![one-warrior victories](one-warrior.svg)\n\n",
        w["victories"],
        w["decided"],
        pct(&w["share"])
    );

    let o = &summary["openings"];
    md += &format!(
        "## Opening redistributions\n\nEstimated by search from `{}` ([opening report](openings.md), {:.0} s): {} candidates out of {} legal first moves, the best searched {} s each. Values are estimates for South, not exact.\n\n![start position and best opening found](start-board.svg)\n\n| move | value for South | depth | exact |\n|---|---|---|---|\n",
        text(&o["position"]),
        num(&o["seconds"]),
        o["candidates"],
        o["legal_moves"],
        o["budget_seconds"]
    );
    for m in list(&o["moves"]) {
        md += &format!(
            "| {} | {} | {} | {} |\n",
            text(&m["move"]),
            signed(&m["value"]),
            m["depth"],
            if m["exact"] == true { "yes" } else { "no" }
        );
    }
    md += "\n![value of the best opening redistributions](openings.svg)\n";
    md
}

/// `strength.md`: the match table alone.
pub fn strength_page(summary: &Value) -> String {
    format!(
        "# Kiothi engine strength\n\n{}\n\n{}\n\n{}\nPictures, the Elo-against-time ladder and the game lengths: [report.md](report.md).\n",
        provenance(summary),
        method(summary),
        match_table(summary)
    )
}

/// The Kiothi line of the results index (`results/README.md`).
pub fn index_line(summary: &Value) -> String {
    let heads: Vec<String> = engine_matches(summary).map(headline).collect();
    format!(
        "- **Kiothi engine** — {}. [Report with pictures](kiothi/report.md) (Elo against thinking time, game lengths, one-warrior victories), [strength table](kiothi/strength.md), [opening estimates](kiothi/openings.md).\n",
        heads.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn signed_elo_rounds_before_its_sign() {
        assert_eq!(signed(&json!(-0.4)), "+0");
        assert_eq!(signed(&json!(-0.6)), "-1");
        assert_eq!(signed(&json!(76.2)), "+76");
        assert_eq!(signed(&json!("+inf")), "+inf");
    }
}
