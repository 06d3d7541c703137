//! Property tests over random reachable positions of both games: conservation,
//! notation round trips, Kpé's rotation symmetry, Kiothi's protection marks
//! and the repetition key.

use std::ops::ControlFlow;

use proptest::prelude::*;
use sow::games::kiothi::{self, KiothiMove, KiothiPosition, Phase, Setup};
use sow::games::kpe::{self, KpeMove, KpePosition, KpeVariant};
use sow::perft::perft;
use sow::{Game, Side};

use crate::common::Rng;

/// The positions of a random Kpé game (start included), at most `plies` moves.
fn kpe_game(w: u8, k: u8, seed: u64, plies: usize) -> Vec<KpePosition> {
    let mut rng = Rng(seed);
    let mut p = KpePosition::start(KpeVariant::new(w, k).unwrap());
    let mut out = vec![p];
    for _ in 0..plies {
        let moves = p.legal_moves();
        if moves.is_empty() {
            break;
        }
        p = p.play_unchecked(&moves[rng.below(moves.len())]);
        out.push(p);
    }
    out
}

/// A random opening move in notation: a random lift set, random targets.
fn random_opening_text(p: &KiothiPosition, rng: &mut Rng) -> Option<String> {
    let pits = p.pits();
    let start = kiothi::row_start(p.side());
    let occ: Vec<usize> = (start..start + 10).filter(|&i| pits[i] > 0).collect();
    let lifted: Vec<usize> = match occ.len() {
        0 => return None,
        1 => occ,
        n => {
            let a = rng.below(n);
            let mut b = rng.below(n - 1);
            if b >= a {
                b += 1;
            }
            vec![occ[a], occ[b]]
        }
    };
    let n: u32 = lifted.iter().map(|&i| pits[i] as u32).sum();
    let targets: Vec<String> = (0..n).map(|_| rng.below(20).to_string()).collect();
    let lifted: Vec<String> = lifted.iter().map(|i| i.to_string()).collect();
    Some(format!("{}>{}", lifted.join("+"), targets.join(",")))
}

/// The positions of a random Kiothi game from the start (openings included).
fn kiothi_game(five_pit: bool, seed: u64, plies: usize) -> Vec<KiothiPosition> {
    let mut rng = Rng(seed);
    let mut p = KiothiPosition::start(if five_pit {
        Setup::FivePit
    } else {
        Setup::SixPit
    });
    let mut out = vec![p];
    for _ in 0..plies {
        if p.phase() == Phase::Opening {
            let Some(text) = random_opening_text(&p, &mut rng) else {
                break;
            };
            p = p.play(&text).unwrap_or_else(|e| panic!("{p}: {text}: {e}"));
        } else {
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            p = p.play_unchecked(&moves[rng.below(moves.len())]);
        }
        out.push(p);
    }
    out
}

fn mirror(pit: usize, w: usize) -> usize {
    (pit + w) % (2 * w)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn kpe_stones_are_conserved(w in 2u8..=8, k in 1u8..=8, seed: u64, plies in 0usize..300) {
        let total = 2 * w as u32 * k as u32;
        let game = kpe_game(w, k, seed, plies);
        for p in &game {
            let [s, n] = p.captured();
            prop_assert_eq!(p.board_total() + s + n, total, "{}", p);
            prop_assert_eq!(p.pits().iter().map(|&c| c as u32).sum::<u32>(), p.board_total());
            prop_assert!(s % 2 == 0 && n % 2 == 0, "{}", p);
        }
        // Captures never decrease along the game.
        for pair in game.windows(2) {
            let (a, b) = (pair[0].captured(), pair[1].captured());
            prop_assert!(b[0] >= a[0] && b[1] >= a[1]);
        }
        let last = game.last().unwrap();
        if last.is_over() {
            let sweep = last.final_sweep();
            prop_assert_eq!(sweep[0] + sweep[1], last.board_total());
        }
    }

    /// The solver's tests of a move without sowing it (captures, sets a
    /// mark, unlocks both players) agree with the sowing, on every legal
    /// move of random games (locked and unlocked, laps).
    #[test]
    fn kpe_move_tests_agree_with_sow(w in 2u8..=8, k in 1u8..=8, seed: u64, plies in 0usize..300) {
        for p in kpe_game(w, k, seed, plies) {
            for mv in p.legal_moves() {
                let (child, gained) = p.sow(mv.pit());
                prop_assert_eq!(p.move_captures(mv.pit()), gained > 0, "{} {}", p, mv);
                let me = p.side_to_move();
                prop_assert_eq!(p.move_sets_mark(mv.pit()), child.marks(me) != p.marks(me));
                let unlocked = child.is_unlocked(Side::South) && child.is_unlocked(Side::North);
                prop_assert_eq!(p.move_unlocks_both(mv.pit()), unlocked, "{} {}", p, mv);
            }
        }
    }

    #[test]
    fn kiothi_warriors_are_conserved(five: bool, seed: u64, plies in 0usize..300) {
        let total = if five { 50 } else { 60 };
        let game = kiothi_game(five, seed, plies);
        for p in &game {
            let [s, n] = p.captured();
            prop_assert_eq!(p.board_total() + s + n, total, "{}", p);
            prop_assert_eq!(p.pits().iter().map(|&c| c as u32).sum::<u32>(), p.board_total());
            let prisons = p.prisons();
            prop_assert_eq!([prisons[0] as u32, prisons[1] as u32], [s, n]);
        }
        let last = game.last().unwrap();
        if last.is_over() {
            let sweep = last.final_sweep();
            prop_assert_eq!(sweep[0] + sweep[1], last.board_total());
            prop_assert_eq!(sweep[last.side().index()], 0);
        }
    }

    #[test]
    fn kpe_notation_round_trips(w in 2u8..=8, k in 1u8..=8, seed: u64, plies in 0usize..200) {
        for p in kpe_game(w, k, seed, plies) {
            let text = p.to_string();
            let back = kpe::parse_position(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            prop_assert_eq!(back, p, "{}", text);
            prop_assert_eq!(back.to_string(), text);
            for mv in p.legal_moves() {
                let parsed: KpeMove = p.parse_move(&mv.to_string()).unwrap();
                prop_assert_eq!(parsed, mv);
            }
        }
    }

    #[test]
    fn kiothi_notation_round_trips(five: bool, seed: u64, plies in 0usize..200) {
        let mut rng = Rng(seed ^ 0xABCD);
        for p in kiothi_game(five, seed, plies) {
            let text = p.to_string();
            let back = kiothi::parse_position(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            prop_assert_eq!(back, p, "{}", text);
            prop_assert_eq!(back.to_string(), text.clone());
            match p.phase() {
                Phase::Play => {
                    for mv in p.legal_moves() {
                        let parsed: KiothiMove = p.parse_move(&mv.to_string()).unwrap();
                        prop_assert_eq!(parsed, mv);
                    }
                }
                Phase::Opening => {
                    // Hundreds of millions of moves: the first few and some random ones.
                    let mut some = Vec::new();
                    let _ = p.for_each_move(|mv| {
                        some.push(mv);
                        if some.len() < 40 { ControlFlow::Continue(()) } else { ControlFlow::Break(()) }
                    });
                    for _ in 0..20 {
                        if let Some(t) = random_opening_text(&p, &mut rng) {
                            some.push(p.parse_move(&t).unwrap());
                        }
                    }
                    for mv in some {
                        let printed = mv.to_string();
                        let parsed = p.parse_move(&printed).unwrap();
                        prop_assert_eq!(parsed, mv, "{}", printed);
                        prop_assert_eq!(parsed.to_string(), printed);
                    }
                }
            }
        }
    }

    #[test]
    fn kpe_rotation_is_a_symmetry(w in 2u8..=8, k in 1u8..=8, seed: u64, plies in 0usize..120) {
        let wu = w as usize;
        let game = kpe_game(w, k, seed, plies);
        let p = *game.last().unwrap();
        let r = p.rotated();
        let n = 2 * wu;
        let turned: Vec<u8> = (0..n).map(|i| p.pits()[(i + wu) % n]).collect();
        prop_assert_eq!(r.pits(), &turned[..], "{}", p);
        prop_assert_eq!(r.rotated(), p);
        prop_assert_eq!(r.side(), p.side().other());
        prop_assert_eq!(r.marks(Side::South), p.marks(Side::North));
        prop_assert_eq!(r.captured(), [p.captured()[1], p.captured()[0]]);
        prop_assert_eq!(r.move_count(), p.move_count(), "{}", p);
        let mut mirrored: Vec<usize> = p.legal_moves().iter().map(|m| mirror(m.pit(), wu)).collect();
        let mut rot_moves: Vec<usize> = r.legal_moves().iter().map(|m| m.pit()).collect();
        mirrored.sort_unstable();
        rot_moves.sort_unstable();
        prop_assert_eq!(&rot_moves, &mirrored, "{}", p);
        // Children correspond: rotate(child of p) = child of rotate(p) by the mirrored move.
        for mv in p.legal_moves() {
            let a = p.play_unchecked(&mv).rotated();
            let b = r.play_unchecked(&KpeMove(mirror(mv.pit(), wu) as u8));
            prop_assert_eq!(a, b, "{} move {}", p, mv);
        }
        let depth = if w <= 5 { 4 } else { 3 };
        prop_assert_eq!(perft(&r, depth), perft(&p, depth), "{}", p);
        prop_assert_eq!(p.relative().side(), Side::South);
        prop_assert_eq!(perft(&p.relative(), 3), perft(&p, 3));
    }

    #[test]
    fn kiothi_protected_pits_are_never_empty(five: bool, seed: u64, plies in 0usize..300) {
        for p in kiothi_game(five, seed, plies) {
            let pits = p.pits();
            for (i, &c) in pits.iter().enumerate() {
                if p.protected() & (1 << i) != 0 {
                    prop_assert!(c > 0, "pit {} protected and empty in {}", i, p);
                }
            }
            prop_assert_eq!(p.protected() >> 20, 0);
            if p.phase() == Phase::Opening {
                prop_assert_eq!(p.protected(), 0);
            }
        }
    }

    #[test]
    fn kpe_repetition_key_ignores_captures(w in 2u8..=8, k in 1u8..=8, seed: u64, plies in 0usize..300) {
        for p in kpe_game(w, k, seed, plies) {
            let key = p.repetition_key();
            prop_assert_eq!(key.captured(), [0, 0]);
            prop_assert_eq!(key.pits(), p.pits());
            prop_assert_eq!(key.side(), p.side());
            prop_assert_eq!(key.marks(Side::South), p.marks(Side::South));
            prop_assert_eq!(key.marks(Side::North), p.marks(Side::North));
            let [s, n] = p.captured();
            let others = [[n, s], [s + n, 0], [0, s + n]];
            for c in others {
                let q = KpePosition::from_parts(
                    p.variant(),
                    p.pits(),
                    p.side(),
                    [p.marks(Side::South), p.marks(Side::North)],
                    [c[0] as u16, c[1] as u16],
                );
                prop_assert_eq!(q.repetition_key(), key, "{} vs {}", p, q);
            }
            // A different side to move is a different position.
            let other = KpePosition::from_parts(
                p.variant(),
                p.pits(),
                p.side().other(),
                [p.marks(Side::South), p.marks(Side::North)],
                [s as u16, n as u16],
            );
            prop_assert_ne!(other.repetition_key(), key);
        }
    }

    #[test]
    fn kiothi_repetition_key_ignores_prisons(five: bool, seed: u64, plies in 0usize..300) {
        for p in kiothi_game(five, seed, plies) {
            let key = p.repetition_key();
            prop_assert_eq!(key.captured(), [0, 0]);
            prop_assert_eq!(key.pits(), p.pits());
            prop_assert_eq!(key.protected(), p.protected());
            prop_assert_eq!(key.side(), p.side());
            prop_assert_eq!(key.phase(), p.phase());
            let [s, n] = p.captured();
            let text = p.to_string();
            let board = text.rsplitn(3, ' ').nth(2).unwrap();
            for c in [[n, s], [s + n, 0], [0, s + n]] {
                let q_text = format!("{board} {} {}", c[0], c[1]);
                let q = kiothi::parse_position(&q_text).unwrap_or_else(|e| panic!("{q_text}: {e}"));
                prop_assert_eq!(q.repetition_key(), key, "{} vs {}", text, q_text);
            }
        }
    }
}
