//! An independent, deliberately slow reference implementation of Kiothi
//! (RULES §2), written from the rule book alone, compared with the crate.
//!
//! The reference shares nothing with the crate except RULES §3 notation:
//! crate positions are printed and parsed by the reference's own parser; the
//! reference's moves and children are printed by its own printer and compared
//! with the crate's as strings.

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};

use sow::games::kiothi::{parse_position, KiothiPosition, Setup};
use sow::perft::perft;
use sow::Game;

const PITS: usize = 20;
const MAX_LAPS: u32 = 10_000;

use crate::common::Rng;

thread_local! {
    /// Statistics of what the reference met, to show the tests reach every rule.
    static STATS: Cell<[u64; 6]> = const { Cell::new([0; 6]) };
}
const S_FIRST_LAP: usize = 0;
const S_NEVER_ENDS: usize = 1;
const S_RELAYED: usize = 2;
const S_CAPTURE: usize = 3;
const S_BONUS: usize = 4;
const S_PROTECTED_SAVED: usize = 5;

fn stat(i: usize) {
    STATS.with(|s| {
        let mut v = s.get();
        v[i] += 1;
        s.set(v);
    });
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RefPhase {
    Opening,
    Play,
}

/// A Kiothi position, as plainly as possible.
#[derive(Clone, Debug, PartialEq, Eq)]
struct RefKiothi {
    pits: Vec<u32>,
    protected: Vec<bool>,
    /// 0 = South, 1 = North.
    side: usize,
    phase: RefPhase,
    prisons: [u32; 2],
}

/// Why the reference refuses a (pit, count).
#[derive(Debug, PartialEq, Eq)]
enum Refusal {
    FirstLap,
    NeverEnds,
}

fn owner(pit: usize) -> usize {
    if pit < 10 {
        0
    } else {
        1
    }
}

fn own_pits(side: usize) -> std::ops::Range<usize> {
    if side == 0 {
        0..10
    } else {
        10..20
    }
}

fn binomial(n: u64, k: u64) -> u64 {
    let mut r: u128 = 1;
    for i in 0..k {
        r = r * (n - i) as u128 / (i + 1) as u128;
    }
    r as u64
}

impl RefKiothi {
    fn start(five_pit: bool) -> RefKiothi {
        let first = if five_pit { 5 } else { 4 };
        let mut pits = vec![0; PITS];
        for p in first..10 {
            pits[p] = 5;
            pits[p + 10] = 5;
        }
        RefKiothi {
            pits,
            protected: vec![false; PITS],
            side: 0,
            phase: RefPhase::Opening,
            prisons: [0, 0],
        }
    }

    /// RULES §2.4–2.9: plays (pit, count), one warrior at a time.
    fn play(&self, pit: usize, count: u32) -> Result<RefKiothi, Refusal> {
        assert_eq!(self.phase, RefPhase::Play);
        assert_eq!(owner(pit), self.side);
        assert!(count >= 1 && count <= self.pits[pit]);
        let me = self.side;
        let mut b = self.clone();
        // Lift (rule 3: sowing from a pit clears its mark).
        b.pits[pit] -= count;
        b.protected[pit] = false;
        let mut hand = count;
        let mut at = pit;
        let mut lap = 1u32;
        let end = loop {
            let mut occupied_before = false;
            while hand > 0 {
                at = (at + 1) % PITS;
                occupied_before = b.pits[at] > 0;
                b.pits[at] += 1;
                b.protected[at] = false;
                hand -= 1;
            }
            if !occupied_before {
                break at;
            }
            // Rule 5: the first lap must not end in an occupied own pit.
            if lap == 1 && owner(at) == me {
                stat(S_FIRST_LAP);
                return Err(Refusal::FirstLap);
            }
            // Rule 6: relay, at most 10,000 laps in all.
            if lap == MAX_LAPS {
                stat(S_NEVER_ENDS);
                return Err(Refusal::NeverEnds);
            }
            hand = b.pits[at];
            b.pits[at] = 0;
            b.protected[at] = false;
            lap += 1;
        };
        if lap > 1 {
            stat(S_RELAYED);
        }
        if owner(end) == me {
            let mut captured = 0;
            // Rule 7.
            let opp = 19 - end;
            if b.pits[opp] > 0 {
                if b.protected[opp] {
                    stat(S_PROTECTED_SAVED);
                } else {
                    captured += b.pits[opp];
                    b.pits[opp] = 0;
                }
            }
            // Rule 8.
            let (leftmost, bonus) = if me == 0 {
                (0, [18, 17, 16])
            } else {
                (10, [8, 7, 6])
            };
            if end == leftmost && bonus.iter().all(|&q| b.pits[q] > 0 && !b.protected[q]) {
                stat(S_BONUS);
                for q in bonus {
                    captured += b.pits[q];
                    b.pits[q] = 0;
                }
            }
            // Rule 9.
            if captured > 0 {
                stat(S_CAPTURE);
                captured += b.pits[end];
                b.pits[end] = 0;
                b.prisons[me] += captured;
            }
        }
        b.side = 1 - me;
        Ok(b)
    }

    /// Every legal play move with its child, as (notation, child).
    fn play_children(&self) -> Vec<(String, RefKiothi)> {
        let mut out = Vec::new();
        for pit in own_pits(self.side) {
            for count in 1..=self.pits[pit] {
                if let Ok(child) = self.play(pit, count) {
                    out.push((format!("{pit}x{count}"), child));
                }
            }
        }
        out
    }

    /// RULES §2.2: the lift sets of an opening turn.
    fn lift_sets(&self) -> Vec<Vec<usize>> {
        let occ: Vec<usize> = own_pits(self.side).filter(|&p| self.pits[p] > 0).collect();
        if occ.len() < 2 {
            // Choice: redistribute every occupied pit (none: no move).
            return if occ.is_empty() { vec![] } else { vec![occ] };
        }
        let mut out = Vec::new();
        for i in 0..occ.len() {
            for j in i + 1..occ.len() {
                out.push(vec![occ[i], occ[j]]);
            }
        }
        out
    }

    /// Opening moves counted by formula: C(n+19, 19) boards per lift set.
    fn opening_count(&self) -> u64 {
        self.lift_sets()
            .iter()
            .map(|set| {
                let n: u32 = set.iter().map(|&p| self.pits[p]).sum();
                binomial(n as u64 + 19, 19)
            })
            .sum()
    }

    /// Plays an opening move given as lifted pits and target pits.
    fn play_opening(&self, lifted: &[usize], targets: &[usize]) -> RefKiothi {
        assert_eq!(self.phase, RefPhase::Opening);
        let mut b = self.clone();
        let mut hand = 0;
        for &p in lifted {
            hand += b.pits[p];
            b.pits[p] = 0;
        }
        assert_eq!(hand as usize, targets.len());
        for &t in targets {
            b.pits[t] += 1;
        }
        if self.side == 0 {
            b.side = 1;
        } else {
            // Rule 3: after turn 2 every occupied pit is protected.
            b.side = 0;
            b.phase = RefPhase::Play;
            for p in 0..PITS {
                b.protected[p] = b.pits[p] > 0;
            }
        }
        b
    }

    /// Brute force: every multiset of targets for every lift set, as
    /// (move notation, child); moves with the same lift set and board are one.
    fn opening_children(&self) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        for set in self.lift_sets() {
            let n: u32 = set.iter().map(|&p| self.pits[p]).sum();
            let mut boards = BTreeSet::new();
            let mut targets = Vec::new();
            let mut per_set = 0;
            self.each_multiset(n as usize, 0, &mut targets, &mut |t| {
                let child = self.play_opening(&set, t);
                if boards.insert(child.pits.clone()) {
                    let lifted: Vec<String> = set.iter().map(|p| p.to_string()).collect();
                    let placed: Vec<String> = t.iter().map(|p| p.to_string()).collect();
                    let mv = format!("{}>{}", lifted.join("+"), placed.join(","));
                    out.insert(mv, child.notation());
                    per_set += 1;
                }
            });
            assert_eq!(per_set, binomial(n as u64 + 19, 19));
        }
        out
    }

    fn each_multiset(
        &self,
        left: usize,
        from: usize,
        targets: &mut Vec<usize>,
        f: &mut dyn FnMut(&[usize]),
    ) {
        if left == 0 {
            f(targets);
            return;
        }
        for t in from..PITS {
            targets.push(t);
            self.each_multiset(left - 1, t, targets, f);
            targets.pop();
        }
    }

    /// RULES §2.10: the board goes to the player not to move.
    fn final_sweep(&self) -> [u32; 2] {
        let mut out = [0, 0];
        out[1 - self.side] = self.pits.iter().sum();
        out
    }

    fn perft(&self, depth: u32) -> u64 {
        assert_eq!(self.phase, RefPhase::Play);
        if depth == 0 {
            return 1;
        }
        self.play_children()
            .iter()
            .map(|(_, c)| c.perft(depth - 1))
            .sum()
    }

    fn notation(&self) -> String {
        let counts: Vec<String> = (0..PITS)
            .map(|p| {
                if self.protected[p] {
                    format!("{}*", self.pits[p])
                } else {
                    self.pits[p].to_string()
                }
            })
            .collect();
        format!(
            "kiothi {} {} {} {} {}",
            counts.join(","),
            if self.side == 0 { "S" } else { "N" },
            match self.phase {
                RefPhase::Opening => "opening",
                RefPhase::Play => "play",
            },
            self.prisons[0],
            self.prisons[1]
        )
    }

    fn parse(text: &str) -> RefKiothi {
        let f: Vec<&str> = text.split(' ').collect();
        assert_eq!(f.len(), 6, "{text}");
        assert_eq!(f[0], "kiothi");
        let mut pits = Vec::new();
        let mut protected = Vec::new();
        for c in f[1].split(',') {
            let (n, star) = match c.strip_suffix('*') {
                Some(n) => (n, true),
                None => (c, false),
            };
            pits.push(n.parse().unwrap());
            protected.push(star);
        }
        assert_eq!(pits.len(), PITS);
        RefKiothi {
            pits,
            protected,
            side: if f[2] == "S" { 0 } else { 1 },
            phase: if f[3] == "play" {
                RefPhase::Play
            } else {
                RefPhase::Opening
            },
            prisons: [f[4].parse().unwrap(), f[5].parse().unwrap()],
        }
    }
}

fn to_crate(r: &RefKiothi) -> KiothiPosition {
    let text = r.notation();
    parse_position(&text).unwrap_or_else(|e| panic!("crate refuses {text}: {e}"))
}

/// Compares a play-phase position completely: moves, children, refusals, end.
fn compare_play(r: &RefKiothi) {
    let c = to_crate(r);
    let text = r.notation();
    assert_eq!(c.to_string(), text, "printing");
    assert_eq!(RefKiothi::parse(&c.to_string()), *r, "round trip");
    let ref_children: BTreeMap<String, String> = r
        .play_children()
        .into_iter()
        .map(|(m, ch)| (m, ch.notation()))
        .collect();
    let mut crate_children = BTreeMap::new();
    let _ = c.for_each_child(|mv, child| {
        crate_children.insert(mv.to_string(), child.to_string());
        std::ops::ControlFlow::Continue(())
    });
    assert_eq!(crate_children, ref_children, "children of {text}");
    assert_eq!(
        c.move_count(),
        ref_children.len() as u64,
        "move_count of {text}"
    );
    assert_eq!(c.is_over(), ref_children.is_empty(), "is_over of {text}");
    // Every (pit, count) of the mover: accepted exactly when the reference plays it.
    for pit in own_pits(r.side) {
        for count in 1..=r.pits[pit] {
            let mv = format!("{pit}x{count}");
            match ref_children.get(&mv) {
                Some(child) => assert_eq!(&c.play(&mv).unwrap().to_string(), child),
                None => assert!(c.parse_move(&mv).is_err(), "{text}: {mv} accepted"),
            }
        }
    }
    assert_eq!(c.captured(), r.prisons);
    if ref_children.is_empty() {
        assert_eq!(c.final_sweep(), r.final_sweep(), "final sweep of {text}");
    }
}

/// A random opening move: a random lift set, each warrior to a random pit.
fn random_opening(r: &RefKiothi, rng: &mut Rng) -> (String, RefKiothi) {
    let sets = r.lift_sets();
    let set = &sets[rng.below(sets.len())];
    let n: u32 = set.iter().map(|&p| r.pits[p]).sum();
    let mut targets: Vec<usize> = (0..n).map(|_| rng.below(PITS)).collect();
    // Bias some games towards one row, so that rows can run dry.
    if rng.below(4) == 0 {
        let row = own_pits(rng.below(2));
        targets = (0..n).map(|_| row.start + rng.below(10)).collect();
    }
    targets.sort();
    let lifted: Vec<String> = set.iter().map(|p| p.to_string()).collect();
    let placed: Vec<String> = targets.iter().map(|p| p.to_string()).collect();
    let mv = format!("{}>{}", lifted.join("+"), placed.join(","));
    (mv, r.play_opening(set, &targets))
}

/// A random game: opening turns then random play moves, every position compared.
fn random_game(rng: &mut Rng, five_pit: bool, plies: usize, visit: &mut dyn FnMut(&RefKiothi)) {
    let mut r = RefKiothi::start(five_pit);
    for _ in 0..2 {
        let c = to_crate(&r);
        assert_eq!(
            c.move_count(),
            r.opening_count(),
            "opening count of {}",
            r.notation()
        );
        let (mv, child) = random_opening(&r, rng);
        assert_eq!(
            c.play(&mv).unwrap().to_string(),
            child.notation(),
            "{} then {mv}",
            r.notation()
        );
        r = child;
    }
    for _ in 0..plies {
        visit(&r);
        let children = r.play_children();
        if children.is_empty() {
            break;
        }
        r = children[rng.below(children.len())].1.clone();
    }
}

#[test]
fn opening_turn_one_counts() {
    for five in [false, true] {
        let r = RefKiothi::start(five);
        let c = KiothiPosition::start(if five { Setup::FivePit } else { Setup::SixPit });
        assert_eq!(c.to_string(), r.notation());
        let expected = if five { 200_300_100 } else { 300_450_150 };
        assert_eq!(r.opening_count(), expected);
        assert_eq!(c.move_count(), expected);
        assert_eq!(perft(&c, 1), expected);
    }
}

/// Small artificial turn-2 positions: North holds 0–3 occupied pits of 1–2
/// warriors; the reference enumerates every distinct board by brute force.
#[test]
fn opening_turn_two_brute_force() {
    let mut rng = Rng(0x0FE2);
    let mut positions = 0;
    let mut moves = 0;
    for case in 0..40 {
        let total = if case % 2 == 0 { 60 } else { 50 };
        let mut pits = vec![0u32; PITS];
        let n_occ = case % 4; // 0..=3 occupied North pits
        let mut north = 0;
        let mut chosen = BTreeSet::new();
        while chosen.len() < n_occ {
            chosen.insert(10 + rng.below(10));
        }
        for &p in &chosen {
            pits[p] = 1 + rng.below(2) as u32;
            north += pits[p];
        }
        // The rest of the warriors anywhere in South's row.
        for _ in 0..total - north {
            pits[rng.below(10)] += 1;
        }
        let r = RefKiothi {
            pits,
            protected: vec![false; PITS],
            side: 1,
            phase: RefPhase::Opening,
            prisons: [0, 0],
        };
        let c = to_crate(&r);
        assert_eq!(c.to_string(), r.notation());
        let ref_children = r.opening_children();
        assert_eq!(
            c.move_count(),
            ref_children.len() as u64,
            "{}",
            r.notation()
        );
        assert_eq!(r.opening_count(), ref_children.len() as u64);
        assert_eq!(perft(&c, 1), ref_children.len() as u64);
        assert_eq!(c.is_over(), ref_children.is_empty());
        let mut crate_children = BTreeMap::new();
        let _ = c.for_each_child(|mv, child| {
            assert!(
                crate_children
                    .insert(mv.to_string(), child.to_string())
                    .is_none(),
                "move {mv} twice"
            );
            std::ops::ControlFlow::Continue(())
        });
        assert_eq!(
            crate_children,
            ref_children,
            "opening children of {}",
            r.notation()
        );
        // Parsing each move (targets given in reverse order) plays the same child.
        for (mv, child) in ref_children.iter().step_by(97) {
            let (lift, targets) = mv.split_once('>').unwrap();
            let mut t: Vec<&str> = targets.split(',').collect();
            t.reverse();
            let lift: Vec<&str> = lift.split('+').rev().collect();
            let text = format!("{}>{}", lift.join("+"), t.join(","));
            assert_eq!(&c.play(&text).unwrap().to_string(), child, "{text}");
        }
        if ref_children.is_empty() {
            assert_eq!(c.final_sweep(), r.final_sweep());
        }
        // Each child is a play position the reference and crate agree on.
        for child in ref_children.values().step_by(211) {
            compare_play(&RefKiothi::parse(child));
        }
        positions += 1;
        moves += ref_children.len();
    }
    eprintln!("Kiothi turn 2: {positions} positions, {moves} opening moves compared");
}

#[test]
fn play_phase_agrees_along_random_games() {
    let mut rng = Rng(0xC0FFEE);
    let mut positions = 0;
    let mut perfts = 0;
    for game in 0..200 {
        let mut ply = 0;
        let mut local = Rng(rng.next());
        random_game(&mut local, game % 3 == 2, 250, &mut |r| {
            compare_play(r);
            positions += 1;
            if ply % 25 == 0 {
                let c = to_crate(r);
                let depth = if ply % 50 == 0 { 3 } else { 2 };
                assert_eq!(
                    perft(&c, depth),
                    r.perft(depth),
                    "perft {depth} of {}",
                    r.notation()
                );
                perfts += 1;
            }
            ply += 1;
        });
    }
    let s = STATS.with(|s| s.get());
    eprintln!(
        "Kiothi play: {positions} positions, {perfts} perfts; reference met first-lap refusals {}, \
         never-ending moves {}, relayed moves {}, capturing moves {}, bonuses {}, protected saves {}",
        s[S_FIRST_LAP], s[S_NEVER_ENDS], s[S_RELAYED], s[S_CAPTURE], s[S_BONUS], s[S_PROTECTED_SAVED]
    );
    assert!(positions > 6000);
    assert!(s[S_CAPTURE] > 0 && s[S_BONUS] > 0 && s[S_FIRST_LAP] > 0 && s[S_RELAYED] > 0);
}

/// Hand-built positions for rules random play meets rarely.
#[test]
fn play_phase_edge_positions() {
    let cases = [
        // Bonus pits occupied: North to move, then South replies (rule 8).
        "kiothi 0,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0,2,2,2,1 N play 25 25",
        "kiothi 0,0,0,0,0,0,0,0,0,1,0,0,0,0,0,3,2,2,2,0 S play 25 25",
        // A protected bonus pit blocks the whole bonus.
        "kiothi 0,0,0,0,0,0,0,0,0,1,0,0,0,0,0,3,2*,2,2,0 S play 25 25",
        // Mover with an empty row: game over.
        "kiothi 0,0,0,0,0,0,0,0,0,0,3,0,0,4,0,0,0,0,0,1 S play 30 22",
        // Everything blocked by rule 5.
        "kiothi 1,1,0,0,0,0,0,0,0,0,5,0,0,0,0,0,0,0,0,0 S play 30 23",
        // Big piles: first laps longer than the board.
        "kiothi 25,0,0,0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,0,24 S play 5 5",
        "kiothi 30*,0,0,0,0,0,0,0,0,0,1*,0,0,0,0,0,0,0,0,29* N play 0 0",
    ];
    for text in cases {
        let c = parse_position(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let r = RefKiothi::parse(&c.to_string());
        compare_play(&r);
        for (_, child) in r.play_children() {
            compare_play(&child);
        }
        assert_eq!(perft(&c, 3), r.perft(3), "{text}");
    }
}
