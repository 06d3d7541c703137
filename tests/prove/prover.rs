//! The exact prover (`sow::prove`) against a plain exhaustive
//! minimax with the same repetition rule (RULES §0: a position already on the
//! line scores 0 for the board), on late positions of the engine games in
//! `results/kiothi/games/` and on random late positions; against the exact
//! Kpé database; the soundness of the bounds of an interrupted proof; and
//! the Kiothi endgame tables (`sow::kiothi_tables`), alone and
//! under the prover.

use std::sync::atomic::AtomicBool;

use sow::games::kiothi::{parse_position, KiothiMove, KiothiPosition};
use sow::games::kpe::{KpePosition, KpeVariant};
use sow::infra::progress::ProgressBar;
use sow::infra::rng::Rng;
use sow::kiothi_tables::KiothiEndgames;
use sow::prove::bounds::{BoundTable, Proved};
use sow::prove::certificate::{check_bounds, CertificateError, CertificateReport, CheckLimits};
use sow::prove::{prove, prove_with_tables, Proof, ProveLimits};
use sow::search::{search_with, ExactValues, Limits, NoTables, Searchable, TranspositionTable};
use sow::Game;

/// Plain recursive minimax, no table: RULES §0 value for the mover, a
/// position repeating one on the line scores 0.
fn minimax<G: Searchable>(p: &G, line: &mut Vec<G>) -> i32 {
    let key = p.repetition_key();
    if line.contains(&key) {
        return 0;
    }
    let moves = p.legal_moves();
    if moves.is_empty() {
        return p.terminal_value();
    }
    line.push(key);
    let best = moves
        .iter()
        .map(|m| {
            let child = p.play_unchecked(m);
            G::capture_gain(p, &child) - minimax(&child, line)
        })
        .max()
        .unwrap_or(i32::MIN);
    line.pop();
    best
}

/// The best move keeps the exhaustive value `want` of `p`, and the line
/// `pv` is legal.
fn assert_best_move_and_line(
    p: &KiothiPosition,
    best: Option<KiothiMove>,
    pv: &[KiothiMove],
    want: i32,
) {
    let best = best.expect("a best move");
    let child = p.play_unchecked(&best);
    let v =
        KiothiPosition::capture_gain(p, &child) - minimax(&child, &mut vec![p.repetition_key()]);
    assert_eq!(v, want, "{p}: best move {best}");
    let mut q = *p;
    for m in pv {
        q = q.play(&m.to_string()).unwrap();
    }
}

/// Number of nodes of the exhaustive tree, stopping at `cap`.
fn tree_size<G: Searchable>(p: &G, line: &mut Vec<G>, cap: u64) -> u64 {
    let key = p.repetition_key();
    if line.contains(&key) {
        return 1;
    }
    let moves = p.legal_moves();
    line.push(key);
    let mut n = 1;
    for m in &moves {
        if n >= cap {
            break;
        }
        n += tree_size(&p.play_unchecked(m), line, cap - n);
    }
    line.pop();
    n
}

fn solve<G: Searchable>(p: &G, threads: usize, limits: ProveLimits) -> Proof<G::Move> {
    let table = BoundTable::new(8);
    let stop = AtomicBool::new(false);
    prove(p, &limits, threads, &table, &stop, &mut |_| {})
}

/// Every position of every game of `file` (engine games), from the end.
fn game_positions(file: &str) -> Vec<Vec<KiothiPosition>> {
    let path = format!("{}/results/kiothi/games/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .map(|line| {
            let g: serde_json::Value = serde_json::from_str(line).expect("a JSON game record");
            let mut pos = parse_position("kiothi").unwrap();
            let mut out = vec![pos];
            let moves = g["opening"].as_array().unwrap().iter();
            for m in moves.chain(g["moves"].as_array().unwrap().iter()) {
                pos = pos.play(m.as_str().unwrap()).unwrap();
                out.push(pos);
            }
            out.reverse();
            out
        })
        .collect()
}

/// From each of the first 12 engine games, the first of its first 16
/// positions whose whole tree has 50k-1.5M nodes (none if no such one):
/// trees large enough for the threads to meet inside them.
fn larger_game_positions() -> Vec<KiothiPosition> {
    let mut positions = Vec::new();
    for game in game_positions("ab_time_1-vs-ab_time_0.5.jsonl")
        .iter()
        .take(12)
    {
        let larger = game.iter().take(16).find(|p| {
            let n = tree_size(*p, &mut Vec::new(), 1_500_000);
            (50_000..1_500_000).contains(&n)
        });
        positions.extend(larger.copied());
    }
    positions
}

/// Late positions whose exhaustive tree stays small enough to enumerate.
fn small_late_positions(max_tree: u64) -> Vec<KiothiPosition> {
    let mut out = Vec::new();
    for file in [
        "ab_time_1-vs-ab_time_0.5.jsonl",
        "ab_time_1-vs-mcts_10000.jsonl",
        "greedy-vs-random.jsonl",
    ] {
        for game in game_positions(file) {
            for p in game.iter().take(12) {
                if tree_size(p, &mut Vec::new(), max_tree) < max_tree {
                    out.push(*p);
                }
            }
        }
    }
    out
}

#[test]
fn agrees_with_exhaustive_minimax_on_late_game_positions() {
    let positions = small_late_positions(50_000);
    assert!(
        positions.len() >= 100,
        "only {} late positions",
        positions.len()
    );
    let mut deep = 0;
    for (i, p) in positions.iter().enumerate() {
        let want = minimax(p, &mut Vec::new());
        let got = solve(p, 1 + i % 2, ProveLimits::default());
        assert_eq!(got.value(), Some(want), "{p}");
        if !p.is_over() {
            assert_best_move_and_line(p, got.best, &got.pv, want);
        }
        deep += (tree_size(p, &mut Vec::new(), 1001) > 1000) as usize;
    }
    assert!(
        deep >= 20,
        "only {deep} positions with a tree of 1000 nodes"
    );
}

#[test]
fn a_question_is_answered_by_one_bound_and_no_more() {
    // `ProveLimits::question`: whether `V ≤ q`, for q one below the
    // exhaustive value (no: a lower bound above q) and at it (yes: an upper
    // bound at most q), on one thread and on two.
    let positions = small_late_positions(20_000);
    let mut partial = 0;
    for (i, p) in positions
        .iter()
        .filter(|p| !p.is_over())
        .take(60)
        .enumerate()
    {
        let want = minimax(p, &mut Vec::new());
        for q in [want - 1, want] {
            let limits = ProveLimits {
                question: Some(q),
                ..ProveLimits::default()
            };
            let got = solve(p, 1 + i % 2, limits);
            assert!(got.lower <= want && want <= got.upper, "{p}: {q}");
            match q < want {
                true => assert!(got.lower > q, "{p}: V ≤ {q} not refuted"),
                false => assert!(got.upper <= q, "{p}: V ≤ {q} not proved"),
            }
            // Answered: not cut short, even where the value stays open.
            assert!(!got.interrupted, "{p}: {q}");
            partial += (got.lower < got.upper) as usize;
        }
    }
    // One test, not the exact value: some answers leave the value open.
    assert!(
        partial > 0,
        "every question was answered with the exact value"
    );
}

/// Random late positions: from 8 to 20 plies before the end of each engine
/// game, a seeded number of random moves, until the exhaustive tree is small.
fn random_late_positions(rng: &mut Rng, max_tree: u64) -> Vec<KiothiPosition> {
    let mut out = Vec::new();
    for game in game_positions("ab_time_1-vs-ab_time_0.015625.jsonl") {
        let Some(mut p) = game.get(8 + rng.below(13)).cloned() else {
            continue;
        };
        for _ in 0..40 {
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            p = p.play_unchecked(&moves[rng.below(moves.len())]);
            if tree_size(&p, &mut Vec::new(), max_tree) < max_tree {
                out.push(p);
                break;
            }
        }
    }
    out
}

#[test]
fn agrees_with_exhaustive_minimax_on_random_late_positions() {
    let positions = random_late_positions(&mut Rng::new(11), 50_000);
    assert!(
        positions.len() >= 20,
        "only {} random late positions",
        positions.len()
    );
    for p in &positions {
        let want = minimax(p, &mut Vec::new());
        assert_eq!(
            solve(p, 2, ProveLimits::default()).value(),
            Some(want),
            "{p}"
        );
    }
}

#[test]
fn threads_sharing_nodes_agree_with_minimax_on_larger_trees() {
    // Exhaustive trees of 50,000 to 1,500,000 nodes: deep enough that the
    // threads meet inside the same subtrees and pass over each other's
    // nodes (ABDADA in `prove.rs`), which the small trees above rarely do.
    // Whatever the order the threads end up searching in, the value is the
    // exhaustive one.
    let positions = larger_game_positions();
    assert!(
        positions.len() >= 6,
        "only {} larger late positions",
        positions.len()
    );
    for p in &positions {
        let want = minimax(p, &mut Vec::new());
        for threads in [2, 3] {
            let got = solve(p, threads, ProveLimits::default());
            assert_eq!(got.value(), Some(want), "{p} on {threads} threads");
        }
    }
}

#[test]
fn agrees_with_the_kpe_database_and_minimax_on_small_boards() {
    // Kpé 2x2: small enough for the plain minimax from the start positions
    // of every layer reached by random play.
    let v = KpeVariant::new(2, 2).unwrap();
    let start = KpePosition::start(v);
    let mut rng = Rng::new(5);
    for _ in 0..25 {
        let mut p = start;
        for _ in 0..rng.below(12) {
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            p = p.play_unchecked(&moves[rng.below(moves.len())]);
        }
        let want = minimax(&p, &mut Vec::new());
        assert_eq!(
            solve(&p, 2, ProveLimits::default()).value(),
            Some(want),
            "{p}"
        );
    }
}

#[test]
fn interrupted_bounds_are_sound() {
    let positions = small_late_positions(20_000);
    // Only the one-thread proofs count towards the cut-short total: with two
    // threads the node cap is seen at a point that depends on scheduling, so
    // how many proofs it cuts varies from run to run. Both stay sound.
    let mut cut_on_one_thread = 0;
    for p in positions.iter().filter(|p| !p.is_over()) {
        let want = minimax(p, &mut Vec::new());
        for cap in [16, 64, 256, 1024] {
            for threads in [1, 2] {
                let got = solve(
                    p,
                    threads,
                    ProveLimits {
                        nodes: Some(cap),
                        ..ProveLimits::default()
                    },
                );
                assert!(
                    got.lower <= want && want <= got.upper,
                    "{p}: value {want} outside [{}, {}] with {cap} nodes on {threads} threads",
                    got.lower,
                    got.upper
                );
                if threads == 1 {
                    cut_on_one_thread += got.interrupted as usize;
                }
            }
        }
    }
    eprintln!("{cut_on_one_thread} one-thread proofs cut short");
    assert!(
        cut_on_one_thread >= 10,
        "only {cut_on_one_thread} proofs were cut short"
    );
}

#[test]
fn proof_numbers_and_the_deepening_fallback_agree_with_exhaustive_minimax() {
    // Proof-number search alone, iterative deepening alone (df-pn's ply cap
    // at 0 leaves every test to it), and the hand-over between them (a cap
    // of 6 plies: df-pn settles the shallow lines, deepening the rest); one
    // thread or two: the exhaustive values on the small late positions, the
    // random ones, and the larger trees; the best move keeps the value.
    let mut positions = small_late_positions(50_000);
    positions.extend(random_late_positions(&mut Rng::new(11), 50_000));
    positions.extend(larger_game_positions());
    assert!(positions.len() >= 120, "only {} positions", positions.len());
    for p in &positions {
        let want = minimax(p, &mut Vec::new());
        for pn_max_ply in [None, Some(0), Some(6)] {
            for threads in [1, 2] {
                let limits = ProveLimits {
                    pn_max_ply,
                    ..ProveLimits::default()
                };
                let got = solve(p, threads, limits);
                assert_eq!(
                    got.value(),
                    Some(want),
                    "{p}: df-pn cap {pn_max_ply:?} on {threads} threads"
                );
                if let Some(best) = got.best {
                    let child = p.play_unchecked(&best);
                    let v = KiothiPosition::capture_gain(p, &child)
                        - minimax(&child, &mut vec![p.repetition_key()]);
                    assert_eq!(v, want, "{p}: best move {best}, cap {pn_max_ply:?}");
                }
            }
        }
    }
}

#[test]
fn interrupted_deepening_is_sound() {
    // The deepening alone (df-pn's ply cap at 0), cut short by node caps.
    let positions = small_late_positions(20_000);
    let mut cut = 0;
    for p in positions.iter().filter(|p| !p.is_over()) {
        let want = minimax(p, &mut Vec::new());
        for cap in [16, 64, 256, 1024] {
            for threads in [1, 2] {
                let got = solve(
                    p,
                    threads,
                    ProveLimits {
                        nodes: Some(cap),
                        pn_max_ply: Some(0),
                        ..ProveLimits::default()
                    },
                );
                assert!(
                    got.lower <= want && want <= got.upper,
                    "{p}: value {want} outside [{}, {}] with {cap} nodes on {threads} threads",
                    got.lower,
                    got.upper
                );
                cut += got.interrupted as usize;
            }
        }
    }
    assert!(cut >= 10, "only {cut} proofs were cut short");
}

#[test]
fn mobility_counts_the_legal_moves_of_late_positions() {
    // The proof-number search starts a node's disproof number from it: it
    // must be the move count (or above it, for the rare moves that never
    // end), never a guess.
    let mut exact = 0;
    let positions = small_late_positions(50_000);
    for p in &positions {
        let legal = p.legal_moves().len() as u32;
        assert!(p.mobility() >= legal, "{p}: {} < {legal}", p.mobility());
        exact += (p.mobility() == legal) as usize;
    }
    assert!(
        exact * 10 >= positions.len() * 9,
        "{exact} of {}",
        positions.len()
    );
}

#[test]
fn a_finished_game_is_its_sweep() {
    // South has no warrior: the game is over, North takes the board.
    let p = parse_position("kiothi 0,0,0,0,0,0,0,0,0,0,0,3,0,0,0,0,0,0,1,0 S play 30 26").unwrap();
    let got = solve(&p, 1, ProveLimits::default());
    assert_eq!((got.value(), got.best), (Some(-4), None));
}

/// Endgame tables of 0 to `stones` warriors, built in the test.
fn endgame_tables(stones: usize) -> KiothiEndgames {
    let mut tables = KiothiEndgames::empty();
    while tables.max_stones() != Some(stones) {
        tables.solve_next(&ProgressBar::hidden());
    }
    tables
}

/// A random play-phase board of `stones` warriors with no mark.
fn random_board(rng: &mut Rng, stones: usize) -> KiothiPosition {
    let mut pits = [0u32; 20];
    for _ in 0..stones {
        pits[rng.below(20)] += 1;
    }
    let side = ["S", "N"][rng.below(2)];
    let counts: Vec<String> = pits.iter().map(u32::to_string).collect();
    let text = format!("kiothi {} {side} play {} 0", counts.join(","), 60 - stones);
    parse_position(&text).unwrap()
}

#[test]
fn endgame_tables_agree_with_exhaustive_minimax_and_the_prover() {
    // Every value of the tables of 1-7 warriors checked on random boards,
    // either side to move: against the plain minimax where its tree is
    // small, else against the prover without tables.
    let tables = endgame_tables(7);
    let mut rng = Rng::new(17);
    let mut by_minimax = 0;
    for i in 0..280 {
        let p = random_board(&mut rng, 1 + i % 7);
        let want = if tree_size(&p, &mut Vec::new(), 100_000) < 100_000 {
            by_minimax += 1;
            minimax(&p, &mut Vec::new())
        } else {
            solve(&p, 2, ProveLimits::default())
                .value()
                .expect("exact without limits")
        };
        assert_eq!(tables.value(&p), Some(want), "{p}");
    }
    assert!(by_minimax >= 100, "only {by_minimax} boards by minimax");
    // Not covered: more warriors, a protected pit, the opening.
    let eight = random_board(&mut rng, 8);
    assert_eq!(tables.value(&eight), None);
    let marked =
        parse_position("kiothi 0,0,0,0,0,0,0,1*,1,1,0,0,0,0,0,0,0,1,1,1 S play 29 25").unwrap();
    assert_eq!(tables.value(&marked), None);
    assert_eq!(tables.value(&parse_position("kiothi").unwrap()), None);
}

#[test]
fn proofs_through_endgame_tables_keep_the_exhaustive_values() {
    // Late positions of real games, most with more warriors than the
    // tables: the prover stops at the boards they cover and takes their
    // values; the result, its best move and its line must still be the
    // exhaustive ones.
    let tables = endgame_tables(6);
    let positions = small_late_positions(50_000);
    let mut above = 0;
    for (i, p) in positions.iter().enumerate() {
        let want = minimax(p, &mut Vec::new());
        let table = BoundTable::new(8);
        let stop = AtomicBool::new(false);
        let limits = ProveLimits::default();
        let got = prove_with_tables(p, &limits, 1 + i % 2, &table, &tables, &stop, &mut |_| {});
        assert_eq!(got.value(), Some(want), "{p}");
        if p.is_over() {
            continue;
        }
        above += (p.board_total() > 6) as usize;
        assert_best_move_and_line(p, got.best, &got.pv, want);
    }
    assert!(above >= 50, "only {above} positions above the tables");
}

#[test]
fn engine_search_through_endgame_tables_keeps_the_exhaustive_values() {
    // The engine search behind `eval`, `analyze` and `play` takes the
    // tables' values below its root. On late positions of real games, most
    // above the tables, a search without a depth limit must end exact with
    // the exhaustive value, a best move that keeps it and a legal line; and
    // it needs fewer nodes in all than the same searches without tables.
    let tables = endgame_tables(6);
    let positions = small_late_positions(50_000);
    let (mut with_nodes, mut plain_nodes) = (0, 0);
    for p in positions.iter().filter(|p| !p.is_over()) {
        let want = minimax(p, &mut Vec::new());
        let run = |exact: &dyn ExactValues<KiothiPosition>| {
            let tt = TranspositionTable::new(8);
            let stop = AtomicBool::new(false);
            search_with(p, &Limits::default(), 1, &tt, exact, &stop, &mut |_| {})
        };
        let got = run(&tables);
        assert!(got.exact, "{p}");
        assert_eq!(got.value, want, "{p}");
        assert_best_move_and_line(p, got.best, &got.pv, want);
        with_nodes += got.nodes;
        plain_nodes += run(&NoTables).nodes;
    }
    assert!(with_nodes < plain_nodes, "{with_nodes} vs {plain_nodes}");
}

/// `check_bounds` of `lower ≤ V(p) ≤ upper` over `table`, on one thread and
/// on two (their verdicts must agree): whether it passed.
fn certified(
    p: &KiothiPosition,
    bounds: (i32, i32),
    table: &BoundTable,
    exact: &dyn ExactValues<KiothiPosition>,
) -> bool {
    let verdicts: Vec<bool> = [1, 2]
        .into_iter()
        .map(|threads| certificate(p, bounds, table, exact, threads, None).is_some())
        .collect();
    assert_eq!(
        verdicts[0], verdicts[1],
        "{p} {bounds:?}: one thread against two"
    );
    verdicts[0]
}

/// The certificate's report, `None` when the bounds have none.
fn certificate(
    p: &KiothiPosition,
    bounds: (i32, i32),
    table: &BoundTable,
    exact: &dyn ExactValues<KiothiPosition>,
    threads: usize,
    max_positions: Option<u64>,
) -> Option<CertificateReport> {
    let stop = AtomicBool::new(false);
    let limits = CheckLimits {
        threads,
        max_positions,
    };
    match check_bounds(p, bounds, table, exact, &limits, &stop, &|_| {}) {
        Ok(report) => {
            assert_eq!((report.lower, report.upper), bounds);
            Some(report)
        }
        Err(CertificateError::NoCertificate { .. }) => None,
        Err(e) => panic!("{p}: {e}"),
    }
}

#[test]
fn a_check_past_its_memo_limit_stops_with_the_limit() {
    let tables = endgame_tables(6);
    let positions = small_late_positions(20_000);
    let (p, report) = positions
        .iter()
        .filter(|p| !p.is_over())
        .find_map(|p| {
            let table = BoundTable::new(8);
            let stop = AtomicBool::new(false);
            let got = prove_with_tables(
                p,
                &ProveLimits::default(),
                1,
                &table,
                &tables,
                &stop,
                &mut |_| {},
            );
            let bounds = (got.lower, got.upper);
            let report = certificate(p, bounds, &table, &tables, 1, None)?;
            // No child proved again: the table stays as it is, and so does
            // the certificate on one thread.
            (report.positions >= 10 && report.reproved == 0).then_some((p, (bounds, table, report)))
        })
        .expect("a certificate of ten positions or more");
    let (bounds, table, full) = report;
    // On one thread (the same walk each time), exactly enough room passes
    // and one position less stops at the limit.
    let fits = certificate(p, bounds, &table, &tables, 1, Some(full.positions));
    assert_eq!(fits.map(|r| r.positions), Some(full.positions), "{p}");
    let stop = AtomicBool::new(false);
    let limits = CheckLimits {
        threads: 1,
        max_positions: Some(full.positions - 1),
    };
    match check_bounds(p, bounds, &table, &tables, &limits, &stop, &|_| {}) {
        Err(CertificateError::TooLarge { positions }) => assert_eq!(positions, full.positions - 1),
        other => panic!("{p}: {other:?}"),
    }
}

#[test]
fn certificates_hold_the_exhaustive_values_and_nothing_past_them() {
    // Late positions of real games with their exhaustive values: after a
    // proof (with endgame tables or without), the certificate holds the
    // value and any looser bounds, never a bound one past the value, not
    // even over a table of false bounds planted for every child.
    let tables = endgame_tables(6);
    let positions = small_late_positions(20_000);
    let mut checked = 0;
    for (i, p) in positions
        .iter()
        .enumerate()
        .filter(|(_, p)| !p.is_over())
        .take(80)
    {
        let want = minimax(p, &mut Vec::new());
        let exact: &dyn ExactValues<KiothiPosition> = match i % 2 {
            0 => &tables,
            _ => &NoTables,
        };
        let table = BoundTable::new(8);
        let stop = AtomicBool::new(false);
        let limits = ProveLimits::default();
        let got = prove_with_tables(p, &limits, 1 + i % 2, &table, exact, &stop, &mut |_| {});
        assert_eq!(got.value(), Some(want), "{p}");
        assert!(certified(p, (want, want), &table, exact), "{p}: {want}");
        assert!(certified(p, (want - 2, want + 2), &table, exact), "{p}");
        assert!(!certified(p, (want + 1, want + 1), &table, exact), "{p}");
        assert!(!certified(p, (want - 1, want - 1), &table, exact), "{p}");
        // Every child claimed lost by all its warriors for its mover: the
        // walk follows those claims first and finds them false.
        let planted = BoundTable::new(8);
        for (_, child) in p.search_moves() {
            let b = child.board_total() as i32;
            let claim = Proved {
                lo: -b,
                hi: -b,
                best: None,
                open: None,
            };
            planted.store(child.zobrist(), claim, 1);
        }
        let best_claimed = p
            .search_moves()
            .iter()
            .map(|(_, c)| KiothiPosition::capture_gain(p, c) + c.board_total() as i32)
            .max()
            .unwrap();
        if best_claimed > want {
            assert!(
                !certified(p, (best_claimed, best_claimed), &planted, exact),
                "{p}"
            );
        }
        checked += 1;
    }
    assert!(checked >= 60, "only {checked} positions");
}
