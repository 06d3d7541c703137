//! The game argument of the commands that take a game, not a position
//! (`solve`, `openings`, `stats`, `export`): the one parser, used by clap as
//! the argument's value parser.

use super::CliError;
use crate::games::kiothi::{KiothiPosition, Setup};
use crate::games::kpe::KpeVariant;

/// `kpe`, `kpe:WxK`, `kiothi` or `kiothi:five`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameArg {
    Kpe(KpeVariant),
    Kiothi(Setup),
}

impl GameArg {
    /// The Kpé variant, for the commands that work on a solved database.
    pub fn kpe(self) -> Result<KpeVariant, CliError> {
        match self {
            GameArg::Kpe(v) => Ok(v),
            GameArg::Kiothi(setup) => Err(kpe_expected(&GameArg::Kiothi(setup).to_string())),
        }
    }

    /// The start position of a Kiothi game.
    pub fn kiothi(self) -> Option<KiothiPosition> {
        match self {
            GameArg::Kiothi(setup) => Some(KiothiPosition::start(setup)),
            GameArg::Kpe(_) => None,
        }
    }
}

impl std::fmt::Display for GameArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GameArg::Kpe(v) => f.write_str(&v.tag()),
            GameArg::Kiothi(Setup::SixPit) => f.write_str("kiothi"),
            GameArg::Kiothi(Setup::FivePit) => f.write_str("kiothi:five"),
        }
    }
}

fn kpe_expected(text: &str) -> CliError {
    CliError::new(
        "malformed",
        Some("game"),
        format!("expected `kpe` or `kpe:WxK` (W 2-8, K 1-8), found `{text}`"),
    )
}

/// Parses a game: `kpe`, `kpe:WxK`, `kiothi` or `kiothi:five`.
pub fn parse_game(text: &str) -> Result<GameArg, CliError> {
    match text.split_once(':') {
        None if text == "kpe" => Ok(GameArg::Kpe(KpeVariant::STANDARD)),
        Some(("kpe", size)) => Ok(GameArg::Kpe(KpeVariant::parse_tag(size)?)),
        None if text == "kiothi" => Ok(GameArg::Kiothi(Setup::SixPit)),
        Some(("kiothi", "five")) => Ok(GameArg::Kiothi(Setup::FivePit)),
        _ if text.starts_with("kiothi") => Err(CliError::new(
            "malformed",
            Some("game"),
            format!("expected `kpe`, `kpe:WxK`, `kiothi` or `kiothi:five`, found `{text}`"),
        )),
        _ => Err(kpe_expected(text)),
    }
}

/// Parses `kpe` or `kpe:WxK` (a game, not a position).
pub fn parse_kpe_game(text: &str) -> Result<KpeVariant, CliError> {
    parse_game(text)?.kpe()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_and_their_errors() {
        assert_eq!(
            parse_game("kpe:3x4").unwrap(),
            GameArg::Kpe(KpeVariant::new(3, 4).unwrap())
        );
        assert_eq!(
            parse_game("kiothi:five").unwrap(),
            GameArg::Kiothi(Setup::FivePit)
        );
        for bad in ["chess", "kiothi:six", "kpe:9x9", "kpe:"] {
            let e = parse_game(bad).unwrap_err();
            assert_eq!(
                e.field.as_deref(),
                Some(if bad.starts_with("kpe:") {
                    "variant"
                } else {
                    "game"
                }),
                "{bad}"
            );
        }
        assert_eq!(parse_kpe_game("kiothi").unwrap_err().kind, "malformed");
        for g in ["kpe", "kpe:3x3", "kiothi", "kiothi:five"] {
            assert_eq!(parse_game(g).unwrap().to_string(), g);
        }
    }
}
