//! The exact solution of Kpé: an endgame database of every unlocked
//! position by retrograde analysis, and the locked opening phase on top.

pub mod atomics;
pub mod bits;
pub mod compact_keys;
pub mod db;
pub mod db_check;
pub mod endgame;
pub mod endless;
pub mod estimate;
pub mod index;
pub mod kiothi_endgame;
pub mod lock;
pub mod malloc;
pub mod mark_classes;
pub mod opening;
pub mod paged_bits;
pub mod rank_bitmap;
pub mod region_checkpoint;
pub mod region_keys;
pub mod retrograde;
pub mod scratch;
pub mod seeds;
pub mod solution;
pub mod unmove;
