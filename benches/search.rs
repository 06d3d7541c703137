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

/// Time to reach depth 7, then 9, on all 20 Kiothi middle-game positions,
/// with 1 or 2 search threads, each position with an empty 64 MiB table;
/// items are nodes (all threads), so items/s on 1 thread is the nodes per
/// second of one core.
///
/// The tables are allocated and emptied (their pages touched) before the
/// timed part: that fixed cost, the same for any number of threads, used to
/// be 95% of the measured time (20 times 64 MiB written for ~1.5 ms of
/// search per position). Depth 7 takes ~1.3 ms per position on one thread,
/// so waking the helper thread and ending the search weigh on its speedup;
/// depth 9 (~8 ms) is closer to the searches of a game. 30 samples: on
/// this VM a second of disturbance (a vCPU descheduled) can slow a third
/// of 10 samples with 2 threads.
#[divan::bench(consts = [7, 9], args = [1, 2], sample_count = 30, sample_size = 1)]
fn kiothi_time_to_depth<const DEPTH: u32>(bencher: Bencher, threads: usize) {
    let positions = kiothi_middlegames();
    let tables: Vec<TranspositionTable> = positions
        .iter()
        .map(|_| TranspositionTable::new(64))
        .collect();
    let search_all = || {
        positions
            .iter()
            .zip(&tables)
            .map(|(p, tt)| {
                let stop = AtomicBool::new(false);
                let r = search(p, &Limits::depth(DEPTH), threads, tt, &stop, &mut |_| {});
                assert_eq!(r.depth, DEPTH);
                r.nodes
            })
            .sum::<u64>()
    };
    tables.iter().for_each(TranspositionTable::clear);
    let nodes = search_all();
    bencher
        .counter(ItemsCount::new(nodes as usize))
        .with_inputs(|| tables.iter().for_each(TranspositionTable::clear))
        .bench_local_values(|()| search_all());
}
