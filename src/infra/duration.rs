//! Durations as people write them on a command line (`90s`, `45m`, `2h`,
//! `1h30m`, or plain seconds).

use std::time::Duration;

/// The longest `--budget` or `--checkpoint`: a year.
const MAX_DURATION: Duration = Duration::from_secs(365 * 24 * 3600);

/// A duration: `90s`, `45m`, `2h`, `1h30m` (hours, minutes, seconds, each
/// at most once and in that order), or plain seconds (`120`, `0.5`).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let bad =
        || format!("`{text}` is not a duration (write 90s, 45m, 2h, 1h30m, or plain seconds)");
    if t.is_empty() {
        return Err(bad());
    }
    let seconds = if t.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        t.parse::<f64>().map_err(|_| bad())?
    } else {
        let mut total = 0f64;
        let mut rest = t;
        let mut units = "hms";
        while !rest.is_empty() {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            let unit = rest[digits..].chars().next().ok_or_else(bad)?;
            let at = units.find(unit).ok_or_else(bad)?;
            let n: u64 = rest[..digits].parse().map_err(|_| bad())?;
            total += n as f64 * [3600.0, 60.0, 1.0][at + 3 - units.len()];
            units = &units[at + 1..];
            rest = &rest[digits + unit.len_utf8()..];
        }
        total
    };
    if !seconds.is_finite() || seconds <= 0.0 {
        return Err(format!("`{text}` is not a positive duration"));
    }
    if seconds > MAX_DURATION.as_secs_f64() {
        return Err(format!("`{text}` is longer than a year"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_written_and_nonsense_is_refused() {
        let s = |t: &str| parse_duration(t).map(|d| d.as_secs_f64());
        assert_eq!(s("90s"), Ok(90.0));
        assert_eq!(s("45m"), Ok(2700.0));
        assert_eq!(s("2h"), Ok(7200.0));
        assert_eq!(s("1h30m"), Ok(5400.0));
        assert_eq!(s("1h0m5s"), Ok(3605.0));
        assert_eq!(s("120"), Ok(120.0));
        assert_eq!(s("0.5"), Ok(0.5));
        for bad in [
            "2x", "", "h", "1m1h", "1h1h", "-5", "0", "0s", "1.5h", "1 h", "s5", "9999999h",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad:?} was taken");
        }
    }
}
