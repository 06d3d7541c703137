//! Kpé (RULES §1): 2×W pits, K stones each, backward capture chains of 2s
//! and 4s, and an opening lock.

mod movegen;
mod notation;
mod position;
mod variant;

pub use notation::{parse_position, KpeSetup};
pub use position::{KpeMove, KpePosition, MAX_PITS};
pub use variant::KpeVariant;
