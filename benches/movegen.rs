//! Move generation and perft throughput (divan). Run with
//! `cargo bench --bench movegen`; `sow perft` also prints nodes/s.

use std::ops::ControlFlow;

use divan::counter::ItemsCount;
use divan::{black_box, Bencher};
use sow::games::kpe::{parse_position, KpePosition};
use sow::perft::{perft, perft_parallel};
use sow::Game;

fn main() {
    divan::main();
}

/// A fixed, varied sample of Kpé positions: deterministic pseudo-random
/// games from the start, restarted when one ends.
fn kpe_sample(n: usize) -> Vec<KpePosition> {
    let start = parse_position("kpe").unwrap();
    let mut out = Vec::with_capacity(n);
    let mut pos = start;
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    while out.len() < n {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            pos = start;
            continue;
        }
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        pos = pos.play_unchecked(&moves[(seed % moves.len() as u64) as usize]);
        out.push(pos);
    }
    out
}

const SAMPLE: usize = 4096;

/// Legal move generation alone, per position.
#[divan::bench]
fn kpe_movegen(bencher: Bencher) {
    let positions = kpe_sample(SAMPLE);
    bencher.counter(ItemsCount::new(positions.len())).bench(|| {
        let mut n = 0u64;
        for p in black_box(&positions) {
            let _ = p.for_each_move(|m| {
                n += m.0 as u64;
                ControlFlow::Continue(())
            });
        }
        n
    });
}

/// Generating and playing every legal move, per child made.
#[divan::bench]
fn kpe_make_move(bencher: Bencher) {
    let positions = kpe_sample(SAMPLE);
    let children: u64 = positions.iter().map(|p| p.move_count()).sum();
    bencher.counter(ItemsCount::new(children)).bench(|| {
        let mut n = 0u64;
        for p in black_box(&positions) {
            let _ = p.for_each_child(|_, c| {
                n += c.board_total() as u64;
                ControlFlow::Continue(())
            });
        }
        n
    });
}

/// Sequential perft from the start (RULES §4), counted in nodes.
#[divan::bench(args = [9, 10], sample_count = 20)]
fn kpe_perft_start(bencher: Bencher, depth: u32) {
    let start = parse_position("kpe").unwrap();
    let nodes = perft(&start, depth);
    bencher
        .counter(ItemsCount::new(nodes))
        .bench(|| perft(black_box(&start), depth));
}

/// Parallel perft from the start at depth 10 on a pool of 1 or 2 threads.
#[divan::bench(args = [1, 2], sample_count = 20)]
fn kpe_perft_parallel(bencher: Bencher, threads: usize) {
    let start = parse_position("kpe").unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let nodes = perft(&start, 10);
    bencher
        .counter(ItemsCount::new(nodes))
        .bench(|| pool.install(|| perft_parallel(black_box(&start), 10)));
}

// KIOTHI: benches to add once `sow::games::kiothi` has its engine, e.g.
// - `kiothi_movegen`: `for_each_move` over a sample of play-phase positions
//   (relay sowing dominates; count moves per second);
// - `kiothi_opening_count`: `move_count()` of the start (300,450,150) and of
//   `kiothi:five` (200,300,100), which must not enumerate;
// - `kiothi_perft_play`: perft depth 3-4 from a play-phase position.
