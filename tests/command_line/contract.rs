//! The `sow` binary as a user meets it: progress on a terminal and none in a
//! pipe, Kiothi's opening perft counted by formula, refusal of a perft out
//! of reach, completions and the man page.

use std::process::Command;

use crate::common::{json_of, sow};

use serde_json::Value;

/// `sow --json ARGS`, which must succeed with one JSON object.
fn json(args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    json_of(&sow(&all))
}

/// Runs `sow ARGS` with stderr on a pseudo-terminal (util-linux `script`,
/// stdout of the command sent to a file) and returns what the terminal
/// showed.
fn on_terminal(args: &[&str]) -> String {
    let dir = std::env::temp_dir().join(format!("sow-pty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let stdout = dir.join(format!(
        "stdout-{}",
        args.join("_").replace(['/', ' '], "-")
    ));
    let quoted: Vec<String> = std::iter::once(env!("CARGO_BIN_EXE_sow"))
        .chain(args.iter().copied())
        .map(|a| format!("'{a}'"))
        .collect();
    let line = format!("{} > '{}'", quoted.join(" "), stdout.display());
    let o = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .env("TERM", "xterm")
        .output()
        .expect("the `script` utility (util-linux) runs a command on a pseudo-terminal");
    assert!(
        o.status.success(),
        "{line}: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn progress_shows_on_a_terminal_and_not_in_a_pipe() {
    let cases: [&[&str]; 2] = [
        &["match", "greedy", "random", "--games", "6"],
        &["perft", "kpe", "11"],
    ];
    for args in cases {
        let shown = on_terminal(args);
        assert!(
            shown.contains("ETA"),
            "{args:?}: no progress on the terminal: {shown:?}"
        );
        let piped = sow(args);
        assert!(piped.status.success());
        assert!(
            piped.stderr.is_empty(),
            "{args:?}: progress in a pipe: {}",
            String::from_utf8_lossy(&piped.stderr)
        );
        // --quiet on a terminal: nothing but the result.
        let mut quiet = vec!["--quiet"];
        quiet.extend_from_slice(args);
        assert!(!on_terminal(&quiet).contains("ETA"), "{args:?} --quiet");
    }
}

#[test]
fn kiothi_perft_2_is_counted_for_both_setups() {
    for game in ["kiothi", "kiothi:five"] {
        let v = json(&["perft", game, "2", "--divide"]);
        let nodes = v["nodes"].as_u64().unwrap();
        assert!(nodes > 100_000_000_000_000, "{game}: {nodes}");
        assert!(v["nps"].is_null(), "counted, not visited: {v}");
        assert_eq!(v["counted"], true);
        assert_eq!(v["divide_by"], "lifted pits");
        let lines = v["divide"].as_array().unwrap();
        assert_eq!(lines.len(), if game == "kiothi" { 15 } else { 10 });
        assert_eq!(
            lines[0]["move"],
            if game == "kiothi" { "4+5" } else { "5+6" }
        );
        let sum: u64 = lines.iter().map(|l| l["nodes"].as_u64().unwrap()).sum();
        assert_eq!(sum, nodes);
        // Depth 1 is counted too: no absurd nps.
        let one = json(&["perft", game, "1"]);
        assert!(one["nps"].is_null());
    }
    let text = String::from_utf8(sow(&["perft", "kiothi", "1"]).stdout).unwrap();
    assert!(text.contains("nodes    300450150"), "{text}");
    assert!(!text.contains("nps"), "{text}");
    // A walked perft still reports its speed.
    assert!(json(&["perft", "kpe", "6"])["nps"].is_u64());
}

#[test]
fn a_perft_out_of_reach_is_refused_before_it_starts() {
    let o = sow(&["--json", "perft", "kiothi", "3"]);
    assert_eq!(o.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "usage");
    assert_eq!(v["error"]["field"], "depth");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains("--max-nodes"), "{message}");
    // The bound can be lowered (and raised): kpe 12 walks ~1e6 positions.
    let o = sow(&["perft", "kpe", "12", "--max-nodes", "1000"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("error: perft to depth 12"));
}

#[test]
fn completions_and_man_page_print() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let o = sow(&["completions", shell]);
        assert!(o.status.success(), "{shell}");
        let text = String::from_utf8(o.stdout).unwrap();
        assert!(
            text.contains("perft") && text.contains("completions"),
            "{shell}"
        );
    }
    let o = sow(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
    let page = String::from_utf8(sow(&["man"]).stdout).unwrap();
    assert!(
        page.contains(".TH sow 1"),
        "{}",
        &page[..page.len().min(300)]
    );
    assert!(page.contains(".SH \"SOW PERFT\""));
}
