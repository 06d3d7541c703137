//! The library's layers, as the folder list shows them: infrastructure
//! (`infra/`) → rules (`games/`) → the engine (`search/`) → the retrogrades
//! (`retrograde/`, `kpe_db/`, `kiothi_tables/`) → the prover (`prove/`) →
//! Kiothi's openings (`book/`) → analysis → rendering (`report/`) → the web
//! oracle (`serve/`) → the command line (`cli/`). Nothing imports a layer above its own; this test
//! reads the sources and names any line that does. And between files: no
//! file imports a file that imports it back, directly or through others;
//! the test names each such circle.

use std::collections::{BTreeMap, BTreeSet};
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
    "book",
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
    "book",
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

// Files: no file imports a file that imports it back, directly or through
// others. A file imports another when it names a path (`crate::…`,
// `super::…`, `self::…`, grouped `use a::{b, c}` included) whose longest
// prefix that is a module is the other file's module. Test items
// (each item under `#[cfg(test)]`, and the `tests.rs` files) are aside, and
// a module file and the files of its submodules are not counted against
// each other.

/// A module path under `src/` (`["kpe_db", "db"]`; the crate root is `[]`).
type Module = Vec<String>;

/// The module of a file relative to `src/`: `a/b.rs` and `a/b/mod.rs` are
/// `a::b`, `lib.rs` is the root.
fn module_of(relative: &Path) -> Module {
    let mut parts: Module = relative
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// Where the comment or the string or character literal starting at
/// `b[i]` ends, if one starts there.
fn literal_end(text: &str, i: usize) -> Option<usize> {
    let b = text.as_bytes();
    let rest = &b[i..];
    let after_ident = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
    let find = |from: usize, what: &[u8]| {
        b.get(from..)
            .and_then(|tail| tail.windows(what.len()).position(|w| w == what))
            .map_or(b.len(), |n| from + n + what.len())
    };
    if rest.starts_with(b"//") {
        return Some(
            rest.iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |n| i + n),
        );
    }
    if rest.starts_with(b"/*") {
        let (mut depth, mut j) = (0, i);
        while j < b.len() {
            if b[j..].starts_with(b"/*") {
                depth += 1;
                j += 2;
            } else if b[j..].starts_with(b"*/") {
                depth -= 1;
                j += 2;
                if depth == 0 {
                    break;
                }
            } else {
                j += 1;
            }
        }
        return Some(j);
    }
    match rest[0] {
        b'"' => {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            Some((j + 1).min(b.len()))
        }
        // A raw string (`r"…"`, `r#"…"#`, `br"…"`), else an identifier.
        b'r' | b'b' if !after_ident => {
            let start = match rest {
                [b'b', b'r', ..] => i + 2,
                [b'r', ..] => i + 1,
                _ => return None,
            };
            let hashes = b[start..].iter().take_while(|&&c| c == b'#').count();
            if b.get(start + hashes) != Some(&b'"') {
                return None;
            }
            let close = [b"\"".as_slice(), &vec![b'#'; hashes]].concat();
            Some(find(start + hashes + 1, &close))
        }
        // A character literal; a lifetime or a label is left as it is.
        b'\'' if rest.get(1) == Some(&b'\\') => Some(find(i + 3, b"'")),
        b'\'' => {
            let width = text[i + 1..].chars().next().map_or(1, char::len_utf8);
            (b.get(i + 1 + width) == Some(&b'\'')).then_some(i + 2 + width)
        }
        _ => None,
    }
}

/// `text` with its comments and its string and character literals blanked
/// (newlines kept), so that neither their paths nor their braces count.
fn code_only(text: &str) -> String {
    let mut out = text.as_bytes().to_vec();
    let mut i = 0;
    while i < out.len() {
        match literal_end(text, i) {
            Some(end) => {
                for c in &mut out[i..end] {
                    if *c != b'\n' {
                        *c = b' ';
                    }
                }
                i = end.max(i + 1);
            }
            None => i += 1,
        }
    }
    String::from_utf8(out).expect("whole characters were blanked")
}

/// `code` (from [`code_only`]) without the items under `#[cfg(test)]`:
/// each from its attribute to its first `;` outside braces or the end of
/// its first braced block.
fn without_test_items(code: &str) -> String {
    const ATTR: &str = "#[cfg(test)]";
    let mut out = code.to_string();
    while let Some(at) = out.find(ATTR) {
        let item = at + ATTR.len();
        let mut depth = 0;
        let len = out[item..]
            .char_indices()
            .find_map(|(j, c)| {
                match c {
                    ';' if depth == 0 => return Some(j + 1),
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth <= 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                None
            })
            .unwrap_or(out.len() - item);
        out.replace_range(at..item + len, " ");
    }
    out
}

fn is_name(token: &str) -> bool {
    token.starts_with(|c: char| c.is_alphabetic() || c == '_')
}

/// The tokens that matter to paths: names, `::`, `{`, `}`, `,`, `*`;
/// any other character is `""`.
fn tokens(code: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = code.trim_start();
    while !rest.is_empty() {
        let len = if is_name(rest) {
            rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len())
        } else if rest.starts_with("::") {
            2
        } else {
            rest.chars().next().map_or(1, char::len_utf8)
        };
        let token = &rest[..len];
        let known = is_name(token) || matches!(token, "::" | "{" | "}" | "," | "*");
        found.push(if known { token } else { "" });
        rest = rest[len..].trim_start();
    }
    found
}

/// Reads the rest of a path from `t[*at]` (a `::`, else the path ends) and
/// records it in `found`; a group `{…}` it ends in records the path before
/// it and each of its items. Leaves `*at` after the path.
fn read_path(t: &[&str], at: &mut usize, mut path: Module, found: &mut Vec<Module>) {
    while t.get(*at) == Some(&"::") {
        match t.get(*at + 1).copied() {
            Some("{") => {
                found.push(path.clone());
                *at += 2;
                read_group(t, at, &path, found);
                return;
            }
            Some(name) if is_name(name) => {
                path.push(name.to_string());
                *at += 2;
            }
            _ => break,
        }
    }
    found.push(path);
}

/// The items of a group `{a, b::c, self, d::{e, f}, g as h, *}` under
/// `prefix`, from after its `{` to after its `}`.
fn read_group(t: &[&str], at: &mut usize, prefix: &Module, found: &mut Vec<Module>) {
    while let Some(&token) = t.get(*at) {
        *at += 1;
        match token {
            "}" => return,
            "self" => found.push(prefix.clone()),
            "as" => *at += 1,
            "{" => read_group(t, at, prefix, found),
            name if is_name(name) => {
                let mut path = prefix.clone();
                path.push(name.to_string());
                read_path(t, at, path, found);
            }
            _ => {}
        }
    }
}

/// The module paths that `code`, the file of module `here`, names from
/// `crate`, `super` or `self` (`super::super::…` included).
fn named_paths(code: &str, here: &Module) -> Vec<Module> {
    let t = tokens(code);
    let mut found = Vec::new();
    let mut at = 0;
    while at < t.len() {
        let token = t[at];
        at += 1;
        let mut base = match token {
            "crate" => Vec::new(),
            "super" => here[..here.len().saturating_sub(1)].to_vec(),
            "self" => here.clone(),
            _ => continue,
        };
        let starts_path = (at < 2 || t[at - 2] != "::") && t.get(at) == Some(&"::");
        if !starts_path {
            continue;
        }
        while token == "super" && t.get(at + 1) == Some(&"super") {
            base.pop();
            at += 2;
        }
        read_path(&t, &mut at, base, &mut found);
    }
    found
}

/// Each import circle under `src`: the files (relative to `src`, sorted)
/// of a strongly connected component of more than one file of the import
/// graph; the circles sorted.
fn import_circles(src: &Path) -> Vec<Vec<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    // `main.rs` is the binary's root (its `crate` is not the library's),
    // `tests.rs` a test module.
    let modules: BTreeMap<Module, String> = files
        .iter()
        .filter(|f| !f.ends_with("main.rs") && !f.ends_with("tests.rs"))
        .map(|f| {
            let relative = f.strip_prefix(src).unwrap();
            let shown = relative.to_string_lossy().replace('\\', "/");
            (module_of(relative), shown)
        })
        .collect();
    let resolve = |path: &Module| {
        (1..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|prefix| modules.contains_key(prefix))
    };
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (module, file) in &modules {
        let text = std::fs::read_to_string(src.join(file)).unwrap();
        let code = without_test_items(&code_only(&text));
        let targets = named_paths(&code, module)
            .iter()
            .filter_map(resolve)
            .filter(|t| !t.starts_with(module) && !module.starts_with(t))
            .collect();
        edges.insert(module.clone(), targets);
    }
    let mut circles: Vec<Vec<String>> = strong_components(&edges)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let mut names: Vec<String> = c.iter().map(|m| modules[m].clone()).collect();
            names.sort();
            names
        })
        .collect();
    circles.sort();
    circles
}

/// The strongly connected components of a graph (Tarjan).
fn strong_components(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        components: Vec<Vec<Module>>,
    }
    impl<'a> Walk<'a> {
        /// Visits `v`: the lowest index it reaches on the stack.
        fn visit(&mut self, v: &'a Module) -> usize {
            let n = self.index.len();
            self.index.insert(v, n);
            self.stack.push(v);
            let mut low = n;
            for w in &self.edges[v] {
                match self.index.get(w) {
                    None => low = low.min(self.visit(w)),
                    Some(&i) if self.stack.contains(&w) => low = low.min(i),
                    Some(_) => {}
                }
            }
            if low == n {
                let at = self.stack.iter().position(|&m| m == v).unwrap();
                let component = self.stack.split_off(at).into_iter().cloned().collect();
                self.components.push(component);
            }
            low
        }
    }
    let mut walk = Walk {
        edges,
        index: BTreeMap::new(),
        stack: Vec::new(),
        components: Vec::new(),
    };
    for v in edges.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    walk.components
}

fn circles_text(circles: &[Vec<String>]) -> String {
    let lines: Vec<String> = circles.iter().map(|c| c.join(" <-> ")).collect();
    format!("{}\n{}", lines.join("\n"), circles.len())
}

#[test]
fn no_file_imports_a_file_that_imports_it_back() {
    let circles = import_circles(&src());
    assert!(
        circles.is_empty(),
        "import circles between files (each file imports the others, directly or through them):\n{}",
        circles_text(&circles)
    );
}

#[test]
fn the_circle_check_sees_three_files_in_a_circle_and_no_more() {
    let dir = std::env::temp_dir().join(format!("sow-circles-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("m")).unwrap();
    let files = [
        (
            "lib.rs",
            "pub mod a;\npub mod b;\npub mod c;\npub mod d;\npub mod m;\nuse crate::d::D;\n",
        ),
        // a names d only in a comment, a string and its test module.
        (
            "a.rs",
            "use crate::b::B; // crate::d\npub struct A;\nconst S: &str = \"crate::d::D\";\n\
             #[cfg(test)]\nmod tests {\n    use crate::d::D;\n    fn f() { let _ = '{'; }\n}\n",
        ),
        // b names c in a nested group, from `super`.
        (
            "b.rs",
            "use super::{c::{self, C as Sea}, m::*};\npub struct B;\n",
        ),
        // c names a in a path inside code.
        (
            "c.rs",
            "pub struct C;\npub fn a() -> crate::a::A {\n    crate::a::A\n}\n",
        ),
        // d names a, but nothing names d: outside the circle.
        ("d.rs", "pub struct D(crate::a::A);\n"),
        // A module and its submodule name each other: not counted.
        (
            "m/mod.rs",
            "pub mod x;\npub use self::x::X;\npub struct M;\n",
        ),
        ("m/x.rs", "pub struct X(super::M, super::super::m::M);\n"),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let circle = import_circles(&dir);
    // Without c's paths to a, nothing is left of the circle.
    std::fs::write(dir.join("c.rs"), "pub struct C;\n").unwrap();
    let none = import_circles(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(circle, vec![vec!["a.rs", "b.rs", "c.rs"]]);
    assert_eq!(circles_text(&circle), "a.rs <-> b.rs <-> c.rs\n1");
    assert!(none.is_empty(), "{none:?}");
}

#[test]
fn the_path_reader_reads_groups_aliases_and_supers() {
    let here: Module = vec!["p".into(), "q".into()];
    let code = "use crate::a::{b::{self, C}, d as e, f::*};\nsuper::super::g::h();\nself::i::j;\n$crate::k";
    let found: Vec<String> = named_paths(code, &here)
        .iter()
        .map(|p| p.join("::"))
        .collect();
    assert_eq!(
        found,
        [
            "a",
            "a::b",
            "a::b",
            "a::b::C",
            "a::d",
            "a::f",
            "g::h",
            "p::q::i::j",
            "k"
        ]
    );
}
