//! `sow perft`'s text: the divide lines, then the count and how it was made.

use crate::analysis::perft_report::PerftReport;

/// The lines of a walk; `quiet` gives the divide and the count alone.
pub fn text(r: &PerftReport, quiet: bool) -> Vec<String> {
    let divide = r.divide.iter().flatten();
    let mut lines: Vec<String> = divide
        .map(|l| format!("{}: {}", l.group, l.nodes))
        .collect();
    if quiet {
        lines.push(r.nodes.to_string());
        return lines;
    }
    if !lines.is_empty() {
        lines.push(String::new());
    }
    lines.push(format!("position {}", r.position));
    lines.push(format!("depth    {}", r.depth));
    lines.push(format!("nodes    {}", r.nodes));
    lines.push(format!("time     {:.3} s", r.seconds));
    if r.divide_by == Some("lifted pits") {
        lines.push("divide   per lifted pair: each line counts the sequences whose first move lifts those pits, whatever the placement".into());
    }
    lines.push(match r.nps {
        Some(nps) => format!("nps      {nps} ({} threads)", r.threads),
        None => "method   counted by formula (RULES §2.2 redistributions), not enumerated".into(),
    });
    lines
}
