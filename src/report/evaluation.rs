//! `sow eval`'s text: the value, the best move, the line and the moves of
//! an [`Evaluation`], and the progress line of each completed depth.

use crate::analysis::evaluation::{Evaluation, ExactEvaluation, Iteration, SearchEvaluation};
use crate::analysis::kiothi_tables::coverage;
use crate::game::Side;

/// The lines of an evaluation of a position whose mover is `side`;
/// `quiet` keeps the essential ones (the value and the best move).
pub fn text(e: &Evaluation, side: Side, quiet: bool) -> Vec<String> {
    let lines = match e {
        Evaluation::Exact(e) => exact(e, side),
        Evaluation::Search(e) => searched(e, side),
    };
    lines
        .into_iter()
        .filter(|(essential, _)| *essential || !quiet)
        .map(|(_, line)| line)
        .collect()
}

/// Lines, each marked essential or not.
type Lines = Vec<(bool, String)>;

fn exact(e: &ExactEvaluation, side: Side) -> Lines {
    let mut lines = vec![(false, format!("position {}", e.position))];
    if e.over {
        lines.push((
            false,
            format!("game over: {side:?} to move has no legal move; the value is the final sweep"),
        ));
    }
    lines.push((
        true,
        format!(
            "value    {:+} for {side:?} to move (exact; final margin {:+}, a {})",
            e.value, e.final_margin, e.result
        ),
    ));
    lines.push((
        true,
        format!("best     {}", e.best.as_deref().unwrap_or("-")),
    ));
    let ending = match e.can_end {
        true => "can end",
        false => "never ends (no value-keeping line reaches the end)",
    };
    lines.push((false, format!("ending   perfect play {ending}")));
    for m in &e.moves {
        let line = match &m.pv {
            Some(line) => format!("  move {}: {:+}  line {}", m.mv, m.value, line.join(" ")),
            None => format!("  move {}: {:+}", m.mv, m.value),
        };
        lines.push((false, line));
    }
    lines.push((
        false,
        format!(
            "pv       {} ({} moves, ends by {})",
            e.pv.join(" "),
            e.pv.len(),
            e.pv_ends_by
        ),
    ));
    lines
}

fn searched(e: &SearchEvaluation, side: Side) -> Lines {
    let mut lines = Vec::new();
    if e.interrupted {
        lines.push((
            true,
            "interrupted: best completed iteration below".to_string(),
        ));
    }
    lines.push((false, format!("position {}", e.position)));
    if e.over {
        lines.push((false, format!("game over: {side:?} to move has no legal move; the value is the final sweep (final margin {:+})", e.final_margin)));
    }
    let how = if e.exact { "exact" } else { "estimate" };
    let value = match (e.book, e.reply_search) {
        (true, _) => format!(
            "value    {:+} for {side:?} to move (opening book; book depth {})",
            e.value, e.depth
        ),
        (false, true) => format!(
            "value    {:+} for {side:?} to move (reply search, {} nodes, {:.1} s; best reply's depth {})",
            e.value, e.nodes, e.seconds, e.depth
        ),
        (false, false) => format!(
            "value    {:+} for {side:?} to move ({how}; depth {}, {} nodes, {:.1} s)",
            e.value, e.depth, e.nodes, e.seconds
        ),
    };
    lines.push((true, value));
    if let Some(n) = e.endgame_stones {
        lines.push((false, format!("tables   {}", coverage(n))));
    }
    lines.push((
        true,
        format!("best     {}", e.best.as_deref().unwrap_or("-")),
    ));
    lines.push((false, format!("pv       {}", e.pv.join(" "))));
    for (i, m) in e.moves.iter().flatten().enumerate() {
        let how = if m.exact == Some(true) {
            "exact   "
        } else {
            "estimate"
        };
        let line = m.pv.as_deref().unwrap_or_default().join(" ");
        lines.push((
            false,
            format!(
                "  {:>2}. {:<12} {:+4} {how}  line {line}",
                i + 1,
                m.mv,
                m.value
            ),
        ));
    }
    if e.one_warrior_victory {
        lines.push((
            false,
            format!(
                "one-warrior victory: the best line ends with a margin of {:+}",
                e.final_margin
            ),
        ));
    }
    lines
}

/// The progress line of a completed depth.
pub fn iteration_line(it: &Iteration) -> String {
    match it {
        Iteration::Root {
            depth,
            value,
            nodes,
            nps,
            pv,
        } => {
            format!(
                "depth {depth:>3}  value {value:+5}  nodes {nodes:>12}  nps {nps:>10.0}  pv {pv}"
            )
        }
        Iteration::Moves {
            depth,
            moves,
            best,
            nodes,
            seconds,
        } => {
            let (mv, value) = best.clone().unwrap_or(("-".to_string(), 0));
            format!("depth {depth:>3}  moves {moves:>4}  best {mv} {value:+}  nodes {nodes:>12}  {seconds:.1} s")
        }
    }
}
