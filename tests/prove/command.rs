//! `sow solve '<kiothi position>'` through the built binary: the JSON
//! contract, the human output, interrupted proofs and refusals.

use std::process::{Command, Output};

use serde_json::Value;

/// Six plies before the end of an engine game.
const LATE: &str = "kiothi 0,0,0,0,0,0,0,1,1,1,0,0,0,0,0,0,0,1,1,1 S play 29 25";
/// Twelve plies before the end of an engine game (about 500,000 nodes).
const HARDER: &str = "kiothi 0,1,0,1,0,0,2,1,3,2,1,2,1,4,0,1,0,2,0,1 S play 24 14";

/// A board of seven warriors, and a line of best play from it to the end:
/// every position of it lies in the endgame tables of 0-7 warriors.
const TABLE_GAME_START: &str = "kiothi 0,0,0,0,2,0,0,1,0,0,0,0,1,0,0,1,0,2,0,0 N play 28 25";
const TABLE_GAME_MOVES: &str =
    "12x1 4x2 15x1 5x1 17x1 7x1 18x1 6x1 17x1 8x1 16x1 7x1 19x1 0x1 17x1 9x1 10x1";

/// Twenty plies of (searched) best play from `HARDER`.
const HARDER_GAME_MOVES: &str =
    "1x1 13x3 9x1 11x3 8x3 16x1 6x2 19x1 9x2 13x3 0x1 15x3 7x2 16x2 8x1 17x2 9x1 18x2 0x1 17x1";

/// The prisoners of `side` ("S" or "N") in a position's notation (the
/// last two fields: South's, then North's).
fn prisoners(position: &Value, side: &Value) -> i64 {
    let fields: Vec<&str> = position.as_str().unwrap().split(' ').collect();
    let at = fields.len() - if side == "S" { 2 } else { 1 };
    fields[at].parse().unwrap()
}

/// `sow --json analyze` of the game `start` then `moves`, with the tables
/// in `db` and `seconds` per position.
fn analyze(start: &str, moves: &str, db: &str, seconds: &str) -> Value {
    let game = std::env::temp_dir().join(format!(
        "sow-cli-prove-game-{}-{}.txt",
        std::process::id(),
        moves.len()
    ));
    std::fs::write(&game, format!("{start}\n{moves}\n")).unwrap();
    let path = game.to_str().unwrap();
    let a = json_of(&sow(&[
        "--json", "analyze", path, "--db", db, "--time", seconds,
    ]));
    std::fs::remove_file(&game).unwrap();
    a
}

/// The built `sow`, with a database directory that holds no endgame
/// tables (whatever the machine's default one holds).
fn sow_command() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sow"));
    c.env(
        "SOW_DB",
        std::env::temp_dir().join("sow-cli-prove-no-tables"),
    );
    c
}

fn sow(args: &[&str]) -> Output {
    sow_command().args(args).output().expect("run sow")
}

fn json_of(o: &Output) -> Value {
    let text = String::from_utf8(o.stdout.clone()).unwrap();
    assert_eq!(text.lines().count(), 1, "one JSON object: {text}");
    serde_json::from_str(&text).unwrap()
}

#[test]
fn solve_kiothi_gives_the_contract_keys() {
    let o = sow(&["--json", "solve", LATE]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v = json_of(&o);
    for key in [
        "position", "value", "best", "pv", "exact", "nodes", "seconds", "lower", "upper",
    ] {
        assert!(v.get(key).is_some(), "missing {key} in {v}");
    }
    assert_eq!(v["position"], LATE);
    assert_eq!(v["exact"], true);
    assert_eq!(v["value"], v["lower"]);
    assert_eq!(v["lower"], v["upper"]);
    assert_eq!(v["pv"][0], v["best"]);
    // The human output gives the same value.
    let o = sow(&["solve", LATE]);
    let text = String::from_utf8(o.stdout).unwrap();
    let value = v["value"].as_i64().unwrap();
    assert!(
        text.contains(&format!("value    {value:+} for South to move (exact")),
        "{text}"
    );
}

#[test]
fn a_node_cap_gives_proved_bounds() {
    let full = json_of(&sow(&["--json", "solve", HARDER]));
    let exact = full["value"].as_i64().unwrap();
    assert_bounds_narrow_to(&full, exact, exact);
    let v = json_of(&sow(&["--json", "solve", "--nodes", "2000", HARDER]));
    assert_eq!(v["exact"], false, "{v}");
    assert_eq!(v["value"], Value::Null);
    assert_eq!(v["interrupted"], true);
    let (lo, hi) = (v["lower"].as_i64().unwrap(), v["upper"].as_i64().unwrap());
    assert!(lo <= exact && exact <= hi, "{exact} outside [{lo}, {hi}]");
}

/// `bounds`: every entry narrows the interval before it, in time order,
/// the last is the proof's final interval.
fn assert_bounds_narrow_to(v: &Value, lower: i64, upper: i64) {
    let steps = v["bounds"]
        .as_array()
        .unwrap_or_else(|| panic!("no bounds in {v}"));
    assert!(!steps.is_empty(), "{v}");
    let field = |s: &Value, k: &str| s[k].as_f64().unwrap_or_else(|| panic!("{k} in {s}"));
    for pair in steps.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        assert!(field(b, "lower") >= field(a, "lower"), "{a} then {b}");
        assert!(field(b, "upper") <= field(a, "upper"), "{a} then {b}");
        assert!(
            field(b, "lower") > field(a, "lower") || field(b, "upper") < field(a, "upper"),
            "{b} does not narrow {a}"
        );
        assert!(field(b, "seconds") >= field(a, "seconds"), "{a} then {b}");
        assert!(field(b, "nodes") >= field(a, "nodes"), "{a} then {b}");
    }
    let last = steps.last().unwrap();
    assert_eq!(
        (field(last, "lower"), field(last, "upper")),
        (lower as f64, upper as f64)
    );
}

#[test]
fn verify_checks_the_proved_bounds_by_a_certificate() {
    // Exact: the certificate holds the value, from positions down to the
    // game's end; on a terminal the same line as the JSON.
    let v = json_of(&sow(&["--json", "solve", "--verify", HARDER]));
    let exact = v["value"].as_i64().unwrap();
    let c = &v["verified"];
    assert_eq!(
        (&c["lower"], &c["upper"]),
        (&v["value"], &v["value"]),
        "{v}"
    );
    assert!(c["positions"].as_u64().unwrap() > 100, "{c}");
    assert!(c["game_ends"].as_u64().unwrap() > 0, "{c}");
    assert_eq!(c["table_leaves"], 0, "no tables here: {c}");
    let text = String::from_utf8(sow(&["solve", "--verify", HARDER]).stdout).unwrap();
    // (Its size varies with what the two threads' proof left in the table.)
    let line = format!("verified [{exact:+}, {exact:+}] by a certificate of ");
    assert!(text.contains(&line), "{text}");
    // Stopped by a node cap: the bounds reached are what is checked.
    let v = json_of(&sow(&[
        "--json", "solve", "--verify", "--nodes", "2000", HARDER,
    ]));
    assert_eq!(v["exact"], false, "{v}");
    assert_eq!(v["verified"]["lower"], v["lower"]);
    assert_eq!(v["verified"]["upper"], v["upper"]);
    // Without the flag: null. For the tables or Kpé: refused.
    assert_eq!(
        json_of(&sow(&["--json", "solve", LATE]))["verified"],
        Value::Null
    );
    let o = sow(&["--json", "solve", "--verify", "kiothi", "--stones", "2"]);
    assert_refused(
        &o,
        "verify",
        "--verify is for the proof of a Kiothi position",
    );
    let o = sow(&["--json", "solve", "--verify", "kpe"]);
    assert_refused(&o, "verify", "--verify is for Kiothi");
}

#[test]
fn openings_and_bad_limits_are_refused() {
    let start = "kiothi 0,0,0,0,5,5,5,5,5,5,0,0,0,0,5,5,5,5,5,5 S opening";
    let o = sow(&["--json", "solve", start]);
    assert_eq!(o.status.code(), Some(2));
    let v = json_of(&o);
    assert_eq!(v["error"]["kind"], "unsupported");
    assert_eq!(v["error"]["field"], "position");
    for (args, field) in [
        (vec!["solve", "--time", "0", LATE], "time"),
        (vec!["solve", "--nodes", "0", LATE], "nodes"),
        (vec!["solve", "--hash", "0", LATE], "hash"),
        // More than any machine's memory (it overflowed the table's size).
        (
            vec!["solve", "--hash", "18446744073709551615", LATE],
            "hash",
        ),
        (vec!["solve", "kiothi 1,2 S play"], "counts"),
        (vec!["solve", "--stones", "16", "kiothi"], "stones"),
        (vec!["solve", "--stones", "x", LATE], "stones"),
        (vec!["solve", "--stones", "5", "kpe:2x2"], "stones"),
    ] {
        let mut all = vec!["--json"];
        all.extend(args);
        let o = sow(&all);
        assert_eq!(o.status.code(), Some(2), "{all:?}");
        assert_eq!(json_of(&o)["error"]["field"], field, "{all:?}");
    }
}

#[test]
fn one_thread_proves_the_same_way_node_for_node() {
    // On one thread nothing depends on timing: two runs give the same
    // value, line, bounds and node counts.
    let run = || json_of(&sow(&["--json", "solve", "--threads", "1", HARDER]));
    let (a, b) = (run(), run());
    assert_eq!(a["exact"], true, "{a}");
    for key in ["value", "best", "pv", "nodes", "depth"] {
        assert_eq!(a[key], b[key], "{key}");
    }
    let narrowing = |r: &Value| -> Vec<Value> {
        let steps = r["bounds"].as_array().unwrap().iter();
        steps
            .map(|s| serde_json::json!([s["lower"], s["upper"], s["nodes"]]))
            .collect()
    };
    assert_eq!(narrowing(&a), narrowing(&b));
}

/// A refusal (exit 2) naming `field`, its message saying `says`.
fn assert_refused(o: &Output, field: &str, says: &str) {
    assert_eq!(o.status.code(), Some(2));
    let e = &json_of(o)["error"];
    assert_eq!(e["field"], field, "{e}");
    assert!(e["message"].as_str().unwrap().contains(says), "{e}");
}

#[test]
fn endgame_tables_are_built_reused_and_used_by_proofs() {
    let db = std::env::temp_dir().join(format!("sow-cli-prove-tables-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&db);
    let db_arg = db.to_str().unwrap();
    let built = json_of(&sow(&[
        "--json", "solve", "kiothi", "--stones", "6", "--db", db_arg,
    ]));
    let solved = built["solved"].as_array().unwrap();
    assert_eq!(solved.len(), 7, "{built}");
    // C(6 + 19, 19) boards of six warriors over 20 pits.
    assert_eq!(solved[6]["boards"], 177_100);
    assert_eq!(built["reused"], serde_json::json!([]));
    // One more stone count: the six are read back, not solved again.
    let more = json_of(&sow(&[
        "--json", "solve", "kiothi", "--stones", "7", "--db", db_arg,
    ]));
    assert_eq!(more["reused"], serde_json::json!([0, 1, 2, 3, 4, 5, 6]));
    assert_eq!(more["solved"][0]["stones"], 7);
    assert_eq!(more["solved"].as_array().unwrap().len(), 1);

    // A proof with the tables: the same value as without, fewer nodes.
    // One thread, so that the node counts are deterministic: with two,
    // the threads' timing can make either proof the larger.
    for pos in [LATE, HARDER] {
        let plain = json_of(&sow(&["--json", "solve", pos, "--threads", "1"]));
        let with = json_of(&sow(&[
            "--json",
            "solve",
            pos,
            "--threads",
            "1",
            "--db",
            db_arg,
        ]));
        assert_eq!(plain["endgame_stones"], Value::Null);
        assert_eq!(with["endgame_stones"], 7);
        assert_eq!(with["exact"], true);
        assert_eq!(with["value"], plain["value"], "{pos}");
        assert!(
            with["nodes"].as_u64() < plain["nodes"].as_u64(),
            "{with} {plain}"
        );
        assert_eq!(with["pv"][0], with["best"]);
    }
    // --stones limits the tables a proof takes.
    let four = json_of(&sow(&[
        "--json", "solve", HARDER, "--db", db_arg, "--stones", "4",
    ]));
    assert_eq!(four["endgame_stones"], 4);

    // The engine search (`eval`) takes them too: exact, the proved value.
    // One thread: without tables the search is exact from depth 59 on;
    // two threads' timing moves that depth either way, past 60 in 3 runs
    // of 120 (a flaky test before).
    let proved = json_of(&sow(&["--json", "solve", HARDER]));
    for db in [Some(db_arg), None] {
        let mut args = vec!["--json", "--threads", "1", "eval", HARDER, "--depth", "60"];
        args.extend(db.iter().flat_map(|d| ["--db", d]));
        let e = json_of(&sow(&args));
        assert_eq!(e["exact"], true, "{e}");
        assert_eq!(e["value"], proved["value"], "{e}");
        assert_eq!(
            e["endgame_stones"],
            if db.is_some() {
                Value::from(7)
            } else {
                Value::Null
            }
        );
    }
    // With --multipv, a move valued by the tables gets its line through
    // them: legal, value-keeping, to the end of the game here.
    let m = json_of(&sow(&[
        "--json",
        "eval",
        TABLE_GAME_START,
        "--db",
        db_arg,
        "--depth",
        "1",
        "--multipv",
        "3",
    ]));
    for entry in m["moves"].as_array().unwrap() {
        assert_eq!(entry["exact"], true, "{entry}");
        let line: Vec<&str> = entry["pv"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let mut args = vec!["--json", "apply", TABLE_GAME_START];
        args.extend(&line);
        let after = sow(&args);
        assert!(after.status.success(), "{entry}");
    }
    assert_eq!(
        m["moves"][0]["pv"].as_array().unwrap().len(),
        TABLE_GAME_MOVES.split(' ').count(),
        "{m}"
    );

    // And `analyze`: a game that stays within the tables is exact at every
    // ply, whatever the time, with the values the prover gives.
    let a = analyze(TABLE_GAME_START, TABLE_GAME_MOVES, db_arg, "0.01");
    assert!(
        a["method"]
            .as_str()
            .unwrap()
            .contains("endgame tables of 0-7 warriors"),
        "{a}"
    );
    let plies = a["plies"].as_array().unwrap();
    assert_eq!(plies.len(), TABLE_GAME_MOVES.split(' ').count());
    for ply in plies {
        assert_eq!(ply["exact"], true, "{ply}");
        let proof = json_of(&sow(&[
            "--json",
            "solve",
            ply["position"].as_str().unwrap(),
        ]));
        assert_eq!(ply["value"], proof["value"], "{ply}");
    }
    // A game from above the tables: its later positions are proved first
    // (through the tables), and a move into a proved position is worth
    // exactly its captures minus that position's value, even where the
    // search of the move alone stopped short.
    let a = analyze(HARDER, HARDER_GAME_MOVES, db_arg, "0.05");
    let plies = a["plies"].as_array().unwrap();
    let mut checked = 0;
    for pair in plies.windows(2) {
        if pair[1]["exact"] == true {
            let gain = prisoners(&pair[1]["position"], &pair[0]["side"])
                - prisoners(&pair[0]["position"], &pair[0]["side"]);
            let want = gain - pair[1]["value"].as_i64().unwrap();
            assert_eq!(pair[0]["played"], want, "{}", pair[0]);
            checked += 1;
        }
    }
    assert!(checked > 0, "{a}");

    // A damaged table is refused, naming its file.
    let file = db.join("kiothi-endgame").join("stones-05.sowdb");
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&file, bytes).unwrap();
    let o = sow(&["--json", "solve", LATE, "--db", db_arg]);
    assert_refused(&o, "db", "stones-05.sowdb");
    std::fs::remove_dir_all(&db).unwrap();
}

#[test]
fn tables_that_cannot_fit_are_refused_before_any_work() {
    let db = std::env::temp_dir().join(format!("sow-cli-prove-refused-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&db);
    let o = sow_command()
        .args(["--json", "solve", "kiothi", "--stones", "12", "--db"])
        .arg(&db)
        .env("SOW_MEMORY_MIB", "1000")
        .output()
        .expect("run sow");
    assert_refused(&o, "stones", "GiB of memory");
    assert!(!db.join("kiothi-endgame").exists(), "nothing written");
}

/// `--keep FILE`: a proof stopped by `--nodes` writes its bounds to FILE,
/// the next run reads them and finishes the proof, and a run after that
/// finds the root proved without a node; a damaged FILE is refused (exit
/// 2, field `keep`) and left as it was.
#[test]
fn kept_bounds_carry_a_proof_over_from_one_run_to_the_next() {
    let file = std::env::temp_dir().join(format!("sow-cli-prove-kept-{}.bnd", std::process::id()));
    let _ = std::fs::remove_file(&file);
    let path = file.to_str().unwrap();
    let fresh = json_of(&sow(&["--json", "--threads", "1", "solve", HARDER]));
    let exact = fresh["value"].as_i64().unwrap();
    assert!(fresh["kept"].is_null(), "{fresh}");

    let run = |extra: &[&str]| {
        let mut args = vec!["--json", "--threads", "1", "solve", "--keep", path];
        args.extend_from_slice(extra);
        args.push(HARDER);
        json_of(&sow(&args))
    };
    let stopped = run(&["--nodes", "5000"]);
    assert_eq!(stopped["exact"], false, "{stopped}");
    assert_eq!(stopped["kept"]["read"], 0, "{stopped}");
    let written = stopped["kept"]["written"].as_u64().unwrap();
    assert!(written > 0, "{stopped}");
    assert_eq!(
        std::fs::metadata(&file).unwrap().len(),
        40 + 16 * written,
        "a header, the entries, the count and the checksum"
    );

    let finished = run(&[]);
    assert_eq!(finished["value"].as_i64(), Some(exact), "{finished}");
    assert_eq!(finished["kept"]["read"].as_u64(), Some(written));

    let again = run(&[]);
    assert_eq!(again["value"].as_i64(), Some(exact), "{again}");
    assert_eq!(
        again["nodes"], 0,
        "the root's exact value was kept: {again}"
    );
    assert_eq!(again["best"], finished["best"]);

    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, &bytes[..bytes.len() - 1]).unwrap();
    let o = sow(&["--json", "solve", "--keep", path, HARDER]);
    assert_refused(&o, "keep", "truncated or damaged");
    assert_eq!(std::fs::read(&file).unwrap(), bytes[..bytes.len() - 1]);
    std::fs::remove_file(&file).unwrap();

    let o = sow(&["--json", "solve", "--keep", path, "kpe"]);
    assert_refused(&o, "keep", "--keep is for Kiothi");
    // Refused before the proof when the disk cannot take the whole table.
    let o = sow_command()
        .env("SOW_DISK_MIB", "1")
        .args(["--json", "solve", "--keep", path, HARDER])
        .output()
        .unwrap();
    assert_refused(&o, "keep", "MiB free there");
    assert!(!file.exists());
}
