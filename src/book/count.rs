//! Closed-form counts of an opening turn (RULES §2.2): legal moves and
//! distinct boards.
//!
//! Moves: C(w+19, 19) per lift set of `w` warriors. Boards, by
//! inclusion–exclusion over the deficit set `D` (the lifted pits that end
//! below their old count, see `turn`): a board with deficit set exactly `D`
//! takes `d_i` in `1..=c_i` from each pit `i` of `D` (which holds `c_i`
//! before the turn) and spreads the `Σ d_i` warriors over the other
//! `20 - |D|` pits, each receiving any number: C(Σd + 19 - |D|, 19 - |D|)
//! ways. With two or more occupied own pits every `D` of at most two pits
//! is lifted by some pair; with one, `D` is that pit or nothing.

use crate::games::kiothi::{placements, PITS};

use super::turn::OpeningTurn;

/// How many moves and boards an opening turn has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningCounts {
    /// Legal moves (RULES §2.2: lift set and placement).
    pub moves: u64,
    /// Distinct boards they leave.
    pub boards: u64,
    /// Boards counted under each lift set (the first one that leaves them),
    /// in `OpeningTurn::lifts` order; they add up to `boards`.
    pub boards_by_lift: Vec<u64>,
}

/// C(n+parts-1, parts-1): ways to give `n` warriors to `parts` pits
/// (saturating).
pub(crate) fn ways(n: u32, parts: u32) -> u64 {
    u64::try_from(spread(n, parts)).unwrap_or(u64::MAX)
}

/// Ways to give `n` warriors to `parts` pits, as `u128` for the sums.
fn spread(n: u32, parts: u32) -> u128 {
    let mut c: u128 = 1;
    for i in 1..parts as u128 {
        c = c * (n as u128 + i) / i;
    }
    c
}

/// Boards whose deficit set is exactly the pits of `before` listed in `d`.
fn boards_with_deficit(before: &[u8; PITS], d: &[u8]) -> u128 {
    let others = (PITS - d.len()) as u32;
    match d {
        [] => 1,
        [a] => (1..=before[*a as usize] as u32)
            .map(|x| spread(x, others))
            .sum(),
        [a, b] => (1..=before[*a as usize] as u32)
            .flat_map(|x| (1..=before[*b as usize] as u32).map(move |y| x + y))
            .map(|s| spread(s, others))
            .sum(),
        _ => unreachable!("a deficit set has at most two pits"),
    }
}

/// The counts of `turn`, in closed form.
pub fn opening_counts(turn: &OpeningTurn) -> OpeningCounts {
    let before = turn.before();
    let moves = turn
        .lifts
        .iter()
        .fold(0u64, |acc, l| acc.saturating_add(placements(l.warriors)));
    let boards_by_lift: Vec<u64> = turn
        .lifts
        .iter()
        .map(|l| {
            let [a, b] = l.pits;
            let mut n = 0u128;
            for (da, row) in l.accept.iter().enumerate() {
                for (db, &ok) in row.iter().enumerate() {
                    if !ok || (l.n == 1 && db == 1) {
                        continue;
                    }
                    let mut d = Vec::new();
                    if da == 1 {
                        d.push(a);
                    }
                    if db == 1 {
                        d.push(b);
                    }
                    n += boards_with_deficit(&before, &d);
                }
            }
            u64::try_from(n).unwrap_or(u64::MAX)
        })
        .collect();
    let boards = boards_by_lift
        .iter()
        .fold(0u64, |acc, &n| acc.saturating_add(n));
    OpeningCounts {
        moves,
        boards,
        boards_by_lift,
    }
}
