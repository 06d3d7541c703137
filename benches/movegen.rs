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

/// Parallel perft from the start at depth 13 on a pool of 1 or 2 threads.
#[divan::bench(args = [1, 2], sample_count = 5)]
fn kpe_perft_parallel(bencher: Bencher, threads: usize) {
    let start = parse_position("kpe").unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let nodes = perft(&start, 13);
    bencher
        .counter(ItemsCount::new(nodes))
        .bench(|| pool.install(|| perft_parallel(black_box(&start), 13)));
}

/// Kiothi play-phase positions on which perft is measured (reached by
/// seeded random games; the first is the engine's regression position).
const KIOTHI_PLAY: [&str; 3] = [
    "kiothi 2,2,0,2*,1*,2*,0,6,0,8,3,4,1,2,1,1,9,0,3,2 S play 9 2",
    "kiothi 1,8,1,6,2,4,2,0,1,4,1,7,0,1,5,2,2,0,4,3 N play 6 0",
    "kiothi 0,4,5,0,3,0,0,0,4,0,0,1,1,0,3,10,5,0,3,1 N play 9 11",
];

/// Kiothi play-phase perft (every leaf move is sown to know it is legal),
/// counted in leaves, single-threaded.
#[divan::bench(args = [0, 1, 2], sample_count = 10)]
fn kiothi_perft_play(bencher: Bencher, which: usize) {
    let pos = sow::games::kiothi::parse_position(KIOTHI_PLAY[which]).unwrap();
    let depth = 4;
    let nodes = perft(&pos, depth);
    bencher
        .counter(ItemsCount::new(nodes))
        .bench(|| perft(black_box(&pos), depth));
}

/// Kiothi opening moves are counted, not enumerated: 300,450,150 at the start.
#[divan::bench]
fn kiothi_opening_count() -> u64 {
    let pos = sow::games::kiothi::parse_position("kiothi").unwrap();
    black_box(&pos).move_count()
}

/// Parallel Kiothi perft (depth 6) on 1 or 2 threads.
#[divan::bench(args = [1, 2], sample_count = 5)]
fn kiothi_perft_parallel(bencher: Bencher, threads: usize) {
    let pos = sow::games::kiothi::parse_position(KIOTHI_PLAY[0]).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let nodes = perft(&pos, 6);
    bencher
        .counter(ItemsCount::new(nodes))
        .bench(|| pool.install(|| perft_parallel(black_box(&pos), 6)));
}
