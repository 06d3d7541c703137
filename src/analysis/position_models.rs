//! The JSON models of `show`, `moves` and `apply` (README, output contract),
//! printed by `sow ... --json` and served by `sow serve` (`/api/show`,
//! `/api/moves`, `/api/apply`), so that both give the same bytes.
//!
//! Field order is the order of the keys in the output: alphabetical for
//! `show` and `apply` (as they were printed from sorted JSON maps), and
//! `position, moves, count` for `moves` (as it is streamed).

use serde::Serialize;

use crate::error::{CliError, InputError};
use crate::game::{Game, Side};
use crate::games::kiothi::KiothiPosition;
use crate::games::kpe::KpePosition;
use crate::record::Termination;

/// Above this many legal moves, `show` and `moves` give the count only
/// (`moves --all` enumerates them anyway).
pub const MOVE_LIST_LIMIT: u64 = 10_000;

/// The game-specific keys of `show` (each game fills its own, the others
/// are left out of the JSON).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct GameDetails {
    /// Kpé: the marks of each row as `x`/`.` in pit order, `[S, N]`.
    pub marks: Option<[String; 2]>,
    /// Kpé: whether each side has played all its pits once, `[S, N]`.
    pub unlocked: Option<[bool; 2]>,
    /// Kpé: the board size `WxK`.
    pub variant: Option<String>,
    /// Kiothi: `Opening` or `Play`.
    pub phase: Option<String>,
    /// Kiothi: the prisons `[S, N]`.
    pub prisons: Option<[u32; 2]>,
    /// Kiothi: the protected pits, in increasing order.
    pub protected: Option<Vec<usize>>,
}

/// What `show` needs from a game beyond [`Game`].
pub trait Described: Game {
    /// The game's name in notation (`kpe`, `kiothi`).
    fn game_name(&self) -> &'static str;
    /// Pit counts in pit order.
    fn pit_counts(&self) -> Vec<u32>;
    /// The game-specific keys of `show`.
    fn details(&self) -> GameDetails;
}

fn kpe_marks_text(p: &KpePosition, side: Side) -> String {
    let bits = p.marks(side);
    (0..p.variant().w())
        .map(|i| if bits & (1 << i) != 0 { 'x' } else { '.' })
        .collect()
}

impl Described for KpePosition {
    fn game_name(&self) -> &'static str {
        "kpe"
    }
    fn pit_counts(&self) -> Vec<u32> {
        self.pits().iter().map(|&c| c as u32).collect()
    }
    fn details(&self) -> GameDetails {
        GameDetails {
            marks: Some([
                kpe_marks_text(self, Side::South),
                kpe_marks_text(self, Side::North),
            ]),
            unlocked: Some([self.is_unlocked(Side::South), self.is_unlocked(Side::North)]),
            variant: Some(self.variant().to_string()),
            ..GameDetails::default()
        }
    }
}

impl Described for KiothiPosition {
    fn game_name(&self) -> &'static str {
        "kiothi"
    }
    fn pit_counts(&self) -> Vec<u32> {
        self.pits().iter().map(|&c| c as u32).collect()
    }
    fn details(&self) -> GameDetails {
        let prot = self.protected();
        let pits = self.pits().len();
        GameDetails {
            phase: Some(format!("{:?}", self.phase())),
            prisons: Some(Game::captured(self)),
            protected: Some((0..pits).filter(|i| prot & (1 << i) != 0).collect()),
            ..GameDetails::default()
        }
    }
}

/// The legal moves in notation, or `None` when there are more than
/// [`MOVE_LIST_LIMIT`] of them (never enumerates a huge list).
pub fn listed_moves<G: Game>(p: &G) -> (u64, Option<Vec<String>>) {
    let count = p.move_count();
    if count > MOVE_LIST_LIMIT {
        (count, None)
    } else {
        (
            count,
            Some(p.legal_moves().iter().map(|m| m.to_string()).collect()),
        )
    }
}

/// Totals at the end of the game (no legal move): captures plus the final
/// sweep, as `record::final_totals` counts them, in whole stones.
pub fn final_totals<G: Game>(p: &G) -> [u32; 2] {
    crate::record::final_totals(p, Some(Termination::NoMove)).map(|t| t as u32)
}

/// `show --json`: the position, its board and its legal moves.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ShowModel {
    pub captured: [u32; 2],
    /// When over: the final totals (captures plus sweep) `[S, N]`.
    #[serde(rename = "final", skip_serializing_if = "Option::is_none")]
    pub final_totals: Option<[u32; 2]>,
    pub game: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marks: Option<[String; 2]>,
    pub move_count: u64,
    /// `None` (JSON `null`) above [`MOVE_LIST_LIMIT`] moves.
    pub moves: Option<Vec<String>>,
    pub over: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    pub pits: Vec<u32>,
    pub position: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prisons: Option<[u32; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protected: Option<Vec<usize>>,
    /// `"S"` or `"N"`.
    pub side: String,
    /// When over: what the final sweep gives each side `[S, N]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sweep: Option<[u32; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unlocked: Option<[bool; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// When over: `Some("S")`, `Some("N")`, or `None` (JSON `null`) for a draw.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winner: Option<Option<&'static str>>,
}

impl ShowModel {
    pub fn new<G: Described>(p: &G) -> Self {
        let (move_count, moves) = listed_moves(p);
        let over = move_count == 0;
        let GameDetails {
            marks,
            unlocked,
            variant,
            phase,
            prisons,
            protected,
        } = p.details();
        let totals = over.then(|| final_totals(p));
        ShowModel {
            captured: p.captured(),
            final_totals: totals,
            game: p.game_name(),
            marks,
            move_count,
            moves,
            over,
            phase,
            pits: p.pit_counts(),
            position: p.to_string(),
            prisons,
            protected,
            side: p.side_to_move().letter().to_string(),
            sweep: over.then(|| p.final_sweep()),
            unlocked,
            variant,
            winner: totals.map(|t| match t[0].cmp(&t[1]) {
                std::cmp::Ordering::Greater => Some("S"),
                std::cmp::Ordering::Less => Some("N"),
                std::cmp::Ordering::Equal => None,
            }),
        }
    }
}

/// `moves --json`: the legal moves in notation (the count only above
/// [`MOVE_LIST_LIMIT`], unless `moves --all` streams them in this shape).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MovesModel {
    pub position: String,
    pub moves: Option<Vec<String>>,
    pub count: u64,
}

impl MovesModel {
    /// The moves, listed when there are at most [`MOVE_LIST_LIMIT`].
    pub fn new<G: Game>(p: &G) -> Self {
        let (count, moves) = listed_moves(p);
        MovesModel {
            position: p.to_string(),
            moves,
            count,
        }
    }
}

/// `apply --json`: every position after each move, and the last.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ApplyModel {
    #[serde(rename = "final")]
    pub final_position: String,
    pub moves: Vec<String>,
    pub over: bool,
    pub positions: Vec<String>,
    pub start: String,
}

/// A refused move of a sequence: its 1-based index and the rules' reason.
#[derive(Clone, Debug, PartialEq)]
pub struct RefusedMove {
    /// 1-based number of the move in the sequence.
    pub index: usize,
    /// The move as given.
    pub text: String,
    /// How many moves the sequence had.
    pub of: usize,
    pub error: InputError,
}

impl RefusedMove {
    /// `move I of N (`TEXT`) refused: REASON`, as `apply` prints it.
    pub fn message(&self) -> String {
        format!(
            "move {} of {} (`{}`) refused: {}",
            self.index, self.of, self.text, self.error
        )
    }
}

/// The error of a refused move: the rules' kind and field, the sequence's
/// message, and the move's 1-based index.
impl From<RefusedMove> for CliError {
    fn from(r: RefusedMove) -> Self {
        let mut err = CliError::from(r.error.clone());
        err.message = r.message();
        err.index = Some(r.index);
        err
    }
}

/// Plays `moves` in order from `start`, calling `each(index, move, position)`
/// after each move (`apply` prints its lines from there). Stops at the first
/// malformed or illegal move.
pub fn apply_moves<G: Game>(
    start: &G,
    moves: &[String],
    mut each: impl FnMut(usize, &G::Move, &G),
) -> Result<(ApplyModel, G), RefusedMove> {
    let mut cur = start.clone();
    let mut positions = Vec::with_capacity(moves.len());
    let mut played = Vec::with_capacity(moves.len());
    for (i, text) in moves.iter().enumerate() {
        let mv = cur.parse_move(text).map_err(|error| RefusedMove {
            index: i + 1,
            text: text.clone(),
            of: moves.len(),
            error,
        })?;
        cur = cur.play_unchecked(&mv);
        each(i + 1, &mv, &cur);
        played.push(mv.to_string());
        positions.push(cur.to_string());
    }
    let model = ApplyModel {
        final_position: cur.to_string(),
        moves: played,
        over: cur.is_over(),
        positions,
        start: start.to_string(),
    };
    Ok((model, cur))
}

/// Splits a list of moves given in one string (`/api/apply?moves=…`): moves
/// are separated by commas or whitespace, except that the digits after a
/// Kiothi opening move's `>` are its comma-separated targets
/// (`4+5>9,9,9,9,9,9,9,9,9,9,8x6` is two moves). Kpé moves are bare pit
/// numbers and every Kiothi move has an `x` or a `>`, so this is unambiguous.
pub fn split_moves(text: &str) -> Vec<String> {
    let mut moves: Vec<String> = Vec::new();
    for token in text.split(|c: char| c == ',' || c.is_whitespace()) {
        if token.is_empty() {
            continue;
        }
        let continues_targets = token.bytes().all(|b| b.is_ascii_digit())
            && moves.last().is_some_and(|m| m.contains('>'));
        match moves.last_mut() {
            Some(last) if continues_targets => {
                last.push(',');
                last.push_str(token);
            }
            _ => moves.push(token.to_string()),
        }
    }
    moves
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::kpe::parse_position;

    #[test]
    fn show_json_keys_are_sorted_as_before() {
        let p = parse_position("kpe").unwrap();
        let text = serde_json::to_string(&ShowModel::new(&p)).unwrap();
        assert_eq!(
            text,
            r#"{"captured":[0,0],"game":"kpe","marks":["....","...."],"move_count":4,"moves":["0","1","2","3"],"over":false,"pits":[6,6,6,6,6,6,6,6],"position":"kpe 6,6,6,6,6,6,6,6 S .... .... 0 0","side":"S","unlocked":[false,false],"variant":"4x6"}"#
        );
        let over = parse_position("kpe 0,0,0,0,6,6,6,6 S xxxx xxxx 12 12").unwrap();
        let v = serde_json::to_value(ShowModel::new(&over)).unwrap();
        assert_eq!(v["final"], serde_json::json!([12, 36]));
        assert_eq!(v["winner"], "N");
        assert_eq!(v["sweep"], serde_json::json!([0, 24]));
    }

    #[test]
    fn splitting_moves() {
        assert_eq!(split_moves("2,4, 1"), ["2", "4", "1"]);
        assert_eq!(
            split_moves("4+5>9,9,9,9,9,9,9,9,9,9,14+16>0,1,2,3,4,5,6,7,8,9 8x6"),
            [
                "4+5>9,9,9,9,9,9,9,9,9,9",
                "14+16>0,1,2,3,4,5,6,7,8,9",
                "8x6"
            ]
        );
        assert!(split_moves(" , ").is_empty());
    }
}
