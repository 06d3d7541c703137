//! Perft through the two opening turns by counting (RULES §2.2, §4), not by
//! enumerating the hundreds of millions of redistributions of each turn.
//!
//! Turn 1 alone is counted by `opening_move_count`: C(n+19, 19) placements
//! per lift set. Turn 1 then turn 2: North's number of replies depends only
//! on North's row after turn 1 (North lifts its own pits, and South's
//! redistribution only adds warriors there), so the turn-1 placements are
//! grouped by what they put in North's row. For a lift set of `w` warriors
//! of which `k` land in North's row, the other `w-k` go anywhere in South's
//! 10 pits (C(w-k+9, 9) ways, all giving North the same replies), and
//!
//!   perft(turn 1, 2) = Σ_lift Σ_k C(w-k+9, 9) · R(k),
//!   R(k) = Σ over the ways c to drop k warriors in North's row of
//!          replies(North's row + c).
//!
//! `replies(row)` is RULES §2.2's count for the row (pairs of occupied pits,
//! C(a+b+19, 19) each; the lead's **Choice** for fewer than two occupied pits,
//! see `KiothiPosition::lift_sets`). R(k) is summed pair by pair: pits i and j
//! receive x and y, the 8 others share k-x-y in C(k-x-y+7, 7) ways; the
//! single-pit case of the Choice is added where North's row can be left
//! with one occupied pit.

use super::opening::{placements, ways};
use super::position::{row_start, KiothiPosition, Phase, ROW};
use crate::game::Side;

/// Ways to drop `n` warriors into `parts` pits, as `u128` for the sums.
fn drops(n: u64, parts: u64) -> u128 {
    ways(n as u32, parts as u32) as u128
}

/// R(k) for k = 0..=max: North's replies summed over every way of dropping
/// k warriors into North's row `base`.
fn replies_after_drops(base: &[u8], max: u32) -> Vec<u128> {
    let n = base.len();
    let others = |used: u64| (n - used as usize) as u64;
    let mut out = vec![0u128; max as usize + 1];
    for (k, total) in out.iter_mut().enumerate() {
        let k = k as u64;
        // Two or more occupied pits: every pair, each C(a+b+19, 19).
        for i in 0..n {
            for j in i + 1..n {
                for x in 0..=k {
                    if base[i] as u64 + x == 0 {
                        continue;
                    }
                    for y in 0..=k - x {
                        if base[j] as u64 + y == 0 {
                            continue;
                        }
                        let w = base[i] as u64 + x + base[j] as u64 + y;
                        *total += drops(k - x - y, others(2)) * placements(w as u32) as u128;
                    }
                }
            }
        }
        // Exactly one occupied pit (the lead's Choice): pit i holds all.
        for i in 0..n {
            let alone = base.iter().enumerate().all(|(j, &b)| j == i || b == 0);
            let w = base[i] as u64 + k;
            if alone && w > 0 {
                *total += placements(w as u32) as u128;
            }
        }
    }
    out
}

impl KiothiPosition {
    /// perft(self, 2) counted, for South to move at turn 1 (RULES §2.2),
    /// split by South's lift set: `(lifted pits, sequences)`. `None` when
    /// this is not turn 1 or a count does not fit in `u64`.
    pub fn opening_perft2_by_lift(&self) -> Option<Vec<(Vec<u8>, u64)>> {
        if self.phase != Phase::Opening || self.side != Side::South {
            return None;
        }
        let north = row_start(Side::North);
        let base = &self.pits[north..north + ROW];
        let sets = self.lift_sets();
        let max = sets.as_slice().iter().map(|s| s.2).max().unwrap_or(0);
        let r = replies_after_drops(base, max);
        sets.as_slice()
            .iter()
            .map(|&(pits, n, w)| {
                let w = w as u64;
                let count: u128 = (0..=w)
                    .map(|k| drops(w - k, ROW as u64) * r[k as usize])
                    .sum();
                Some((pits[..n as usize].to_vec(), u64::try_from(count).ok()?))
            })
            .collect()
    }

    /// perft(self, 1) of an opening turn split by lift set (C(w+19, 19) each).
    pub fn opening_perft1_by_lift(&self) -> Option<Vec<(Vec<u8>, u64)>> {
        if self.phase != Phase::Opening {
            return None;
        }
        Some(
            self.lift_sets()
                .as_slice()
                .iter()
                .map(|&(pits, n, w)| (pits[..n as usize].to_vec(), placements(w)))
                .collect(),
        )
    }

    /// Perft split by lift set where the opening lets it be counted:
    /// depth 1 at either opening turn, depth 2 from turn 1.
    pub fn opening_divide_by_formula(&self, depth: u32) -> Option<Vec<(Vec<u8>, u64)>> {
        match depth {
            1 => self.opening_perft1_by_lift(),
            2 => self.opening_perft2_by_lift(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::ops::ControlFlow;

    use super::*;
    use crate::game::Game;
    use crate::games::kiothi::Setup;

    /// perft by brute force: every move of every turn enumerated and played.
    fn brute(pos: &KiothiPosition, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut n = 0;
        let _ = pos.for_each_move(|mv| {
            n += brute(&pos.play_unchecked(&mv), depth - 1);
            ControlFlow::Continue(())
        });
        n
    }

    fn formula(pos: &KiothiPosition) -> u64 {
        pos.opening_perft2_by_lift()
            .unwrap()
            .iter()
            .map(|(_, n)| n)
            .sum()
    }

    /// A turn-1 position with a small board (not a real setup: the counting
    /// does not depend on the totals, and the brute force must stay small).
    fn turn1(pits: [u8; 20]) -> KiothiPosition {
        KiothiPosition {
            pits,
            ..KiothiPosition::start(Setup::SixPit)
        }
    }

    fn row(south: &[(usize, u8)], north: &[(usize, u8)]) -> [u8; 20] {
        let mut b = [0; 20];
        for &(p, c) in south.iter().chain(north) {
            b[p] = c;
        }
        b
    }

    #[test]
    fn turn1_and_turn2_counted_equal_every_redistribution_enumerated() {
        let cases = [
            // Pairs of 2 to 3 warriors; North with three occupied pits.
            row(&[(7, 1), (8, 1), (9, 1)], &[(17, 1), (18, 1), (19, 1)]),
            // Uneven piles on both sides.
            row(&[(3, 2), (9, 1)], &[(12, 1), (19, 2)]),
            // North has one occupied pit unless South drops some there
            // (the lead's Choice: one pit alone).
            row(&[(5, 1), (6, 2)], &[(15, 1)]),
            // North has nothing: only turn-1 moves that feed North's row
            // leave North a move.
            row(&[(0, 1), (1, 1)], &[]),
            // South has one occupied pit: it alone is lifted.
            row(&[(9, 3)], &[(10, 1), (11, 1)]),
        ];
        for pits in cases {
            let pos = turn1(pits);
            assert_eq!(formula(&pos), brute(&pos, 2), "{pos}");
            // The split by lift set adds up lift set by lift set too.
            for (lifted, n) in pos.opening_perft2_by_lift().unwrap() {
                let mut by_set = 0;
                let _ = pos.for_each_move(|mv| {
                    if matches!(mv, crate::games::kiothi::KiothiMove::Opening(o) if o.lifted() == lifted) {
                        by_set += brute(&pos.play_unchecked(&mv), 1);
                    }
                    ControlFlow::Continue(())
                });
                assert_eq!(n, by_set, "{pos} lifting {lifted:?}");
            }
        }
    }

    /// The real starts: every way of dropping k ≤ 10 warriors into North's
    /// row is played as an actual turn-1 move (the rest in South's pit 0)
    /// and North's replies are counted by the engine's own `move_count` on
    /// the position reached; the South-row placements are counted apart.
    #[test]
    fn start_perft2_equals_turn2_counts_of_played_turn1_moves() {
        for (setup, lifted) in [(Setup::SixPit, 10u32), (Setup::FivePit, 10)] {
            let start = KiothiPosition::start(setup);
            let sets = start.lift_sets();
            let mut independent: u128 = 0;
            // Every lift set of the start lifts 10 warriors: one set stands for all.
            assert!(sets.as_slice().iter().all(|s| s.2 == lifted));
            let (pair, n, _) = sets.as_slice()[0];
            for k in 0..=lifted {
                let mut north = [0u8; 20];
                let _ = super::super::opening::for_each_composition(k, &mut north, |c| {
                    if c[ROW..].iter().any(|&x| x > 0) {
                        return ControlFlow::Continue(());
                    }
                    let mut placed = [0u8; 20];
                    placed[ROW..].copy_from_slice(&c[..ROW]);
                    placed[0] += (lifted - k) as u8;
                    let mv = crate::games::kiothi::OpeningMove::new(&pair[..n as usize], placed);
                    let after = start.play_opening(&mv);
                    independent += after.move_count() as u128 * drops((lifted - k) as u64, 10);
                    ControlFlow::Continue(())
                });
            }
            independent *= sets.as_slice().len() as u128;
            assert_eq!(formula(&start) as u128, independent, "{setup:?}");
        }
    }

    #[test]
    fn nth_child_unranks_in_the_enumeration_order() {
        let pos = turn1(row(&[(3, 2), (8, 1), (9, 1)], &[(12, 1)]));
        let mut i = 0u64;
        let _ = pos.for_each_child(|_, child| {
            assert_eq!(pos.nth_child(i), Some(child), "index {i}");
            i += 1;
            ControlFlow::Continue(())
        });
        assert_eq!(i, pos.move_count());
        assert_eq!(pos.nth_child(i), None);
        let start = KiothiPosition::start(Setup::SixPit);
        let last = start.nth_child(start.move_count() - 1).unwrap();
        assert_eq!(
            last.to_string(),
            "kiothi 0,0,0,0,5,5,5,5,0,0,0,0,0,0,5,5,5,5,5,15 N opening 0 0"
        );
    }
}
