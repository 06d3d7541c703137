//! Search against an exhaustive minimax on small Kpé boards, forced captures,
//! threads, end-of-game and repetition scores, agents and matches.

use std::sync::atomic::AtomicBool;

use sow::analysis::elo::elo_from_score;
use sow::analysis::matches::{run_match, MatchConfig};
use sow::games::kiothi::KiothiPosition;
use sow::games::kpe::{parse_position, KpePosition, KpeVariant};
use sow::infra::rng::Rng;
use sow::search::{
    search, search_fresh, AgentSpec, Limits, SearchResult, Searchable, TranspositionTable,
};
use sow::{Game, InputError};

fn pos(text: &str) -> KpePosition {
    parse_position(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Plain minimax with RULES §0's repetition rule on the path.
fn minimax(p: &KpePosition, path: &mut Vec<KpePosition>) -> i32 {
    let key = p.repetition_key();
    if path.contains(&key) {
        return 0;
    }
    if p.is_over() {
        return p.terminal_value();
    }
    path.push(key);
    let mut best = i32::MIN;
    for mv in p.legal_moves() {
        let (child, gained) = p.sow(mv.pit());
        best = best.max(gained as i32 - minimax(&child, path));
    }
    path.pop();
    best
}

/// Small positions: starts of tiny variants and random positions reached from them.
fn small_positions() -> Vec<KpePosition> {
    let mut out = Vec::new();
    let mut rng = Rng::new(7);
    // Exhaustive minimax over paths explodes beyond 8 stones on 4 pits:
    // bigger variants contribute their late positions only.
    for (w, k) in [(2, 1), (2, 2), (3, 1), (2, 3), (3, 2)] {
        let start = KpePosition::start(KpeVariant::new(w, k).unwrap());
        if w == 2 && k <= 2 {
            out.push(start);
        }
        let mut kept = 0;
        for _ in 0..500 {
            if kept == 6 {
                break;
            }
            let mut p = start;
            for _ in 0..rng.below(30) {
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                p = p.play_unchecked(&moves[rng.below(moves.len())]);
            }
            if (w == 2 && k <= 2) || p.board_total() <= 2 {
                out.push(p);
                kept += 1;
            }
        }
    }
    out
}

#[test]
fn search_to_the_end_equals_exhaustive_minimax() {
    let mut checked = 0;
    for p in small_positions() {
        let r = search_fresh(&p, &Limits::default(), 1);
        assert!(
            r.exact,
            "{p}: search to the end must be exact (depth {})",
            r.depth
        );
        let expected = minimax(&p, &mut Vec::new());
        assert_eq!(r.value, expected, "{p}");
        if !p.is_over() {
            // The best move achieves the value.
            let (child, g) = p.sow(r.best.unwrap().pit());
            assert_eq!(
                g as i32 - minimax(&child, &mut vec![p.repetition_key()]),
                expected,
                "{p}"
            );
        }
        checked += 1;
    }
    assert!(checked >= 25, "{checked}");
}

#[test]
fn finds_a_forced_capture() {
    // South unlocked; pit 3 (1 stone) lands in pit 4 making 2: capture 2.
    let p = pos("kpe 0,0,0,1,1,0,0,4 S xxxx xxxx 22 20");
    let r = search_fresh(&p, &Limits::depth(1), 1);
    assert_eq!(r.best.unwrap().pit(), 3);
    // A deeper search agrees the capture is best.
    let deep = search_fresh(&p, &Limits::depth(10), 1);
    assert_eq!(deep.best.unwrap().pit(), 3);
}

#[test]
fn chain_capture_is_found_at_depth_one() {
    // Pit 0 holds 6: sows 1..6, last in pit 6 (3->4), chain 6 (4), 5 (1->2), 4 (1->2): 8 stones.
    let p = pos("kpe 6,0,0,0,1,1,3,1 S xxxx xxxx 18 18");
    let r = search_fresh(&p, &Limits::depth(1), 1);
    assert_eq!(r.best.unwrap().pit(), 0);
    let deep = search_fresh(&p, &Limits::depth(10), 1);
    assert_eq!(deep.best.unwrap().pit(), 0);
}

#[test]
fn finished_game_scores_the_sweep() {
    // South to move with an empty row: North keeps its 6 stones.
    let p = pos("kpe 0,0,0,0,1,2,3,0 S xxxx xxxx 20 22");
    assert!(p.is_over());
    let r = search_fresh(&p, &Limits::depth(5), 1);
    assert_eq!((r.value, r.best, r.exact, r.depth), (-6, None, true, 0));
}

#[test]
fn one_and_two_threads_agree_when_exhaustive() {
    for p in small_positions().into_iter().step_by(3) {
        let stop = AtomicBool::new(false);
        let one = search(
            &p,
            &Limits::default(),
            1,
            &TranspositionTable::new(1),
            &stop,
            &mut |_| {},
        );
        let two = search(
            &p,
            &Limits::default(),
            2,
            &TranspositionTable::new(1),
            &stop,
            &mut |_| {},
        );
        assert!(one.exact && two.exact, "{p}");
        assert_eq!(one.value, two.value, "{p}");
    }
}

#[test]
fn one_thread_is_deterministic() {
    let p = KpePosition::start(KpeVariant::STANDARD);
    let a = search_fresh(&p, &Limits::depth(9), 4);
    let b = search_fresh(&p, &Limits::depth(9), 4);
    assert_eq!(
        (a.value, a.best, a.pv.clone(), a.nodes),
        (b.value, b.best, b.pv, b.nodes)
    );
    let n = search_fresh(&p, &Limits::nodes(20_000), 4);
    let m = search_fresh(&p, &Limits::nodes(20_000), 4);
    assert_eq!((n.value, n.depth, n.pv.clone()), (m.value, m.depth, m.pv));
}

#[test]
fn progress_callback_sees_every_iteration_and_pv_is_legal() {
    let p = KpePosition::start(KpeVariant::STANDARD);
    let stop = AtomicBool::new(false);
    let tt = TranspositionTable::new(4);
    let mut depths = Vec::new();
    let r = search(&p, &Limits::depth(8), 1, &tt, &stop, &mut |it| {
        depths.push(it.depth)
    });
    assert_eq!(depths, (1..=8).collect::<Vec<_>>());
    assert_eq!(r.depth, 8);
    assert!(!r.exact);
    assert_eq!(r.pv.first().copied(), r.best);
    let mut q = p;
    for mv in &r.pv {
        q = q.play(&mv.to_string()).unwrap();
    }
}

#[test]
fn stop_flag_returns_last_completed_iteration() {
    let p = KpePosition::start(KpeVariant::STANDARD);
    let stop = AtomicBool::new(true);
    let r = search(
        &p,
        &Limits::default(),
        1,
        &TranspositionTable::new(1),
        &stop,
        &mut |_| {},
    );
    assert!(r.depth <= 1);
    let timed = search_fresh(&p, &Limits::seconds(0.2), 4);
    assert!(timed.seconds < 1.0 && timed.depth >= 1 && timed.best.is_some());
}

#[test]
fn repetition_on_the_line_scores_zero_for_the_board() {
    // 2x1 variant with two stones circulating: find a position whose search
    // (to the end) relies on repetitions and check it against minimax.
    let mut found = false;
    for p in small_positions() {
        let v = minimax(&p, &mut Vec::new());
        let r = search_fresh(&p, &Limits::default(), 1);
        assert_eq!(r.value, v);
        found |= r.exact;
    }
    assert!(found);
    // A lone stone each, both unlocked: play goes round for ever without
    // captures, so the value is 0 (board shared evenly).
    let p = pos("kpe:2x1 1,0,1,0 S xx xx 0 2");
    assert_eq!(
        minimax(&p, &mut Vec::new()),
        search_fresh(&p, &Limits::default(), 1).value
    );
}

#[test]
fn zobrist_ignores_captures_and_sees_side_and_marks() {
    let a = pos("kpe 6,6,6,6,6,6,6,6 S .... ....");
    let b = pos("kpe 6,6,6,6,6,6,6,6 N .... ....");
    let c = pos("kpe 6,6,6,6,6,6,6,6 S x... ....");
    assert_ne!(a.zobrist(), b.zobrist());
    assert_ne!(a.zobrist(), c.zobrist());
    let d = pos("kpe 4,6,6,6,6,6,6,6 S xxxx xxxx 2 0");
    let e = pos("kpe 4,6,6,6,6,6,6,6 S xxxx xxxx 0 2");
    assert_eq!(d.zobrist(), e.zobrist());
}

#[test]
fn agent_parsing() {
    for text in [
        "random",
        "greedy",
        "mcts:500",
        "ab:depth=6",
        "ab:time=0.5",
        "ab:nodes=1000,threads=2",
        "ab:time=0.1,opening=reply",
    ] {
        let spec = AgentSpec::parse(text).unwrap();
        assert_eq!(spec.to_string(), text);
    }
    let err = |t: &str| AgentSpec::parse(t).unwrap_err();
    assert!(matches!(err("minimax"), InputError::Unsupported { .. }));
    assert!(err("minimax")
        .to_string()
        .contains("unknown agent `minimax`"));
    assert!(err("ab:time=0")
        .to_string()
        .contains("positive number of seconds"));
    assert!(err("ab:time=-1").to_string().contains("positive"));
    assert!(err("ab:depth=0").to_string().contains("positive integer"));
    assert!(err("ab").to_string().contains("needs a limit"));
    assert!(err("ab:speed=3").to_string().contains("unknown ab option"));
    assert!(err("ab:depth=2,opening=book")
        .to_string()
        .contains("`reply` or `candidates`"));
    assert!(AgentSpec::parse("ab:depth=2,opening=reply")
        .unwrap()
        .reply_opening());
    assert_eq!(
        AgentSpec::parse("ab:depth=2,opening=candidates").unwrap(),
        AgentSpec::parse("ab:depth=2").unwrap()
    );
    assert!(err("mcts").to_string().contains("mcts:PLAYOUTS"));
    assert!(err("mcts:0").to_string().contains("at least 1"));
    assert!(err("random:3").to_string().contains("no parameters"));
}

/// In a Kiothi match, `opening=reply` answers North's turn 2 with the reply
/// search's best reply (shaped to the agent's nodes, seeded from the
/// game's seed) and plays as the engine elsewhere; without it, the engine
/// answers turn 2 itself.
#[test]
fn a_kiothi_match_agent_with_opening_reply_answers_turn_2_by_the_reply_search() {
    use sow::analysis::match_game::MatchGame;
    use sow::book::{reply_search, ReplyBudget};
    use sow::infra::rng::splitmix64;
    let start = KiothiPosition::start(sow::games::kiothi::Setup::SixPit);
    let first = start.parse_move("4+5>9,9,9,9,9,9,9,9,9,9").unwrap();
    let turn2 = start.play_move(&first).unwrap();
    let spec = AgentSpec::parse("ab:nodes=150000,opening=reply").unwrap();
    let mut agent = <KiothiPosition as MatchGame>::agent(&spec, 9);
    let reply = agent.choose(&turn2).unwrap();
    let seed = Rng::new(splitmix64(&mut 9u64)).next_u64();
    let found = reply_search(&turn2, &ReplyBudget::for_nodes(150_000), seed).unwrap();
    assert_eq!(reply.to_string(), found.best.mv);
    let play = turn2.play_move(&reply).unwrap();
    assert!(agent.choose(&play).is_some());
    let plain = AgentSpec::parse("ab:nodes=150000").unwrap();
    let mut engine = <KiothiPosition as MatchGame>::agent(&plain, 9);
    let mut direct = plain.build::<KiothiPosition>(9);
    assert_eq!(engine.choose(&turn2), direct.choose(&turn2));
}

#[test]
fn elo_of_three_quarters_is_191() {
    assert_eq!(elo_from_score(0.75).round(), 191.0);
}

#[test]
fn match_between_search_and_random() {
    let start = KpePosition::start(KpeVariant::STANDARD);
    let cfg = MatchConfig {
        games: 8,
        opening_plies: 2,
        seed: 3,
        ply_cap: 300,
        balance: None,
    };
    let ab = AgentSpec::parse("ab:depth=4").unwrap();
    let random = AgentSpec::parse("random").unwrap();
    let report = run_match(&start, &ab, &random, &cfg);
    assert_eq!(report.games, 8);
    assert_eq!(report.wins + report.draws + report.losses, 8);
    assert!(report.score >= 0.75, "{report:?}");
    // Colours alternate on the same opening.
    assert_eq!(report.records[0].opening, report.records[1].opening);
    assert_eq!(report.records[0].south, "ab:depth=4");
    assert_eq!(report.records[1].south, "random");
    // Reproducible.
    let again = run_match(&start, &ab, &random, &cfg);
    assert_eq!(report.records, again.records);
    let mut out = Vec::new();
    report.write_records(&mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(text.lines().count(), 8);
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["game"], 0);
}

#[test]
fn mcts_and_greedy_play_legal_games() {
    let start = KpePosition::start(KpeVariant::new(3, 3).unwrap());
    let cfg = MatchConfig {
        games: 4,
        opening_plies: 1,
        seed: 9,
        ply_cap: 200,
        balance: None,
    };
    let report = run_match(
        &start,
        &AgentSpec::parse("mcts:200").unwrap(),
        &AgentSpec::parse("greedy").unwrap(),
        &cfg,
    );
    for r in &report.records {
        let mut p = start;
        for mv in r.opening.iter().chain(&r.moves) {
            p = p.play(mv).unwrap();
        }
        let total: f64 = r.points.iter().sum();
        assert_eq!(total, 18.0);
    }
}

/// The 20 Kiothi middle-game positions of the time-to-depth benchmark.
fn kiothi_middlegames() -> Vec<KiothiPosition> {
    include_str!("../../benches/kiothi_middlegames.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| sow::games::kiothi::parse_position(l).unwrap())
        .collect()
}

/// Checks that the principal variation starts with the best move and is a
/// sequence of legal moves from `p`.
fn assert_legal_pv<G: Searchable>(p: &G, r: &SearchResult<G::Move>)
where
    G::Move: std::fmt::Display,
{
    assert!(r.best.is_some(), "{p}: no best move");
    assert_eq!(r.pv.first().copied(), r.best, "{p}");
    let mut q = p.clone();
    for mv in &r.pv {
        q = q
            .play(&mv.to_string())
            .unwrap_or_else(|e| panic!("{p}: pv move {mv} illegal: {e}"));
    }
}

fn search_threads<G: Searchable>(p: &G, limits: Limits, threads: usize) -> SearchResult<G::Move> {
    let stop = AtomicBool::new(false);
    search(
        p,
        &limits,
        threads,
        &TranspositionTable::new(4),
        &stop,
        &mut |_| {},
    )
}

#[test]
fn several_threads_find_legal_moves_at_fixed_depth() {
    for (i, p) in kiothi_middlegames().into_iter().enumerate().step_by(2) {
        let threads = 2 + i % 3;
        let r = search_threads(&p, Limits::depth(6), threads);
        assert!(r.depth == 6 || r.exact, "{p}: depth {}", r.depth);
        assert_legal_pv(&p, &r);
    }
    let kpe = [
        KpePosition::start(KpeVariant::STANDARD),
        pos("kpe 3,7,1,0,9,2,5,1 S xxxx xxxx 12 8"),
        pos("kpe 0,0,0,1,1,0,0,4 S xxxx xxxx 22 20"),
    ];
    for p in kpe {
        for threads in [2, 3] {
            let r = search_threads(&p, Limits::depth(10), threads);
            assert!(r.depth == 10 || r.exact, "{p}: depth {}", r.depth);
            assert_legal_pv(&p, &r);
        }
    }
}

/// Positions with at most `stones` on the board reached by random play from
/// `starts` (at most `count` of them).
fn random_endings<G: Searchable>(starts: &[G], stones: u32, count: usize, seed: u64) -> Vec<G> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    for _ in 0..50 * count {
        if out.len() == count {
            break;
        }
        let mut p = starts[rng.below(starts.len())].clone();
        while !p.is_over() && p.board_total() > stones {
            let moves = p.legal_moves();
            p = p.play_unchecked(&moves[rng.below(moves.len())]);
        }
        if !p.is_over() {
            out.push(p);
        }
    }
    out
}

/// Where a fixed-depth search reaches the end of every line (the result is
/// exact), several threads must find the same value as one; searched to the
/// end, they must always agree. Returns how many positions had exact
/// fixed-depth searches with one and with several threads.
fn assert_threads_agree_when_exhaustive<G: Searchable>(positions: &[G], depth: u32) -> usize
where
    G::Move: std::fmt::Display,
{
    let mut both_exact = 0;
    for p in positions {
        let one = search_threads(p, Limits::depth(depth), 1);
        for threads in [2, 3] {
            let many = search_threads(p, Limits::depth(depth), threads);
            assert_legal_pv(p, &many);
            // Which lines a search proves depends on its move order, so
            // only a value proven by both searches is compared.
            if one.exact && many.exact {
                assert_eq!(many.value, one.value, "{p}: {threads} threads");
                both_exact += 1;
            }
            let to_end = search_threads(p, Limits::default(), threads);
            assert!(to_end.exact, "{p}: {threads} threads to the end");
            if one.exact {
                assert_eq!(to_end.value, one.value, "{p}: {threads} threads to the end");
            }
        }
    }
    both_exact
}

#[test]
fn several_threads_agree_with_one_when_the_fixed_depth_search_is_exhaustive() {
    let kiothi = random_endings(&kiothi_middlegames(), 7, 12, 11);
    let exact = assert_threads_agree_when_exhaustive(&kiothi, 30);
    assert!(exact >= 20, "only {exact} exact Kiothi searches");
    let kpe: Vec<KpePosition> = small_positions()
        .into_iter()
        .filter(|p| !p.is_over())
        .collect();
    let exact = assert_threads_agree_when_exhaustive(&kpe, 30);
    assert!(exact >= 20, "only {exact} exact Kpé searches");
}

#[test]
fn several_threads_stop_on_the_flag_and_on_limits() {
    let p = kiothi_middlegames()[6];
    let tt = TranspositionTable::new(16);
    // Ctrl-C: the flag set from another thread ends an endless search.
    let stop = AtomicBool::new(false);
    let start = std::time::Instant::now();
    let r = std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(200));
            stop.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        search(&p, &Limits::default(), 2, &tt, &stop, &mut |_| {})
    });
    assert!(start.elapsed().as_secs_f64() < 2.0, "{:?}", start.elapsed());
    assert_legal_pv(&p, &r);
    // Time and node limits stop every thread, whichever sees them first.
    let stop = AtomicBool::new(false);
    let start = std::time::Instant::now();
    let r = search(&p, &Limits::seconds(0.2), 2, &tt, &stop, &mut |_| {});
    assert!(start.elapsed().as_secs_f64() < 2.0, "{:?}", start.elapsed());
    assert_legal_pv(&p, &r);
    let start = std::time::Instant::now();
    let r = search(&p, &Limits::nodes(100_000), 3, &tt, &stop, &mut |_| {});
    assert!(start.elapsed().as_secs_f64() < 2.0, "{:?}", start.elapsed());
    // Each thread adds its nodes to the shared count every 1024 nodes and
    // checks the limit every 64: once the count is past the limit by the
    // other two threads' unflushed nodes, each stops within 64 nodes, even
    // when one of the three waits for a core (CI has two).
    assert!(r.nodes <= 100_000 + 2 * 1024 + 3 * 64, "{}", r.nodes);
    assert_legal_pv(&p, &r);
}
