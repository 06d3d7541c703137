//! The opening book (`sow::book`): its values against exhaustive
//! minimax on a tiny board, its reproducibility (threads, interruptions),
//! its file's refusals, and the command that builds it.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::common::{error_of, json_of, sow, temp_dir};
use sow::book::file::{decode, encode, verify_moves};
use sow::book::leaf::value_leaf;
use sow::book::scan::{scan_first_moves, scan_replies, two_ply_score};
use sow::book::scan_provider::{FIRST_MOVES_KEPT, REPLY_SCAN_LIMIT};
use sow::book::{
    grow, new_book, Book, BookError, BookState, BuildParams, EngineCandidates, EveryMove,
    MoveProvider, RunLimits, ScanProvider, Stopped,
};
use sow::games::kiothi::{KiothiMove, KiothiPosition, Setup};
use sow::infra::progress::Progress;
use sow::search::Searchable;
use sow::Game;

/// One warrior a side (South's in pit 6, North's in pit 16): every
/// redistribution of both opening turns can be enumerated (20 first moves,
/// 20 or 210 replies), and lines transpose (South's warrior dropped into a
/// North pit, lifted with North's own, leaves boards other lines reach).
fn tiny() -> KiothiPosition {
    let mut pits = [0u8; 20];
    pits[6] = 1;
    pits[16] = 1;
    KiothiPosition::test_opening(pits)
}

fn params(seed: u64, leaf_nodes: u64, batch: u32, width: u32, max_ply: u32) -> BuildParams {
    BuildParams {
        seed,
        leaf_nodes,
        batch,
        width,
        depth_penalty: 3,
        max_ply,
    }
}

/// A book of `root` grown to `expansions` (or to completion).
fn build(
    root: KiothiPosition,
    p: BuildParams,
    provider: &dyn MoveProvider,
    expansions: Option<u64>,
) -> (BookState, Stopped) {
    let mut book = new_book(root, p, provider);
    let stopped = resume(&mut book, provider, expansions, &AtomicBool::new(false));
    (book, stopped)
}

fn resume(
    book: &mut BookState,
    provider: &dyn MoveProvider,
    expansions: Option<u64>,
    stop: &AtomicBool,
) -> Stopped {
    let limits = RunLimits {
        expansions,
        deadline: None,
        stop,
    };
    grow(book, provider, &limits, &mut |_| Ok::<(), ()>(())).unwrap()
}

/// The same leaf evaluation as the book's: the engine's search of
/// `leaf_nodes` nodes, memoised.
struct Leaves {
    nodes: u64,
    memo: HashMap<KiothiPosition, i32>,
}

impl Leaves {
    fn value(&mut self, pos: &KiothiPosition) -> i32 {
        let n = self.nodes;
        *self
            .memo
            .entry(*pos)
            .or_insert_with(|| value_leaf(pos, n).value)
    }
}

fn children(pos: &KiothiPosition) -> Vec<(KiothiMove, KiothiPosition)> {
    let mut out = Vec::new();
    let _ = pos.for_each_child(|mv, c| {
        out.push((mv, c));
        ControlFlow::Continue(())
    });
    out
}

/// Fewest plies from `root` to every position within `max_ply`, by a
/// breadth-first walk over every legal move.
fn min_plies(root: KiothiPosition, max_ply: u32) -> HashMap<KiothiPosition, u32> {
    let mut ply = HashMap::from([(root, 0)]);
    let mut frontier = vec![root];
    for d in 1..=max_ply {
        let mut next = Vec::new();
        for pos in &frontier {
            for (_, c) in children(pos) {
                if let std::collections::hash_map::Entry::Vacant(e) = ply.entry(c) {
                    e.insert(d);
                    next.push(c);
                }
            }
        }
        frontier = next;
    }
    ply
}

/// Exhaustive minimax over every legal move (both redistributions
/// included): a position reached in fewer than `max_ply` plies is worth
/// its best move (captures minus the child's value); one at `max_ply`, its
/// leaf evaluation; a finished game, its final margin (RULES §0).
fn minimax(
    pos: &KiothiPosition,
    plies: &HashMap<KiothiPosition, u32>,
    max_ply: u32,
    leaves: &mut Leaves,
    memo: &mut HashMap<KiothiPosition, i32>,
    line: &mut Vec<KiothiPosition>,
) -> i32 {
    if let Some(&v) = memo.get(pos) {
        return v;
    }
    let v = if pos.is_over() {
        pos.terminal_value()
    } else if plies[pos] >= max_ply {
        leaves.value(pos)
    } else {
        line.push(*pos);
        let mut best = i32::MIN;
        for (_, c) in children(pos) {
            assert!(!line.contains(&c), "a repetition within the horizon: {c}");
            let gain = KiothiPosition::capture_gain(pos, &c);
            best = best.max(gain - minimax(&c, plies, max_ply, leaves, memo, line));
        }
        line.pop();
        best
    };
    memo.insert(*pos, v);
    v
}

/// Builds the whole book of `root` within `p.max_ply` with every legal
/// move and checks every node's value against [`minimax`]; returns how
/// many positions were expanded.
fn book_equals_minimax(root: KiothiPosition, p: BuildParams) -> usize {
    let (book, stopped) = build(root, p, &EveryMove, None);
    assert_eq!(stopped, Stopped::Complete);
    let plies = min_plies(root, p.max_ply);
    let mut leaves = Leaves {
        nodes: p.leaf_nodes,
        memo: HashMap::new(),
    };
    let mut memo = HashMap::new();
    let root_value = minimax(
        &root,
        &plies,
        p.max_ply,
        &mut leaves,
        &mut memo,
        &mut vec![],
    );
    // Every position within the horizon is in the book, once.
    assert_eq!(book.dag.len(), plies.len());
    let mut expanded = 0;
    for node in book.dag.nodes() {
        assert_eq!(node.value as i32, memo[&node.pos], "{}", node.pos);
        if !node.edges.is_empty() {
            expanded += 1;
            let distinct: std::collections::HashSet<KiothiPosition> =
                children(&node.pos).into_iter().map(|(_, c)| c).collect();
            assert_eq!(node.edges.len(), distinct.len(), "{}", node.pos);
        }
    }
    assert_eq!(book.dag.root().value as i32, root_value);
    assert!((0..=p.max_ply).all(|d| plies.values().any(|&x| x == d)));
    assert_eq!(book.dag.root().edges.len() as u64, root.move_count());
    verify_moves(&book).unwrap();
    // The probe says the same, best move first.
    let b = Book::from_state(book.clone());
    let entry = b.lookup(&root).unwrap();
    assert_eq!(entry.value, root_value);
    assert_eq!(entry.moves[0].value, root_value);
    assert!(entry.moves.windows(2).all(|w| w[0].value >= w[1].value));
    let first = root.play_move(&entry.moves[0].mv).unwrap();
    assert_eq!(b.lookup(&first).unwrap().value, -root_value);
    expanded
}

#[test]
fn tiny_book_values_equal_exhaustive_minimax_over_both_redistributions_and_play() {
    // Widened 6 moves at a time: turn 2's 210 replies take 35 widenings.
    let expanded = book_equals_minimax(tiny(), params(7, 150, 4, 6, 5));
    assert!(expanded > 300, "{expanded} positions expanded");
}

/// Two pits of one warrior a side: 210 first moves, up to 8,855 replies each.
#[test]
fn two_a_side_book_values_equal_exhaustive_minimax() {
    let mut pits = [0u8; 20];
    for p in [6, 7, 16, 17] {
        pits[p] = 1;
    }
    let expanded = book_equals_minimax(
        KiothiPosition::test_opening(pits),
        params(9, 40, 16, 2048, 3),
    );
    eprintln!("{expanded} positions expanded");
    assert!(expanded > 1000, "{expanded} positions expanded");
}

/// Different move orders reach one position: it is one node with several parents.
#[test]
fn transpositions_share_one_node() {
    let (book, _) = build(tiny(), params(1, 100, 8, 300, 2), &EveryMove, None);
    let mut parents = vec![0u32; book.dag.len()];
    for n in book.dag.nodes() {
        for e in &n.edges {
            parents[e.child as usize] += 1;
        }
    }
    assert!(parents.iter().any(|&p| p > 1));
}

#[test]
fn same_seed_same_book_on_one_and_two_threads() {
    let start = KiothiPosition::start(Setup::SixPit);
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                let (b, _) = build(start, params(3, 300, 3, 4, 6), &EngineCandidates, Some(12));
                encode(&b)
            })
    };
    let one = run(1);
    assert_eq!(one, run(2));
    let book = decode(&one, Path::new("mem")).unwrap();
    // The first batch expands the root alone, then 3 at a time.
    assert_eq!(book.expansions, 13);
    assert!(book.dag.len() > 12);
    // Another seed breaks ties otherwise: another book.
    let (other, _) = build(start, params(4, 300, 3, 4, 6), &EngineCandidates, Some(12));
    assert_ne!(encode(&other), one);
}

/// Sets the stop flag (Ctrl-C) when asked for opening moves the `at`-th time.
struct StopsAt<'a> {
    calls: AtomicUsize,
    at: usize,
    stop: &'a AtomicBool,
}

impl MoveProvider for StopsAt<'_> {
    fn name(&self) -> &str {
        EveryMove.name()
    }
    fn opening_moves(
        &self,
        pos: &KiothiPosition,
        count: usize,
        seed: u64,
    ) -> Vec<(KiothiMove, KiothiPosition)> {
        if self.calls.fetch_add(1, Ordering::SeqCst) + 1 == self.at {
            self.stop.store(true, Ordering::SeqCst);
        }
        EveryMove.opening_moves(pos, count, seed)
    }
}

#[test]
fn an_interrupted_build_resumes_to_the_same_book_byte_for_byte() {
    let p = params(5, 120, 3, 7, 4);
    let (whole, _) = build(tiny(), p, &EveryMove, Some(60));
    let whole = encode(&whole);
    // Stopped after 21 expansions, written, read back, resumed.
    let (part, stopped) = build(tiny(), p, &EveryMove, Some(21));
    assert_eq!(stopped, Stopped::Expansions);
    let mut part = decode(&encode(&part), Path::new("part")).unwrap();
    resume(&mut part, &EveryMove, Some(60), &AtomicBool::new(false));
    assert_eq!(encode(&part), whole);
    // Ctrl-C in the middle of a batch: the batch is dropped whole.
    let stop = AtomicBool::new(false);
    let stopping = StopsAt {
        calls: AtomicUsize::new(0),
        at: 9,
        stop: &stop,
    };
    let mut cut = new_book(tiny(), p, &stopping);
    assert_eq!(
        resume(&mut cut, &stopping, Some(60), &stop),
        Stopped::Interrupted
    );
    assert!(cut.expansions < 60);
    let mut cut = decode(&encode(&cut), Path::new("cut")).unwrap();
    resume(&mut cut, &EveryMove, Some(60), &AtomicBool::new(false));
    assert_eq!(encode(&cut), whole);
}

fn small_book() -> Vec<u8> {
    let (b, _) = build(tiny(), params(2, 60, 2, 5, 3), &EveryMove, Some(6));
    encode(&b)
}

#[test]
fn a_book_reads_back_as_written() {
    let bytes = small_book();
    let book = decode(&bytes, Path::new("b.sowbook")).unwrap();
    assert_eq!(encode(&book), bytes);
    verify_moves(&book).unwrap();
    assert_eq!(book.provider, "every");
    assert_eq!(book.params, params(2, 60, 2, 5, 3));
}

#[test]
fn every_flipped_byte_is_refused_naming_the_file() {
    let bytes = small_book();
    let name = Path::new("some/dir/flipped.sowbook");
    for i in 0..bytes.len() {
        for bit in [0x01u8, 0x80] {
            let mut b = bytes.clone();
            b[i] ^= bit;
            let err = decode(&b, name).expect_err(&format!("byte {i} flipped was taken"));
            assert!(
                err.to_string().starts_with("some/dir/flipped.sowbook: "),
                "{err}"
            );
        }
    }
}

#[test]
fn truncated_foreign_and_other_version_files_are_refused() {
    let bytes = small_book();
    let name = Path::new("x.sowbook");
    for len in [
        0,
        5,
        8,
        10,
        11,
        100,
        144,
        151,
        bytes.len() - 9,
        bytes.len() - 1,
    ] {
        let err = decode(&bytes[..len], name).unwrap_err();
        match err {
            BookError::Truncated { .. } if len >= 8 => {}
            BookError::NotABook { .. } if len < 8 => {}
            e => panic!("{len} bytes: {e}"),
        }
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(decode(&longer, name).is_err());
    // Not a book at all: a Kpé database's bytes, text, nothing.
    for foreign in [&b"SOWKPE01\x00\x00"[..], b"kiothi 0,0,0", b""] {
        assert!(matches!(
            decode(foreign, name),
            Err(BookError::NotABook { .. })
        ));
    }
    // A book of another game, another version.
    let mut other = bytes.clone();
    other[10] = 2;
    assert!(matches!(
        decode(&other, name),
        Err(BookError::OtherGame { code: 2, .. })
    ));
    let mut newer = bytes.clone();
    newer[8] = 2;
    let err = decode(&newer, name).unwrap_err();
    assert!(matches!(err, BookError::Version { found: 2, .. }));
    assert!(err.to_string().contains("x.sowbook"), "{err}");
}

#[test]
fn lookup_ignores_prisons_and_misses_positions_out_of_the_book() {
    let book = Book::from_bytes(&small_book(), Path::new("b")).unwrap();
    let root = book.lookup(&tiny()).unwrap();
    assert!(!root.moves.is_empty());
    assert_eq!(
        root.depth,
        root.moves.iter().map(|m| m.depth).max().unwrap()
    );
    assert!(book.lookup(&KiothiPosition::start(Setup::SixPit)).is_none());
    // A leaf: its engine value and depth, no moves.
    let leaf = book
        .state()
        .dag
        .nodes()
        .iter()
        .find(|n| n.edges.is_empty() && !n.pos.is_over())
        .unwrap();
    let e = book.lookup(&leaf.pos).unwrap();
    assert!(e.moves.is_empty());
    assert_eq!(e.value, value_leaf(&leaf.pos, 60).value);
    assert_eq!(e.depth, value_leaf(&leaf.pos, 60).depth);
}

#[test]
fn the_command_builds_resumes_and_refuses() {
    let dir = temp_dir("book", "cli");
    let file = dir.join("b.sowbook");
    let f = file.to_str().unwrap();
    let base = [
        "openings",
        "kiothi",
        "--book",
        f,
        "--leaf-nodes",
        "200",
        "--width",
        "3",
        "--batch",
        "2",
        "--provider",
        "candidates",
        "--json",
    ];
    let with = |extra: &[&str]| {
        let mut a = base.to_vec();
        a.extend_from_slice(extra);
        sow(&a)
    };
    let first = json_of(&with(&["--expansions", "1"]));
    assert_eq!(first["positions"], 4);
    assert_eq!(first["expansions"], 1);
    assert_eq!(first["stopped"], "expansions");
    assert_eq!(first["best"].as_array().unwrap().len(), 3);
    let bytes = std::fs::read(&file).unwrap();
    assert_eq!(bytes.len() as u64, first["file_bytes"].as_u64().unwrap());
    // Resumed: the parameters are the book's.
    let more = json_of(&sow(&[
        "openings",
        "kiothi",
        "--book",
        f,
        "--expansions",
        "3",
        "--json",
    ]));
    assert_eq!(more["expansions"], 3);
    assert_eq!(more["added_expansions"], 2);
    assert_eq!(more["leaf_nodes"], 200);
    assert_eq!(more["provider"], "candidates");
    // Another provider for the same file: refused, naming the flag.
    let e = error_of(&sow(&[
        "openings",
        "kiothi",
        "--book",
        f,
        "--expansions",
        "9",
        "--provider",
        "scan",
        "--json",
    ]));
    assert_eq!(e["kind"], "usage");
    assert_eq!(e["field"], "provider");
    // Another seed for the same file: refused, the file untouched.
    let before = std::fs::read(&file).unwrap();
    let e = error_of(&with(&["--expansions", "9", "--seed", "5"]));
    assert_eq!(e["kind"], "usage");
    assert_eq!(e["field"], "seed");
    assert!(e["message"].as_str().unwrap().contains("seed 5"), "{e}");
    assert_eq!(std::fs::read(&file).unwrap(), before);
    // A damaged book: refused, naming it.
    let mut damaged = before.clone();
    damaged[200] ^= 4;
    std::fs::write(&file, &damaged).unwrap();
    let e = error_of(&with(&["--expansions", "9"]));
    assert_eq!(e["kind"], "database");
    assert_eq!(e["field"], "book");
    assert!(e["message"].as_str().unwrap().contains("b.sowbook"), "{e}");
    assert_eq!(std::fs::read(&file).unwrap(), damaged);
    // A six-pit book extended as the five-pit one: refused.
    std::fs::write(&file, &before).unwrap();
    let e = error_of(&sow(&[
        "openings",
        "kiothi:five",
        "--book",
        f,
        "--expansions",
        "9",
        "--json",
    ]));
    assert_eq!(e["kind"], "database");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_budget_that_cannot_be_parsed_is_a_usage_error_and_nothing_is_written() {
    let dir = temp_dir("book", "budget");
    let file = dir.join("new").join("b.sowbook");
    let f = file.to_str().unwrap();
    for (flag, bad) in [
        ("--budget", "2x"),
        ("--budget", "1m1h"),
        ("--budget", "0"),
        ("--expansions", "0"),
        ("--checkpoint", "soon"),
    ] {
        let e = error_of(&sow(&[
            "openings", "kiothi", flag, bad, "--book", f, "--json",
        ]));
        assert_eq!(e["kind"], "usage", "{flag} {bad}");
        assert_eq!(e["field"], &flag[2..], "{flag} {bad}");
    }
    // Book flags without a budget, or for Kpé, are refused too.
    let e = error_of(&sow(&["openings", "kiothi", "--seed", "3", "--json"]));
    assert_eq!(e["field"], "seed");
    let e = error_of(&sow(&["openings", "kpe", "--budget", "1m", "--json"]));
    assert_eq!(e["field"], "budget");
    assert!(!dir.join("new").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ctrl_c_writes_the_book_as_of_its_last_batch_and_stops() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let dir = temp_dir("book", "ctrl-c");
    let file = dir.join("b.sowbook");
    let child = Command::new(env!("CARGO_BIN_EXE_sow"))
        .args(["openings", "kiothi", "--book", file.to_str().unwrap()])
        .args([
            "--expansions",
            "1000000",
            "--leaf-nodes",
            "2000",
            "--width",
            "4",
            "--provider",
            "candidates",
        ])
        .arg("--json")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The new book is written as soon as its root is valued.
    let t = Instant::now();
    while !file.exists() {
        assert!(t.elapsed() < Duration::from_secs(120), "no book written");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_secs(2));
    // SAFETY: sends a signal to our own child, which is still running.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    let v = json_of(&out);
    assert_eq!(v["stopped"], "interrupted");
    assert_eq!(v["interrupted"], true);
    let book = Book::open(&file).unwrap();
    assert_eq!(book.state().expansions, v["expansions"].as_u64().unwrap());
    assert_eq!(book.positions() as u64, v["positions"].as_u64().unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The scan's provider: at the setup's turn 1 the full scan's best first
/// moves, ranked by the two-ply estimate, a larger request extending a
/// smaller; at turn 2 the reply scan's best replies; nothing in play.
#[test]
fn the_scan_provider_proposes_the_scans_best_moves() {
    let start = KiothiPosition::start(Setup::FivePit);
    let p = ScanProvider::new(Setup::FivePit, 40, Progress::Hidden).unwrap();
    assert_eq!(p.name(), "scan");
    let first = p.first_moves();
    assert_eq!(first.len(), 40);
    let mut scanned: Vec<String> = scan_first_moves(Setup::FivePit, 40, Progress::Hidden)
        .unwrap()
        .best
        .iter()
        .map(|m| m.mv.clone())
        .collect();
    let mut proposed: Vec<String> = first.iter().map(|m| m.opening.to_string()).collect();
    scanned.sort();
    proposed.sort();
    assert_eq!(proposed, scanned);
    assert!(first.windows(2).all(|w| w[0].two_ply >= w[1].two_ply));
    for m in &first[..5] {
        let v = two_ply_score(
            &start.play_move(&KiothiMove::Opening(m.opening)).unwrap(),
            REPLY_SCAN_LIMIT,
        )
        .unwrap();
        assert_eq!(m.two_ply, v as f64 / sow::book::score::SCORE_SCALE as f64);
    }
    let ten = p.opening_moves(&start, 10, 1);
    let three = p.opening_moves(&start, 3, 1);
    assert_eq!(ten.len(), 10);
    assert_eq!(&ten[..3], &three[..]);
    for (i, (mv, child)) in ten.iter().enumerate() {
        assert_eq!(*mv, KiothiMove::Opening(first[i].opening));
        assert_eq!(start.play_move(mv).as_ref(), Some(child));
    }
    // Turn 2: the reply scan's best, in its order.
    let turn2 = ten[0].1;
    let replies: Vec<String> = p
        .opening_moves(&turn2, 6, 1)
        .iter()
        .map(|(m, _)| m.to_string())
        .collect();
    let scan: Vec<String> = scan_replies(&turn2, 6, REPLY_SCAN_LIMIT)
        .unwrap()
        .best
        .iter()
        .map(|m| m.mv.clone())
        .collect();
    assert_eq!(replies, scan);
    // Play phase: nothing to propose.
    let (_, play) = p.opening_moves(&turn2, 1, 1)[0];
    assert!(!play.is_opening());
    assert!(p.opening_moves(&play, 5, 1).is_empty());
}

/// The command's default provider is the scan's.
#[test]
fn the_command_grows_the_book_over_the_scans_moves() {
    let dir = temp_dir("book", "scan-provider");
    let file = dir.join("b.sowbook");
    let v = json_of(&sow(&[
        "openings",
        "kiothi:five",
        "--book",
        file.to_str().unwrap(),
        "--expansions",
        "1",
        "--width",
        "2",
        "--leaf-nodes",
        "200",
        "--json",
    ]));
    assert_eq!(v["provider"], "scan");
    assert_eq!(v["positions"], 3);
    let p = ScanProvider::new(Setup::FivePit, FIRST_MOVES_KEPT, Progress::Hidden).unwrap();
    let mut ours: Vec<String> = p.first_moves()[..2]
        .iter()
        .map(|m| m.opening.to_string())
        .collect();
    let mut book: Vec<String> = v["best"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap().to_string())
        .collect();
    ours.sort();
    book.sort();
    assert_eq!(book, ours);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `sow` run in `dir`, where it looks for the shipped book.
fn sow_in(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_sow"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

/// `eval` of an opening position the shipped book expanded answers from
/// the book (`"book": true`, the book's depth, its best move and line);
/// North's turn 2 out of the book from the reply search
/// (`"reply_search": true`); a play-phase position is searched as before,
/// without either key; a damaged book is refused (exit 2, `database`).
#[test]
fn eval_answers_from_the_shipped_book() {
    let dir = temp_dir("book", "eval");
    let file = dir.join("data").join("kiothi").join("book-six.sowbook");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let built = json_of(&sow(&[
        "openings",
        "kiothi",
        "--book",
        file.to_str().unwrap(),
        "--expansions",
        "1",
        "--width",
        "3",
        "--leaf-nodes",
        "300",
        "--provider",
        "candidates",
        "--json",
    ]));
    let v = json_of(&sow_in(
        &dir,
        &["--json", "eval", "kiothi", "--multipv", "2"],
    ));
    assert_eq!(v["book"], true, "{v}");
    assert_eq!(v["value"], built["value"]);
    assert_eq!(v["depth"], built["depth"]);
    assert_eq!(v["best"], built["best"][0]["move"]);
    assert_eq!(v["pv"][0], v["best"]);
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 2);
    assert_eq!(moves[1]["move"], built["best"][1]["move"]);
    assert_eq!(moves[1]["value"], built["best"][1]["value"]);
    let text = String::from_utf8(sow_in(&dir, &["eval", "kiothi"]).stdout).unwrap();
    assert!(text.contains("opening book; book depth"), "{text}");
    // A book leaf (a turn-2 position): North's replies by the reply search,
    // within the nodes given; its best reply is legal and leads to play.
    let start = KiothiPosition::start(Setup::SixPit);
    let best: KiothiMove = start.parse_move(v["best"].as_str().unwrap()).unwrap();
    let turn2 = start.play_move(&best).unwrap();
    let s = json_of(&sow_in(
        &dir,
        &[
            "--json",
            "eval",
            &turn2.to_string(),
            "--nodes",
            "200000",
            "--multipv",
            "3",
        ],
    ));
    assert!(s.get("book").is_none(), "{s}");
    assert_eq!(s["reply_search"], true, "{s}");
    let nodes = s["nodes"].as_u64().unwrap();
    assert!(nodes > 0 && nodes <= 400_000, "{s}");
    let reply = turn2.parse_move(s["best"].as_str().unwrap()).unwrap();
    let play = turn2.play_move(&reply).unwrap();
    assert!(!play.is_opening(), "{s}");
    let moves = s["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 3, "{s}");
    assert_eq!(moves[0]["value"], s["value"]);
    assert!(moves
        .windows(2)
        .all(|w| w[0]["value"].as_i64() >= w[1]["value"].as_i64()));
    let text =
        String::from_utf8(sow_in(&dir, &["eval", &turn2.to_string(), "--nodes", "200000"]).stdout)
            .unwrap();
    assert!(text.contains("(reply search,"), "{text}");
    // A play-phase position: searched, neither key.
    let p = json_of(&sow_in(
        &dir,
        &["--json", "eval", &play.to_string(), "--nodes", "2000"],
    ));
    assert!(
        p.get("book").is_none() && p.get("reply_search").is_none(),
        "{p}"
    );
    assert!(p["nodes"].as_u64().unwrap() > 0);
    // A damaged book: refused, naming it.
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[40] ^= 1;
    std::fs::write(&file, &bytes).unwrap();
    let out = sow_in(&dir, &["--json", "eval", "kiothi"]);
    assert_eq!(out.status.code(), Some(2));
    let e = error_of(&out);
    assert_eq!(e["kind"], "database");
    assert!(
        e["message"].as_str().unwrap().contains("book-six.sowbook"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `sow analyze` (0.05 s a move) of the Kiothi game `first`, `reply`,
/// written to `file`.
fn analyze_two_plies(file: &Path, first: &str, reply: &str) -> serde_json::Value {
    std::fs::write(file, format!("kiothi\n{first}\n{reply}\n")).unwrap();
    json_of(&sow(&[
        "--json",
        "analyze",
        file.to_str().unwrap(),
        "--time",
        "0.05",
    ]))
}

/// `play`'s hint and the oracle's own move, and `analyze`'s judgement of
/// the first two plies, come from the shipped book (the repository's, found
/// from the working directory of the tests).
#[test]
fn play_and_analyze_meet_the_opening_through_the_book() {
    let eval = json_of(&sow(&["--json", "eval", "kiothi", "--multipv", "3"]));
    assert_eq!(eval["book"], true, "{eval}");
    let best = eval["best"].as_str().unwrap();
    let out = crate::common::sow_with_input(&["play", "kiothi", "--time", "0.05"], b"hint\nquit\n");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("the opening book's moves"), "{text}");
    let first_hint = text
        .lines()
        .skip_while(|l| !l.contains("the opening book's moves"))
        .nth(1)
        .unwrap();
    assert!(first_hint.trim_start().starts_with(best), "{first_hint}");
    // The oracle plays South from the book.
    let out = crate::common::sow_with_input(
        &["play", "kiothi", "--as", "N", "--time", "0.05"],
        b"quit\n",
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(&format!("(sow) plays {best}")), "{text}");
    // analyze: the book's best first move loses nothing and is valued as
    // the book values it; the book's reply the same.
    let reply = eval["pv"][1].as_str().unwrap();
    let dir = temp_dir("book", "analyze");
    let game = dir.join("g.txt");
    let a = analyze_two_plies(&game, best, reply);
    let plies = a["plies"].as_array().unwrap();
    assert_eq!(plies[0]["value"], eval["value"], "{a}");
    assert_eq!(plies[0]["loss"], 0);
    assert_eq!(
        plies[1]["value"].as_i64().unwrap(),
        -eval["value"].as_i64().unwrap()
    );
    assert_eq!(plies[1]["loss"], 0);
    assert!(
        a["method"].as_str().unwrap().contains("opening book"),
        "{a}"
    );
    assert!(
        a["method"].as_str().unwrap().contains("reply search"),
        "{a}"
    );
    // Out of the book, sow (North) answers turn 2 with a redistribution
    // found by the reply search, and analyze judges turn 2 against the
    // reply search's best replies (redistributions, not the engine's
    // candidate families' values alone).
    let off_book = "8+9>0,1,2,3,4,5,6,7,8,9";
    let out = crate::common::sow_with_input(
        &["play", "kiothi", "--time", "0.05"],
        format!("{off_book}\nquit\n").as_bytes(),
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let reply = text
        .lines()
        .find_map(|l| l.split("(sow) plays ").nth(1))
        .unwrap_or_else(|| panic!("{text}"))
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    assert!(reply.contains('>'), "{text}");
    let a = analyze_two_plies(&game, off_book, &reply);
    let plies = a["plies"].as_array().unwrap();
    assert_eq!(plies.len(), 2, "{a}");
    assert_eq!(plies[1]["move"], reply.as_str(), "{a}");
    let best = plies[1]["best"].as_array().unwrap();
    assert!(
        !best.is_empty() && best.iter().all(|m| m.as_str().unwrap().contains('>')),
        "{a}"
    );
    assert!(
        plies[1]["value"].as_i64() >= plies[1]["played"].as_i64(),
        "{a}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
