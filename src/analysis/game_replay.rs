//! A played game read back: its moves replayed from the start by RULES
//! (what `sow analyze` and the web oracle's analysis value), and the start
//! found when the record does not give it.

use crate::error::{CliError, ErrorKind, InputError};
use crate::game::Game;
use crate::games::{parse_any, AnyPosition};
use crate::record::GameRecord;

use super::game_text::GameText;
use super::position_models::RefusedMove;

/// Replays the moves from `start` by RULES and §0's repetition rule (the
/// one game loop of `record.rs`); a game that ends (by the third
/// repetition, or with no move for the player to move) stops there, and
/// the moves after it are counted, not played: the count is returned with
/// the record. They must still be moves in notation (`after_the_end`).
pub fn replay<G: Game>(start: &G, game: &GameText) -> Result<(GameRecord<G>, usize), CliError> {
    let mut record = GameRecord::new(start.clone());
    let n = game.moves.len();
    for (i, mv) in game.moves.iter().enumerate() {
        if record.is_finished() {
            after_the_end(&record, &game.moves, i)?;
            return Ok((record, n - i));
        }
        record.push_text(mv).map_err(|error| RefusedMove {
            index: i + 1,
            text: mv.clone(),
            of: n,
            error,
        })?;
        if let Some(after) = game.after.get(i) {
            let now = record.current().to_string();
            let listed = parse_any(after).map(|p| p.to_string());
            if listed.as_deref() != Ok(now.as_str()) {
                return Err(CliError::new(
                    ErrorKind::Malformed,
                    Some("file"),
                    format!(
                        "the position after move {} is `{now}`, the record says `{after}`",
                        i + 1
                    ),
                ));
            }
        }
    }
    Ok((record, 0))
}

/// Refuses a malformed token among `moves[end..]`, the moves after the end
/// of the game: they are not played, but garbage there is not a game
/// record. Both games' `parse_move` check the notation before legality,
/// so a `Malformed` error from the final position is the token's syntax
/// (legality cannot be judged past the end).
fn after_the_end<G: Game>(
    record: &GameRecord<G>,
    moves: &[String],
    end: usize,
) -> Result<(), RefusedMove> {
    for (i, mv) in moves.iter().enumerate().skip(end) {
        if let Err(error @ InputError::Malformed { .. }) = record.current().parse_move(mv) {
            return Err(RefusedMove {
                index: i + 1,
                text: mv.clone(),
                of: moves.len(),
                error: error.with_note(match end {
                    0 => "the game was over at the start".to_string(),
                    _ => format!("the game ended after move {end}"),
                }),
            });
        }
    }
    Ok(())
}

/// Why `game` does not replay from `start`, if it does not.
fn replay_error(start: &AnyPosition, game: &GameText) -> Option<CliError> {
    crate::with_position!(start, p => replay(p, game).err())
}

/// Why no start was found.
#[derive(Debug)]
pub enum StartError {
    /// The start given, or a move from the one start the record names,
    /// refused.
    Refused(CliError),
    /// The record gives no start, and none of these replays its moves:
    /// the caller must give one.
    NotFound(Vec<String>),
}

impl StartError {
    /// What is wrong, the remedy left to the caller.
    pub fn not_found(candidates: &[String]) -> String {
        format!(
            "the record does not give its start position and none of {} replays its moves",
            candidates.join(", ")
        )
    }
}

impl From<StartError> for CliError {
    fn from(e: StartError) -> Self {
        match e {
            StartError::Refused(e) => e,
            StartError::NotFound(c) => {
                let message = format!("{}: give the start position", StartError::not_found(&c));
                CliError::new(ErrorKind::Malformed, Some("start"), message)
            }
        }
    }
}

/// The start: `start` if given, else the record's, else the first
/// standard start that replays every move (`sow apply` text output: the
/// variant of the listed positions; a match record: kiothi, kiothi:five, kpe).
pub fn find_start(game: &GameText, start: Option<&str>) -> Result<AnyPosition, StartError> {
    if let Some(text) = start.or(game.start.as_deref()) {
        return parse_any(text).map_err(|e| {
            let mut err = CliError::from(e);
            err.field = Some("start".into());
            StartError::Refused(err)
        });
    }
    let tag = game
        .after
        .first()
        .and_then(|p| p.split_whitespace().next())
        .map(str::to_string);
    let candidates: Vec<String> = match tag {
        Some(t) if t.starts_with("kiothi") => vec!["kiothi".into(), "kiothi:five".into()],
        Some(t) => vec![t],
        None => vec!["kiothi".into(), "kiothi:five".into(), "kpe".into()],
    };
    let mut refusals = Vec::new();
    for c in &candidates {
        if let Ok(p) = parse_any(c) {
            match replay_error(&p, game) {
                None => return Ok(p),
                Some(why) => refusals.push(why),
            }
        }
    }
    // The listed positions name one start (a Kpé variant's): why it does
    // not replay is the record's fault (a tampered position), not a
    // missing `--start`.
    if let ([_], [_]) = (&candidates[..], &refusals[..]) {
        return Err(StartError::Refused(refusals.remove(0)));
    }
    Err(StartError::NotFound(candidates))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::game_text::parse_game_text;

    /// `sow apply` text whose last listed position was tampered with (the
    /// side to move): its variant names the one start, so the error is the
    /// mismatch, not "pass --start" (the cause showed only with --start).
    #[test]
    fn a_tampered_apply_text_gives_the_real_cause() {
        let text = concat!(
            "  1. 2      kpe 7,6,0,7,7,7,7,7 N ..x. .... 0 0\n",
            "  2. 4      kpe 8,7,1,8,0,8,8,8 S ..x. x... 0 0\n",
            "  3. 1      kpe 9,0,2,9,1,9,9,9 S .xx. x... 0 0\n",
            "kpe 9,0,2,9,1,9,9,9 S .xx. x... 0 0\n",
        );
        let game = parse_game_text(text, None).unwrap();
        let e = CliError::from(find_start(&game, None).unwrap_err());
        assert_eq!(e.field.as_deref(), Some("file"), "{e}");
        assert!(e.message.contains("the position after move 3"), "{e}");
        let untampered = text.replace(" S .xx.", " N .xx.");
        let game = parse_game_text(&untampered, None).unwrap();
        assert_eq!(
            find_start(&game, None).unwrap().to_string(),
            "kpe 6,6,6,6,6,6,6,6 S .... .... 0 0"
        );
    }
}
