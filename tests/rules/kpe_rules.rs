//! Kpé rules against hand-worked positions (each test names its RULES rule)
//! and the perft figures of RULES §4.

use sow::games::kpe::{parse_position, KpePosition, KpeVariant};
use sow::perft::{perft, perft_parallel};
use sow::Game;

fn pos(text: &str) -> KpePosition {
    parse_position(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn after(text: &str, mv: &str) -> String {
    pos(text).play(mv).unwrap().to_string()
}

#[test]
fn perft_start_matches_rules_section_4() {
    let start = KpePosition::start(KpeVariant::STANDARD);
    let expected = [4, 16, 64, 241, 952, 3731, 14332, 54959];
    for (d, &n) in expected.iter().enumerate() {
        assert_eq!(perft(&start, d as u32 + 1), n, "depth {}", d + 1);
    }
    assert_eq!(perft_parallel(&start, 8), 54959);
}

#[test]
fn rule_1_1_sowing_moves_counter_clockwise() {
    assert_eq!(after("kpe", "1"), "kpe 6,0,7,7,7,7,7,7 N .x.. .... 0 0");
    // North's pit 7 wraps to South's pit 0.
    assert_eq!(
        after("kpe 6,0,7,7,7,7,7,7 N .x.. ....", "7"),
        "kpe 7,1,8,8,8,8,8,0 S .x.. ...x 0 0"
    );
}

#[test]
fn rule_1_1_a_lap_passes_the_origin_and_sows_into_it() {
    // 9 stones from pit 0 on 8 pits: every pit once (origin included), then pit 1 again.
    assert_eq!(
        after("kpe 9,1,1,1,1,1,1,1 S xxxx xxxx 16 16", "0"),
        "kpe 1,3,2,2,2,2,2,2 N xxxx xxxx 16 16"
    );
}

#[test]
fn rule_1_2_locked_player_does_not_capture() {
    // Last stone makes pit 4 hold 2, but South is still locked.
    assert_eq!(
        after("kpe 0,0,0,1,1,9,9,8 S ...x xxxx 0 20", "3"),
        "kpe 0,0,0,0,2,9,9,8 N ...x xxxx 0 20"
    );
}

#[test]
fn rule_1_2_the_move_that_completes_the_lock_may_capture() {
    assert_eq!(
        after("kpe 0,0,0,1,1,9,9,8 S xxx. xxxx 0 20", "3"),
        "kpe 0,0,0,0,0,9,9,8 N xxxx xxxx 2 20"
    );
}

#[test]
fn rule_1_3_chain_runs_backwards_and_stops_at_the_row_edge() {
    // South sows 4 from pit 2: pits 3,4,5,6 get one; 4,5,6 become 2,4,2;
    // the chain takes 6,5,4 then stops at pit 3, South's own.
    assert_eq!(
        after("kpe 0,0,4,3,1,3,1,0 S xxxx xxxx 20 16", "2"),
        "kpe 0,0,0,4,0,0,0,0 N xxxx xxxx 28 16"
    );
}

#[test]
fn rule_1_3_chain_stops_at_a_pit_not_holding_2_or_4() {
    assert_eq!(
        after("kpe 0,0,0,3,0,2,3,0 S xxxx xxxx 20 20", "3"),
        "kpe 0,0,0,0,1,3,0,0 N xxxx xxxx 24 20"
    );
}

#[test]
fn rule_1_3_last_stone_in_own_row_captures_nothing() {
    // North sows 1 from pit 7 into South's... pit 0: that is North's opponent row.
    assert_eq!(
        after("kpe 1,0,0,0,0,0,0,1 N xxxx xxxx 22 24", "7"),
        "kpe 0,0,0,0,0,0,0,0 S xxxx xxxx 22 26"
    );
    // South's last stone in South's own pit: no capture even if it holds 2.
    assert_eq!(
        after("kpe 1,1,0,0,2,0,0,0 S xxxx xxxx 22 22", "0"),
        "kpe 0,2,0,0,2,0,0,0 N xxxx xxxx 22 22"
    );
}

#[test]
fn rule_1_4_feeding_restricts_moves_when_opponent_row_is_empty() {
    // North's row is empty: only pit 3 (1 stone reaching pit 4) and pit 1 (3 stones) feed.
    let p = pos("kpe 2,3,0,1,0,0,0,0 S xxxx xxxx 22 20");
    let moves: Vec<String> = p.legal_moves().iter().map(|m| m.to_string()).collect();
    assert_eq!(moves, ["1", "3"]);
    let err = p.play("0").unwrap_err().to_string();
    assert!(err.contains("feeding"), "{err}");
}

#[test]
fn rule_1_4_without_a_feeding_move_every_pit_is_legal() {
    let p = pos("kpe 1,1,0,0,0,0,0,0 S xxxx xxxx 22 24");
    let moves: Vec<String> = p.legal_moves().iter().map(|m| m.to_string()).collect();
    assert_eq!(moves, ["0", "1"]);
}

#[test]
fn rule_1_4_a_feeding_move_may_capture_what_it_sowed() {
    // 12 stones from pit 3 give each North pit 2 and end in pit 7: the
    // chain takes the 8 stones just sown.
    assert_eq!(
        after("kpe 0,0,0,12,0,0,0,0 S xxxx xxxx 20 16", "3"),
        "kpe 1,1,1,1,0,0,0,0 N xxxx xxxx 28 16"
    );
    // A feeding move that does not capture.
    assert_eq!(
        after("kpe 0,0,1,1,0,0,0,0 S xxxx xxxx 24 22", "3"),
        "kpe 0,0,1,0,1,0,0,0 N xxxx xxxx 24 22"
    );
}

#[test]
fn rule_1_5_game_ends_when_the_mover_has_no_stone_and_the_board_is_swept() {
    let p = pos("kpe 0,0,0,0,1,2,0,3 S xxxx xxxx 20 22");
    assert!(p.is_over());
    assert_eq!(p.move_count(), 0);
    assert_eq!(p.final_sweep(), [0, 6]);
    assert_eq!(p.terminal_value(), -6);
}
