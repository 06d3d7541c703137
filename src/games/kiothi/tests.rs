//! Rule-by-rule tests of the Kiothi engine (RULES §2–4).

use std::ops::ControlFlow;

use super::sowing::{sow, sow_plain, Sown, Words};
use super::*;
use crate::game::{Game, Side};

/// Small deterministic generator for the randomised tests.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A play-phase position with `total - board` in South's prison.
fn mk(pits: [u8; 20], protected: &[usize], side: Side) -> KiothiPosition {
    let board: u32 = pits.iter().map(|&c| c as u32).sum();
    assert!(board <= 60);
    let mut mask = 0;
    for &p in protected {
        mask |= 1 << p;
    }
    KiothiPosition {
        pits,
        protected: mask,
        side,
        phase: Phase::Play,
        prisons: [(60 - board) as u16, 0],
        setup: Setup::SixPit,
    }
}

fn board(pairs: &[(usize, u8)]) -> [u8; 20] {
    let mut b = [0; 20];
    for &(p, c) in pairs {
        b[p] = c;
    }
    b
}

/// A random play-phase position: 60 warriors spread with clumps, random
/// marks on occupied pits, random side.
pub(crate) fn random_position(rng: &mut Rng, on_board: u32) -> KiothiPosition {
    let mut pits = [0u8; 20];
    let hot = rng.below(20) as usize;
    for _ in 0..on_board {
        let p = if rng.below(4) == 0 {
            hot
        } else {
            rng.below(20) as usize
        };
        pits[p] += 1;
    }
    let mut marks = 0;
    for (i, &c) in pits.iter().enumerate() {
        if c > 0 && rng.below(3) == 0 {
            marks |= 1 << i;
        }
    }
    let side = if rng.below(2) == 0 {
        Side::South
    } else {
        Side::North
    };
    KiothiPosition {
        pits,
        protected: marks,
        side,
        phase: Phase::Play,
        prisons: [(60 - on_board) as u16, 0],
        setup: Setup::SixPit,
    }
}

fn after(pos: &KiothiPosition, mv: &str) -> KiothiPosition {
    pos.play(mv)
        .unwrap_or_else(|e| panic!("{mv} in {pos}: {e}"))
}

fn illegal_reason(pos: &KiothiPosition, mv: &str) -> String {
    match pos.parse_move(mv) {
        Err(InputError::IllegalMove { reason, .. }) => reason,
        other => panic!("{mv} in {pos}: expected an illegal move, got {other:?}"),
    }
}

fn marks_of(list: &[usize]) -> u32 {
    list.iter().fold(0, |m, &p| m | (1 << p))
}

// ---------------------------------------------------------------- rule 4

#[test]
fn rule4_partial_hand_leaves_the_rest_and_clears_marks() {
    let pos = mk(board(&[(2, 5), (12, 4)]), &[2, 12], Side::South);
    let next = after(&pos, "2x2");
    assert_eq!(next.pits(), board(&[(2, 3), (3, 1), (4, 1), (12, 4)]));
    // Rule 3: the origin (sown from) loses its mark; pit 12 keeps its own.
    assert_eq!(next.protected(), marks_of(&[12]));
    assert_eq!(next.side(), Side::North);
    assert_eq!(next.prisons(), pos.prisons());
}

#[test]
fn rule4_moves_in_order_pit_then_count() {
    let pos = mk(board(&[(2, 2), (5, 1), (12, 4)]), &[], Side::South);
    let moves: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
    assert_eq!(moves, ["2x1", "2x2", "5x1"]);
}

// ---------------------------------------------------------------- rule 5

#[test]
fn rule5_first_lap_refused_for_warriors_dropped_earlier_in_the_lap() {
    // 21 warriors from pit 0: a whole lap drops one in pit 1, the 21st lands on it.
    let pos = mk(board(&[(0, 21), (15, 3)]), &[], Side::South);
    assert_eq!(pos.try_play(0, 21), Err(PlayRefusal::FirstLap(1)));
    assert_eq!(
        illegal_reason(&pos, "0x21"),
        "last warrior of the first lap lands in own occupied pit 1"
    );
    assert!(!pos
        .legal_moves()
        .contains(&KiothiMove::Play { pit: 0, count: 21 }));
}

#[test]
fn rule5_first_lap_refused_for_warriors_left_in_the_origin() {
    // Lifting 20 of 25: the 20th warrior lands in the origin, which still holds 5.
    let pos = mk(board(&[(3, 25), (15, 3)]), &[], Side::South);
    assert_eq!(pos.try_play(3, 20), Err(PlayRefusal::FirstLap(3)));
    assert_eq!(
        illegal_reason(&pos, "3x20"),
        "last warrior of the first lap lands in own occupied pit 3"
    );
    // A short hand landing on an occupied own pit is refused too.
    let pos = mk(board(&[(3, 2), (5, 1), (15, 3)]), &[], Side::South);
    assert_eq!(
        illegal_reason(&pos, "3x2"),
        "last warrior of the first lap lands in own occupied pit 5"
    );
    assert!(pos.play("3x1").is_ok());
}

#[test]
fn rule5_whole_lap_into_emptied_origin_ends_and_captures() {
    // All 20 lifted from pit 0: the 20th warrior lands in the emptied origin,
    // which was empty, so the move ends there (leftmost pit: rules 7 and 8).
    let pos = mk(board(&[(0, 20), (15, 3)]), &[15], Side::South);
    let next = after(&pos, "0x20");
    let mut expect = [1u8; 20];
    expect[0] = 0;
    expect[15] = 4;
    expect[16..20].fill(0);
    assert_eq!(next.pits(), expect);
    assert_eq!(next.protected(), 0);
    // 19 (rule 7) + 16, 17, 18 (rule 8) + the ending warrior (rule 9).
    assert_eq!(next.prisons()[0], pos.prisons()[0] + 5);
}

// ---------------------------------------------------------------- rule 6

#[test]
fn rule6_relay_wraps_around_and_relays_on_a_later_lap_in_own_row() {
    let pos = mk(board(&[(1, 3), (9, 2), (11, 9)]), &[], Side::South);
    // 9x2: 10, 11 (occupied, enemy row: relay 10) → 12..19, 0, 1 (occupied,
    // own row, lap 2: relay 4) → 2, 3, 4, 5 (empty: end). Rule 7 takes 14.
    let next = after(&pos, "9x2");
    let mut expect = board(&[(0, 1), (2, 1), (3, 1), (4, 1), (10, 1), (12, 1), (13, 1)]);
    expect[15..20].fill(1);
    assert_eq!(next.pits(), expect);
    assert_eq!(next.prisons()[0], pos.prisons()[0] + 2);
}

#[test]
fn rule6_relay_ends_in_enemy_row_without_capture() {
    let pos = mk(board(&[(8, 3), (11, 2), (5, 1)]), &[11], Side::South);
    // 8x3: 9, 10, 11 (occupied: relay 3) → 12, 13, 14 (empty): ends, no capture.
    let next = after(&pos, "8x3");
    assert_eq!(
        next.pits(),
        board(&[(5, 1), (9, 1), (10, 1), (12, 1), (13, 1), (14, 1)])
    );
    assert_eq!(next.protected(), 0);
    assert_eq!(next.prisons(), pos.prisons());
}

/// Found by a search of random positions for moves that never end; the
/// relay state repeats.
const NEVER_ENDING: &str = "kiothi 2*,0,2,1*,0,5*,2*,1,2,1,0,1,0,2*,1*,0,1,6,0,1 N play 32 0";

#[test]
fn rule6_never_ending_relay_is_illegal() {
    let pos = parse_position(NEVER_ENDING).unwrap();
    let w = Words::from_pits(&pos.pits);
    assert_eq!(sow(w, pos.protected, pos.side, 17, 6), Sown::NeverEnds);
    // Brute force: plain sowing, 10,000 laps, no cycle detection.
    assert_eq!(
        sow_plain(pos.pits, pos.protected, pos.side, 17, 6),
        Sown::NeverEnds
    );
    assert!(illegal_reason(&pos, "17x6").contains("never ends"));
    assert!(!pos
        .legal_moves()
        .contains(&KiothiMove::Play { pit: 17, count: 6 }));
    assert_eq!(pos.play_move(&KiothiMove::Play { pit: 17, count: 6 }), None);
    for other in [
        (
            "kiothi 2*,1*,2,1,2,1,3*,2,1,0,4,1,0,1*,0,1,0,2,16*,1* N play 19 0",
            18,
            7,
        ),
        (
            "kiothi 1,3,2,1,0,2,1,0,2,3,2*,1*,4*,7,0,1,2*,1*,15,4 N play 8 0",
            19,
            3,
        ),
    ] {
        let pos = parse_position(other.0).unwrap();
        assert_eq!(
            sow_plain(pos.pits, pos.protected, pos.side, other.1, other.2),
            Sown::NeverEnds
        );
        assert_eq!(pos.try_play(other.1, other.2), Err(PlayRefusal::NeverEnds));
    }
}

// ------------------------------------------------------- rules 3, 7 and 9

#[test]
fn rule3_rule7_protection_blocks_the_capture() {
    let pos = mk(board(&[(2, 1), (5, 2), (16, 4)]), &[16], Side::South);
    let next = after(&pos, "2x1");
    assert_eq!(next.pits(), board(&[(3, 1), (5, 2), (16, 4)]));
    assert_eq!(next.protected(), marks_of(&[16]));
    assert_eq!(next.prisons(), pos.prisons());
    // Without the mark the 4 warriors and the ending warrior go to prison (rule 9).
    let bare = mk(board(&[(2, 1), (5, 2), (16, 4)]), &[], Side::South);
    let next = after(&bare, "2x1");
    assert_eq!(next.pits(), board(&[(5, 2)]));
    assert_eq!(next.prisons()[0], bare.prisons()[0] + 5);
}

#[test]
fn rule3_rule7_rule8_marks_cleared_by_sowing_allow_capture_and_bonus() {
    // 8x12 sows 9..19 and ends in the empty pit 0: every protected enemy pit was sown into.
    let pos = mk(
        board(&[(8, 12), (16, 1), (17, 3), (18, 1), (19, 2)]),
        &[16, 17, 18, 19],
        Side::South,
    );
    let next = after(&pos, "8x12");
    let mut expect = [0u8; 20];
    expect[9..16].fill(1);
    assert_eq!(next.pits(), expect);
    assert_eq!(next.protected(), 0);
    // 19 holds 3 (rule 7), 16, 17, 18 hold 2, 4, 2 (rule 8), plus the ending warrior.
    assert_eq!(next.prisons()[0], pos.prisons()[0] + 12);
}

#[test]
fn rule7_rule9_capture_in_north_row_order() {
    // North: 13x2 ends in 15, opposite 4.
    let pos = mk(board(&[(4, 3), (13, 2), (1, 1)]), &[], Side::North);
    let next = after(&pos, "13x2");
    assert_eq!(next.pits(), board(&[(1, 1), (14, 1)]));
    assert_eq!(next.prisons()[1], pos.prisons()[1] + 4);
    assert_eq!(next.side(), Side::South);
}

#[test]
fn rule8_north_leftmost_bonus_with_rule7() {
    // 18x12 sows 19, 0..9 and ends in North's empty leftmost pit 10.
    let pos = mk(board(&[(18, 12), (7, 2)]), &[7], Side::North);
    let next = after(&pos, "18x12");
    let mut expect = [0u8; 20];
    expect[0..6].fill(1);
    expect[19] = 1;
    assert_eq!(next.pits(), expect);
    // 9 (rule 7: 1) + 6, 7, 8 (rule 8: 1, 3, 1) + ending warrior.
    assert_eq!(next.prisons()[1], pos.prisons()[1] + 7);
}

#[test]
fn rule8_bonus_fails_when_one_pit_is_empty() {
    // 9x9 lands in 18 (occupied: relay 2), sows 19 and ends in 0. The relay
    // emptied 18, so the bonus fails; rule 7 still takes 19.
    let pos = mk(board(&[(9, 9), (18, 1), (19, 2)]), &[], Side::South);
    let next = after(&pos, "9x9");
    let mut expect = [0u8; 20];
    expect[10..18].fill(1);
    assert_eq!(next.pits(), expect);
    assert_eq!(next.prisons()[0], pos.prisons()[0] + 4);
}

/// A move ending in the leftmost pit always sows 19 (16, 17, 18) in its
/// last lap or lifts one of 16..18 for it, so a protected bonus pit never
/// survives to the end of such a move: the protected case of rule 8 is
/// tested on the end-of-move step directly.
#[test]
fn rule8_bonus_fails_when_one_pit_is_protected_and_is_judged_on_its_own() {
    let pos = mk(board(&[(5, 1)]), &[], Side::South);
    let w = |pairs: &[(usize, u8)]| Words::from_pits(&board(pairs));
    // Ends in 0; 16, 17, 18 occupied but 17 protected: only rule 7 (19) captures.
    let next = pos.finish(
        w(&[(0, 1), (16, 2), (17, 2), (18, 2), (19, 3)]),
        marks_of(&[17]),
        0,
    );
    assert_eq!(next.pits(), board(&[(16, 2), (17, 2), (18, 2)]));
    assert_eq!(next.protected(), marks_of(&[17]));
    assert_eq!(next.prisons()[0], pos.prisons()[0] + 4);
    // 19 empty: rule 7 takes nothing, the bonus alone captures, with the ending warrior.
    let next = pos.finish(w(&[(0, 1), (16, 2), (17, 2), (18, 2)]), 0, 0);
    assert_eq!(next.pits(), [0; 20]);
    assert_eq!(next.prisons()[0], pos.prisons()[0] + 7);
    // 19 protected, bonus fails: nothing captured, the ending warrior stays.
    let next = pos.finish(w(&[(0, 1), (17, 2), (18, 2), (19, 1)]), marks_of(&[19]), 0);
    assert_eq!(next.pits(), board(&[(0, 1), (17, 2), (18, 2), (19, 1)]));
    assert_eq!(next.prisons(), pos.prisons());
}

// ---------------------------------------------------------------- rule 10

#[test]
fn rule10_empty_row_ends_the_game_and_the_board_goes_to_the_other_player() {
    let pos = mk(board(&[(12, 5), (15, 3)]), &[15], Side::South);
    assert!(pos.is_over());
    assert_eq!(pos.move_count(), 0);
    assert_eq!(pos.final_sweep(), [0, 8]);
    assert_eq!(pos.terminal_value(), -8);
    assert!(illegal_reason(&pos, "3x1").contains("game over"));
    let pos = mk(board(&[(2, 5), (5, 3)]), &[], Side::North);
    assert!(pos.is_over());
    assert_eq!(pos.final_sweep(), [8, 0]);
}

// ---------------------------------------------------------------- rule 2

#[test]
fn rule2_opening_move_counts() {
    let six = KiothiPosition::start(Setup::SixPit);
    let five = KiothiPosition::start(Setup::FivePit);
    assert_eq!(six.move_count(), 300_450_150);
    assert_eq!(five.move_count(), 200_300_100);
    assert_eq!(placements(10), 20_030_010);
    assert!(!six.is_over());
}

#[test]
fn rule2_opening_enumeration_is_complete_and_distinct() {
    // Turn 2, North has two occupied pits of one warrior each: C(21, 19) = 210 moves.
    let pos = parse_position("kiothi 9,9,9,9,9,9,4,0,0,0,0,0,0,0,1,1,0,0,0,0 N opening").unwrap();
    assert_eq!(pos.move_count(), 210);
    let moves = pos.legal_moves();
    assert_eq!(moves.len(), 210);
    let set: std::collections::HashSet<_> = moves.iter().collect();
    assert_eq!(set.len(), 210);
    let children: std::collections::HashSet<_> =
        moves.iter().map(|m| pos.play_unchecked(m)).collect();
    assert_eq!(children.len(), 210);
    assert_eq!(moves[0].to_string(), "14+15>0,0");
    assert_eq!(moves[209].to_string(), "14+15>19,19");
    // Three pits of 1, 1, 2: pairs of 2, 3, 3 warriors.
    let pos = parse_position("kiothi 9,9,9,9,9,9,2,0,0,0,0,0,0,0,1,1,2,0,0,0 N opening").unwrap();
    let expect = placements(2) + 2 * placements(3);
    assert_eq!(pos.move_count(), expect);
    assert_eq!(pos.legal_moves().len() as u64, expect);
}

#[test]
fn rule2_lead_decision_one_or_no_occupied_pit_at_turn_2() {
    // One occupied pit: it alone is redistributed, notation `<a>><targets>`.
    let pos = parse_position("kiothi 9,9,9,9,9,9,4,0,0,0,0,0,0,0,2,0,0,0,0,0 N opening").unwrap();
    assert_eq!(pos.move_count(), 210);
    let mv = pos.parse_move("14>19,3").unwrap();
    assert_eq!(mv.to_string(), "14>3,19");
    let next = pos.play_unchecked(&mv);
    assert_eq!(next.phase(), Phase::Play);
    assert!(illegal_reason(&pos, "14+15>3,19").contains("pit"));
    assert!(pos
        .legal_moves()
        .iter()
        .all(|m| matches!(m, KiothiMove::Opening(o) if o.lifted() == [14])));
    // No occupied pit: the game is over, the board goes to South.
    let pos = parse_position("kiothi 9,9,9,9,9,9,6,0,0,0,0,0,0,0,0,0,0,0,0,0 N opening").unwrap();
    assert!(pos.is_over());
    assert_eq!(pos.move_count(), 0);
    assert_eq!(pos.final_sweep(), [60, 0]);
    assert!(illegal_reason(&pos, "4+5>0").contains("game over"));
}

#[test]
fn rule2_rule3_protection_marks_after_turn_2() {
    let start = KiothiPosition::start(Setup::SixPit);
    let t2 = after(&start, "4+5>0,0,1,2,3,10,11,12,13,19");
    assert_eq!(
        t2.to_string(),
        "kiothi 2,1,1,1,0,0,5,5,5,5,1,1,1,1,5,5,5,5,5,6 N opening 0 0"
    );
    assert_eq!(t2.protected(), 0);
    let t3 = after(&t2, "14+15>4,4,4,4,4,5,5,5,5,5");
    assert_eq!(
        t3.to_string(),
        "kiothi 2*,1*,1*,1*,5*,5*,5*,5*,5*,5*,1*,1*,1*,1*,0,0,5*,5*,5*,6* S play 0 0"
    );
    assert_eq!(t3.phase(), Phase::Play);
    assert_eq!(t3.side(), Side::South);
}

// ---------------------------------------------------------------- notation

#[test]
fn notation_round_trips() {
    for text in [
        "kiothi 0,0,0,0,5,5,5,5,5,5,0,0,0,0,5,5,5,5,5,5 S opening 0 0",
        "kiothi 0,0,0,0,0,5,5,5,5,5,0,0,0,0,0,5,5,5,5,5 S opening 0 0",
        NEVER_ENDING,
    ] {
        assert_eq!(parse_position(text).unwrap().to_string(), text);
    }
    assert_eq!(
        parse_position("kiothi").unwrap(),
        KiothiPosition::start(Setup::SixPit)
    );
    assert_eq!(
        parse_position("kiothi:five").unwrap(),
        KiothiPosition::start(Setup::FivePit)
    );
    assert_eq!(
        parse_position("kiothi:five").unwrap().setup(),
        Setup::FivePit
    );
    // Prisons may be omitted.
    let p: KiothiPosition = "kiothi 0,0,0,0,5,5,5,5,5,5,0,0,0,0,5,5,5,5,5,5 S opening"
        .parse()
        .unwrap();
    assert_eq!(p, KiothiPosition::start(Setup::SixPit));
    // Five-pit play position from its total.
    let p = parse_position("kiothi 1*,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,4 N play 20 25").unwrap();
    assert_eq!(p.setup(), Setup::FivePit);
    let mut rng = Rng(99);
    for _ in 0..2000 {
        let n = rng.below(61) as u32;
        let pos = random_position(&mut rng, n);
        assert_eq!(parse_position(&pos.to_string()).unwrap(), pos);
        for mv in pos.legal_moves() {
            assert_eq!(pos.parse_move(&mv.to_string()).unwrap(), mv);
        }
    }
    let start = KiothiPosition::start(Setup::SixPit);
    let mv = start.parse_move("5+4>19,0,3,2,1,0,10,11,12,13").unwrap();
    assert_eq!(mv.to_string(), "4+5>0,0,1,2,3,10,11,12,13,19");
    assert_eq!(start.parse_move(&mv.to_string()).unwrap(), mv);
    let mut n = 0;
    let _ = start.for_each_move(|m| {
        assert_eq!(start.parse_move(&m.to_string()).unwrap(), m);
        n += 1;
        if n < 500 {
            ControlFlow::Continue(())
        } else {
            ControlFlow::Break(())
        }
    });
}

fn err_field(text: &str) -> (String, String) {
    match parse_position(text) {
        Err(e) => (e.kind().to_string(), e.field().unwrap().to_string()),
        Ok(p) => panic!("{text} parsed as {p}"),
    }
}

#[test]
fn notation_position_errors_name_the_field() {
    let z = "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0";
    let cases = [
        ("kiothi 1,2,3 S play", "malformed", "counts"),
        (
            &format!("kiothi {z},0,0 S play 60 0"),
            "malformed",
            "counts",
        ),
        (&format!("kiothi {z},a S play 60 0"), "malformed", "pit 19"),
        (&format!("kiothi {z},-1 S play 60 0"), "malformed", "pit 19"),
        (&format!("kiothi {z},5 S play 50 0"), "impossible", "total"),
        (&format!("kiothi {z},5 S play 5 0"), "impossible", "total"),
        (&format!("kiothi 0*,{z} S play 60 0"), "impossible", "pit 0"),
        (
            "kiothi 0,0,0,0,5*,5,5,5,5,5,0,0,0,0,5,5,5,5,5,5 S opening",
            "impossible",
            "marks",
        ),
        (
            "kiothi 0,0,0,0,5,5,5,5,5,5,0,0,0,0,5,5,5,5,5,0 N opening 5 0",
            "impossible",
            "prisons",
        ),
        (
            "kiothi 0,0,0,1,5,5,5,5,5,4,0,0,0,0,5,5,5,5,5,5 S opening",
            "impossible",
            "board",
        ),
        (&format!("kiothi {z},5 X play 55 0"), "malformed", "side"),
        (&format!("kiothi {z},5 S middle 55 0"), "malformed", "phase"),
        (
            &format!("kiothi {z},5 S play 55 0 7"),
            "malformed",
            "trailing",
        ),
        (&format!("kiothi {z},5 S play 55"), "malformed", "N prison"),
        (
            &format!("kiothi {z},5 S play 5x 0"),
            "malformed",
            "S prison",
        ),
        (&format!("kiothi {z},5 S"), "malformed", "phase"),
        (&format!("kiothi {z},5"), "malformed", "side"),
        ("kiothi:five 0,0 S play", "malformed", "game"),
        ("kpe 6,6,6,6,6,6,6,6 S .... ....", "malformed", "game"),
        ("", "malformed", "game"),
    ];
    for (text, kind, field) in cases {
        assert_eq!(
            err_field(text),
            (kind.to_string(), field.to_string()),
            "{text}"
        );
    }
    // A mover with no legal move is not impossible.
    assert!(parse_position(&format!("kiothi {z},5 S play 55 0")).is_ok());
}

#[test]
fn notation_move_errors() {
    let start = KiothiPosition::start(Setup::SixPit);
    let play = mk(board(&[(3, 2), (5, 1), (7, 5), (15, 3)]), &[], Side::South);
    let malformed = |pos: &KiothiPosition, mv: &str, field: &str| match pos.parse_move(mv) {
        Err(InputError::Malformed { field: f, .. }) => assert_eq!(f, field, "{mv}"),
        other => panic!("{mv}: {other:?}"),
    };
    malformed(&play, "abc", "move");
    malformed(&play, "7xq", "count");
    malformed(&play, "x3", "pit");
    malformed(&start, "4+5+6>0", "pits");
    malformed(&start, "4+5>0,20", "targets");
    malformed(&start, "4+5>", "targets");
    assert!(illegal_reason(&play, "12x1").starts_with("pit: 12 is not in South's row"));
    assert!(illegal_reason(&play, "25x1").starts_with("pit: 25"));
    assert!(illegal_reason(&play, "7x0").starts_with("count: 0 is not in 1..=5"));
    assert!(illegal_reason(&play, "7x6").starts_with("count: 6 is not in 1..=5"));
    assert!(illegal_reason(&play, "0x1").starts_with("count: 1 is not in 1..=0"));
    assert_eq!(
        illegal_reason(&play, "3x2"),
        "last warrior of the first lap lands in own occupied pit 5"
    );
    assert!(illegal_reason(&play, "4+5>0,0").contains("opening move in the play phase"));
    assert!(illegal_reason(&start, "7x3").contains("play move in the opening"));
    assert_eq!(
        illegal_reason(&start, "4+5>0"),
        "targets: 1 targets for 10 warriors lifted"
    );
    assert!(illegal_reason(&start, "0+5>0,0,0,0,0").contains("pit: 0 is empty"));
    assert!(illegal_reason(&start, "14+5>0,0,0,0,0,0,0,0,0,0").contains("not in South's row"));
    assert!(illegal_reason(&start, "5+5>0,0,0,0,0,0,0,0,0,0").contains("twice"));
    assert!(illegal_reason(&start, "5>0,0,0,0,0").contains("exactly two"));
    assert!(illegal_reason(&parse_position(NEVER_ENDING).unwrap(), "17x6").contains("never ends"));
    assert!(start.play("4+5>0,0,1,2,3,10,11,12,13,19").is_ok());
}

// ---------------------------------------------------------------- cross-checks

#[test]
fn fast_sowing_agrees_with_plain_sowing() {
    let mut rng = Rng(0xdead_beef_1234_5678);
    let mut moves = 0u64;
    let mut kinds = [0u32; 3];
    for _ in 0..30_000 {
        let n = 1 + rng.below(60) as u32;
        let pos = random_position(&mut rng, n);
        let w = Words::from_pits(&pos.pits);
        let mut legal = Vec::new();
        for p in row_start(pos.side)..row_start(pos.side) + 10 {
            for c in 1..=pos.pits[p] as u32 {
                let fast = sow(w, pos.protected, pos.side, p, c);
                let plain = sow_plain(pos.pits, pos.protected, pos.side, p, c);
                assert_eq!(fast, plain, "{pos} {p}x{c}");
                moves += 1;
                match fast {
                    Sown::End { .. } => {
                        kinds[0] += 1;
                        legal.push(KiothiMove::Play {
                            pit: p as u8,
                            count: c as u8,
                        });
                    }
                    Sown::FirstLap(_) => kinds[1] += 1,
                    Sown::NeverEnds => kinds[2] += 1,
                }
            }
        }
        assert_eq!(pos.legal_moves(), legal, "{pos}");
        assert_eq!(pos.move_count(), legal.len() as u64);
        assert_eq!(pos.is_over(), legal.is_empty());
        // Children from the generator equal the children of play_move; the
        // warriors are conserved.
        let _ = pos.for_each_child(|m, child| {
            assert_eq!(pos.play_move(&m), Some(child));
            assert_eq!(
                child.board_sum() + child.prisons[0] as u32 + child.prisons[1] as u32,
                60
            );
            assert_eq!(
                child.protected & !super::opening::occupied_mask(&child.pits),
                0
            );
            ControlFlow::Continue(())
        });
    }
    println!(
        "{moves} moves compared: ended {}, first lap {}, never-ending {}",
        kinds[0], kinds[1], kinds[2]
    );
    assert!(kinds.iter().all(|&k| k > 0));
}

fn perft(pos: &KiothiPosition, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut n = 0;
    let _ = pos.for_each_child(|_, child| {
        n += if depth == 1 {
            1
        } else {
            perft(&child, depth - 1)
        };
        ControlFlow::Continue(())
    });
    n
}

fn perft_slow(pos: &KiothiPosition, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    pos.legal_moves()
        .iter()
        .map(|m| perft_slow(&pos.play_unchecked(m), depth - 1))
        .sum()
}

/// A random game: random turns 1 and 2, then `plies` random play moves.
pub(crate) fn random_game(rng: &mut Rng, setup: Setup, plies: usize) -> KiothiPosition {
    let mut pos = KiothiPosition::start(setup);
    for _ in 0..2 {
        let sets = pos.lift_sets();
        let (l, n, w) = sets.as_slice()[rng.below(sets.as_slice().len() as u64) as usize];
        let mut placed = [0u8; 20];
        for _ in 0..w {
            placed[rng.below(20) as usize] += 1;
        }
        let mv = KiothiMove::Opening(OpeningMove::new(&l[..n as usize], placed));
        pos = pos.play_move(&mv).unwrap();
    }
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        pos = pos.play_unchecked(&moves[rng.below(moves.len() as u64) as usize]);
    }
    pos
}

#[test]
fn perft_generator_agrees_with_play_unchecked() {
    let mut rng = Rng(7);
    for _ in 0..20 {
        let pos = random_game(&mut rng, Setup::SixPit, 3);
        assert_eq!(perft(&pos, 2), perft_slow(&pos, 2), "{pos}");
    }
    let pos = parse_position("kiothi 9,9,9,9,9,9,4,0,0,0,0,0,0,0,1,1,0,0,0,0 N opening").unwrap();
    assert_eq!(perft(&pos, 1), 210);
    assert_eq!(perft(&pos, 2), perft_slow(&pos, 2));
}

/// Enumerates every opening move of the five-pit start (about 2 s in a
/// release build): the count of RULES §2.2 and the generator's last move.
#[test]
fn opening_full_enumeration() {
    let five = KiothiPosition::start(Setup::FivePit);
    let mut n = 0u64;
    let mut last = None;
    let _ = five.for_each_move(|m| {
        n += 1;
        last = Some(m);
        ControlFlow::Continue(())
    });
    assert_eq!(n, 200_300_100);
    assert_eq!(
        last.unwrap().to_string(),
        "8+9>19,19,19,19,19,19,19,19,19,19"
    );
}

/// Rules 7–9 written out plainly on arrays, independent of `finish`.
fn plain_children(pos: &KiothiPosition) -> Vec<(KiothiMove, KiothiPosition)> {
    let me = pos.side;
    let own = |p: usize| (me == Side::South) == (p < 10);
    let mut out = Vec::new();
    for p in 0..20 {
        if !own(p) {
            continue;
        }
        for c in 1..=pos.pits[p] as u32 {
            let Sown::End { board, marks, end } = sow_plain(pos.pits, pos.protected, me, p, c)
            else {
                continue;
            };
            let mut b = board.to_pits();
            let mut taken = 0u32;
            if own(end) {
                let opp = 19 - end;
                if b[opp] > 0 && marks & (1 << opp) == 0 {
                    taken += b[opp] as u32;
                    b[opp] = 0;
                }
                let leftmost = if me == Side::South { 0 } else { 10 };
                if end == leftmost {
                    let three: [usize; 3] = if me == Side::South {
                        [18, 17, 16]
                    } else {
                        [8, 7, 6]
                    };
                    if three.iter().all(|&q| b[q] > 0 && marks & (1 << q) == 0) {
                        for q in three {
                            taken += b[q] as u32;
                            b[q] = 0;
                        }
                    }
                }
                if taken > 0 {
                    taken += b[end] as u32;
                    b[end] = 0;
                }
            }
            let mut prisons = pos.prisons;
            prisons[me.index()] += taken as u16;
            let child = KiothiPosition {
                pits: b,
                protected: marks,
                side: me.other(),
                prisons,
                ..*pos
            };
            out.push((
                KiothiMove::Play {
                    pit: p as u8,
                    count: c as u8,
                },
                child,
            ));
        }
    }
    out
}

#[test]
fn generator_agrees_with_plain_rules_along_random_games() {
    let mut rng = Rng(31337);
    for g in 0..300 {
        let mut pos = random_game(
            &mut rng,
            if g % 2 == 0 {
                Setup::SixPit
            } else {
                Setup::FivePit
            },
            0,
        );
        for _ in 0..200 {
            let plain = plain_children(&pos);
            let mut fast = Vec::new();
            let _ = pos.for_each_child(|m, c| {
                fast.push((m, c));
                ControlFlow::Continue(())
            });
            assert_eq!(fast, plain, "{pos}");
            if fast.is_empty() {
                assert!(pos.is_over());
                break;
            }
            pos = fast[rng.below(fast.len() as u64) as usize].1;
        }
    }
}

/// Regression values of this engine (no independent source for play-phase perft).
#[test]
fn perft_regression() {
    let pos =
        parse_position("kiothi 2,2,0,2*,1*,2*,0,6,0,8,3,4,1,2,1,1,9,0,3,2 S play 9 2").unwrap();
    let got: Vec<u64> = (1..=5).map(|d| perft(&pos, d)).collect();
    assert_eq!(got, [16, 197, 2521, 24502, 259995]);
    assert_eq!(got[0], pos.move_count());
    assert_eq!(got[1], perft_slow(&pos, 2));
}

/// RULES §2.10: a game over won by exactly two warriors is a one-warrior
/// victory; not by four, and not while the game goes on.
#[test]
fn a_one_warrior_victory_is_a_win_by_two_in_a_finished_game() {
    let over: KiothiPosition = "kiothi 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 S play 31 29"
        .parse()
        .unwrap();
    assert!(over.is_over());
    assert!(over.ended_in_one_warrior_victory([31.0, 29.0]));
    assert!(over.ended_in_one_warrior_victory([29.0, 31.0]));
    assert!(!over.ended_in_one_warrior_victory([32.0, 28.0]));
    assert!(!over.ended_in_one_warrior_victory([30.0, 30.0]));
    let going_on: KiothiPosition = "kiothi 1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3,0,0,0 S play 30 26"
        .parse()
        .unwrap();
    assert!(!going_on.is_over());
    assert!(!going_on.ended_in_one_warrior_victory([31.0, 29.0]));
}
