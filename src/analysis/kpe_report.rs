//! The headline of the Kpé report (`kpe/report.json`): the start's value,
//! the first moves and the variants table, as the report page shows them.

use serde::{Deserialize, Serialize};

use super::kpe_db::PositionCounts;
use super::kpe_openings::KpeOpeningReport;
use super::move_values::MoveEntry;
use super::variants::{VariantStart, VariantsTable};

/// The Kpé report's numbers; the page and the results index render it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KpeSummary {
    pub first_moves: Vec<MoveEntry>,
    pub positions: PositionCounts,
    pub pv_ends_by: String,
    pub pv_length: usize,
    pub result: String,
    pub start_value: i32,
    pub variant: String,
    pub variants: Vec<VariantStart>,
}

/// The headline numbers of the report.
pub fn summary(openings: &KpeOpeningReport, variants: &VariantsTable) -> KpeSummary {
    let s = &openings.start;
    KpeSummary {
        first_moves: s.moves.clone(),
        positions: s.positions.clone(),
        pv_ends_by: s.pv_ends_by.clone(),
        pv_length: s.pv.len(),
        result: s.result.clone(),
        start_value: s.value,
        variant: s.variant.clone(),
        variants: variants.variants.iter().map(|v| v.start.clone()).collect(),
    }
}
