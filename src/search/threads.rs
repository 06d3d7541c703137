//! Lazy SMP: the main thread and its helpers search the same root, sharing
//! only the transposition table; helpers start at staggered depths so that
//! they fill the table with entries the main thread will want.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use super::negamax::{Limits, SearchResult, Shared, Worker};
use super::tt::TranspositionTable;
use super::Searchable;

/// Searches `root` within `limits` on `threads` threads (at least one) and
/// returns the last iteration the main thread completed.
///
/// `stop` may be set from anywhere (Ctrl-C) to end the search early; the
/// result is then the last completed iteration (depth 0 with the evaluation
/// and no move if not even depth 1 completed). `on_iter` is called by the
/// main thread after each completed iteration. With one thread the result is
/// deterministic (for depth and node limits).
pub fn search<G: Searchable>(
    root: &G,
    limits: &Limits,
    threads: usize,
    tt: &TranspositionTable,
    stop: &AtomicBool,
    on_iter: &mut dyn FnMut(&SearchResult<G::Move>),
) -> SearchResult<G::Move> {
    let shared = Shared {
        tt,
        stop,
        helpers_stop: AtomicBool::new(false),
        nodes: AtomicU64::new(0),
        start: Instant::now(),
        limits: *limits,
    };
    if root.is_over() {
        return SearchResult {
            value: root.terminal_value(),
            best: None,
            pv: Vec::new(),
            depth: 0,
            nodes: 1,
            nps: 0.0,
            exact: true,
            seconds: shared.start.elapsed().as_secs_f64(),
        };
    }
    tt.new_search();
    let result = std::thread::scope(|scope| {
        for i in 1..threads.max(1) {
            let shared = &shared;
            scope.spawn(move || {
                let mut worker = Worker::<G>::new(shared, false);
                worker.iterate(root, 1 + (i as u32 % 2), &mut |_| {});
            });
        }
        let mut worker = Worker::<G>::new(&shared, true);
        let result = worker.iterate(root, 1, on_iter);
        shared.helpers_stop.store(true, Relaxed);
        result
    });
    result.unwrap_or_else(|| {
        let seconds = shared.start.elapsed().as_secs_f64();
        let nodes = shared.nodes.load(Relaxed);
        SearchResult {
            value: root.evaluate(),
            best: None,
            pv: Vec::new(),
            depth: 0,
            nodes,
            nps: nodes as f64 / seconds.max(1e-9),
            exact: false,
            seconds,
        }
    })
}

/// `search` with a fresh table of `tt_mb` MiB, one thread, no stop flag and
/// no progress callback.
pub fn search_fresh<G: Searchable>(
    root: &G,
    limits: &Limits,
    tt_mb: usize,
) -> SearchResult<G::Move> {
    let tt = TranspositionTable::new(tt_mb);
    let stop = AtomicBool::new(false);
    search(root, limits, 1, &tt, &stop, &mut |_| {})
}
