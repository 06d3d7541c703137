//! The library's layers, as the folder list shows them: infrastructure
//! (`infra/`) → rules (`games/`) → the engine (`search/`) → the retrogrades
//! (`retrograde/`, `kpe_db/`, `kiothi_tables/`) → the prover (`prove/`) →
//! analysis → rendering (`report/`) → the web oracle (`serve/`) → the
//! command line (`cli/`). Nothing imports a layer above its own; this test
//! reads the sources and names any line that does.

use std::path::{Path, PathBuf};

/// The layers from the bottom up: each folder under `src/` may name only
/// the layers before it (and the crate's root files).
const ORDER: &[&str] = &[
    "infra",
    "games",
    "search",
    "retrograde",
    "kpe_db",
    "kiothi_tables",
    "prove",
    "analysis",
    "report",
    "serve",
    "cli",
];

/// Each layer's folder and the modules it must not name: every layer above
/// it; the rules and the infrastructure also the root's game loop and perft.
fn rules() -> Vec<(&'static str, Vec<&'static str>)> {
    ORDER
        .iter()
        .enumerate()
        .map(|(i, layer)| {
            let mut forbidden = ORDER[i + 1..].to_vec();
            if i <= 1 {
                forbidden.extend(["record", "perft"]);
            }
            if i == 0 {
                forbidden.extend(["game", "error"]);
            }
            (*layer, forbidden)
        })
        .collect()
}

/// What the files at the crate's root (errors, the game trait, the one
/// game loop, perft; all but `lib.rs` and `main.rs`) must not name: they
/// are under every layer but the infrastructure and the rules.
const ABOVE_THE_ROOT: &[&str] = &[
    "search",
    "retrograde",
    "kpe_db",
    "kiothi_tables",
    "prove",
    "analysis",
    "report",
    "serve",
    "cli",
];

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The code lines (comments left out) of `path` naming `crate::M` for a
/// forbidden `M`.
fn upward_lines(path: &Path, forbidden: &[&str]) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut bad = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for m in forbidden {
            let name = format!("crate::{m}");
            let names_it = code.match_indices(&name).any(|(i, _)| {
                let rest = &code[i + name.len()..];
                !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_')
            });
            if names_it {
                bad.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    bad
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn no_layer_imports_a_layer_above_it() {
    let mut bad = Vec::new();
    for (layer, forbidden) in rules() {
        let mut files = Vec::new();
        rust_files(&src().join(layer), &mut files);
        assert!(!files.is_empty(), "src/{layer} has no Rust files");
        for f in files {
            bad.extend(upward_lines(&f, &forbidden));
        }
    }
    for entry in std::fs::read_dir(src()).unwrap() {
        let f = entry.unwrap().path();
        let glue = f.ends_with("lib.rs") || f.ends_with("main.rs");
        if f.is_file() && !glue {
            bad.extend(upward_lines(&f, ABOVE_THE_ROOT));
        }
    }
    assert!(
        bad.is_empty(),
        "imports of a higher layer:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_check_sees_an_upward_import_and_ignores_comments() {
    let dir = std::env::temp_dir().join(format!("sow-layers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("x.rs");
    std::fs::write(
        &f,
        "//! See `crate::cli`.\nuse crate::cli::Out; // upward\nuse crate::client::X;\n",
    )
    .unwrap();
    let bad = upward_lines(&f, &["cli"]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(
        bad[0].ends_with(":2: use crate::cli::Out; // upward"),
        "{bad:?}"
    );
}
