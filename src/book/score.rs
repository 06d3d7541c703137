//! The scans' fixed-point scores.

/// Scores are in 1/`SCORE_SCALE` stones.
pub const SCORE_SCALE: i32 = 256;

/// Largest count a pit can hold (the whole six-pit game).
pub const MAX_COUNT: usize = 60;

/// A score in stones.
pub fn stones(score: i32) -> f64 {
    score as f64 / SCORE_SCALE as f64
}
