//! Parallel search: the main thread and its helpers all run iterative
//! deepening on the same root, sharing the transposition table and a table
//! of the positions being searched (simplified ABDADA, see
//! `negamax::BusyTable`), so that threads on the same iteration split its
//! tree between them. The search ends as soon as any thread completes the
//! last iteration. Helper threads are kept between searches (`pool`).

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use super::exact_values::{ExactValues, NoTables};
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
    search_with(root, limits, threads, tt, &NoTables, stop, on_iter)
}

/// `search` that takes the values `exact` knows (endgame tables) instead of
/// searching below them: a line reaching them ends there with a proved
/// value, and the principal variation goes on through them.
pub fn search_with<G: Searchable>(
    root: &G,
    limits: &Limits,
    threads: usize,
    tt: &TranspositionTable,
    exact: &dyn ExactValues<G>,
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
    let helper = |thread: usize| {
        let thread = thread.min(u8::MAX as usize) as u8;
        Worker::<G>::new(&shared, exact, thread).iterate(root, &mut |_| {});
    };
    pool::run(threads - 1, &helper, &shared.finished, || {
        Worker::<G>::new(&shared, exact, 0).iterate(root, on_iter);
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

/// Helper threads kept between searches. Starting a thread costs ~40 µs
/// (more when its core sleeps), as much as a small search; a helper that
/// keeps polling a little while after its search takes the next one at once.
mod pool {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};
    use std::sync::{Arc, Mutex};
    use std::thread::{self, Thread};
    use std::time::{Duration, Instant};

    /// How long an idle helper polls for its next task before it blocks
    /// (searches played one after another, as in a benchmark or a match,
    /// find it awake).
    const SPIN: Duration = Duration::from_millis(1);

    /// A task borrowed from the stack of `run`, which does not return before
    /// every helper is done with it.
    type Task = *const (dyn Fn(usize) + Sync);

    struct Job {
        task: Task,
        index: usize,
        latch: Arc<Latch>,
    }

    // SAFETY: the task is `Sync`, and `run` keeps it alive until the job's
    // helper has decremented the latch (after its last use of the task).
    unsafe impl Send for Job {}

    /// Counts the helpers still running a task of one `run`.
    struct Latch {
        running: AtomicUsize,
        panicked: AtomicBool,
        owner: Thread,
    }

    /// Idle helpers, each fed through its channel.
    static IDLE: Mutex<Vec<Sender<Job>>> = Mutex::new(Vec::new());

    /// Runs `task(1)`, ..., `task(helpers)` on helper threads while `main`
    /// runs on this thread, and returns once all of them have returned. When
    /// `main` is done (or panics), `done` is set: tasks must then return soon.
    pub fn run<R>(
        helpers: usize,
        task: &(dyn Fn(usize) + Sync),
        done: &AtomicBool,
        main: impl FnOnce() -> R,
    ) -> R {
        if helpers == 0 {
            return main();
        }
        // SAFETY: only the lifetime is erased; the `Wait` guard below, dropped
        // on return and on unwinding alike, blocks until every helper has
        // finished with `task`.
        let task: Task =
            unsafe { std::mem::transmute::<*const (dyn Fn(usize) + Sync + '_), Task>(task) };
        let latch = Arc::new(Latch {
            running: AtomicUsize::new(0),
            panicked: AtomicBool::new(false),
            owner: thread::current(),
        });
        let wait = Wait {
            latch: &latch,
            done,
        };
        let senders = checkout(helpers);
        for (i, tx) in senders.iter().enumerate() {
            let job = Job {
                task,
                index: i + 1,
                latch: latch.clone(),
            };
            latch.running.fetch_add(1, Ordering::AcqRel);
            if tx.send(job).is_err() {
                // The helper is gone (never happens: helpers do not exit).
                latch.running.fetch_sub(1, Ordering::AcqRel);
            }
        }
        let result = main();
        drop(wait);
        IDLE.lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(senders);
        assert!(
            !latch.panicked.load(Ordering::Acquire),
            "a search helper thread panicked"
        );
        result
    }

    struct Wait<'a> {
        latch: &'a Latch,
        done: &'a AtomicBool,
    }

    impl Drop for Wait<'_> {
        fn drop(&mut self) {
            self.done.store(true, Ordering::Relaxed);
            let start = Instant::now();
            while self.latch.running.load(Ordering::Acquire) > 0 {
                if start.elapsed() < Duration::from_micros(200) {
                    // Yielding, not spinning: a helper waiting for a core
                    // (busy machine) may get this one.
                    thread::yield_now();
                } else {
                    thread::park_timeout(Duration::from_millis(1));
                }
            }
        }
    }

    /// `n` idle helpers, started if there are not enough.
    fn checkout(n: usize) -> Vec<Sender<Job>> {
        let mut idle = IDLE.lock().unwrap_or_else(|e| e.into_inner());
        let keep = idle.len().saturating_sub(n);
        let mut out = idle.split_off(keep);
        drop(idle);
        while out.len() < n {
            out.push(start_helper());
        }
        out
    }

    fn start_helper() -> Sender<Job> {
        let (tx, rx) = channel();
        thread::Builder::new()
            .name("search-helper".into())
            .spawn(move || serve(rx))
            .expect("cannot start a search thread");
        tx
    }

    fn serve(rx: Receiver<Job>) {
        while let Some(job) = next_job(&rx) {
            // SAFETY: `run` waits for the latch before the task goes away.
            let task = unsafe { &*job.task };
            let ok = catch_unwind(AssertUnwindSafe(|| task(job.index))).is_ok();
            if !ok {
                job.latch.panicked.store(true, Ordering::Release);
            }
            let owner = job.latch.owner.clone();
            if job.latch.running.fetch_sub(1, Ordering::AcqRel) == 1 {
                owner.unpark();
            }
        }
    }

    /// The next job, polling for `SPIN` before blocking; `None` once the
    /// sender is gone.
    fn next_job(rx: &Receiver<Job>) -> Option<Job> {
        let start = Instant::now();
        loop {
            match rx.try_recv() {
                Ok(job) => return Some(job),
                Err(TryRecvError::Disconnected) => return None,
                Err(TryRecvError::Empty) if start.elapsed() < SPIN => thread::yield_now(),
                Err(TryRecvError::Empty) => return rx.recv().ok(),
            }
        }
    }
}
