//! Elo from a match score, and its confidence interval.

/// Elo difference matching an expected score (`-inf`/`inf` at 0 and 1).
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// Elo difference and 95% interval from per-game scores (1, 0.5, 0).
///
/// One method for every score: the Wilson score interval on the mean score
/// over the games (a draw counts as half a win, which only widens the
/// interval). It is monotone in the score (39 wins of 40 never gets a
/// higher lower bound than 40 of 40) and never claims certainty from a
/// few identical games (40 wins out of 40: a score of at least 91.2%, +407
/// Elo; the bound at a score of 1 itself is infinite).
pub fn elo_interval(scores: &[f64]) -> (f64, f64, f64) {
    const Z: f64 = 1.96;
    let n = scores.len().max(1) as f64;
    let mean = scores.iter().sum::<f64>() / n;
    let (low, high) = wilson(mean, n, Z);
    (
        elo_from_score(mean),
        elo_from_score(low),
        elo_from_score(high),
    )
}

/// Wilson score interval of a proportion `p` observed over `n` trials.
fn wilson(p: f64, n: f64, z: f64) -> (f64, f64) {
    let z2 = z * z;
    let centre = p + z2 / (2.0 * n);
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let scale = 1.0 + z2 / n;
    // At p = 0 or 1 the bound on that side is exact (rounding would put a
    // finite Elo on it).
    let low = if p <= 0.0 {
        0.0
    } else {
        (centre - half) / scale
    };
    let high = if p >= 1.0 {
        1.0
    } else {
        (centre + half) / scale
    };
    (low, high)
}

/// An Elo difference, possibly unbounded (a score of 0 or 1). The one
/// representation of an unbounded Elo: JSON `"+inf"` / `"-inf"` (a finite
/// one is a number), text `+inf` / `-inf` (a finite one is rounded and
/// signed: `+191`, `+0`, `-35`).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Elo(pub f64);

impl Elo {
    /// Reads an Elo figure from JSON as [`Elo`] writes it (NaN otherwise).
    pub fn from_json(v: &serde_json::Value) -> f64 {
        serde_json::from_value::<Elo>(v.clone()).map_or(f64::NAN, |e| e.0)
    }
}

impl std::fmt::Display for Elo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            x if x.is_nan() => f.write_str("n/a"),
            x if x == f64::INFINITY => f.write_str("+inf"),
            x if x == f64::NEG_INFINITY => f.write_str("-inf"),
            // Rounded first, and -0 made +0: -0.4 is written +0, not -0.
            x => write!(f, "{:+.0}", x.round() + 0.0),
        }
    }
}

impl serde::Serialize for Elo {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            x if x.is_nan() => s.serialize_none(),
            x if x.is_infinite() => s.serialize_str(if x > 0.0 { "+inf" } else { "-inf" }),
            // `+ 0.0` turns the -0 of an even score into 0.
            x => s.serialize_f64(x + 0.0),
        }
    }
}

/// `#[serde(serialize_with)]` for an Elo kept as a plain `f64`.
pub fn as_elo<S: serde::Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&Elo(*x), s)
}

impl<'de> serde::Deserialize<'de> for Elo {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Repr {
            Number(f64),
            Text(String),
            Null(()),
        }
        match Repr::deserialize(d)? {
            Repr::Number(x) => Ok(Elo(x)),
            Repr::Text(t) if t == "+inf" => Ok(Elo(f64::INFINITY)),
            Repr::Text(t) if t == "-inf" => Ok(Elo(f64::NEG_INFINITY)),
            Repr::Null(()) => Ok(Elo(f64::NAN)),
            Repr::Text(t) => Err(serde::de::Error::custom(format!(
                "expected an Elo number, \"+inf\" or \"-inf\", found \"{t}\""
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_of_known_scores() {
        assert!((elo_from_score(0.75) - 190.85).abs() < 0.01);
        assert_eq!(elo_from_score(0.5), 0.0);
        assert!((elo_from_score(0.25) + 190.85).abs() < 0.01);
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        // 3 wins, 1 loss: 75%, interval around +191.
        let (e, lo, hi) = elo_interval(&[1.0, 1.0, 1.0, 0.0]);
        assert_eq!(e.round(), 191.0);
        assert!(lo < e && e < hi);
        // Identical games: not a zero-width interval.
        let (e, lo, hi) = elo_interval(&[0.5; 10]);
        assert_eq!(e, 0.0);
        assert!(
            lo < -100.0 && hi > 100.0 && (lo + hi).abs() < 1e-6,
            "{lo} {hi}"
        );
        let (e, lo, hi) = elo_interval(&[1.0; 40]);
        assert_eq!((e, hi), (f64::INFINITY, f64::INFINITY));
        assert_eq!(lo.round(), 407.0);
        for n in [10, 100, 1000] {
            let (_, _, hi) = elo_interval(&vec![1.0; n]);
            assert_eq!(hi, f64::INFINITY, "{n} wins");
            let (_, lo, _) = elo_interval(&vec![0.0; n]);
            assert_eq!(lo, f64::NEG_INFINITY, "{n} losses");
        }
        // One method for every score: the lower bound grows with the score.
        let mut last = f64::NEG_INFINITY;
        for wins in 0..=40 {
            let scores: Vec<f64> = (0..40).map(|i| (i < wins) as u8 as f64).collect();
            let (_, lo, _) = elo_interval(&scores);
            assert!(lo >= last, "{wins}/40: {lo} < {last}");
            last = lo;
        }
        let (_, lo39, _) = elo_interval(&[&[1.0; 39][..], &[0.0]].concat());
        assert!(lo39 < 407.0, "{lo39}");
        let (e, lo, hi) = elo_interval(&[0.0; 40]);
        assert_eq!((e, lo), (f64::NEG_INFINITY, f64::NEG_INFINITY));
        assert_eq!(hi.round(), -407.0);
    }

    #[test]
    fn unbounded_elo_has_one_representation() {
        use serde_json::json;
        assert_eq!(json!(Elo(f64::INFINITY)), json!("+inf"));
        assert_eq!(json!(Elo(f64::NEG_INFINITY)), json!("-inf"));
        assert_eq!(json!(Elo(12.5)), json!(12.5));
        assert_eq!(json!(Elo(-0.0)).to_string(), "0.0");
        assert_eq!(Elo(f64::INFINITY).to_string(), "+inf");
        assert_eq!(Elo(-0.4).to_string(), "+0");
        assert_eq!(Elo(190.85).to_string(), "+191");
        for x in [f64::INFINITY, f64::NEG_INFINITY, 3.5] {
            assert_eq!(Elo::from_json(&json!(Elo(x))), x);
        }
        assert!(Elo::from_json(&json!("inf")).is_nan());
    }
}
