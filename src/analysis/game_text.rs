//! Reading a played game from text, whatever wrote it: a start position
//! line followed by moves (whitespace or one per line); the JSON lines of
//! `sow match --records` and of `sow play`'s `save`; `sow apply --json`; or
//! `sow apply`'s text output. Only the text is read here: the start and the
//! moves stay strings, checked when the game is replayed. `sow play`'s
//! saved game ([`SavedGame`]) is written here too, beside its reader.

use serde::Serialize;
use serde_json::Value;
use thiserror::Error;

use crate::error::{CliError, ErrorKind, InputError};
use crate::game::{Game, Side};
use crate::record::GameRecord;

/// What `sow play`'s `save FILE` writes: one JSON line that
/// [`parse_game_text`] reads (`start`, `moves`, `south`, `north`).
#[derive(Serialize)]
pub struct SavedGame {
    pub start: String,
    pub moves: Vec<String>,
    /// `over`, `repetition` or `unfinished`.
    pub end: &'static str,
    pub plies: usize,
    /// Final stones of South and North once the game is over.
    pub points: Option<[f64; 2]>,
    pub winner: Option<char>,
    pub south: String,
    pub north: String,
}

impl SavedGame {
    /// The game of `record`, played by `names` (South's, North's).
    pub fn new<G: Game>(record: &GameRecord<G>, names: [String; 2]) -> Self {
        let result = record.result();
        let [south, north] = names;
        SavedGame {
            start: record.start().to_string(),
            moves: record.moves().iter().map(|m| m.to_string()).collect(),
            end: result.map_or("unfinished", |r| r.termination.word()),
            plies: record.moves().len(),
            points: result.map(|r| r.totals),
            winner: result.and_then(|r| r.winner()).map(Side::letter),
            south,
            north,
        }
    }

    /// The JSON line, newline included.
    pub fn line(&self) -> String {
        serde_json::to_string(self).expect("JSON") + "\n"
    }
}

/// A game as read from text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameText {
    /// The start position in notation, when the text gives it (a match
    /// record written before its `start` key was added does not).
    pub start: Option<String>,
    /// Every move in notation, in order (a match record's random opening
    /// plies first).
    pub moves: Vec<String>,
    /// The position after each move, when the text lists them (`sow apply`
    /// text output): used to find and check the start.
    pub after: Vec<String>,
    /// South's and North's players, when the record names them.
    pub names: [Option<String>; 2],
    /// Moves at the start that no player chose (a match record's random
    /// `opening` plies).
    pub opening_plies: usize,
}

/// Why a game's text was refused.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum GameTextError {
    #[error(transparent)]
    Input(#[from] InputError),
    /// A record was picked in an input that holds one game, not records.
    #[error("a record number picks a game of a JSON-lines file; this input holds one game")]
    NotRecords,
}

impl GameTextError {
    /// The field at fault.
    pub fn field(&self) -> Option<&str> {
        match self {
            GameTextError::Input(e) => e.field(),
            GameTextError::NotRecords => Some("record"),
        }
    }
}

impl From<GameTextError> for CliError {
    fn from(e: GameTextError) -> Self {
        match e {
            GameTextError::Input(e) => e.into(),
            e => CliError::new(ErrorKind::Malformed, e.field(), e.to_string()),
        }
    }
}

/// Reads a game. `record` picks one game of a JSON-lines file: the object
/// whose `game` field equals it, else the one at that 0-based place among
/// the records; the first game by default.
pub fn parse_game_text(text: &str, record: Option<usize>) -> Result<GameText, GameTextError> {
    // A byte-order mark (some Windows editors write one) is not text.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // Each line keeps its 1-based number in the file: errors name the
    // file's line, blank and `#` lines counted.
    let lines: Vec<Line> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let Some(&(_, first)) = lines.first() else {
        return Err(InputError::malformed("file", "no game in the input (it is empty)").into());
    };
    if first.starts_with('{') {
        return Ok(from_json_lines(&lines, record)?);
    }
    if record.is_some() {
        return Err(GameTextError::NotRecords);
    }
    if is_apply_line(first) {
        return Ok(from_apply_text(&lines)?);
    }
    // A start position line, then moves.
    let moves = lines[1..]
        .iter()
        .flat_map(|(_, l)| l.split_whitespace())
        .map(str::to_string)
        .collect();
    Ok(GameText {
        start: Some(first.to_string()),
        moves,
        ..GameText::default()
    })
}

/// A line of the input with its 1-based number in the file.
type Line<'a> = (usize, &'a str);

/// `  1. 2      kpe 7,6,0,...`: a ply number, a move, the position after.
fn is_apply_line(line: &str) -> bool {
    let Some((number, _)) = line.split_once(". ") else {
        return false;
    };
    !number.is_empty() && number.chars().all(|c| c.is_ascii_digit())
}

fn from_apply_text(lines: &[Line]) -> Result<GameText, InputError> {
    let mut game = GameText::default();
    for (i, &(number, line)) in lines.iter().enumerate() {
        if !is_apply_line(line) {
            // The last line repeats the final position.
            if i + 1 == lines.len() {
                return check_final_line(game, number, line);
            }
            return Err(InputError::malformed(
                "file",
                format!("line {number} is not `N. MOVE POSITION` as `sow apply` prints: `{line}`"),
            ));
        }
        let (_, rest) = line.split_once(". ").expect("checked");
        let rest = rest.trim_start();
        let (mv, after) = rest.split_once(char::is_whitespace).ok_or_else(|| {
            InputError::malformed(
                "file",
                format!("line {number} has no position after its move"),
            )
        })?;
        game.moves.push(mv.to_string());
        game.after.push(after.trim().to_string());
    }
    Ok(game)
}

/// `sow apply`'s last line, `line` (line `number` of the file), must be
/// the final position it listed: anything else there is not its output
/// (the line was skipped unread). `apply` prints both from the same
/// position, so they are compared as text, spaces aside.
fn check_final_line(game: GameText, number: usize, line: &str) -> Result<GameText, InputError> {
    match game.after.last() {
        Some(last) if last.split_whitespace().eq(line.split_whitespace()) => Ok(game),
        last => Err(InputError::malformed(
            "file",
            format!(
                "line {number} should repeat the final position `{}` as `sow apply` prints it, found `{line}`",
                last.map_or("", String::as_str)
            ),
        )),
    }
}

fn strings(v: &Value, key: &str, line: usize) -> Result<Vec<String>, InputError> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|m| {
                m.as_str().map(str::to_string).ok_or_else(|| {
                    InputError::malformed(
                        key,
                        format!("record on line {line}: `{key}` must hold move strings, found {m}"),
                    )
                })
            })
            .collect(),
        Some(other) => Err(InputError::malformed(
            key,
            format!("record on line {line}: `{key}` must be a list of moves, found {other}"),
        )),
    }
}

fn from_json_lines(lines: &[Line], record: Option<usize>) -> Result<GameText, InputError> {
    let mut objects = Vec::with_capacity(lines.len());
    for &(number, line) in lines {
        let v: Value = serde_json::from_str(line).map_err(|e| {
            InputError::malformed("file", format!("line {number} is not a JSON object: {e}"))
        })?;
        if !v.is_object() {
            return Err(InputError::malformed(
                "file",
                format!("line {number} is not a JSON object"),
            ));
        }
        objects.push(v);
    }
    let index = match record {
        None => 0,
        Some(n) => objects
            .iter()
            .position(|o| o.get("game").and_then(Value::as_u64) == Some(n as u64))
            .or((n < objects.len()).then_some(n))
            .ok_or_else(|| {
                InputError::malformed(
                    "record",
                    format!("no game {n} among the {} records", objects.len()),
                )
            })?,
    };
    let v = &objects[index];
    let line = lines[index].0;
    if v.get("moves").is_none() {
        return Err(InputError::malformed(
            "moves",
            format!("record on line {line} has no `moves` list"),
        ));
    }
    let start = match v.get("start") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            return Err(InputError::malformed(
                "start",
                format!("record on line {line}: `start` must be a position string, found {other}"),
            ))
        }
    };
    let mut moves = strings(v, "opening", line)?;
    let opening_plies = moves.len();
    moves.extend(strings(v, "moves", line)?);
    let name = |key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
    Ok(GameText {
        start,
        moves,
        after: strings(v, "positions", line)?,
        names: [name("south"), name("north")],
        opening_plies,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_line_then_moves() {
        let g = parse_game_text("kpe:3x3 3,3,3,3,3,3 S ... ...\n0 3\n1\n\n 4 ", None).unwrap();
        assert_eq!(g.start.as_deref(), Some("kpe:3x3 3,3,3,3,3,3 S ... ..."));
        assert_eq!(g.moves, ["0", "3", "1", "4"]);
    }

    #[test]
    fn match_records_join_opening_and_moves_and_pick_a_game() {
        let text = concat!(
            r#"{"game":0,"south":"a","north":"b","opening":["2"],"moves":["4","1"]}"#,
            "\n",
            r#"{"game":1,"south":"b","north":"a","opening":["3"],"moves":["5"]}"#,
            "\n"
        );
        let g = parse_game_text(text, None).unwrap();
        assert_eq!(
            (g.start, g.moves.clone()),
            (None, vec!["2".into(), "4".into(), "1".into()])
        );
        assert_eq!(g.names, [Some("a".to_string()), Some("b".to_string())]);
        assert_eq!(g.opening_plies, 1);
        let g = parse_game_text(text, Some(1)).unwrap();
        assert_eq!(g.moves, ["3", "5"]);
        assert_eq!(
            parse_game_text(text, Some(7)).unwrap_err().field(),
            Some("record")
        );
    }

    #[test]
    fn apply_outputs_are_read() {
        let json = r#"{"final":"kpe 8,7,1,8,0,8,8,8 S ..x. x... 0 0","moves":["2","4"],"over":false,"positions":["a","b"],"start":"kpe 6,6,6,6,6,6,6,6 S .... .... 0 0"}"#;
        let g = parse_game_text(json, None).unwrap();
        assert_eq!(
            g.start.as_deref(),
            Some("kpe 6,6,6,6,6,6,6,6 S .... .... 0 0")
        );
        assert_eq!(g.moves, ["2", "4"]);
        let text = "  1. 2      kpe 7,6,0,7,7,7,7,7 N ..x. .... 0 0\n  2. 4      kpe 8,7,1,8,0,8,8,8 S ..x. x... 0 0\nkpe 8,7,1,8,0,8,8,8 S ..x. x... 0 0\n";
        let g = parse_game_text(text, None).unwrap();
        assert_eq!(g.start, None);
        assert_eq!(g.moves, ["2", "4"]);
        assert_eq!(g.after[1], "kpe 8,7,1,8,0,8,8,8 S ..x. x... 0 0");
    }

    /// What `sow play` saves is read back: its start, moves and players.
    #[test]
    fn a_saved_game_is_read_back() {
        let start = crate::games::kpe::parse_position("kpe:3x3").unwrap();
        let mut record = GameRecord::new(start);
        record.push_text("0").unwrap();
        let names = ["you".to_string(), "sow good".to_string()];
        let g = parse_game_text(&SavedGame::new(&record, names).line(), None).unwrap();
        assert_eq!(g.start, Some(start.to_string()));
        assert_eq!(g.moves, ["0"]);
        assert_eq!(g.names, [Some("you".into()), Some("sow good".into())]);
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let g = parse_game_text("\u{feff}kpe:3x3\r\n0 3\r\n", None).unwrap();
        assert_eq!(g.start.as_deref(), Some("kpe:3x3"));
        assert_eq!(g.moves, ["0", "3"]);
        let g = parse_game_text("\u{feff}{\"moves\":[\"2\"]}\n", None).unwrap();
        assert_eq!(g.moves, ["2"]);
    }

    /// Errors name the file's own line numbers, blank and `#` lines
    /// counted (they were numbered after those were dropped).
    #[test]
    fn errors_give_the_files_line_numbers() {
        let message = |text: &str, record| parse_game_text(text, record).unwrap_err().to_string();
        let jsonl = "\n\n{\"moves\":[\"2\",\"4\"]}\n\n# c\n{\"moves\":\n";
        assert!(
            message(jsonl, None).contains("line 6 "),
            "{}",
            message(jsonl, None)
        );
        let jsonl = "# games\n\n{\"moves\":[\"2\"]}\n\n{\"moves\":[2]}\n";
        assert!(
            message(jsonl, Some(1)).contains("on line 5:"),
            "{}",
            message(jsonl, Some(1))
        );
        let apply = "\n  1. 2      kpe 7,6,0,7,7,7,7,7 N ..x. .... 0 0\n\n# x\n  2. 4\nkpe\n";
        assert!(
            message(apply, None).contains("line 5 "),
            "{}",
            message(apply, None)
        );
    }

    /// The last line of `sow apply`'s text must repeat its final position
    /// (it was skipped unread: nonsense there was accepted).
    #[test]
    fn the_apply_texts_final_line_is_checked() {
        let listed = "  1. 2      kpe 7,6,0,7,7,7,7,7 N ..x. .... 0 0\n";
        let ok = format!("{listed}kpe  7,6,0,7,7,7,7,7 N ..x. ....  0 0\n");
        assert_eq!(parse_game_text(&ok, None).unwrap().moves, ["2"]);
        let bad = format!("{listed}\ntotal nonsense here\n");
        let e = parse_game_text(&bad, None).unwrap_err();
        assert_eq!(e.field(), Some("file"));
        assert!(e.to_string().contains("line 3 should repeat"), "{e}");
    }

    #[test]
    fn bad_input_names_the_field() {
        assert_eq!(parse_game_text("", None).unwrap_err().field(), Some("file"));
        assert_eq!(
            parse_game_text("{oops", None).unwrap_err().field(),
            Some("file")
        );
        assert_eq!(
            parse_game_text(r#"{"moves":[1,2]}"#, None)
                .unwrap_err()
                .field(),
            Some("moves")
        );
        assert_eq!(
            parse_game_text(r#"{"start":"kpe"}"#, None)
                .unwrap_err()
                .field(),
            Some("moves")
        );
    }
}
