//! A solved variant opened for queries (the probe API): [`Solution`] answers
//! exact values, move values and lines (`solution.rs`, `lines.rs`) from
//! the layers (`layers.rs`) and the start's region (`region.rs`).

pub mod layers;
pub mod lines;
pub mod region;
pub mod solution;

pub use layers::{Layers, LazyLayer};
pub use lines::ENDING_LINE_NODES;
pub use region::{RegionGroup, RegionKeys, StartRegion};
pub use solution::{Solution, ON_THE_FLY_POSITIONS};
