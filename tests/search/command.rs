//! The search commands through the binary: `eval` by search, `match`, and
//! `openings kiothi`, their JSON keys, and their refusals of bad input.

use crate::common::{error_of, json_of, sow};
use serde_json::Value;

#[test]
fn eval_kiothi_by_search_gives_the_contract_keys() {
    let pos = "kiothi 2,2,0,2*,1*,2*,0,6,0,8,3,4,1,2,1,1,9,0,3,2 S play 9 2";
    let v = json_of(&sow(&[
        "--json",
        "--threads",
        "1",
        "eval",
        pos,
        "--depth",
        "3",
    ]));
    for key in [
        "position",
        "value",
        "best",
        "pv",
        "depth",
        "nodes",
        "nps",
        "exact",
        "one_warrior_victory",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert_eq!(v["depth"], 3);
    let best = v["best"].as_str().unwrap();
    assert_eq!(v["pv"][0].as_str().unwrap(), best);
    // The best move is legal in the position.
    let applied = sow(&["apply", pos, best]);
    assert!(applied.status.success());
}

#[test]
fn eval_from_the_kiothi_start_answers_within_its_budget() {
    let v = json_of(&sow(&["--json", "eval", "kiothi", "--time", "1"]));
    assert!(
        v["best"].as_str().unwrap().contains('>'),
        "an opening move: {v}"
    );
    assert!(v["seconds"].as_f64().unwrap() < 3.0, "{v}");
}

#[test]
fn eval_of_a_tiny_kpe_endgame_by_search_is_exact_and_matches_the_solver() {
    let pos = "kpe:2x2 1,0,2,1 S xx xx 2 2";
    let searched = json_of(&sow(&["--json", "eval", pos, "--depth", "40"]));
    let solved = json_of(&sow(&["--json", "eval", pos]));
    assert_eq!(searched["exact"], true, "{searched}");
    assert_eq!(searched["value"], solved["value"]);
}

#[test]
fn match_reports_score_elo_and_writes_records() {
    let records = std::env::temp_dir().join(format!("sow-records-{}.jsonl", std::process::id()));
    let v = json_of(&sow(&[
        "--json",
        "match",
        "greedy",
        "random",
        "--game",
        "kpe:3x2",
        "--games",
        "4",
        "--records",
        records.to_str().unwrap(),
    ]));
    for key in ["agents", "games", "score", "elo", "elo_ci95", "avg_length"] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert_eq!(v["games"], 4);
    let lines = std::fs::read_to_string(&records).unwrap();
    assert_eq!(lines.lines().count(), 4);
    for line in lines.lines() {
        let _: Value = serde_json::from_str(line).unwrap();
    }
    std::fs::remove_file(records).unwrap();
}

#[test]
fn balanced_match_plays_openings_judged_even() {
    let records = std::env::temp_dir().join(format!("sow-balanced-{}.jsonl", std::process::id()));
    let v = json_of(&sow(&[
        "--json",
        "match",
        "greedy",
        "random",
        "--games",
        "4",
        "--balance",
        "0",
        "--balance-depth",
        "4",
        "--records",
        records.to_str().unwrap(),
    ]));
    assert_eq!(v["balance"], serde_json::json!({"margin": 0, "depth": 4}));
    let lines = std::fs::read_to_string(&records).unwrap();
    for line in lines.lines() {
        let r: Value = serde_json::from_str(line).unwrap();
        assert_eq!(r["opening_value"], 0, "{line}");
    }
    std::fs::remove_file(records).unwrap();
}

#[test]
fn bad_search_requests_are_refused_with_the_field() {
    for (args, field) in [
        (&["--json", "eval", "kiothi", "--time", "0"][..], "time"),
        // Shorter than a search can use: taken, it was printed back as
        // 300 digits.
        (&["--json", "analyze", "-", "--time", "1e-300"][..], "time"),
        (&["--json", "play", "--time", "0.0001"][..], "time"),
        (&["--json", "match", "ab:time=1e-9", "random"][..], "agent"),
        // Each flag serves one game's openings: not ignored on the other.
        (&["--json", "openings", "kpe", "--time", "3"][..], "time"),
        (&["--json", "openings", "kiothi", "--db", "/tmp"][..], "db"),
        (&["--json", "eval", "kiothi", "--depth", "0"][..], "depth"),
        (&["--json", "match", "alphazero", "random"][..], "agent"),
        (&["--json", "match", "ab:time=0", "random"][..], "agent"),
        (
            &["--json", "match", "ab:depth=1,opening=first", "random"][..],
            "agent",
        ),
        // Kpé has no redistribution for the reply search to answer.
        (
            &[
                "--json",
                "match",
                "ab:depth=1,opening=reply",
                "random",
                "--game",
                "kpe",
            ][..],
            "agent",
        ),
        (
            &["--json", "match", "greedy", "random", "--games", "0"][..],
            "games",
        ),
        (
            &["--json", "match", "greedy", "random", "--balance=-2"][..],
            "balance",
        ),
        (
            &[
                "--json",
                "match",
                "greedy",
                "random",
                "--balance",
                "0",
                "--balance-depth",
                "0",
            ][..],
            "balance-depth",
        ),
    ] {
        let out = sow(args);
        let e = error_of(&out);
        let got = e["field"].as_str().unwrap_or("");
        assert!(got.contains(field), "{args:?}: field {got}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
}
