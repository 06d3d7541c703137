//! The fuzz targets: every input surface a user or a file can give `sow`.
//!
//! A target takes one input and returns what became of it: accepted, or
//! refused with a named error of the error contract (README, "Error
//! contract": a kind, a field, a one-line message). Anything else is a
//! finding: a panic (caught by the runner), a hang (the runner's
//! watchdog), or a contract violation returned here as `Err` (a refusal
//! without a field, a printed position that does not parse back...).

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use sow::error::CliError;
use sow::error::InputError;
use sow::games::kiothi::KiothiPosition;
use sow::games::kpe::{KpePosition, KpeVariant};
use sow::games::{parse_any, AnyPosition};
use sow::infra::progress::Progress;
use sow::infra::rng::Rng;
use sow::kpe_db::check::Content;
use sow::kpe_db::file::{self, Encoding, FileBytes, FileId, FileKind, MappedFile};
use sow::kpe_db::Solution;
use sow::kpe_db::{paths, DbError};
use sow::search::agents::AgentSpec;
use sow::Game;

use crate::mutate;

/// What became of one input.
pub enum Verdict {
    Accepted,
    /// Refused with this signature (`kind/field`, or the database error's
    /// kind): distinct signatures are the runner's coverage proxy.
    Refused(String),
}

pub type Outcome = Result<Verdict, String>;

/// A target's check of one input.
pub type Run = Box<dyn Fn(&[u8]) -> Outcome + Send + Sync>;

/// How a target builds its inputs.
pub enum Input {
    /// Text inputs, mutated token-wise (positions, moves, tags).
    Text,
    /// A binary file image, mutated field-wise; with `reseal`, half of the
    /// mutants get their checksums recomputed so that they pass the
    /// checksum checks and reach the code behind them.
    Binary { fields: Vec<(usize, usize)> },
}

pub struct Target {
    pub name: &'static str,
    pub what: &'static str,
    pub input: Input,
    pub seeds: Vec<Vec<u8>>,
    pub run: Run,
}

/// The header fields of a database file (offset, width), from the layout
/// documented in `src/kpe_db/file/mod.rs`.
const DB_FIELDS: &[(usize, usize)] = &[
    (0, 8),
    (8, 4),
    (12, 4),
    (16, 1),
    (17, 1),
    (18, 2),
    (20, 4),
    (24, 8),
    (32, 8),
    (40, 8),
    (48, 8),
    (56, 8),
    (64, 8),
];

pub const NAMES: &[&str] = &[
    "kpe-position",
    "kiothi-position",
    "kpe-moves",
    "kiothi-moves",
    "variant-tag",
    "agent-spec",
    "db-layer",
    "db-region",
    "db-dir",
    "bound-file",
    "game-file",
    "http",
];

/// Builds a target by name; `work` is a scratch directory (the db targets'
/// seed database and the db-dir target's copy).
pub fn target(name: &str, seeds_dir: &Path, work: &Path) -> Result<Target, String> {
    let text_seeds = |file: &str| -> Vec<Vec<u8>> {
        std::fs::read_to_string(seeds_dir.join(file))
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.is_empty())
            .map(|l| l.as_bytes().to_vec())
            .collect()
    };
    let positions = text_seeds("positions.txt");
    let game_of = |prefix: &str| -> Vec<Vec<u8>> {
        positions
            .iter()
            .filter(|p| p.starts_with(prefix.as_bytes()))
            .cloned()
            .collect()
    };
    let t = match name {
        "kpe-position" => Target {
            name: "kpe-position",
            what: "Kpé position notation and shortcuts (kpe, kpe:WxK), then its moves played",
            input: Input::Text,
            seeds: game_of("kpe"),
            run: Box::new(position),
        },
        "kiothi-position" => Target {
            name: "kiothi-position",
            what: "Kiothi position notation and shortcuts, then its moves played (play phase)",
            input: Input::Text,
            seeds: game_of("kiothi"),
            run: Box::new(position),
        },
        "kpe-moves" => Target {
            name: "kpe-moves",
            what: "a Kpé position line, then moves (as `sow apply`)",
            input: Input::Text,
            seeds: move_seeds(&game_of("kpe"), 1),
            run: Box::new(moves),
        },
        "kiothi-moves" => Target {
            name: "kiothi-moves",
            what:
                "a Kiothi position line, then moves: redistributions and sowings (as `sow apply`)",
            input: Input::Text,
            seeds: move_seeds(&game_of("kiothi"), 2),
            run: Box::new(moves),
        },
        "variant-tag" => Target {
            name: "variant-tag",
            what: "a game argument (`kpe`, `kpe:WxK`, as `sow solve`), its size and start",
            input: Input::Text,
            seeds: ["kpe", "kpe:4x6", "kpe:3x3", "kpe:2x1", "kpe:8x8", "kpe:5x3"]
                .iter()
                .map(|s| s.as_bytes().to_vec())
                .collect(),
            run: Box::new(variant_tag),
        },
        "agent-spec" => Target {
            name: "agent-spec",
            what: "an agent of `sow match` (random, greedy, mcts:N, ab:key=value,...)",
            input: Input::Text,
            seeds: [
                "random",
                "greedy",
                "mcts:1000",
                "ab",
                "ab:depth=4",
                "ab:time=0.5",
                "ab:nodes=1000,threads=2,tt=16",
                "ab:depth=3,eval=hand",
            ]
            .iter()
            .map(|s| s.as_bytes().to_vec())
            .collect(),
            run: Box::new(agent_spec),
        },
        "db-layer" => db_layer_target(work)?,
        "db-region" => db_region_target(work)?,
        "db-dir" => db_dir_target(work)?,
        "bound-file" => bound_file_target(),
        // `sow serve`'s router, with the seed database as its directory.
        "http" => crate::http::target(seeds_dir, &seed_database(work, variant())?)?,
        "game-file" => Target {
            name: "game-file",
            what: "a game file as `sow analyze` reads it (start and moves, match/play JSON lines, apply output), replayed; small Kpé games then analyzed exactly",
            input: Input::Text,
            seeds: file_seeds(&seeds_dir.join("games")),
            run: Box::new(game_file),
        },
        _ => {
            return Err(format!(
                "unknown target `{name}` (targets: {})",
                NAMES.join(", ")
            ))
        }
    };
    Ok(t)
}

/// The header fields of a file of kept bounds and its first entry
/// (offset, width), from the layout documented in
/// `src/prove/bounds_file.rs`.
const BOUND_FILE_FIELDS: &[(usize, usize)] = &[(0, 8), (8, 4), (12, 4), (16, 8), (24, 8), (32, 8)];

/// A file of `sow solve POSITION --keep FILE`, fed as bytes; the seed is
/// the table of a real proof, written.
fn bound_file_target() -> Target {
    use sow::prove::bounds::BoundTable;
    use sow::prove::bounds_file::{self, kiothi_fingerprint};
    use sow::prove::{prove, ProveLimits};
    let late: KiothiPosition = "kiothi 0,1,0,1,0,0,2,1,3,2,1,2,1,4,0,1,0,2,0,1 S play 24 14"
        .parse()
        .expect("a valid position");
    let table = BoundTable::new(1);
    let limits = ProveLimits {
        nodes: Some(3000),
        ..ProveLimits::default()
    };
    let stop = std::sync::atomic::AtomicBool::new(false);
    prove(&late, &limits, 1, &table, &stop, &mut |_| {});
    let fingerprint = kiothi_fingerprint();
    let mut seed = Vec::new();
    bounds_file::write(&table, fingerprint, &mut seed).expect("writing to memory");
    Target {
        name: "bound-file",
        what: "a file of kept proof bounds (`sow solve POSITION --keep FILE`), read into a table (no disk); what is accepted must write back and read again the same",
        input: Input::Binary {
            fields: BOUND_FILE_FIELDS.to_vec(),
        },
        seeds: vec![seed],
        run: Box::new(move |b| bound_file(b, fingerprint)),
    }
}

fn bound_file(bytes: &[u8], fingerprint: u64) -> Outcome {
    use sow::prove::bounds::BoundTable;
    use sow::prove::bounds_file;
    let table = BoundTable::new(1);
    let entries = match bounds_file::read(bytes, fingerprint, &table) {
        Ok(n) => n,
        Err(e) => {
            let debug = format!("{e:?}");
            let variant = debug.split([' ', '{', '(']).next().unwrap_or("");
            return Ok(Verdict::Refused(format!("keep/{variant}")));
        }
    };
    let mut again = Vec::new();
    let written = bounds_file::write(&table, fingerprint, &mut again).map_err(|e| e.to_string())?;
    if written > entries {
        return Err(format!("{entries} entries read, {written} written back"));
    }
    bounds_file::read(&again, fingerprint, &BoundTable::new(1))
        .map_err(|e| format!("a table read from an accepted file wrote a refused one: {e}"))?;
    Ok(Verdict::Accepted)
}

/// An endgame layer file of the seed database, fed as bytes.
fn db_layer_target(work: &Path) -> Result<Target, String> {
    let db = seed_database(work, variant())?;
    let (path, id, entries) = seed_file(&db, FileKind::Layer);
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    // The file as written (zstd blocks) and re-encoded plain, whose
    // payload bytes are the entries themselves: mutated and
    // resealed, they reach the content checks (`kpe_db/check/`).
    let plain = plain_copy(&path, id, work)?;
    Ok(Target {
        name: "db-layer",
        what: "an endgame layer file's bytes (no disk; zstd and plain): header, block table, payload, length, entries",
        input: Input::Binary {
            fields: DB_FIELDS.to_vec(),
        },
        seeds: vec![bytes, plain],
        run: Box::new(move |b| db_file(&path, id, entries, b)),
    })
}

/// The opening region's two files of the seed database, fed as bytes.
fn db_region_target(work: &Path) -> Result<Target, String> {
    let db = seed_database(work, variant())?;
    let (keys_path, keys_id, _) = seed_file(&db, FileKind::RegionKeys);
    let (values_path, values_id, _) = seed_file(&db, FileKind::Region);
    let read = |p: &Path| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
    // Input: which file (0 keys, 1 values zstd, 2 values plain),
    // then its mutated bytes; the other file as built.
    let files = [
        read(&keys_path)?,
        read(&values_path)?,
        plain_copy(&values_path, values_id, work)?,
    ];
    let (seeds, fields) = selected_files(files.iter().map(|b| b.as_slice()));
    let paths = (keys_path, keys_id, values_path, values_id);
    Ok(Target {
        name: "db-region",
        what: "the opening region's key index or values (no disk; a selector byte, then the file): open checks, lookups along the opening, a full load and export walk",
        input: Input::Binary { fields },
        seeds,
        run: Box::new(move |b| db_region(&paths, &files, b)),
    })
}

/// A copy of a small database directory, one file mutated per input.
fn db_dir_target(work: &Path) -> Result<Target, String> {
    let v = dir_variant();
    let db = seed_database(work, v)?;
    let copy = work.join("db-dir");
    let _ = std::fs::remove_dir_all(&copy);
    let dir = paths::variant_dir(&copy, v);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let mut files = Vec::new();
    for entry in std::fs::read_dir(paths::variant_dir(&db, v)).map_err(|e| e.to_string())? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.extension().is_some_and(|e| e == "sowdb") {
            let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
            let to = dir.join(path.file_name().expect("a file"));
            std::fs::write(&to, &bytes).map_err(|e| e.to_string())?;
            files.push((to, bytes));
        }
    }
    files.sort();
    // An input is a file number, then that file's mutated bytes.
    let (seeds, fields) = selected_files(files.iter().map(|(_, b)| b.as_slice()));
    Ok(Target {
        name: "db-dir",
        what: "a database directory with one file mutated, read by eval, its line, stats and export paths",
        input: Input::Binary { fields },
        seeds,
        run: Box::new(move |b| db_dir(&copy, &files, b)),
    })
}

/// Each file of a directory is one seed (multi-line inputs).
fn file_seeds(dir: &Path) -> Vec<Vec<u8>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    files.iter().filter_map(|f| std::fs::read(f).ok()).collect()
}

/// A refusal of the command line, checked as [`refusal`] checks the
/// library's.
fn cli_refusal(e: &CliError) -> Outcome {
    let field = e.field.as_deref().unwrap_or("");
    if e.kind.as_str().is_empty()
        || field.is_empty()
        || e.message.is_empty()
        || e.message.contains('\n')
    {
        return Err(format!(
            "refusal without a kind, field or one-line message: {e:?}"
        ));
    }
    let field_word = field.split(' ').next().unwrap_or(field);
    Ok(Verdict::Refused(format!("{}/{field_word}", e.kind)))
}

/// Variants small enough to be solved for every input (a few thousand
/// positions): their games are analyzed as `sow analyze` does.
const ANALYZED_POSITIONS: u64 = 5_000;

/// A game file: read, its start found, its moves replayed (as `sow
/// analyze`); a game of a small Kpé variant then valued ply by ply.
fn game_file(b: &[u8]) -> Outcome {
    use sow::analysis::annotate::analyze_game;
    use sow::analysis::game_replay::{find_start, replay};
    use sow::analysis::game_text::parse_game_text;
    use sow::analysis::oracle::KpeOracle;
    let t = match text(b) {
        Ok(t) => t,
        Err(v) => return Ok(v),
    };
    let game = match parse_game_text(t, None) {
        Ok(g) => g,
        Err(e) => return cli_refusal(&e.into()),
    };
    let start = match find_start(&game, None) {
        Ok(p) => p,
        Err(e) => return cli_refusal(&e.into()),
    };
    match &start {
        AnyPosition::Kpe(p) => {
            let record = match replay(p, &game) {
                Ok((r, _)) => r,
                Err(e) => return cli_refusal(&e),
            };
            let v = p.variant();
            if sow::kpe_db::endgame_positions(v) <= ANALYZED_POSITIONS {
                let solution = Solution::in_memory(v, Progress::Hidden);
                let mut oracle = KpeOracle::new(solution, Progress::Hidden);
                let info = sow::analysis::annotate::GameInfo::new(&game, "");
                if let Err(e) = analyze_game(&record, &mut oracle, info, &mut |_, _| {}) {
                    return match e {
                        sow::kpe_db::SolveError::Input(e) => refusal(&e),
                        e => Err(format!("analysis of a replayed game failed: {e}")),
                    };
                }
            }
        }
        AnyPosition::Kiothi(p) => {
            if let Err(e) = replay(p, &game) {
                return cli_refusal(&e);
            }
        }
    }
    Ok(Verdict::Accepted)
}

/// A refusal must be a named error: a kind of the contract, a field, and a
/// one-line message; the CLI's JSON object must carry them.
fn refusal(e: &InputError) -> Outcome {
    let field = e.field().unwrap_or("");
    let message = e.to_string();
    if field.is_empty() || message.is_empty() || message.contains('\n') {
        return Err(format!(
            "refusal without a field or one-line message: {e:?}"
        ));
    }
    let json = CliError::from(e.clone()).to_json();
    if json["error"]["kind"] != e.kind().as_str() || json["error"]["field"] != field {
        return Err(format!("refusal's JSON does not carry it: {json}"));
    }
    // Fields like `pit 13` are one field: the signature keeps its word.
    let field_word = field.split(' ').next().unwrap_or(field);
    Ok(Verdict::Refused(format!("{}/{field_word}", e.kind())))
}

fn text(b: &[u8]) -> Result<&str, Verdict> {
    // Command-line arguments arrive as UTF-8 (clap refuses the rest).
    std::str::from_utf8(b).map_err(|_| Verdict::Refused("utf8".into()))
}

/// A position printed must parse back to itself.
fn round_trip(p: &AnyPosition) -> Result<(), String> {
    let printed = p.to_string();
    match parse_any(&printed) {
        Ok(q) if q == *p => Ok(()),
        Ok(q) => Err(format!("`{printed}` parses back as `{q}`")),
        Err(e) => Err(format!("`{printed}` does not parse back: {e}")),
    }
}

/// Plays every legal move of a position (at most `limit`), checking that
/// each printed move parses back to itself and each child round-trips.
fn children<G: Game>(p: &G, limit: usize, wrap: fn(G) -> AnyPosition) -> Result<(), String>
where
    G::Move: std::fmt::Display + PartialEq,
{
    let mut err = None;
    let mut seen = 0;
    let _ = p.for_each_move(|m| {
        let printed = m.to_string();
        match p.parse_move(&printed) {
            Ok(back) if back == m => {}
            _ => {
                err = Some(format!("move `{printed}` of `{p}` does not parse back"));
                return ControlFlow::Break(());
            }
        }
        if let Err(e) = round_trip(&wrap(p.play_unchecked(&m))) {
            err = Some(e);
            return ControlFlow::Break(());
        }
        seen += 1;
        if seen >= limit {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    err.map_or(Ok(()), Err)
}

fn explore(p: &AnyPosition) -> Result<(), String> {
    round_trip(p)?;
    match p {
        AnyPosition::Kpe(k) => {
            let _ = (k.is_over(), k.final_sweep(), k.terminal_value());
            children(k, usize::MAX, AnyPosition::Kpe)
        }
        AnyPosition::Kiothi(k) => {
            let _ = (k.is_over(), k.final_sweep());
            // An opening has up to 300,450,150 moves: a sample of them.
            children(k, 200, AnyPosition::Kiothi)
        }
    }
}

fn position(b: &[u8]) -> Outcome {
    let t = match text(b) {
        Ok(t) => t,
        Err(v) => return Ok(v),
    };
    match parse_any(t) {
        Ok(p) => explore(&p).map(|()| Verdict::Accepted),
        Err(e) => refusal(&e),
    }
}

/// `position\nmove move ...`: the moves played in order as `sow apply`.
fn moves(b: &[u8]) -> Outcome {
    let t = match text(b) {
        Ok(t) => t,
        Err(v) => return Ok(v),
    };
    let (pos, rest) = t.split_once('\n').unwrap_or((t, ""));
    let mut p = match parse_any(pos) {
        Ok(p) => p,
        Err(e) => return refusal(&e),
    };
    for mv in rest.split_whitespace() {
        let next = match &p {
            AnyPosition::Kpe(k) => k.play(mv).map(AnyPosition::Kpe),
            AnyPosition::Kiothi(k) => k.play(mv).map(AnyPosition::Kiothi),
        };
        p = match next {
            Ok(n) => n,
            Err(e) => return refusal(&e),
        };
        round_trip(&p)?;
    }
    explore(&p).map(|()| Verdict::Accepted)
}

fn variant_tag(b: &[u8]) -> Outcome {
    let t = match text(b) {
        Ok(t) => t,
        Err(v) => return Ok(v),
    };
    let v = match sow::games::game_name::parse_kpe_game(t) {
        Ok(v) => v,
        Err(e) if e.field.as_deref().is_some_and(|f| !f.is_empty()) => {
            return Ok(Verdict::Refused(format!("{}/{}", e.kind, e.field.unwrap())))
        }
        Err(e) => return Err(format!("refusal without a field: {e:?}")),
    };
    // The size checks `solve` makes before any work, and the start.
    if let Err(e) = sow::kpe_db::check_solvable(v) {
        refusal(&e)?;
    }
    round_trip(&AnyPosition::Kpe(KpePosition::start(v)))?;
    Ok(Verdict::Accepted)
}

fn agent_spec(b: &[u8]) -> Outcome {
    let t = match text(b) {
        Ok(t) => t,
        Err(v) => return Ok(v),
    };
    match AgentSpec::parse(t) {
        Ok(spec) => {
            // The canonical name must parse back to the same agent.
            let name = spec.to_string();
            match AgentSpec::parse(&name) {
                Ok(back) if back.to_string() == name => Ok(Verdict::Accepted),
                _ => Err(format!(
                    "agent `{t}` prints as `{name}`, which does not parse back"
                )),
            }
        }
        Err(e) => refusal(&e),
    }
}

/// The variant of the file targets' seed database: small enough to build
/// in a second, with several blocks in its largest layer and a locked region.
fn variant() -> KpeVariant {
    KpeVariant::new(3, 2).expect("3x2")
}

/// The variant of the directory target: the smallest, so that a whole
/// open-and-query pass takes well under a millisecond.
fn dir_variant() -> KpeVariant {
    KpeVariant::new(2, 2).expect("2x2")
}

/// Builds a seed database under `work` (reused when already there).
fn seed_database(work: &Path, v: KpeVariant) -> Result<PathBuf, String> {
    let db = work.join("seed-db");
    Solution::build(v, &db, Progress::Hidden).map_err(|e| e.to_string())?;
    Ok(db)
}

/// The largest layer, or the region file, of the seed database.
fn seed_file(db: &Path, kind: FileKind) -> (PathBuf, FileId, Option<u64>) {
    let v = variant();
    let eg = sow::kpe_db::endgame::Endgame::new(v);
    match kind {
        FileKind::Layer => {
            let n = eg
                .layers()
                .max_by_key(|&n| eg.index.layer_size(n))
                .expect("layers");
            let id = FileId {
                kind,
                variant: v,
                stones: n as u32,
            };
            (
                paths::layer_path(db, v, n),
                id,
                Some(eg.index.layer_size(n)),
            )
        }
        FileKind::Region => {
            let id = FileId {
                kind,
                variant: v,
                stones: 0,
            };
            (paths::region_path(db, v), id, None)
        }
        FileKind::RegionKeys => {
            let id = FileId {
                kind,
                variant: v,
                stones: 0,
            };
            (paths::region_keys_path(db, v), id, None)
        }
        FileKind::RegionExplored | FileKind::RegionSolvedRun | FileKind::RegionSeeds => {
            unreachable!("a finished build keeps no checkpoint")
        }
    }
}

/// A database error must name the file (or directory) at fault.
fn db_refusal(e: &DbError, path: &Path) -> Outcome {
    let message = e.to_string();
    let dir = path.parent().and_then(Path::parent).unwrap_or(path);
    if !message.contains(&*dir.to_string_lossy()) || message.contains('\n') {
        return Err(format!("database error not naming its file: {message}"));
    }
    let kind = match e {
        DbError::Io { .. } => "io",
        DbError::Corrupt { .. } => "corrupt",
        DbError::Mismatch { .. } => "mismatch",
        DbError::Truncated { .. } => "truncated",
        DbError::Missing { .. } => "missing",
        DbError::Incomplete { .. } => "incomplete",
        DbError::OldFormat { .. } => "old-format",
    };
    // The first words of the explanation separate the checks.
    let what = message
        .rsplit(": ")
        .next()
        .unwrap_or("")
        .split_whitespace()
        .filter(|w| !w.chars().any(|c| c.is_ascii_digit()))
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    Ok(Verdict::Refused(format!("{kind}/{what}")))
}

/// Checks a file image as the readers do: header, every block, reads
/// (in range and past the end), and for a region its lookups and load.
fn db_file(path: &Path, id: FileId, entries: Option<u64>, b: &[u8]) -> Outcome {
    let file = match MappedFile::from_bytes(path, FileBytes::Owned(b.to_vec()), id, entries) {
        Ok(f) => f.with_check(Content::of(id)),
        Err(e) => return db_refusal(&e, path),
    };
    if let Err(e) = file.verify_all() {
        return db_refusal(&e, path);
    }
    let n = file.entries();
    if file.encoding() == Encoding::Plain {
        for (start, len) in [(0, 1), (n.saturating_sub(1), 1), (n, 1), (u64::MAX, 2)] {
            let _ = file.bytes(start as usize, len);
            let _ = file.byte(start as usize);
        }
    }
    // Entries as a probe and as a full load read them (content checks).
    for i in [0, n / 2, n.saturating_sub(1)] {
        if i < n {
            if let Err(e) = file.entry(i) {
                return db_refusal(&e, path);
            }
        }
    }
    if let Err(e) = file.all_entries() {
        return db_refusal(&e, path);
    }
    Ok(Verdict::Accepted)
}

/// A value file re-encoded plain (entries as payload), as bytes.
fn plain_copy(path: &Path, id: FileId, work: &Path) -> Result<Vec<u8>, String> {
    let file = MappedFile::open(path, id, None).map_err(|e| e.to_string())?;
    let entries = file.all_entries().map_err(|e| e.to_string())?;
    let to = work.join("plain-copy.sowdb");
    file::write_values(&to, id, &entries, Encoding::Plain).map_err(|e| e.to_string())?;
    let bytes = std::fs::read(&to).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&to);
    Ok(bytes)
}

/// The region's key index and values from bytes (one of them the input),
/// opened as `Solution::open` does, then queried as `eval` (the start and
/// the positions along a few opening moves), `stats` (a full load) and
/// `export` (every key) do.
fn db_region(
    (keys_path, keys_id, values_path, values_id): &(PathBuf, FileId, PathBuf, FileId),
    files: &[Vec<u8>; 3],
    b: &[u8],
) -> Outcome {
    use sow::kpe_db::StartRegion;
    let Some((&which, bytes)) = b.split_first() else {
        return Ok(Verdict::Refused("empty".into()));
    };
    let which = which as usize % 3;
    let (keys, values) = match which {
        0 => (bytes.to_vec(), files[1].clone()),
        _ => (files[0].clone(), bytes.to_vec()),
    };
    let path = if which == 0 { keys_path } else { values_path };
    let v = variant();
    let answer = (|| -> Result<(), DbError> {
        let keys = MappedFile::from_bytes(keys_path, FileBytes::Owned(keys), *keys_id, None)?;
        let values =
            MappedFile::from_bytes(values_path, FileBytes::Owned(values), *values_id, None)?
                .with_check(Content::of(*values_id));
        let region = StartRegion::mapped(keys, values, v)?;
        let mut pos = KpePosition::start(v);
        for _ in 0..6 {
            for m in pos.legal_moves() {
                let child = pos.play_unchecked(&m);
                if !(child.is_unlocked(sow::Side::South) && child.is_unlocked(sow::Side::North)) {
                    region.entry(&child)?;
                }
            }
            region.entry(&pos)?;
            match pos.legal_moves().first() {
                Some(m) => pos = pos.play_unchecked(m),
                None => break,
            }
        }
        region.groups()?;
        region.for_each(|_, _| Ok::<_, DbError>(()))?;
        Ok(())
    })();
    match answer {
        Ok(()) => Ok(Verdict::Accepted),
        Err(e) => db_refusal(&e, path),
    }
}

/// One file of a database directory replaced by the input's bytes, then
/// the directory opened and queried as `eval`, `stats` and `export` do.
fn db_dir(db: &Path, files: &[(PathBuf, Vec<u8>)], b: &[u8]) -> Outcome {
    let Some((&which, bytes)) = b.split_first() else {
        return Ok(Verdict::Refused("empty".into()));
    };
    let (path, original) = &files[which as usize % files.len()];
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let outcome = query_dir(db, path);
    std::fs::write(path, original).map_err(|e| format!("{}: {e}", path.display()))?;
    outcome
}

fn query_dir(db: &Path, path: &Path) -> Outcome {
    use sow::kpe_db::SolveError;
    let v = dir_variant();
    let solution = match Solution::open(v, db) {
        Ok(s) => s,
        Err(SolveError::Db(e)) => return db_refusal(&e, path),
        Err(e) => return Err(format!("open: {e}")),
    };
    let start = KpePosition::start(v);
    let answer = (|| -> Result<(), sow::kpe_db::SolveError> {
        solution.value(&start, None)?;
        solution.move_values(&start, None)?;
        solution.principal_variation(&start, None, 100)?;
        let eg = &solution.eg;
        for n in eg.layers() {
            solution.layer_entries(n)?;
        }
        // An unlocked position's exact value (every layer is read by
        // `stats`; one probe per layer here).
        let all = v.all_marks();
        let unlocked =
            KpePosition::from_parts(v, &[2, 1, 0, 1], sow::Side::South, [all, all], [2, 2]);
        solution.value(&unlocked, None)?;
        solution.move_values(&unlocked, None)?;
        solution.start_region().groups()?;
        Ok(())
    })();
    match answer {
        Ok(()) => Ok(Verdict::Accepted),
        Err(SolveError::Db(e)) => db_refusal(&e, path),
        // A region file whose checksums were recomputed over other
        // content (forged, not damaged) can lack positions: refused as
        // such, a named error all the same.
        Err(SolveError::Input(e)) => refusal(&e).map(|v| match v {
            Verdict::Refused(s) => Verdict::Refused(format!("forged/{s}")),
            v => v,
        }),
    }
}

/// Move inputs: each seed position followed by a few legal moves (a
/// seeded random line), so that mutations start from legal sequences.
fn move_seeds(positions: &[Vec<u8>], per_position: usize) -> Vec<Vec<u8>> {
    let mut rng = Rng::new(14);
    let mut out = Vec::new();
    for p in positions {
        let Ok(text) = std::str::from_utf8(p) else {
            continue;
        };
        let Ok(pos) = parse_any(text) else {
            continue;
        };
        for _ in 0..per_position {
            let line = match &pos {
                AnyPosition::Kpe(k) => random_line(k, &mut rng),
                AnyPosition::Kiothi(k) => random_line::<KiothiPosition>(k, &mut rng),
            };
            out.push(format!("{text}\n{line}").into_bytes());
        }
    }
    out
}

fn random_line<G: Game>(start: &G, rng: &mut Rng) -> String
where
    G::Move: std::fmt::Display,
{
    let mut p = start.clone();
    let mut line = Vec::new();
    for _ in 0..1 + rng.below(6) {
        // The first moves in generation order, one picked (an opening's
        // full list is far too long to draw from uniformly).
        let mut first = Vec::new();
        let skip = rng.below(50);
        let mut i = 0;
        let _ = p.for_each_move(|m| {
            i += 1;
            if i > skip {
                first.push(m);
            }
            if first.len() >= 20 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        if first.is_empty() {
            let _ = p.for_each_move(|m| {
                first.push(m);
                ControlFlow::Break(())
            });
        }
        let Some(m) = mutate::pick(rng, &first) else {
            break;
        };
        line.push(m.to_string());
        p = p.play_unchecked(m);
    }
    line.join(" ")
}

/// Seeds and mutable fields of a target whose input is a selector byte
/// (which file) followed by that file's bytes: the header fields shifted
/// past the selector, and the selector itself.
fn selected_files<'a>(
    files: impl Iterator<Item = &'a [u8]>,
) -> (Vec<Vec<u8>>, Vec<(usize, usize)>) {
    let seeds = files
        .enumerate()
        .map(|(i, b)| {
            let mut s = vec![i as u8];
            s.extend_from_slice(b);
            s
        })
        .collect();
    let mut fields: Vec<(usize, usize)> = DB_FIELDS.iter().map(|&(a, w)| (a + 1, w)).collect();
    fields.push((0, 1));
    (seeds, fields)
}
