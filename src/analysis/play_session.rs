//! A game against the oracle (`sow play`): the record, the side the person
//! plays, the oracle's level and its seeded choices; the oracle's moves,
//! hints, taking moves back and the saved game. The command line reads
//! the commands and prints; this holds the game.

use super::game_text::SavedGame;
use super::levels::{level_move, Level};
use super::move_values::MoveValues;
use super::oracle::Oracle;
use crate::error::{CliError, ErrorKind, InputError};
use crate::game::Side;
use crate::infra::rng::Rng;
use crate::record::GameRecord;
use crate::search::Searchable;

/// One game in progress.
pub struct Session<G: Searchable> {
    record: GameRecord<G>,
    /// The side the person plays.
    pub human: Side,
    pub level: Level,
    rng: Rng,
}

impl<G: Searchable> Session<G> {
    /// A game from `start`; the oracle plays at `level`, its choices drawn
    /// with `seed`.
    pub fn new(start: G, human: Side, level: Level, seed: u64) -> Self {
        Session {
            record: GameRecord::new(start),
            human,
            level,
            rng: Rng::new(seed),
        }
    }

    pub fn record(&self) -> &GameRecord<G> {
        &self.record
    }

    /// Whether the oracle is to move (the game is not over).
    pub fn oracle_to_move(&self) -> bool {
        !self.record.is_finished() && self.record.current().side_to_move() != self.human
    }

    /// `you`, or the oracle at its level.
    pub fn player_name(&self, side: Side) -> String {
        match side == self.human {
            true => "you".to_string(),
            false => format!("sow {}", self.level),
        }
    }

    /// The oracle's move at its level, played.
    pub fn oracle_move(&mut self, oracle: &mut dyn Oracle<G>) -> Result<G::Move, CliError> {
        let pos = self.record.current().clone();
        let mv = level_move(&pos, self.level, oracle, &mut self.rng)?.ok_or_else(no_move)?;
        self.record.push(mv)?;
        Ok(mv)
    }

    /// The person's move, in notation, played if legal.
    pub fn play(&mut self, text: &str) -> Result<G::Move, InputError> {
        self.record.push_text(text)
    }

    /// Every move of the position with its value, by `oracle`.
    pub fn hint(&self, oracle: &mut dyn Oracle<G>) -> Result<MoveValues<G::Move>, CliError> {
        Ok(oracle.move_values(self.record.current())?)
    }

    /// Takes back moves to the person's previous turn (at least one move);
    /// returns how many (0: none to take back).
    pub fn undo(&mut self) -> usize {
        let moves = self.record.moves().to_vec();
        if moves.is_empty() {
            return 0;
        }
        let side_before = |k: usize| match k {
            0 => self.record.start().side_to_move(),
            k => self.record.positions()[k - 1].side_to_move(),
        };
        let mut keep = moves.len() - 1;
        while keep > 0 && side_before(keep) != self.human {
            keep -= 1;
        }
        let mut record = GameRecord::new(self.record.start().clone());
        for mv in &moves[..keep] {
            record.push(*mv).expect("a move of the record");
        }
        self.record = record;
        moves.len() - keep
    }

    /// The game as `save FILE` writes it.
    pub fn saved(&self) -> SavedGame {
        let names = [Side::South, Side::North].map(|s| self.player_name(s));
        SavedGame::new(&self.record, names)
    }
}

/// The oracle returned no move in a position that is not over: a search
/// stopped before its first iteration. `sow play` never sets its stop
/// flag, so this is not expected, but it is an error, not a panic.
fn no_move() -> CliError {
    CliError::new(
        ErrorKind::Internal,
        None,
        "the engine found no move (its search was stopped before the first iteration)",
    )
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    use super::*;
    use crate::analysis::oracle::SearchOracle;
    use crate::games::kpe::KpePosition;
    use crate::search::{Limits, TranspositionTable};

    fn kpe(text: &str) -> KpePosition {
        crate::games::kpe::parse_position(text).unwrap()
    }

    /// An engine search that returns no move (stopped before its first
    /// iteration, as after a Ctrl-C caught by a flag) is an error, not a
    /// panic.
    #[test]
    fn an_engine_without_a_move_is_an_error() {
        let stopped = Arc::new(AtomicBool::new(true));
        let tt = TranspositionTable::new(1);
        let mut oracle = SearchOracle::new(Limits::seconds(1.0), 1, tt, stopped);
        let mut session = Session::new(kpe("kpe"), Side::North, Level::Perfect, 1);
        let err = session.oracle_move(&mut oracle).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Internal);
        assert!(err.message.contains("no move"), "{}", err.message);
    }

    /// `undo` takes back to the person's previous turn, and the saved
    /// game names both players.
    #[test]
    fn undo_goes_back_to_the_persons_turn() {
        let mut session = Session::new(kpe("kpe:3x3"), Side::South, Level::Good, 1);
        assert_eq!(session.undo(), 0);
        session.play("0").unwrap();
        session.play("3").unwrap();
        assert_eq!(session.record().moves().len(), 2);
        assert_eq!(session.undo(), 2, "back to South's turn");
        assert_eq!(session.record().moves().len(), 0);
        session.play("0").unwrap();
        let saved = session.saved();
        assert_eq!(
            (saved.south.as_str(), saved.north.as_str()),
            ("you", "sow good")
        );
        assert_eq!(saved.end, "unfinished");
    }
}
