//! Database files: round trip, resume after an interrupted solve, and
//! refusal of truncated, corrupt and mismatched files.

use std::fs;
use std::path::PathBuf;

use sow::games::kpe::{KpePosition, KpeVariant};
use sow::infra::progress::Progress;
use sow::kpe_db::estimate::OutOfCore;
use sow::kpe_db::file::Encoding;
use sow::kpe_db::paths::{layer_path, region_path};
use sow::kpe_db::DbError;
use sow::kpe_db::{BuildOptions, Solution, SolveError};
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

/// Every position of the start's region (mover as South) with its entry.
fn region_entries(s: &Solution) -> Vec<(KpePosition, u8)> {
    let mut region = Vec::new();
    s.start_region()
        .for_each(|pos, e| -> Result<(), DbError> {
            region.push((*pos, e));
            Ok(())
        })
        .unwrap();
    region
}

/// Every stored entry (value and "can end" bit) of a database, layer by
/// layer, then every position of the start's region with its entry.
fn all_entries(s: &Solution) -> (Vec<Vec<u8>>, Vec<(String, u8)>) {
    let layers =
        s.eg.layers()
            .map(|n| s.layer_entries(n).unwrap().into_owned())
            .collect();
    let mut region: Vec<(String, u8)> = region_entries(s)
        .into_iter()
        .map(|(pos, e)| (pos.to_string(), e))
        .collect();
    region.sort();
    (layers, region)
}

/// The database files of a variant directory, by name (the lock aside).
fn files_of(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name != "lock")
        .map(|name| (name.clone(), fs::read(dir.join(&name)).unwrap()))
        .collect();
    files.sort();
    files
}

#[test]
fn a_region_built_out_of_core_writes_the_files_of_one_built_in_memory() {
    for (w, k) in [(3, 2), (4, 2), (5, 1)] {
        let variant = KpeVariant::new(w, k).unwrap();
        let build = |out_of_core| {
            let db = temp_db(&format!("out-of-core-{variant}-{out_of_core:?}"));
            let options = BuildOptions {
                out_of_core,
                ..Default::default()
            };
            let (_, stats) = Solution::build_with(variant, &db, Progress::Hidden, options).unwrap();
            assert_eq!(stats.out_of_core, out_of_core == OutOfCore::Always);
            // In memory, the layers stay through the exploration (this
            // machine's budget holds them); out of core they are read
            // back from their files: the files are the same either way.
            assert_eq!(stats.layers_kept_exploring, out_of_core == OutOfCore::Never);
            let files = files_of(&db.join(format!("kpe-{variant}")));
            fs::remove_dir_all(&db).unwrap();
            files
        };
        let in_memory = build(OutOfCore::Never);
        let out_of_core = build(OutOfCore::Always);
        let names = |f: &[(String, Vec<u8>)]| f.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        // The same files (no scratch file left behind), byte for byte.
        assert_eq!(names(&out_of_core), names(&in_memory), "kpe:{variant}");
        assert!(names(&in_memory).contains(&"opening-keys.sowdb".to_string()));
        assert!(out_of_core == in_memory, "kpe:{variant}: files differ");
    }
}

/// Builds kpe:4x3's region out of core in a directory holding its
/// layers, kills the build once `stop` says so of the checkpoint files
/// it has written (`kpe_db/build/checkpoint.rs`), resumes it in process, and
/// returns how far it had come, after checking that the resumed files are
/// those of an uninterrupted build, byte for byte, and no checkpoint is
/// left. `damage` names a checkpoint to corrupt before resuming: the
/// build must then fail naming it, and resume once it is restored.
fn interrupt_region(
    name: &str,
    stop: impl Fn(&[String]) -> bool,
    damage: &str,
) -> sow::kpe_db::RegionResumed {
    let variant = KpeVariant::new(4, 3).unwrap();
    let tag = format!("kpe-{variant}");
    let reference = temp_db(&format!("{name}-reference"));
    Solution::build(variant, &reference, Progress::Hidden).unwrap();
    let want = files_of(&reference.join(&tag));
    let db = temp_db(name);
    let dir = db.join(&tag);
    fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in want.iter().filter(|(n, _)| n.starts_with("layer-")) {
        fs::write(dir.join(name), bytes).unwrap();
    }
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sow"))
        .args([
            "--threads",
            "2",
            "solve",
            "kpe:4x3",
            "--out-of-core",
            "always",
            "-q",
        ])
        .arg("--db")
        .arg(&db)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let partial = dir.join("region-partial");
    // Whole checkpoints: a temporary file being written is not one.
    let kept = || -> Vec<String> {
        fs::read_dir(&partial).map_or(Vec::new(), |d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".sowdb"))
                .collect()
        })
    };
    while !stop(&kept()) {
        if let Some(status) = child.try_wait().unwrap() {
            let mut stderr = String::new();
            std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
            panic!("finished before it was interrupted: {status}, {stderr}");
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        !dir.join("opening.sowdb").exists(),
        "interrupted before the end"
    );
    // A damaged checkpoint is an error naming it, not a wrong database.
    let file = partial.join(damage);
    let intact = fs::read(&file).unwrap();
    let mut damaged = intact.clone();
    *damaged.last_mut().unwrap() ^= 0x10;
    fs::write(&file, &damaged).unwrap();
    let err = Solution::build(variant, &db, Progress::Hidden)
        .err()
        .unwrap();
    assert!(err.to_string().contains(damage), "{err}");
    fs::write(&file, &intact).unwrap();
    // Resumed (in memory or out of core, as the estimate decides): the
    // same files, byte for byte, and no checkpoint left.
    let (_, stats) = Solution::build(variant, &db, Progress::Hidden).unwrap();
    assert!(!partial.exists());
    assert!(files_of(&dir) == want, "the resumed files differ");
    fs::remove_dir_all(&reference).unwrap();
    fs::remove_dir_all(&db).unwrap();
    stats.region_resumed.expect("resumed from the checkpoints")
}

#[test]
fn an_out_of_core_region_interrupted_while_solving_resumes_to_the_same_files() {
    let solving = |kept: &[String]| kept.iter().filter(|n| n.starts_with("run-")).count() >= 7;
    let resumed = interrupt_region("region-resume-solving", solving, "run-00003.sowdb");
    assert_eq!(resumed.stone_counts_reused, resumed.stone_counts);
    assert!(resumed.runs_reused >= 7, "{resumed:?}");
    assert!(resumed.runs_reused < resumed.runs, "{resumed:?}");
}

#[test]
fn an_out_of_core_region_interrupted_while_exploring_resumes_to_the_same_files() {
    // kpe:4x3 has 25 stone counts; stopped once a few are kept, before
    // the seeds of the last one (which ends the exploration).
    let exploring = |kept: &[String]| {
        let counts = kept.iter().filter(|n| n.starts_with("explored-")).count();
        counts >= 4 && kept.iter().any(|n| n == "seeds.sowdb")
    };
    let resumed = interrupt_region("region-resume-exploring", exploring, "seeds.sowdb");
    assert_eq!(resumed.stone_counts, 25);
    assert!(resumed.stone_counts_reused >= 1, "{resumed:?}");
    assert!(resumed.stone_counts_reused < 25, "{resumed:?}");
    assert_eq!(resumed.runs_reused, 0);
}

#[test]
fn compressed_and_plain_files_hold_the_entries_of_a_fresh_solution() {
    for (w, k) in [(3, 2), (2, 4), (4, 1)] {
        let variant = KpeVariant::new(w, k).unwrap();
        let memory = Solution::in_memory(variant, Progress::Hidden);
        let want = all_entries(&memory);
        assert!(!want.1.is_empty());
        for encoding in [Encoding::Zstd, Encoding::Plain] {
            let db = temp_db(&format!("encoding-{variant}-{encoding:?}"));
            Solution::build_with(
                variant,
                &db,
                Progress::Hidden,
                BuildOptions {
                    encoding,
                    ..Default::default()
                },
            )
            .unwrap();
            let opened = Solution::open(variant, &db).unwrap();
            assert_eq!(all_entries(&opened), want, "kpe:{variant} {encoding:?}");
            // The solver keeps the region by stone count and class of
            // marks; the files, and the region listed from memory, by stone
            // count and key: the same order and the same groups.
            assert!(region_entries(&opened) == region_entries(&memory));
            let groups = |s: &Solution| -> Vec<(usize, Vec<u8>)> {
                let groups = s.start_region().groups().unwrap();
                groups.into_iter().map(|g| (g.stones, g.entries)).collect()
            };
            assert_eq!(groups(&opened), groups(&memory), "kpe:{variant}");
            // Probes through the compact key index and the block cache.
            for (pos, e) in region_entries(&memory) {
                assert_eq!(opened.start_region().entry(&pos).unwrap(), Some(e), "{pos}");
                assert_eq!(
                    opened.value(&pos, None).unwrap(),
                    memory.value(&pos, None).unwrap()
                );
                assert_eq!(
                    opened.can_end(&pos, None).unwrap(),
                    memory.can_end(&pos, None).unwrap()
                );
            }
            fs::remove_dir_all(&db).unwrap();
        }
    }
    // A locked position the start cannot reach is not in the mapped index.
    let db = temp_db("outside");
    Solution::build(variant(), &db, Progress::Hidden).unwrap();
    let opened = Solution::open(variant(), &db).unwrap();
    let outside: KpePosition = "kpe:3x2 0,0,0,0,0,12 S x.. ...".parse().unwrap();
    assert_eq!(opened.start_region().entry(&outside).unwrap(), None);
    fs::remove_dir_all(&db).unwrap();
}

#[test]
fn value_files_are_compressed() {
    // Value files are zstd blocks: on a small variant they already take
    // well under one byte per position.
    let variant = KpeVariant::new(4, 2).unwrap();
    let db = temp_db("small");
    let (solution, _) = Solution::build(variant, &db, Progress::Hidden).unwrap();
    let n = 16;
    let entries = solution.eg.index.layer_size(n);
    let bytes = fs::metadata(layer_path(&db, variant, n)).unwrap().len();
    assert!(bytes < entries / 2, "{bytes} bytes for {entries} entries");
    fs::remove_dir_all(&db).unwrap();
}

#[test]
fn a_database_of_an_older_format_is_refused_with_a_re_solve_hint() {
    let db = temp_db("old");
    Solution::build(variant(), &db, Progress::Hidden).unwrap();
    let path = layer_path(&db, variant(), 4);
    let mut bytes = fs::read(&path).unwrap();
    bytes[8..12].copy_from_slice(&1u32.to_le_bytes()); // format version 1
    fs::write(&path, &bytes).unwrap();
    for err in [
        Solution::open(variant(), &db).err().expect("refused"),
        Solution::build(variant(), &db, Progress::Hidden)
            .err()
            .expect("refused"),
    ] {
        let text = err.to_string();
        assert!(
            matches!(err, SolveError::Db(DbError::OldFormat { .. })),
            "{text}"
        );
        assert!(text.contains("layer-004.sowdb"), "{text}");
        assert!(text.contains("format version 1"), "{text}");
        assert!(
            text.contains("re-solve with `sow solve kpe:3x2 --db"),
            "{text}"
        );
    }
    fs::remove_dir_all(&db).unwrap();
}

/// `sow ARGS DB` (ARGS ending with `--db`), with one environment variable
/// set if given.
fn solve_in(
    db: &std::path::Path,
    args: &[&str],
    env: Option<(&str, &str)>,
) -> std::process::Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_sow"));
    command.args(args).arg(db);
    if let Some((key, value)) = env {
        command.env(key, value);
    }
    command.output().unwrap()
}

#[test]
fn a_variant_that_cannot_fit_the_memory_budget_is_refused_with_its_estimate() {
    let db = temp_db("budget");
    let out = solve_in(
        &db,
        &["--json", "solve", "kpe:3x2", "--db"],
        Some(("SOW_MEMORY_MIB", "0")),
    );
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["error"]["field"], "variant", "{v}");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains("GiB of memory"), "{message}");
    assert!(message.contains("11088 unlocked positions"), "{message}");
    assert!(!db.exists(), "nothing written");
    // Disk too.
    let out = solve_in(
        &db,
        &["solve", "kpe:3x2", "--db"],
        Some(("SOW_DISK_MIB", "0")),
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("of disk"), "{stderr}");
    // Within budget it solves and prints the estimate.
    let out = solve_in(
        &db,
        &["solve", "kpe:3x2", "--db"],
        Some(("SOW_MEMORY_MIB", "100")),
    );
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("estimate before solving: memory"),
        "{stdout}"
    );
    fs::remove_dir_all(&db).unwrap();
}

#[test]
fn the_next_board_sizes_are_refused_by_their_estimate_or_their_layer_rank() {
    // kpe:4x8 (64 stones) ranks within 32 bits per layer and keys its
    // locked positions in 64 bits, but needs more memory than an 8 GiB
    // budget (about 12.1 GiB: 6.3 G unlocked positions): refused with the
    // estimate, before any file.
    let db = temp_db("next-sizes");
    let out = solve_in(
        &db,
        &["--json", "solve", "kpe:4x8", "--db"],
        Some(("SOW_MEMORY_MIB", "8192")),
    );
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value =
        serde_json::from_str(String::from_utf8(out.stdout).unwrap().trim()).unwrap();
    assert_eq!(v["error"]["field"], "variant", "{v}");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains("GiB of memory"), "{message}");
    assert!(message.contains(" unlocked positions, about "), "{message}");
    assert!(!db.exists(), "nothing written");
    // kpe:5x4's locked positions have keys (their packing pit by pit took
    // 70 bits), but not the memory of a 16 GiB budget, in memory (about
    // 47.8 GiB) or out of core (about 19.1 GiB): refused with the estimate
    // (5,701,165,250 unlocked positions, counted exactly), out of core
    // the last resort tried.
    for (flag, how) in [("auto", ", its region out of core"), ("never", "")] {
        let out = solve_in(
            &db,
            &["solve", "kpe:5x4", "--out-of-core", flag, "--db"],
            Some(("SOW_MEMORY_MIB", "16384")),
        );
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8(out.stderr).unwrap();
        let says = format!("GiB of memory{how} (5701165250 unlocked positions, about ");
        assert!(stderr.contains(&says), "{flag}: {stderr}");
    }
    // kpe:8x8's layers do not rank in 32 bits: refused whatever the
    // budget, with what it would take all the same.
    let out = solve_in(&db, &["solve", "kpe:8x8", "--db"], None);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("in 32 bits"), "{stderr}");
    assert!(stderr.contains("; estimate: memory about "), "{stderr}");
    assert!(!db.exists(), "nothing written");
}

#[test]
fn an_endgame_only_build_writes_the_layers_that_a_full_solve_then_reuses() {
    let db = temp_db("endgame-only");
    let out = solve_in(
        &db,
        &["--json", "solve", "kpe:3x2", "--endgame-only", "--db"],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v: serde_json::Value =
        serde_json::from_str(String::from_utf8(out.stdout).unwrap().trim()).unwrap();
    assert_eq!(v["unlocked_positions"], 11088, "{v}");
    assert_eq!(
        v["layers_computed"],
        serde_json::json!([0, 2, 4, 6, 8, 10, 12])
    );
    assert_eq!(v["estimate"]["region"], 0, "{v}");
    // Each step of the layers took some time, and together no more than the build.
    let steps = &v["layer_steps"];
    let step = |k: &str| steps[k].as_f64().unwrap_or_else(|| panic!("{k} in {v}"));
    let total = step("exits") + step("thresholds") + step("endings");
    assert!(
        step("exits") > 0.0 && step("thresholds") > 0.0 && step("endings") > 0.0,
        "{v}"
    );
    assert!(total <= v["seconds"].as_f64().unwrap(), "{v}");
    for n in (0..=12).step_by(2) {
        assert!(layer_path(&db, variant(), n).exists(), "layer {n}");
    }
    assert!(!region_path(&db, variant()).exists(), "no region");
    let (solved, stats) = Solution::build(variant(), &db, Progress::Hidden).unwrap();
    assert!(
        stats.layers_computed.is_empty(),
        "{:?}",
        stats.layers_computed
    );
    assert_eq!(stats.layers_reused.len(), 7);
    assert_same_values(&solved, &Solution::in_memory(variant(), Progress::Hidden));
    // Its estimate is the layers': kpe:5x4's need about 14.9 GiB, where
    // its whole solve needs 19.1 GiB with the region out of core (the
    // test above).
    let db5 = temp_db("endgame-only-5x4");
    let out = solve_in(
        &db5,
        &["solve", "kpe:5x4", "--endgame-only", "--db"],
        Some(("SOW_MEMORY_MIB", "12288")),
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(
            "needs about 14.9 GiB of memory (5701165250 unlocked positions: an estimate)"
        ),
        "{stderr}"
    );
    assert!(!db5.exists(), "nothing written");
    // Kiothi's tables have a command of their own.
    for flag in [&["--endgame-only"][..], &["--out-of-core", "always"]] {
        let args = [&["solve", "kiothi"][..], flag, &["--db"]].concat();
        let out = solve_in(&db5, &args, None);
        assert_eq!(out.status.code(), Some(2), "{flag:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains(flag[0]), "{stderr}");
    }
    assert!(!db5.exists(), "nothing written");
    fs::remove_dir_all(&db).unwrap();
}
