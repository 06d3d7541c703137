//! `sow play`'s text: the greeting, the legal moves at the person's turn,
//! a hint's values, and the end of the game.

use super::board::side_name;
use crate::analysis::move_values::MoveValues;
use crate::analysis::play_session::Session;
use crate::record::Termination;
use crate::search::Searchable;

/// Legal moves listed at each turn up to this many (a Kiothi opening has
/// hundreds of millions: only their count is given).
const LIST_LIMIT: u64 = 200;

/// Moves shown by `hint` in a Kiothi opening (the best candidates).
const OPENING_HINTS: usize = 10;

/// The first line of a session.
pub fn greeting<G: Searchable>(s: &Session<G>) -> String {
    format!(
        "sow play: you are {}, sow plays {} at level {}. Commands: a move, hint, undo, flip, save FILE, quit",
        side_name(s.human),
        side_name(s.human.other()),
        s.level
    )
}

/// The prompt of the person's turn, with the legal moves.
pub fn prompt<G: Searchable>(s: &Session<G>) -> String {
    let pos = s.record().current();
    let count = pos.move_count();
    let legal = match count <= LIST_LIMIT {
        true => pos
            .legal_moves()
            .iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join(" "),
        false => format!("{count} moves (notation a+b>targets; `hint` lists the best found)"),
    };
    format!(
        "your move ({}), legal: {legal}",
        side_name(pos.side_to_move())
    )
}

/// A hint: every move with its value (in a Kiothi opening, the book's
/// moves, else the best redistributions the search found).
pub fn hint<G: Searchable>(s: &Session<G>, values: &MoveValues<G::Move>) -> Vec<String> {
    let mut lines = Vec::new();
    let mut shown = values.moves.len();
    if values.book {
        lines.push(format!(
            "the opening book's moves ({} of {} legal moves, book depth {}):",
            values.moves.len(),
            s.record().current().move_count(),
            values.depth
        ));
        shown = OPENING_HINTS;
    } else if !values.complete {
        lines.push(format!(
            "the best redistributions found ({} of {} legal moves, depth {}):",
            values.moves.len(),
            s.record().current().move_count(),
            values.depth
        ));
        shown = OPENING_HINTS;
    }
    for m in values.moves.iter().take(shown) {
        let how = if m.exact { "exact" } else { "estimate" };
        lines.push(format!("  {:<24} {:+4} {how}", m.mv.to_string(), m.value));
    }
    lines
}

/// How the finished game ended, and who won (`None` while it goes on).
pub fn result<G: Searchable>(s: &Session<G>) -> Option<String> {
    let r = s.record().result()?;
    let last = s.record().current();
    let how = match r.termination {
        Termination::NoMove => format!(
            "{} to move has no legal move",
            side_name(last.side_to_move())
        ),
        Termination::Repetition => {
            "a position occurred for the third time (the board is shared)".to_string()
        }
    };
    let verdict = match r.winner() {
        Some(side) if side == s.human => "you win",
        Some(_) => "sow wins",
        None => "draw",
    };
    // RULES §2.10: "reported as such".
    let one_warrior = match last.ended_in_one_warrior_victory(r.totals) {
        true => ", a one-warrior victory",
        false => "",
    };
    Some(format!(
        "game over: {how}; South {} North {}: {verdict}{one_warrior} (commands: save FILE, undo, quit)",
        r.totals[0], r.totals[1]
    ))
}
