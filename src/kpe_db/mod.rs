//! The Kpé database: the exact value of every unlocked position by
//! retrograde analysis, and the locked opening phase on top.

pub mod compact_keys;
pub mod db;
pub mod db_check;
pub mod db_over_ranks;
pub mod endgame;
pub mod endgame_over_ranks;
pub mod endless;
pub mod estimate;
pub mod lock;
pub mod mark_classes;
pub mod opening;
pub mod region_checkpoint;
pub mod region_keys;
pub mod scratch;
pub mod seeds;
pub mod solution;
pub mod unmove;
