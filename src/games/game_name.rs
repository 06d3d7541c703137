//! A game named without a position (`kpe`, `kpe:WxK`, `kiothi`,
//! `kiothi:five`), as the commands that take a game read it (`solve`,
//! `openings`, `stats`, `export`): the one parser, which clap uses as the
//! argument's value parser.

use crate::error::{CliError, ErrorKind};
use crate::games::kiothi::Setup;
use crate::games::kpe::KpeVariant;

/// `kpe`, `kpe:WxK`, `kiothi` or `kiothi:five`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameName {
    Kpe(KpeVariant),
    Kiothi(Setup),
}

impl GameName {
    /// The Kpé variant, for the commands that work on a solved database.
    pub fn kpe(self) -> Result<KpeVariant, CliError> {
        match self {
            GameName::Kpe(v) => Ok(v),
            GameName::Kiothi(setup) => Err(kpe_expected(&GameName::Kiothi(setup).to_string())),
        }
    }
}

impl std::fmt::Display for GameName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GameName::Kpe(v) => f.write_str(&v.tag()),
            GameName::Kiothi(Setup::SixPit) => f.write_str("kiothi"),
            GameName::Kiothi(Setup::FivePit) => f.write_str("kiothi:five"),
        }
    }
}

fn kpe_expected(text: &str) -> CliError {
    let message = format!("expected `kpe` or `kpe:WxK` (W 2-8, K 1-8), found `{text}`");
    CliError::new(ErrorKind::Malformed, Some("game"), message)
}

/// Parses a game: `kpe`, `kpe:WxK`, `kiothi` or `kiothi:five`; a refusal
/// lists all four (`openings` and `stats` take each of them).
pub fn parse_game(text: &str) -> Result<GameName, CliError> {
    parse_any_game(text)?.ok_or_else(|| {
        let message = format!(
            "expected `kpe`, `kpe:WxK` (W 2-8, K 1-8), `kiothi` or `kiothi:five`, found `{text}`"
        );
        CliError::new(ErrorKind::Malformed, Some("game"), message)
    })
}

/// Parses `kpe` or `kpe:WxK` (a game, not a position); a refusal lists
/// those two alone (`solve`, `export` work on a solved Kpé database).
pub fn parse_kpe_game(text: &str) -> Result<KpeVariant, CliError> {
    parse_any_game(text)?
        .ok_or_else(|| kpe_expected(text))?
        .kpe()
}

/// The game `text` names; `None` when it names none (the caller lists the
/// games it takes), an error for a Kpé variant out of range.
fn parse_any_game(text: &str) -> Result<Option<GameName>, CliError> {
    Ok(match text.split_once(':') {
        None if text == "kpe" => Some(GameName::Kpe(KpeVariant::STANDARD)),
        Some(("kpe", size)) => Some(GameName::Kpe(KpeVariant::parse_tag(size)?)),
        None if text == "kiothi" => Some(GameName::Kiothi(Setup::SixPit)),
        Some(("kiothi", "five")) => Some(GameName::Kiothi(Setup::FivePit)),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_and_their_errors() {
        assert_eq!(
            parse_game("kpe:3x4").unwrap(),
            GameName::Kpe(KpeVariant::new(3, 4).unwrap())
        );
        assert_eq!(
            parse_game("kiothi:five").unwrap(),
            GameName::Kiothi(Setup::FivePit)
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
        assert_eq!(
            parse_kpe_game("kiothi").unwrap_err().kind,
            ErrorKind::Malformed
        );
        // Each parser lists the games its commands take.
        let any = parse_game("nope").unwrap_err().message;
        assert!(
            any.contains("`kiothi` or `kiothi:five`") && any.contains("`kpe:WxK` (W 2-8"),
            "{any}"
        );
        assert!(parse_game("kiothi:six")
            .unwrap_err()
            .message
            .contains("kiothi:five"));
        let kpe = parse_kpe_game("nope").unwrap_err().message;
        assert!(
            kpe.contains("`kpe` or `kpe:WxK`") && !kpe.contains("kiothi"),
            "{kpe}"
        );
        for g in ["kpe", "kpe:3x3", "kiothi", "kiothi:five"] {
            assert_eq!(parse_game(g).unwrap().to_string(), g);
        }
    }
}
