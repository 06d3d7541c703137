//! Locked positions as 64-bit keys: a position of `n` stones, relative to
//! its mover, is *ranked* `u = rank(board) · 4^W + opponent's marks · 2^W
//! + mover's marks`, below `U = C(n+2W-1, 2W-1) · 4^W` (the board's rank
//! in its layer, `retrograde/index.rs`), and its key is `u` with the stone
//! count in the top byte. [`Ranker`] ranks positions into keys and back.

use super::mark_classes::MarkClasses;
use crate::games::kpe::{KpePosition, KpeVariant};
use crate::retrograde::index::BoardIndex;
use crate::Game;
use crate::Side;

/// A locked position relative to its mover: its stone count in the top
/// byte, its ranked key `u` (module documentation) in the bits below.
/// Ranked rather than packed pit by pit, so that it fits in 64 bits on
/// every board: `u` is below `2^32 · 4^W ≤ 2^48` (a layer is ranked in 32
/// bits, `check_solvable`), where 6 bits a pit and the marks take 96 bits
/// on kpe:8x1.
pub type RegionKey = u64;

/// Where a [`RegionKey`]'s stone count starts.
const STONES_AT: u32 = 56;

/// The stone count of a key.
#[inline]
pub fn stones_of(key: RegionKey) -> usize {
    (key >> STONES_AT) as usize
}

/// The key of ranked key `u` of `stones` stones.
#[inline]
pub fn key_of(stones: usize, u: u64) -> RegionKey {
    debug_assert!(u >> STONES_AT == 0);
    (stones as u64) << STONES_AT | u
}

/// The ranked key `u` of a key (below [`Ranker::universe`] of its stone count).
#[inline]
pub fn rank(key: RegionKey) -> u64 {
    key & ((1u64 << STONES_AT) - 1)
}

/// A board relative to its mover, with the mover's and the opponent's
/// marks: what a [`RegionKey`] stands for.
pub struct KeyParts {
    /// The pits, zero past the board's `2W`.
    pub board: [u8; 16],
    pub mover: u8,
    pub opponent: u8,
}

/// Ranking of positions into keys and back (module documentation).
#[derive(Clone, Debug)]
pub struct Ranker {
    variant: KpeVariant,
    index: BoardIndex,
    marks_bits: usize,
    classes: MarkClasses,
}

impl Ranker {
    pub fn new(variant: KpeVariant) -> Self {
        Ranker {
            variant,
            index: BoardIndex::kpe(variant),
            marks_bits: 2 * variant.w(),
            classes: MarkClasses::new(variant.w()),
        }
    }

    /// The variant whose positions this ranks.
    pub fn variant(&self) -> KpeVariant {
        self.variant
    }

    /// The classes of the positions' marks (`mark_classes.rs`).
    pub fn classes(&self) -> &MarkClasses {
        &self.classes
    }

    /// Number of possible local ranks of `stones` stones in `class`.
    pub fn class_universe(&self, stones: usize, class: usize) -> u64 {
        self.index.layer_size(stones) * self.classes.pairs(class)
    }

    /// Number of possible ranked keys of `stones` stones.
    pub fn universe(&self, stones: usize) -> u64 {
        self.index.layer_size(stones) << self.marks_bits
    }

    /// The key of a position (any side to move), relative to its mover.
    #[inline]
    pub fn region_key(&self, pos: &KpePosition) -> RegionKey {
        self.region_key_of(pos, pos.board_total() as usize)
    }

    /// [`Self::region_key`] of a position of `stones` stones on the board,
    /// which the caller knows (a move's child: its parent's count less the
    /// capture). Always inlined, the sum not taken: the region's
    /// exploration and exits rank every child they find.
    #[inline(always)]
    pub fn region_key_of(&self, pos: &KpePosition, stones: usize) -> RegionKey {
        let rel = pos.relative();
        let (mover, opponent) = (rel.marks(Side::South), rel.marks(Side::North));
        key_of(
            stones,
            self.with_marks(self.rank_board(rel.pits(), stones), mover, opponent),
        )
    }

    /// The part of a ranked key that the board, of `stones` stones,
    /// decides.
    #[inline]
    pub fn rank_board(&self, board: &[u8], stones: usize) -> u64 {
        self.index.rank_in_layer(board, stones)
    }

    /// The ranked key of a board ranked `board_rank` by
    /// [`Self::rank_board`] and of both players' marks (the mover's in the
    /// low `W` bits, the opponent's above them).
    #[inline]
    pub fn with_marks(&self, board_rank: u64, mover: u8, opponent: u8) -> u64 {
        let marks = mover as u64 | (opponent as u64) << self.variant.w();
        board_rank << self.marks_bits | marks
    }

    /// The board and marks of a key.
    #[inline]
    pub fn parts(&self, key: RegionKey) -> KeyParts {
        self.cursor().parts(key)
    }

    /// The board and marks of a key whose board is known.
    #[inline]
    pub fn parts_with_board(&self, key: RegionKey, board: [u8; 16]) -> KeyParts {
        let u = rank(key);
        let marks = (1u64 << self.variant.w()) - 1;
        KeyParts {
            board,
            mover: (u & marks) as u8,
            opponent: (u >> self.variant.w() & marks) as u8,
        }
    }

    /// The position (mover as South) of a key.
    pub fn position(&self, key: RegionKey) -> KpePosition {
        self.cursor().position(key)
    }

    /// A decoder of keys that steps from the board it decoded last.
    pub fn cursor(&self) -> KeyCursor<'_> {
        KeyCursor {
            ranker: self,
            at: None,
            board: [0; 16],
        }
    }
}

/// Decodes keys, stepping from the last board to the next when it is near
/// ([`BoardIndex::seek`]) rather than unranking it: a group's keys in
/// order run through the mark pairs of one board, then of the next.
pub struct KeyCursor<'a> {
    ranker: &'a Ranker,
    /// Stone count and rank of `board`.
    at: Option<(usize, u64)>,
    /// The pits, nothing past them.
    board: [u8; 16],
}

impl KeyCursor<'_> {
    /// The board and marks of a key.
    #[inline]
    pub fn parts(&mut self, key: RegionKey) -> KeyParts {
        let r = self.ranker;
        let (stones, u) = (stones_of(key), rank(key));
        let board_rank = u >> r.marks_bits;
        let from = self.at.filter(|&(n, _)| n == stones).map(|(_, at)| at);
        // Stepped a byte at a time: as one word, each step would shift it
        // by a pit's variable offset.
        let pits = r.variant.pits();
        r.index
            .seek(stones, from, board_rank, &mut self.board[..pits]);
        self.at = Some((stones, board_rank));
        r.parts_with_board(key, self.board)
    }

    /// The position (mover as South) of a key.
    #[inline]
    pub fn position(&mut self, key: RegionKey) -> KpePosition {
        self.parts(key).position(self.ranker.variant)
    }
}

impl KeyParts {
    /// The position (mover as South) of these parts.
    #[inline]
    pub fn position(&self, variant: KpeVariant) -> KpePosition {
        // The board past its pits is zero (every maker of parts keeps it
        // so), and one word copied whole is read back at once.
        KpePosition::from_pits_word(
            variant,
            u128::from_le_bytes(self.board),
            Side::South,
            [self.mover, self.opponent],
            [0, 0],
        )
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_rank_and_unrank() {
        let ranker = Ranker::new(KpeVariant::STANDARD);
        let pos: KpePosition = "kpe 1,2,3,4,5,6,7,8 N x.x. xxxx 0 12".parse().unwrap();
        let back = ranker.position(ranker.region_key(&pos));
        assert_eq!(back, pos.relative().repetition_key());
        assert_eq!(stones_of(ranker.region_key(&pos)), 36);
    }

    /// Boards whose pit-by-pit packing took more than 64 bits.
    #[test]
    fn keys_of_wide_boards_fit_in_64_bits() {
        for (tag, text) in [
            ("5x4", "kpe:5x4 40,0,0,0,0,0,0,0,0,0 S x.... ..... 0 0"),
            (
                "8x1",
                "kpe:8x1 0,0,0,0,0,0,0,16,0,0,0,0,0,0,0,0 N x....... ........ 0 0",
            ),
        ] {
            let pos: KpePosition = text.parse().unwrap_or_else(|e| panic!("{tag}: {e}"));
            let ranker = Ranker::new(pos.variant());
            let key = ranker.region_key(&pos);
            assert_eq!(
                ranker.position(key),
                pos.relative().repetition_key(),
                "{tag}"
            );
            assert_eq!(stones_of(key), pos.variant().total() as usize, "{tag}");
        }
    }
}
