//! `sow analyze`, `sow play` and `sow eval`'s finished positions and
//! `--multipv`, through the binary, checked against values computed here:
//! the Kpé solver's database in memory, and an exhaustive minimax.

use crate::common::{error_of, json_of, sow};

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::Value;
use sow::games::kpe::{parse_position, KpeMove, KpePosition};
use sow::infra::progress::Progress;
use sow::kpe_db::Solution;
use sow::record::GameRecord;
use sow::{Game, Side};

fn temp(name: &str) -> PathBuf {
    crate::common::temp_dir("analyze", name)
}

/// `sow --json analyze FILE --db DIR`, parsed.
fn analyze(file: &str, db: &std::path::Path) -> Value {
    json_of(&sow(&[
        "--json",
        "analyze",
        file,
        "--db",
        db.to_str().unwrap(),
    ]))
}

/// Writes a game as a start line and one move per line.
fn game_file(dir: &std::path::Path, start: &KpePosition, moves: &[KpeMove]) -> String {
    let mut text = format!("{start}\n");
    for m in moves {
        text += &format!("{m}\n");
    }
    let path = dir.join("game.txt");
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// Exact move values from the in-memory solution.
fn values(solution: &Solution, pos: &KpePosition) -> Vec<(KpeMove, i32)> {
    solution.move_values(pos, None).unwrap()
}

/// Perfect play from `start` (the first best move) until the game ends or
/// `cap` plies, planting `planted` at ply `at` (1-based) if given.
fn perfect_game(
    solution: &Solution,
    start: KpePosition,
    cap: usize,
    plant: Option<(usize, KpeMove)>,
) -> Vec<KpeMove> {
    let mut record = GameRecord::new(start);
    while !record.is_finished() && record.moves().len() < cap {
        let ply = record.moves().len() + 1;
        let mv = match plant {
            Some((at, mv)) if at == ply => mv,
            _ => values(solution, record.current())[0].0,
        };
        record.push(mv).unwrap();
    }
    record.moves().to_vec()
}

#[test]
fn a_planted_kpe_blunder_is_marked_with_its_loss_and_best_move() {
    let start = parse_position("kpe:3x3").unwrap();
    let solution = Solution::in_memory(start.variant(), Progress::Hidden);
    // Along the perfect line, the first position with a move losing 6 or
    // more stones (README: `??` from 6 in exact values).
    let line = perfect_game(&solution, start, 60, None);
    let mut pos = start;
    let mut plant = None;
    for (i, mv) in line.iter().enumerate() {
        let v = values(&solution, &pos);
        let best = v[0].1;
        if let Some(&(worst, wv)) = v.iter().find(|(_, x)| best - x >= 6) {
            let bests: Vec<String> = v
                .iter()
                .filter(|(_, x)| *x == best)
                .map(|(m, _)| m.to_string())
                .collect();
            plant = Some((i + 1, worst, best - wv, bests));
            break;
        }
        pos = pos.play_unchecked(mv);
    }
    let (at, worst, loss, bests) = plant.expect("a blunder to plant along the line");
    let moves = perfect_game(&solution, start, 40, Some((at, worst)));
    let dir = temp("blunder");
    let file = game_file(&dir, &start, &moves);
    let v = analyze(&file, &dir);
    let plies = v["plies"].as_array().unwrap();
    assert_eq!(plies.len(), moves.len());
    for p in plies {
        let n = p["ply"].as_u64().unwrap() as usize;
        if n == at {
            assert_eq!(p["mark"], "??", "{p}");
            assert_eq!(p["loss"], loss, "{p}");
            assert_eq!(p["move"], worst.to_string());
            let best: Vec<&str> = p["best"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b.as_str().unwrap())
                .collect();
            assert_eq!(best, bests);
            assert_eq!(p["exact"], true);
        } else {
            assert_eq!(p["loss"], 0, "only the planted move loses: {p}");
            assert!(p["mark"].is_null() || p["mark"] == "!", "{p}");
        }
    }
    let side = if at % 2 == 1 { "S" } else { "N" };
    assert_eq!(v["players"][side]["marks"]["??"], 1);
    assert!(v["players"][side]["value_keeping"].as_f64().unwrap() < 1.0);
    for key in ["game", "start", "plies", "players", "decided_at"] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_game_of_perfect_moves_keeps_the_value_throughout() {
    let start = parse_position("kpe:3x3").unwrap();
    let solution = Solution::in_memory(start.variant(), Progress::Hidden);
    let moves = perfect_game(&solution, start, 200, None);
    let dir = temp("perfect");
    let file = game_file(&dir, &start, &moves);
    let v = analyze(&file, &dir);
    for side in ["S", "N"] {
        let p = &v["players"][side];
        assert_eq!(p["value_keeping"], 1.0, "{p}");
        assert_eq!(p["mean_loss"], 0.0);
        for mark in ["??", "?", "?!"] {
            assert_eq!(p["marks"][mark], 0);
        }
    }
    // Perfect play in kpe:3x3 is endless: the game ends by repetition, a
    // draw, and the start's value (0) gave it from the start.
    assert_eq!(v["ending"]["end"], "repetition");
    assert_eq!(v["decided_at"], 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_match_record_names_its_start_so_a_variant_game_needs_no_start_flag() {
    let dir = temp("match-record");
    let records = dir.join("games.jsonl");
    let o = sow(&[
        "match",
        "greedy",
        "random",
        "--game",
        "kpe:3x3",
        "--games",
        "2",
        "--records",
        records.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&records).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["start"], "kpe:3x3 3,3,3,3,3,3 S ... ... 0 0");
    // Without `start` in the record, none of the guessed starts (kiothi,
    // kiothi:five, kpe) replays a kpe:3x3 game and `--start` was needed.
    let v = analyze(records.to_str().unwrap(), &dir);
    assert_eq!(v["start"], first["start"]);
    assert_eq!(v["plies"].as_array().unwrap().len() as u64, first["plies"]);
    assert_eq!(v["opening_plies"], 4);
    let _ = std::fs::remove_dir_all(&dir);
}

/// RULES §0 value by exhaustive negamax: a position already on the line
/// scores 0 (endless play), the end of the game its sweep.
fn negamax(pos: &KpePosition, path: &mut Vec<KpePosition>) -> i32 {
    if pos.is_over() {
        return pos.terminal_value();
    }
    let key = pos.repetition_key();
    if path.contains(&key) {
        return 0;
    }
    path.push(key);
    let mut best = i32::MIN;
    for mv in pos.legal_moves() {
        let (child, gain) = pos.sow(mv.pit());
        best = best.max(gain as i32 - negamax(&child, path));
    }
    path.pop();
    best
}

#[test]
fn decided_at_matches_exhaustive_values_on_a_small_endgame() {
    let start = parse_position("kpe:2x2 1,0,2,1 S xx xx 2 2").unwrap();
    let mut checked = 0;
    for seed in 1..40u64 {
        let mut rng = crate::common::Rng(seed);
        let mut record = GameRecord::new(start);
        while !record.is_finished() && record.moves().len() < 30 {
            let moves = record.current().legal_moves();
            record.push(moves[rng.below(moves.len())]).unwrap();
        }
        if !record.is_finished() {
            continue;
        }
        // South's expected final margin at every position, from values
        // computed here; the result decided from the first position of the
        // suffix that agrees with the final result.
        let mut positions = vec![start];
        positions.extend(record.positions().iter().copied());
        let margins: Vec<i32> = positions
            .iter()
            .map(|p| {
                let v = negamax(p, &mut Vec::new());
                let v = if p.side_to_move() == Side::South {
                    v
                } else {
                    -v
                };
                let c = p.captured();
                c[0] as i32 - c[1] as i32 + v
            })
            .collect();
        let margin = record.result().unwrap().margin();
        let result = if margin > 0.0 {
            1
        } else if margin < 0.0 {
            -1
        } else {
            0
        };
        let mut k = margins.len();
        while k > 0 && margins[k - 1].signum() == result {
            k -= 1;
        }
        let expected = (k < margins.len()).then_some(k);
        if expected.is_none_or(|k| k == 0) {
            continue;
        }
        let dir = temp(&format!("decided-{seed}"));
        let file = game_file(&dir, &start, record.moves());
        let v = analyze(&file, &dir);
        assert_eq!(
            v["decided_at"].as_u64().map(|x| x as usize),
            expected,
            "seed {seed}: {v}"
        );
        for (i, p) in v["plies"].as_array().unwrap().iter().enumerate() {
            assert_eq!(p["south_margin"], margins[i], "seed {seed} ply {}", i + 1);
        }
        let _ = std::fs::remove_dir_all(&dir);
        checked += 1;
        if checked == 3 {
            break;
        }
    }
    assert!(checked > 0, "some random game changed its result mid-way");
}

/// Plays `sow ARGS` (a game with the human as South) to its end through a
/// pipe: a scripted human plays random legal moves, asks for a hint now
/// and then, and saves the game to `saved` at the end. Returns what `sow`
/// printed, line by line.
fn play_through_a_pipe(args: &[&str], saved: &std::path::Path) -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sow"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut rng = crate::common::Rng(5);
    let mut turns = 0;
    let mut printed = Vec::new();
    for line in lines {
        let line = line.unwrap();
        printed.push(line.clone());
        if let Some(legal) = line.strip_prefix("your move (South), legal: ") {
            let moves: Vec<&str> = legal.split_whitespace().collect();
            if turns % 5 == 0 {
                writeln!(stdin, "hint").unwrap();
            }
            writeln!(stdin, "{}", moves[rng.below(moves.len())]).unwrap();
            turns += 1;
            assert!(turns < 500, "the game must end");
        } else if line.starts_with("game over") {
            writeln!(stdin, "save {}", saved.display()).unwrap();
            writeln!(stdin, "quit").unwrap();
        }
    }
    assert!(child.wait().unwrap().success());
    printed
}

#[test]
fn play_through_a_pipe_finishes_a_game_at_perfect_without_losing_value() {
    let dir = temp("play");
    let db = dir.to_str().unwrap();
    assert!(sow(&["solve", "kpe:3x3", "--db", db]).status.success());
    let saved = dir.join("game.jsonl");
    play_through_a_pipe(
        &[
            "play", "kpe:3x3", "--as", "S", "--level", "perfect", "--db", db,
        ],
        &saved,
    );
    let record: Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    assert_ne!(record["end"], "unfinished", "{record}");
    assert_eq!(record["north"], "sow perfect");
    // Every North move keeps the value, by the database.
    let solution = Solution::open(parse_position("kpe:3x3").unwrap().variant(), &dir).unwrap();
    let mut pos = parse_position(record["start"].as_str().unwrap()).unwrap();
    let mut north = 0;
    for mv in record["moves"].as_array().unwrap() {
        let mv = pos.parse_move(mv.as_str().unwrap()).unwrap();
        if pos.side_to_move() == Side::North {
            let v = values(&solution, &pos);
            let played = v.iter().find(|(m, _)| *m == mv).unwrap().1;
            assert_eq!(played, v[0].1, "North's {mv} in {pos} loses value");
            north += 1;
        }
        pos = pos.play_unchecked(&mv);
    }
    assert!(north > 0);
    // The saved record is what `sow analyze` reads.
    let v = json_of(&sow(&[
        "--json",
        "analyze",
        saved.to_str().unwrap(),
        "--db",
        db,
    ]));
    assert_eq!(v["players"]["N"]["value_keeping"], 1.0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn play_ends_cleanly_at_the_end_of_input_and_refuses_bad_moves() {
    let args = ["play", "kpe:2x2", "--as", "N", "--level", "random"];
    let out = crate::common::sow_with_input(&args, b"9\nflip\nundo\n");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("refused: illegal move 9"), "{text}");
    assert!(text.contains("you now play South"), "{text}");
    assert!(text.contains("end of input"), "{text}");
}

#[test]
fn eval_of_finished_positions_gives_the_final_value() {
    // South has no warrior: the 4 on North's row go to North (RULES §2.10).
    let kiothi = "kiothi 0,0,0,0,0,0,0,0,0,0,1,0,0,0,0,0,3,0,0,0 S play 30 26";
    let v = json_of(&sow(&["--json", "eval", kiothi]));
    assert_eq!(v["over"], true);
    assert_eq!(v["value"], -4);
    assert_eq!(v["final_margin"], 0);
    assert!(v["best"].is_null());
    assert_eq!(v["exact"], true);
    let v = json_of(&sow(&["--json", "eval", kiothi, "--multipv", "3"]));
    assert_eq!(
        (v["over"].clone(), v["value"].clone()),
        (Value::Bool(true), Value::from(-4))
    );
    let kpe = "kpe:2x2 0,0,2,2 S xx xx 4 0";
    let v = json_of(&sow(&["--json", "eval", kpe]));
    assert_eq!(v["over"], true);
    assert_eq!(v["value"], -4);
    assert!(v["best"].is_null());
    assert_eq!(v["exact"], true);
    let text = String::from_utf8_lossy(&sow(&["eval", kiothi]).stdout).into_owned();
    assert!(text.contains("game over"), "{text}");
}

#[test]
fn multipv_values_agree_with_a_search_of_each_move() {
    let pos = "kiothi 2,2,0,2*,1*,2*,0,6,0,8,3,4,1,2,1,1,9,0,3,2 S play 9 2";
    let v = json_of(&sow(&[
        "--json",
        "--threads",
        "1",
        "eval",
        pos,
        "--multipv",
        "3",
        "--depth",
        "4",
    ]));
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 3);
    assert_eq!(v["best"], moves[0]["move"]);
    assert_eq!(v["value"], moves[0]["value"]);
    let root = json_of(&sow(&[
        "--json",
        "--threads",
        "1",
        "eval",
        pos,
        "--depth",
        "4",
    ]));
    assert_eq!(
        root["value"], v["value"],
        "the same depth gives the same value"
    );
    for m in moves {
        let mv = m["move"].as_str().unwrap();
        let child = json_of(&sow(&["--json", "apply", pos, mv]));
        let child_pos = child["final"].as_str().unwrap();
        let c = json_of(&sow(&[
            "--json",
            "--threads",
            "1",
            "eval",
            child_pos,
            "--depth",
            "3",
        ]));
        // South's captures in the move, from the prisons.
        let prison = |p: &str| -> i32 { p.split_whitespace().nth(4).unwrap().parse().unwrap() };
        let gain = prison(child_pos) - prison(pos);
        assert_eq!(
            m["value"].as_i64().unwrap() as i32,
            gain - c["value"].as_i64().unwrap() as i32,
            "{mv}"
        );
        assert_eq!(m["pv"][0], mv);
    }
    let err = sow(&["--json", "eval", pos, "--multipv", "0"]);
    assert_eq!(err.status.code(), Some(2));
}

#[test]
fn kiothi_engine_games_are_analysed_with_proven_endings() {
    let v = json_of(&sow(&[
        "--json",
        "analyze",
        "results/kiothi/games/ab_time_1-vs-mcts_10000.jsonl",
        "--time",
        "0.05",
    ]));
    assert_eq!(v["game"], "kiothi");
    assert_eq!(v["players"]["S"]["name"], "ab:time=1");
    let plies = v["plies"].as_array().unwrap();
    assert_eq!(plies.len(), 27);
    assert_eq!(v["ending"]["end"], "over");
    assert_eq!(v["ending"]["exact"], true);
    let last = plies.last().unwrap();
    assert_eq!(
        last["exact"], true,
        "one ply from the end is proven: {last}"
    );
    let decided = v["decided_at"].as_u64().expect("decided near the end") as usize;
    assert!(decided < plies.len());
    for p in &plies[decided..] {
        assert_eq!(p["exact"], true);
    }
    // Bad input names its field.
    for (args, field) in [
        (&["--json", "analyze", "/nonexistent/game"][..], "file"),
        (
            &[
                "--json",
                "analyze",
                "results/kiothi/games/greedy-vs-random.jsonl",
                "--record",
                "999",
            ][..],
            "record",
        ),
        (
            &[
                "--json",
                "analyze",
                "results/kiothi/games/greedy-vs-random.jsonl",
                "--start",
                "kpe",
            ][..],
            "move",
        ),
        (
            &[
                "--json",
                "analyze",
                "results/kiothi/games/greedy-vs-random.jsonl",
                "--time",
                "0",
            ][..],
            "time",
        ),
    ] {
        let e = error_of(&sow(args));
        assert_eq!(e["field"], field, "{args:?}: {e}");
    }
}

#[test]
fn kiothi_play_at_perfect_through_endgame_tables_never_loses_value() {
    // From a board of seven warriors with the tables of 0-7: every
    // position of the game lies in them, so the oracle's moves are exact
    // whatever its time, and the analysis of the saved game proves that
    // none of North's moves loses value.
    let dir = temp("play-kiothi");
    let db = dir.to_str().unwrap();
    assert!(sow(&["solve", "kiothi", "--stones", "7", "--db", db])
        .status
        .success());
    let saved = dir.join("game.jsonl");
    let start = "kiothi 0,0,0,0,2,0,0,1,0,0,0,0,1,0,0,1,0,2,0,0 S play 28 25";
    let printed = play_through_a_pipe(
        &[
            "play", start, "--as", "S", "--level", "perfect", "--time", "0.05", "--db", db,
        ],
        &saved,
    );
    assert_eq!(
        printed[0], "endgame tables: exact values of boards of 0-7 warriors",
        "{printed:?}"
    );
    let v = json_of(&sow(&[
        "--json",
        "analyze",
        saved.to_str().unwrap(),
        "--time",
        "0.05",
        "--db",
        db,
    ]));
    let plies = v["plies"].as_array().unwrap();
    assert!(plies.iter().any(|p| p["side"] == "N"), "{v}");
    assert!(plies.iter().all(|p| p["exact"] == true), "{v}");
    assert_eq!(v["players"]["N"]["value_keeping"], 1.0, "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--out`'s three files are written as a set: when one of them cannot be
/// (here `analysis.md` is a directory), none is, not even the graph
/// written before it; and a refused game creates no `--out` directory.
#[test]
fn the_page_is_written_whole_or_not_at_all() {
    let dir = temp("page-set");
    let game = dir.join("game.txt");
    std::fs::write(&game, "kpe:3x3\n2\n").unwrap();
    let game = game.to_str().unwrap();
    let page = dir.join("page");
    std::fs::create_dir_all(page.join("analysis.md")).unwrap();
    let db = dir.to_str().unwrap();
    let args = ["--json", "analyze", game, "--db", db, "--out"];
    let e = error_of(&sow(&[&args[..], &[page.to_str().unwrap()]].concat()));
    assert_eq!(e["field"], "out", "{e}");
    let names: Vec<_> = std::fs::read_dir(&page)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["analysis.md"], "nothing beside the blocked name");

    std::fs::write(dir.join("ill.txt"), "kpe\n2 4 9 1\n").unwrap();
    let ill = dir.join("ill.txt");
    let deep = dir.join("new").join("deep");
    let args = ["--json", "analyze", ill.to_str().unwrap(), "--out"];
    let e = error_of(&sow(&[&args[..], &[deep.to_str().unwrap()]].concat()));
    assert_eq!(e["field"], "move", "{e}");
    assert!(!dir.join("new").exists(), "the refused game created --out");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Moves after the end of the game are not analysed but not ignored
/// either: garbage there is refused naming the move, well-formed moves
/// are counted in the text and in `ignored_moves` (they were dropped
/// without a word, garbage included).
#[test]
fn moves_after_the_end_are_checked_and_counted() {
    let dir = temp("after-the-end");
    let db = dir.to_str().unwrap();
    // South has no move: the game is over at the start.
    let over = "kpe:3x3 0,0,0,0,2,0 S xxx xxx 8 8";
    let file = dir.join("game.txt");
    let path = file.to_str().unwrap();
    std::fs::write(&file, format!("{over}\n3 foo bar\n")).unwrap();
    let e = error_of(&sow(&["--json", "analyze", path, "--db", db]));
    assert_eq!(e["field"], "move", "{e}");
    assert_eq!(e["index"], 2, "{e}");
    assert!(e["message"].as_str().unwrap().contains("`foo`"), "{e}");

    std::fs::write(&file, format!("{over}\n3 4\n5\n")).unwrap();
    let v = analyze(path, &dir);
    assert_eq!(v["ignored_moves"], 3, "{v}");
    assert_eq!(v["plies"].as_array().unwrap().len(), 0);
    let text = sow(&["analyze", path, "--db", db]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("the 3 moves after it are not analysed"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// An argument that is not UTF-8 (here the `--out` directory's name) is
/// shown lossily in the page's command line; reading it panicked.
#[test]
fn a_non_utf8_argument_does_not_panic() {
    use std::os::unix::ffi::OsStrExt;
    let dir = temp("non-utf8");
    let game = dir.join("game.txt");
    std::fs::write(&game, "kpe:3x3\n2\n").unwrap();
    let page = dir.join(std::ffi::OsStr::from_bytes(b"page-\xff"));
    let out = Command::new(env!("CARGO_BIN_EXE_sow"))
        .arg("analyze")
        .arg(&game)
        .arg("--db")
        .arg(&dir)
        .arg("--out")
        .arg(&page)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let md = std::fs::read_to_string(page.join("analysis.md")).unwrap();
    assert!(md.contains("page-\u{fffd}"), "{md}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A Kiothi `--db` given on the command line that is missing or a plain
/// file is refused naming `db` (it was silently ignored: no tables).
#[test]
fn a_kiothi_db_that_is_not_a_directory_is_refused() {
    let dir = temp("kiothi-db");
    let file = dir.join("plain");
    std::fs::write(&file, "x").unwrap();
    let game = dir.join("game.txt");
    std::fs::write(
        &game,
        "kiothi 0,0,0,0,0,0,0,0,0,0,1,0,0,0,0,0,3,0,0,0 S play 30 26\n",
    )
    .unwrap();
    let missing = dir.join("missing");
    for db in [&missing, &file] {
        let db = db.to_str().unwrap();
        let args = ["--json", "analyze", game.to_str().unwrap(), "--db", db];
        assert_eq!(error_of(&sow(&args))["field"], "db", "{args:?}");
        let out = Command::new(env!("CARGO_BIN_EXE_sow"))
            .args(["play", "kiothi", "--db", db])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "play --db {db}: {stderr}");
        assert!(stderr.contains("--db"), "{stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Player names from a record are any text: on the page a `|`, a newline
/// or HTML must not break the table or inject markup, and the text table
/// gets no control characters.
#[test]
fn player_names_are_escaped_in_the_tables() {
    let dir = temp("names");
    let record = serde_json::json!({
        "start": "kpe:3x3 3,3,3,3,3,3 S ... ... 0 0",
        "moves": ["2"],
        "south": "a|b\n<script>x</script>",
        "north": "n\u{1b}[2J",
    });
    let file = dir.join("game.jsonl");
    std::fs::write(&file, format!("{record}\n")).unwrap();
    let page = dir.join("page");
    let db = dir.to_str().unwrap();
    let args = ["analyze", file.to_str().unwrap(), "--db", db, "--out"];
    let out = sow(&[&args[..], &[page.to_str().unwrap()]].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains('\u{1b}'), "{text}");
    let south = text.lines().find(|l| l.starts_with("South ")).unwrap();
    assert!(south.contains("a|b <script>"), "{text}");
    let md = std::fs::read_to_string(page.join("analysis.md")).unwrap();
    assert!(!md.contains("<script>"), "{md}");
    let row = md.lines().find(|l| l.starts_with("| South |")).unwrap();
    assert!(
        row.contains("a\\|b &lt;script&gt;x&lt;/script&gt;"),
        "{row}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// RULES §2.10: a one-warrior victory (a Kiothi game over, won by exactly
/// two warriors) "is reported as such", by `analyze` and by `play`.
#[test]
fn a_one_warrior_victory_is_reported_as_such() {
    let dir = temp("one-warrior");
    let db = dir.to_str().unwrap();
    let over = "kiothi 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 S play 31 29";
    let game = dir.join("game.txt");
    std::fs::write(&game, format!("{over}\n")).unwrap();
    let v = analyze(game.to_str().unwrap(), &dir);
    assert_eq!(v["ending"]["one_warrior_victory"], true, "{v}");
    let text = sow(&["analyze", game.to_str().unwrap(), "--db", db]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("South wins (a one-warrior victory), 31 to 29"),
        "{text}"
    );

    let out = crate::common::sow_with_input(&["play", over, "--db", db], b"quit\n");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("South 31 North 29: you win, a one-warrior victory"),
        "{text}"
    );

    // Four warriors ahead is a plain win.
    std::fs::write(
        &game,
        "kiothi 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 S play 32 28\n",
    )
    .unwrap();
    let v = analyze(game.to_str().unwrap(), &dir);
    assert_eq!(v["ending"]["one_warrior_victory"], false, "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A line that is not UTF-8 is refused and the session goes on (it
/// ended with an `io` error).
#[test]
fn a_line_that_is_not_utf8_is_refused_and_play_goes_on() {
    let args = ["--threads", "1", "play", "kpe:3x3", "--time", "0.1"];
    let out = crate::common::sow_with_input(&args, b"\xff\xfe\nboard\nquit\n");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("refused: the line is not UTF-8"), "{text}");
    assert!(text.ends_with("goodbye\n"), "{text}");
}
