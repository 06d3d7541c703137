//! How far the scan's filter can be trusted: on first moves valued by the
//! full reply search, the rank correlation between the scan's score and
//! the value, and the recall of the scan's cut (of the sample's best 1 %
//! by value, the share whose score clears the score of the scan's K-th
//! best board).

use serde::Serialize;

use super::topk::Histogram;

/// Ranks of `x` from 1, ties sharing their mean rank.
fn ranks(x: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..x.len()).collect();
    idx.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
    let mut r = vec![0.0; x.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && x[idx[j + 1]] == x[idx[i]] {
            j += 1;
        }
        let mean = (i + j) as f64 / 2.0 + 1.0;
        for &k in &idx[i..=j] {
            r[k] = mean;
        }
        i = j + 1;
    }
    r
}

/// Pearson correlation (0 when either side is constant).
fn pearson(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    if n == 0 {
        return 0.0;
    }
    let ma = a.iter().sum::<f64>() / n as f64;
    let mb = b.iter().sum::<f64>() / n as f64;
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for i in 0..n {
        sab += (a[i] - ma) * (b[i] - mb);
        saa += (a[i] - ma).powi(2);
        sbb += (b[i] - mb).powi(2);
    }
    if saa == 0.0 || sbb == 0.0 {
        0.0
    } else {
        sab / (saa * sbb).sqrt()
    }
}

/// Spearman's rank correlation, ties given their mean rank.
pub fn spearman(a: &[f64], b: &[f64]) -> f64 {
    pearson(&ranks(a), &ranks(b))
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spearman_of_monotone_and_reversed_and_tied_data() {
        let a = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert!((spearman(&a, &[10.0, 20.0, 25.0, 100.0, 1000.0]) - 1.0).abs() < 1e-12);
        assert!((spearman(&a, &[5.0, 4.0, 3.0, 2.0, 1.0]) + 1.0).abs() < 1e-12);
        assert_eq!(ranks(&[3.0, 1.0, 3.0, 2.0]), vec![3.5, 1.0, 3.5, 2.0]);
        assert_eq!(spearman(&a, &[1.0; 5]), 0.0);
    }
}
