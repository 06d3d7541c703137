//! A game as played: start position, moves, positions, and RULES §0's
//! repetition rule (a position occurring for the third time ends the game,
//! the stones on the board being shared evenly); and [`play_out`], the one
//! loop that plays a game to its end (matches, self-play, statistics).

use std::collections::HashMap;

use crate::error::InputError;
use crate::game::{Game, Side};

/// Why a recorded game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Termination {
    /// The player to move has no legal move; the board is swept by the
    /// game's rule (`Game::final_sweep`).
    NoMove,
    /// A position (board, marks, player to move: `Game::repetition_key`)
    /// occurred for the third time; the board is shared evenly.
    Repetition,
}

impl Termination {
    /// The word of game records and analyses: `over` or `repetition`.
    pub fn word(self) -> &'static str {
        match self {
            Termination::NoMove => "over",
            Termination::Repetition => "repetition",
        }
    }
}

/// The outcome of a finished game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GameResult {
    pub termination: Termination,
    /// Final totals per side (`Side::index`): captures (including any made
    /// before the start position) plus the sweep, or plus half the board on
    /// a repetition. Halves are exact in `f64`: an odd board gives `x.5`.
    pub totals: [f64; 2],
}

impl GameResult {
    /// The side with more stones, `None` for a draw.
    pub fn winner(&self) -> Option<Side> {
        winner_of(self.totals)
    }

    /// South's total minus North's.
    pub fn margin(&self) -> f64 {
        self.totals[0] - self.totals[1]
    }
}

/// The side with the larger of final `totals` (per `Side::index`), `None`
/// when they are equal: RULES §0, who wins a game.
pub fn winner_of(totals: [f64; 2]) -> Option<Side> {
    if totals[0] > totals[1] {
        Some(Side::South)
    } else if totals[1] > totals[0] {
        Some(Side::North)
    } else {
        None
    }
}

/// A game record that tracks repetitions of positions.
#[derive(Clone, Debug)]
pub struct GameRecord<G: Game> {
    start: G,
    moves: Vec<G::Move>,
    /// `positions[i]` is the position after `moves[i]`.
    positions: Vec<G>,
    occurrences: HashMap<G, u32>,
    repeated: bool,
}

impl<G: Game> GameRecord<G> {
    /// Occurrences of a position that end the game (RULES §0).
    pub const REPETITION_LIMIT: u32 = 3;

    pub fn new(start: G) -> Self {
        let mut occurrences = HashMap::new();
        occurrences.insert(start.repetition_key(), 1);
        GameRecord {
            start,
            moves: Vec::new(),
            positions: Vec::new(),
            occurrences,
            repeated: false,
        }
    }

    pub fn start(&self) -> &G {
        &self.start
    }

    pub fn moves(&self) -> &[G::Move] {
        &self.moves
    }

    /// Positions after each move, in order (the start is not included).
    pub fn positions(&self) -> &[G] {
        &self.positions
    }

    /// The position now on the board.
    pub fn current(&self) -> &G {
        self.positions.last().unwrap_or(&self.start)
    }

    /// How many times the current position (by `repetition_key`) has occurred.
    pub fn occurrences(&self, pos: &G) -> u32 {
        self.occurrences
            .get(&pos.repetition_key())
            .copied()
            .unwrap_or(0)
    }

    /// Plays `mv`, which must be legal in the current position (as given by
    /// `Game::for_each_move` or `Game::parse_move`). Refused once the game
    /// is finished.
    pub fn push(&mut self, mv: G::Move) -> Result<(), InputError> {
        if let Some(t) = self.termination() {
            let why = match t {
                Termination::NoMove => "the player to move has no legal move",
                Termination::Repetition => "a position occurred for the third time",
            };
            return Err(InputError::illegal(
                mv.to_string(),
                format!("the game is over: {why}"),
            ));
        }
        let next = self.current().play_unchecked(&mv);
        let n = self.occurrences.entry(next.repetition_key()).or_insert(0);
        *n += 1;
        if *n >= Self::REPETITION_LIMIT {
            self.repeated = true;
        }
        self.moves.push(mv);
        self.positions.push(next);
        Ok(())
    }

    /// Parses a move in notation, checks it and plays it.
    pub fn push_text(&mut self, text: &str) -> Result<G::Move, InputError> {
        let mv = self.current().parse_move(text)?;
        self.push(mv)?;
        Ok(mv)
    }

    /// How the game ended, if it has.
    pub fn termination(&self) -> Option<Termination> {
        if self.repeated {
            Some(Termination::Repetition)
        } else if self.current().is_over() {
            Some(Termination::NoMove)
        } else {
            None
        }
    }

    pub fn is_finished(&self) -> bool {
        self.termination().is_some()
    }

    /// Final totals, once the game is finished.
    pub fn result(&self) -> Option<GameResult> {
        let termination = self.termination()?;
        Some(GameResult {
            termination,
            totals: final_totals(self.current(), Some(termination)),
        })
    }
}

/// The final totals per side (RULES §0), the one place they are counted:
/// captures plus the sweep when the game ended with no legal move; plus
/// half the board each when it ended by repetition, or stopped before its
/// end (`None`: the ply cap, a record that stops there), scored as endless
/// play.
pub fn final_totals<G: Game>(pos: &G, ended: Option<Termination>) -> [f64; 2] {
    let captured = pos.captured();
    let extra = match ended {
        Some(Termination::NoMove) => pos.final_sweep().map(|s| s as f64),
        Some(Termination::Repetition) | None => [pos.board_total() as f64 / 2.0; 2],
    };
    [captured[0] as f64 + extra[0], captured[1] as f64 + extra[1]]
}

/// How a game played by [`play_out`] stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// It ended by the rules: no legal move, or a third occurrence.
    Ended(Termination),
    /// The ply cap came first: scored as endless play (RULES §0), the
    /// board shared evenly. A game that ends by the rules at the cap ends
    /// by the rules (the rules come first).
    PlyCap,
}

impl Stop {
    /// The word of game records: `over`, `repetition` or `ply_cap`.
    pub fn word(self) -> &'static str {
        match self {
            Stop::Ended(t) => t.word(),
            Stop::PlyCap => "ply_cap",
        }
    }
}

/// The one game loop: from the record's current position, plays the moves
/// `choose` picks for the player to move until the game ends by the rules
/// (RULES §0: no legal move, or a position occurring for the third time) or
/// the record holds `ply_cap` moves. Returns how it stopped and the final
/// totals per side: captures plus the sweep, or plus half the board each
/// for a repetition or the ply cap. `choose` returns `None` only when there
/// is no legal move.
pub fn play_out<G: Game>(
    record: &mut GameRecord<G>,
    ply_cap: usize,
    mut choose: impl FnMut(&G) -> Option<G::Move>,
) -> (Stop, [f64; 2]) {
    let stop = loop {
        if let Some(t) = record.termination() {
            break Stop::Ended(t);
        }
        if record.moves().len() >= ply_cap {
            break Stop::PlyCap;
        }
        let Some(mv) = choose(record.current()) else {
            break Stop::Ended(Termination::NoMove);
        };
        record.push(mv).expect("the game is not over");
    };
    let ended = match stop {
        Stop::Ended(t) => Some(t),
        Stop::PlyCap => None,
    };
    (stop, final_totals(record.current(), ended))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::kpe::parse_position;

    fn record(text: &str) -> GameRecord<crate::games::kpe::KpePosition> {
        GameRecord::new(parse_position(text).unwrap())
    }

    #[test]
    fn plays_and_tracks_positions() {
        let mut r = record("kpe");
        r.push_text("2").unwrap();
        r.push_text("4").unwrap();
        assert_eq!(r.moves().len(), 2);
        assert_eq!(r.positions().len(), 2);
        assert_eq!(r.current().side_to_move(), Side::South);
        assert!(!r.is_finished());
        assert_eq!(r.result(), None);
        assert!(r.push_text("5").is_err(), "pit 5 is North's");
        assert_eq!(r.moves().len(), 2, "a refused move is not recorded");
    }

    #[test]
    fn play_out_stops_at_the_cap_or_by_the_rules() {
        let first = |p: &crate::games::kpe::KpePosition| p.legal_moves().first().copied();
        let mut r = record("kpe:2x1 0,1,0,1 S xx xx 2 0");
        let (stop, totals) = play_out(&mut r, 1000, first);
        assert_eq!(
            (stop, stop.word()),
            (Stop::Ended(Termination::Repetition), "repetition")
        );
        assert_eq!(totals, r.result().unwrap().totals);
        let mut r = record("kpe:2x1 0,1,0,1 S xx xx 2 0");
        let (stop, totals) = play_out(&mut r, 3, first);
        assert_eq!((stop.word(), r.moves().len()), ("ply_cap", 3));
        assert_eq!(totals[0] + totals[1], 4.0, "the board shared evenly");
        let mut r = record("kpe:2x2 0,0,2,2 S xx xx 4 0");
        assert_eq!(
            play_out(&mut r, 0, first),
            (Stop::Ended(Termination::NoMove), [4.0, 4.0])
        );
    }

    #[test]
    fn game_over_by_no_move_sweeps() {
        // South has no stones: over at once; North keeps its row.
        let r = record("kpe:2x2 0,0,2,2 S xx xx 4 0");
        assert!(r.is_finished());
        let res = r.result().unwrap();
        assert_eq!(res.termination, Termination::NoMove);
        assert_eq!(res.totals, [4.0, 4.0]);
        assert_eq!(res.winner(), None);
    }

    #[test]
    fn the_larger_total_wins_and_equal_totals_draw() {
        assert_eq!(winner_of([24.5, 23.5]), Some(Side::South));
        assert_eq!(winner_of([0.0, 0.5]), Some(Side::North));
        assert_eq!(winner_of([24.0, 24.0]), None);
        assert_eq!(Stop::Ended(Termination::NoMove).word(), "over");
        assert_eq!(Stop::Ended(Termination::Repetition).word(), "repetition");
    }

    #[test]
    fn third_occurrence_ends_the_game_with_the_board_shared() {
        // W=2, one stone each side, both unlocked; the first legal move cycles
        // through 4 plies: 1, 3 (feeding), 0, 2.
        let start = "kpe:2x1 0,1,0,1 S xx xx 2 0";
        let mut r = record(start);
        let mut plies = 0;
        while !r.is_finished() {
            let mv = r.current().legal_moves()[0];
            r.push(mv).unwrap();
            plies += 1;
            assert!(plies < 100, "a cycle must be detected");
        }
        let res = r.result().unwrap();
        assert_eq!(res.termination, Termination::Repetition);
        assert_eq!(plies, 8, "third occurrence of the start after two cycles");
        assert_eq!(res.totals, [3.0, 1.0]);
        assert_eq!(r.occurrences(r.current()), 3);
        let board = r.current().board_total() as f64;
        let cap = r.current().captured();
        assert_eq!(res.totals[0], cap[0] as f64 + board / 2.0);
        assert_eq!(res.totals[1], cap[1] as f64 + board / 2.0);
        assert!(r.push(r.current().legal_moves()[0]).is_err());
    }

    #[test]
    fn repetition_ignores_captures() {
        let a = parse_position("kpe 2,2,2,2,2,2,2,2 S xxxx xxxx 16 16").unwrap();
        let b = parse_position("kpe 2,2,2,2,2,2,2,2 S xxxx xxxx 0 32").unwrap();
        let r = GameRecord::new(a);
        assert_eq!(r.occurrences(&b), 1);
    }
}
