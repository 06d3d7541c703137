//! Kpé solver throughput (divan): a whole small variant solved, positions
//! per second on 1 and 2 threads, and database probes. Run with
//! `cargo bench --bench solver`.

use divan::counter::ItemsCount;
use divan::{black_box, Bencher};
use sow::games::kpe::{KpePosition, KpeVariant};
use sow::progress::Progress;
use sow::solve::endgame::Endgame;
use sow::solve::solution::{endgame_positions, Solution};
use sow::Game;

fn main() {
    divan::main();
}

/// The unlocked endgame database of kpe:4x3 (6.0 million positions),
/// counted in positions solved, on a pool of 1 or 2 threads.
#[divan::bench(args = [1, 2], sample_count = 3)]
fn endgame_4x3(bencher: Bencher, threads: usize) {
    let variant = KpeVariant::new(4, 3).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    bencher
        .counter(ItemsCount::new(endgame_positions(variant)))
        .bench(|| pool.install(|| Endgame::new(variant).solve_all(Progress::Hidden)));
}

/// Exact value of positions from an in-memory kpe:4x2 solution.
#[divan::bench]
fn probe_4x2(bencher: Bencher) {
    let variant = KpeVariant::new(4, 2).unwrap();
    let solution = Solution::in_memory(variant, Progress::Hidden);
    let mut positions = Vec::new();
    let mut pos = KpePosition::start(variant);
    for i in 0..1000u32 {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            pos = KpePosition::start(variant);
            continue;
        }
        pos = pos.play_unchecked(&moves[(i as usize * 7) % moves.len()]);
        positions.push(pos);
    }
    bencher.counter(ItemsCount::new(positions.len())).bench(|| {
        positions
            .iter()
            .map(|p| solution.value(black_box(p), None).unwrap())
            .sum::<i32>()
    });
}
