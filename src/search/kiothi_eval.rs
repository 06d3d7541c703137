//! `Searchable` for Kiothi: Zobrist hashing, the horizon evaluation and the
//! opening candidate generator (an opening position has up to 300 million
//! legal moves: the search never enumerates them).
//!
//! The evaluation is a weighted sum of the features of `features`, with
//! weights fitted by self-play (`sow tune kiothi`, see
//! `results/kiothi/tuning.md`) and compiled in from
//! `data/kiothi/weights.json`. The hand-set evaluation it replaced stays
//! available as `evaluate_hand` (agents `ab:...,eval=hand`).

use std::ops::ControlFlow;

use super::zobrist::{KIOTHI_PITS, KIOTHI_PROTECTED, SIDE_KEY};
use super::{Searchable, HISTORY_SLOTS};
use crate::game::{Game, Side};
use crate::games::kiothi::{
    row_mask, row_start, KiothiMove, KiothiPosition, Phase, Words, ALL_PITS, PITS, ROW,
};
use crate::infra::rng::{fnv1a as fnv, splitmix64};

fn in_opening(p: &KiothiPosition) -> bool {
    !matches!(p.phase(), Phase::Play)
}

/// The terms of the horizon evaluation, in `weights.json` order. Each is
/// counted from the view of the player to move; "A − B" terms are the
/// mover's count minus the opponent's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// Constant 1 (the value of having the move).
    Bias,
    /// Warriors on the own row − on the opponent's row.
    Material,
    /// Occupied own pits (possible moves) − occupied opponent pits.
    Mobility,
    /// Warriors in protected own pits − in protected opponent pits (rule 3).
    Protected,
    /// Largest capture the mover can make now by a direct move: one whose
    /// first lap ends in an empty own pit, so that it ends there without a
    /// relay (rule 6); ending warrior included (rules 7–9). Exact for those
    /// moves; captures after relays are not foreseen.
    CaptureNow,
    /// The same for the opponent, as if it were to move on this board.
    CaptureThreat,
    /// Empty own pits where a direct move of the mover would capture.
    CaptureCount,
    /// The same for the opponent.
    ThreatCount,
    /// Warriors the opponent's leftmost bonus could take from the mover
    /// (the three own pits opposite its second to fourth pits, all occupied
    /// and unprotected: rule 8) − the same for the opponent.
    BonusExposed,
    /// Unprotected enemy warriors facing an occupied own pit − own
    /// unprotected warriors facing an occupied enemy pit (the capture
    /// targets of the hand-set evaluation).
    Targets,
}

/// Number of features.
pub const FEATURES: usize = 10;

/// Feature names, as written in `weights.json` and `selfplay.csv`.
pub const FEATURE_NAMES: [&str; FEATURES] = [
    "bias",
    "material",
    "mobility",
    "protected",
    "capture_now",
    "capture_threat",
    "capture_count",
    "threat_count",
    "bonus_exposed",
    "targets",
];

/// Fixed-point scale of the weights in `weights.json` (1.0 = 1024).
pub const WEIGHT_SCALE: i32 = 1 << WEIGHT_SHIFT;
const WEIGHT_SHIFT: u32 = 10;

/// The tuned weights, read at compile time.
pub const WEIGHTS: [i32; FEATURES] =
    parse_weights(include_bytes!("../../data/kiothi/weights.json"));

/// The evaluation's feature vector for the player to move.
pub fn features(p: &KiothiPosition) -> [i32; FEATURES] {
    let me = p.side_to_move();
    let op = me.other();
    let pits = p.pits();
    let prot = p.protected();
    let (own, theirs) = (row_mask(me), row_mask(op));
    let board = Words::from_pits(&pits);
    let occupied = board.occupied();
    let open = occupied & !prot;
    // An open pit facing an occupied pit is a target of that pit's owner
    // (pit `i` faces `19 - i`).
    let targets = open & (occupied.reverse_bits() >> (32 - PITS));
    let diff = |m: u32| board.sum(m & own) - board.sum(m & theirs);
    let now = direct_captures(&pits, prot, occupied, me);
    let threat = direct_captures(&pits, prot, occupied, op);
    let mut f = [0; FEATURES];
    f[Feature::Bias as usize] = 1;
    f[Feature::Material as usize] = diff(ALL_PITS);
    f[Feature::Mobility as usize] =
        (occupied & own).count_ones() as i32 - (occupied & theirs).count_ones() as i32;
    f[Feature::Protected as usize] = diff(prot);
    f[Feature::CaptureNow as usize] = now.best;
    f[Feature::CaptureThreat as usize] = threat.best;
    f[Feature::CaptureCount as usize] = now.count;
    f[Feature::ThreatCount as usize] = threat.count;
    f[Feature::BonusExposed as usize] =
        bonus_exposed(&board, open, me) - bonus_exposed(&board, open, op);
    f[Feature::Targets as usize] = -diff(targets);
    f
}

/// Warriors of `side` that the enemy's leftmost bonus would take (RULES
/// §2.8: the own pits opposite the enemy's second to fourth pits, South 6–8,
/// North 16–18), when all three are occupied and unprotected (`open`).
fn bonus_exposed(board: &Words, open: u32, side: Side) -> i32 {
    let bonus = 0b111 << (row_start(side) + 6);
    if open & bonus == bonus {
        board.sum(bonus)
    } else {
        0
    }
}

/// The captures of one side's direct moves.
struct DirectCaptures {
    /// The largest, ending warrior included.
    best: i32,
    /// Empty own pits where one captures.
    count: i32,
}

/// `LAST_PITS[o][k]`: the own-row offsets (bits) where the first lap of a
/// hand of `1..=k` warriors (fewer than 20) lifted from offset `o` ends:
/// straight along the own row (low 10 bits) or round the enemy row back
/// into the own row (high 10 bits).
static LAST_PITS: [[u32; 61]; ROW] = {
    let mut t = [[0u32; 61]; ROW];
    let mut o = 0;
    while o < ROW {
        let mut k = 1;
        while k <= 60 {
            let mut c = 1;
            while c <= k && c < PITS {
                let end = o + c;
                if end < ROW {
                    t[o][k] |= 1 << end;
                } else if end >= PITS {
                    t[o][k] |= 1 << (ROW + end - PITS);
                }
                c += 1;
            }
            k += 1;
        }
        o += 1;
    }
    t
};

/// The captures `side` would make by direct moves. A hand of `c < 20` from
/// own pit `p` lands last in `p + c`; when that pit `e` is empty the move
/// ends there (rule 6). When the lap wraps (`p > e`) it sows one warrior
/// into every enemy pit, clearing their marks (rule 3), so the opposite pit
/// and, for the leftmost pit, the three bonus pits are taken with one more
/// warrior each (rules 7–8). With any capture the ending warrior goes to
/// prison as well (rule 9).
fn direct_captures(pits: &[u8; PITS], prot: u32, occupied: u32, side: Side) -> DirectCaptures {
    let start = row_start(side);
    let row_bits = (1u32 << ROW) - 1;
    let row = (occupied >> start) & row_bits;
    let mut lands = 0;
    let mut from = row;
    while from != 0 {
        let o = from.trailing_zeros() as usize;
        from &= from - 1;
        lands |= LAST_PITS[o][(pits[start + o] as usize).min(60)];
    }
    let wrapping = lands >> ROW;
    let mut ends = (lands | wrapping) & !row & row_bits;
    let mut out = DirectCaptures { best: 0, count: 0 };
    while ends != 0 {
        let j = ends.trailing_zeros() as usize;
        ends &= ends - 1;
        let facing = PITS - 1 - (start + j);
        let mut gain = 0;
        if wrapping & (1 << j) != 0 {
            gain = pits[facing] as i32 + 1;
            if j == 0 {
                gain += (facing - 3..facing)
                    .map(|b| pits[b] as i32 + 1)
                    .sum::<i32>();
            }
        } else if pits[facing] > 0 && prot & (1 << facing) == 0 {
            gain = pits[facing] as i32;
        }
        if gain > 0 {
            out.count += 1;
            out.best = out.best.max(gain + 1);
        }
    }
    out
}

/// Reads `"scale": 1024` and `"weights": [w, …]` (FEATURES integers) from
/// `weights.json` at compile time; a malformed file stops the build.
const fn parse_weights(json: &[u8]) -> [i32; FEATURES] {
    let scale_at = value_start(json, b"\"scale\"");
    let (scale, _) = parse_int(json, scale_at);
    assert!(scale == WEIGHT_SCALE, "weights.json: scale must be 1024");
    let mut at = value_start(json, b"\"weights\"");
    assert!(json[at] == b'[', "weights.json: `weights` must be an array");
    at += 1;
    let mut out = [0; FEATURES];
    let mut i = 0;
    while i < FEATURES {
        let (w, next) = parse_int(json, at);
        out[i] = w;
        at = skip_space(json, next);
        i += 1;
        if i < FEATURES {
            assert!(json[at] == b',', "weights.json: too few weights");
            at += 1;
        }
    }
    assert!(json[at] == b']', "weights.json: too many weights");
    out
}

/// Index of the first non-space byte after `"key":`.
const fn value_start(json: &[u8], key: &[u8]) -> usize {
    let mut i = 0;
    while i + key.len() <= json.len() {
        let mut j = 0;
        while j < key.len() && json[i + j] == key[j] {
            j += 1;
        }
        if j == key.len() {
            let at = skip_space(json, i + j);
            if json[at] == b':' {
                return skip_space(json, at + 1);
            }
        }
        i += 1;
    }
    panic!("weights.json: key not found");
}

const fn skip_space(json: &[u8], mut i: usize) -> usize {
    while i < json.len() && json[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// An optionally negative decimal integer at `i` (after spaces); returns
/// it and the index after it.
const fn parse_int(json: &[u8], i: usize) -> (i32, usize) {
    let mut i = skip_space(json, i);
    let negative = json[i] == b'-';
    if negative {
        i += 1;
    }
    assert!(
        json[i].is_ascii_digit(),
        "weights.json: expected an integer"
    );
    let mut v: i32 = 0;
    while i < json.len() && json[i].is_ascii_digit() {
        v = v * 10 + (json[i] - b'0') as i32;
        i += 1;
    }
    (if negative { -v } else { v }, i)
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

    /// RULES §0 future margin estimated at the horizon: the dot product of
    /// the tuned weights (`data/kiothi/weights.json`, fitted by `sow tune
    /// kiothi`) with `features`, rounded to whole warriors.
    fn evaluate(&self) -> i32 {
        let f = features(self);
        let mut sum = 0i32;
        for (w, x) in WEIGHTS.iter().zip(f.iter()) {
            sum += w * x;
        }
        (sum + WEIGHT_SCALE / 2) >> WEIGHT_SHIFT
    }

    /// The hand-set evaluation the tuned weights replaced: (capture targets
    /// + mobility) / 2, see `features` for both terms.
    fn evaluate_hand(&self) -> i32 {
        let f = features(self);
        (f[Feature::Targets as usize] + f[Feature::Mobility as usize]) / 2
    }

    /// In play: every legal move. In the opening: for each pair of occupied
    /// own pits, a few redistribution patterns (given in RULES §3 notation
    /// and checked by `parse_move`), children deduplicated, best evaluated
    /// first.
    fn search_moves(&self) -> Vec<(KiothiMove, Self)> {
        let mut out = Vec::new();
        if !in_opening(self) {
            // One allocation for the usual number of moves.
            out.reserve(16);
            self.search_moves_into(&mut out);
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

    fn search_moves_into(&self, out: &mut Vec<(KiothiMove, Self)>) {
        out.clear();
        if in_opening(self) {
            out.extend(self.search_moves());
            return;
        }
        let _ = self.for_each_child(|mv, child| {
            out.push((mv, child));
            ControlFlow::Continue(())
        });
    }

    fn history_slot(mv: &KiothiMove) -> usize {
        (fnv(mv) % HISTORY_SLOTS as u64) as usize
    }

    /// In play, the `(pit, count)` choices whose first lap does not end in
    /// an occupied own pit (RULES §2.5), without sowing: exact but for the
    /// rare moves that never end (RULES §2.6) and hands of 20 or more,
    /// which it counts as legal.
    fn mobility(&self) -> u32 {
        if in_opening(self) {
            return 1;
        }
        let pits = self.pits();
        let start = row_start(self.side_to_move());
        let occupied = (0..PITS).fold(0u64, |m, i| m | ((pits[i] != 0) as u64) << i);
        // Occupied own pits, twice round the board: the pits after `pit`
        // are the bits from `pit + 1` on, whatever the wrap.
        let own = occupied & row_mask(self.side_to_move()) as u64;
        let twice = own | own << PITS;
        let mut n = 0;
        for (pit, &k) in pits.iter().enumerate().skip(start).take(ROW) {
            let k = k as u32;
            // Hands of 1..=19 end their first lap in the `k` pits after
            // the origin: the occupied own ones refuse; larger hands pass.
            let short = k.min(PITS as u32 - 1);
            let window = (twice >> (pit + 1)) & ((1u64 << short) - 1);
            n += k - window.count_ones();
        }
        n
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
            let mut rng = crate::infra::rng::Rng::new(p.zobrist() ^ ((a * PITS + b) as u64));
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
