//! Search speed on Kpé positions (nodes per second are printed by `divan`
//! as items/s: one item is one searched node).

use std::sync::atomic::AtomicBool;

use divan::counter::ItemsCount;
use divan::Bencher;
use sow::games::kpe::{parse_position, KpePosition, KpeVariant};
use sow::search::{search, Limits, TranspositionTable};

fn main() {
    divan::main();
}

fn positions() -> Vec<(&'static str, KpePosition)> {
    vec![
        ("start", KpePosition::start(KpeVariant::STANDARD)),
        (
            "middlegame",
            parse_position("kpe 3,7,1,0,9,2,5,1 S xxxx xxxx 12 8").unwrap(),
        ),
    ]
}

#[divan::bench(args = [8, 10, 12])]
fn kpe_start_depth(bencher: Bencher, depth: u32) {
    run(bencher, positions()[0].1, depth);
}

#[divan::bench(args = [8, 10, 12])]
fn kpe_middlegame_depth(bencher: Bencher, depth: u32) {
    run(bencher, positions()[1].1, depth);
}

/// Searches `p` to `depth` with a fresh 4 MiB table per run; counts nodes.
fn run(bencher: Bencher, p: KpePosition, depth: u32) {
    let stop = AtomicBool::new(false);
    let tt = TranspositionTable::new(4);
    let nodes = search(&p, &Limits::depth(depth), 1, &tt, &stop, &mut |_| {}).nodes;
    bencher
        .counter(ItemsCount::new(nodes as usize))
        .bench_local(|| {
            let tt = TranspositionTable::new(4);
            search(&p, &Limits::depth(depth), 1, &tt, &stop, &mut |_| {})
        });
}

/// The 20 Kiothi middle-game positions kept in `benches/kiothi_middlegames.txt`.
fn kiothi_middlegames() -> Vec<sow::games::kiothi::KiothiPosition> {
    include_str!("kiothi_middlegames.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| sow::games::kiothi::parse_position(l).unwrap())
        .collect()
}

/// Time to reach depth 7 on all 20 Kiothi middle-game positions, with 1
/// or 2 search threads, each position with an empty 64 MiB table.
///
/// The tables are allocated and emptied (their pages touched) before the
/// timed part: that fixed cost, the same for any number of threads, used to
/// be 95% of the measured time (20 times 64 MiB written for ~1.5 ms of
/// search per position).
#[divan::bench(args = [1, 2], sample_count = 10, sample_size = 1)]
fn kiothi_time_to_depth_7(bencher: Bencher, threads: usize) {
    let positions = kiothi_middlegames();
    let tables: Vec<TranspositionTable> = positions
        .iter()
        .map(|_| TranspositionTable::new(64))
        .collect();
    bencher
        .with_inputs(|| tables.iter().for_each(TranspositionTable::clear))
        .bench_local_values(|()| {
            positions
                .iter()
                .zip(&tables)
                .map(|(p, tt)| {
                    let stop = AtomicBool::new(false);
                    let r = search(p, &Limits::depth(7), threads, tt, &stop, &mut |_| {});
                    assert_eq!(r.depth, 7);
                    r.nodes
                })
                .sum::<u64>()
        });
}
