//! Kpé solver throughput (divan): a whole small variant solved, positions
//! per second on 1 and 2 threads, and database probes. Run with
//! `cargo bench --bench solver`.

use divan::counter::ItemsCount;
use divan::{black_box, Bencher};
use sow::games::kpe::{KpePosition, KpeVariant};
use sow::infra::progress::Progress;
use sow::kpe_db::endgame::Endgame;
use sow::kpe_db::{endgame_positions, Solution};
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

/// Positions of a deterministic walk from the start (restarted when a
/// game ends).
fn walk(variant: KpeVariant, steps: u32) -> Vec<KpePosition> {
    let mut positions = Vec::new();
    let mut pos = KpePosition::start(variant);
    for i in 0..steps {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            pos = KpePosition::start(variant);
            continue;
        }
        pos = pos.play_unchecked(&moves[(i as usize * 7) % moves.len()]);
        positions.push(pos);
    }
    positions
}

/// Exact value of positions from an in-memory kpe:4x2 solution.
#[divan::bench]
fn probe_4x2(bencher: Bencher) {
    let variant = KpeVariant::new(4, 2).unwrap();
    let solution = Solution::in_memory(variant, Progress::Hidden);
    probe(bencher, &solution);
}

/// Benches the exact value of the positions of a walk in `solution`.
fn probe(bencher: Bencher, solution: &Solution) {
    let positions = walk(solution.variant(), 1000);
    bencher.counter(ItemsCount::new(positions.len())).bench(|| {
        positions
            .iter()
            .map(|p| solution.value(black_box(p), None).unwrap())
            .sum::<i32>()
    });
}

/// Exact value of positions from a kpe:4x3 database on disk (compressed
/// layers, compact region index), warm: the files are mapped and their
/// blocks checked and cached by earlier samples.
#[divan::bench]
fn probe_db_4x3(bencher: Bencher) {
    let variant = KpeVariant::new(4, 3).unwrap();
    let dir = std::env::temp_dir().join(format!("sow-bench-probe-{}", std::process::id()));
    Solution::build(variant, &dir, Progress::Hidden).unwrap();
    let solution = Solution::open(variant, &dir).unwrap();
    probe(bencher, &solution);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Exact value of positions from the standard game's database, warm: the
/// database directory is given by `SOW_BENCH_DB` (a `sow solve kpe --db
/// DIR`); ignored by default since it needs that solve. Run with
/// `SOW_BENCH_DB=DIR cargo bench --bench solver -- --ignored`.
#[divan::bench(ignore)]
fn probe_db_standard(bencher: Bencher) {
    let dir = std::env::var_os("SOW_BENCH_DB").expect("SOW_BENCH_DB names a solved database");
    let solution = Solution::open(KpeVariant::STANDARD, std::path::Path::new(&dir)).unwrap();
    probe(bencher, &solution);
}

/// The retrograde's inner loop alone: every un-move of 2^20 consecutive
/// boards of the standard game's layer of 36 stones, each predecessor
/// ranked (`Endgame::unmove_edges` without the work list), counted in
/// boards. About a third of the standard solve's layer time is here.
#[divan::bench(sample_count = 20)]
fn unmoves_ranked(bencher: Bencher) {
    use sow::kpe_db::unmove::for_each_unmove_word;
    use sow::retrograde::index::BoardIndex;
    const BOARDS: u64 = 1 << 20;
    let variant = KpeVariant::STANDARD;
    let index = BoardIndex::kpe(variant);
    let first = index.layer_size(36) / 3;
    bencher.counter(ItemsCount::new(BOARDS)).bench(|| {
        let mut board = [0u8; 16];
        index.unrank(36, first, &mut board[..8]);
        let mut sum = 0u64;
        for _ in 0..BOARDS {
            let word = u128::from_le_bytes(black_box(board));
            for_each_unmove_word(variant, word, 36, true, |pred, _| {
                sum = sum.wrapping_add(index.rank_in_layer(pred, 36))
            });
            index.next(&mut board[..8]);
        }
        sum
    });
}
