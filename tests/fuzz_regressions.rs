//! Inputs the fuzzer (`scripts/fuzz.sh`) found to panic or to be accepted
//! wrongly, kept as regression tests (results/RELIABILITY.md lists them).

use std::fs;
use std::path::PathBuf;

use sow::cli::parse_any;
use sow::games::kpe::{KpePosition, KpeVariant};
use sow::progress::Progress;
use sow::solve::db::{self, DbError, FileId, FileKind};
use sow::solve::solution::{check_solvable, Solution, SolveError};
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

fn built(name: &str) -> (PathBuf, KpeVariant) {
    let db = std::env::temp_dir().join(format!("sow-fuzzreg-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&db);
    let v = KpeVariant::new(3, 2).unwrap();
    Solution::build(v, &db, Progress::Hidden).unwrap();
    (db, v)
}

fn region_id(v: KpeVariant) -> FileId {
    FileId {
        kind: FileKind::Region,
        variant: v,
        stones: 0,
    }
}

fn corrupt(e: SolveError) -> String {
    match e {
        SolveError::Db(e @ DbError::Corrupt { .. }) => e.to_string(),
        other => panic!("expected a corrupt file, got {other}"),
    }
}

#[test]
fn a_region_file_whose_entries_do_not_fill_its_payload_is_corrupt() {
    // A header claiming more entries than the payload holds: reads past
    // the payload panicked.
    let (db, v) = built("entries");
    let path = db::region_path(&db, v);
    db::write_file(&path, region_id(v), 1000, &[0u8; 90]).unwrap();
    let e = corrupt(Solution::open(v, &db).err().unwrap());
    assert!(
        e.contains("opening.sowdb") && e.contains("payload bytes for 1000 entries"),
        "{e}"
    );
    fs::remove_dir_all(&db).unwrap();
}

#[test]
fn a_consistent_region_file_with_wrong_content_is_refused() {
    let (db, v) = built("forged");
    let path = db::region_path(&db, v);
    let good = fs::read(&path).unwrap();
    let entries = u64::from_le_bytes(good[24..32].try_into().unwrap()) as usize;
    let payload = &good[good.len() - 9 * entries..];
    let (keys, values) = payload.split_at(8 * entries);

    // Without the start position.
    db::write_file(&path, region_id(v), 0, &[]).unwrap();
    let e = corrupt(Solution::open(v, &db).err().unwrap());
    assert!(e.contains("does not hold the start"), "{e}");

    // Keys out of order: loading it whole (stats, reports) indexed past
    // its tables.
    let mut swapped = keys.to_vec();
    let last = 8 * (entries - 1);
    let first_key: Vec<u8> = swapped[..8].to_vec();
    let last_key: Vec<u8> = swapped[last..].to_vec();
    swapped[..8].copy_from_slice(&last_key);
    swapped[last..].copy_from_slice(&first_key);
    db::write_file_parts(&path, region_id(v), entries as u64, &[&swapped, values]).unwrap();
    if let Ok(s) = Solution::open(v, &db) {
        let e = corrupt(s.endings(Progress::Hidden).err().expect("refused"));
        assert!(
            e.contains("out of order") || e.contains("not a locked position"),
            "{e}"
        );
    }

    // A key that is no position of the variant.
    let mut garbage = keys.to_vec();
    garbage[8 * (entries / 2)..8 * (entries / 2) + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    db::write_file_parts(&path, region_id(v), entries as u64, &[&garbage, values]).unwrap();
    if let Ok(s) = Solution::open(v, &db) {
        let e = corrupt(s.endings(Progress::Hidden).err().expect("refused"));
        assert!(e.contains("entry"), "{e}");
    }

    // A value beyond the game's stones.
    let mut big = values.to_vec();
    big[0] = 100;
    db::write_file_parts(&path, region_id(v), entries as u64, &[keys, &big]).unwrap();
    let s = Solution::open(v, &db).unwrap();
    let e = corrupt(s.endings(Progress::Hidden).err().expect("refused"));
    assert!(e.contains("beyond the 12 stones"), "{e}");
    fs::remove_dir_all(&db).unwrap();
}

#[test]
fn a_layer_value_beyond_the_stones_is_refused_when_read() {
    let (db, v) = built("layer-value");
    let n = 4;
    let path = db::layer_path(&db, v, n);
    let good = fs::read(&path).unwrap();
    let entries = u64::from_le_bytes(good[24..32].try_into().unwrap()) as usize;
    let mut values = good[good.len() - entries..].to_vec();
    values[0] = (-99i8) as u8;
    let id = FileId {
        kind: FileKind::Layer,
        variant: v,
        stones: n as u32,
    };
    db::write_file(&path, id, entries as u64, &values).unwrap();
    let s = Solution::open(v, &db).unwrap();
    let e = match s.layer_bytes(n) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("accepted"),
    };
    assert!(
        e.contains("layer-004.sowdb") && e.contains("value -99"),
        "{e}"
    );
    // The position of rank 0 in that layer (all stones in the last pit).
    let pos = KpePosition::from_parts(v, &[0, 0, 0, 0, 0, 4], sow::Side::South, [7, 7], [4, 4]);
    assert!(s.value(&pos, None).is_err());
    fs::remove_dir_all(&db).unwrap();
}

#[test]
fn a_region_file_missing_a_position_is_refused_when_loaded_whole() {
    // Sorted, valid keys, consistent checksums, but one position left out:
    // the never-ends pass (`stats`) expected every locked child there.
    let (db, v) = built("missing-entry");
    let path = db::region_path(&db, v);
    let good = fs::read(&path).unwrap();
    let entries = u64::from_le_bytes(good[24..32].try_into().unwrap()) as usize;
    let payload = &good[good.len() - 9 * entries..];
    let (keys, values) = payload.split_at(8 * entries);
    // Leave out the last entry (the start is among the first).
    let n = entries - 1;
    db::write_file_parts(
        &path,
        region_id(v),
        n as u64,
        &[&keys[..8 * n], &values[..n]],
    )
    .unwrap();
    let s = Solution::open(v, &db).unwrap();
    let e = corrupt(s.endings(Progress::Hidden).err().expect("refused"));
    assert!(e.contains("opening.sowdb"), "{e}");
    fs::remove_dir_all(&db).unwrap();
}
