//! The page of an analysed game (`sow analyze --out DIR`): a Markdown table
//! of the plies with their marks, the players' summaries, and the value
//! graph (South's expected final margin over the plies) as SVG.

use std::fmt::Write;
use std::path::Path;

use super::svg::{escape, LineChart, Point};
use crate::analysis::annotate::{GameAnalysis, PlayerSummary};
use crate::analysis::marks::Thresholds;
use crate::infra::files::{write_set_in, WriteError};

/// The value graph: South's expected final margin (captures so far plus
/// the position's value) before every ply and at the end; proven values
/// are also drawn as a second series.
pub fn value_graph(a: &GameAnalysis) -> String {
    let mut all: Vec<(f64, f64, bool)> = a
        .plies
        .iter()
        .map(|p| ((p.ply - 1) as f64, p.south_margin as f64, p.exact))
        .collect();
    all.push((
        a.plies.len() as f64,
        a.ending.south_margin as f64,
        a.ending.exact,
    ));
    let point = |x: f64, y: f64| Point {
        x,
        y,
        interval: None,
    };
    let mut series = vec![(
        "value (South's final margin)".to_string(),
        all.iter().map(|&(x, y, _)| point(x, y)).collect::<Vec<_>>(),
    )];
    if all.iter().any(|p| p.2) && !all.iter().all(|p| p.2) {
        series.push((
            "proven exact".to_string(),
            all.iter()
                .map(|&(x, y, e)| point(x, if e { y } else { f64::NAN }))
                .collect(),
        ));
    }
    LineChart {
        title: format!("{}: value after each ply", a.game),
        x_label: "plies played".to_string(),
        y_label: "stones (South's expected final margin)".to_string(),
        series,
        log2_x: false,
    }
    .render()
}

fn share(x: Option<f64>) -> String {
    x.map_or("-".to_string(), |v| format!("{:.1}%", 100.0 * v))
}

fn mean(x: Option<f64>) -> String {
    x.map_or("-".to_string(), |v| format!("{v:.2}"))
}

/// A player's name as one Markdown table cell. Names come from the record
/// and may be any text: `|` would split the cell, a newline end the table,
/// and HTML (`<script>`) would be rendered by a Markdown viewer.
fn markdown_cell(text: &str) -> String {
    // The backslash first, or a name `a\|` would end as `a\\|`: an
    // escaped backslash, then a bare `|`.
    escape(&plain_cell(text).replace('\\', "\\\\").replace('|', "\\|"))
}

/// A player's name in the text table: control characters (a newline, a
/// terminal escape sequence) become spaces.
fn plain_cell(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

fn player_row(side: &str, p: &PlayerSummary) -> String {
    format!(
        "| {side} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
        p.name.as_deref().map_or("-".into(), markdown_cell),
        p.moves,
        share(p.value_keeping),
        mean(p.mean_loss),
        p.marks.blunders,
        p.marks.mistakes,
        p.marks.inaccuracies,
        p.marks.only_moves
    )
}

fn thresholds_text(t: &Thresholds) -> String {
    format!(
        "`?!` from a loss of {}, `?` from {}, `??` from {} stones",
        t.inaccuracy, t.mistake, t.blunder
    )
}

/// How the game ended, in words.
pub fn ending_text(a: &GameAnalysis) -> String {
    let e = &a.ending;
    let how = match e.end {
        "over" => "the player to move had no move",
        "repetition" => "third repetition, board shared",
        _ => "the record stops here, board shared",
    };
    let who = match e.winner.as_deref() {
        Some("S") => "South wins",
        Some("N") => "North wins",
        _ => "draw",
    };
    let who = if e.one_warrior_victory {
        format!("{who} (a one-warrior victory)")
    } else {
        who.to_string()
    };
    format!(
        "{who}, {} to {} ({how}, after {} plies)",
        e.points[0],
        e.points[1],
        a.plies.len()
    )
}

/// The moves of the record after the end of the game, in words, if any.
pub fn ignored_text(a: &GameAnalysis) -> Option<String> {
    let ignored = a.ignored_moves;
    let how = match a.ending.end {
        "repetition" => "by the third repetition ",
        _ => "",
    };
    (ignored > 0).then(|| {
        format!(
            "the game ended {how}at ply {}; the {ignored} moves after it are not analysed",
            a.plies.len()
        )
    })
}

/// When the result was decided, in words.
pub fn decided_text(a: &GameAnalysis) -> String {
    match a.decided_at {
        Some(0) => "decided from the start (the start's proven value gives the result)".into(),
        Some(k) => format!(
            "decided at ply {k}: from there on every position's proven value gives the result"
        ),
        None => "never proven decided (no proven value gives the result from some ply to the end)"
            .into(),
    }
}

/// The cells a ply's row shows, in the text table and on the page.
struct PlyCells<'a> {
    ply: usize,
    side: &'a str,
    mv: &'a str,
    value: i32,
    played: i32,
    loss: i32,
    mark: &'static str,
    exact: &'static str,
}

fn cells(p: &crate::analysis::annotate::PlyAnalysis) -> PlyCells<'_> {
    PlyCells {
        ply: p.ply,
        side: &p.side,
        mv: &p.mv,
        value: p.value,
        played: p.played,
        loss: p.loss,
        mark: p.mark.map_or("", |m| m.symbol()),
        exact: if p.exact { "yes" } else { "" },
    }
}

/// `sow analyze`'s text: header, the plies, result and players.
pub fn text(a: &GameAnalysis) -> Vec<String> {
    let mut lines = vec![
        format!("game     {}", a.game),
        format!("start    {}", a.start),
        format!("values   {}", a.method),
    ];
    if a.opening_plies > 0 {
        lines.push(format!(
            "opening  plies 1-{} are the record's random opening: marked, not in the players' summaries",
            a.opening_plies
        ));
    }
    lines.push(format!(
        "{:>4} {:<4} {:<26} {:>6} {:>6} {:>5} {:<4} {:<5} best",
        "ply", "side", "move", "value", "played", "loss", "mark", "exact"
    ));
    for p in &a.plies {
        let c = cells(p);
        lines.push(format!(
            "{:>4} {:<4} {:<26} {:>+6} {:>+6} {:>5} {:<4} {:<5} {}",
            c.ply,
            c.side,
            c.mv,
            c.value,
            c.played,
            c.loss,
            c.mark,
            c.exact,
            p.best.join(" ")
        ));
    }
    if let Some(ignored) = ignored_text(a) {
        lines.push(ignored);
    }
    lines.push(format!("result   {}", ending_text(a)));
    lines.push(format!("decided  {}", decided_text(a)));
    lines.push(format!(
        "{:<7} {:<14} {:>5} {:>8} {:>9} {:>3} {:>3} {:>3} {:>3}",
        "player", "name", "moves", "keeping", "mean-loss", "??", "?", "?!", "!"
    ));
    for (side, p) in [("South", &a.players.south), ("North", &a.players.north)] {
        lines.push(format!(
            "{:<7} {:<14} {:>5} {:>8} {:>9} {:>3} {:>3} {:>3} {:>3}",
            side,
            p.name.as_deref().map_or("-".into(), plain_cell),
            p.moves,
            p.value_keeping
                .map_or("-".into(), |v| format!("{:.1}%", 100.0 * v)),
            p.mean_loss.map_or("-".into(), |v| format!("{v:.2}")),
            p.marks.blunders,
            p.marks.mistakes,
            p.marks.inaccuracies,
            p.marks.only_moves
        ));
    }
    lines
}

/// The Markdown page; `command` reproduces it, `svg` is the graph's file name.
pub fn markdown(a: &GameAnalysis, command: &str, svg: &str) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Analysed game: {}\n", a.game);
    let _ = writeln!(md, "Command: `{command}`\n");
    let _ = writeln!(md, "- start: `{}`", a.start);
    let _ = writeln!(md, "- values: {}", a.method);
    if a.opening_plies > 0 {
        let _ = writeln!(
            md,
            "- plies 1–{} are the record's random opening (no player chose them): marked, but not in the players' summaries",
            a.opening_plies
        );
    }
    let _ = writeln!(md, "- result: {}", ending_text(a));
    if let Some(ignored) = ignored_text(a) {
        let _ = writeln!(md, "- {ignored}");
    }
    let _ = writeln!(md, "- {}", decided_text(a));
    let _ = writeln!(
        md,
        "- marks: exact values {}; search estimates {} (allowing for search noise); `!` the only move that keeps the value\n",
        thresholds_text(&a.thresholds.exact),
        thresholds_text(&a.thresholds.estimate)
    );
    let _ = writeln!(md, "![value graph]({svg})\n");
    md.push_str("## Players\n\n| side | player | moves | value-keeping | mean loss | ?? | ? | ?! | ! |\n|---|---|---|---|---|---|---|---|---|\n");
    md.push_str(&player_row("South", &a.players.south));
    md.push_str(&player_row("North", &a.players.north));
    md.push_str("\n## Plies\n\nValues are for the player to move, in stones (RULES §0); `loss` = value − played.\n\n| ply | side | move | value | played | loss | mark | best | exact |\n|---|---|---|---|---|---|---|---|---|\n");
    for p in &a.plies {
        let c = cells(p);
        let best: Vec<String> = p.best.iter().map(|m| format!("`{m}`")).collect();
        let _ = writeln!(
            md,
            "| {} | {} | `{}` | {:+} | {:+} | {} | {} | {} | {} |",
            c.ply,
            c.side,
            c.mv,
            c.value,
            c.played,
            c.loss,
            c.mark,
            best.join(" "),
            c.exact
        );
    }
    let _ = writeln!(md, "\nFinal position: `{}`", a.ending.position);
    md
}

/// Writes the page into `dir`: `analysis.md` (reproduced by `command`),
/// `analysis.json` and the graph `values.svg`, as a set
/// (`files::write_set_in`): a failure half-way must not leave a new graph
/// beside an older analysis.
pub fn write_page(a: &GameAnalysis, dir: &Path, command: &str) -> Result<(), WriteError> {
    let svg = value_graph(a);
    let json = serde_json::to_string_pretty(a).expect("JSON");
    let md = markdown(a, command, "values.svg");
    write_set_in(
        dir,
        &[
            ("values.svg", svg.as_bytes()),
            ("analysis.json", json.as_bytes()),
            ("analysis.md", md.as_bytes()),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cannot_break_a_table() {
        assert_eq!(
            markdown_cell("a|b\n<script>&\\|"),
            "a\\|b &lt;script&gt;&amp;\\\\\\|"
        );
        assert_eq!(plain_cell("a\nb\u{1b}[2J"), "a b [2J");
    }
}
