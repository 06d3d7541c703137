//! `Searchable` for Kiothi: Zobrist hashing, a horizon evaluation and the
//! opening candidate generator (an opening position has up to 300 million
//! legal moves: the search never enumerates them).
//!
//! Not yet declared in `search/mod.rs`: add `mod kiothi_eval;` there once the
//! Kiothi engine is merged. Written against `KiothiPosition: Game` with
//! `pits() -> &[u8; 20]`, `protected() -> u32` (bit `i`: pit `i` protected),
//! `prisons() -> [u16; 2]` and `phase() -> Phase`, whose play phase is
//! assumed to be the variant `Phase::Play` (see `in_opening`).

use std::hash::{Hash, Hasher};
use std::ops::ControlFlow;

use super::zobrist::{splitmix64, KIOTHI_PITS, KIOTHI_PROTECTED, SIDE_KEY};
use super::{Searchable, HISTORY_SLOTS};
use crate::game::{Game, Side};
use crate::games::kiothi::{KiothiMove, KiothiPosition, Phase};

const PITS: usize = 20;
const ROW: usize = 10;

/// FNV-1a: a deterministic hasher for values without a Zobrist table.
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01B3);
        }
    }
}

fn fnv<T: Hash>(value: &T) -> u64 {
    let mut h = Fnv(0xCBF2_9CE4_8422_2325);
    value.hash(&mut h);
    h.finish()
}

fn in_opening(p: &KiothiPosition) -> bool {
    // Adjust the variant name if the engine spells it differently.
    !matches!(p.phase(), Phase::Play)
}

/// First pit of a side's row.
fn row_start(side: Side) -> usize {
    side.index() * ROW
}

impl Searchable for KiothiPosition {
    fn zobrist(&self) -> u64 {
        let mut h = 0;
        for (p, &c) in self.pits().iter().enumerate() {
            h ^= KIOTHI_PITS[p * 61 + (c as usize).min(60)];
        }
        let mut prot = self.protected();
        while prot != 0 {
            let i = prot.trailing_zeros() as usize;
            prot &= prot - 1;
            h ^= KIOTHI_PROTECTED[i];
        }
        if self.side_to_move() == Side::North {
            h ^= SIDE_KEY;
        }
        // The phase, whatever its variants: a keyed mix of its discriminant.
        let mut s = fnv(&std::mem::discriminant(&self.phase())) ^ 0x7068_6173_6500_0000;
        h ^ splitmix64(&mut s)
    }

    /// Stones are scored as (mover's prospects) − (opponent's):
    /// - each unprotected enemy warrior facing an own occupied pit is a
    ///   capture target (rule 7), worth half a warrior;
    /// - each own occupied pit is a possible move (mobility): half a warrior.
    fn evaluate(&self) -> i32 {
        let me = self.side_to_move();
        let pits = self.pits();
        let prot = self.protected();
        let exposed = |attacker: Side| -> i32 {
            let start = row_start(attacker);
            (start..start + ROW)
                .filter(|&e| pits[e] > 0)
                .map(|e| PITS - 1 - e)
                .filter(|&t| pits[t] > 0 && prot & (1 << t) == 0)
                .map(|t| pits[t] as i32)
                .sum()
        };
        let mobility = |side: Side| -> i32 {
            let start = row_start(side);
            pits[start..start + ROW].iter().filter(|&&c| c > 0).count() as i32
        };
        (exposed(me) - exposed(me.other()) + mobility(me) - mobility(me.other())) / 2
    }

    /// In play: every legal move. In the opening: for each pair of occupied
    /// own pits, a few redistribution patterns (given in RULES §3 notation
    /// and checked by `parse_move`), children deduplicated, best evaluated
    /// first.
    fn search_moves(&self) -> Vec<(KiothiMove, Self)> {
        let mut out = Vec::new();
        if !in_opening(self) {
            let _ = self.for_each_child(|mv, child| {
                out.push((mv, child));
                ControlFlow::Continue(())
            });
            return out;
        }
        let mut seen = hashbrown::HashSet::new();
        for text in opening_candidates(self) {
            if let Ok(mv) = self.parse_move(&text) {
                let child = self.play_unchecked(&mv);
                if seen.insert(child.repetition_key()) {
                    out.push((mv, child));
                }
            }
        }
        if out.is_empty() {
            // Unforeseen opening shape (e.g. fewer than two occupied pits):
            // the first legal moves in generator order.
            let _ = self.for_each_child(|mv, child| {
                out.push((mv, child));
                if out.len() >= 64 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            });
        }
        // The child is evaluated from the opponent's view: lowest first.
        out.sort_by_key(|(_, child)| child.evaluate());
        out
    }

    fn history_slot(mv: &KiothiMove) -> usize {
        (fnv(mv) % HISTORY_SLOTS as u64) as usize
    }
}

/// Opening moves in RULES §3 notation `a+b>t1,t2,...`.
fn opening_candidates(p: &KiothiPosition) -> Vec<String> {
    let me = p.side_to_move();
    let pits = p.pits();
    let own: Vec<usize> = (row_start(me)..row_start(me) + ROW).collect();
    let theirs: Vec<usize> = (row_start(me.other())..row_start(me.other()) + ROW).collect();
    let occupied: Vec<usize> = own.iter().copied().filter(|&i| pits[i] > 0).collect();
    let mut out = Vec::new();
    for (x, &a) in occupied.iter().enumerate() {
        for &b in &occupied[x + 1..] {
            let n = (pits[a] + pits[b]) as usize;
            let mut after = pits;
            after[a] = 0;
            after[b] = 0;
            let own_empty: Vec<usize> = own.iter().copied().filter(|&i| after[i] == 0).collect();
            let their_empty: Vec<usize> =
                theirs.iter().copied().filter(|&i| after[i] == 0).collect();
            let patterns: Vec<Vec<usize>> = vec![
                // Spread over the own row, round robin from the leftmost pit.
                cycle(&own, n),
                // Spread over the whole board.
                cycle(&(0..PITS).collect::<Vec<_>>(), n),
                // Fill the own empty pits first, then the leftmost pit.
                fill(&own_empty, own[0], n),
                // One warrior into each empty enemy pit, the rest own row.
                fill(&their_empty, own[0], n.min(their_empty.len()))
                    .into_iter()
                    .chain(cycle(&own, n.saturating_sub(their_empty.len())))
                    .collect(),
                // Everything into the own leftmost pit.
                vec![own[0]; n],
                // Everything into the own rightmost pit.
                vec![own[ROW - 1]; n],
            ];
            let mut rng = super::zobrist::Rng::new(p.zobrist() ^ ((a * PITS + b) as u64));
            let random = (0..RANDOM_SAMPLES).map(|_| (0..n).map(|_| rng.below(PITS)).collect());
            for targets in patterns.into_iter().chain(random) {
                let list: Vec<String> = targets.iter().map(|t: &usize| t.to_string()).collect();
                out.push(format!("{a}+{b}>{}", list.join(",")));
            }
        }
    }
    out
}

/// Uniformly random placements added per pair of lifted pits (seeded by the
/// position, so searches are reproducible).
pub const RANDOM_SAMPLES: usize = 4;

/// `n` targets taken round robin from `pits`.
fn cycle(pits: &[usize], n: usize) -> Vec<usize> {
    (0..n).map(|i| pits[i % pits.len()]).collect()
}

/// One warrior into each of `pits` (as far as `n` goes), the rest into `rest`.
fn fill(pits: &[usize], rest: usize, n: usize) -> Vec<usize> {
    (0..n)
        .map(|i| pits.get(i).copied().unwrap_or(rest))
        .collect()
}
