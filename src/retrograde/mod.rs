//! What both retrogrades (the Kpé database and the Kiothi endgame tables)
//! share: the combinatorial ranking of boards, bit sets over ranks, and the
//! score-valued retrograde by thresholds.

pub mod bits;
pub mod index;
pub mod paged_bits;
pub mod rank_bitmap;
pub mod thresholds;
