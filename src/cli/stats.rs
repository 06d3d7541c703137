//! `sow stats kpe[:WxK] --format csv|json`: value distribution of a solved
//! variant, per endgame layer and per stone count of the opening phase.
//!
//! CSV columns: `phase` (`unlocked` or `opening`), `stones` (on the board),
//! `value` (exact future margin for the mover), `positions` (how many
//! positions of that phase and stone count have that value), `never_ends`
//! (how many of them have a perfect play that never ends: no line of
//! value-keeping moves reaches the end of the game, see
//! `sow::solve::endless`). JSON: one object per phase and stone count with
//! `positions`, `wins`, `draws`, `losses`, `never_ends`, `histogram`
//! (value → positions) and `never_ends_histogram` (value → positions whose
//! perfect play never ends).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::json;

use super::kpe_db;
use super::{CliError, Out};
use crate::games::kpe::KpeVariant;
use crate::progress::Progress;

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
    let (region, endings) = solution.endings(progress)?;
    let mut rows = Vec::new();
    for n in solution.eg.layers() {
        let bytes = solution.layer_bytes(n)?;
        let can_end = endings.unlocked_layer(n);
        let values = bytes.iter().enumerate();
        rows.push(Row::of(
            "unlocked",
            n,
            values.map(|(i, &b)| (b as i8, can_end.get(i as u64))),
        ));
    }
    for (g, (stones, _)) in region.counts().into_iter().enumerate() {
        let can_end = endings.locked_group(g);
        let values = region.values_of(stones).iter().enumerate();
        rows.push(Row::of(
            "opening",
            stones,
            values.map(|(i, &v)| (v, can_end.get(i as u64))),
        ));
    }
    Ok(rows)
}

/// A value histogram as a JSON object (value → positions).
fn by_value_json<V: std::fmt::Display>(histogram: &BTreeMap<V, u64>) -> serde_json::Value {
    histogram
        .iter()
        .map(|(v, n)| (v.to_string(), json!(n)))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// The fields both games' statistics give for a value histogram:
/// `positions`, `wins`, `draws`, `losses` and `histogram`.
pub fn outcome_fields<V: Copy + Into<i32> + std::fmt::Display>(
    histogram: &BTreeMap<V, u64>,
) -> serde_json::Map<String, serde_json::Value> {
    let count = |keep: fn(i32) -> bool| -> u64 {
        histogram
            .iter()
            .filter(|(v, _)| keep((**v).into()))
            .map(|(_, n)| n)
            .sum()
    };
    let mut fields = serde_json::Map::new();
    fields.insert("positions".into(), json!(histogram.values().sum::<u64>()));
    fields.insert("wins".into(), json!(count(|v| v > 0)));
    fields.insert("draws".into(), json!(count(|v| v == 0)));
    fields.insert("losses".into(), json!(count(|v| v < 0)));
    fields.insert("histogram".into(), by_value_json(histogram));
    fields
}

/// The rows as the `--format json` object.
pub fn rows_json(variant: KpeVariant, rows: &[Row]) -> serde_json::Value {
    let list: Vec<_> = rows
        .iter()
        .map(|r| {
            let mut row = outcome_fields(&r.histogram);
            row.insert("phase".into(), json!(r.phase));
            row.insert("stones".into(), json!(r.stones));
            row.insert(
                "never_ends".into(),
                json!(r.never_ends.values().sum::<u64>()),
            );
            row.insert("never_ends_histogram".into(), by_value_json(&r.never_ends));
            serde_json::Value::Object(row)
        })
        .collect();
    json!({"game": "kpe", "variant": variant.to_string(), "rows": list})
}

/// The rows as CSV with the documented columns.
pub fn csv(rows: &[Row]) -> String {
    let mut text = String::from("phase,stones,value,positions,never_ends\n");
    for r in rows {
        for (v, n) in &r.histogram {
            let endless = r.never_ends[v];
            text += &format!("{},{},{},{},{}\n", r.phase, r.stones, v, n, endless);
        }
    }
    text
}

pub fn run(
    variant: KpeVariant,
    db: Option<&Path>,
    format: &str,
    out: &mut Out,
) -> Result<(), CliError> {
    if format != "csv" && format != "json" {
        return Err(CliError::usage(
            "format",
            format!("expected `csv` or `json`, found `{format}`"),
        ));
    }
    let rows = rows(variant, db, Progress::auto(out.quiet || out.json))?;
    if out.json {
        return out.json(&rows_json(variant, &rows));
    }
    let text = if format == "json" {
        rows_json(variant, &rows).to_string() + "\n"
    } else {
        csv(&rows)
    };
    out.writer().write_all(text.as_bytes())?;
    Ok(())
}
