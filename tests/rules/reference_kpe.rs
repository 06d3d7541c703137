//! An independent, deliberately slow reference implementation of Kpé
//! (RULES §1), written from the rule book alone, compared with the crate.
//!
//! The reference shares nothing with the crate except RULES §3 notation:
//! crate positions are printed, parsed by the reference's own parser, and the
//! reference's children are printed by its own printer and compared as strings.

use std::collections::BTreeMap;

use sow::games::kpe::{parse_position, KpePosition, KpeVariant};
use sow::perft::perft;
use sow::Game;

use crate::common::Rng;

/// A Kpé position, as plainly as possible.
#[derive(Clone, Debug, PartialEq, Eq)]
struct RefKpe {
    w: usize,
    k: usize,
    /// 2W pit counts in pit order.
    pits: Vec<u32>,
    /// 0 = South, 1 = North.
    side: usize,
    /// marks[s][i]: side s has started a move from its i-th pit.
    marks: [Vec<bool>; 2],
    captured: [u32; 2],
}

impl RefKpe {
    fn start(w: usize, k: usize) -> RefKpe {
        RefKpe {
            w,
            k,
            pits: vec![k as u32; 2 * w],
            side: 0,
            marks: [vec![false; w], vec![false; w]],
            captured: [0, 0],
        }
    }

    fn n(&self) -> usize {
        2 * self.w
    }

    /// Owner of a pit: South owns 0..W, North W..2W.
    fn owner(&self, pit: usize) -> usize {
        if pit < self.w {
            0
        } else {
            1
        }
    }

    fn own_pits(&self, side: usize) -> Vec<usize> {
        (0..self.n()).filter(|&p| self.owner(p) == side).collect()
    }

    fn row_is_empty(&self, side: usize) -> bool {
        self.own_pits(side).iter().all(|&p| self.pits[p] == 0)
    }

    /// Does lifting `pit` drop at least one stone in the opponent's row?
    fn feeds(&self, pit: usize) -> bool {
        let opp = 1 - self.side;
        let mut at = pit;
        for _ in 0..self.pits[pit] {
            at = (at + 1) % self.n();
            if self.owner(at) == opp {
                return true;
            }
        }
        false
    }

    /// RULES §1.1 and §1.4: the legal moves, in pit order.
    fn legal_moves(&self) -> Vec<usize> {
        let nonempty: Vec<usize> = self
            .own_pits(self.side)
            .into_iter()
            .filter(|&p| self.pits[p] > 0)
            .collect();
        if self.row_is_empty(1 - self.side) {
            let feeding: Vec<usize> = nonempty
                .iter()
                .copied()
                .filter(|&p| self.feeds(p))
                .collect();
            if !feeding.is_empty() {
                return feeding;
            }
        }
        nonempty
    }

    /// Plays a move: lift, sow one stone at a time, mark, capture backwards.
    fn play(&self, pit: usize) -> RefKpe {
        assert_eq!(self.owner(pit), self.side);
        assert!(self.pits[pit] > 0);
        let me = self.side;
        let opp = 1 - me;
        let mut next = self.clone();
        let mut hand = next.pits[pit];
        next.pits[pit] = 0;
        // Rule 2: the mark is set when the move starts.
        let index_in_row = pit - if me == 0 { 0 } else { self.w };
        next.marks[me][index_in_row] = true;
        let mut at = pit;
        while hand > 0 {
            at = (at + 1) % self.n();
            next.pits[at] += 1;
            hand -= 1;
        }
        let last = at;
        let unlocked = next.marks[me].iter().all(|&m| m);
        if unlocked {
            let mut at = last;
            loop {
                if next.owner(at) != opp {
                    break;
                }
                let c = next.pits[at];
                if c != 2 && c != 4 {
                    break;
                }
                next.captured[me] += c;
                next.pits[at] = 0;
                at = (at + self.n() - 1) % self.n();
            }
        }
        next.side = opp;
        next
    }

    /// RULES §1.5: what each side gets when the game ends here.
    fn final_sweep(&self) -> [u32; 2] {
        let mut out = [0, 0];
        for p in 0..self.n() {
            out[self.owner(p)] += self.pits[p];
        }
        out
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.legal_moves()
            .into_iter()
            .map(|m| self.play(m).perft(depth - 1))
            .sum()
    }

    /// RULES §3 notation, written by the reference itself.
    fn notation(&self) -> String {
        let tag = if self.w == 4 && self.k == 6 {
            "kpe".to_string()
        } else {
            format!("kpe:{}x{}", self.w, self.k)
        };
        let counts: Vec<String> = self.pits.iter().map(|c| c.to_string()).collect();
        let marks = |s: usize| -> String {
            self.marks[s]
                .iter()
                .map(|&m| if m { 'x' } else { '.' })
                .collect()
        };
        format!(
            "{} {} {} {} {} {} {}",
            tag,
            counts.join(","),
            if self.side == 0 { "S" } else { "N" },
            marks(0),
            marks(1),
            self.captured[0],
            self.captured[1]
        )
    }

    /// Parses the reference's own (full, 7-field) notation.
    fn parse(text: &str) -> RefKpe {
        let f: Vec<&str> = text.split(' ').collect();
        assert_eq!(f.len(), 7, "{text}");
        let (w, k) = match f[0].strip_prefix("kpe:") {
            None => {
                assert_eq!(f[0], "kpe");
                (4, 6)
            }
            Some(size) => {
                let (w, k) = size.split_once('x').unwrap();
                (w.parse().unwrap(), k.parse().unwrap())
            }
        };
        let pits: Vec<u32> = f[1].split(',').map(|c| c.parse().unwrap()).collect();
        assert_eq!(pits.len(), 2 * w);
        let side = match f[2] {
            "S" => 0,
            "N" => 1,
            s => panic!("side {s}"),
        };
        let marks = |t: &str| -> Vec<bool> {
            assert_eq!(t.len(), w);
            t.chars().map(|c| c == 'x').collect()
        };
        RefKpe {
            w,
            k,
            pits,
            side,
            marks: [marks(f[3]), marks(f[4])],
            captured: [f[5].parse().unwrap(), f[6].parse().unwrap()],
        }
    }
}

fn to_crate(r: &RefKpe) -> KpePosition {
    let text = r.notation();
    parse_position(&text).unwrap_or_else(|e| panic!("crate refuses {text}: {e}"))
}

fn from_crate(p: &KpePosition) -> RefKpe {
    RefKpe::parse(&p.to_string())
}

/// Compares one position completely (moves, children, end of game) and
/// returns the children's reference forms.
fn compare_position(r: &RefKpe) {
    let c = to_crate(r);
    let text = r.notation();
    assert_eq!(c.to_string(), text, "printing differs");
    assert_eq!(from_crate(&c), *r, "round trip");

    let ref_moves: Vec<String> = r.legal_moves().iter().map(|m| m.to_string()).collect();
    let mut crate_moves: Vec<String> = c.legal_moves().iter().map(|m| m.to_string()).collect();
    let mut sorted_ref = ref_moves.clone();
    sorted_ref.sort();
    crate_moves.sort();
    assert_eq!(crate_moves, sorted_ref, "legal moves of {text}");
    assert_eq!(
        c.move_count(),
        ref_moves.len() as u64,
        "move_count of {text}"
    );
    assert_eq!(c.is_over(), ref_moves.is_empty(), "is_over of {text}");

    let mut ref_children = BTreeMap::new();
    for m in r.legal_moves() {
        ref_children.insert(m.to_string(), r.play(m).notation());
    }
    let mut crate_children = BTreeMap::new();
    let _ = c.for_each_child(|mv, child| {
        crate_children.insert(mv.to_string(), child.to_string());
        std::ops::ControlFlow::Continue(())
    });
    assert_eq!(crate_children, ref_children, "children of {text}");
    // play() through the parser gives the same children.
    for (mv, child) in &ref_children {
        assert_eq!(&c.play(mv).unwrap().to_string(), child, "{text} then {mv}");
    }
    // Moves the reference calls illegal are refused by the parser.
    for p in 0..r.n() {
        if !ref_children.contains_key(&p.to_string()) {
            assert!(
                c.parse_move(&p.to_string()).is_err(),
                "{text}: {p} accepted"
            );
        }
    }
    assert_eq!(c.captured(), r.captured, "captured of {text}");
    assert_eq!(c.board_total(), r.pits.iter().sum::<u32>(), "{text}");
    if ref_moves.is_empty() {
        assert_eq!(c.final_sweep(), r.final_sweep(), "final sweep of {text}");
    }
}

/// Random games from the start; every position met is compared, and perft
/// at `depth` is compared every `perft_every` plies.
fn random_games(w: usize, k: usize, games: usize, seed: u64, depth: u32) -> usize {
    let mut rng = Rng(seed);
    let mut checked = 0;
    for _ in 0..games {
        let mut r = RefKpe::start(w, k);
        for ply in 0..400 {
            compare_position(&r);
            checked += 1;
            if ply % 7 == 3 {
                let c = to_crate(&r);
                assert_eq!(
                    perft(&c, depth),
                    r.perft(depth),
                    "perft {depth} of {}",
                    r.notation()
                );
            }
            let moves = r.legal_moves();
            if moves.is_empty() {
                break;
            }
            r = r.play(moves[rng.below(moves.len())]);
        }
    }
    checked
}

#[test]
fn reference_start_perft_matches_rules_section_4() {
    let start = RefKpe::start(4, 6);
    let expected = [4u64, 16, 64, 241, 952, 3731, 14332, 54959];
    for (d, &n) in expected.iter().enumerate() {
        assert_eq!(start.perft(d as u32 + 1), n, "reference perft {}", d + 1);
    }
    let c = KpePosition::start(KpeVariant::STANDARD);
    assert_eq!(c.to_string(), start.notation());
}

#[test]
fn reference_and_crate_agree_on_every_variant() {
    let mut total = 0;
    for w in 2..=8usize {
        for k in 1..=8usize {
            let depth = if w <= 4 { 5 } else { 4 };
            let seed = (w * 100 + k) as u64;
            // Also the start position's perft.
            let start = RefKpe::start(w, k);
            let c = KpePosition::start(KpeVariant::new(w as u8, k as u8).unwrap());
            assert_eq!(c.to_string(), start.notation());
            assert_eq!(perft(&c, depth), start.perft(depth), "start {w}x{k}");
            total += random_games(w, k, 6, seed, depth);
        }
    }
    eprintln!("Kpé: {total} positions compared against the reference");
    assert!(total > 5000);
}

#[test]
fn reference_and_crate_agree_on_the_standard_game_deeper() {
    let mut rng = Rng(0x5EED_4B9E);
    let mut n = 0;
    for _ in 0..40 {
        let mut r = RefKpe::start(4, 6);
        for _ in 0..rng.below(60) {
            let moves = r.legal_moves();
            if moves.is_empty() {
                break;
            }
            r = r.play(moves[rng.below(moves.len())]);
        }
        let c = to_crate(&r);
        for d in 1..=5 {
            assert_eq!(perft(&c, d), r.perft(d), "perft {d} of {}", r.notation());
        }
        n += 1;
    }
    assert_eq!(n, 40);
}

/// Hand-built positions that stress the rules the random games rarely reach:
/// empty opponent rows (feeding), multi-lap sowing, long capture chains.
#[test]
fn reference_and_crate_agree_on_edge_positions() {
    let cases = [
        // Feeding: North's row is empty; only pits that reach it are legal.
        "kpe 1,0,0,1,0,0,0,0 S xxxx xxxx 22 24",
        "kpe 3,0,1,0,0,0,0,0 S xxxx xxxx 20 24",
        // Nothing feeds: every non-empty pit is legal.
        "kpe 1,1,0,0,0,0,0,0 S xxxx xxxx 22 24",
        "kpe 1,1,0,0,0,0,0,0 N xxxx xxxx 22 24",
        // Multi-lap sowing from a big pit, captures along the chain.
        "kpe 17,1,1,1,1,3,1,1 S xxxx xxxx 10 12",
        "kpe 1,3,1,3,1,1,1,25 N xxxx xxxx 6 6",
        // Capture of everything the opponent has.
        "kpe 0,0,0,3,1,3,1,0 S xxxx xxxx 16 24",
        // Locked mover: no capture; fourth mark set by the move: capture.
        "kpe 0,0,0,1,1,9,9,8 S ...x xxxx 0 20",
        "kpe 0,0,0,1,1,9,9,8 S xxx. xxxx 0 20",
        // Game over: mover has an empty row.
        "kpe 0,0,0,0,3,1,0,2 S xxxx xxxx 20 22",
        "kpe:2x1 0,2,1,1 S .x .. 0 0",
        "kpe:8x8 0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1 S xxxxxxxx xxxxxxxx 60 58",
    ];
    for text in cases {
        let c = parse_position(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let r = from_crate(&c);
        compare_position(&r);
        for m in r.legal_moves() {
            compare_position(&r.play(m));
        }
        assert_eq!(perft(&c, 4), r.perft(4), "{text}");
    }
}
