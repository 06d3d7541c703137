//! What both retrogrades (the Kpé database and the Kiothi endgame tables)
//! share: the combinatorial ranking of boards, bit sets over ranks, the
//! score-valued retrograde by thresholds, and what runs them over several
//! ranks (a transport, partitions, waves of news, files written together).

pub mod bits;
pub mod exchange;
pub mod file_over_ranks;
pub mod index;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod paged_bits;
pub mod partition;
pub mod rank_bitmap;
pub mod thresholds;
pub mod transport;
