//! The best K scanned moves and the histogram of all scores, collected per
//! task and merged; the order is total (score, then lift set, then
//! placement), so the result does not depend on how the work was split.

use std::cmp::Ordering;

use serde::Serialize;

use crate::games::kiothi::PITS;

use super::score::SCORE_SCALE;

/// A scanned move before it is written out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Score for the mover, in 1/`SCORE_SCALE` stones.
    pub score: i32,
    /// Index of the lift set in `OpeningTurn::lifts`.
    pub lift: u16,
    /// Warriors placed per pit.
    pub placed: [u8; PITS],
}

/// Best first: higher score, then lower lift index, then lower placement.
pub fn best_first(a: &Entry, b: &Entry) -> Ordering {
    b.score
        .cmp(&a.score)
        .then(a.lift.cmp(&b.lift))
        .then(a.placed.cmp(&b.placed))
}

/// Keeps the `keep` best entries offered.
#[derive(Clone, Debug)]
pub struct TopK {
    keep: usize,
    buf: Vec<Entry>,
    /// Entries below it cannot enter.
    threshold: i32,
}

impl TopK {
    pub fn new(keep: usize) -> TopK {
        TopK {
            keep,
            buf: Vec::new(),
            threshold: i32::MIN,
        }
    }

    /// The lowest score that may still enter.
    #[inline]
    pub fn threshold(&self) -> i32 {
        self.threshold
    }

    #[inline]
    pub fn offer(&mut self, e: Entry) {
        if e.score < self.threshold || self.keep == 0 {
            return;
        }
        self.buf.push(e);
        if self.buf.len() >= 2 * self.keep.max(32) {
            self.shrink();
        }
    }

    fn shrink(&mut self) {
        self.buf.sort_unstable_by(best_first);
        self.buf.truncate(self.keep);
        if self.buf.len() == self.keep {
            self.threshold = self.buf[self.keep - 1].score;
        }
    }

    pub fn merge(&mut self, other: TopK) {
        for e in other.buf {
            self.offer(e);
        }
    }

    /// The best entries, best first.
    pub fn into_sorted(mut self) -> Vec<Entry> {
        self.shrink();
        self.buf
    }
}

/// Counts of scores in bins (1/16 stone while scanning; `coarsened`
/// for reports).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Histogram {
    /// Lower edge of the first bin, in stones.
    pub start: f64,
    /// Bin width, in stones.
    pub width: f64,
    /// Boards per bin; the first and last bins also hold everything beyond.
    pub counts: Vec<u64>,
}

/// Bins per stone while scanning.
const PER_STONE: i32 = 16;
/// Range while scanning, in stones.
const LOW: i32 = -128;
const HIGH: i32 = 128;
const BINS: usize = ((HIGH - LOW) * PER_STONE) as usize;

impl Histogram {
    pub fn new() -> Histogram {
        Histogram {
            start: LOW as f64,
            width: 1.0 / PER_STONE as f64,
            counts: vec![0; BINS],
        }
    }

    /// Adds one board of score `score` (1/`SCORE_SCALE` stones).
    #[inline]
    pub fn add(&mut self, score: i32) {
        let bin = score.div_euclid(SCORE_SCALE / PER_STONE) - LOW * PER_STONE;
        self.counts[bin.clamp(0, BINS as i32 - 1) as usize] += 1;
    }

    /// Adds another scan-time histogram.
    pub fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
    }

    /// Boards counted.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The lower edge of the bin holding the `k`-th best score: every
    /// board at or above it is kept by a cut at the `k`-th best (with the
    /// rest of that bin).
    pub fn kth_best(&self, k: u64) -> f64 {
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate().rev() {
            seen += c;
            if seen >= k {
                return self.start + i as f64 * self.width;
            }
        }
        self.start
    }

    /// Bins `factor` times wider.
    pub fn coarsened(&self, factor: usize) -> Histogram {
        Histogram {
            start: self.start,
            width: self.width * factor as f64,
            counts: self.counts.chunks(factor).map(|c| c.iter().sum()).collect(),
        }
    }

    /// In bins of one stone without the empty bins at both ends (one bin
    /// kept when all are empty).
    pub fn by_stone(&self) -> Histogram {
        let mut h = self.coarsened((1.0 / self.width).round().max(1.0) as usize);
        let first = h.counts.iter().position(|&c| c > 0).unwrap_or(0);
        let last = h.counts.iter().rposition(|&c| c > 0).unwrap_or(first);
        h.counts = h.counts[first..=last].to_vec();
        h.start += first as f64 * h.width;
        h
    }
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_best_in_a_total_order_whatever_the_split() {
        let entries: Vec<Entry> = (0..1000u32)
            .map(|i| Entry {
                score: ((i * 7919) % 61) as i32,
                lift: (i % 3) as u16,
                placed: [(i % 251) as u8; PITS],
            })
            .collect();
        let mut sorted = entries.clone();
        sorted.sort_by(best_first);
        for keep in [1, 5, 40, 100] {
            for parts in [1, 3, 7] {
                let mut all = TopK::new(keep);
                for chunk in entries.chunks(entries.len() / parts + 1) {
                    let mut t = TopK::new(keep);
                    chunk.iter().for_each(|&e| t.offer(e));
                    all.merge(t);
                }
                assert_eq!(all.into_sorted(), sorted[..keep].to_vec());
            }
        }
    }

    #[test]
    fn histogram_bins_clamp_coarsen_and_cut() {
        let mut h = Histogram::new();
        for s in [-100_000, -1, 0, 255, 256, 100_000] {
            h.add(s);
        }
        assert_eq!(h.total(), 6);
        let t = h.by_stone();
        assert_eq!((t.start, t.width), (-128.0, 1.0));
        assert_eq!(t.counts.len(), 256);
        assert_eq!(t.counts[..1], [1]);
        assert_eq!(t.counts[127..130], [1, 2, 1]);
        assert_eq!(t.counts[255], 1);
        // The best board is in the top bin; the 2nd best is 256 (one stone).
        assert_eq!(h.kth_best(2), 1.0);
        assert_eq!(h.kth_best(4), 0.0);
        assert_eq!(h.kth_best(5), -1.0 / 16.0);
        assert_eq!(h.kth_best(100), -128.0);
    }
}
