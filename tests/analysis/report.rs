//! `sow report --quick` end to end: every page and picture exists, every
//! picture is a well-formed SVG that names its axes, the numbers in the
//! Markdown are those of the JSON it was rendered from, and the CSV export
//! and the game records round-trip.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn run_report() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sow-report-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    // A record a former plan left: the report removes it.
    let games = dir.join("results/kiothi/games");
    fs::create_dir_all(&games).unwrap();
    fs::write(games.join("ab_time_9-vs-random.jsonl"), "{}\n").unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_sow"))
        .args(["--quiet", "report", "--quick", "--out"])
        .arg(dir.join("results"))
        .arg("--db")
        .arg(dir.join("db"))
        .status()
        .unwrap();
    assert!(status.success());
    dir
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&read(path)).unwrap()
}

#[test]
fn quick_report_pages_pictures_and_numbers() {
    let dir = run_report();
    let out = dir.join("results");
    let kpe = out.join("kpe");
    for page in [
        "README.md",
        "kpe/report.md",
        "kpe/openings.md",
        "kpe/variants.md",
        "kpe/stats.csv",
    ] {
        assert!(!read(&out.join(page)).is_empty(), "{page}");
    }
    // Pictures: SVG documents with a title and named axes (charts), all
    // referenced by the report page.
    let page = read(&kpe.join("report.md"));
    for name in ["values", "layers", "first-moves", "variants", "start-board"] {
        check_svg(&kpe, name, name != "start-board", &page);
    }
    // Numbers in the page are those of report.json.
    let summary = json(&kpe.join("report.json"));
    let head = format!(
        "**The start is worth {:+} for South ({}).** Positions: {} in all, {} unlocked",
        summary["start_value"].as_i64().unwrap(),
        summary["result"].as_str().unwrap(),
        summary["positions"]["total"],
        summary["positions"]["unlocked"]
    );
    assert!(page.contains(&head), "{head}");
    for m in summary["first_moves"].as_array().unwrap() {
        let row = format!(
            "| {} | {:+} |",
            m["move"].as_str().unwrap(),
            m["value"].as_i64().unwrap()
        );
        assert!(page.contains(&row), "{row}");
    }
    let variants = summary["variants"].as_array().unwrap();
    assert!(variants.len() >= 5);
    for v in variants {
        let row = format!(
            "| {} | {:+} | {} | {} | {} |",
            v["variant"].as_str().unwrap(),
            v["value"].as_i64().unwrap(),
            v["result"].as_str().unwrap(),
            v["unlocked_positions"],
            v["opening_positions"]
        );
        assert!(page.contains(&row), "{row}");
    }
    // The same facts in the other pages.
    let openings = json(&kpe.join("openings.json"));
    assert_eq!(openings["value"], summary["start_value"]);
    assert_eq!(openings["moves"], summary["first_moves"]);
    // CSV: documented columns; positions per phase and stone count equal the JSON.
    let csv = read(&kpe.join("stats.csv"));
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    assert_eq!(
        reader.headers().unwrap(),
        vec!["phase", "stones", "value", "positions", "never_ends"]
    );
    let mut totals: HashMap<(String, u64), (u64, u64)> = HashMap::new();
    for record in reader.records() {
        let record = record.unwrap();
        let line = format!("{record:?}");
        let f: Vec<&str> = record.iter().collect();
        assert_eq!(f.len(), 5, "{line}");
        let value: i64 = f[2].parse().unwrap();
        assert!(value.abs() <= f[1].parse::<i64>().unwrap(), "{line}");
        let (positions, endless): (u64, u64) = (f[3].parse().unwrap(), f[4].parse().unwrap());
        assert!(endless <= positions, "{line}");
        let total = totals
            .entry((f[0].to_string(), f[1].parse().unwrap()))
            .or_default();
        total.0 += positions;
        total.1 += endless;
    }
    let stats = json(&kpe.join("stats.json"));
    let rows = stats["rows"].as_array().unwrap();
    assert_eq!(rows.len(), totals.len());
    for r in rows {
        let key = (
            r["phase"].as_str().unwrap().to_string(),
            r["stones"].as_u64().unwrap(),
        );
        let want = (
            r["positions"].as_u64().unwrap(),
            r["never_ends"].as_u64().unwrap(),
        );
        assert_eq!(totals[&key], want, "{key:?}");
    }
    let unlocked: u64 = rows
        .iter()
        .filter(|r| r["phase"] == "unlocked")
        .map(|r| r["positions"].as_u64().unwrap())
        .sum();
    assert_eq!(unlocked, summary["positions"]["unlocked"].as_u64().unwrap());
    check_kiothi(&out);
    fs::remove_dir_all(&dir).unwrap();
}

/// `dir/name.svg` is a well-formed SVG document (balanced tags, one root),
/// shown by `page`; a chart (`axes`) names both axes.
fn check_svg(dir: &Path, name: &str, axes: bool, page: &str) {
    let svg = read(&dir.join(format!("{name}.svg")));
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{name}"
    );
    assert!(svg.trim_end().ends_with("</svg>"), "{name}");
    assert_eq!(svg.matches("<svg").count(), 1, "{name}");
    assert!(!svg.contains("NaN") && !svg.contains("inf\""), "{name}");
    // Tags balance: every element opened is closed, in order.
    let mut open: Vec<&str> = Vec::new();
    let mut rest = svg.as_str();
    while let Some(at) = rest.find('<') {
        let end = rest[at..]
            .find('>')
            .unwrap_or_else(|| panic!("{name}: unclosed tag"))
            + at;
        let tag = &rest[at + 1..end];
        if let Some(closing) = tag.strip_prefix('/') {
            assert_eq!(open.pop(), Some(closing.trim()), "{name}: </{closing}>");
        } else if !tag.ends_with('/') {
            open.push(tag.split_whitespace().next().unwrap_or(""));
        }
        rest = &rest[end + 1..];
        assert!(
            !open.is_empty() || rest.trim().is_empty(),
            "{name}: content after the root"
        );
    }
    assert!(open.is_empty(), "{name}: unclosed {open:?}");
    if axes {
        for axis in ["class=\"x-label\"", "class=\"y-label\""] {
            let at = svg
                .find(axis)
                .unwrap_or_else(|| panic!("{name} lacks {axis}"));
            let label = &svg[at..];
            let text = &label[label.find('>').unwrap() + 1..label.find("</text>").unwrap()];
            assert!(!text.trim().is_empty(), "{name}: empty {axis}");
        }
    }
    assert!(
        page.contains(&format!("({name}.svg)")),
        "the page does not show {name}.svg"
    );
}

fn collect(v: &Value, numbers: &mut Vec<f64>, strings: &mut Vec<String>) {
    match v {
        Value::Number(n) => numbers.push(n.as_f64().unwrap().abs()),
        Value::String(s) => strings.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| collect(x, numbers, strings)),
        Value::Object(o) => o.values().for_each(|x| collect(x, numbers, strings)),
        _ => {}
    }
}

/// Every number written in `page` is a number of `json` as rounded there
/// (or as a percentage), once the JSON's strings (agents, moves, date,
/// machine...) are taken out of the page.
fn check_numbers_come_from(page: &str, json: &Value, what: &str) {
    let (mut numbers, mut strings) = (Vec::new(), Vec::new());
    collect(json, &mut numbers, &mut strings);
    strings.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let mut text = page.to_string();
    for s in strings.iter().filter(|s| s.len() >= 2) {
        text = text.replace(s.as_str(), " ");
    }
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut checked = 0;
    while i < chars.len() {
        let starts = chars[i].is_ascii_digit()
            && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '.'));
        if !starts {
            i += 1;
            continue;
        }
        let from = i;
        while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
            i += 1;
        }
        let token: String = chars[from..i].iter().collect();
        let token = token.trim_end_matches('.');
        let decimals = token.split_once('.').map_or(0, |(_, d)| d.len());
        let value: f64 = token.parse().unwrap();
        let tolerance = 0.5 * 10f64.powi(-(decimals as i32)) + 1e-9;
        assert!(
            numbers
                .iter()
                .any(|&x| (x - value).abs() <= tolerance || (100.0 * x - value).abs() <= tolerance),
            "{what}: {token} is not a number of report.json (near `{}`)",
            chars[from.saturating_sub(40)..(i + 20).min(chars.len())]
                .iter()
                .collect::<String>()
        );
        checked += 1;
    }
    assert!(checked > 20, "{what}: only {checked} numbers");
}

fn check_kiothi(out: &Path) {
    let kiothi = out.join("kiothi");
    let page = read(&kiothi.join("report.md"));
    let strength = read(&kiothi.join("strength.md"));
    let summary = json(&kiothi.join("report.json"));
    let openings = json(&kiothi.join("candidate-openings.json"));
    assert!(
        read(&kiothi.join("candidate-openings.md")).contains("Generated by `sow report --quick`")
    );
    for name in [
        "elo-time",
        "scores",
        "game-lengths",
        "one-warrior",
        "openings",
    ] {
        check_svg(&kiothi, name, true, &page);
    }
    check_svg(&kiothi, "start-board", false, &page);
    check_numbers_come_from(&page, &summary, "report.md");
    check_numbers_come_from(&strength, &summary, "strength.md");
    let mut records: Vec<String> = summary["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["records"].as_str().unwrap().to_string())
        .collect();
    records.sort();
    let mut files: Vec<String> = fs::read_dir(kiothi.join("games"))
        .unwrap()
        .map(|e| format!("games/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    files.sort();
    assert_eq!(
        files, records,
        "the games directory holds this run's records only"
    );
    for text in [&page, &strength] {
        assert!(text.contains("Generated by `sow report --quick` (sow "));
        assert!(text.contains(summary["machine"].as_str().unwrap()));
        assert!(text.contains(summary["date"].as_str().unwrap()));
    }
    let index = read(&out.join("README.md"));
    for link in [
        "kiothi/report.md",
        "kiothi/strength.md",
        "kiothi/openings.md",
        "kpe/report.md",
    ] {
        assert!(index.contains(&format!("({link})")), "{link}");
    }

    // Matches: rows in both pages, records that replay the score.
    let matches = summary["matches"].as_array().unwrap();
    assert!(matches.len() >= 5);
    let mut games = 0;
    for m in matches {
        let (a, b) = (m["a"].as_str().unwrap(), m["b"].as_str().unwrap());
        let n = m["games"].as_u64().unwrap();
        let (w, d, l) = (
            m["wins"].as_u64().unwrap(),
            m["draws"].as_u64().unwrap(),
            m["losses"].as_u64().unwrap(),
        );
        assert_eq!(w + d + l, n, "{a} vs {b}");
        let row = format!(
            "| `{a}` | `{b}` | {n} | {w}/{d}/{l} | {:.1}% |",
            100.0 * m["score"].as_f64().unwrap()
        );
        assert!(page.contains(&row), "{row}");
        assert!(strength.contains(&row), "{row}");
        let records = read(&kiothi.join(m["records"].as_str().unwrap()));
        let lines: Vec<Value> = records
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len() as u64, n, "{a} vs {b}");
        let points: f64 = lines.iter().map(|g| g["score_a"].as_f64().unwrap()).sum();
        assert_eq!(points, w as f64 + d as f64 / 2.0, "{a} vs {b}");
        games += n;
    }
    // The headline: the engine against each baseline.
    let engine = summary["engine"].as_str().unwrap();
    for b in ["greedy", "random"] {
        assert!(
            page.contains(&format!("- `{engine}` against `{b}`: ")),
            "{engine} vs {b}"
        );
    }
    assert!(matches
        .iter()
        .any(|m| m["a"] == engine && m["b"].as_str().unwrap().starts_with("mcts:")));
    // The ladder: every time after the first has its doubling and its
    // reference result (the reference itself excepted).
    let points = summary["ladder"]["points"].as_array().unwrap();
    assert!(points.len() >= 3);
    for (k, p) in points.iter().enumerate() {
        assert_eq!(p["doubling"].is_null(), k == 0);
        assert_eq!(p["vs_reference"].is_null(), p["is_reference"] == true);
        if k > 0 {
            let t = p["seconds"].as_f64().unwrap();
            assert_eq!(t, 2.0 * points[k - 1]["seconds"].as_f64().unwrap());
        }
    }
    // Game lengths cover every game played.
    let lengths = &summary["game_lengths"];
    assert_eq!(lengths["games"].as_u64().unwrap(), games);
    let binned: u64 = lengths["bins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["games"].as_u64().unwrap())
        .sum();
    assert_eq!(binned, games);
    let ends = &lengths["ends"];
    assert_eq!(
        ["over", "repetition", "ply_cap"]
            .iter()
            .map(|k| ends[k].as_u64().unwrap())
            .sum::<u64>(),
        games
    );
    let decided: u64 = matches.iter().map(|m| m["decided"].as_u64().unwrap()).sum();
    assert_eq!(summary["one_warrior"]["decided"].as_u64().unwrap(), decided);
    // Openings: the report's moves are those of openings.json, the board
    // shows the best one's lifted pits.
    assert_eq!(summary["openings"]["moves"], openings["moves"]);
    assert_eq!(
        summary["openings"]["best"]["move"],
        openings["moves"][0]["move"]
    );
    assert_eq!(
        summary["openings"]["best"]["lifted"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let board = read(&kiothi.join("start-board.svg"));
    let best = openings["moves"][0]["move"].as_str().unwrap();
    assert!(board.contains(&best.replace('>', "&gt;")), "{best}");
    assert_eq!(board.matches("stroke-width=\"4\"").count(), 2);
}

#[test]
#[should_panic(expected = "42.5 is not a number of report.json")]
fn number_check_rejects_a_number_not_in_the_json() {
    let json = serde_json::json!({"agent": "ab:time=0.25", "score": 0.625, "games": 40});
    let page = format!("42.5 {}", "`ab:time=0.25` 62.5% over 40 games; ".repeat(10));
    check_numbers_come_from(&page, &json, "page");
}

#[test]
fn number_check_accepts_rounded_numbers_and_percentages() {
    let json =
        serde_json::json!({"agent": "ab:time=0.25", "score": 0.625, "elo": 88.7, "games": 40});
    let page = "`ab:time=0.25`: 62.5% over 40 games, Elo +89; ".repeat(10);
    check_numbers_come_from(&page, &json, "page");
}

#[test]
fn only_one_part_checks_the_other_parts_summary_before_its_work() {
    let dir = std::env::temp_dir().join(format!("sow-report-only-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let results = dir.join("results");
    fs::create_dir_all(results.join("kiothi")).unwrap();
    fs::write(results.join("kiothi/report.json"), "{bad").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sow"))
        .args(["--quiet", "report", "--quick", "--only", "kpe", "--out"])
        .arg(&results)
        .arg("--db")
        .arg(dir.join("db"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("kiothi/report.json"), "{err}");
    // Refused before the Kpé part's work: nothing of it was written.
    assert!(!results.join("kpe").exists());
    assert!(!dir.join("db").exists());
    fs::remove_dir_all(&dir).unwrap();
}
