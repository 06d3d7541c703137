//! `sow variants`: solves every small Kpé variant (W 2–5 pits per row,
//! K 1–7 stones per pit, up to a size limit) and tabulates the start values,
//! like the published Kalah(m,n) tables, as Markdown and JSON under `--out`.

use std::path::Path;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::kpe_db::result_word;
use crate::error::CliError;
use crate::games::kpe::{KpePosition, KpeVariant};
use crate::infra::progress::Progress;
use crate::kpe_db::{endgame_positions, Solution};

/// The variants of the table, smallest first, up to `max_positions`
/// unlocked positions each.
pub fn variants(max_positions: u64) -> Vec<KpeVariant> {
    let mut list: Vec<KpeVariant> = (2..=5u8)
        .flat_map(|w| (1..=7u8).map(move |k| KpeVariant::new(w, k).expect("in range")))
        .filter(|&v| endgame_positions(v) <= max_positions)
        .collect();
    list.sort_by_key(|&v| endgame_positions(v));
    list
}

/// A variant's start value and size, as the Kpé report cites it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VariantStart {
    pub opening_positions: u64,
    pub result: String,
    /// Solving time of this run.
    pub seconds: f64,
    pub unlocked_positions: u64,
    /// The start's exact value for South.
    pub value: i32,
    pub variant: String,
}

/// One variant of the table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VariantRow {
    pub best_first_moves: Vec<String>,
    pub k: usize,
    pub layers_reused: usize,
    #[serde(flatten)]
    pub start: VariantStart,
    pub w: usize,
}

/// The variants table (`variants.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VariantsTable {
    pub command: String,
    pub game: String,
    pub variants: Vec<VariantRow>,
}

pub fn solve_row(
    variant: KpeVariant,
    db: &Path,
    progress: Progress,
) -> Result<VariantRow, CliError> {
    let t0 = Instant::now();
    let (solution, stats) = Solution::build(variant, db, progress)?;
    let start = KpePosition::start(variant);
    let value = solution.value(&start, None)?;
    let moves = solution.move_values(&start, None)?;
    let best: Vec<String> = moves
        .iter()
        .filter(|(_, v)| *v == value)
        .map(|(m, _)| m.to_string())
        .collect();
    Ok(VariantRow {
        best_first_moves: best,
        k: variant.k(),
        layers_reused: stats.layers_reused.len(),
        start: VariantStart {
            opening_positions: stats.region_positions,
            result: result_word(value).into(),
            seconds: t0.elapsed().as_secs_f64(),
            unlocked_positions: stats.unlocked_positions,
            value,
            variant: variant.to_string(),
        },
        w: variant.w(),
    })
}
