//! RULES §3 notation: positions and moves, printing and parsing.

use std::fmt;
use std::str::FromStr;

use crate::error::InputError;
use crate::game::{Game, Side};

use super::movegen::PlayRefusal;
use super::opening::OpeningMove;
use super::position::{row_start, KiothiPosition, Phase, Setup, PITS, ROW};
use super::sowing::MAX_LAPS;
use super::KiothiMove;

impl fmt::Display for KiothiPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("kiothi ")?;
        for (i, &c) in self.pits.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{c}")?;
            if self.protected & (1 << i) != 0 {
                f.write_str("*")?;
            }
        }
        write!(
            f,
            " {} {} {} {}",
            self.side.letter(),
            self.phase.token(),
            self.prisons[0],
            self.prisons[1]
        )
    }
}

impl fmt::Display for OpeningMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.lifted().iter().enumerate() {
            if i > 0 {
                f.write_str("+")?;
            }
            write!(f, "{p}")?;
        }
        f.write_str(">")?;
        let mut first = true;
        for (pit, &n) in self.placed().iter().enumerate() {
            for _ in 0..n {
                if !first {
                    f.write_str(",")?;
                }
                first = false;
                write!(f, "{pit}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for KiothiMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KiothiMove::Play { pit, count } => write!(f, "{pit}x{count}"),
            KiothiMove::Opening(m) => write!(f, "{m}"),
        }
    }
}

/// A Kiothi position as written, before any check that it can occur.
/// `validate` turns it into a [`KiothiPosition`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KiothiSetup {
    /// Pit counts in pit order.
    pub pits: [u32; PITS],
    /// Bit `i` set when pit `i` was written with `*`.
    pub protected: u32,
    pub side: Side,
    pub phase: Phase,
    /// South's and North's prisons (0 when omitted).
    pub prisons: [u32; 2],
}

impl KiothiSetup {
    fn from_position(p: &KiothiPosition) -> KiothiSetup {
        KiothiSetup {
            pits: p.pits.map(|c| c as u32),
            protected: p.protected,
            side: p.side,
            phase: p.phase,
            prisons: p.prisons.map(|c| c as u32),
        }
    }

    /// Checks that the position can occur (RULES §3) and builds it.
    pub fn validate(&self) -> Result<KiothiPosition, InputError> {
        // In u64: counts are parsed as u32, and their sum must not wrap.
        let board: u64 = self.pits.iter().map(|&c| u64::from(c)).sum();
        let total = board + self.prisons[0] as u64 + self.prisons[1] as u64;
        let setup = u32::try_from(total).ok().and_then(Setup::from_total).ok_or_else(|| {
            InputError::impossible(
                "total",
                format!(
                    "board {board} plus prisons {} and {} make {total} warriors; a game has 60 (six-pit) or 50 (five-pit)",
                    self.prisons[0], self.prisons[1]
                ),
            )
        })?;
        for i in 0..PITS {
            if self.protected & (1 << i) != 0 && self.pits[i] == 0 {
                return Err(InputError::impossible(
                    format!("pit {i}"),
                    "a protected pit is empty (a protected pit can be neither emptied nor captured)",
                ));
            }
        }
        if self.phase == Phase::Opening {
            if self.protected != 0 {
                return Err(InputError::impossible(
                    "marks",
                    "protection marks in an opening position (they are set after turn 2)",
                ));
            }
            if self.prisons != [0, 0] {
                return Err(InputError::impossible(
                    "prisons",
                    "warriors in prison in an opening position (nothing is captured before turn 3)",
                ));
            }
            if self.side == Side::South {
                let start = setup.start_board().map(|c| c as u32);
                if self.pits != start {
                    return Err(InputError::impossible(
                        "board",
                        format!(
                            "turn 1 (opening, S to move) must be the {} setup",
                            if setup == Setup::SixPit {
                                "six-pit"
                            } else {
                                "five-pit"
                            }
                        ),
                    ));
                }
            }
        }
        Ok(KiothiPosition {
            pits: self.pits.map(|c| c as u8),
            protected: self.protected,
            side: self.side,
            phase: self.phase,
            prisons: self.prisons.map(|c| c as u16),
            setup,
        })
    }
}

fn parse_number(field: &str, text: &str) -> Result<u32, InputError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(InputError::malformed(
            field,
            format!("`{text}` is not a number"),
        ));
    }
    text.parse::<u32>()
        .map_err(|_| InputError::malformed(field, format!("`{text}` is too large")))
}

impl FromStr for KiothiSetup {
    type Err = InputError;

    /// `kiothi <20 counts> <S|N> <opening|play> [<S prison> <N prison>]`,
    /// or the shortcuts `kiothi` and `kiothi:five`.
    fn from_str(text: &str) -> Result<KiothiSetup, InputError> {
        let text = text.trim();
        let fields: Vec<&str> = text.split(' ').collect();
        let shortcut = match fields[0] {
            "kiothi" => Setup::SixPit,
            "kiothi:five" => Setup::FivePit,
            other => {
                return Err(InputError::malformed(
                    "game",
                    format!("`{other}`: expected `kiothi` or `kiothi:five`"),
                ))
            }
        };
        if fields.len() == 1 {
            return Ok(KiothiSetup::from_position(&KiothiPosition::start(shortcut)));
        }
        if shortcut == Setup::FivePit {
            return Err(InputError::malformed(
                "game",
                "`kiothi:five` is the five-pit start and takes no fields (write `kiothi <counts> …`)",
            ));
        }
        let names = ["counts", "side", "phase"];
        if fields.len() < 4 {
            return Err(InputError::malformed(names[fields.len() - 1], "missing"));
        }
        let counts: Vec<&str> = fields[1].split(',').collect();
        if counts.len() != PITS {
            return Err(InputError::malformed(
                "counts",
                format!("{} counts, {PITS} expected", counts.len()),
            ));
        }
        let mut pits = [0u32; PITS];
        let mut protected = 0u32;
        for (i, c) in counts.iter().enumerate() {
            let (num, star) = match c.strip_suffix('*') {
                Some(n) => (n, true),
                None => (*c, false),
            };
            pits[i] = parse_number(&format!("pit {i}"), num)?;
            if star {
                protected |= 1 << i;
            }
        }
        let side = Side::from_letter(fields[2]).ok_or_else(|| {
            InputError::malformed("side", format!("`{}`: expected S or N", fields[2]))
        })?;
        let phase = match fields[3] {
            "opening" => Phase::Opening,
            "play" => Phase::Play,
            other => {
                return Err(InputError::malformed(
                    "phase",
                    format!("`{other}`: expected opening or play"),
                ))
            }
        };
        let prisons = match fields.len() {
            4 => [0, 0],
            5 => {
                return Err(InputError::malformed(
                    "N prison",
                    "missing (give both prisons or neither)",
                ))
            }
            6 => [
                parse_number("S prison", fields[4])?,
                parse_number("N prison", fields[5])?,
            ],
            _ => {
                return Err(InputError::malformed(
                    "trailing",
                    format!("unexpected `{}` after the prisons", fields[6..].join(" ")),
                ))
            }
        };
        Ok(KiothiSetup {
            pits,
            protected,
            side,
            phase,
            prisons,
        })
    }
}

/// Parses and checks a position in RULES §3 notation.
pub fn parse_position(text: &str) -> Result<KiothiPosition, InputError> {
    text.parse::<KiothiSetup>()?.validate()
}

impl FromStr for KiothiPosition {
    type Err = InputError;
    fn from_str(text: &str) -> Result<KiothiPosition, InputError> {
        parse_position(text)
    }
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::South => "South",
        Side::North => "North",
    }
}

/// The syntax of a move, before it is checked against a position.
enum MoveText {
    Play { pit: u32, count: u32 },
    Opening { pits: Vec<u32>, targets: Vec<u32> },
}

fn parse_move_text(text: &str) -> Result<MoveText, InputError> {
    if let Some((pit, count)) = text.split_once('x') {
        let pit = parse_number("pit", pit)?;
        let count = parse_number("count", count)?;
        return Ok(MoveText::Play { pit, count });
    }
    if let Some((pits, targets)) = text.split_once('>') {
        let pits = pits
            .split('+')
            .map(|p| parse_number("pits", p))
            .collect::<Result<Vec<_>, _>>()?;
        if pits.len() > 2 {
            return Err(InputError::malformed("pits", "at most two lifted pits"));
        }
        let targets = targets
            .split(',')
            .map(|t| parse_number("targets", t))
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(t) = targets.iter().find(|&&t| t as usize >= PITS) {
            return Err(InputError::malformed(
                "targets",
                format!("pit {t} is not on the board (0-19)"),
            ));
        }
        return Ok(MoveText::Opening { pits, targets });
    }
    Err(InputError::malformed(
        "move",
        format!("`{text}`: expected `<pit>x<count>` or `<a>+<b>><targets>`"),
    ))
}

impl KiothiPosition {
    /// RULES §3 move parsing with the legality checks of RULES §2.
    pub(crate) fn parse_move_impl(&self, text: &str) -> Result<KiothiMove, InputError> {
        let parsed = parse_move_text(text)?;
        let illegal = |reason: String| InputError::illegal(text, reason);
        let name = side_name(self.side);
        if self.is_over() {
            return Err(illegal(format!("game over: {name} has no legal move")));
        }
        match parsed {
            MoveText::Play { pit, count } => {
                if self.phase == Phase::Opening {
                    let turn = if self.side == Side::South { 1 } else { 2 };
                    return Err(illegal(format!(
                        "a play move in the opening (turn {turn}): write `<a>+<b>><targets>`"
                    )));
                }
                let start = row_start(self.side) as u32;
                if !(start..start + ROW as u32).contains(&pit) {
                    return Err(illegal(format!(
                        "pit: {pit} is not in {name}'s row ({start}-{})",
                        start + ROW as u32 - 1
                    )));
                }
                match self.try_play(pit as usize, count) {
                    Ok(_) => Ok(KiothiMove::Play { pit: pit as u8, count: count as u8 }),
                    Err(PlayRefusal::NotOwnPit) => unreachable!("checked above"),
                    Err(PlayRefusal::BadCount) => Err(illegal(format!(
                        "count: {count} is not in 1..={k} (pit {pit} holds {k})",
                        k = self.pits[pit as usize]
                    ))),
                    Err(PlayRefusal::FirstLap(l)) => Err(illegal(format!(
                        "last warrior of the first lap lands in own occupied pit {l}"
                    ))),
                    Err(PlayRefusal::NeverEnds) => Err(illegal(format!(
                        "the relay never ends (a repeated relay state, or no end within {MAX_LAPS} laps)"
                    ))),
                }
            }
            MoveText::Opening { pits, targets } => {
                if self.phase == Phase::Play {
                    return Err(illegal(
                        "an opening move in the play phase: write `<pit>x<count>`".into(),
                    ));
                }
                if let Some(p) = pits.iter().find(|&&p| p as usize >= PITS) {
                    return Err(illegal(format!("pit: {p} is not in {name}'s row")));
                }
                if targets.len() > 255 {
                    return Err(illegal(format!(
                        "targets: {} targets, far more than lifted",
                        targets.len()
                    )));
                }
                let mut placed = [0u8; PITS];
                for &t in &targets {
                    placed[t as usize] += 1;
                }
                let lifted: Vec<u8> = pits.iter().map(|&p| p as u8).collect();
                let mv = OpeningMove::new(&lifted, placed);
                self.check_opening(&mv).map_err(illegal)?;
                Ok(KiothiMove::Opening(mv))
            }
        }
    }
}
