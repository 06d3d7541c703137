//! The Kiothi report: pictures of the engine matches and of the opening
//! estimate, and the pages that show them, all rendered from the report
//! model (`KiothiReport`, written as `kiothi/report.json` by `sow report`).

use super::svg::{escape, kiothi_pit_cells, BarChart, HBarChart, LineChart, Point};
use crate::analysis::elo::Elo;
use crate::analysis::kiothi_report::{KiothiReport, MatchResult, MatchRow};
use crate::analysis::matches::Balance;

/// A signed value: `+3`, `+0`, `-2` (an Elo is written by [`Elo`]'s own
/// `Display`: `+123`, `+inf`, `n/a`).
pub fn signed(v: i32) -> String {
    format!("{v:+}")
}

/// A share as a percentage: `62.5%`.
pub fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// A figure as the JSON writes it (`1.0`, `0.015625`).
fn figure(x: f64) -> String {
    serde_json::Number::from_f64(x).map_or("null".into(), |n| n.to_string())
}

/// A finite Elo interval for a whisker, infinite bounds kept (drawn to the edge).
fn interval(lo: Elo, hi: Elo) -> Option<(f64, f64)> {
    (!lo.0.is_nan() && !hi.0.is_nan()).then_some((lo.0, hi.0))
}

fn pairing(m: &MatchRow) -> String {
    format!("{} vs {}", m.a, m.b)
}

/// A row of the match table (see [`match_table_head`]).
pub fn match_row(m: &MatchRow) -> String {
    format!(
        "| `{}` | `{}` | {} | {}/{}/{} | {} | {} | {} .. {} | {:.1} | {} ({} of {}) | {:.0} ({:.0}) |\n",
        m.a,
        m.b,
        m.games,
        m.wins,
        m.draws,
        m.losses,
        pct(m.score),
        m.elo,
        m.elo_low,
        m.elo_high,
        m.avg_plies,
        pct(m.one_warrior_share),
        m.one_warrior_victories,
        m.decided,
        m.seconds,
        m.estimated_seconds,
    )
}

pub fn match_table_head(summary: &KiothiReport) -> String {
    format!(
        "| A | B | games | +/=/- | score | Elo | {}% interval | avg plies | one-warrior victories (of decided games) | seconds (estimated) |\n|---|---|---|---|---|---|---|---|---|---|\n",
        summary.confidence_percent
    )
}

/// A row of the ladder table.
pub fn ladder_row(p: &crate::analysis::kiothi_report::LadderPoint) -> String {
    let result = |r: &Option<MatchResult>| match r {
        None => "—".to_string(),
        Some(r) => format!(
            "{} over {} games: {} ({} .. {})",
            pct(r.score),
            r.games,
            r.elo,
            r.elo_low,
            r.elo_high
        ),
    };
    let vs_reference = if p.is_reference {
        "the reference".to_string()
    } else {
        result(&p.vs_reference)
    };
    format!(
        "| {} | `{}` | {} | {} | {} |\n",
        figure(p.seconds),
        p.agent,
        result(&p.doubling),
        p.chained_elo,
        vs_reference
    )
}

/// Elo against thinking time: the gain of each doubling, the gains summed
/// from the shortest time, and the result against the fixed reference.
pub fn elo_time_chart(summary: &KiothiReport) -> String {
    let ladder = &summary.ladder;
    let at = |seconds: f64, y: f64, interval: Option<(f64, f64)>| Point {
        x: seconds,
        y,
        interval,
    };
    let of = |seconds: f64, r: &MatchResult| at(seconds, r.elo.0, interval(r.elo_low, r.elo_high));
    let reference: Vec<Point> = ladder
        .points
        .iter()
        .map(|p| match (&p.vs_reference, p.is_reference) {
            (Some(r), false) => of(p.seconds, r),
            (None, false) => at(p.seconds, f64::NAN, None),
            (_, true) => at(p.seconds, 0.0, None),
        })
        .collect();
    let chained: Vec<Point> = ladder
        .points
        .iter()
        .map(|p| at(p.seconds, p.chained_elo.0, None))
        .collect();
    let doubling: Vec<Point> = ladder
        .points
        .iter()
        .filter_map(|p| p.doubling.as_ref().map(|d| of(p.seconds, d)))
        .collect();
    LineChart {
        title: "Kiothi: Elo of the engine ab:time=T against its thinking time T".into(),
        x_label: "seconds per move T (log2 scale)".into(),
        y_label: "Elo (95% interval)".into(),
        series: vec![
            (format!("vs {}", ladder.reference), reference),
            (format!("doublings summed from {}", ladder.base), chained),
            ("gain of each doubling (T vs T/2)".into(), doubling),
        ],
        log2_x: true,
    }
    .render()
}

/// Score of A per pairing.
pub fn scores_chart(summary: &KiothiReport) -> String {
    let matches = &summary.matches;
    HBarChart {
        title: "Kiothi: score of A in each pairing (A vs B)".into(),
        x_label: "score of A (%; win 1, draw 1/2)".into(),
        y_label: "pairing".into(),
        categories: matches.iter().map(pairing).collect(),
        values: matches.iter().map(|m| 100.0 * m.score).collect(),
        value_labels: matches
            .iter()
            .map(|m| format!("{} ({}/{}/{})", pct(m.score), m.wins, m.draws, m.losses))
            .collect(),
        range: Some((0.0, 100.0)),
    }
    .render()
}

/// Histogram of game lengths over every game played.
pub fn lengths_chart(summary: &KiothiReport) -> String {
    let lengths = &summary.game_lengths;
    BarChart {
        title: format!("Kiothi: length of the {} games played", lengths.games),
        x_label: "plies in the game (random opening plies included)".into(),
        y_label: "games".into(),
        categories: lengths
            .bins
            .iter()
            .map(|b| format!("{}-{}", b.from, b.to))
            .collect(),
        series: vec![(
            "games".into(),
            lengths.bins.iter().map(|b| b.games as f64).collect(),
        )],
        stacked: false,
        log_y: false,
    }
    .render()
}

/// Share of decided games won by exactly two warriors, per pairing.
pub fn one_warrior_chart(summary: &KiothiReport) -> String {
    let matches = &summary.matches;
    HBarChart {
        title: "Kiothi: one-warrior victories per pairing".into(),
        x_label: "share of decided games won by exactly two warriors (%)".into(),
        y_label: "pairing".into(),
        categories: matches.iter().map(pairing).collect(),
        values: matches
            .iter()
            .map(|m| 100.0 * m.one_warrior_share)
            .collect(),
        value_labels: matches
            .iter()
            .map(|m| {
                format!(
                    "{} ({} of {})",
                    pct(m.one_warrior_share),
                    m.one_warrior_victories,
                    m.decided
                )
            })
            .collect(),
        range: Some((0.0, 100.0)),
    }
    .render()
}

fn depth_label(m: &crate::analysis::kiothi_openings::ScoredMove) -> String {
    if m.exact {
        format!("{:+}, exact", m.value)
    } else {
        format!("{:+}, depth {}", m.value, m.depth)
    }
}

/// Estimated value of South's best opening redistributions, with the depth
/// of the search that estimated each.
pub fn openings_chart(summary: &KiothiReport) -> String {
    let moves = &summary.openings.moves;
    HBarChart {
        title: "Kiothi: South's best opening redistributions found".into(),
        x_label: "estimated value for South (stones; label: value, search depth)".into(),
        y_label: "opening move".into(),
        categories: moves.iter().map(|m| m.mv.clone()).collect(),
        values: moves.iter().map(|m| m.value as f64).collect(),
        value_labels: moves.iter().map(depth_label).collect(),
        range: None,
    }
    .render()
}

/// The start position with South's best opening move found: lifted pits
/// outlined, the warriors placed in each pit written `+n`.
pub fn board_diagram(summary: &KiothiReport) -> String {
    let best = &summary.openings.best;
    let start = summary.start.as_str();
    let pits: Vec<u64> = start
        .split_whitespace()
        .nth(1)
        .unwrap_or("")
        .split(',')
        .map(|c| c.trim_end_matches('*').parse().unwrap_or(0))
        .collect();
    let lifted: Vec<u64> = best.lifted.iter().map(|&p| p as u64).collect();
    let placed: Vec<u64> = best.placed.iter().map(|&c| c as u64).collect();
    let mut s = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="740" height="310" viewBox="0 0 740 310" font-family="sans-serif" font-size="13">
<rect width="100%" height="100%" fill="white"/>
<text x="10" y="20" font-size="15">Kiothi start: South's best opening redistribution found</text>
<text x="10" y="40" fill="#495057">{}</text>
"##,
        escape(start)
    );
    s += &kiothi_pit_cells(&pits, &lifted, &placed);
    let caption = format!(
        "best found: {} (value {} for South, depth {})",
        best.mv,
        signed(best.value),
        best.depth
    );
    s += &format!(
        r##"<text x="10" y="100">North</text><text x="10" y="190">South</text><text x="10" y="250">{}</text><text x="10" y="270" fill="#495057">red outline: the lifted pits; green +n: warriors placed in the pit</text><text x="10" y="290" fill="#495057">after: {}</text>
</svg>
"##,
        escape(&caption),
        escape(best.after.as_deref().unwrap_or(""))
    );
    s
}

/// The provenance line every Kiothi page starts with.
pub fn provenance(summary: &KiothiReport) -> String {
    format!(
        "Generated by `{}` (sow {}) on {}, {}, in {:.1} s (estimated {:.0} s). Engines with a time limit think on a shared machine: their strength depends on its load.",
        summary.command,
        summary.version,
        summary.date,
        summary.machine,
        summary.seconds,
        summary.estimated_seconds
    )
}

/// How openings were balanced (`sow match --balance`), if they were.
fn balance_text(balance: Option<&Balance>) -> String {
    let Some(balance) = balance else {
        return String::new();
    };
    format!(
        ", kept only when balanced: a random opening is played when its expected final margin (the stones captured in the opening plus the value of a one-thread search to depth {}) is within {} stones of even, else another is drawn, since an opening lost for one colour gives both games of its pair to that colour whoever plays it",
        balance.depth, balance.margin
    )
}

fn method(summary: &KiothiReport) -> String {
    format!(
        "Each pairing A vs B plays from `{}`: seeded random openings ({} random plies, the two redistributions included; seed {}){}, each played twice with colours swapped, {} games in parallel, a game stopped after {} plies. Every pairing plays the same openings, in the same order. Score and Elo are for A; intervals are {}%. Game records (JSON lines) are in `games/`.",
        summary.start,
        summary.opening_plies,
        summary.seed,
        balance_text(summary.balance.as_ref()),
        summary.parallel_games,
        summary.ply_cap,
        summary.confidence_percent
    )
}

fn match_table(summary: &KiothiReport) -> String {
    let mut md = match_table_head(summary);
    for m in &summary.matches {
        md += &match_row(m);
    }
    md
}

/// One headline sentence per pairing of the default engine.
pub fn headline(m: &MatchRow) -> String {
    format!(
        "`{}` against `{}`: {} over {} games (+{} ={} -{}), Elo {} ({} .. {})",
        m.a,
        m.b,
        pct(m.score),
        m.games,
        m.wins,
        m.draws,
        m.losses,
        m.elo,
        m.elo_low,
        m.elo_high
    )
}

/// The report page, rendered from the summary.
pub fn page(summary: &KiothiReport) -> String {
    let mut md = format!("# Kiothi engine report\n\n{}\n\n", provenance(summary));
    md += &format!(
        "**The default engine `{}`**, the alpha-beta search with a time limit per move:\n\n",
        summary.engine
    );
    for m in summary.engine_matches() {
        md += &format!("- {}\n", headline(m));
    }
    md += &format!("\n## Score table\n\n{}\n\n", method(summary));
    md += &match_table(summary);
    md += "\n![score per pairing](scores.svg)\n\n";

    let ladder = &summary.ladder;
    md += &format!(
        "## Elo against thinking time\n\nThe engine `ab:time=T` at each time T plays the engine with half of T ({} games; the gain of that doubling) and the fixed reference `{}`. The middle column sums the doubling gains from `{}`. While doubling the time gains Elo, the curves rise; where the gains stop, they flatten. Points at an infinite Elo (a score of 0 or 1) are left out of the picture.\n\n",
        ladder.games, ladder.reference, ladder.base
    );
    md += "| seconds per move | agent | against half the time: score, Elo (interval) | doublings summed | against the reference: score, Elo (interval) |\n|---|---|---|---|---|\n";
    for p in &ladder.points {
        md += &ladder_row(p);
    }
    md += "\n![Elo against thinking time](elo-time.svg)\n\n";

    let g = &summary.game_lengths;
    md += &format!(
        "## Game lengths\n\n{} games, from {} to {} plies (median {}, mean {:.1}). {} ended with no legal move, {} by repetition, {} at the ply cap.\n\n![game lengths](game-lengths.svg)\n\n| plies | games |\n|---|---|\n",
        g.games,
        g.min,
        g.max,
        figure(g.median),
        g.mean,
        g.ends.over,
        g.ends.repetition,
        g.ends.ply_cap
    );
    for b in &g.bins {
        md += &format!("| {}-{} | {} |\n", b.from, b.to, b.games);
    }

    let w = &summary.one_warrior;
    md += &format!(
        "\n## One-warrior victories\n\nA win by exactly two warriors is a one-warrior victory. Over all pairings, {} of {} decided games ({}) ended so; per pairing in the score table and below.\n\n![one-warrior victories](one-warrior.svg)\n\n",
        w.victories,
        w.decided,
        pct(w.share)
    );

    let o = &summary.openings;
    md += &format!(
        "## Opening redistributions\n\nEstimated by search from `{}` ([candidate openings](candidate-openings.md); the opening book's page: [openings](openings.md), {:.0} s): {} candidates out of {} legal first moves, the best searched {} s each. Values are estimates for South, not exact.\n\n![start position and best opening found](start-board.svg)\n\n| move | value for South | depth | exact |\n|---|---|---|---|\n",
        o.position,
        o.seconds,
        o.candidates,
        o.legal_moves,
        figure(o.budget_seconds)
    );
    for m in &o.moves {
        md += &format!(
            "| {} | {} | {} | {} |\n",
            m.mv,
            signed(m.value),
            m.depth,
            if m.exact { "yes" } else { "no" }
        );
    }
    md += "\n![value of the best opening redistributions](openings.svg)\n";
    md
}

/// `strength.md`: the match table alone.
pub fn strength_page(summary: &KiothiReport) -> String {
    format!(
        "# Kiothi engine strength\n\n{}\n\n{}\n\n{}\nPictures, the Elo-against-time ladder and the game lengths: [report.md](report.md).\n",
        provenance(summary),
        method(summary),
        match_table(summary)
    )
}

/// The Kiothi line of the results index (`results/README.md`).
pub fn index_line(summary: &KiothiReport) -> String {
    let heads: Vec<String> = summary.engine_matches().map(headline).collect();
    format!(
        "- **Kiothi engine** — {}. [Report with pictures](kiothi/report.md) (Elo against thinking time, game lengths, one-warrior victories), [strength table](kiothi/strength.md), [opening estimates](kiothi/openings.md).\n",
        heads.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_elo_rounds_before_its_sign() {
        assert_eq!(Elo(-0.4).to_string(), "+0");
        assert_eq!(Elo(-0.6).to_string(), "-1");
        assert_eq!(Elo(76.2).to_string(), "+76");
        assert_eq!(Elo(f64::INFINITY).to_string(), "+inf");
        assert_eq!(signed(0), "+0");
    }

    #[test]
    fn the_saved_report_reads_back_and_renders() {
        let text = include_str!("../../results/kiothi/report.json");
        let r: KiothiReport = serde_json::from_str(text).expect("report.json reads as the model");
        let again: serde_json::Value = serde_json::to_value(&r).unwrap();
        let saved: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(again, saved, "no key lost or added");
        assert!(page(&r).contains("## Elo against thinking time"));
        let text = include_str!("../../results/kiothi/candidate-openings.json");
        let o: crate::analysis::kiothi_openings::OpeningReport =
            serde_json::from_str(text).expect("candidate-openings.json reads as the model");
        let saved: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_value(&o).unwrap(), saved);
    }
}
