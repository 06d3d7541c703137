//! `sow play [POSITION]`: a game against the oracle in the terminal, for
//! both games. The board as `show` draws it, the legal moves, and the
//! commands `hint`, `undo`, `flip`, `save FILE`, `quit`. Every prompt is a
//! line and every turn is flushed, so the game can be scripted through a
//! pipe; the end of the input ends the session cleanly.

use std::io::BufRead;
use std::sync::Arc;

use super::{args, parse_any, AnyPosition, CliError, Out};
use crate::analysis::kiothi_tables::coverage;
use crate::analysis::levels::Level;
use crate::analysis::oracle::Oracle;
use crate::analysis::play_session::Session;
use crate::analysis::search_budget::{Budget, PLAY_SECONDS};
use crate::analysis::value_sources::{ValueSources, Valued};
use crate::error::ErrorKind;
use crate::game::Side;
use crate::infra::files;
use crate::infra::progress::Progress;
use crate::report::board::{side_name, Board};
use crate::report::play as text;

#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    /// Start position (quoted notation or a shortcut); the standard Kpé start by default.
    #[arg(default_value = "kpe")]
    pub position: String,
    /// The side you play.
    #[arg(long = "as", value_enum, default_value = "S")]
    pub side: Side,
    /// The oracle's strength (docs/reference.md, "Levels": how each chooses its moves).
    #[arg(long, value_enum, default_value = "perfect")]
    pub level: Level,
    /// Search time per move and per hint, in seconds (Kiothi; Kpé is
    /// exact from its database unless this is given). Default 1.
    #[arg(long, value_name = "SECONDS", value_parser = args::seconds)]
    pub time: Option<f64>,
    /// Seed of the weaker levels' choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub db: super::paths::DbDir,
    #[command(flatten)]
    pub hash: args::SearchHash,
}

impl PlayArgs {
    pub fn run(&self, threads: usize, out: &mut Out) -> Result<(), CliError> {
        if out.json {
            return Err(CliError::usage(
                "json",
                "sow play is interactive: --json is not supported",
            ));
        }
        args::check_hash(self.hash.mb)?;
        let start = parse_any(&self.position)?;
        let sources = ValueSources::new(self.db.given(), Progress::auto(out.quiet));
        if let AnyPosition::Kiothi(_) = start {
            if let Some(n) = sources.kiothi_tables()?.max_stones() {
                out.line(format!("endgame tables: {}", coverage(n)))?;
            }
        }
        let budget = Budget {
            seconds: Some(self.time.unwrap_or(PLAY_SECONDS)),
            hash_mb: self.hash.mb,
            threads,
            ..Budget::default()
        };
        // No Ctrl-C handler: Ctrl-C ends the session as in any terminal
        // program (a stop flag would stop every later search at once), and
        // nothing is written mid-session (`save` is atomic).
        let stop = Arc::default();
        let input = &mut std::io::stdin().lock();
        let exact = self.time.is_none();
        crate::with_position!(start, p => {
            let mut session = Session::new(p, self.side, self.level, self.seed);
            sources.with_oracle(&p, exact, &budget, stop, |o| play(&mut session, o, input, out))
        })
    }
}

/// The session: the oracle's moves, the person's commands, until `quit`
/// or the end of the input.
fn play<G: Board + Valued>(
    s: &mut Session<G>,
    oracle: &mut dyn Oracle<G>,
    input: &mut dyn BufRead,
    out: &mut Out,
) -> Result<(), CliError> {
    out.line(text::greeting(s))?;
    board(s, out)?;
    let mut announced = false;
    loop {
        if let Some(result) = text::result(s) {
            if !announced {
                out.line(result)?;
                announced = true;
            }
        } else if s.oracle_to_move() {
            let side = side_name(s.record().current().side_to_move());
            let mv = s.oracle_move(oracle)?;
            out.line(format!(
                "{}. {side} (sow) plays {mv}",
                s.record().moves().len()
            ))?;
            board(s, out)?;
            continue;
        } else {
            out.line(text::prompt(s))?;
        }
        out.flush()?;
        match command(s, oracle, input, out)? {
            Command::Quit => return Ok(()),
            Command::Undone => announced = false,
            Command::Done => {}
        }
    }
}

/// What a line of input did.
enum Command {
    Quit,
    /// Moves were taken back: a finished game is announced again.
    Undone,
    Done,
}

/// Reads and runs one line of input.
fn command<G: Board + Valued>(
    s: &mut Session<G>,
    oracle: &mut dyn Oracle<G>,
    input: &mut dyn BufRead,
    out: &mut Out,
) -> Result<Command, CliError> {
    // Read as bytes: a line that is not UTF-8 is refused like any bad
    // input, it does not end the session (`read_line` failed on it).
    let mut bytes = Vec::new();
    let read = input
        .read_until(b'\n', &mut bytes)
        .map_err(|e| CliError::new(ErrorKind::Io, Some("input"), format!("reading input: {e}")))?;
    if read == 0 {
        out.line("end of input: goodbye")?;
        return Ok(Command::Quit);
    }
    let Ok(line) = String::from_utf8(bytes) else {
        out.line("refused: the line is not UTF-8 text")?;
        out.flush()?;
        return Ok(Command::Done);
    };
    let line = line.trim();
    let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let mut done = Command::Done;
    match word {
        "" => {}
        "quit" | "exit" => {
            out.line("goodbye")?;
            return Ok(Command::Quit);
        }
        "help" => out.line(
            "commands: a move in notation, hint (every move with its value), undo, flip (swap sides), save FILE, board, quit",
        )?,
        "board" | "show" => board(s, out)?,
        "hint" => hint(s, oracle, out)?,
        "undo" => match s.undo() {
            0 => out.line("nothing to undo")?,
            n => {
                out.line(format!("took back {n} move(s)"))?;
                board(s, out)?;
                done = Command::Undone;
            }
        },
        "flip" => {
            s.human = s.human.other();
            out.line(format!("you now play {}", side_name(s.human)))?;
        }
        "save" => save(s, rest.trim(), out)?,
        _ if s.record().is_finished() => out.line(format!(
            "the game is over: `{line}` is not a command here (save FILE, undo, quit)"
        ))?,
        _ => match s.play(line) {
            Ok(_) => board(s, out)?,
            Err(e) => out.line(format!("refused: {e}"))?,
        },
    }
    out.flush()?;
    Ok(done)
}

fn board<G: Board + Valued>(s: &Session<G>, out: &mut Out) -> Result<(), CliError> {
    let pos = s.record().current();
    out.line("")?;
    out.line(pos.draw())?;
    out.line(format!("position {pos}"))
}

fn hint<G: Board + Valued>(
    s: &Session<G>,
    oracle: &mut dyn Oracle<G>,
    out: &mut Out,
) -> Result<(), CliError> {
    if s.record().is_finished() {
        return out.line("the game is over: no hint");
    }
    let values = s.hint(oracle)?;
    out.lines(text::hint(s, &values))
}

fn save<G: Board + Valued>(s: &Session<G>, file: &str, out: &mut Out) -> Result<(), CliError> {
    if file.is_empty() {
        return out.line("save needs a file name: save FILE");
    }
    match files::write_atomic(std::path::Path::new(file), s.saved().line().as_bytes()) {
        Ok(()) => out.line(format!("saved to {file} (sow analyze {file})")),
        // A bad path is the player's typo, not the end of the game.
        Err(e) => out.line(format!("not saved: {e}")),
    }
}
