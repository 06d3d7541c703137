//! `sow match`'s text: the result, the Elo difference, the game lengths.

use crate::analysis::matches::{MatchConfig, MatchReport, MatchSummary};

/// The lines of a match from `start`; `interrupted`: Ctrl-C cut it short.
pub fn text(
    start: &str,
    report: &MatchReport,
    summary: &MatchSummary,
    cfg: &MatchConfig,
    interrupted: bool,
) -> Vec<String> {
    let mut lines = vec![format!(
        "{} vs {} from {start}",
        report.agent_a, report.agent_b
    )];
    if let Some(b) = cfg.balance {
        lines.push(format!(
            "openings balanced: expected final margin (captures plus a depth-{1} search) within {0} stones of even",
            b.margin, b.depth
        ));
    }
    if interrupted {
        lines.push(format!(
            "interrupted: {} of {} games finished",
            report.games, cfg.games
        ));
    }
    lines.push(format!(
        "games {}: +{} ={} -{} for {}, score {:.1}%",
        report.games,
        report.wins,
        report.draws,
        report.losses,
        report.agent_a,
        100.0 * report.score
    ));
    lines.push(format!(
        "elo   {} (95% interval {} .. {})",
        summary.elo, summary.elo_ci95[0], summary.elo_ci95[1]
    ));
    lines.push(format!("average length {:.1} plies", report.average_plies));
    lines.push(format!(
        "one-warrior victories {:.1}% of decided games",
        100.0 * report.one_warrior_share
    ));
    lines
}
