//! What both retrogrades (the Kpé database and the Kiothi endgame tables)
//! share: the combinatorial ranking of boards (`index.rs`), bit sets over
//! ranks (`bits.rs`, `paged_bits.rs`, `rank_bitmap.rs`), the score-valued
//! retrograde by thresholds (`thresholds.rs`, over several ranks
//! `thresholds/distributed.rs`), and what runs a layer over several ranks
//! (`ranks/`: a transport, partitions, waves of news, files written
//! together).
//!
//! Both builders work layer by layer (stone counts, smallest first), each
//! layer by threshold waves over the moves inside it: Kpé's per-layer loop
//! is `kpe_db::endgame::Endgame::solve_layers` (over ranks
//! `kpe_db/endgame_over_ranks.rs`; its locked region's,
//! `kpe_db/region/solve.rs`, run by run), Kiothi's is
//! `kiothi_tables/build.rs`; a layer's waves are `LayerState::solve`
//! (`thresholds.rs`) and `kiothi_tables/retrograde.rs`'s `MoveGraph`.

pub mod bits;
pub mod index;
pub mod paged_bits;
pub mod rank_bitmap;
pub mod ranks;
pub mod thresholds;
