//! The game argument of the commands that take a game, not a position.

use super::CliError;
use crate::games::kpe::KpeVariant;

/// Parses `kpe` or `kpe:WxK` (a game, not a position).
pub fn parse_kpe_game(text: &str) -> Result<KpeVariant, CliError> {
    match text.split_once(':') {
        None if text == "kpe" => Ok(KpeVariant::STANDARD),
        Some(("kpe", size)) => Ok(KpeVariant::parse_tag(size)?),
        _ => Err(CliError::new(
            "malformed",
            Some("game"),
            format!("expected `kpe` or `kpe:WxK` (W 2-8, K 1-8), found `{text}`"),
        )),
    }
}
