//! `sow report --quick` end to end: every page and picture exists, every
//! picture is an SVG that names its axes, the numbers in the Markdown are
//! those of the JSON it was rendered from, and the CSV export round-trips.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn run_report() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sow-report-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
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
        let svg = read(&kpe.join(format!("{name}.svg")));
        assert!(
            svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
            "{name}"
        );
        assert!(svg.trim_end().ends_with("</svg>"), "{name}");
        assert_eq!(svg.matches("<svg").count(), 1, "{name}");
        assert_eq!(
            svg.matches("<text").count(),
            svg.matches("</text>").count(),
            "{name}"
        );
        if name != "start-board" {
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
            "report does not show {name}.svg"
        );
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
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("phase,stones,value,positions,never_ends")
    );
    let mut totals: HashMap<(String, u64), (u64, u64)> = HashMap::new();
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
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
    fs::remove_dir_all(&dir).unwrap();
}
