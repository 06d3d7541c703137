//! Database files: round trip, resume after an interrupted solve, and
//! refusal of truncated, corrupt and mismatched files.

use std::fs;
use std::path::PathBuf;

use sow::games::kpe::{KpePosition, KpeVariant};
use sow::progress::Progress;
use sow::solve::db::{layer_path, region_path, DbError};
use sow::solve::solution::{Solution, SolveError};
use sow::Game;

fn temp_db(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sow-test-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    dir
}

fn variant() -> KpeVariant {
    KpeVariant::new(3, 2).unwrap()
}

/// Every position reachable from the start (captures cleared).
fn sample_positions() -> Vec<KpePosition> {
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![KpePosition::start(variant())];
    while let Some(p) = stack.pop() {
        if seen.insert(p.repetition_key()) {
            for m in p.legal_moves() {
                stack.push(p.play_unchecked(&m));
            }
        }
    }
    seen.into_iter().collect()
}

fn assert_same_values(a: &Solution, b: &Solution) {
    for p in sample_positions() {
        assert_eq!(
            a.value(&p, None).unwrap(),
            b.value(&p, None).unwrap(),
            "{p}"
        );
    }
}

#[test]
fn built_database_reopens_with_the_in_memory_values() {
    let db = temp_db("roundtrip");
    let (built, stats) = Solution::build(variant(), &db, Progress::Hidden).unwrap();
    assert_eq!(stats.layers_reused.len(), 0);
    let opened = Solution::open(variant(), &db).unwrap();
    let memory = Solution::in_memory(variant(), Progress::Hidden);
    assert_same_values(&opened, &memory);
    assert_same_values(&built, &memory);
    fs::remove_dir_all(&db).unwrap();
}

#[test]
fn an_interrupted_solve_resumes_after_the_last_complete_layer() {
    let db = temp_db("resume");
    Solution::build(variant(), &db, Progress::Hidden).unwrap();
    // Interrupted during layer 8: layers 8..12 and the region are missing,
    // and a temporary file is left half-written.
    for n in [8, 10, 12] {
        fs::remove_file(layer_path(&db, variant(), n)).unwrap();
    }
    fs::remove_file(region_path(&db, variant())).unwrap();
    fs::write(
        layer_path(&db, variant(), 8).with_extension("sowdb.tmp"),
        b"partial",
    )
    .unwrap();
    let (resumed, stats) = Solution::build(variant(), &db, Progress::Hidden).unwrap();
    assert_eq!(stats.layers_reused, vec![0, 2, 4, 6]);
    assert_eq!(stats.layers_computed, vec![8, 10, 12]);
    assert_same_values(&resumed, &Solution::in_memory(variant(), Progress::Hidden));
    fs::remove_dir_all(&db).unwrap();
}

#[test]
fn a_truncated_layer_is_refused_with_its_path() {
    let db = temp_db("truncated");
    Solution::build(variant(), &db, Progress::Hidden).unwrap();
    let path = layer_path(&db, variant(), 10);
    let bytes = fs::read(&path).unwrap();
    fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
    let err = Solution::open(variant(), &db).err().expect("refused");
    assert!(
        matches!(err, SolveError::Db(DbError::Truncated { .. })),
        "{err}"
    );
    assert!(err.to_string().contains("layer-010.sowdb"), "{err}");
    // `solve` refuses it too rather than using it.
    let err = Solution::build(variant(), &db, Progress::Hidden)
        .err()
        .expect("refused");
    assert!(err.to_string().contains("truncated"), "{err}");
    fs::remove_dir_all(&db).unwrap();
}

#[test]
fn a_corrupt_byte_is_detected_by_its_block_checksum() {
    let db = temp_db("corrupt");
    Solution::build(variant(), &db, Progress::Hidden).unwrap();
    let path = layer_path(&db, variant(), 12);
    let mut bytes = fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x01;
    fs::write(&path, &bytes).unwrap();
    // Opening checks headers only; reading the damaged block fails.
    let opened = Solution::open(variant(), &db).unwrap();
    let all: Vec<_> = sample_positions();
    let failures: Vec<String> = all
        .iter()
        .filter_map(|p| opened.value(p, None).err().map(|e| e.to_string()))
        .collect();
    assert!(!failures.is_empty());
    assert!(
        failures
            .iter()
            .all(|e| e.contains("corrupt") && e.contains("layer-012.sowdb")),
        "{failures:?}"
    );
    // Solving a locked region on demand reads every layer: refused too.
    let outside: KpePosition = "kpe:3x2 0,0,0,0,0,12 S x.. ...".parse().unwrap();
    let err = opened
        .region_for(&outside, Progress::Hidden)
        .expect_err("refused");
    assert!(err.to_string().contains("layer-012.sowdb"), "{err}");
    let err = Solution::build(variant(), &db, Progress::Hidden)
        .err()
        .expect("refused");
    assert!(
        matches!(err, SolveError::Db(DbError::Corrupt { .. })),
        "{err}"
    );
    fs::remove_dir_all(&db).unwrap();
}

#[test]
fn a_file_of_another_layer_or_variant_is_a_mismatch() {
    let db = temp_db("mismatch");
    Solution::build(variant(), &db, Progress::Hidden).unwrap();
    fs::copy(layer_path(&db, variant(), 4), layer_path(&db, variant(), 6)).unwrap();
    let err = Solution::open(variant(), &db).err().expect("refused");
    assert!(
        matches!(err, SolveError::Db(DbError::Mismatch { .. })),
        "{err}"
    );
    assert!(err.to_string().contains("layer-006.sowdb"), "{err}");
    let other = KpeVariant::new(2, 3).unwrap();
    Solution::build(other, &db, Progress::Hidden).unwrap();
    fs::copy(region_path(&db, other), region_path(&db, variant())).unwrap();
    fs::copy(layer_path(&db, variant(), 4), layer_path(&db, variant(), 6)).unwrap();
    fs::remove_file(layer_path(&db, variant(), 6)).unwrap();
    let err = Solution::build(variant(), &db, Progress::Hidden)
        .err()
        .expect("refused");
    assert!(err.to_string().contains("opening.sowdb"), "{err}");
    fs::remove_dir_all(&db).unwrap();
}

#[test]
fn a_missing_database_names_the_command_to_run() {
    let db = temp_db("missing");
    let err = Solution::open_or_solve(KpeVariant::STANDARD, &db, Progress::Hidden)
        .err()
        .expect("no database");
    assert!(err.to_string().contains("sow solve kpe"), "{err}");
}
