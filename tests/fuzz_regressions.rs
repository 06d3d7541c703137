//! Inputs the fuzzer (`scripts/fuzz.sh`) found to panic or to be accepted
//! wrongly, kept as regression tests (results/RELIABILITY.md lists them).

use sow::cli::parse_any;
use sow::games::kpe::KpeVariant;
use sow::solve::solution::check_solvable;
use sow::Game;

fn refused_field(text: &str) -> String {
    let e = parse_any(text).expect_err(text);
    e.field().unwrap_or("").to_string()
}

#[test]
fn counts_near_u32_max_are_refused_not_wrapped() {
    // board 3 + 4294967295 + 46 = 2^32 + 48: with u32 sums it wrapped to
    // the standard total, 48, and the position was accepted (its captures
    // then cut to 16 bits); with overflow checks it panicked.
    assert_eq!(
        refused_field("kpe 1,1,1,0,0,0,0,0 N xxxx xxxx 4294967295 46"),
        "total"
    );
    assert_eq!(
        refused_field("kpe 1,1,1,0,0,0,0,0 N xxxx xxxx 4294967295 16"),
        "total"
    );
    assert_eq!(
        refused_field("kiothi 9,9,9,9,9,20,2,0,0,0,1,0,0,0,1,1,2,4294967295,0,1 N opening"),
        "total"
    );
    assert_eq!(
        refused_field("kiothi 2,3,2,3,0,9,0,0,0,0,0,2,1,1,1*,7*,5*,4294967295,0,0 S play 0 19"),
        "total"
    );
}

#[test]
fn sowing_from_the_last_pit_of_a_sixteen_pit_board() {
    // kpe:8x8: North's pit 15 has nothing after it; the sowing word was
    // shifted by 128 bits (a panic with overflow checks).
    let p = parse_any("kpe:8x8").unwrap().to_string();
    let after = match parse_any(&p).unwrap() {
        sow::cli::AnyPosition::Kpe(k) => k.play("7").unwrap(),
        _ => unreachable!(),
    };
    let child = after.play("15").unwrap();
    assert_eq!(
        child.to_string(),
        "kpe:8x8 9,9,9,9,9,9,9,1,10,9,9,9,9,9,9,0 S .......x .......x 0 0"
    );
    let total: u32 = child.pits().iter().map(|&c| c as u32).sum();
    assert_eq!(total, 128);
}

#[test]
fn the_largest_variants_are_refused_without_overflow() {
    for (w, k) in [(8, 8), (8, 7), (7, 8)] {
        let v = KpeVariant::new(w, k).unwrap();
        let e = check_solvable(v).expect_err("too large");
        assert_eq!(e.field(), Some("variant"));
        assert!(sow::solve::solution::endgame_positions(v) > sow::solve::solution::MAX_POSITIONS);
    }
}

// The format-1 region and layer content checks (entries filling the
// payload, keys in order, values within the stones, a closed region) and
// their regression tests went with format 1: format 2 (zstd blocks, a
// separate compact key index) needs its own content checks; see
// results/RELIABILITY.md.
