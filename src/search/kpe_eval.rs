//! `Searchable` for Kpé: Zobrist hashing and a horizon evaluation.

use super::zobrist::{KPE_MARKS, KPE_PITS, KPE_VARIANT, MAX_COUNT, SIDE_KEY};
use super::{Searchable, HISTORY_SLOTS};
use crate::game::{Game, Side};
use crate::games::kpe::{KpeMove, KpePosition};

impl Searchable for KpePosition {
    fn zobrist(&self) -> u64 {
        let v = self.variant();
        let mut h = KPE_VARIANT[v.w() * 9 + v.k()];
        for (p, &c) in self.pits().iter().enumerate() {
            h ^= KPE_PITS[p * (MAX_COUNT + 1) + (c as usize).min(MAX_COUNT)];
        }
        for side in Side::BOTH {
            let mut m = self.marks(side);
            while m != 0 {
                let i = m.trailing_zeros() as usize;
                m &= m - 1;
                h ^= KPE_MARKS[side.index() * 8 + i];
            }
        }
        if self.side() == Side::North {
            h ^= SIDE_KEY;
        }
        h
    }

    /// Half the difference of the stones on each side (they are the final
    /// sweep's if play stopped here), plus a bonus for opponent pits holding
    /// 1 or 3 stones (one more makes them capturable) when the mover is
    /// unlocked, minus the same for the opponent.
    fn evaluate(&self) -> i32 {
        let me = self.side_to_move();
        let mine = self.row_total(me) as i32;
        let theirs = self.row_total(me.other()) as i32;
        let w = self.variant().w();
        let targets = |victim: Side| -> i32 {
            let start = victim.index() * w;
            self.pits()[start..start + w]
                .iter()
                .filter(|&&c| c == 1 || c == 3)
                .map(|&c| c as i32 + 1)
                .sum()
        };
        let mut score = (mine - theirs) / 2;
        if self.is_unlocked(me) {
            score += targets(me.other()) / 2;
        }
        if self.is_unlocked(me.other()) {
            score -= targets(me) / 4;
        }
        score
    }

    #[inline]
    fn capture_gain(parent: &Self, child: &Self) -> i32 {
        let me = parent.side().index();
        child.captured()[me] as i32 - parent.captured()[me] as i32
    }

    fn history_slot(mv: &KpeMove) -> usize {
        mv.pit() % HISTORY_SLOTS
    }
}
