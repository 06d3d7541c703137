//! What both retrogrades (the Kpé database and the Kiothi endgame tables)
//! share: the combinatorial ranking of boards (`index.rs`), bit sets over
//! ranks (`bits.rs`, `paged_bits.rs`, `rank_bitmap.rs`), and the
//! score-valued retrograde by thresholds (`thresholds.rs`).
//!
//! Both builders work layer by layer (stone counts, smallest first), each
//! layer by threshold waves over the moves inside it: Kpé's per-layer loop
//! is `kpe_db::endgame::Endgame::solve_layers` (its locked region's,
//! `kpe_db/region/solve.rs`, run by run), Kiothi's is
//! `kiothi_tables/build.rs`; a layer's waves are `LayerState::solve`
//! (`thresholds.rs`) and `kiothi_tables/retrograde.rs`'s `MoveGraph`.

pub mod bits;
pub mod index;
pub mod paged_bits;
pub mod rank_bitmap;
pub mod thresholds;
