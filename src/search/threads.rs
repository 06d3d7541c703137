//! Parallel search: the main thread and its helpers all run iterative
//! deepening on the same root, sharing the transposition table and a table
//! of the positions being searched (simplified ABDADA, see
//! `negamax::BusyTable`), so that threads on the same iteration split its
//! tree between them. The search ends as soon as any thread completes the
//! last iteration.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use super::negamax::{Limits, SearchResult, Shared, Worker};
use super::tt::TranspositionTable;
use super::Searchable;

/// Searches `root` within `limits` on `threads` threads (at least one) and
/// returns the deepest iteration completed by any thread.
///
/// `stop` may be set from anywhere (Ctrl-C) to end the search early; the
/// result is then the last completed iteration (depth 0 with the evaluation
/// and no move if not even depth 1 completed). `on_iter` is called by the
/// main thread with each completed iteration deeper than the previous ones.
/// With one thread the result is deterministic (for depth and node limits).
pub fn search<G: Searchable>(
    root: &G,
    limits: &Limits,
    threads: usize,
    tt: &TranspositionTable,
    stop: &AtomicBool,
    on_iter: &mut dyn FnMut(&SearchResult<G::Move>),
) -> SearchResult<G::Move> {
    let threads = threads.max(1);
    let shared = Shared::new(tt, stop, *limits, threads);
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
    std::thread::scope(|scope| {
        for thread in 1..threads {
            let shared = &shared;
            let thread = thread.min(u8::MAX as usize) as u8;
            scope.spawn(move || Worker::<G>::new(shared, thread).iterate(root, &mut |_| {}));
        }
        Worker::<G>::new(&shared, 0).iterate(root, on_iter);
        shared.finished.store(true, Relaxed);
    });
    shared.best().unwrap_or_else(|| {
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
