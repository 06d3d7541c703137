//! The Kpé database: the exact value of every unlocked position by
//! retrograde analysis, layer by layer (stones on the board), and the
//! locked opening phase reachable from the start on top, stored in files
//! under `<db>/kpe-WxK/` and probed in place.
//!
//! Bottom up (no file names one above it):
//! - `error.rs`, `entry.rs`, `paths.rs`, `scratch.rs`: the errors, the
//!   entry byte (value and "can end" flag), where the files live, and
//!   arrays in memory or out of core;
//! - `file/`: the `.sowdb` container (header, zstd blocks, checksums,
//!   mapped reading);
//! - `keys/`: locked positions as keys, sorted key sets kept compact, the
//!   key index file;
//! - `check/`: content checks of the value files and the key index;
//! - `unmove.rs`, `endgame.rs`, `endless.rs`: the unlocked layers'
//!   retrograde (the per-layer loop is `Endgame::solve_layers`) and "can
//!   end"; `endgame_over_ranks.rs`, the same loop by the ranks of an MPI
//!   run together;
//! - `region/`: the locked region, explored and solved group by group;
//! - `size.rs`, `estimate.rs`, `lock.rs`: what a variant needs, what this
//!   tool and machine can take, one writer at a time;
//! - `probe/`: a solved variant opened for queries ([`Solution`]);
//! - `build/`: building a variant's database, which ends by opening it.

pub mod build;
pub mod check;
pub mod endgame;
pub mod endgame_over_ranks;
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
