//! How far the scan's filter can be trusted: on first moves valued by the
//! full reply search, the rank correlation between the scan's score and
//! the value, and the recall of the scan's cut (of the sample's best 1 %
//! by value, the share whose score clears the score of the scan's K-th
//! best board).

use serde::Serialize;

use super::correlation::spearman;
use super::enumerate::ScanEvaluator;
use super::error::BookError;
use super::fit::Sample;
use super::models::after_first;
use super::scan::Scan;
use super::score::stones;
use super::topk::Histogram;

/// The recall of one cut.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Recall {
    /// Boards the cut keeps (the scan's best K).
    pub keep: u64,
    /// Share of all scanned boards that is.
    pub share: f64,
    /// The K-th best score (the cut), in stones.
    pub cut: f64,
    /// Of the sample's best 1 % by value, the share scoring at least `cut`.
    pub recall: f64,
}

/// The filter's trust figures on a valued sample.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FilterTrust {
    /// First moves valued.
    pub sample: usize,
    /// Spearman correlation between scan score and value.
    pub spearman: f64,
    /// The sample's best 1 % by value (at least one move).
    pub top: usize,
    /// Recall at several cuts, narrowest first.
    pub recall: Vec<Recall>,
}

/// Measures the filter: `scores[i]` is the scan's score of the move whose
/// value is `values[i]`; `histogram` is the scan's score histogram; one
/// recall per K of `keeps`.
pub fn filter_trust(
    scores: &[f64],
    values: &[f64],
    histogram: &Histogram,
    keeps: &[u64],
) -> FilterTrust {
    let n = scores.len().min(values.len());
    let top = n.div_ceil(100).max(1).min(n);
    let mut by_value: Vec<usize> = (0..n).collect();
    // Best value first; ties by score, lowest first (the pessimistic choice).
    by_value.sort_by(|&a, &b| {
        values[b]
            .total_cmp(&values[a])
            .then(scores[a].total_cmp(&scores[b]))
    });
    let best = &by_value[..top];
    let total = histogram.total().max(1);
    let recall = keeps
        .iter()
        .map(|&k| {
            let cut = histogram.kth_best(k);
            let kept = best.iter().filter(|&&i| scores[i] >= cut).count();
            Recall {
                keep: k,
                share: k as f64 / total as f64,
                cut,
                recall: kept as f64 / top.max(1) as f64,
            }
        })
        .collect();
    FilterTrust {
        sample: n,
        spearman: spearman(&scores[..n], &values[..n]),
        top,
        recall,
    }
}

/// The first-move scan's filter measured on `sample` (first moves of the
/// scanned setup, each board with its value for South by the reply
/// search), with the scan `scan` (`scan_first_moves`, same setup) for the
/// cuts: the sample's boards are scored by E1 as the scan scores them.
pub fn first_move_filter(
    sample: &[Sample],
    scan: &Scan,
    keeps: &[u64],
) -> Result<FilterTrust, BookError> {
    let histogram = scan
        .fine_histogram
        .as_ref()
        .ok_or(BookError::BadParameter {
            field: "scan",
            message: "the trust measure needs an enumerated scan (with its histogram)".into(),
        })?;
    let scores: Vec<f64> = sample
        .iter()
        .map(|s| stones(after_first().score(&s.board)))
        .collect();
    let values: Vec<f64> = sample.iter().map(|s| s.target).collect();
    Ok(filter_trust(&scores, &values, histogram, keeps))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::score::SCORE_SCALE;

    #[test]
    fn recall_is_the_share_of_the_best_hundredth_above_the_kth_best_score() {
        // 200 moves valued 0, 0.25, ..., 49.75 stones (inside the
        // histogram's range) and scored alike, but the best one scored -5.
        let values: Vec<f64> = (0..200).map(|i| f64::from(i) / 4.0).collect();
        let mut scores = values.clone();
        scores[199] = -5.0;
        let mut h = Histogram::new();
        for &s in &scores {
            h.add((s * SCORE_SCALE as f64) as i32);
        }
        let t = filter_trust(&scores, &values, &h, &[10, 200]);
        assert_eq!((t.sample, t.top), (200, 2));
        // The 10th best score is 47.25 (the 190th move's): the second best
        // value clears it, the best does not.
        assert_eq!(t.recall[0].cut, 47.25);
        assert_eq!(t.recall[0].recall, 0.5);
        assert_eq!(t.recall[1].recall, 1.0);
        assert!(t.spearman > 0.9 && t.spearman < 1.0);
    }
}
