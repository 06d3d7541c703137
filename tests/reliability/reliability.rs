//! Reliability (issue #14): the database lock with two writers, readers of
//! an incomplete database, the resource refusals (`--threads`, `--hash`,
//! an agent's `tt=`), write errors (file size limit, a file where a
//! directory should be) that name the file and leave nothing partial,
//! Ctrl-C in `sow match` and in a proof that keeps its bounds. (A short run
//! of every fuzz target is the fuzzer's own test, `fuzz/tests/targets.rs`.)

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::sow;
use sow::games::kpe::KpeVariant;
use sow::infra::progress::Progress;
use sow::kpe_db::lock::DbLock;
use sow::kpe_db::{paths, DbError};
use sow::kpe_db::{Solution, SolveError};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sow-rel-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    dir
}

/// The contract's error: exit 2, one `error:` line naming the field, and
/// with `--json` the object on stdout.
fn refused(out: &Output, field: &str) -> (String, Value) {
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(v["error"]["field"], field, "{v}");
    (stderr, v)
}

fn small() -> KpeVariant {
    KpeVariant::new(3, 2).unwrap()
}

#[test]
fn a_second_writer_waits_for_the_first_and_names_its_process() {
    let db = temp("two-writers");
    let dir = paths::variant_dir(&db, small());
    // This test process is the first writer.
    let first = DbLock::acquire(&dir, |_| panic!("free")).unwrap();
    let mut second = Command::new(env!("CARGO_BIN_EXE_sow"))
        .args(["--json", "solve", "kpe:3x2", "--db"])
        .arg(&db)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // It says whom it waits for, and does not finish while we hold the lock.
    let mut stderr = second.stderr.take().unwrap();
    let mut seen = Vec::new();
    let t0 = Instant::now();
    let mut byte = [0u8; 1];
    while !String::from_utf8_lossy(&seen).contains('\n') {
        assert!(t0.elapsed() < Duration::from_secs(60), "no message");
        if stderr.read(&mut byte).unwrap() == 0 {
            break;
        }
        seen.push(byte[0]);
    }
    let message = String::from_utf8_lossy(&seen).to_string();
    assert!(
        message.contains(&format!("waiting for process {}", std::process::id())),
        "{message}"
    );
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        second.try_wait().unwrap().is_none(),
        "the second writer waits"
    );
    assert!(
        !paths::region_path(&db, small()).exists(),
        "nothing written while it waits"
    );
    drop(first);
    let out = second.wait_with_output().unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["variant"], "3x2", "{v}");
    fs::remove_dir_all(&db).unwrap();
}

#[test]
fn two_writers_at_once_build_one_identical_database() {
    let db = temp("race");
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_sow"))
            .args(["--quiet", "solve", "kpe:3x3", "--db"])
            .arg(&db)
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap()
    };
    let (a, b) = (run(), run());
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    assert_same_database_as_a_fresh_solve(KpeVariant::new(3, 3).unwrap(), &db, "race-ref");
    fs::remove_dir_all(&db).unwrap();
}

/// Every database file in `db` is byte for byte that of an uninterrupted
/// solve from an empty directory (`name`), and none is missing.
fn assert_same_database_as_a_fresh_solve(v: KpeVariant, db: &Path, name: &str) {
    let reference = temp(name);
    Solution::build(v, &reference, Progress::Hidden).unwrap();
    let mut compared = 0;
    for entry in fs::read_dir(paths::variant_dir(&reference, v)).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap();
        if path.extension().is_some_and(|e| e == "sowdb") {
            let other = paths::variant_dir(db, v).join(name);
            assert!(
                fs::read(&path).unwrap() == fs::read(&other).unwrap(),
                "{name:?} differs"
            );
            compared += 1;
        }
    }
    assert!(compared > 2, "{compared} files");
    fs::remove_dir_all(&reference).unwrap();
}

/// A solve killed outright (SIGKILL: no chance to clean up) half-way
/// through its layers is completed by the next `solve`: it takes over the
/// dead writer's lock, reuses the whole layer files, redoes the rest, and
/// the database is byte for byte that of an uninterrupted solve.
#[test]
fn a_killed_solve_resumes_to_a_byte_identical_database() {
    let v = KpeVariant::new(4, 3).unwrap();
    let db = temp("killed");
    let mut child = Command::new(env!("CARGO_BIN_EXE_sow"))
        .args(["--quiet", "--threads", "2", "solve", "kpe:4x3", "--db"])
        .arg(&db)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Killed as soon as the layer of 16 stones (of 0 to 24) is written.
    let started = Instant::now();
    while !paths::layer_path(&db, v, 16).exists() {
        assert!(child.try_wait().unwrap().is_none(), "ended before the kill");
        assert!(started.elapsed() < Duration::from_secs(900), "no layer 16");
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    assert!(!child.wait().unwrap().success());
    assert!(
        !paths::region_path(&db, v).exists(),
        "killed before the opening region"
    );
    let out = sow(&["--json", "solve", "kpe:4x3", "--db", db.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let reused: Vec<u64> = json["layers_reused"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect();
    assert!(
        (0..=16).step_by(2).all(|n| reused.contains(&n)),
        "reused {reused:?}"
    );
    assert!(!reused.contains(&24), "reused {reused:?}");
    assert_same_database_as_a_fresh_solve(v, &db, "killed-ref");
    fs::remove_dir_all(&db).unwrap();
}

#[test]
fn a_reader_says_the_database_is_incomplete_and_who_builds_it() {
    let db = temp("incomplete");
    let v = small();
    Solution::build(v, &db, Progress::Hidden).unwrap();
    fs::remove_file(paths::layer_path(&db, v, 12)).unwrap();
    fs::remove_file(paths::region_path(&db, v)).unwrap();
    let message = |e: SolveError| match e {
        SolveError::Db(e @ DbError::Incomplete { .. }) => e.to_string(),
        other => panic!("{other}"),
    };
    let interrupted = message(Solution::open(v, &db).err().unwrap());
    assert!(
        interrupted.contains("6 of 7 endgame layers, no opening file"),
        "{interrupted}"
    );
    assert!(
        interrupted.contains("run `sow solve kpe:3x2"),
        "{interrupted}"
    );
    let writer = DbLock::acquire(&paths::variant_dir(&db, v), |_| {}).unwrap();
    let building = message(Solution::open(v, &db).err().unwrap());
    assert!(
        building.contains(&format!("being built by process {}", std::process::id())),
        "{building}"
    );
    drop(writer);
    fs::remove_dir_all(&db).unwrap();
}

#[test]
fn too_many_threads_are_refused_with_the_bound() {
    let (stderr, v) = refused(
        &sow(&["--json", "--threads", "1000", "show", "kpe"]),
        "threads",
    );
    assert!(stderr.contains("per core"), "{stderr}");
    assert_eq!(v["error"]["kind"], "usage");
    refused(
        &sow(&["--json", "--threads", "0", "show", "kpe"]),
        "threads",
    );
    assert!(sow(&["--threads", "2", "show", "kpe"]).status.success());
}

#[test]
fn a_table_larger_than_memory_is_refused_before_allocating() {
    // 1 PiB: more than any machine this runs on has available.
    let (stderr, _) = refused(
        &sow(&[
            "--json",
            "eval",
            "kiothi",
            "--hash",
            "1000000000",
            "--depth",
            "1",
        ]),
        "hash",
    );
    assert!(stderr.contains("MiB of memory available"), "{stderr}");
    // An agent's table too.
    let (stderr, _) = refused(
        &sow(&[
            "--json",
            "match",
            "ab:depth=1,tt=1000000000",
            "random",
            "--games",
            "2",
        ]),
        "agent",
    );
    assert!(stderr.contains("MiB of memory available"), "{stderr}");
    let (stderr, _) = refused(
        &sow(&[
            "--json",
            "match",
            "ab:depth=1,threads=100000",
            "random",
            "--games",
            "2",
        ]),
        "agent",
    );
    assert!(stderr.contains("per core"), "{stderr}");
}

/// Runs sow under bash with a file size limit of `kib` KiB.
fn sow_with_file_limit(kib: u32, args: &[&str]) -> Output {
    let mut script = format!("ulimit -f {kib}; exec \"$0\"");
    for i in 1..=args.len() {
        script += &format!(" \"${{{i}}}\"");
    }
    Command::new("bash")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_sow"))
        .args(args)
        .output()
        .expect("bash")
}

fn leftovers(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .into_iter()
        .flatten()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

#[test]
fn a_full_disk_while_solving_names_the_file_and_leaves_no_partial_file() {
    let db = temp("fsize-solve");
    let db_arg = db.to_str().unwrap();
    // kpe:3x3's largest layers are about 10 KiB: a 4 KiB limit stops one.
    let out = sow_with_file_limit(4, &["--json", "solve", "kpe:3x3", "--db", db_arg]);
    let (stderr, v) = refused(&out, "db");
    assert!(
        stderr.contains("layer-") && stderr.contains(".sowdb"),
        "{stderr}"
    );
    assert!(stderr.contains("File too large"), "{stderr}");
    assert_eq!(v["error"]["kind"], "database");
    let dir = paths::variant_dir(&db, KpeVariant::new(3, 3).unwrap());
    assert_eq!(leftovers(&dir), Vec::<String>::new());
    // Whatever was written is whole: the solve resumes and completes.
    let out = sow(&["--quiet", "solve", "kpe:3x3", "--db", db_arg]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    fs::remove_dir_all(&db).unwrap();
}

/// A proof whose kept bounds cannot be written: refused (field `keep`),
/// naming the file, saying what the proof had reached, no partial file.
#[test]
fn a_full_disk_while_keeping_a_proof_says_what_was_proved() {
    let dir = temp("fsize-keep");
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("proof.bnd");
    // About 40,000 nodes: thousands of entries, more than 4 KiB of file.
    let pos = "kiothi 0,1,0,1,0,0,2,1,3,2,1,2,1,4,0,1,0,2,0,1 S play 24 14";
    let db = dir.to_str().unwrap();
    let keep = file.to_str().unwrap();
    let out = sow_with_file_limit(4, &["--json", "solve", "--db", db, "--keep", keep, pos]);
    let (stderr, _) = refused(&out, "keep");
    assert!(
        stderr.contains(keep) && stderr.contains("File too large"),
        "{stderr}"
    );
    assert!(
        stderr.contains("the proof had reached [-6, -6]"),
        "{stderr}"
    );
    assert!(!file.exists());
    assert_eq!(leftovers(&dir), Vec::<String>::new());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_full_disk_while_exporting_names_the_file_and_leaves_nothing() {
    let dir = temp("fsize-export");
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("all.csv");
    let out = sow_with_file_limit(
        16,
        &[
            "--json",
            "export",
            "kpe:3x2",
            "--positions",
            "all",
            "--out",
            file.to_str().unwrap(),
        ],
    );
    let (stderr, _) = refused(&out, "out");
    assert!(stderr.contains(file.to_str().unwrap()), "{stderr}");
    assert!(!file.exists());
    assert_eq!(leftovers(&dir), Vec::<String>::new());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_in_place_of_a_directory_is_named() {
    // Root may write anywhere, so a permission error is made by a file
    // standing where a directory must be.
    let dir = temp("not-a-dir");
    fs::create_dir_all(&dir).unwrap();
    let blocker = dir.join("blocker");
    fs::write(&blocker, b"a file").unwrap();
    let db = blocker.join("db");
    let (stderr, _) = refused(
        &sow(&["--json", "solve", "kpe:2x1", "--db", db.to_str().unwrap()]),
        "db",
    );
    assert!(stderr.contains(blocker.to_str().unwrap()), "{stderr}");
    assert!(stderr.contains("Not a directory"), "{stderr}");
    let out_file = blocker.join("x.csv");
    let (stderr, _) = refused(
        &sow(&[
            "--json",
            "export",
            "kpe:2x1",
            "--positions",
            "all",
            "--out",
            out_file.to_str().unwrap(),
        ]),
        "out",
    );
    assert!(stderr.contains(blocker.to_str().unwrap()), "{stderr}");
    fs::remove_dir_all(&dir).unwrap();
}

/// `sow ARGS`, stopped by Ctrl-C (SIGINT) after `wait`: what it printed.
fn interrupted(args: &[&str], wait: Duration) -> Output {
    let child = Command::new(env!("CARGO_BIN_EXE_sow"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(wait);
    // SAFETY: sends a signal to our own child, which is still running.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    child.wait_with_output().unwrap()
}

#[test]
fn ctrl_c_in_a_match_reports_the_finished_games() {
    let out = interrupted(
        &[
            "--json",
            "match",
            "ab:depth=2",
            "greedy",
            "--games",
            "100000",
        ],
        Duration::from_secs(3),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panick"), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    if out.status.success() {
        assert_eq!(v["interrupted"], true, "{v}");
        let games = v["games"].as_u64().unwrap();
        assert!((1..100_000).contains(&games), "{v}");
        assert_eq!(
            v["wins"].as_u64().unwrap()
                + v["draws"].as_u64().unwrap()
                + v["losses"].as_u64().unwrap(),
            games
        );
    } else {
        // Stopped while its openings were drawn: a named refusal.
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(v["error"]["kind"], "interrupted", "{v}");
    }
}

/// Ctrl-C in a Kiothi proof with `--keep FILE`: the proved bounds so far,
/// and the table written to FILE, which the next run reads.
#[test]
fn ctrl_c_in_a_proof_keeps_its_bounds_in_the_file() {
    let dir = temp("ctrl-c-keep");
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("proof.bnd");
    let file_arg = file.to_str().unwrap();
    // Game 3 of results/kiothi/exact.md 18 plies before the end: minutes
    // of work without endgame tables (an empty --db).
    let pos = "kiothi 1,1,0,10,0,0,0,2,2,4,3,1,1,0,0,1,0,1,3,1 S play 14 15";
    let db = dir.to_str().unwrap();
    let out = interrupted(
        &[
            "--json",
            "--threads",
            "1",
            "solve",
            "--db",
            db,
            "--keep",
            file_arg,
            pos,
        ],
        Duration::from_secs(2),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(v["interrupted"], true, "{v}");
    assert_eq!(v["exact"], false, "{v}");
    let written = v["kept"]["written"].as_u64().unwrap();
    assert!(written > 0, "{v}");
    assert_eq!(fs::metadata(&file).unwrap().len(), 40 + 16 * written);
    let next = sow(&[
        "--json", "solve", "--db", db, "--keep", file_arg, "--nodes", "1", pos,
    ]);
    let n: Value = serde_json::from_slice(&next.stdout).unwrap();
    assert_eq!(n["kept"]["read"].as_u64(), Some(written), "{n}");
    fs::remove_dir_all(&dir).unwrap();
}

/// Ctrl-C in a Kiothi analysis: the remaining plies would be searched to
/// depth 1 only, so it is the `interrupted` refusal and nothing is written
/// under `--out` (it was a wrong analysis, exit 0).
#[test]
fn ctrl_c_in_an_analysis_is_a_refusal_that_writes_nothing() {
    let dir = temp("ctrl-c-analyze");
    let db = dir.join("db");
    fs::create_dir_all(&db).unwrap();
    let page = dir.join("page");
    let out = interrupted(
        &[
            "--json",
            "--threads",
            "1",
            "analyze",
            "results/kiothi/games/ab_time_1-vs-mcts_10000.jsonl",
            "--time",
            "1",
            "--db",
            db.to_str().unwrap(),
            "--out",
            page.to_str().unwrap(),
        ],
        Duration::from_secs(2),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(v["error"]["kind"], "interrupted", "{v}");
    let written = fs::read_dir(&page).map_or(0, |d| d.count());
    assert_eq!(written, 0, "files under --out");
    fs::remove_dir_all(&dir).unwrap();
}
