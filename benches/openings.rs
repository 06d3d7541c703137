//! The opening scan's throughput (divan): `cargo bench --bench openings`.
//! The full first-move scan (`scan_first_moves`, 3·10^8 moves) is timed by
//! `scripts/book_scan_speed.sh`; these benches time its parts on smaller
//! turns.

use divan::counter::ItemsCount;
use divan::{black_box, Bencher};
use sow::book::best_k::best_k;
use sow::book::enumerate::{enumerate, ScanEvaluator};
use sow::book::models::{after_first, after_reply};
use sow::book::{opening_counts, OpeningTurn};
use sow::games::kiothi::{parse_position, KiothiPosition, Setup};
use sow::infra::progress::ProgressBar;
use sow::Game;

fn main() {
    divan::main();
}

/// A turn-2 position whose North lifts one pair of 9 warriors: 6.9·10^6
/// boards.
fn small_turn() -> OpeningTurn {
    let pos = parse_position("kiothi 10,10,10,10,10,1,0,0,0,0,0,0,0,0,0,0,4,5,0,0 N opening")
        .expect("a turn-2 position");
    OpeningTurn::new(&pos).expect("an opening turn")
}

/// Every board of a turn scored by E1 (engine features included), as the
/// first-move scan does, per board.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn enumerate_e1(bencher: Bencher) {
    let turn = small_turn();
    let boards = opening_counts(&turn).boards;
    bencher
        .counter(ItemsCount::new(boards as usize))
        .bench_local(|| {
            enumerate(black_box(&turn), after_first(), 64, &ProgressBar::hidden()).boards
        });
}

/// The same with E2's separable tables only, per board.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn enumerate_e2(bencher: Bencher) {
    let turn = small_turn();
    let boards = opening_counts(&turn).boards;
    bencher
        .counter(ItemsCount::new(boards as usize))
        .bench_local(|| {
            enumerate(black_box(&turn), after_reply(), 64, &ProgressBar::hidden()).boards
        });
}

/// E1 on one board, from scratch (the scan's whole-board term dominates).
#[divan::bench]
fn e1_one_board(bencher: Bencher) {
    let board = KiothiPosition::start(Setup::SixPit).pits();
    bencher.bench_local(|| after_first().score(black_box(&board)));
}

/// The best 32 replies to the engine's old favourite first move
/// (4+5>9×10) under E2, by bounds (`scan_replies`, at most 10^5 boards
/// scored in full).
#[divan::bench]
fn best_32_replies(bencher: Bencher) {
    let start = KiothiPosition::start(Setup::SixPit);
    let mv = start
        .parse_move("4+5>9,9,9,9,9,9,9,9,9,9")
        .expect("a first move");
    let turn = OpeningTurn::new(&start.play_move(&mv).expect("legal")).expect("turn 2");
    bencher.bench_local(|| best_k(black_box(&turn), after_reply(), 32, 100_000).examined);
}
