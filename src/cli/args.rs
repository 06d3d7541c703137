//! The flags of the command line that take numbers: each value parser
//! defined once (a refusal is a [`CliError`] naming its field, which
//! `main.rs` prints as it is, kind `usage`, so a refused number reads the
//! same whichever command took it), and the flags several commands share
//! with one meaning ([`SearchHash`], [`OpeningPlies`]). The directories
//! and files are in `paths.rs`.

use super::CliError;
use crate::analysis::matches::{MAX_GAMES, MAX_OPENING_PLIES};
#[cfg(test)]
use crate::error::ErrorKind;
use crate::search::Limits;

fn whole<T: std::str::FromStr>(flag: &str, text: &str) -> Result<T, CliError> {
    text.trim().parse().map_err(|_| {
        CliError::usage(
            flag,
            format!("--{flag} must be a whole number, found `{text}`"),
        )
    })
}

fn at_least_one(flag: &str, text: &str, unit: &str) -> Result<u64, CliError> {
    let n: u64 = whole(flag, text)?;
    if n == 0 {
        return Err(CliError::usage(
            flag,
            format!("--{flag} must be at least 1{unit}"),
        ));
    }
    Ok(n)
}

/// `--stones N` of the Kiothi endgame tables: at most
/// `kiothi_tables::MAX_STONES`.
pub fn endgame_stones(text: &str) -> Result<usize, CliError> {
    let n: usize = whole("stones", text)?;
    let max = crate::kiothi_tables::MAX_STONES;
    if n > max {
        return Err(CliError::usage(
            "stones",
            format!("--stones must be at most {max}, found {n} (beyond, a stone count has more moves than the tables' move graph can index)"),
        ));
    }
    Ok(n)
}

/// `--games N`: 1 to [`MAX_GAMES`].
pub fn games(text: &str) -> Result<usize, CliError> {
    let n = at_least_one("games", text, "")?;
    if n > MAX_GAMES {
        return Err(CliError::usage(
            "games",
            format!("--games must be at most {MAX_GAMES}, found {n}"),
        ));
    }
    Ok(n as usize)
}

/// `--opening-plies N` of `match` and `tune`, defined once.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct OpeningPlies {
    /// Random plies played before the agents take over, 0 to 100 (Kiothi:
    /// the two redistributions count as plies).
    #[arg(long = "opening-plies", value_name = "OPENING_PLIES", default_value_t = 4, value_parser = opening_plies)]
    pub plies: u32,
}

/// `--opening-plies N`: 0 to [`MAX_OPENING_PLIES`].
pub fn opening_plies(text: &str) -> Result<u32, CliError> {
    let n: u64 = whole("opening-plies", text)?;
    match u32::try_from(n) {
        Ok(n) if n <= MAX_OPENING_PLIES => Ok(n),
        _ => Err(CliError::usage(
            "opening-plies",
            format!("--opening-plies must be at most {MAX_OPENING_PLIES} (a tenth of the games' ply cap), found {n}"),
        )),
    }
}

/// `--threads N`: at least 1.
pub fn threads(text: &str) -> Result<usize, CliError> {
    at_least_one("threads", text, "").map(|n| n as usize)
}

/// `--hash MB`: at least 1 MiB.
pub fn hash_mb(text: &str) -> Result<usize, CliError> {
    at_least_one("hash", text, " MiB").map(|n| n as usize)
}

/// Refuses a `--hash` above the memory available (checked before the
/// table is allocated, when the command comes to search).
pub fn check_hash(mb: usize) -> Result<(), CliError> {
    crate::infra::limits::check_memory("--hash", mb).map_err(|e| CliError::usage("hash", e))
}

/// `--hash MB` of a search (`eval`, `analyze`, `play`), defined once and
/// flattened into each. (`solve`'s `--hash` sizes the prover's bound table,
/// another table with another default.)
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct SearchHash {
    /// Transposition table size in MiB (search).
    #[arg(long = "hash", id = "hash", value_name = "MB", default_value_t = 256, value_parser = hash_mb)]
    pub mb: usize,
}

/// `--depth D` of a search: at least 1.
pub fn depth(text: &str) -> Result<u32, CliError> {
    let n = at_least_one("depth", text, "")?;
    u32::try_from(n).map_err(|_| CliError::usage("depth", format!("--depth {n} is too deep")))
}

/// perft's `DEPTH`: a whole number up to [`crate::perft::MAX_DEPTH`].
pub fn perft_depth(text: &str) -> Result<u32, CliError> {
    let max = crate::perft::MAX_DEPTH;
    let n: u64 = text.trim().parse().map_err(|_| {
        CliError::usage(
            "depth",
            format!("perft DEPTH must be a whole number from 0 to {max}, found `{text}`"),
        )
    })?;
    match u32::try_from(n) {
        Ok(d) if d <= max => Ok(d),
        _ => Err(CliError::usage(
            "depth",
            format!("perft DEPTH must be at most {max}, found {n} (the walk takes one stack frame a move)"),
        )),
    }
}

/// `--nodes N`: at least 1.
pub fn nodes(text: &str) -> Result<u64, CliError> {
    at_least_one("nodes", text, "")
}

/// The shortest `--time` taken (`Limits::takes_seconds`).
pub const MIN_SECONDS: f64 = Limits::MIN_SECONDS;

/// `--time S`: a finite number of seconds, at least [`MIN_SECONDS`].
pub fn seconds(text: &str) -> Result<f64, CliError> {
    let s: f64 = text.trim().parse().map_err(|_| {
        CliError::usage(
            "time",
            format!("--time must be a number of seconds, at least {MIN_SECONDS}, found `{text}`"),
        )
    })?;
    check_seconds(s)
}

/// Refuses a `--time` that is not finite or under [`MIN_SECONDS`].
pub fn check_seconds(s: f64) -> Result<f64, CliError> {
    match Limits::takes_seconds(s) {
        true => Ok(s),
        false => Err(CliError::usage(
            "time",
            format!("--time must be a number of seconds, at least {MIN_SECONDS}, found {s}"),
        )),
    }
}

/// `--format` of `sow stats`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TableFormat {
    Csv,
    Json,
}

/// Refuses the first flag of `flags` that was given (`(name, given)`), with
/// `why(name)` as the message: flags that do not apply to this solve.
pub fn refuse_given(flags: &[(&str, bool)], why: impl Fn(&str) -> String) -> Result<(), CliError> {
    match flags.iter().find(|(_, given)| *given) {
        Some(&(flag, _)) => Err(CliError::usage(flag, why(flag))),
        None => Ok(()),
    }
}

/// A whole number of `flag` from `min` to `max` (as a `T` that holds them).
pub fn bounded<T: TryFrom<u64>>(flag: &str, text: &str, min: u64, max: u64) -> Result<T, CliError> {
    let n = text
        .trim()
        .parse::<u64>()
        .ok()
        .filter(|n| (min..=max).contains(n));
    n.and_then(|n| T::try_from(n).ok()).ok_or_else(|| {
        let message =
            format!("--{flag} must be a whole number from {min} to {max}, found `{text}`");
        CliError::usage(flag, message)
    })
}

/// A duration flag (90s, 45m, 2h, 1h30m, or plain seconds).
pub fn duration(flag: &str, text: &str) -> Result<std::time::Duration, CliError> {
    let parsed = crate::infra::duration::parse_duration(text);
    parsed.map_err(|m| CliError::usage(flag, format!("--{flag}: {m}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_the_field() {
        assert_eq!(games("0").unwrap_err().field.as_deref(), Some("games"));
        assert_eq!(games("x").unwrap_err().field.as_deref(), Some("games"));
        assert_eq!(
            threads("0").unwrap_err().message,
            "--threads must be at least 1"
        );
        assert_eq!(
            hash_mb("0").unwrap_err().message,
            "--hash must be at least 1 MiB"
        );
        assert_eq!(depth("0").unwrap_err().kind, ErrorKind::Usage);
        for bad in ["0", "-1", "inf", "NaN", "x", "1e-300", "0.0009"] {
            assert_eq!(
                seconds(bad).unwrap_err().field.as_deref(),
                Some("time"),
                "{bad}"
            );
        }
        assert_eq!(seconds("0.5").unwrap(), 0.5);
        assert_eq!(seconds("0.001").unwrap(), 0.001);
        assert_eq!(opening_plies("0").unwrap(), 0);
        assert_eq!(opening_plies("100").unwrap(), MAX_OPENING_PLIES);
        for bad in ["101", "4294967295", "4294967296", "-1", "x"] {
            assert_eq!(
                opening_plies(bad).unwrap_err().field.as_deref(),
                Some("opening-plies"),
                "{bad}"
            );
        }
        assert_eq!(games("20").unwrap(), 20);
        assert_eq!(games("1000000").unwrap(), 1_000_000);
        for bad in ["1000001", "4294967296", "18446744073709551615"] {
            assert_eq!(games(bad).unwrap_err().field.as_deref(), Some("games"));
        }
    }
}
