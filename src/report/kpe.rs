//! The Kpé report: pictures of a solved variant and the page that shows
//! them, rendered from the models of `openings`, `stats` and `variants`.

use crate::analysis::kpe_openings::KpeOpeningReport;
use crate::analysis::kpe_report::KpeSummary;
use crate::analysis::kpe_stats::{KpeStats, StatsRow};
use crate::analysis::variants::VariantsTable;
use crate::games::kpe::{KpePosition, KpeVariant};

use super::svg::{BarChart, HeatMap};

/// Positions of one phase and stone count by value (`stats` rows).
fn rows_of<'a>(stats: &'a KpeStats, phase: &'a str) -> impl Iterator<Item = &'a StatsRow> + 'a {
    stats.rows.iter().filter(move |r| r.phase == phase)
}

/// Stacked win/draw/loss counts per stone count of the unlocked database.
pub fn values_chart(stats: &KpeStats) -> String {
    let rows: Vec<&StatsRow> = rows_of(stats, "unlocked").collect();
    let series = |count: fn(&StatsRow) -> u64| rows.iter().map(|r| count(r) as f64).collect();
    BarChart {
        title: format!(
            "Kpé {}: values of unlocked positions, for the player to move",
            stats.variant
        ),
        x_label: "stones on the board".into(),
        y_label: "positions".into(),
        categories: rows.iter().map(|r| r.stones.to_string()).collect(),
        series: vec![
            ("win".into(), series(|r| r.outcomes.wins)),
            ("draw".into(), series(|r| r.outcomes.draws)),
            ("loss".into(), series(|r| r.outcomes.losses)),
        ],
        stacked: true,
        log_y: false,
    }
    .render()
}

/// Positions per stone count, unlocked database and opening phase, log scale.
pub fn layers_chart(stats: &KpeStats) -> String {
    let total = stats.rows.iter().map(|r| r.stones).max().unwrap_or(0);
    let stones: Vec<usize> = (0..=total).step_by(2).collect();
    let count = |phase: &str, n: usize| {
        rows_of(stats, phase)
            .find(|r| r.stones == n)
            .map_or(0.0, |r| r.outcomes.positions as f64)
    };
    BarChart {
        title: format!("Kpé {}: positions per layer", stats.variant),
        x_label: "stones on the board".into(),
        y_label: "positions (log scale)".into(),
        categories: stones.iter().map(|n| n.to_string()).collect(),
        series: vec![
            (
                "unlocked".into(),
                stones.iter().map(|&n| count("unlocked", n)).collect(),
            ),
            (
                "opening phase".into(),
                stones.iter().map(|&n| count("opening", n)).collect(),
            ),
        ],
        stacked: false,
        log_y: true,
    }
    .render()
}

/// The value for South of each first move and of each reply.
pub fn first_moves_chart(openings: &KpeOpeningReport) -> String {
    let mut categories = Vec::new();
    let mut values = Vec::new();
    for rep in &openings.replies {
        categories.push(rep.mv.clone());
        values.push(rep.value as f64);
        for r in &rep.replies {
            categories.push(format!("{} {}", rep.mv, r.mv));
            values.push(-r.value as f64);
        }
    }
    BarChart {
        title: format!("Kpé {}: first moves and replies", openings.start.variant),
        x_label: "line (South's first move, then North's reply)".into(),
        y_label: "exact value for South".into(),
        categories,
        series: vec![("value for South".into(), values)],
        stacked: false,
        log_y: false,
    }
    .render()
}

/// Start values of the variants over W × K.
pub fn variants_chart(variants: &VariantsTable) -> String {
    let ws: Vec<usize> = (2..=5).collect();
    let ks: Vec<usize> = (1..=6).collect();
    let cells = ws
        .iter()
        .map(|&w| {
            ks.iter()
                .map(|&k| {
                    variants
                        .variants
                        .iter()
                        .find(|v| v.w == w && v.k == k)
                        .map(|v| v.start.value as f64)
                })
                .collect()
        })
        .collect();
    HeatMap {
        title: "Kpé variants: start value for South under perfect play".into(),
        x_label: "K, stones per pit".into(),
        y_label: "W, pits per row".into(),
        columns: ks.iter().map(|k| k.to_string()).collect(),
        rows: ws.iter().map(|w| w.to_string()).collect(),
        cells,
    }
    .render()
}

/// The start of `variant`, its first best move outlined.
pub fn start_board(variant: KpeVariant, opening: &KpeOpeningReport) -> String {
    let start = KpePosition::start(variant);
    let best = opening.start.moves.first().and_then(|m| m.mv.parse().ok());
    let pits: Vec<u64> = start.pits().iter().map(|&c| c as u64).collect();
    board_diagram(
        &start.to_string(),
        &pits,
        variant.w(),
        best,
        &format!(
            "value {:+} for South; outlined: first best move",
            opening.start.value
        ),
    )
}

/// A board diagram: both rows with counts and marks, the best move's pit outlined.
pub fn board_diagram(
    position: &str,
    pits: &[u64],
    w: usize,
    best: Option<usize>,
    caption: &str,
) -> String {
    let cell = 56.0;
    let width = (cell * w as f64 + 120.0).max(440.0);
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="230" font-family="sans-serif" font-size="13">
<rect width="100%" height="100%" fill="white"/>
<text x="10" y="20">{}</text>
"#,
        position.replace('&', "&amp;")
    );
    for (i, &count) in pits.iter().enumerate() {
        // North's row on top, right to left as South sees it.
        let (col, row) = if i < w { (i, 1) } else { (2 * w - 1 - i, 0) };
        let x = 60.0 + cell * col as f64;
        let y = 40.0 + 70.0 * row as f64;
        let stroke = if best == Some(i) {
            r##"stroke="#c92a2a" stroke-width="4""##
        } else {
            r##"stroke="#495057""##
        };
        s += &format!(
            r##"<rect x="{x}" y="{y}" width="{}" height="50" rx="20" fill="#f8f0e3" {stroke}/><text x="{}" y="{}" text-anchor="middle" font-size="18">{count}</text><text x="{}" y="{}" text-anchor="middle" fill="#868e96">pit {i}</text>
"##,
            cell - 8.0,
            x + (cell - 8.0) / 2.0,
            y + 31.0,
            x + (cell - 8.0) / 2.0,
            if row == 0 { y - 4.0 } else { y + 66.0 }
        );
    }
    s += &format!(
        r#"<text x="10" y="75">North</text><text x="10" y="145">South</text><text x="10" y="215">{}</text>
</svg>
"#,
        caption.replace('&', "&amp;")
    );
    s
}

/// The report page, rendered from the summary.
pub fn page(summary: &KpeSummary, provenance: &str) -> String {
    let mut md = format!("# Kpé {}: solved\n\n{provenance}\n\n", summary.variant);
    let p = &summary.positions;
    md += &format!(
        "**The start is worth {:+} for South ({}).** Positions: {} in all, {} unlocked (endgame database), {} in the opening phase reachable from the start. The perfect-play line has {} moves and ends by {}.\n\n",
        summary.start_value,
        summary.result,
        p.total,
        p.unlocked,
        p.opening_phase,
        summary.pv_length,
        summary.pv_ends_by
    );
    md += "![start position](start-board.svg)\n\n| first move | value for South |\n|---|---|\n";
    for m in &summary.first_moves {
        md += &format!("| {} | {:+} |\n", m.mv, m.value);
    }
    md += "\n![first moves and replies](first-moves.svg)\n\n![values per layer](values.svg)\n\n![positions per layer](layers.svg)\n\n";
    md += "## Variants\n\n![variants](variants.svg)\n\n| variant | start value | result | unlocked positions | opening positions | seconds |\n|---|---|---|---|---|---|\n";
    for v in &summary.variants {
        md += &format!(
            "| {} | {:+} | {} | {} | {} | {:.1} |\n",
            v.variant, v.value, v.result, v.unlocked_positions, v.opening_positions, v.seconds
        );
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A saved model reads back as its type and writes the same JSON.
    fn round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(text: &str) -> T {
        let model: T = serde_json::from_str(text).expect("reads as the model");
        let again = serde_json::to_value(&model).unwrap();
        let saved: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(again, saved, "no key lost or added");
        model
    }

    #[test]
    fn the_saved_reports_read_back_and_render() {
        let summary: KpeSummary = round_trip(include_str!("../../results/kpe/report.json"));
        assert!(page(&summary, "").contains("## Variants"));
        let table: VariantsTable = round_trip(include_str!("../../results/kpe/variants.json"));
        assert!(variants_chart(&table).starts_with("<svg"));
        let opening: KpeOpeningReport = round_trip(include_str!("../../results/kpe/openings.json"));
        assert!(first_moves_chart(&opening).starts_with("<svg"));
        let stats: KpeStats = round_trip(include_str!("../../results/kpe/stats.json"));
        assert!(values_chart(&stats).starts_with("<svg"));
    }
}
