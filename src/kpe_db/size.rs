//! How large a variant's database is, and whether this tool can represent
//! it: a layer's positions are ranked in 32 bits (`retrograde/thresholds.rs`,
//! `unmove.rs`). Whether a representable variant fits this machine is the
//! estimate's call (`estimate.rs`).

use super::endgame::Endgame;
use crate::games::kpe::KpeVariant;

/// Largest layer (positions) this tool solves.
pub const MAX_LAYER_POSITIONS: u64 = u32::MAX as u64;

/// Unlocked positions of a variant (the endgame database size).
pub fn endgame_positions(variant: KpeVariant) -> u64 {
    let eg = Endgame::new(variant);
    // Saturating: layer sizes saturate for the largest variants.
    eg.layers()
        .map(|n| eg.index.layer_size(n))
        .fold(0, u64::saturating_add)
}

/// Positions of a variant's largest layer.
pub fn largest_layer(variant: KpeVariant) -> u64 {
    let eg = Endgame::new(variant);
    eg.layers()
        .map(|n| eg.index.layer_size(n))
        .max()
        .unwrap_or(0)
}

/// Checks that this tool can represent a variant's solve: its layers'
/// ranks in 32 bits. The locked positions' keys then fit in 64 bits too
/// (`keys/ranker.rs`: the stone count, and a board's rank times the
/// `4^W ≤ 2^16` mark pairs).
pub fn check_solvable(variant: KpeVariant) -> Result<(), crate::InputError> {
    let refuse = |why: String| {
        Err(crate::InputError::unsupported(
            "variant",
            format!("kpe:{variant} {why}"),
        ))
    };
    let largest = largest_layer(variant);
    if largest > MAX_LAYER_POSITIONS {
        return refuse(format!(
            "has a layer of {} positions ({} unlocked in all); this tool ranks a layer's positions in 32 bits (at most {MAX_LAYER_POSITIONS})",
            positions_count(largest),
            positions_count(endgame_positions(variant))
        ));
    }
    Ok(())
}

/// A count of positions, which saturates at `u64::MAX` for variants far
/// too large to solve: then only a floor is known.
pub fn positions_count(n: u64) -> String {
    match n {
        u64::MAX => "1.8e19 or more".to_string(),
        n => n.to_string(),
    }
}
