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
/// The interval is the normal one on the mean score with the games'
/// observed variance. When every game scored the same (all won, all lost or
/// all drawn) that variance is 0 and would claim certainty: the Wilson
/// score interval is used instead, which bounds the score from the number
/// of games (40 wins out of 40: a score of at least 91.2%, +407 Elo).
pub fn elo_interval(scores: &[f64]) -> (f64, f64, f64) {
    const Z: f64 = 1.96;
    let n = scores.len().max(1) as f64;
    let mean = scores.iter().sum::<f64>() / n;
    let var = scores.iter().map(|s| (s - mean) * (s - mean)).sum::<f64>() / n;
    let (low, high) = if var > 0.0 {
        let half = Z * (var / n).sqrt();
        (mean - half, mean + half)
    } else {
        wilson(mean, n, Z)
    };
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
        // Identical games: the Wilson interval, not a zero-width one.
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
        let (e, lo, hi) = elo_interval(&[0.0; 40]);
        assert_eq!((e, lo), (f64::NEG_INFINITY, f64::NEG_INFINITY));
        assert_eq!(hi.round(), -407.0);
    }
}
