//! `sow export` and `sow stats kiothi`, run as the built binary: every
//! position exactly once (against an enumeration written here), values as
//! `sow eval` gives them, the CSV read back with the documented columns,
//! refusals by the error contract, and no file left behind on failure.

use crate::common::sow;

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sow::games::kpe::{KpePosition, KpeVariant};
use sow::{Game, Side};

const HEADER: [&str; 5] = ["position", "phase", "stones", "value", "result"];

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// A fresh, empty directory: no database, so small variants are solved on the fly.
fn temp_dir(name: &str) -> PathBuf {
    crate::common::temp_dir("export", name)
}

fn ok(args: &[&str]) -> String {
    let o = sow(args);
    assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
    text(&o.stdout)
}

/// Every record, the header included, read by the `csv` crate (RFC 4180:
/// a quoted field may hold commas).
fn read_csv(csv: &str) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(csv.as_bytes())
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect()
}

/// Writes rows back with the `csv` crate (a field with a comma is quoted).
fn write_csv(rows: &[Vec<String>]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    for row in rows {
        w.write_record(row).unwrap();
    }
    String::from_utf8(w.into_inner().unwrap()).unwrap()
}

/// One exported row, checked against the documented columns.
struct Row {
    position: KpePosition,
    text: String,
    phase: String,
    stones: u32,
    value: i32,
}

fn rows_of(csv: &str) -> Vec<Row> {
    let table = read_csv(csv);
    assert_eq!(table[0], HEADER);
    table[1..]
        .iter()
        .map(|f| {
            assert_eq!(f.len(), 5, "{f:?}");
            let position: KpePosition = f[0].parse().expect("position in RULES §3 notation");
            assert_eq!(position.to_string(), f[0], "canonical notation");
            assert_eq!(position.side(), Side::South, "mover as South: {}", f[0]);
            let stones: u32 = f[2].parse().unwrap();
            let value: i32 = f[3].parse().unwrap();
            assert_eq!(position.board_total(), stones, "{f:?}");
            let result = match value.signum() {
                1 => "win",
                0 => "draw",
                _ => "loss",
            };
            assert_eq!(f[4], result, "{f:?}");
            let unlocked = position.is_unlocked(Side::South) && position.is_unlocked(Side::North);
            assert_eq!(f[1], if unlocked { "unlocked" } else { "opening" }, "{f:?}");
            Row {
                position,
                text: f[0].clone(),
                phase: f[1].clone(),
                stones,
                value,
            }
        })
        .collect()
}

/// Every distribution of `n` stones over `pits` pits.
fn boards(pits: usize, n: usize) -> Vec<Vec<u8>> {
    if pits == 1 {
        return vec![vec![n as u8]];
    }
    (0..=n)
        .flat_map(|first| {
            boards(pits - 1, n - first)
                .into_iter()
                .map(move |mut rest| {
                    rest.insert(0, first as u8);
                    rest
                })
        })
        .collect()
}

fn is_locked(p: &KpePosition) -> bool {
    !(p.is_unlocked(Side::South) && p.is_unlocked(Side::North))
}

/// The locked positions reachable from the start through locked positions
/// only (relative to the mover, captures cleared), by a plain search.
fn locked_region(v: KpeVariant) -> HashSet<KpePosition> {
    let mut seen = HashSet::new();
    let mut stack = vec![KpePosition::start(v)];
    while let Some(p) = stack.pop() {
        if !seen.insert(p.relative().repetition_key()) {
            continue;
        }
        for m in p.legal_moves() {
            let child = p.play_unchecked(&m);
            if is_locked(&child) {
                stack.push(child);
            }
        }
    }
    seen
}

#[test]
fn every_position_is_exported_exactly_once() {
    let v = KpeVariant::new(3, 2).unwrap();
    let db = temp_dir("once");
    let csv = ok(&[
        "export",
        "kpe:3x2",
        "--positions",
        "all",
        "--db",
        db.to_str().unwrap(),
    ]);
    let rows = rows_of(&csv);

    let mut unlocked: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut locked: HashMap<KpePosition, usize> = HashMap::new();
    for r in &rows {
        if r.phase == "unlocked" {
            *unlocked.entry(r.position.pits().to_vec()).or_default() += 1;
        } else {
            *locked.entry(r.position.repetition_key()).or_default() += 1;
        }
    }
    assert!(
        unlocked.values().all(|&n| n == 1),
        "an unlocked board twice"
    );
    assert!(locked.values().all(|&n| n == 1), "a locked position twice");
    let expected: HashSet<Vec<u8>> = (0..=12).step_by(2).flat_map(|n| boards(6, n)).collect();
    assert_eq!(unlocked.keys().cloned().collect::<HashSet<_>>(), expected);
    assert_eq!(expected.len(), 1 + 21 + 126 + 462 + 1287 + 3003 + 6188);
    assert_eq!(
        locked.keys().cloned().collect::<HashSet<_>>(),
        locked_region(v)
    );

    // Unlocked layers first, smallest first; then the locked positions.
    let phases: Vec<(&str, u32)> = rows.iter().map(|r| (r.phase.as_str(), r.stones)).collect();
    let mut sorted = phases.clone();
    sorted.sort_by_key(|&(p, s)| (p == "opening", s));
    assert_eq!(phases, sorted);

    // One layer alone is exactly that layer's rows of the full export.
    let layer = ok(&[
        "export",
        "kpe:3x2",
        "--positions",
        "6",
        "--db",
        db.to_str().unwrap(),
    ]);
    let layer_rows: Vec<&str> = layer.lines().skip(1).collect();
    let from_all: Vec<&str> = csv
        .lines()
        .filter(|l| l.contains("\",unlocked,6,"))
        .collect();
    assert_eq!(layer_rows, from_all);
    assert_eq!(layer_rows.len(), 462);
    fs::remove_dir_all(&db).unwrap();
}

#[test]
fn values_agree_with_eval() {
    let db = temp_dir("eval");
    let dir = db.to_str().unwrap();
    let csv = ok(&["export", "kpe:3x2", "--positions", "all", "--db", dir]);
    let rows = rows_of(&csv);
    let mut rng = crate::common::Rng(7);
    let mut sample: Vec<&Row> = (0..16).map(|_| &rows[rng.below(rows.len())]).collect();
    // Both phases, and a finished game (value from the final sweep).
    sample.extend(rows.iter().filter(|r| r.phase == "opening").take(6));
    sample.extend(
        rows.iter()
            .filter(|r| r.position.is_over() && r.stones > 0)
            .take(2),
    );
    for r in sample {
        let v: Value =
            serde_json::from_str(&ok(&["--json", "eval", &r.text, "--db", dir])).unwrap();
        assert_eq!(v["value"], r.value, "{}", r.text);
        assert_eq!(v["position"], r.text.as_str());
    }
    fs::remove_dir_all(&db).unwrap();
}

#[test]
fn csv_round_trips_through_the_csv_crate() {
    let db = temp_dir("roundtrip");
    let csv = ok(&[
        "export",
        "kpe:2x2",
        "--positions",
        "all",
        "--db",
        db.to_str().unwrap(),
    ]);
    let table = read_csv(&csv);
    assert_eq!(table[0], HEADER);
    assert!(table.iter().all(|r| r.len() == HEADER.len()));
    assert_eq!(write_csv(&table), csv);
    assert_eq!(
        rows_of(&csv).len(),
        295 + 39,
        "kpe:2x2: 295 unlocked boards, 39 locked"
    );
    fs::remove_dir_all(&db).unwrap();
}

/// The error contract with the field named, in text and in JSON.
fn refused(args: &[&str], field: &str) {
    let o = sow(args);
    assert_eq!(o.status.code(), Some(2), "{args:?}");
    let err = text(&o.stderr);
    assert!(
        err.starts_with("error: ") && err.contains(field),
        "{args:?}: {err}"
    );
    let mut json = vec!["--json"];
    json.extend_from_slice(args);
    let o = sow(&json);
    assert_eq!(o.status.code(), Some(2));
    let v: Value = serde_json::from_str(&text(&o.stdout)).unwrap();
    assert_eq!(v["error"]["field"], field, "{args:?}");
}

#[test]
fn bad_requests_are_refused_with_the_field() {
    let db = temp_dir("refused");
    let dir = db.to_str().unwrap();
    let out = db.join("out.csv");
    let out = out.to_str().unwrap();
    for layer in ["7", "14", "-2", "seven"] {
        refused(
            &[
                "export",
                "kpe:3x2",
                "--positions",
                layer,
                "--db",
                dir,
                "--out",
                out,
            ],
            "positions",
        );
    }
    // A device is refused, not replaced by a regular file (as root it was).
    refused(
        &[
            "export",
            "kpe:3x2",
            "--positions",
            "2",
            "--db",
            dir,
            "--out",
            "/dev/null",
        ],
        "out",
    );
    let o = sow(&["export", "kpe:3x2", "--positions", "14", "--db", dir]);
    assert!(text(&o.stderr).contains("0, 2, ..., 12"), "names the range");
    refused(
        &[
            "export",
            "kpe:3x2",
            "--positions",
            "2",
            "--format",
            "xml",
            "--db",
            dir,
        ],
        "format",
    );
    refused(
        &["export", "kpe:9x2", "--positions", "2", "--db", dir],
        "variant",
    );
    // Too large to solve on the fly: the message says what to run.
    let o = sow(&["export", "kpe", "--positions", "48", "--db", dir]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("sow solve kpe"),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(fs::read_dir(&db).unwrap().count(), 0, "nothing written");
    fs::remove_dir_all(&db).unwrap();
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn out_file_is_written_whole_or_not_at_all() {
    let v = KpeVariant::new(2, 2).unwrap();
    let db = temp_dir("atomic-db");
    let dir = db.to_str().unwrap();
    ok(&["solve", "kpe:2x2", "--db", dir, "-q"]);
    let target = temp_dir("atomic-out");
    let out = target.join("all.csv");
    let out_s = out.to_str().unwrap();
    let streamed = ok(&["export", "kpe:2x2", "--positions", "all", "--db", dir]);
    let said = ok(&[
        "export",
        "kpe:2x2",
        "--positions",
        "all",
        "--db",
        dir,
        "--out",
        out_s,
    ]);
    assert!(said.contains("334 positions written"), "{said}");
    assert_eq!(fs::read_to_string(&out).unwrap(), streamed);
    let v_json: Value = serde_json::from_str(&ok(&[
        "--json",
        "export",
        "kpe:2x2",
        "--positions",
        "all",
        "--db",
        dir,
        "--out",
        out_s,
    ]))
    .unwrap();
    assert_eq!(v_json["rows"], 334);
    fs::remove_file(&out).unwrap();

    // The last layer is corrupt: the export fails after writing the
    // smaller layers, and neither the file nor its temporary is left.
    let layer = sow::kpe_db::paths::layer_path(&db, v, 8);
    let mut bytes = fs::read(&layer).unwrap();
    *bytes.last_mut().unwrap() ^= 0x55;
    fs::write(&layer, bytes).unwrap();
    let o = sow(&[
        "export",
        "kpe:2x2",
        "--positions",
        "all",
        "--db",
        dir,
        "--out",
        out_s,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("layer-008"), "{}", text(&o.stderr));
    assert_eq!(files_in(&target), Vec::<String>::new());
    fs::remove_dir_all(&db).unwrap();
    fs::remove_dir_all(&target).unwrap();
}

#[test]
fn kiothi_stats_from_self_play() {
    let args = ["stats", "kiothi", "--games", "2", "--depth", "1"];
    let csv = ok(&[&args[..], &["--format", "csv"]].concat());
    let table = read_csv(&csv);
    assert_eq!(table[0], ["phase", "stones", "value", "positions"]);
    let v: Value = serde_json::from_str(&ok(&[&args[..], &["--format", "json"]].concat())).unwrap();
    assert_eq!(
        (v["games"].as_u64(), v["depth"].as_u64(), v["seed"].as_u64()),
        (Some(2), Some(1), Some(1))
    );
    assert!(v["method"].as_str().unwrap().contains("self-play"));
    assert_eq!(ok(&[&["--json"], &args[..]].concat()).trim(), v.to_string());

    // Every (phase, stones, value) count of the CSV is the JSON histogram's.
    let mut from_csv: HashMap<(String, u64, i64), u64> = HashMap::new();
    for r in &table[1..] {
        let key = (r[0].clone(), r[1].parse().unwrap(), r[2].parse().unwrap());
        assert!(
            from_csv.insert(key, r[3].parse().unwrap()).is_none(),
            "{r:?} twice"
        );
    }
    let mut from_json = HashMap::new();
    let mut total = 0;
    for row in v["rows"].as_array().unwrap() {
        let phase = row["phase"].as_str().unwrap();
        assert!(phase == "opening" || phase == "play");
        let positions = row["positions"].as_u64().unwrap();
        let wdl = ["wins", "draws", "losses"].map(|k| row[k].as_u64().unwrap());
        assert_eq!(wdl.iter().sum::<u64>(), positions);
        let mut sum = 0;
        for (value, n) in row["histogram"].as_object().unwrap() {
            let key = (
                phase.to_string(),
                row["stones"].as_u64().unwrap(),
                value.parse().unwrap(),
            );
            from_json.insert(key, n.as_u64().unwrap());
            sum += n.as_u64().unwrap();
        }
        assert_eq!(sum, positions);
        total += positions;
    }
    assert_eq!(from_csv, from_json);
    assert_eq!(v["positions"].as_u64(), Some(total));
    // The start is reached by every game: one opening position of 60 stones.
    assert!(from_csv.keys().any(|(p, s, _)| p == "opening" && *s == 60));
    // Same seed, same figures.
    assert_eq!(ok(&[&args[..], &["--format", "csv"]].concat()), csv);
    refused(&["stats", "kiothi", "--games", "0"], "games");
    refused(&["stats", "kpe:2x2", "--depth", "3"], "depth");
}
