//! The Kpé database: the exact value of every unlocked position by
//! retrograde analysis, and the locked opening phase on top.

pub mod check;
pub mod endgame;
pub mod endless;
pub mod entry;
pub mod error;
pub mod estimate;
pub mod file;
pub mod keys;
pub mod lock;
pub mod opening;
pub mod paths;
pub mod region_checkpoint;
pub mod region_keys;
pub mod scratch;
pub mod seeds;
pub mod solution;
pub mod unmove;

pub use error::{DbError, SolveError};
pub use opening::LockedRegion;
pub use solution::{
    check_solvable, endgame_positions, largest_layer, BuildOptions, RegionResumed, Solution,
    SolveStats, StartRegion, ENDING_LINE_NODES, MAX_LAYER_POSITIONS, ON_THE_FLY_POSITIONS,
};
