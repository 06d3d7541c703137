//! Kpé position notation (RULES §3): an unchecked setup parsed from text,
//! validated into a position, and printed back canonically.

use std::fmt;
use std::str::FromStr;

use super::position::{KpePosition, MAX_PITS};
use super::variant::KpeVariant;
use crate::error::InputError;
use crate::game::Side;

/// The fields of a Kpé position as written, not yet checked against the rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KpeSetup {
    pub variant: KpeVariant,
    pub pits: Vec<u32>,
    pub side: Side,
    pub marks: [String; 2],
    pub captured: Option<[u32; 2]>,
}

impl KpeSetup {
    /// Splits text into fields. Accepts `kpe` and `kpe:WxK` alone as the start.
    pub fn parse(text: &str) -> Result<Self, InputError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let Some(&tag) = fields.first() else {
            return Err(InputError::malformed("game", "empty position"));
        };
        let variant = parse_game_tag(tag)?;
        if fields.len() == 1 {
            let start = KpePosition::start(variant);
            return Ok(KpeSetup::from(&start));
        }
        if fields.len() != 5 && fields.len() != 7 {
            return Err(InputError::malformed(
                "position",
                format!(
                    "expected 5 or 7 fields (`{tag} <counts> <S|N> <S marks> <N marks> [<S captured> <N captured>]`), found {}",
                    fields.len()
                ),
            ));
        }
        let pits = parse_counts(fields[1], variant.pits())?;
        let side = Side::from_letter(fields[2]).ok_or_else(|| {
            InputError::malformed(
                "side",
                format!("expected `S` or `N`, found `{}`", fields[2]),
            )
        })?;
        let captured = if fields.len() == 7 {
            Some([
                parse_number("S captured", fields[5])?,
                parse_number("N captured", fields[6])?,
            ])
        } else {
            None
        };
        Ok(KpeSetup {
            variant,
            pits,
            side,
            marks: [fields[3].to_string(), fields[4].to_string()],
            captured,
        })
    }

    /// Checks the setup against RULES §1 and §3 and builds the position.
    pub fn validate(&self) -> Result<KpePosition, InputError> {
        let v = self.variant;
        let mut pits = [0u8; MAX_PITS];
        for (i, &c) in self.pits.iter().enumerate() {
            if c > v.total() {
                return Err(InputError::impossible(
                    format!("pit {i}"),
                    format!("{c} stones, more than the game's {}", v.total()),
                ));
            }
            pits[i] = c as u8;
        }
        let mut marks = [0u8; 2];
        for side in Side::BOTH {
            marks[side.index()] = parse_marks(&self.marks[side.index()], side, v.w())?;
        }
        let captured = self.captured.unwrap_or([0, 0]);
        // In u64: counts are parsed as u32, and their sum must not wrap.
        let board: u64 = self.pits.iter().map(|&c| u64::from(c)).sum();
        let captured_sum = u64::from(captured[0]) + u64::from(captured[1]);
        let total = board + captured_sum;
        if total != u64::from(v.total()) {
            let hint = if self.captured.is_none() {
                " (give the captures as two more fields, e.g. `… 4 4`)"
            } else {
                ""
            };
            return Err(InputError::impossible(
                "total",
                format!(
                    "board {board} + captured {captured_sum} = {total} stones, the {} game has {}{hint}",
                    v.tag(),
                    v.total()
                ),
            ));
        }
        for side in Side::BOTH {
            let field = format!("{} captured", side.letter());
            let c = captured[side.index()];
            if !c.is_multiple_of(2) {
                return Err(InputError::impossible(
                    field,
                    format!("{c} is odd, captures come in 2s and 4s"),
                ));
            }
            if c > 0 && marks[side.index()] != v.all_marks() {
                return Err(InputError::impossible(
                    field,
                    format!("{c} stones captured by a player still locked (RULES 1.2)"),
                ));
            }
        }
        Ok(KpePosition::from_parts(
            v,
            &pits[..v.pits()],
            self.side,
            marks,
            [captured[0] as u16, captured[1] as u16],
        ))
    }
}

impl From<&KpePosition> for KpeSetup {
    fn from(p: &KpePosition) -> Self {
        let captured = p.captured;
        KpeSetup {
            variant: p.variant(),
            pits: p.pits().iter().map(|&c| c as u32).collect(),
            side: p.side(),
            marks: [marks_text(p, Side::South), marks_text(p, Side::North)],
            captured: Some([captured[0] as u32, captured[1] as u32]),
        }
    }
}

/// Parses and validates a Kpé position.
pub fn parse_position(text: &str) -> Result<KpePosition, InputError> {
    KpeSetup::parse(text)?.validate()
}

impl FromStr for KpePosition {
    type Err = InputError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_position(s)
    }
}

impl fmt::Display for KpePosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let counts: Vec<String> = self.pits().iter().map(|c| c.to_string()).collect();
        write!(
            f,
            "{} {} {} {} {} {} {}",
            self.variant().tag(),
            counts.join(","),
            self.side().letter(),
            marks_text(self, Side::South),
            marks_text(self, Side::North),
            self.captured[0],
            self.captured[1]
        )
    }
}

fn parse_game_tag(tag: &str) -> Result<KpeVariant, InputError> {
    match tag.split_once(':') {
        None if tag == "kpe" => Ok(KpeVariant::STANDARD),
        Some(("kpe", size)) => KpeVariant::parse_tag(size),
        _ => Err(InputError::malformed(
            "game",
            format!("expected `kpe` or `kpe:WxK`, found `{tag}`"),
        )),
    }
}

fn parse_number(field: &str, text: &str) -> Result<u32, InputError> {
    text.parse().map_err(|e: std::num::ParseIntError| {
        let message = match e.kind() {
            std::num::IntErrorKind::PosOverflow => format!("`{text}` is too large"),
            _ => format!("expected a non-negative whole number, found `{text}`"),
        };
        InputError::malformed(field, message)
    })
}

fn parse_counts(text: &str, expected: usize) -> Result<Vec<u32>, InputError> {
    let counts: Vec<&str> = text.split(',').collect();
    if counts.len() != expected {
        return Err(InputError::malformed(
            "counts",
            format!(
                "expected {expected} comma-separated pit counts, found {}",
                counts.len()
            ),
        ));
    }
    counts
        .iter()
        .enumerate()
        .map(|(i, c)| parse_number(&format!("pit {i}"), c))
        .collect()
}

fn parse_marks(text: &str, side: Side, w: usize) -> Result<u8, InputError> {
    let field = format!("{} marks", side.letter());
    if text.chars().count() != w {
        return Err(InputError::malformed(
            field,
            format!("expected {w} characters of `x` (set) or `.` (unset), found `{text}`"),
        ));
    }
    let mut bits = 0u8;
    for (i, ch) in text.chars().enumerate() {
        match ch {
            'x' => bits |= 1 << i,
            '.' => {}
            _ => {
                return Err(InputError::malformed(
                    field,
                    format!("character {} is `{ch}`, expected `x` or `.`", i + 1),
                ))
            }
        }
    }
    Ok(bits)
}

fn marks_text(p: &KpePosition, side: Side) -> String {
    let bits = p.marks(side);
    (0..p.variant().w())
        .map(|i| if bits & (1 << i) != 0 { 'x' } else { '.' })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::parse_number;

    #[test]
    fn a_count_too_large_is_called_so() {
        let e = parse_number("pit 7", "99999999999")
            .unwrap_err()
            .to_string();
        assert!(e.contains("pit 7") && e.contains("too large"), "{e}");
        let e = parse_number("pit 7", "-1").unwrap_err().to_string();
        assert!(e.contains("non-negative whole number"), "{e}");
        assert_eq!(parse_number("pit 7", "6").unwrap(), 6);
    }
}
