//! The opening scan, its evaluators and the reply search (src/book).

use std::collections::HashSet;
use std::io::Write;
use std::ops::ControlFlow;
use std::time::Instant;

use sow::book::best_k::best_k;
use sow::book::enumerate::{enumerate, ScanEvaluator};
use sow::book::topk::{best_first, Entry};
use sow::book::{opening_counts, random_opening_move, EngineValuer, OpeningTurn};
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
        let h = board
            .iter()
            .fold(0xcbf2_9ce4_8422_2325u64, |h, &c| (h ^ c as u64).wrapping_mul(0x100_0000_01b3));
        (h % 3001) as i32 - 1500
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
        for seed in [1, 2] {
            let eval = RandomEval::new(seed, false);
            for keep in [1, 10, 64] {
                let found = enumerate(&turn, &eval, keep, &ProgressBar::hidden());
                let fast = best_k(&turn, &eval, keep);
                assert_eq!(fast, found.best, "{pos} seed {seed} keep {keep}");
            }
        }
    }
}

/// Exploration: random turn-3 positions valued at several node budgets.
#[test]
#[ignore]
fn explore_engine_values() {
    let n: usize = std::env::var("N").ok().and_then(|s| s.parse().ok()).unwrap_or(200);
    let budgets: Vec<u64> = std::env::var("BUDGETS")
        .unwrap_or("2000,8000,32000".into())
        .split(',')
        .map(|s| s.parse().unwrap())
        .collect();
    let seed: u64 = std::env::var("SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(7);
    let start = KiothiPosition::start(Setup::SixPit);
    let mut rng = Rng::new(seed);
    let positions: Vec<KiothiPosition> = (0..n)
        .map(|_| {
            let m1 = random_opening_move(&start, &mut rng).unwrap();
            let p1 = start.play_move(&KiothiMove::Opening(m1)).unwrap();
            let m2 = random_opening_move(&p1, &mut rng).unwrap();
            p1.play_move(&KiothiMove::Opening(m2)).unwrap()
        })
        .collect();
    use rayon::prelude::*;
    let lines: Vec<String> = positions
        .par_iter()
        .map_init(
            || budgets.iter().map(|&b| EngineValuer::new(b)).collect::<Vec<_>>(),
            |valuers, p2| {
                let mut line = p2.pits().iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",");
                for v in valuers.iter() {
                    let t = Instant::now();
                    let r = v.value(p2);
                    line += &format!(",{},{},{:.4}", r.value, r.depth, t.elapsed().as_secs_f64());
                }
                line
            },
        )
        .collect();
    let path = std::env::var("OUT").unwrap_or("/tmp/book/values.csv".into());
    let mut out = std::fs::File::create(path).unwrap();
    for l in lines {
        writeln!(out, "{l}").unwrap();
    }
}

fn env<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
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
            let positions: Vec<KiothiPosition> =
                (0..n).map(|_| random_turn2(Setup::SixPit, &mut rng)).collect();
            let s = shortlist_reply_samples(&positions, &e2, env("PER", 8), nodes, &bar).unwrap();
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
            let mut m = models(&env("MODELS", String::new()));
            match stage {
                Stage::AfterFirst => m.after_first = model,
                Stage::AfterReply => m.after_reply = model,
            }
            std::fs::write(&out, serde_json::to_string(&m).unwrap()).unwrap();
        }
        other => panic!("unknown STEP {other:?}"),
    }
}
