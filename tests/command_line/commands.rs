//! Runs the built `sow` binary: human and JSON output of every command, the
//! output and error contracts, and RULES §4's perft figures.

use std::process::Output;

use crate::common::sow;

use serde_json::Value;

const START: &str = "kpe 6,6,6,6,6,6,6,6 S .... .... 0 0";

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// Runs a command that must succeed and returns its stdout.
fn ok(args: &[&str]) -> String {
    let o = sow(args);
    assert!(o.status.success(), "{args:?} failed: {}", stderr(&o));
    assert!(
        stderr(&o).is_empty(),
        "{args:?} wrote to stderr: {}",
        stderr(&o)
    );
    stdout(&o)
}

/// Runs a `--json` command that must succeed: exactly one JSON object.
fn ok_json(args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = ok(&all);
    assert_eq!(out.lines().count(), 1, "one line of JSON: {out}");
    let v: Value = serde_json::from_str(&out).expect("valid JSON");
    assert!(v.is_object());
    v
}

/// Runs a command that must be refused by the error contract; returns the
/// stderr line and, with `--json`, the error object.
fn refused(args: &[&str]) -> (String, Value) {
    let o = sow(args);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "one line on stderr: {err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let mut json = vec!["--json"];
    json.extend_from_slice(args);
    let o = sow(&json);
    assert_eq!(o.status.code(), Some(2));
    assert!(!stderr(&o).contains("panicked"));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 1, "one JSON object: {out}");
    let v: Value = serde_json::from_str(&out).expect("valid JSON error");
    let e = &v["error"];
    assert!(e["kind"].is_string() && e["message"].is_string(), "{v}");
    assert!(e.get("field").is_some(), "{v}");
    (err, e.clone())
}

#[test]
fn show_human_and_json() {
    let out = ok(&["show", "kpe"]);
    assert_eq!(out.lines().next(), Some(START));
    assert!(out.contains("South to move"));
    assert!(out.contains("moves (4): 0 1 2 3"));
    // North's row on top, right to left as South sees it.
    let north = out.lines().find(|l| l.starts_with("pit")).unwrap();
    assert!(north.split_whitespace().eq(["pit", "7", "6", "5", "4"]));

    let v = ok_json(&["show", "kpe"]);
    for key in ["position", "side", "pits", "captured", "moves", "over"] {
        assert!(v.get(key).is_some(), "show --json lacks {key}: {v}");
    }
    assert_eq!(v["position"], START);
    assert_eq!(v["side"], "S");
    assert_eq!(v["pits"], serde_json::json!([6, 6, 6, 6, 6, 6, 6, 6]));
    assert_eq!(v["captured"], serde_json::json!([0, 0]));
    assert_eq!(v["moves"], serde_json::json!(["0", "1", "2", "3"]));
    assert_eq!(v["over"], false);
}

#[test]
fn show_game_over() {
    let pos = "kpe 0,0,0,0,6,6,6,6 S xxxx xxxx 12 12";
    let out = ok(&["show", pos]);
    assert!(out.contains("game over"), "{out}");
    assert!(out.contains("North wins 36 to 12"), "{out}");
    let v = ok_json(&["show", pos]);
    assert_eq!(v["over"], true);
    assert_eq!(v["sweep"], serde_json::json!([0, 24]));
    assert_eq!(v["final"], serde_json::json!([12, 36]));
    assert_eq!(v["moves"], serde_json::json!([]));
}

#[test]
fn moves_human_and_json() {
    assert_eq!(ok(&["moves", "kpe"]), "0\n1\n2\n3\n");
    assert_eq!(ok(&["moves", "--all", "kpe:3x4"]), "0\n1\n2\n");
    let v = ok_json(&["moves", "kpe 7,6,0,7,7,7,7,7 N ..x. .... 0 0"]);
    assert_eq!(v["moves"], serde_json::json!(["4", "5", "6", "7"]));
    assert_eq!(v["count"], 4);
    assert_eq!(v["position"], "kpe 7,6,0,7,7,7,7,7 N ..x. .... 0 0");
    let v = ok_json(&["moves", "--all", "kpe 0,0,0,0,6,6,6,6 S xxxx xxxx 12 12"]);
    assert_eq!(v["moves"], serde_json::json!([]));
    assert_eq!(v["count"], 0);
}

#[test]
fn apply_prints_final_position_last() {
    let out = ok(&["apply", "kpe", "2", "4", "1"]);
    assert_eq!(out.lines().count(), 4);
    assert_eq!(
        out.lines().last(),
        Some("kpe 9,0,2,9,1,9,9,9 N .xx. x... 0 0")
    );
    let quiet = ok(&["apply", "--quiet", "kpe", "2", "4", "1"]);
    assert_eq!(quiet, "kpe 9,0,2,9,1,9,9,9 N .xx. x... 0 0\n");

    let v = ok_json(&["apply", "kpe", "2", "4"]);
    assert_eq!(
        v["positions"],
        serde_json::json!([
            "kpe 7,6,0,7,7,7,7,7 N ..x. .... 0 0",
            "kpe 8,7,1,8,0,8,8,8 S ..x. x... 0 0"
        ])
    );
    assert_eq!(v["final"], "kpe 8,7,1,8,0,8,8,8 S ..x. x... 0 0");
    // A printed position parses back to itself.
    let again = ok(&["apply", "-q", "kpe 8,7,1,8,0,8,8,8 S ..x. x... 0 0", "0"]);
    let direct = ok(&["apply", "-q", "kpe", "2", "4", "0"]);
    assert_eq!(again, direct);
}

#[test]
fn apply_stops_at_an_illegal_move_with_its_index() {
    let o = sow(&["apply", "kpe", "2", "1", "3"]);
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    assert_eq!(
        out.lines().count(),
        1,
        "only the first move was played: {out}"
    );
    let err = stderr(&o);
    assert!(err.contains("move 2 of 3"), "{err}");
    assert!(err.contains("not in North's row"), "{err}");

    let (_, e) = refused(&["apply", "kpe", "2", "1", "3"]);
    assert_eq!(e["kind"], "illegal_move");
    assert_eq!(e["field"], "move");
    assert_eq!(e["index"], 2);

    let (err, e) = refused(&["apply", "kpe", "0", "4", "x"]);
    assert!(err.contains("move 3 of 3"), "{err}");
    assert_eq!(e["kind"], "malformed");
    assert_eq!(e["index"], 3);
}

#[test]
fn perft_matches_rules_figures() {
    let expected = [4u64, 16, 64, 241, 952, 3731, 14332, 54959];
    for (d, n) in expected.iter().enumerate() {
        let depth = (d + 1).to_string();
        assert_eq!(
            ok(&["perft", "-q", "kpe", &depth]).trim(),
            n.to_string(),
            "depth {depth}"
        );
    }
    let out = ok(&["perft", "kpe", "5"]);
    assert!(out.contains("nodes    952"), "{out}");
    assert!(out.contains("nps"), "{out}");

    let v = ok_json(&["perft", "kpe", "8"]);
    assert_eq!(v["nodes"], 54959);
    assert_eq!(v["depth"], 8);
    assert_eq!(v["position"], START);
    assert!(v.get("divide").is_none());
    assert!(v["seconds"].is_number() && v["nps"].is_number());
}

#[test]
fn perft_divide_and_threads() {
    let v = ok_json(&["--threads", "1", "perft", "--divide", "kpe", "5"]);
    let divide = v["divide"].as_array().unwrap();
    assert_eq!(divide.len(), 4);
    let sum: u64 = divide.iter().map(|d| d["nodes"].as_u64().unwrap()).sum();
    assert_eq!(sum, 952);
    assert_eq!(v["nodes"], 952);
    assert!(divide.iter().all(|d| d["move"].is_string()));
    let out = ok(&["--threads", "2", "perft", "--divide", "kpe", "5"]);
    assert!(out.lines().take(4).all(|l| l.contains(": ")), "{out}");
}

#[test]
fn malformed_inputs_name_the_field() {
    let cases: &[(&[&str], &str, &str)] = &[
        (&["show", "chess"], "game", "malformed"),
        (&["show", "kiothi 1,2 S play"], "counts", "malformed"),
        (&["show", ""], "position", "malformed"),
        (&["show", "kpe 6,6,6 S .... ...."], "counts", "malformed"),
        (
            &["show", "kpe 6,6,6,6,6,6,6,6 Q .... ...."],
            "side",
            "malformed",
        ),
        (
            &["show", "kpe 6,6,6,6,6,6,6,6 S ..z. ...."],
            "S marks",
            "malformed",
        ),
        (
            &["show", "kpe 6,6,6,6,6,6,6,7 S .... ...."],
            "total",
            "impossible",
        ),
        (&["show", "kpe:9x9"], "variant", "unsupported"),
        (
            &["moves", "kpe 6,6,6,6,6,6,6,-1 S .... ...."],
            "pit 7",
            "malformed",
        ),
        (&["apply", "kpe", "9"], "move", "illegal_move"),
        (&["perft", "kpe", "abc"], "depth", "usage"),
        (&["perft", "kpe"], "depth", "usage"),
        (&["perft", "kpe", "99999"], "depth", "usage"),
        (&["--threads", "0", "perft", "kpe", "1"], "threads", "usage"),
        // A request's time limit is a `Duration`: 1e20 s overflowed it.
        (&["serve", "--max-time", "1e20"], "max-time", "usage"),
        // Every game's record is kept: the count overflowed.
        (
            &[
                "match",
                "random",
                "random",
                "--games",
                "18446744073709551615",
            ],
            "games",
            "usage",
        ),
        (&["analyze", "/nonexistent/game.txt"], "file", "io"),
    ];
    for (args, field, kind) in cases {
        let (err, e) = refused(args);
        assert_eq!(e["field"], *field, "{args:?}: {err}");
        assert_eq!(e["kind"], *kind, "{args:?}: {err}");
        assert!(
            err.to_lowercase().contains(&field.to_lowercase()),
            "{args:?}: message should name `{field}`: {err}"
        );
    }
}

#[test]
fn an_unwritable_output_is_refused_before_the_work() {
    // A directory under a regular file can never be created.
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let dir = format!("{file}/out");
    let csv = format!("{dir}/data.csv");
    let game = format!(
        "{}/sow-unwritable-{}.txt",
        std::env::temp_dir().display(),
        std::process::id()
    );
    std::fs::write(&game, "kpe\n").unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["report", "--out", &dir], "out"),
        (&["variants", "--out", &dir], "out"),
        (&["openings", "kiothi", "--out", &dir], "out"),
        (
            &["tune", "kiothi", "--games", "100000", "--data", &csv],
            "data",
        ),
        (&["tune", "kiothi", "--fit-only", "--out", &csv], "out"),
        (&["analyze", "--out", &dir, &game], "out"),
        (
            &[
                "match",
                "random",
                "random",
                "--games",
                "1000000",
                "--records",
                &csv,
            ],
            "records",
        ),
        // A device is not replaced by the file (as root it was).
        (
            &["tune", "kiothi", "--fit-only", "--out", "/dev/null"],
            "out",
        ),
    ];
    for (args, field) in cases {
        // Refused at once: each of these would otherwise work for minutes.
        let (err, e) = refused(args);
        assert_eq!(e["field"], *field, "{args:?}: {err}");
        assert_eq!(e["kind"], "io", "{args:?}: {err}");
        assert!(
            err.contains(&format!("--{field}: cannot write in")),
            "{err}"
        );
    }
}

#[test]
fn a_huge_input_is_refused_in_a_short_line() {
    // One line of 4 MB that names no game: the refusal quotes it.
    let file = format!(
        "{}/sow-huge-line-{}.txt",
        std::env::temp_dir().display(),
        std::process::id()
    );
    std::fs::write(&file, "x".repeat(4 << 20)).unwrap();
    let (err, e) = refused(&["analyze", &file]);
    std::fs::remove_file(&file).unwrap();
    assert!(err.len() < 3000, "{} bytes", err.len());
    assert!(err.contains("more characters)"), "{err}");
    assert!(e["message"].as_str().unwrap().len() < 3000);
    // An endless input is refused at its bound, as `analyze /dev/zero` is.
    let weights = format!(
        "{}/sow-weights-{}.json",
        std::env::temp_dir().display(),
        std::process::id()
    );
    let args = ["tune", "kiothi", "--fit-only", "--data", "/dev/zero"];
    let (err, e) = refused(&[&args[..], &["--out", &weights]].concat());
    assert_eq!(e["field"], "data", "{err}");
    assert!(err.contains("more than 268435456 bytes"), "{err}");
}

#[test]
fn usage_errors_exit_2_without_panic() {
    for args in [
        &["bogus"][..],
        &["show"],
        &["show", "kpe", "--bogus"],
        &["perft", "kpe", "-1"],
    ] {
        refused(args);
    }
    let help = sow(&["--help"]);
    assert!(help.status.success());
    // The search's `--hash` is one definition (`cli::args::SearchHash`)
    // with its range check, in every command that takes it.
    for cmd in [&["eval", "kiothi"][..], &["play"], &["analyze", "-"]] {
        let mut args = cmd.to_vec();
        args.extend(["--hash", "0"]);
        let (_, e) = refused(&args);
        assert_eq!(e["field"], "hash", "{args:?}");
    }
}

#[test]
fn every_command_with_a_database_describes_db_the_same_way() {
    // `--db` is one definition (`cli::paths::DbDir`): Kiothi's endgame
    // tables live in the same directory as the Kpé databases.
    for cmd in [
        "solve", "eval", "openings", "report", "variants", "stats", "export", "serve", "analyze",
        "play",
    ] {
        let help = sow(&[cmd, "--help"]);
        assert!(help.status.success(), "{cmd}");
        let text = String::from_utf8_lossy(&help.stdout);
        assert!(
            text.contains("--db <DIR>")
                && text.contains("Database directory: Kpé databases and Kiothi endgame tables"),
            "{cmd}: {text}"
        );
    }
}

/// Found by hand on 2026-12-07: a negative option value was clap's
/// "unexpected argument '-1'" (field `1`), `--max-time` below a request's
/// shortest time was accepted, and `--json` printed a script or a page.
#[test]
fn negative_values_short_limits_and_non_json_output_are_refused_by_name() {
    let cases: &[(&[&str], &str)] = &[
        (&["eval", "kiothi", "--time", "-1"], "time"),
        (&["perft", "kpe", "-3"], "depth"),
        (&["--threads", "-1", "show", "kpe"], "threads"),
        (&["eval", "kiothi", "--hash", "-5"], "hash"),
        (&["serve", "--max-time", "0.0001"], "max-time"),
        (&["completions", "bash"], "json"),
        (&["man"], "json"),
    ];
    for (args, field) in cases {
        let mut json = vec!["--json"];
        json.extend_from_slice(args);
        let e = crate::common::error_of(&sow(&json));
        assert_eq!(e["field"], *field, "{args:?}: {e}");
    }
    // Without --json the page and the script still print.
    assert!(sow(&["man"]).status.success());
    assert!(sow(&["completions", "bash"]).status.success());
}

/// `std::env::args` panicked on an argument that is not UTF-8 (exit 101).
#[cfg(unix)]
#[test]
fn an_argument_that_is_not_utf8_is_a_usage_error() {
    use std::os::unix::ffi::OsStrExt;
    let bad = std::ffi::OsStr::from_bytes(b"\xff");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_sow"))
        .args(["--json".as_ref(), "show".as_ref(), bad])
        .output()
        .expect("run sow");
    let e = crate::common::error_of(&o);
    assert_eq!(e["kind"], "usage", "{e}");
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
}

/// `result` is the game's: South to move gains 2 but is 8 behind, so it
/// loses (it said "win" from the value alone). A one-warrior victory is
/// Kiothi's and only when proven (an estimate's 2-ply line said it).
#[test]
fn eval_names_the_games_result_and_one_warrior_victories_only_when_proven() {
    let db = crate::common::temp_dir("eval-result", "db");
    let db = db.to_str().unwrap();
    let v = crate::common::json_of(&sow(&[
        "--json",
        "eval",
        "kpe:3x3 2,0,0,0,0,0 S xxx xxx 4 12",
        "--db",
        db,
    ]));
    assert_eq!(
        (v["value"].as_i64(), v["final_margin"].as_i64()),
        (Some(2), Some(-6)),
        "{v}"
    );
    assert_eq!(v["result"], "loss", "{v}");
    let estimate = "kiothi 3*,2*,2*,2*,1*,1*,6*,6*,6*,6*,1*,1*,1*,1*,0,0,5*,5*,5*,6* S play 0 0";
    let v = crate::common::json_of(&sow(&[
        "--json",
        "--threads",
        "1",
        "eval",
        estimate,
        "--depth",
        "2",
    ]));
    assert_eq!(
        (v["exact"].as_bool(), v["final_margin"].as_i64()),
        (Some(false), Some(2)),
        "{v}"
    );
    assert_eq!(v["one_warrior_victory"], false, "{v}");
    let kpe = "kpe 4,0,0,0,0,0,0,0 S xxxx xxxx 22 22";
    let v = crate::common::json_of(&sow(&["--json", "eval", kpe, "--depth", "30"]));
    assert_eq!(v["one_warrior_victory"], false, "{v}");
    let over = "kiothi 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 S play 31 29";
    let v = crate::common::json_of(&sow(&["--json", "eval", over]));
    assert_eq!(v["one_warrior_victory"], true, "{v}");
}

/// `--quiet` prints only the essential result: `show`, `eval` and `solve`
/// printed everything (found by hand on 2026-12-07).
#[test]
fn quiet_show_eval_and_solve_print_only_the_result() {
    let db = crate::common::temp_dir("quiet", "db");
    let db = db.to_str().unwrap();
    let lines = |args: &[&str]| {
        let o = sow(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        stdout(&o).lines().map(str::to_string).collect::<Vec<_>>()
    };
    let show = lines(&["-q", "show", "kpe"]);
    assert!(!show.iter().any(|l| l.starts_with("moves")), "{show:?}");
    assert!(show.iter().any(|l| l == "South to move"), "{show:?}");
    for args in [
        &["-q", "eval", "kpe:2x2", "--db", db][..],
        &[
            "-q",
            "--threads",
            "1",
            "eval",
            "kiothi 0,0,0,0,0,0,0,0,0,2,1,0,0,0,0,0,3,0,0,0 S play 30 24",
            "--depth",
            "4",
        ],
        &[
            "-q",
            "solve",
            "kiothi 0,0,0,0,0,0,0,0,0,2,1,0,0,0,0,0,3,0,0,0 S play 30 24",
        ],
    ] {
        let out = lines(args);
        assert_eq!(out.len(), 2, "{args:?}: {out:?}");
        assert!(
            out[0].starts_with("value ") && out[1].starts_with("best "),
            "{args:?}: {out:?}"
        );
    }
}

#[test]
fn match_refuses_flags_it_would_ignore_and_names_the_agent() {
    // 4294967295 random plies played every game to its end at random.
    let (err, e) = refused(&["match", "random", "greedy", "--opening-plies", "4294967295"]);
    assert_eq!(e["field"], "opening-plies", "{err}");
    assert!(err.contains("at most 100"), "{err}");
    // --time applies to a plain `ab` only: with none it did nothing.
    let (err, e) = refused(&["match", "ab:depth=1", "greedy", "--time", "0.01"]);
    assert_eq!(e["field"], "time", "{err}");
    // --balance-depth without --balance balances nothing.
    let (err, e) = refused(&["match", "random", "greedy", "--balance-depth", "0"]);
    assert_eq!(e["field"], "balance-depth", "{err}");
    // Which agent is wrong, and an agent's threads= is not --threads.
    let (err, e) = refused(&["match", "random", "ab:depth=1,threads=0"]);
    assert_eq!(e["field"], "agent", "{err}");
    assert!(err.contains("agent B (`ab:depth=1,threads=0`)"), "{err}");
    assert!(err.contains("ab threads must be at least 1"), "{err}");
    assert!(!err.contains("--threads"), "{err}");
    let (err, _) = refused(&["match", "nope", "random"]);
    assert!(err.contains("agent A (`nope`)"), "{err}");
}

#[test]
fn openings_and_stats_list_every_game_they_take() {
    for cmd in ["openings", "stats"] {
        let (err, e) = refused(&[cmd, "nope"]);
        assert_eq!(e["field"], "game", "{err}");
        assert!(
            err.contains("`kpe`, `kpe:WxK` (W 2-8, K 1-8), `kiothi` or `kiothi:five`"),
            "{cmd}: {err}"
        );
    }
    // `--db` serves Kpé only: for Kiothi it was silently ignored.
    let (err, e) = refused(&[
        "stats",
        "kiothi",
        "--games",
        "1",
        "--depth",
        "1",
        "--db",
        "/nonexistent/zzz",
    ]);
    assert_eq!(e["field"], "db", "{err}");
}

#[test]
fn a_refused_command_leaves_no_output_directory() {
    let tmp = crate::common::temp_dir("cli", "no-empty-dirs");
    let out = tmp.join("out");
    let out_arg = out.to_str().unwrap();
    // An empty table was written and the command exited 0.
    let (err, e) = refused(&["variants", "--max-positions", "0", "--out", out_arg]);
    assert_eq!(e["field"], "max-positions", "{err}");
    assert!(!out.exists());
    let missing = tmp.join("no-db");
    let (_, e) = refused(&[
        "openings",
        "kpe",
        "--db",
        missing.to_str().unwrap(),
        "--out",
        out_arg,
    ]);
    assert_eq!(e["field"], "db");
    assert!(!out.exists());
    // A database directory that cannot be made is an I/O error naming it,
    // not a shortage of disk (`/proc` has 0 bytes free).
    let (err, e) = refused(&[
        "variants",
        "--max-positions",
        "1000",
        "--db",
        "/proc/sow-x",
        "--out",
        out_arg,
    ]);
    assert_eq!(e["field"], "db", "{err}");
    assert!(err.contains("/proc/sow-x/kpe-2x1"), "{err}");
    assert!(!err.contains("GiB"), "{err}");
    assert!(!out.exists());
    let (err, _) = refused(&["solve", "kpe:2x2", "--db", "/proc/sow-nope"]);
    assert!(
        err.contains("cannot create the database directory"),
        "{err}"
    );
    // An --out that is a file is not a directory ("File exists" before).
    let file = tmp.join("afile");
    std::fs::write(&file, "x").unwrap();
    for path in [file.to_str().unwrap(), "/dev/null"] {
        let (err, e) = refused(&["variants", "--out", path]);
        assert_eq!(e["field"], "out", "{err}");
        assert!(
            err.ends_with(&format!("{path}: not a directory\n")),
            "{err}"
        );
    }
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn variants_links_the_larger_page_only_where_it_is() {
    let tmp = crate::common::temp_dir("cli", "variants-link");
    let db = tmp.join("db");
    let out = tmp.join("out");
    let args = [
        "--quiet",
        "variants",
        "--max-positions",
        "50",
        "--db",
        db.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    ok(&args);
    let page = std::fs::read_to_string(out.join("kpe/variants.md")).unwrap();
    assert!(page.contains("| 2×1 |"), "{page}");
    assert!(!page.contains("larger-variants.md"), "{page}");
    std::fs::write(out.join("kpe/larger-variants.md"), "# larger\n").unwrap();
    ok(&args);
    let page = std::fs::read_to_string(out.join("kpe/variants.md")).unwrap();
    assert!(page.contains("[larger-variants.md](larger-variants.md)"));
    std::fs::remove_dir_all(&tmp).unwrap();
}
