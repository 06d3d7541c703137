//! The root driver: MTD(f)-style tests `V ≥ t` from a first guess, by
//! proof numbers and then by deepening, until the value is exact, the
//! question answered or the budget spent; the best move and line.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Mutex;

use super::deepening::ply_cost;
use super::dfpn::ProofNumbers;
use super::pn_table::PN_INF;
use super::worker::{Ctx, Kid, Worker};
use super::{Iv, Proof, ProveLimits, ProveProgress, INF, MAX_DEPTH, NONE_REP, UNIT};
use crate::prove::bounds::{BoundTable, Proved};
use crate::search::exact_values::{ExactValues, NoTables};
use crate::search::negamax::Limits;
use crate::search::threads::search_with;
use crate::search::tt::TranspositionTable;
use crate::search::Searchable;

/// Proves the value of `root` on `threads` threads, with `table` for the
/// proved bounds (fresh, or kept from an earlier proof: its bounds stay
/// true). `stop` may be set from anywhere (Ctrl-C): the proof then returns
/// the bounds proved so far. `progress` is called after every root test.
pub fn prove<G: Searchable>(
    root: &G,
    limits: &ProveLimits,
    threads: usize,
    table: &BoundTable,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&ProveProgress),
) -> Proof<G::Move> {
    prove_with_tables(root, limits, threads, table, &NoTables, stop, progress)
}

/// [`prove`], taking the exact values of `exact` wherever it has them
/// (endgame tables) instead of searching there.
pub fn prove_with_tables<G: Searchable>(
    root: &G,
    limits: &ProveLimits,
    threads: usize,
    table: &BoundTable,
    exact: &dyn ExactValues<G>,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&ProveProgress),
) -> Proof<G::Move> {
    let ctx = Ctx::new(table, exact, threads, *limits, stop);
    let moves = root.search_moves();
    if moves.is_empty() {
        let v = root.terminal_value();
        return Proof {
            lower: v,
            upper: v,
            best: None,
            pv: Vec::new(),
            depth: 0,
            nodes: 1,
            seconds: ctx.start.elapsed().as_secs_f64(),
            interrupted: false,
        };
    }
    let mut workers: Vec<Worker<G>> = (0..threads.max(1)).map(|_| Worker::new(&ctx)).collect();
    let root_key = root.zobrist();
    let (lo, hi) = known_interval(root, root_key, table, exact);
    let mut window = Window {
        lo,
        hi,
        guess: match limits.question {
            Some(q) => q,
            None => first_guess(root, exact),
        },
        question: limits.question,
    };
    // After every root test, by proof numbers or by deepening.
    let mut report = |lower, upper, depth| {
        progress(&ProveProgress {
            lower,
            upper,
            depth,
            nodes: ctx.nodes.load(Relaxed),
            seconds: ctx.start.elapsed().as_secs_f64(),
        })
    };
    proof_number_tests(root, root_key, &mut workers, &mut window, &mut report);
    let (depth, root_kids) = deepening_tests(
        root,
        root_key,
        &moves,
        &mut workers,
        &mut window,
        &mut report,
    );
    // Open: neither exact nor the question answered, so the budget ran out.
    let interrupted = window.is_open();
    let Window { lo, hi, .. } = window;
    table.store(
        root_key,
        Proved {
            lo,
            hi,
            best: None,
            open: None,
        },
        u8::MAX,
    );
    let (best, pv) = best_line(root, lo, hi, &moves, &root_kids, &workers);
    Proof {
        lower: lo,
        upper: hi,
        best,
        pv,
        depth,
        nodes: ctx.nodes.load(Relaxed),
        seconds: ctx.start.elapsed().as_secs_f64(),
        interrupted,
    }
}

/// The root's proved interval `[lo, hi]`, and the value the next test
/// starts from (MTD(f)'s guess).
struct Window {
    lo: i32,
    hi: i32,
    guess: i32,
    /// [`ProveLimits::question`].
    question: Option<i32>,
}

impl Window {
    /// Whether a test remains: the value is not exact, nor the question
    /// answered.
    fn is_open(&self) -> bool {
        let answered = self.question.is_some_and(|q| self.hi <= q || self.lo > q);
        self.lo < self.hi && !answered
    }

    /// Takes the result of a root test `V ≥ t`: the interval narrows, and
    /// the guess moves to the bound the test proved. `false` when the test
    /// was left open (neither answer proved).
    fn take(&mut self, r: Iv, t: i32) -> bool {
        self.lo = self.lo.max(r.lo);
        self.hi = self.hi.min(r.hi);
        if r.lo >= t {
            self.guess = self.lo;
        } else if r.hi < t {
            self.guess = self.hi;
        } else {
            return false;
        }
        true
    }
}

/// What is known of the root before any test: at most the board either
/// way, or its endgame-table value, narrowed by the bound table's proofs.
fn known_interval<G: Searchable>(
    root: &G,
    root_key: u64,
    table: &BoundTable,
    exact: &dyn ExactValues<G>,
) -> (i32, i32) {
    let b = root.board_total() as i32;
    let (mut lo, mut hi) = (-b, b);
    if let Some(v) = exact.exact_value(root) {
        (lo, hi) = (v, v);
    }
    if let Some(p) = table.probe(root_key) {
        lo = lo.max(p.lo);
        hi = hi.min(p.hi);
    }
    (lo, hi)
}

/// The first guess: a short engine search through the same tables
/// (deterministic: one thread, fixed depth and node caps).
fn first_guess<G: Searchable>(root: &G, exact: &dyn ExactValues<G>) -> i32 {
    let short = Limits {
        depth: Some(8),
        seconds: None,
        nodes: Some(200_000),
    };
    let tt = TranspositionTable::new(16);
    let no_stop = AtomicBool::new(false);
    search_with(root, &short, 1, &tt, exact, &no_stop, &mut |_| {}).value
}

/// Root tests by proof numbers ([`pn_root_test`]) until the value is exact,
/// the budget is spent, or a test is left open (lines past df-pn's ply
/// cap), where deepening takes over.
fn proof_number_tests<G: Searchable>(
    root: &G,
    root_key: u64,
    workers: &mut [Worker<G>],
    window: &mut Window,
    report: &mut dyn FnMut(i32, i32, u32),
) {
    let ctx = workers[0].ctx;
    while window.is_open() && !ctx.out_of_budget.load(Relaxed) {
        window.guess = window.guess.clamp(window.lo, window.hi);
        let t = window.guess + i32::from(window.guess < window.hi);
        let r = pn_root_test(root, root_key, workers, t);
        let answered = window.take(r, t);
        report(window.lo, window.hi, 0);
        if !answered {
            break;
        }
    }
}

/// Root tests by iterative deepening ([`root_test`]) until the value is
/// exact, the budget is spent or [`MAX_DEPTH`]. At each depth
/// the tests run at the guess and above it until both are answered or
/// left open. Returns the last depth started, and the root moves' proved
/// bounds.
fn deepening_tests<G: Searchable>(
    root: &G,
    root_key: u64,
    moves: &[(G::Move, G)],
    workers: &mut [Worker<G>],
    window: &mut Window,
    report: &mut dyn FnMut(i32, i32, u32),
) -> (u32, Vec<Kid<G>>) {
    let ctx = workers[0].ctx;
    let mut root_kids = Vec::new();
    let mut depth = 0;
    while window.is_open() && depth < MAX_DEPTH && !ctx.out_of_budget.load(Relaxed) {
        depth += 1;
        let mut inconclusive: Vec<i32> = Vec::new();
        while window.is_open() && !ctx.out_of_budget.load(Relaxed) {
            window.guess = window.guess.clamp(window.lo, window.hi);
            // The thresholds still open at this depth: above the guess
            // (`V ≥ guess + 1`) and at it (`V ≥ guess`).
            let (lo, hi) = (window.lo, window.hi);
            let t = [window.guess + 1, window.guess]
                .into_iter()
                .find(|&t| t > lo && t <= hi && !inconclusive.contains(&t));
            let Some(t) = t else { break };
            let r = root_test(root, root_key, moves, &mut root_kids, workers, depth, t);
            if !window.take(r, t) {
                inconclusive.push(t);
            }
            report(window.lo, window.hi, depth);
        }
    }
    (depth, root_kids)
}

/// The proof's best move and line. Exact: the line of best moves through
/// the table, or, when the proof rests on a return to the root (not in the
/// table), a move some root test proved to keep the value. Not exact: the
/// move with the best proved lower bound.
fn best_line<G: Searchable>(
    root: &G,
    lo: i32,
    hi: i32,
    moves: &[(G::Move, G)],
    root_kids: &[Kid<G>],
    workers: &[Worker<G>],
) -> (Option<G::Move>, Vec<G::Move>) {
    let ctx = workers[0].ctx;
    if lo != hi {
        let best = root_kids
            .iter()
            .max_by_key(|k| k.lo)
            .map(|k| k.mv)
            .or(moves.first().map(|m| m.0));
        return (best, best.into_iter().collect());
    }
    let pv = principal_variation(root, lo, ctx.table, ctx.exact);
    if let Some(&m) = pv.first() {
        return (Some(m), pv);
    }
    let keeps = |i: usize| workers.iter().any(|w| w.root_lo.get(i) >= Some(&lo));
    let best = (0..moves.len()).find(|&i| keeps(i)).map(|i| moves[i].0);
    (best, best.into_iter().collect())
}

/// One root test `V ≥ t` by proof-number search, every worker from the
/// root over the shared tables (a thread prefers the moves no other thread
/// is inside, `dfpn.rs`); the first to answer cancels the rest. Returns
/// the intersection of the intervals they proved.
fn pn_root_test<G: Searchable>(root: &G, root_key: u64, workers: &mut [Worker<G>], t: i32) -> Iv {
    let ctx = workers[0].ctx;
    ctx.cancel.store(false, Relaxed);
    let results: Mutex<Vec<Iv>> = Mutex::new(Vec::new());
    let answered = |iv: &Iv| iv.lo >= t || iv.hi < t;
    let job = |w: &mut Worker<G>| {
        w.aborted = false;
        w.path.clear();
        let iv = ProofNumbers::new(w)
            .mid(root, root_key, 0, t, PN_INF, PN_INF)
            .iv;
        if answered(&iv) {
            w.ctx.cancel.store(true, Relaxed);
        }
        w.flush_nodes();
        results.lock().unwrap_or_else(|e| e.into_inner()).push(iv);
    };
    match workers {
        [w] => job(w),
        _ => std::thread::scope(|s| {
            for w in workers.iter_mut() {
                s.spawn(move || job(w));
            }
        }),
    }
    let mut out = Iv {
        lo: -INF,
        hi: INF,
        rep: NONE_REP,
    };
    for iv in results.into_inner().unwrap_or_else(|e| e.into_inner()) {
        out.lo = out.lo.max(iv.lo);
        out.hi = out.hi.min(iv.hi);
    }
    out
}

/// One root test `V ≥ t`, the root's moves shared between the workers.
/// `kids` keeps the root moves' proved bounds from test to test.
fn root_test<G: Searchable>(
    root: &G,
    root_key: u64,
    moves: &[(G::Move, G)],
    kids: &mut Vec<Kid<G>>,
    workers: &mut [Worker<G>],
    depth: u32,
    t: i32,
) -> Iv {
    let ctx = workers[0].ctx;
    ctx.cancel.store(false, Relaxed);
    for w in workers.iter_mut() {
        w.aborted = false;
        w.path.clear();
        w.path.push(root_key, root.clone());
    }
    // Fresh bounds for the root's moves: tests elsewhere may have proved
    // more since (the root is on the line, so a move back to it is worth 0).
    let mut rep = NONE_REP;
    let fresh = workers[0].kids(root, moves.to_vec(), &mut rep);
    if kids.is_empty() {
        *kids = fresh;
    } else {
        for (k, f) in kids.iter_mut().zip(fresh) {
            k.lo = k.lo.max(f.lo);
            k.hi = k.hi.min(f.hi);
        }
    }
    let tt_best = workers[0].known(root, root_key).best;
    let mut order = Vec::new();
    if !kids.iter().any(|k| k.lo >= t) {
        workers[0].order_into(kids, t, tt_best, 0, depth * UNIT, &mut order);
    }
    // Every worker runs the whole root test (ABDADA: the root's moves as
    // any node's, the first one searched by all, the others deferred while
    // another thread is inside); the first to finish cancels the rest. Each
    // keeps its own proved bounds of the moves; all are sound, and they are
    // intersected below.
    let results: Mutex<Vec<Vec<(i32, i32)>>> = Mutex::new(Vec::new());
    let kids_ref: &Vec<Kid<G>> = kids;
    let root_cost = ply_cost(moves.len(), 0);
    std::thread::scope(|s| {
        for w in workers.iter_mut() {
            let (results, order) = (&results, &order);
            s.spawn(move || {
                let budget = depth * UNIT - root_cost.min(depth * UNIT);
                let bounds = w.test_root_moves(kids_ref, order.clone(), budget, depth * UNIT, t);
                // Finished (not cut short): this worker answered the test.
                if !w.aborted {
                    w.ctx.cancel.store(true, Relaxed);
                }
                results
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(bounds);
            });
        }
    });
    for w in workers.iter_mut() {
        w.flush_nodes();
    }
    for bounds in results.into_inner().unwrap_or_else(|e| e.into_inner()) {
        for (k, (lo, hi)) in kids.iter_mut().zip(bounds) {
            k.lo = k.lo.max(lo);
            k.hi = k.hi.min(hi);
        }
    }
    let lo = kids.iter().map(|k| k.lo).max().unwrap_or(-INF);
    let hi = kids.iter().map(|k| k.hi).max().unwrap_or(-INF);
    let best = kids
        .iter()
        .enumerate()
        .max_by_key(|&(i, k)| (k.lo, std::cmp::Reverse(i)))
        .map(|(i, _)| i as u16);
    ctx.table.store(
        root_key,
        Proved {
            lo,
            hi,
            best,
            open: None,
        },
        u8::MAX,
    );
    Iv { lo, hi, rep }
}

/// A line of best moves from a root of exact value `value`: at each step a
/// move whose child is proved (in `table`) to leave at least the value, as
/// long as such proofs are stored, no position repeats and the game goes on.
fn principal_variation<G: Searchable>(
    root: &G,
    value: i32,
    table: &BoundTable,
    exact: &dyn ExactValues<G>,
) -> Vec<G::Move> {
    let mut pv = Vec::new();
    let mut pos = root.clone();
    let mut v = value;
    let mut seen = vec![pos.repetition_key()];
    while pv.len() < MAX_DEPTH as usize {
        let next = pos.search_moves().into_iter().find(|(_, child)| {
            let gain = G::capture_gain(&pos, child);
            let chi = if child.search_moves().is_empty() {
                child.terminal_value()
            } else if let Some(v) = exact.exact_value(child) {
                v
            } else {
                table
                    .probe(child.zobrist())
                    .map_or(child.board_total() as i32, |p| p.hi)
                    .min(child.board_total() as i32)
            };
            gain - chi >= v
        });
        let Some((mv, child)) = next else { break };
        v = G::capture_gain(&pos, &child) - v;
        pv.push(mv);
        if seen.contains(&child.repetition_key()) {
            break;
        }
        seen.push(child.repetition_key());
        pos = child;
    }
    pv
}
