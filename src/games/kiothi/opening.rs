//! Opening redistribution (RULES §2.2, turns 1 and 2): lift sets, the lazy
//! enumeration of placements and their count.

use std::ops::ControlFlow;

use super::position::{row_start, KiothiPosition, Phase, ALL_PITS, PITS, ROW};

/// An opening move: the lifted pits (one or two, increasing) and how many
/// warriors are placed in each of the 20 pits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OpeningMove {
    lifted: [u8; 2],
    n_lifted: u8,
    placed: [u8; PITS],
}

impl OpeningMove {
    /// Builds a move from one or two lifted pits (any order) and the
    /// warriors placed per pit. No legality check: see `KiothiPosition::play_move`.
    pub fn new(lifted: &[u8], placed: [u8; PITS]) -> OpeningMove {
        assert!(
            matches!(lifted.len(), 1 | 2),
            "an opening lifts one or two pits"
        );
        let mut l = [lifted[0], *lifted.last().unwrap()];
        l.sort_unstable();
        OpeningMove {
            lifted: l,
            n_lifted: lifted.len() as u8,
            placed,
        }
    }

    /// The lifted pits, increasing.
    pub fn lifted(&self) -> &[u8] {
        &self.lifted[..self.n_lifted as usize]
    }

    /// Warriors placed in each pit.
    pub fn placed(&self) -> [u8; PITS] {
        self.placed
    }

    /// Warriors placed in all.
    pub fn placed_total(&self) -> u32 {
        self.placed.iter().map(|&c| c as u32).sum()
    }
}

/// The sets of pits the mover may lift at an opening turn: (pits, how many, warriors lifted).
pub(crate) struct LiftSets {
    sets: [([u8; 2], u8, u32); 45],
    len: usize,
}

impl LiftSets {
    pub(crate) fn as_slice(&self) -> &[([u8; 2], u8, u32)] {
        &self.sets[..self.len]
    }
}

impl KiothiPosition {
    /// The lift sets of this opening turn, pairs in increasing order.
    ///
    /// Lead's decision (the one place it lives), settling RULES §2.2's
    /// **Choice** for a player with fewer than two occupied pits:
    /// - two or more occupied own pits: every pair of distinct occupied pits;
    /// - exactly one: that one pit alone is redistributed (notation `<a>><targets>`);
    /// - none: no legal move, the game is over (rule 10).
    pub(crate) fn lift_sets(&self) -> LiftSets {
        let start = row_start(self.side);
        let mut occupied = [0u8; ROW];
        let mut n = 0;
        for pit in start..start + ROW {
            if self.pits[pit] > 0 {
                occupied[n] = pit as u8;
                n += 1;
            }
        }
        let mut out = LiftSets {
            sets: [([0; 2], 0, 0); 45],
            len: 0,
        };
        if n == 1 {
            let a = occupied[0];
            out.sets[0] = ([a, a], 1, self.pits[a as usize] as u32);
            out.len = 1;
        } else {
            for i in 0..n {
                for j in i + 1..n {
                    let (a, b) = (occupied[i], occupied[j]);
                    let w = self.pits[a as usize] as u32 + self.pits[b as usize] as u32;
                    out.sets[out.len] = ([a, b], 2, w);
                    out.len += 1;
                }
            }
        }
        out
    }

    /// Every opening move, lift set by lift set, placements in reverse
    /// lexicographic order of the per-pit counts. Lazy: nothing is stored.
    pub(crate) fn for_each_opening_move<F: FnMut(OpeningMove) -> ControlFlow<()>>(
        &self,
        mut f: F,
    ) -> ControlFlow<()> {
        for &(lifted, n_lifted, warriors) in self.lift_sets().as_slice() {
            let mut placed = [0u8; PITS];
            for_each_composition(warriors, &mut placed, |p| {
                f(OpeningMove {
                    lifted,
                    n_lifted,
                    placed: *p,
                })
            })?;
        }
        ControlFlow::Continue(())
    }

    /// Number of opening moves: for each lift set of `n` warriors, the
    /// C(n+19, 19) ways to place them in 20 pits (saturating).
    pub(crate) fn opening_move_count(&self) -> u64 {
        self.lift_sets()
            .as_slice()
            .iter()
            .fold(0u64, |acc, &(_, _, n)| acc.saturating_add(placements(n)))
    }

    /// The `index`-th opening move in `for_each_opening_move`'s order,
    /// found by unranking (no enumeration); `None` past the last.
    pub(crate) fn nth_opening_move(&self, mut index: u64) -> Option<OpeningMove> {
        for &(lifted, n_lifted, warriors) in self.lift_sets().as_slice() {
            let here = placements(warriors);
            if index >= here {
                index -= here;
                continue;
            }
            // Reverse lexicographic order: pit p takes the most warriors first.
            let mut placed = [0u8; PITS];
            let mut left = warriors;
            for (p, slot) in placed.iter_mut().enumerate().take(PITS - 1) {
                let rest_pits = (PITS - 1 - p) as u32;
                for v in (0..=left).rev() {
                    let with_v = ways(left - v, rest_pits);
                    if index < with_v {
                        *slot = v as u8;
                        left -= v;
                        break;
                    }
                    index -= with_v;
                }
            }
            placed[PITS - 1] = left as u8;
            return Some(OpeningMove {
                lifted,
                n_lifted,
                placed,
            });
        }
        None
    }

    /// Plays an opening move (legality not checked).
    pub(crate) fn play_opening(&self, mv: &OpeningMove) -> KiothiPosition {
        let mut pits = self.pits;
        for &l in mv.lifted() {
            pits[l as usize] = 0;
        }
        for (p, &c) in pits.iter_mut().zip(mv.placed.iter()) {
            *p += c;
        }
        let mut next = KiothiPosition { pits, ..*self };
        next.side = self.side.other();
        if self.side == crate::game::Side::North {
            // RULES §2.3: after turn 2 every occupied pit is protected.
            next.phase = Phase::Play;
            next.protected = occupied_mask(&pits);
        }
        next
    }

    /// Checks an opening move against this position; `Err` names what is wrong.
    pub(crate) fn check_opening(&self, mv: &OpeningMove) -> Result<(), String> {
        if self.phase != Phase::Opening {
            return Err(
                "an opening move outside the opening (the game is in the play phase)".into(),
            );
        }
        let sets = self.lift_sets();
        let sets = sets.as_slice();
        let Some(&(_, _, warriors)) = sets
            .iter()
            .find(|(l, n, _)| *n == mv.n_lifted && l[..*n as usize] == *mv.lifted())
        else {
            return Err(describe_bad_lift(self, mv));
        };
        let placed = mv.placed_total();
        if placed != warriors {
            return Err(format!(
                "targets: {placed} targets for {warriors} warriors lifted"
            ));
        }
        Ok(())
    }
}

fn describe_bad_lift(pos: &KiothiPosition, mv: &OpeningMove) -> String {
    let start = row_start(pos.side);
    let name = if pos.side == crate::game::Side::South {
        "South"
    } else {
        "North"
    };
    for &l in mv.lifted() {
        let l = l as usize;
        if !(start..start + ROW).contains(&l) {
            return format!(
                "pit: {l} is not in {name}'s row ({}-{})",
                start,
                start + ROW - 1
            );
        }
        if pos.pits[l] == 0 {
            return format!("pit: {l} is empty");
        }
    }
    if mv.n_lifted == 2 && mv.lifted[0] == mv.lifted[1] {
        return format!(
            "pit: {} given twice; two distinct pits are lifted",
            mv.lifted[0]
        );
    }
    let occupied = (start..start + ROW).filter(|&p| pos.pits[p] > 0).count();
    match occupied {
        0 => format!("{name} has no occupied pit: the game is over"),
        1 => format!("pits: {name} has one occupied pit and must lift exactly it"),
        _ => format!("pits: {name} must lift exactly two occupied pits"),
    }
}

/// Bitmask of the occupied pits.
pub(crate) fn occupied_mask(pits: &[u8; PITS]) -> u32 {
    let mut m = 0;
    for (i, &c) in pits.iter().enumerate() {
        if c > 0 {
            m |= 1 << i;
        }
    }
    m & ALL_PITS
}

/// C(n+19, 19): ways to place `n` warriors in 20 pits, saturating at `u64::MAX`.
pub fn placements(n: u32) -> u64 {
    ways(n, PITS as u32)
}

/// Ways to place `n` warriors in `parts` pits: C(n+parts-1, parts-1).
pub(crate) fn ways(n: u32, parts: u32) -> u64 {
    let mut c: u128 = 1;
    for i in 1..parts as u128 {
        c = c * (n as u128 + i) / i;
    }
    u64::try_from(c).unwrap_or(u64::MAX)
}

/// Calls `f` with every weak composition of `n` into 20 parts, from
/// `(n, 0, …, 0)` to `(0, …, 0, n)` in reverse lexicographic order, reusing
/// one buffer (no allocation).
pub(crate) fn for_each_composition<F: FnMut(&[u8; PITS]) -> ControlFlow<()>>(
    n: u32,
    a: &mut [u8; PITS],
    mut f: F,
) -> ControlFlow<()> {
    *a = [0; PITS];
    a[0] = n as u8;
    loop {
        f(a)?;
        if a[PITS - 1] as u32 == n {
            return ControlFlow::Continue(());
        }
        let t = a[PITS - 1];
        a[PITS - 1] = 0;
        let mut j = PITS - 2;
        while a[j] == 0 {
            j -= 1;
        }
        a[j] -= 1;
        a[j + 1] = t + 1;
    }
}
