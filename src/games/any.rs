//! A position of any supported game, parsed from RULES §3 notation or a
//! shortcut (`kpe`, `kpe:WxK`, `kiothi`, `kiothi:five`).
//!
//! Code written for any game (the commands `show`, `moves`, `apply`,
//! `perft`, a game record's replay) dispatches through
//! [`with_position!`](crate::with_position); game-specific paths (`eval`,
//! `match`, `tune`) match on [`AnyPosition`] themselves.

use super::kiothi::{self, KiothiPosition};
use super::kpe::{self, KpePosition};
use crate::error::InputError;

/// A position of one of the supported games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnyPosition {
    Kpe(KpePosition),
    Kiothi(KiothiPosition),
}

/// Runs `$body` with `$p` bound to the concrete position (`&KpePosition`
/// or `&KiothiPosition`), whatever the game.
#[macro_export]
macro_rules! with_position {
    ($pos:expr, $p:ident => $body:expr) => {
        match $pos {
            $crate::games::AnyPosition::Kpe($p) => $body,
            $crate::games::AnyPosition::Kiothi($p) => $body,
        }
    };
}

impl std::fmt::Display for AnyPosition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        with_position!(self, p => write!(f, "{p}"))
    }
}

/// Parses a position of any game. The game is the first field's tag.
pub fn parse_any(text: &str) -> Result<AnyPosition, InputError> {
    let Some(first) = text.split_whitespace().next() else {
        return Err(InputError::malformed(
            "position",
            "empty position (expected e.g. `kpe` or `kpe 6,6,6,6,6,6,6,6 S .... ....`)",
        ));
    };
    let game = first.split(':').next().unwrap_or(first);
    match game {
        "kpe" => Ok(AnyPosition::Kpe(kpe::parse_position(text)?)),
        "kiothi" => Ok(AnyPosition::Kiothi(kiothi::parse_position(text)?)),
        _ => Err(InputError::malformed(
            "game",
            format!("unknown game `{first}`, expected `kpe`, `kpe:WxK`, `kiothi` or `kiothi:five`"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortcuts_and_errors() {
        let p = parse_any("kpe").unwrap();
        assert_eq!(p.to_string(), "kpe 6,6,6,6,6,6,6,6 S .... .... 0 0");
        let p = parse_any("kpe:3x4").unwrap();
        assert_eq!(p.to_string(), "kpe:3x4 4,4,4,4,4,4 S ... ... 0 0");
        assert_eq!(parse_any("").unwrap_err().field(), Some("position"));
        assert_eq!(parse_any("chess").unwrap_err().field(), Some("game"));
        assert_eq!(
            parse_any("owari 1").unwrap_err().kind().as_str(),
            "malformed"
        );
    }
}
