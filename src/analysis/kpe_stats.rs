//! `sow stats kpe[:WxK] --format csv|json`: value distribution of a solved
//! variant, per endgame layer and per stone count of the opening phase.
//!
//! CSV columns: `phase` (`unlocked` or `opening`), `stones` (on the board),
//! `value` (exact future margin for the mover), `positions` (how many
//! positions of that phase and stone count have that value), `never_ends`
//! (how many of them have a perfect play that never ends: no line of
//! value-keeping moves reaches the end of the game, see
//! `sow::kpe_db::endless`). JSON: one object per phase and stone count with
//! `positions`, `wins`, `draws`, `losses`, `never_ends`, `histogram`
//! (value → positions) and `never_ends_histogram` (value → positions whose
//! perfect play never ends).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::kpe_db;
use crate::error::CliError;
use crate::games::kpe::KpeVariant;
use crate::infra::progress::Progress;
use crate::kpe_db::entry::{entry_can_end, entry_value};

/// Positions of one phase and stone count, by value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub phase: &'static str,
    pub stones: usize,
    pub histogram: BTreeMap<i8, u64>,
    /// Positions whose perfect play never ends, by value.
    pub never_ends: BTreeMap<i8, u64>,
}

impl Row {
    /// A row from (value, can perfect play end) of every position.
    fn of(phase: &'static str, stones: usize, values: impl Iterator<Item = (i8, bool)>) -> Self {
        let mut counts = [[0u64; 2]; 256];
        for (v, can_end) in values {
            counts[v as u8 as usize][can_end as usize] += 1;
        }
        let by_value = |keep: fn([u64; 2]) -> u64| -> BTreeMap<i8, u64> {
            (0..256)
                .filter(|&b| counts[b] != [0, 0])
                .map(|b| (b as u8 as i8, keep(counts[b])))
                .collect()
        };
        Row {
            phase,
            stones,
            histogram: by_value(|[endless, ending]| endless + ending),
            never_ends: by_value(|[endless, _]| endless),
        }
    }

    pub fn positions(&self) -> u64 {
        self.histogram.values().sum()
    }
}

/// Every row of a solved variant.
pub fn rows(
    variant: KpeVariant,
    db: Option<&Path>,
    progress: Progress,
) -> Result<Vec<Row>, CliError> {
    let solution = kpe_db::open_solution(variant, &kpe_db::db_dir(db), progress)?;
    // The database stores whether each position's perfect play can end
    // (computed by the solve, `sow::kpe_db::endless`): one pass over it.
    let split = |e: &u8| (entry_value(*e), entry_can_end(*e));
    let mut rows = Vec::new();
    for n in solution.eg.layers() {
        let entries = solution.layer_entries(n)?;
        rows.push(Row::of("unlocked", n, entries.iter().map(split)));
    }
    for group in solution.start_region().groups()? {
        rows.push(Row::of(
            "opening",
            group.stones,
            group.entries.iter().map(split),
        ));
    }
    Ok(rows)
}

/// A value histogram as JSON keys (value → positions).
fn by_value<V: std::fmt::Display>(histogram: &BTreeMap<V, u64>) -> BTreeMap<String, u64> {
    histogram.iter().map(|(v, n)| (v.to_string(), *n)).collect()
}

/// What both games' statistics give for a value histogram.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcomes {
    pub draws: u64,
    /// Value (as text) → positions.
    pub histogram: BTreeMap<String, u64>,
    pub losses: u64,
    pub positions: u64,
    pub wins: u64,
}

/// The outcome counts of a value histogram.
pub fn outcomes<V: Copy + Into<i32> + std::fmt::Display>(histogram: &BTreeMap<V, u64>) -> Outcomes {
    let count = |keep: fn(i32) -> bool| -> u64 {
        histogram
            .iter()
            .filter(|(v, _)| keep((**v).into()))
            .map(|(_, n)| n)
            .sum()
    };
    Outcomes {
        draws: count(|v| v == 0),
        histogram: by_value(histogram),
        losses: count(|v| v < 0),
        positions: histogram.values().sum(),
        wins: count(|v| v > 0),
    }
}

/// One row of `sow stats kpe --format json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatsRow {
    #[serde(flatten)]
    pub outcomes: Outcomes,
    /// Positions whose perfect play never ends.
    pub never_ends: u64,
    pub never_ends_histogram: BTreeMap<String, u64>,
    /// `unlocked` or `opening`.
    pub phase: String,
    pub stones: usize,
}

/// `sow stats kpe --format json` (and `kpe/stats.json` of the report).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KpeStats {
    pub game: String,
    pub rows: Vec<StatsRow>,
    pub variant: String,
}

/// The rows as the `--format json` object.
pub fn rows_json(variant: KpeVariant, rows: &[Row]) -> KpeStats {
    KpeStats {
        game: "kpe".into(),
        rows: rows
            .iter()
            .map(|r| StatsRow {
                outcomes: outcomes(&r.histogram),
                never_ends: r.never_ends.values().sum(),
                never_ends_histogram: by_value(&r.never_ends),
                phase: r.phase.into(),
                stones: r.stones,
            })
            .collect(),
        variant: variant.to_string(),
    }
}
