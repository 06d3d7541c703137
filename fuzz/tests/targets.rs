//! A short run of every fuzz target: each runs clean (no panic, no
//! violation of the error contract) and reaches both accepted and refused
//! inputs.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sow-rel-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn every_fuzz_target_runs_clean_for_a_few_thousand_inputs() {
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds");
    let list = Command::new(env!("CARGO_BIN_EXE_sow-fuzz"))
        .arg("--list")
        .output()
        .unwrap();
    let targets = String::from_utf8(list.stdout).unwrap();
    assert!(targets.lines().count() >= 9, "{targets}");
    for target in targets.lines() {
        let findings = temp(&format!("findings-{target}"));
        let inputs = if target == "db-dir" { "300" } else { "3000" };
        let out = Command::new(env!("CARGO_BIN_EXE_sow-fuzz"))
            .args([target, "--inputs", inputs, "--seed", "7", "--seeds"])
            .arg(&seeds)
            .arg("--findings")
            .arg(&findings)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{target}: {stderr}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["panics"], 0, "{target}: {v}");
        assert_eq!(v["violations"], 0, "{target}: {v}");
        assert!(v["accepted"].as_u64().unwrap() > 0, "{target}: {v}");
        assert!(v["refused"].as_u64().unwrap() > 0, "{target}: {v}");
    }
}
