//! Deterministic Zobrist tables, generated at compile time by a fixed-seed
//! splitmix64, and a small deterministic hasher for values without a table.

/// One step of splitmix64: advances `state` and returns the next output.
#[inline]
pub const fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

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
/// Kiothi phase keys, indexed by a phase number (0..4).
pub static KIOTHI_PHASE: [u64; 4] = table(0x6B69_6F70_6861_7306);

/// Side to move (XORed in when North is to move).
pub const SIDE_KEY: u64 = table::<1>(0x7369_6465_746F_6D07)[0];

/// Seeded pseudo-random numbers (splitmix64): deterministic across platforms.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        splitmix64(&mut self.0)
    }

    /// Uniform in `0..n` (`n > 0`), by multiply-shift (bias below 2^-32 for small n).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

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

    #[test]
    fn splitmix_reference_values() {
        // First outputs of splitmix64 seeded with 0 (reference implementation).
        let mut s = 0u64;
        assert_eq!(splitmix64(&mut s), 0xE220_A839_7B1D_CDAF);
        assert_eq!(splitmix64(&mut s), 0x6E78_9E6A_A1B9_65F4);
    }
}
