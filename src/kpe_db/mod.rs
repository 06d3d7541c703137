//! The Kpé database: the exact value of every unlocked position by
//! retrograde analysis, and the locked opening phase on top.

pub mod build;
pub mod check;
pub mod endgame;
pub mod endless;
pub mod entry;
pub mod error;
pub mod estimate;
pub mod file;
pub mod keys;
pub mod lock;
pub mod paths;
pub mod probe;
pub mod region;
pub mod scratch;
pub mod size;
pub mod unmove;

pub use build::{BuildOptions, RegionResumed, SolveStats};
pub use error::{DbError, SolveError};
pub use probe::{Solution, StartRegion, ENDING_LINE_NODES, ON_THE_FLY_POSITIONS};
pub use region::LockedRegion;
pub use size::{check_solvable, endgame_positions, largest_layer, MAX_LAYER_POSITIONS};
