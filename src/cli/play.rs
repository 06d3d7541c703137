//! `sow play [POSITION]`: a game against the oracle in the terminal, for
//! both games. The board as `show` draws it, the legal moves, and the
//! commands `hint`, `undo`, `flip`, `save FILE`, `quit`. Every prompt is a
//! line and every turn is flushed, so the game can be scripted through a
//! pipe; the end of the input ends the session cleanly.

use std::io::BufRead;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use serde::Serialize;

use super::board::side_name;
use super::{parse_any, AnyPosition, Board, CliError, Out};
use crate::analysis::levels::{level_move, Level};
use crate::analysis::oracle::{Oracle, SearchOracle};
use crate::error::ErrorKind;
use crate::game::Side;
use crate::infra::files;
use crate::infra::rng::Rng;
use crate::record::{GameRecord, Termination};
use crate::search::{Limits, Searchable};

/// Search time per move of the engine, and per `hint`, when `--time` is
/// not given (Kiothi, or Kpé with `--time`).
pub const DEFAULT_SECONDS: f64 = 1.0;

/// Legal moves listed at each turn up to this many (a Kiothi opening has
/// hundreds of millions: only their count is given).
const LIST_LIMIT: u64 = 200;

/// Moves shown by `hint` in a Kiothi opening (the best candidates).
const OPENING_HINTS: usize = 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SideArg {
    #[value(name = "S", alias = "s")]
    South,
    #[value(name = "N", alias = "n")]
    North,
}

#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    /// Start position (quoted notation or a shortcut); the standard Kpé start by default.
    #[arg(default_value = "kpe")]
    pub position: String,
    /// The side you play.
    #[arg(long = "as", value_enum, default_value = "S")]
    pub side: SideArg,
    /// The oracle's strength (README "Levels": how each chooses its moves).
    #[arg(long, value_enum, default_value = "perfect")]
    pub level: Level,
    /// Search time per move and per hint, in seconds (Kiothi; Kpé is
    /// exact from its database unless this is given). Default 1.
    #[arg(long, value_name = "SECONDS", value_parser = super::args::seconds)]
    pub time: Option<f64>,
    /// Seed of the weaker levels' choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub db: super::paths::DbDir,
    #[command(flatten)]
    pub hash: super::args::SearchHash,
}

/// What `save FILE` writes: one JSON line that `sow analyze` reads.
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

impl PlayArgs {
    pub fn run(&self, threads: usize, out: &mut Out) -> Result<(), CliError> {
        if out.json {
            return Err(CliError::usage(
                "json",
                "sow play is interactive: --json is not supported",
            ));
        }
        super::search_eval::check_hash(self.hash.mb)?;
        let start = parse_any(&self.position)?;
        let human = match self.side {
            SideArg::South => Side::South,
            SideArg::North => Side::North,
        };
        let seconds = self.time.unwrap_or(DEFAULT_SECONDS);
        // No Ctrl-C handler here: in an interactive session Ctrl-C must end
        // the process as in any terminal program. A handler that only sets
        // a flag left every later engine search stopped at once (no move)
        // and did nothing at the prompt. Nothing is written mid-session
        // (`save` is atomic), so being killed loses nothing.
        let stop = Arc::new(AtomicBool::new(false));
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        match start {
            AnyPosition::Kpe(p) if self.time.is_none() => {
                let mut oracle = super::eval::kpe_oracle(&p, self.db.given(), out.quiet)?;
                Session::new(p, human, self).play(&mut oracle, &mut input, out)
            }
            AnyPosition::Kpe(p) => {
                let mut oracle =
                    SearchOracle::new(Limits::seconds(seconds), threads, self.hash.mb, stop);
                Session::new(p, human, self).play(&mut oracle, &mut input, out)
            }
            AnyPosition::Kiothi(p) => {
                let tables = crate::analysis::kiothi_tables::for_search(self.db.given())?;
                if let Some(n) = tables.max_stones() {
                    out.line(format!(
                        "endgame tables: {}",
                        crate::analysis::kiothi_tables::coverage(n)
                    ))?;
                }
                let mut oracle =
                    SearchOracle::new(Limits::seconds(seconds), threads, self.hash.mb, stop)
                        .with_exact(tables);
                Session::new(p, human, self).play(&mut oracle, &mut input, out)
            }
        }
    }
}

/// The engine returned no move in a position that is not over: a search
/// stopped before its first iteration. Its stop flag is never set in
/// `play`, so this is not expected, but it is an error, not a panic.
fn no_engine_move() -> CliError {
    CliError::new(
        ErrorKind::Internal,
        None,
        "the engine found no move (its search was stopped before the first iteration)",
    )
}

/// One game in progress.
struct Session<G: Board + Searchable> {
    record: GameRecord<G>,
    human: Side,
    level: Level,
    rng: Rng,
    /// The result of the finished game has been printed.
    announced: bool,
}

impl<G: Board + Searchable> Session<G> {
    fn new(start: G, human: Side, args: &PlayArgs) -> Self {
        Session {
            record: GameRecord::new(start),
            human,
            level: args.level,
            rng: Rng::new(args.seed),
            announced: false,
        }
    }

    fn player_name(&self, side: Side) -> String {
        if side == self.human {
            "you".to_string()
        } else {
            format!("sow {}", self.level)
        }
    }

    fn board(&self, out: &mut Out) -> Result<(), CliError> {
        let pos = self.record.current();
        out.line("")?;
        out.line(pos.draw())?;
        out.line(format!("position {pos}"))
    }

    fn play<O: Oracle<G>>(
        &mut self,
        oracle: &mut O,
        input: &mut dyn BufRead,
        out: &mut Out,
    ) -> Result<(), CliError> {
        out.line(format!(
            "sow play: you are {}, sow plays {} at level {}. Commands: a move, hint, undo, flip, save FILE, quit",
            side_name(self.human),
            side_name(self.human.other()),
            self.level
        ))?;
        self.board(out)?;
        loop {
            if self.record.is_finished() {
                if !self.announced {
                    self.result(out)?;
                    self.announced = true;
                }
                out.flush()?;
                // The game is over; the input may still save it or undo.
                if !self.command(oracle, input, out)? {
                    return Ok(());
                }
                continue;
            }
            let pos = self.record.current().clone();
            let mover = pos.side_to_move();
            if mover != self.human {
                let mv = level_move(&pos, self.level, oracle, &mut self.rng)?
                    .ok_or_else(no_engine_move)?;
                self.record.push(mv)?;
                out.line(format!(
                    "{}. {} (sow) plays {mv}",
                    self.record.moves().len(),
                    side_name(mover)
                ))?;
                self.board(out)?;
                continue;
            }
            let count = pos.move_count();
            let legal = if count <= LIST_LIMIT {
                pos.legal_moves()
                    .iter()
                    .map(|m| m.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            } else {
                format!("{count} moves (notation a+b>targets; `hint` lists the best found)")
            };
            out.line(format!("your move ({}), legal: {legal}", side_name(mover)))?;
            out.flush()?;
            if !self.command(oracle, input, out)? {
                return Ok(());
            }
        }
    }

    /// Reads and runs one line of input; false at `quit` or the end of input.
    fn command<O: Oracle<G>>(
        &mut self,
        oracle: &mut O,
        input: &mut dyn BufRead,
        out: &mut Out,
    ) -> Result<bool, CliError> {
        // Read as bytes: a line that is not UTF-8 is refused like any bad
        // input, it does not end the session (`read_line` failed on it).
        let mut bytes = Vec::new();
        let read = input.read_until(b'\n', &mut bytes).map_err(|e| {
            CliError::new(ErrorKind::Io, Some("input"), format!("reading input: {e}"))
        })?;
        if read == 0 {
            out.line("end of input: goodbye")?;
            return Ok(false);
        }
        let Ok(line) = String::from_utf8(bytes) else {
            out.line("refused: the line is not UTF-8 text")?;
            out.flush()?;
            return Ok(true);
        };
        let line = line.trim();
        let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        match word {
            "" => {}
            "quit" | "exit" => {
                out.line("goodbye")?;
                return Ok(false);
            }
            "help" => out.line(
                "commands: a move in notation, hint (every move with its value), undo, flip (swap sides), save FILE, board, quit",
            )?,
            "board" | "show" => self.board(out)?,
            "hint" => self.hint(oracle, out)?,
            "undo" => self.undo(out)?,
            "flip" => {
                self.human = self.human.other();
                out.line(format!("you now play {}", side_name(self.human)))?;
            }
            "save" => self.save(rest.trim(), out)?,
            _ if self.record.is_finished() => {
                out.line(format!("the game is over: `{line}` is not a command here (save FILE, undo, quit)"))?
            }
            _ => match self.record.push_text(line) {
                Ok(_) => self.board(out)?,
                Err(e) => out.line(format!("refused: {e}"))?,
            },
        }
        out.flush()?;
        Ok(true)
    }

    fn hint<O: Oracle<G>>(&mut self, oracle: &mut O, out: &mut Out) -> Result<(), CliError> {
        let pos = self.record.current().clone();
        if self.record.is_finished() {
            return out.line("the game is over: no hint");
        }
        let values = oracle.move_values(&pos)?;
        let shown = if values.complete {
            values.moves.len()
        } else {
            out.line(format!(
                "the opening explorer's best redistributions (the search's {} candidates of {} legal moves, depth {}):",
                values.moves.len(),
                pos.move_count(),
                values.depth
            ))?;
            OPENING_HINTS
        };
        for m in values.moves.iter().take(shown) {
            out.line(format!(
                "  {:<24} {:+4} {}",
                m.mv.to_string(),
                m.value,
                if m.exact { "exact" } else { "estimate" }
            ))?;
        }
        Ok(())
    }

    /// Takes back moves to the previous turn of yours (at least one move).
    fn undo(&mut self, out: &mut Out) -> Result<(), CliError> {
        let mut keep = self.record.moves().len();
        if keep == 0 {
            return out.line("nothing to undo");
        }
        keep -= 1;
        let start = self.record.start().clone();
        let moves = self.record.moves().to_vec();
        let side_at = |k: usize| {
            moves[..k]
                .iter()
                .fold(start.clone(), |p, m| p.play_unchecked(m))
                .side_to_move()
        };
        while keep > 0 && side_at(keep) != self.human {
            keep -= 1;
        }
        let mut record = GameRecord::new(start);
        for mv in &moves[..keep] {
            record.push(*mv)?;
        }
        self.record = record;
        self.announced = false;
        out.line(format!("took back {} move(s)", moves.len() - keep))?;
        self.board(out)
    }

    fn save(&self, file: &str, out: &mut Out) -> Result<(), CliError> {
        if file.is_empty() {
            return out.line("save needs a file name: save FILE");
        }
        let result = self.record.result();
        let saved = SavedGame {
            start: self.record.start().to_string(),
            moves: self.record.moves().iter().map(|m| m.to_string()).collect(),
            end: result.map_or("unfinished", |r| r.termination.word()),
            plies: self.record.moves().len(),
            points: result.map(|r| r.totals),
            winner: result.and_then(|r| r.winner()).map(Side::letter),
            south: self.player_name(Side::South),
            north: self.player_name(Side::North),
        };
        let mut line = serde_json::to_string(&saved).expect("JSON");
        line.push('\n');
        match files::write_atomic(std::path::Path::new(file), line.as_bytes()) {
            Ok(()) => out.line(format!("saved to {file} (sow analyze {file})")),
            // A bad path is the player's typo, not the end of the game.
            Err(e) => out.line(format!("not saved: {e}")),
        }
    }

    fn result(&self, out: &mut Out) -> Result<(), CliError> {
        let Some(r) = self.record.result() else {
            return Ok(());
        };
        let how = match r.termination {
            Termination::NoMove => format!(
                "{} to move has no legal move",
                side_name(self.record.current().side_to_move())
            ),
            Termination::Repetition => {
                "a position occurred for the third time (the board is shared)".to_string()
            }
        };
        let verdict = match r.winner() {
            Some(s) if s == self.human => "you win",
            Some(_) => "sow wins",
            None => "draw",
        };
        // RULES §2.10: "reported as such".
        let one_warrior = if self.record.current().ended_in_one_warrior_victory(r.totals) {
            ", a one-warrior victory"
        } else {
            ""
        };
        out.line(format!(
            "game over: {how}; South {} North {}: {verdict}{one_warrior} (commands: save FILE, undo, quit)",
            r.totals[0], r.totals[1]
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use std::cell::RefCell;
    use std::rc::Rc;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        play: PlayArgs,
    }

    /// An engine search that returns no move (stopped before its first
    /// iteration, as after a Ctrl-C caught by a flag) ends the session
    /// with an error, not a panic.
    #[test]
    fn an_engine_without_a_move_is_an_error() {
        let args = Cli::parse_from(["play", "kpe", "--as", "N"]).play;
        let start = match parse_any("kpe").unwrap() {
            AnyPosition::Kpe(p) => p,
            AnyPosition::Kiothi(_) => unreachable!("kpe is Kpé"),
        };
        let stopped = Arc::new(AtomicBool::new(true));
        let mut oracle = SearchOracle::new(Limits::seconds(1.0), 1, 1, stopped);
        let mut out = Out::new(false, true, Box::new(Vec::new()));
        let mut input: &[u8] = b"quit\n";
        let err = Session::new(start, Side::North, &args)
            .play(&mut oracle, &mut input, &mut out)
            .unwrap_err();
        assert_eq!(err.kind, ErrorKind::Internal);
        assert!(err.message.contains("no move"), "{}", err.message);
    }

    /// Collects what the session prints.
    #[derive(Clone, Default)]
    struct Printed(Rc<RefCell<Vec<u8>>>);

    impl std::io::Write for Printed {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// A line that is not UTF-8 is refused and the session goes on (it
    /// ended with an `io` error).
    #[test]
    fn a_line_that_is_not_utf8_is_refused_and_play_goes_on() {
        let args = Cli::parse_from(["play", "kpe:3x3"]).play;
        let start = match parse_any("kpe:3x3").unwrap() {
            AnyPosition::Kpe(p) => p,
            AnyPosition::Kiothi(_) => unreachable!("kpe:3x3 is Kpé"),
        };
        let stop = Arc::new(AtomicBool::new(false));
        let mut oracle = SearchOracle::new(Limits::seconds(0.1), 1, 1, stop);
        let printed = Printed::default();
        let mut out = Out::new(false, true, Box::new(printed.clone()));
        let mut input: &[u8] = b"\xff\xfe\nboard\nquit\n";
        Session::new(start, Side::South, &args)
            .play(&mut oracle, &mut input, &mut out)
            .unwrap();
        out.flush().unwrap();
        let text = String::from_utf8(printed.0.borrow().clone()).unwrap();
        assert!(text.contains("refused: the line is not UTF-8"), "{text}");
        assert!(text.ends_with("goodbye\n"), "{text}");
    }
}
