//! The opening scan, its evaluators and the reply search (src/book).

use std::collections::HashSet;
use std::io::Write;
use std::ops::ControlFlow;
use std::time::Instant;

use sow::book::best_k::best_k;
use sow::book::enumerate::{enumerate, ScanEvaluator};
use sow::book::topk::{best_first, Entry};
use sow::book::{opening_counts, EngineValuer, OpeningTurn};
use sow::games::kiothi::{parse_position, KiothiMove, KiothiPosition, OpeningMove, Setup, PITS};
use sow::infra::progress::ProgressBar;
use sow::infra::rng::Rng;
use sow::Game;

/// Pseudo-random pit and column tables, and optionally a whole-board term
/// (a hash of the board), to check the scans' bookkeeping.
struct RandomEval {
    pit: Vec<[i32; 61]>,
    column: Vec<i32>,
    board_term: bool,
}

impl RandomEval {
    fn new(seed: u64, board_term: bool) -> RandomEval {
        let mut rng = Rng::new(seed);
        let mut r = move || rng.below(2001) as i32 - 1000;
        RandomEval {
            pit: (0..PITS).map(|_| std::array::from_fn(|_| r())).collect(),
            column: (0..10 * 61 * 61).map(|_| r() / 4).collect(),
            board_term,
        }
    }
}

impl ScanEvaluator for RandomEval {
    fn pit(&self, pit: usize, count: u8) -> i32 {
        self.pit[pit][count as usize]
    }
    fn column(&self, j: usize, south: u8, north: u8) -> i32 {
        self.column[(j * 61 + south as usize) * 61 + north as usize]
    }
    fn board(&self, board: &[u8; PITS]) -> i32 {
        if !self.board_term {
            return 0;
        }
        let h = board.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &c| {
            (h ^ c as u64).wrapping_mul(0x100_0000_01b3)
        });
        (h % 3001) as i32 - 1500
    }
    fn board_bound(&self) -> Option<i32> {
        Some(if self.board_term { 1500 } else { 0 })
    }
}

/// Small opening positions (turn 2, North's hands of a few warriors):
/// several pairs, one pair only, a single occupied pit, uneven piles.
fn small_turns() -> Vec<KiothiPosition> {
    [
        "kiothi 10,10,10,10,10,6,0,0,0,0,0,0,0,0,0,0,0,1,2,1 N opening",
        "kiothi 10,10,10,10,10,7,0,0,0,0,0,0,0,0,0,0,0,0,2,1 N opening",
        "kiothi 10,10,10,10,10,7,0,0,0,0,0,3,0,0,0,0,0,0,0,0 N opening",
        "kiothi 9,10,10,10,10,7,0,0,0,0,1,0,0,1,0,0,0,0,1,1 N opening",
    ]
    .iter()
    .filter_map(|t| parse_position(t).ok())
    .collect()
}

/// Every board of every legal move, played by the rules.
fn brute_boards(pos: &KiothiPosition) -> (u64, HashSet<[u8; PITS]>) {
    let mut moves = 0;
    let mut boards = HashSet::new();
    let _ = pos.for_each_child(|_, child| {
        moves += 1;
        boards.insert(child.pits());
        ControlFlow::Continue(())
    });
    (moves, boards)
}

/// The move of a scanned entry, written in notation, parsed and played.
fn replay(turn: &OpeningTurn, e: &Entry) -> KiothiPosition {
    let lift = &turn.lifts[e.lift as usize];
    let text = OpeningMove::new(lift.lifted(), e.placed).to_string();
    let mv = turn.position.parse_move(&text).expect("the move parses");
    turn.position.play_move(&mv).expect("the move is legal")
}

#[test]
fn small_turns_counted_in_closed_form_equal_every_move_played() {
    let turns = small_turns();
    assert_eq!(turns.len(), 4, "a small position failed to parse");
    for pos in &turns {
        let turn = OpeningTurn::new(pos).unwrap();
        let counts = opening_counts(&turn);
        let (moves, boards) = brute_boards(pos);
        assert_eq!(counts.moves, moves, "{pos}");
        assert_eq!(counts.boards, boards.len() as u64, "{pos}");
        assert_eq!(counts.boards_by_lift.iter().sum::<u64>(), counts.boards);
        // The enumeration visits each board once, every one reachable.
        let eval = RandomEval::new(3, true);
        let found = enumerate(&turn, &eval, usize::MAX >> 1, &ProgressBar::hidden());
        assert_eq!(found.boards, counts.boards, "{pos}");
        assert_eq!(found.boards + found.repeats, counts.moves, "{pos}");
        assert_eq!(found.histogram.total(), counts.boards);
        assert_eq!(found.best.len() as u64, counts.boards);
        let mut seen = HashSet::new();
        for e in &found.best {
            let child = replay(&turn, e);
            assert!(seen.insert(child.pits()), "{pos}: a board scanned twice");
            assert_eq!(e.score, eval.score(&child.pits()), "{pos}");
        }
        assert_eq!(seen, boards, "{pos}");
    }
}

#[test]
fn the_kept_moves_are_the_top_of_a_full_sort() {
    for pos in small_turns() {
        let turn = OpeningTurn::new(&pos).unwrap();
        let eval = RandomEval::new(11, true);
        let all = enumerate(&turn, &eval, usize::MAX >> 1, &ProgressBar::hidden()).best;
        let mut sorted = all.clone();
        sorted.sort_by(best_first);
        for keep in [1, 7, 100] {
            let found = enumerate(&turn, &eval, keep, &ProgressBar::hidden());
            let k = keep.min(sorted.len());
            assert_eq!(found.best, sorted[..k].to_vec(), "{pos} keep {keep}");
        }
    }
}

#[test]
fn best_k_by_bounds_equals_the_enumeration() {
    let mut positions = small_turns();
    // Hands of 5, 6 and 9 warriors (6.9·10^6 placements for the largest).
    positions.push(
        parse_position("kiothi 10,10,10,10,10,0,0,0,0,0,0,0,0,0,0,0,4,5,1,0 N opening").unwrap(),
    );
    for pos in positions {
        let turn = OpeningTurn::new(&pos).unwrap();
        // Separable, then with a bounded whole-board term.
        for (seed, board_term) in [(1, false), (2, false), (3, true)] {
            let eval = RandomEval::new(seed, board_term);
            for keep in [1, 10, 64] {
                let found = enumerate(&turn, &eval, keep, &ProgressBar::hidden());
                let fast = best_k(&turn, &eval, keep, u64::MAX);
                assert!(fast.exact);
                assert_eq!(fast.best, found.best, "{pos} seed {seed} keep {keep}");
                if !board_term {
                    // The separable order needs no board beyond the K best.
                    assert!(
                        fast.examined <= keep as u64 + 64,
                        "{pos}: {}",
                        fast.examined
                    );
                }
            }
        }
    }
}

/// A constructed turn-2 position (North lifts two lone warriors: 210
/// replies) in which, by the engine's own values of every reply, one
/// reply is better than all others by several stones: the reply search
/// finds it without valuing every reply.
#[test]
fn the_reply_search_finds_the_planted_best_reply() {
    use sow::book::{reply_search, ReplyBudget};
    let pos = parse_position("kiothi 5,7,4,5,6,9,5,2,6,9,0,1,0,0,0,0,1,0,0,0 N opening").unwrap();
    let budget = ReplyBudget {
        nodes: 4000,
        ..ReplyBudget::default()
    };
    let v = EngineValuer::new(budget.nodes);
    let mut all: Vec<(i32, [u8; PITS])> = Vec::new();
    let mut seen = HashSet::new();
    let _ = pos.for_each_child(|_, child| {
        if seen.insert(child.pits()) {
            all.push((-v.value(&child).value, child.pits()));
        }
        ControlFlow::Continue(())
    });
    all.sort_by_key(|a| std::cmp::Reverse(a.0));
    assert!(
        all[0].0 >= all[1].0 + 3,
        "not a clear best: {:?} {:?}",
        all[0],
        all[1]
    );
    let r = reply_search(&pos, &budget, 1).unwrap();
    let found = pos.play_move(&KiothiMove::Opening(r.best.opening)).unwrap();
    assert_eq!((r.best.value, found.pits()), all[0], "{}", r.best.mv);
    assert!(
        r.searched < all.len(),
        "{} of {} replies searched",
        r.searched,
        all.len()
    );
    // Deterministic: the same seed gives the same search.
    assert_eq!(reply_search(&pos, &budget, 1).unwrap().replies, r.replies);
}

/// An agent that records the positions it was asked about and plays the
/// first legal move.
struct Recording(std::sync::Arc<std::sync::Mutex<Vec<KiothiPosition>>>);

impl sow::search::Agent<KiothiPosition> for Recording {
    fn choose(&mut self, pos: &KiothiPosition) -> Option<KiothiMove> {
        self.0.lock().unwrap().push(*pos);
        let mut first = None;
        let _ = pos.for_each_child(|mv, _| {
            first = Some(mv);
            ControlFlow::Break(())
        });
        first
    }
}

/// In play, North's turn 2 is answered by the reply search (the planted
/// best reply of the position above, within a move's time), never by the
/// engine's agent; turn 1 and the play phase go to the engine's agent.
#[test]
fn the_reply_agent_answers_turn_2_and_hands_on_the_rest() {
    use sow::book::{ReplyAgent, ReplyBudget, ReplyLimits};
    use sow::search::Agent;
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let limits = ReplyLimits::shaped(Some(30.0), None, 1);
    let mut agent = ReplyAgent::new(Box::new(Recording(asked.clone())), limits, 7);
    let planted =
        parse_position("kiothi 5,7,4,5,6,9,5,2,6,9,0,1,0,0,0,0,1,0,0,0 N opening").unwrap();
    let v = EngineValuer::new(ReplyBudget::for_seconds(30.0).nodes);
    let mv = agent.choose(&planted).unwrap();
    let KiothiMove::Opening(_) = mv else {
        panic!("not a redistribution: {mv}")
    };
    let after = planted.play_move(&mv).expect("a legal reply");
    let mut best = i32::MIN;
    let _ = planted.for_each_child(|_, child| {
        best = best.max(-v.value(&child).value);
        ControlFlow::Continue(())
    });
    assert_eq!(-v.value(&after).value, best, "{mv}");
    assert!(asked.lock().unwrap().is_empty());
    let start = KiothiPosition::start(Setup::SixPit);
    let first = agent.choose(&start).unwrap();
    let turn2 = start.play_move(&first).unwrap();
    let reply = agent.choose(&turn2).unwrap();
    let play = turn2.play_move(&reply).unwrap();
    agent.choose(&play).unwrap();
    assert_eq!(*asked.lock().unwrap(), vec![start, play]);
}

/// A reply search shaped to a time or a node count keeps the default's
/// shape and cuts each engine search's nodes, within their bounds.
#[test]
fn reply_budgets_shaped_to_a_time_or_nodes_stay_in_bounds() {
    use sow::book::reply::{MIN_NODES, TYPICAL_SEARCHES};
    use sow::book::ReplyBudget;
    let d = ReplyBudget::default();
    assert_eq!(ReplyBudget::for_seconds(0.0).nodes, MIN_NODES);
    assert_eq!(ReplyBudget::for_seconds(1e9).nodes, d.nodes);
    let small = ReplyBudget::for_nodes((TYPICAL_SEARCHES * 2000.0) as u64);
    assert_eq!(small.nodes, 2000);
    assert_eq!(
        ReplyBudget {
            nodes: d.nodes,
            ..small.clone()
        },
        d
    );
    let a = ReplyBudget::for_seconds(0.05).nodes;
    let b = ReplyBudget::for_seconds(0.2).nodes;
    assert!(a <= b && b <= d.nodes, "{a} {b}");
}

#[test]
fn positions_that_are_not_the_right_opening_turn_are_refused() {
    use sow::book::{reply_search, scan_replies, BookError, ReplyBudget};
    let start = KiothiPosition::start(Setup::SixPit);
    let budget = ReplyBudget::default();
    assert!(matches!(
        reply_search(&start, &budget, 1),
        Err(BookError::WrongTurn {
            found: 1,
            wanted: 2,
            ..
        })
    ));
    let play = parse_position("kiothi 0,0,0,0,5,5,5,5,5,5,0,0,0,0,5,5,5,5,5,5 S play").unwrap();
    let e = reply_search(&play, &budget, 1).unwrap_err();
    assert!(matches!(e, BookError::NotOpening { .. }));
    assert!(e.to_string().contains("not an opening position"), "{e}");
    let over =
        parse_position("kiothi 10,10,10,10,10,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 N opening").unwrap();
    assert!(matches!(
        scan_replies(&over, 5, 1000),
        Err(BookError::NoMove { .. })
    ));
    let turn2 = start
        .play_move(&start.parse_move("4+5>9,9,9,9,9,9,9,9,9,9").unwrap())
        .unwrap();
    assert!(matches!(
        scan_replies(&turn2, 0, 1000),
        Err(BookError::BadParameter { field: "keep", .. })
    ));
    let none = ReplyBudget {
        nodes: 0,
        ..ReplyBudget::default()
    };
    assert!(matches!(
        reply_search(&turn2, &none, 1),
        Err(BookError::BadParameter { .. })
    ));
}

fn binomial(n: u64, k: u64) -> u64 {
    (1..=k).fold(1, |c, i| c * (n + 1 - i) / i)
}

/// Turn 1 of both setups: the moves of RULES §4 and the distinct boards
/// by inclusion–exclusion written out for the setup (each of the `pits`
/// filled pits holds 5; a board is the setup, or has one filled pit short
/// by d = 1..5 and the d warriors spread over the 19 other pits, or two
/// filled pits short by d1, d2 and d1 + d2 spread over the 18 others),
/// counted by the scan itself, board by board.
#[test]
fn first_move_scans_count_every_move_and_board_of_both_setups() {
    for (setup, moves) in [
        (Setup::SixPit, 300_450_150u64),
        (Setup::FivePit, 200_300_100),
    ] {
        let filled = if setup == Setup::SixPit { 6 } else { 5 };
        let pairs = filled * (filled - 1) / 2;
        let short1: u64 = (1..=5).map(|d| binomial(d + 18, 18)).sum();
        let short2: u64 = (1..=5)
            .flat_map(|a| (1..=5).map(move |b| binomial(a + b + 17, 17)))
            .sum();
        let boards = 1 + filled * short1 + pairs * short2;
        let turn = OpeningTurn::new(&KiothiPosition::start(setup)).unwrap();
        let counts = opening_counts(&turn);
        assert_eq!((counts.moves, counts.boards), (moves, boards), "{setup:?}");
        let t = Instant::now();
        let found = enumerate(
            &turn,
            &RandomEval::new(5, false),
            16,
            &ProgressBar::hidden(),
        );
        eprintln!(
            "{setup:?}: {} boards in {:.1} s",
            found.boards,
            t.elapsed().as_secs_f64()
        );
        assert_eq!(found.boards, boards, "{setup:?}");
        assert_eq!(found.boards + found.repeats, moves, "{setup:?}");
        assert_eq!(found.histogram.total(), boards);
        // The best boards are real first moves, scored as they are.
        for e in &found.best {
            let child = replay(&turn, e);
            assert_eq!(e.score, RandomEval::new(5, false).score(&child.pits()));
        }
    }
}

fn env<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Data and fits for the opening models, one step at a time (env STEP).
#[test]
#[ignore]
fn fit_step() {
    use sow::book::fit::*;
    use sow::book::model::Stage;
    use sow::book::models::ModelsFile;
    let step: String = env("STEP", String::new());
    let out: String = env("OUT", "/tmp/book/out.csv".to_string());
    let seed: u64 = env("SEED", 1);
    let nodes: u64 = env("NODES", 10_000);
    let n: usize = env("N", 100);
    let bar = sow::infra::progress::Progress::Shown.count(0, "samples", "samples");
    let models = |path: &str| -> ModelsFile {
        if path.is_empty() {
            sow::book::models::models().clone()
        } else {
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
        }
    };
    let read = |paths: &str| -> Vec<Sample> {
        paths
            .split(',')
            .filter(|p| !p.is_empty())
            .flat_map(|p| samples_from_csv(&std::fs::read_to_string(p).unwrap()).unwrap())
            .collect()
    };
    match step.as_str() {
        "e2random" => {
            let s = random_reply_samples(Setup::SixPit, n, seed, nodes, &bar);
            std::fs::write(&out, samples_csv(&s)).unwrap();
        }
        "e2short" => {
            let m = models(&env("MODELS", String::new()));
            let e2 = m.after_reply.tables();
            let mut rng = Rng::new(seed);
            let positions: Vec<KiothiPosition> = (0..n)
                .map(|_| random_turn2(Setup::SixPit, &mut rng))
                .collect();
            let per = (env("PER", 8), env("PER_LIFT", 0));
            let s =
                shortlist_reply_samples(&positions, &e2, per, env("LIMIT", 100_000), nodes, &bar)
                    .unwrap();
            std::fs::write(&out, samples_csv(&s)).unwrap();
        }
        "fit" => {
            let stage = if env("STAGE", "e2".to_string()) == "e1" {
                Stage::AfterFirst
            } else {
                Stage::AfterReply
            };
            let train = read(&env("TRAIN", String::new()));
            let test = read(&env("TEST", String::new()));
            let ridge: f64 = env("RIDGE", 10.0);
            let model = fit_model(stage, &default_layout(stage), &train, ridge).unwrap();
            let q = |s: &[Sample]| quality(s, |b| model.predict(b));
            eprintln!("train {:?}", q(&train));
            eprintln!("test  {:?}", q(&test));
            let group: usize = env("GROUP", 0);
            if group > 1 {
                let mut sum = 0.0;
                let mut n = 0;
                for g in test.chunks(group) {
                    let p: Vec<f64> = g.iter().map(|s| model.predict(&s.board)).collect();
                    let t: Vec<f64> = g.iter().map(|s| s.target).collect();
                    sum += sow::book::correlation::spearman(&p, &t);
                    n += 1;
                }
                eprintln!(
                    "test within groups of {group}: mean spearman {:.3}",
                    sum / n as f64
                );
            }
            let mut m = models(&env("MODELS", String::new()));
            let record = serde_json::json!({
                "ridge": ridge,
                "train": q(&train),
                "test": q(&test),
                "data": env("DATA", String::new()),
            });
            if !m.fit.is_object() || m.fit.get("bootstrap").is_some() {
                m.fit = serde_json::json!({});
            }
            match stage {
                Stage::AfterFirst => {
                    m.after_first = model;
                    m.fit["after_first"] = record;
                }
                Stage::AfterReply => {
                    m.after_reply = model;
                    m.fit["after_reply"] = record;
                }
            }
            std::fs::write(&out, serde_json::to_string(&m).unwrap()).unwrap();
        }
        "e1twoply" => {
            // N uniform and N concentrated first moves valued by the two-ply estimate.
            let mut moves = random_first_moves(Setup::SixPit, n, seed);
            moves.extend(concentrated_first_moves(Setup::SixPit, n, seed + 1));
            let s = two_ply_samples(Setup::SixPit, &moves, env("LIMIT", 100_000), &bar).unwrap();
            std::fs::write(&out, samples_csv(&s)).unwrap();
        }
        "e1data" => {
            // Random first moves valued by the reply search, appended in chunks.
            let m = models(&env("MODELS", String::new()));
            let e2 = m.after_reply.tables();
            let moves = random_first_moves(Setup::SixPit, n, seed);
            let budget = sow::book::ReplyBudget::default();
            let skip: usize = env("SKIP", 0);
            for (c, chunk) in moves.chunks(50).enumerate().skip(skip / 50) {
                let v = value_first_moves(
                    Setup::SixPit,
                    chunk,
                    &e2,
                    &budget,
                    seed * 1_000_003 + c as u64,
                    &bar,
                )
                .unwrap();
                let mut f = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&out)
                    .unwrap();
                f.write_all(first_moves_csv(&v, c == 0).as_bytes()).unwrap();
            }
        }
        other => panic!("unknown STEP {other:?}"),
    }
}
