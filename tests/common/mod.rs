//! What several test files share: running the built binary (`sow`,
//! `json_of`, `temp_dir`) and a seeded generator (splitmix64) so that
//! random games and positions are reproducible. Not every test file uses
//! every helper (hence the `dead_code` allowances).

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the built `sow` with `args`.
#[allow(dead_code)]
pub fn sow(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sow"))
        .args(args)
        .output()
        .expect("run sow")
}

/// Runs the built `sow` with `args`, `input` as its standard input.
#[allow(dead_code)]
pub fn sow_with_input(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_sow"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run sow");
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().expect("run sow")
}

/// The JSON object a successful `--json` run printed.
#[allow(dead_code)]
pub fn json_of(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// The `error` object a refused `--json` run printed (exit code 2).
#[allow(dead_code)]
pub fn error_of(out: &Output) -> serde_json::Value {
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    v["error"].clone()
}

/// An empty directory `sow-PREFIX-PID-NAME` under the system's temporary one.
#[allow(dead_code)]
pub fn temp_dir(prefix: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sow-{prefix}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub struct Rng(pub u64);

#[allow(dead_code)] // not every test file draws every kind of number
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}
