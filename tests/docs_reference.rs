//! `docs/reference.md` names every subcommand and flag the `sow` binary knows
//! (read from its own `--help`), each flag under its subcommand's section
//! (`### \`sow NAME\``, global flags under "Global flags"), and no subcommand
//! or flag that the binary does not know.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

const SOW: &str = env!("CARGO_BIN_EXE_sow");
const REFERENCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/reference.md");

/// The short help of `sow ARGS -h`.
fn help(args: &[&str]) -> String {
    let out = Command::new(SOW)
        .args(args)
        .arg("-h")
        .output()
        .expect("run sow");
    assert!(out.status.success(), "sow {args:?} -h failed: {out:?}");
    String::from_utf8(out.stdout).expect("help is UTF-8")
}

/// The lines of a help text's section `name:` (up to the next blank line).
fn help_section<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
    text.lines()
        .skip_while(|l| l.trim_end() != name)
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .collect()
}

/// The subcommands listed under `Commands:` (a name at the start of a line
/// indented by two spaces; a wrapped description is indented further).
fn subcommands(top: &str) -> Vec<String> {
    help_section(top, "Commands:")
        .iter()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// A command-line flag's spelling: `--long-name` or `-x`.
fn is_flag(token: &str) -> bool {
    if let Some(long) = token.strip_prefix("--") {
        long.starts_with(|c: char| c.is_ascii_lowercase())
            && long
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    } else if let Some(short) = token.strip_prefix('-') {
        short.len() == 1 && short.chars().all(|c| c.is_ascii_alphabetic())
    } else {
        false
    }
}

/// The flags of a help text's `Options:` section, and those of them that
/// take a value (`--threads <N>`).
fn options(text: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let (mut flags, mut valued) = (BTreeSet::new(), BTreeSet::new());
    for line in help_section(text, "Options:") {
        let indent = line.len() - line.trim_start().len();
        if indent > 6 || !line.trim_start().starts_with('-') {
            continue;
        }
        let spec = line.trim().split("  ").next().unwrap_or("");
        for part in spec.split(", ") {
            let mut words = part.split_whitespace();
            let name = words.next().unwrap_or("");
            if is_flag(name) {
                flags.insert(name.to_string());
                if words.next().is_some_and(|w| w.starts_with('<')) {
                    valued.insert(name.to_string());
                }
            }
        }
    }
    (flags, valued)
}

/// What the binary knows: its subcommands, the flags of each (global ones
/// apart) and the global flags.
struct Known {
    subcommands: Vec<String>,
    global: BTreeSet<String>,
    valued: BTreeSet<String>,
    flags: BTreeMap<String, BTreeSet<String>>,
}

fn known() -> Known {
    let top = help(&[]);
    let subcommands = subcommands(&top);
    assert!(
        subcommands.len() > 10,
        "too few subcommands read from `sow -h`: {subcommands:?}"
    );
    let (global, mut valued) = options(&top);
    let mut flags = BTreeMap::new();
    for sub in &subcommands {
        if sub == "help" {
            flags.insert(sub.clone(), BTreeSet::new());
            continue;
        }
        let (own, own_valued) = options(&help(&[sub]));
        valued.extend(own_valued);
        flags.insert(sub.clone(), own.difference(&global).cloned().collect());
    }
    Known {
        subcommands,
        global,
        valued,
        flags,
    }
}

/// The part of the page a line belongs to.
#[derive(Clone, PartialEq)]
enum Section {
    Global,
    Command(String),
    Other,
}

/// A `sow ...` invocation: its subcommand (`None` when the line names none,
/// as in `sow --help`) and its flags.
struct Invocation {
    subcommand: Option<String>,
    flags: Vec<String>,
}

/// Long and short flags in a piece of text (`[--db DIR]`, `--out-of-core auto|always|never`).
fn flags_in(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|t| is_flag(t))
        .map(str::to_string)
        .collect()
}

/// A `sow` command line (the text after `sow `): the subcommand, skipping the
/// global flags and their values before it, and the flags after it.
fn invocation(args: &str, known: &Known) -> Invocation {
    let mut words = args.split_whitespace();
    let mut subcommand = None;
    while let Some(word) = words.next() {
        if is_flag(word) {
            if known.valued.contains(word) {
                words.next();
            }
            continue;
        }
        let name = word.trim_end_matches(|c: char| !c.is_ascii_alphanumeric());
        if !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == '-') {
            subcommand = Some(name.to_string());
        }
        break;
    }
    Invocation {
        subcommand,
        flags: flags_in(&words.collect::<Vec<_>>().join(" ")),
    }
}

/// The `sow` invocations of one piece of code (an inline span or a line of a
/// code block: `$ a | sow b`), and whether the code is another program's
/// command line (`cargo test --release`, `scripts/x.sh --db DIR`), whose
/// flags are not sow's.
fn invocations(code: &str, known: &Known) -> (Vec<Invocation>, bool) {
    let code = code.trim();
    let code = code.strip_prefix("$ ").unwrap_or(code);
    let mut found = Vec::new();
    for segment in code.split(['|', ';']) {
        if let Some(rest) = segment.trim().strip_prefix("sow ") {
            found.push(invocation(rest, known));
        }
    }
    let first = code.split_whitespace().next().unwrap_or("");
    let foreign = found.is_empty()
        && !first.starts_with('-')
        && (first.contains('/')
            || ["cargo", "curl", "man", "mkdir", "printf", "sudo"].contains(&first));
    (found, foreign)
}

/// One problem of the page, named for the failure message.
fn problem(problems: &mut Vec<String>, line: usize, text: String) {
    problems.push(format!("docs/reference.md:{line}: {text}"));
}

#[test]
fn the_reference_names_every_subcommand_and_flag_and_nothing_else() {
    let known = known();
    let page = std::fs::read_to_string(REFERENCE).expect("read docs/reference.md");
    let mut problems = Vec::new();
    let mut section = Section::Other;
    let mut mentioned: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut global_mentioned = BTreeSet::new();
    let mut sections = BTreeSet::new();
    let mut in_fence = false;
    let mut span: Option<String> = None; // an inline code span still open
    let any_flag: BTreeSet<&String> = known
        .flags
        .values()
        .flatten()
        .chain(known.global.iter())
        .collect();
    let is_known_for = |sub: &str, flag: &str| {
        known.global.contains(flag) || known.flags.get(sub).is_some_and(|f| f.contains(flag))
    };
    for (i, line) in page.lines().enumerate() {
        let n = i + 1;
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if !in_fence && line.starts_with('#') {
            let level = line.chars().take_while(|&c| c == '#').count();
            let title = line[level..].trim();
            if level <= 3 {
                section = if let Some(name) = title
                    .strip_prefix("`sow ")
                    .and_then(|t| t.strip_suffix('`'))
                {
                    if !known.subcommands.iter().any(|s| s == name) {
                        problem(
                            &mut problems,
                            n,
                            format!("a section for `sow {name}`, a subcommand sow does not know"),
                        );
                    }
                    sections.insert(name.to_string());
                    Section::Command(name.to_string())
                } else if title == "Global flags" {
                    Section::Global
                } else {
                    Section::Other
                };
            }
            continue; // a heading names its subcommand, no flags
        }
        // Every flag written in the section counts as named there.
        for flag in flags_in(line) {
            match &section {
                Section::Command(sub) => {
                    mentioned.entry(sub.clone()).or_default().insert(flag);
                }
                Section::Global => {
                    global_mentioned.insert(flag);
                }
                Section::Other => {}
            }
        }
        // Pieces of code: a code block's line, or the inline spans that end
        // on this line (a span may wrap onto the next line); the rest is prose.
        let mut codes = Vec::new();
        let mut prose = String::new();
        if in_fence {
            codes.push(line.to_string());
        } else {
            for (k, piece) in line.split('`').enumerate() {
                if k > 0 {
                    match span.take() {
                        Some(code) => codes.push(code),
                        None => span = Some(String::new()),
                    }
                }
                match span.as_mut() {
                    Some(code) => {
                        code.push_str(piece);
                        code.push(' ');
                    }
                    None => {
                        prose.push_str(piece);
                        prose.push(' ');
                    }
                }
            }
        }
        let mut attributed = Vec::new();
        for code in &codes {
            let (calls, foreign) = invocations(code, &known);
            if foreign {
                continue;
            }
            if calls.is_empty() {
                attributed.extend(flags_in(code).into_iter().map(|f| (None, f)));
            }
            for call in calls {
                if let Some(sub) = &call.subcommand {
                    if !known.subcommands.contains(sub) {
                        problem(
                            &mut problems,
                            n,
                            format!("`sow {sub}`: a subcommand sow does not know"),
                        );
                        continue;
                    }
                }
                attributed.extend(call.flags.into_iter().map(|f| (call.subcommand.clone(), f)));
            }
        }
        attributed.extend(flags_in(&prose).into_iter().map(|f| (None, f)));
        for (sub, flag) in attributed {
            if !flag.starts_with("--") {
                continue; // short flags: checked for presence only
            }
            let owner = sub.or(match &section {
                Section::Command(s) => Some(s.clone()),
                _ => None,
            });
            let ok = match &owner {
                Some(sub) => is_known_for(sub, &flag),
                None => any_flag.contains(&flag),
            };
            if !ok {
                let whose = owner.map_or("any subcommand".to_string(), |s| format!("`sow {s}`"));
                problem(&mut problems, n, format!("`{flag}`: not a flag of {whose}"));
            }
        }
    }
    for sub in &known.subcommands {
        if !sections.contains(sub) {
            problems.push(format!(
                "docs/reference.md: no section \"### `sow {sub}`\" for the subcommand {sub}"
            ));
            continue;
        }
        let named = mentioned.get(sub).cloned().unwrap_or_default();
        for flag in &known.flags[sub] {
            if !named.contains(flag) {
                problems.push(format!(
                    "docs/reference.md: `{flag}` of `sow {sub}` is missing from its section"
                ));
            }
        }
    }
    for flag in &known.global {
        if !global_mentioned.contains(flag) {
            problems.push(format!(
                "docs/reference.md: the global flag `{flag}` is missing from \"Global flags\""
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "docs/reference.md disagrees with `sow --help`:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_help_parser_reads_subcommands_and_flags() {
    let known = known();
    assert!(known.subcommands.iter().any(|s| s == "solve"));
    assert!(known.global.contains("--json") && known.global.contains("-q"));
    assert!(known.flags["solve"].contains("--out-of-core"));
    assert!(
        !known.flags["solve"].contains("--json"),
        "global flags apart"
    );
    assert!(known.valued.contains("--threads") && !known.valued.contains("--json"));
    let call = invocation("--threads 1 eval --multipv 3 kpe", &known);
    assert_eq!(call.subcommand.as_deref(), Some("eval"));
    assert_eq!(call.flags, ["--multipv"]);
    let (calls, foreign) = invocations("$ printf 'x' | sow analyze - --db D", &known);
    assert!(!foreign && calls[0].subcommand.as_deref() == Some("analyze"));
    assert!(invocations("cargo test --release", &known).1);
}
