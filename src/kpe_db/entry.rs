//! The entry byte: what the database stores for each position.
//!
//! A value is the exact future margin for the player to move (RULES §0),
//! always even in Kpé (captures take 2 or 4 stones a pit, and the final
//! sweep an even total), so its low bit is free: it holds whether perfect
//! play from the position can end (`endless.rs`).

use rayon::prelude::*;

use crate::retrograde::bits::Bits;

/// The entry byte of a position: its value (even, RULES §0) with the
/// "perfect play can end" flag in the low bit.
#[inline]
pub fn entry(value: i8, can_end: bool) -> u8 {
    debug_assert!(value % 2 == 0, "odd value {value}");
    (value as u8 & !1) | can_end as u8
}

/// A solved layer's entries from its values and its "can end" bits, made
/// in the values' place (a second vector of a layer's size would count at
/// the peak).
pub fn layer_entries(values: Vec<i8>, ends: &Bits) -> Vec<u8> {
    let mut entries: Vec<u8> = values.into_iter().map(|v| v as u8).collect();
    entries
        .par_iter_mut()
        .enumerate()
        .for_each(|(i, e)| *e = entry(*e as i8, ends.get(i as u64)));
    entries
}

/// The value of an entry byte.
#[inline]
pub fn entry_value(e: u8) -> i8 {
    (e & !1) as i8
}

/// Whether perfect play can end, from an entry byte.
#[inline]
pub fn entry_can_end(e: u8) -> bool {
    e & 1 != 0
}
