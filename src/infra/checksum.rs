//! The checksum of every file sow writes and checks (databases, endgame
//! tables, kept proofs): FNV-1a over 8-byte little-endian words. Not a
//! defence against tampering, a check against truncation and bit rot.

const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0100_0000_01b3;

/// A checksum fed one word at a time, for data that is streamed rather
/// than held in one buffer.
#[derive(Clone, Copy, Debug)]
pub struct Checksum(u64);

impl Default for Checksum {
    fn default() -> Self {
        Checksum(OFFSET_BASIS)
    }
}

impl Checksum {
    pub fn word(&mut self, w: u64) {
        self.0 = (self.0 ^ w).wrapping_mul(PRIME);
    }

    pub fn value(self) -> u64 {
        self.0
    }

    /// A checksum going on from the state `value` (what [`Self::value`]
    /// gave): a file's checksum summed in slices by several processes.
    pub fn resume(value: u64) -> Self {
        Checksum(value)
    }

    /// Feeds `bytes` as 8-byte little-endian words, the tail padded with
    /// zeros (so `bytes` must end the data, or be a multiple of 8 long).
    pub fn bytes(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.word(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.word(u64::from_le_bytes(last));
        }
    }
}

/// The checksum of `bytes` as 8-byte little-endian words, the tail padded
/// with zeros.
pub fn checksum(bytes: &[u8]) -> u64 {
    let mut h = Checksum::default();
    h.bytes(bytes);
    h.value()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_fed_one_by_one_sum_as_their_bytes() {
        let words = [1u64, 0xdead_beef, u64::MAX];
        let mut h = Checksum::default();
        let mut bytes = Vec::new();
        for w in words {
            h.word(w);
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        assert_eq!(h.value(), checksum(&bytes));
        assert_ne!(checksum(&bytes), checksum(&bytes[..16]));
        // The empty input is the offset basis; a short tail is padded.
        assert_eq!(checksum(&[]), OFFSET_BASIS);
        assert_eq!(checksum(&[7]), checksum(&7u64.to_le_bytes()));
    }
}
