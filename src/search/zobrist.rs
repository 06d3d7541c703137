//! Deterministic Zobrist tables, generated at compile time by a fixed-seed
//! splitmix64 (`crate::infra::rng`).

use crate::infra::rng::splitmix64;

/// `N` pseudo-random keys from `seed`, computed at compile time.
pub const fn table<const N: usize>(seed: u64) -> [u64; N] {
    let mut out = [0u64; N];
    let mut state = seed;
    let mut i = 0;
    while i < N {
        out[i] = splitmix64(&mut state);
        i += 1;
    }
    out
}

/// Largest pit count a table covers (Kpé W=8 K=8 holds 128 stones).
pub const MAX_COUNT: usize = 128;

/// Kpé: key of "pit `p` holds `c` stones" is `KPE_PITS[p * (MAX_COUNT + 1) + c]`
/// (16 pits at most).
pub static KPE_PITS: [u64; 16 * (MAX_COUNT + 1)] = table(0x6B70_6570_6974_7301);
/// Kpé marks: `KPE_MARKS[side * 8 + i]` for the side's i-th mark.
pub static KPE_MARKS: [u64; 16] = table(0x6B70_656D_6172_6B02);
/// Kpé variant `(w, k)`: `KPE_VARIANT[w * 9 + k]`.
pub static KPE_VARIANT: [u64; 81] = table(0x6B70_6576_6172_6903);

/// Kiothi: key of "pit `p` holds `c` warriors" is `KIOTHI_PITS[p * 61 + c]`
/// (20 pits, at most 60 warriors).
pub static KIOTHI_PITS: [u64; 20 * 61] = table(0x6B69_6F70_6974_7304);
/// Kiothi protection mark of each pit.
pub static KIOTHI_PROTECTED: [u64; 20] = table(0x6B69_6F70_726F_7405);

/// Side to move (XORed in when North is to move).
pub const SIDE_KEY: u64 = table::<1>(0x7369_6465_746F_6D07)[0];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_distinct_and_nonzero() {
        let mut all: Vec<u64> = KPE_PITS.iter().chain(KPE_MARKS.iter()).copied().collect();
        all.push(SIDE_KEY);
        assert!(all.iter().all(|&k| k != 0));
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
    }
}
