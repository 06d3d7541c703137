//! One search thread: iterative deepening over a principal variation search
//! with aspiration windows, transposition table, killer and history move
//! ordering, repetition detection on the current line, and tracking of
//! whether the value is proven (no horizon evaluation took part).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;

use super::exact_values::{keeping_move, ExactValues};
use super::tt::{Bound, TranspositionTable, TtEntry, SOLVED_DEPTH};
use super::{Searchable, HISTORY_SLOTS, INFINITY};

/// Deepest line the search follows; deeper nodes are evaluated.
pub const MAX_PLY: usize = 1024;

/// When to stop. `None` everywhere: search until the value is proven (or
/// `MAX_PLY` plies deep, or the stop flag).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Limits {
    /// Deepest iteration, in plies.
    pub depth: Option<u32>,
    /// Wall-clock budget in seconds.
    pub seconds: Option<f64>,
    /// Node budget (all threads together).
    pub nodes: Option<u64>,
}

impl Limits {
    /// The shortest time budget taken (seconds): a search that short does
    /// not finish one iteration, and `1e-300` is a typing slip, not a
    /// budget (it was taken, and printed back as 300 digits).
    pub const MIN_SECONDS: f64 = 0.001;

    /// Whether `s` is a time budget this tool takes: finite and at least
    /// [`Self::MIN_SECONDS`]. The one check of every `--time`, agent
    /// `time=` and server `time` field.
    pub fn takes_seconds(s: f64) -> bool {
        s.is_finite() && s >= Self::MIN_SECONDS
    }

    pub fn depth(d: u32) -> Self {
        Limits {
            depth: Some(d),
            ..Limits::default()
        }
    }

    pub fn seconds(s: f64) -> Self {
        Limits {
            seconds: Some(s),
            ..Limits::default()
        }
    }

    pub fn nodes(n: u64) -> Self {
        Limits {
            nodes: Some(n),
            ..Limits::default()
        }
    }
}

/// The outcome of a completed iteration (also passed to progress callbacks).
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult<M> {
    /// RULES §0 value for the player to move at the root.
    pub value: i32,
    /// Best move (`None` when the game is over at the root).
    pub best: Option<M>,
    /// Principal variation, starting with `best`.
    pub pv: Vec<M>,
    /// Depth of the iteration, in plies.
    pub depth: u32,
    /// Nodes searched so far (all threads).
    pub nodes: u64,
    /// Nodes per second.
    pub nps: f64,
    /// True when the value is proven: every line inside the horizon ended
    /// (end of game or repetition) and no cutoff relied on an evaluation.
    pub exact: bool,
    /// Wall-clock time since the search started.
    pub seconds: f64,
}

impl<M: std::fmt::Display> SearchResult<M> {
    /// The principal variation in RULES §3 move notation, space-separated.
    pub fn pv_string(&self) -> String {
        self.pv
            .iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// State shared by all threads of one search.
pub(crate) struct Shared<'a, M> {
    pub tt: &'a TranspositionTable,
    /// Set by the caller (Ctrl-C).
    pub stop: &'a AtomicBool,
    /// Set when the search is over for every thread: the last iteration was
    /// completed by some thread, or some thread hit a limit.
    pub finished: AtomicBool,
    pub nodes: Padded<AtomicU64>,
    pub start: Instant,
    pub limits: Limits,
    /// Children being searched right now, when several threads search.
    pub busy: Option<BusyTable>,
    /// The deepest iteration completed by any thread (the first one to
    /// complete a depth keeps it).
    pub best: Mutex<Option<SearchResult<M>>>,
}

impl<'a, M: Clone> Shared<'a, M> {
    pub fn new(
        tt: &'a TranspositionTable,
        stop: &'a AtomicBool,
        limits: Limits,
        threads: usize,
    ) -> Self {
        Shared {
            tt,
            stop,
            finished: AtomicBool::new(false),
            nodes: Padded(AtomicU64::new(0)),
            start: Instant::now(),
            limits,
            busy: (threads > 1).then(BusyTable::new),
            best: Mutex::new(None),
        }
    }

    /// Keeps `result` if it is deeper than every iteration completed so far.
    fn publish(&self, result: &SearchResult<M>) {
        let mut best = self.best.lock().unwrap_or_else(|e| e.into_inner());
        if best.as_ref().is_none_or(|b| b.depth < result.depth) {
            *best = Some(result.clone());
        }
    }

    /// The deepest iteration completed so far by any thread.
    pub fn best(&self) -> Option<SearchResult<M>> {
        self.best.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// A value alone on its cache lines: threads updating it do not slow down
/// the reads of its neighbours.
#[repr(align(128))]
pub(crate) struct Padded<T>(pub T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// Simplified ABDADA (Kerrigan): the hashes of the positions some thread is
/// searching right now. A thread that meets a busy child among the later
/// moves of a node defers it and searches its other moves first; when it
/// comes back to it, the other thread's result is usually in the table. So
/// two threads searching the same iteration split its tree instead of both
/// searching all of it in the same order.
pub(crate) struct BusyTable {
    slots: Box<[AtomicU64]>,
}

const BUSY_SLOTS: usize = 1 << 12;

/// Nodes with at least this draft defer busy children (below it the
/// children are too cheap to be worth sharing).
const DEFER_DEPTH: usize = 3;

impl BusyTable {
    fn new() -> Self {
        BusyTable {
            slots: (0..BUSY_SLOTS).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    fn slot(&self, key: u64) -> &AtomicU64 {
        &self.slots[key as usize & (BUSY_SLOTS - 1)]
    }

    /// A slot holds the key with its low byte replaced by the searching
    /// thread's number plus one.
    fn tag(key: u64, thread: u8) -> u64 {
        key & !0xFF | (thread as u64 + 1)
    }

    /// True when another thread than `thread` is searching `key`.
    fn busy_elsewhere(&self, key: u64, thread: u8) -> bool {
        let seen = self.slot(key).load(Relaxed);
        seen & !0xFF == key & !0xFF && seen != Self::tag(key, thread) && seen != 0
    }

    fn enter(&self, key: u64, thread: u8) {
        self.slot(key).store(Self::tag(key, thread), Relaxed);
    }

    fn leave(&self, key: u64, thread: u8) {
        // Another search may have taken the slot meanwhile: leave it be.
        let tag = Self::tag(key, thread);
        let _ = self.slot(key).compare_exchange(tag, 0, Relaxed, Relaxed);
    }
}

/// A value and what it rests on.
#[derive(Clone, Copy, Debug)]
struct Outcome {
    value: i32,
    /// Proven: no horizon evaluation (or unproven table entry) contributed.
    solved: bool,
    /// Lowest ply of an ancestor whose repetition scored a leaf (`usize::MAX`
    /// if none): the value depends on the line above that ply.
    rep: usize,
}

const NONE_REP: usize = usize::MAX;
/// Nodes between two stop checks: a thread stops at most this many nodes
/// after another one completed the last iteration (or Ctrl-C).
const CHECK: u64 = 64;
/// Nodes between two updates of the shared node count (a multiple of
/// `CHECK`; the count is a cache line all threads write to).
const FLUSH: u64 = 1024;

/// One search thread's private state.
pub(crate) struct Worker<'a, 's, G: Searchable> {
    shared: &'a Shared<'s, G::Move>,
    /// Exact values taken instead of searching (endgame tables).
    exact: &'a dyn ExactValues<G>,
    /// Thread number; 0 is the main thread, which reports progress.
    thread: u8,
    main: bool,
    /// Positions on the current line above the node: (hash, position).
    path: Vec<(u64, G)>,
    killers: Vec<[Option<G::Move>; 2]>,
    history: Vec<i32>,
    pv: Vec<Vec<G::Move>>,
    local_nodes: u64,
    aborted: bool,
}

impl<'a, 's, G: Searchable> Worker<'a, 's, G> {
    pub fn new(shared: &'a Shared<'s, G::Move>, exact: &'a dyn ExactValues<G>, thread: u8) -> Self {
        Worker {
            shared,
            exact,
            thread,
            main: thread == 0,
            path: Vec::with_capacity(MAX_PLY + 1),
            killers: vec![[None, None]; MAX_PLY + 1],
            history: vec![0; 2 * HISTORY_SLOTS],
            pv: vec![Vec::new(); MAX_PLY + 1],
            local_nodes: 0,
            aborted: false,
        }
    }

    /// Every thread checks the limits, not only the main one: on a busy
    /// machine the main thread may wait for a core while its helpers go on,
    /// and a helper that completes an iteration past the node limit would
    /// publish it. The first thread to see a limit ends the search for all.
    fn should_stop(&self) -> bool {
        let s = self.shared;
        if s.stop.load(Relaxed) || s.finished.load(Relaxed) {
            return true;
        }
        let over_nodes = s
            .limits
            .nodes
            .is_some_and(|n| s.nodes.load(Relaxed) + self.local_nodes >= n);
        let over_time = s
            .limits
            .seconds
            .is_some_and(|t| s.start.elapsed().as_secs_f64() >= t);
        if over_nodes || over_time {
            s.finished.store(true, Relaxed);
            return true;
        }
        false
    }

    fn flush_nodes(&mut self) {
        self.shared.nodes.0.fetch_add(self.local_nodes, Relaxed);
        self.local_nodes = 0;
    }

    /// Iterative deepening from `root` until some thread completes the last
    /// iteration (depth limit or proven value), some thread hits a limit
    /// or the stop flag is set. Every completed iteration is published in
    /// `Shared::best`; a thread goes on with the depth after the deepest one
    /// completed by any thread. The main thread passes `on_iter` each
    /// iteration deeper than the ones passed before, whoever completed it.
    pub fn iterate(&mut self, root: &G, on_iter: &mut dyn FnMut(&SearchResult<G::Move>)) {
        let max_depth = self
            .shared
            .limits
            .depth
            .unwrap_or(MAX_PLY as u32)
            .clamp(1, MAX_PLY as u32);
        let root_key = root.zobrist();
        let mut reported = 0;
        // A helper starting late joins the iteration in progress.
        let mut depth = self.shared.best().map_or(1, |r| r.depth + 1).min(max_depth);
        loop {
            if self.should_stop() {
                break;
            }
            let mut delta = 2;
            let (mut alpha, mut beta) = match self.shared.best() {
                Some(r) if depth >= 4 => (r.value - delta, r.value + delta),
                _ => (-INFINITY, INFINITY),
            };
            let outcome = loop {
                let o = self.negamax(root, root_key, depth as usize, 0, alpha, beta);
                if self.aborted {
                    break None;
                }
                if o.value <= alpha && alpha > -INFINITY {
                    alpha = (o.value - delta).max(-INFINITY);
                } else if o.value >= beta && beta < INFINITY {
                    beta = (o.value + delta).min(INFINITY);
                } else {
                    break Some(o);
                }
                delta *= 2;
            };
            self.flush_nodes();
            let Some(o) = outcome else { break };
            let seconds = self.shared.start.elapsed().as_secs_f64();
            let nodes = self.shared.nodes.load(Relaxed);
            let pv = self.extend_pv(root, self.pv[0].clone(), depth as usize);
            let result = SearchResult {
                value: o.value,
                best: pv.first().copied(),
                pv,
                depth,
                nodes,
                nps: nodes as f64 / seconds.max(1e-9),
                exact: o.solved,
                seconds,
            };
            self.shared.publish(&result);
            if result.exact || depth >= max_depth {
                self.shared.finished.store(true, Relaxed);
                break;
            }
            if self.main {
                reported = self.report(reported, on_iter);
                if let Some(t) = self.shared.limits.seconds {
                    // The next iteration would likely not finish in time.
                    if seconds > 0.5 * t {
                        break;
                    }
                }
            }
            let deepest = self.shared.best().map_or(0, |r| r.depth);
            depth = (depth + 1).max(deepest + 1).min(max_depth);
        }
        if self.main {
            self.report(reported, on_iter);
        }
    }

    /// Passes `on_iter` the deepest completed iteration if it is deeper than
    /// `reported`; returns the depth reported so far.
    fn report(&self, reported: u32, on_iter: &mut dyn FnMut(&SearchResult<G::Move>)) -> u32 {
        match self.shared.best() {
            Some(r) if r.depth > reported => {
                on_iter(&r);
                r.depth
            }
            _ => reported,
        }
    }

    /// Completes a principal variation cut short by table cutoffs by
    /// following the transposition table's best moves (up to `len` moves),
    /// then the endgame tables' (to the end of the game), without
    /// repeating a position.
    fn extend_pv(&self, root: &G, mut pv: Vec<G::Move>, len: usize) -> Vec<G::Move> {
        let mut pos = root.clone();
        let mut seen = vec![pos.repetition_key()];
        for mv in &pv {
            pos = pos.play_unchecked(mv);
            seen.push(pos.repetition_key());
        }
        while pv.len() < MAX_PLY {
            let mut moves = pos.search_moves();
            let from_tt = (pv.len() < len)
                .then(|| self.shared.tt.probe(pos.zobrist()).and_then(|e| e.best))
                .flatten();
            let idx = match from_tt {
                Some(idx) => Some(idx as usize),
                None => keeping_move(&pos, &moves, self.exact),
            };
            let Some(idx) = idx.filter(|&i| i < moves.len()) else {
                break;
            };
            let (mv, child) = moves.swap_remove(idx);
            if seen.contains(&child.repetition_key()) {
                break;
            }
            seen.push(child.repetition_key());
            pv.push(mv);
            pos = child;
        }
        pv
    }

    /// Principal variation search of one child: full window for the first
    /// move, else a null window and a re-search if the move may be better.
    #[allow(clippy::too_many_arguments)]
    fn search_child(
        &mut self,
        child: &G,
        child_key: u64,
        depth: usize,
        ply: usize,
        gain: i32,
        alpha: i32,
        beta: i32,
        first: bool,
    ) -> Outcome {
        if first {
            return self.negamax(
                child,
                child_key,
                depth - 1,
                ply + 1,
                gain - beta,
                gain - alpha,
            );
        }
        let o = self.negamax(
            child,
            child_key,
            depth - 1,
            ply + 1,
            gain - alpha - 1,
            gain - alpha,
        );
        let v = gain - o.value;
        if !self.aborted && v > alpha && v < beta {
            return self.negamax(
                child,
                child_key,
                depth - 1,
                ply + 1,
                gain - beta,
                gain - alpha,
            );
        }
        o
    }

    fn negamax(
        &mut self,
        pos: &G,
        key: u64,
        depth: usize,
        ply: usize,
        mut alpha: i32,
        beta: i32,
    ) -> Outcome {
        self.pv[ply].clear();
        self.count_node();
        if let Some(o) = self.settled_without_moves(pos, key, depth, ply) {
            return o;
        }
        let (cut, tt_move) = self.table_cut(key, depth, ply, alpha, beta);
        if let Some(o) = cut {
            return o;
        }

        let alpha_orig = alpha;
        let moves = pos.search_moves();
        // Children that will probe the table (those with depth left) have
        // their buckets fetched first, so that the misses overlap.
        let keys: Vec<u64> = if depth > 1 {
            moves
                .iter()
                .map(|(_, child)| {
                    let key = child.zobrist();
                    self.shared.tt.prefetch(key);
                    key
                })
                .collect()
        } else {
            Vec::new()
        };
        let order = self.order_moves(pos, &moves, tt_move, ply);
        let mut best = -INFINITY;
        let mut best_idx = None;
        let mut solved = true;
        let mut rep = NONE_REP;
        self.path.push((key, pos.clone()));
        // With several threads, busy children met in the first pass over the
        // moves are searched after the others (never the first move: every
        // thread searches it, the young brothers wait for it).
        let busy = self.shared.busy.as_ref().filter(|_| depth >= DEFER_DEPTH);
        let mut deferred: Vec<(usize, i32)> = Vec::new();
        let mut n = 0;
        while n < order.len() + deferred.len() {
            let first_pass = n < order.len();
            let (i, gain) = if first_pass {
                (order[n].0, order[n].1)
            } else {
                deferred[n - order.len()]
            };
            n += 1;
            let child = &moves[i].1;
            let child_key = keys.get(i).copied().unwrap_or_else(|| child.zobrist());
            if let Some(busy) = busy {
                if first_pass && n > 1 && busy.busy_elsewhere(child_key, self.thread) {
                    deferred.push((i, gain));
                    continue;
                }
                busy.enter(child_key, self.thread);
            }
            let o = self.search_child(child, child_key, depth, ply, gain, alpha, beta, n == 1);
            if let Some(busy) = busy {
                busy.leave(child_key, self.thread);
            }
            if self.aborted {
                self.path.pop();
                return o;
            }
            let v = gain - o.value;
            solved &= o.solved;
            rep = rep.min(o.rep);
            if v > best {
                best = v;
                best_idx = Some(i);
                if v > alpha {
                    alpha = v;
                    self.extend_line(ply, moves[i].0);
                    if v >= beta {
                        if gain == 0 {
                            self.reward_quiet_cutoff(pos, moves[i].0, depth, ply);
                        }
                        break;
                    }
                }
            }
        }
        self.path.pop();
        if ply == 0 && self.pv[0].is_empty() {
            // Fail-low at the root: still report the best move found.
            if let Some(i) = best_idx {
                self.pv[0].push(moves[i].0);
            }
        }

        // A value resting on a repetition of an ancestor depends on the line
        // above this node: it cannot be shared with other lines.
        if rep >= ply {
            let bound = if best <= alpha_orig {
                Bound::Upper
            } else if best >= beta {
                Bound::Lower
            } else {
                Bound::Exact
            };
            self.store(key, depth, best, bound, solved, best_idx);
        }
        Outcome {
            value: best,
            solved,
            rep: if rep >= ply { NONE_REP } else { rep },
        }
    }

    // The helpers below run at every node and are inlined into `negamax`
    // (`inline(always)`): as plain calls, a one-thread depth-14 search took
    // 2-4% longer than the single function they were cut from.

    /// Counts a node and, every [`CHECK`] nodes, passes the count on and
    /// checks the limits.
    #[inline(always)]
    fn count_node(&mut self) {
        self.local_nodes += 1;
        if self.local_nodes.is_multiple_of(CHECK) {
            if self.local_nodes >= FLUSH {
                self.flush_nodes();
            }
            if self.should_stop() {
                self.aborted = true;
            }
        }
    }

    /// The node's outcome when it needs no move searched: the search was
    /// stopped, the position repeats one on the line, the game is over, the
    /// endgame tables know it, or the horizon is reached.
    #[inline(always)]
    fn settled_without_moves(
        &self,
        pos: &G,
        key: u64,
        depth: usize,
        ply: usize,
    ) -> Option<Outcome> {
        let outcome = |value, solved, rep| Some(Outcome { value, solved, rep });
        if self.aborted {
            return outcome(0, false, NONE_REP);
        }
        // RULES §0: a position already on the line scores 0 for the board.
        if ply > 0 {
            if let Some(i) = self
                .path
                .iter()
                .rposition(|(k, p)| *k == key && p.repetition_key() == pos.repetition_key())
            {
                return outcome(0, true, i);
            }
        }
        if pos.is_over() {
            return outcome(pos.terminal_value(), true, NONE_REP);
        }
        // Below the root, a position the tables cover is not searched: its
        // value is exact whatever the depth left.
        if ply > 0 {
            if let Some(value) = self.exact.exact_value(pos) {
                return outcome(value, true, NONE_REP);
            }
        }
        if depth == 0 || ply >= MAX_PLY {
            return outcome(pos.evaluate(), false, NONE_REP);
        }
        None
    }

    /// The transposition table's answer for the node: its outcome when the
    /// stored bound settles the window (never at the root), and the best
    /// move stored.
    #[inline(always)]
    fn table_cut(
        &self,
        key: u64,
        depth: usize,
        ply: usize,
        alpha: i32,
        beta: i32,
    ) -> (Option<Outcome>, Option<u16>) {
        let Some(e) = self.shared.tt.probe(key) else {
            return (None, None);
        };
        let deep_enough = e.solved || e.depth as usize >= depth;
        let cut = ply > 0
            && deep_enough
            && match e.bound {
                Bound::Exact => true,
                Bound::Lower => e.value >= beta,
                Bound::Upper => e.value <= alpha,
            };
        let outcome = cut.then_some(Outcome {
            value: e.value,
            solved: e.solved,
            rep: NONE_REP,
        });
        (outcome, e.best)
    }

    /// The moves' search order, each with its capture gain: the table's
    /// move, captures (largest first), the two killers, then by history.
    #[inline(always)]
    fn order_moves(
        &self,
        pos: &G,
        moves: &[(G::Move, G)],
        tt_move: Option<u16>,
        ply: usize,
    ) -> Vec<(usize, i32, i64)> {
        let side = pos.side_to_move().index();
        let killers = self.killers[ply];
        let mut order: Vec<(usize, i32, i64)> = moves
            .iter()
            .enumerate()
            .map(|(i, (mv, child))| {
                let gain = G::capture_gain(pos, child);
                let score = if tt_move == Some(i as u16) {
                    i64::MAX
                } else if gain > 0 {
                    1 << 40 | (gain as i64) << 20
                } else if killers[0] == Some(*mv) {
                    1 << 32
                } else if killers[1] == Some(*mv) {
                    (1 << 32) - 1
                } else {
                    self.history[side * HISTORY_SLOTS + G::history_slot(mv)] as i64
                };
                (i, gain, score)
            })
            .collect();
        order.sort_by_key(|o| std::cmp::Reverse(o.2));
        order
    }

    /// The line at `ply` becomes `mv` followed by the child's line.
    #[inline(always)]
    fn extend_line(&mut self, ply: usize, mv: G::Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply].clear();
        head[ply].push(mv);
        head[ply].extend_from_slice(&tail[0]);
    }

    /// A move that captures nothing cut the node off: it becomes the ply's
    /// first killer and gains history by the square of the depth.
    #[inline(always)]
    fn reward_quiet_cutoff(&mut self, pos: &G, mv: G::Move, depth: usize, ply: usize) {
        if self.killers[ply][0] != Some(mv) {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = Some(mv);
        }
        let side = pos.side_to_move().index();
        let h = &mut self.history[side * HISTORY_SLOTS + G::history_slot(&mv)];
        *h = (*h + (depth * depth) as i32).min(1 << 20);
    }

    /// Stores the node's result; a proven value at a depth no search
    /// replaces.
    #[inline(always)]
    fn store(
        &self,
        key: u64,
        depth: usize,
        value: i32,
        bound: Bound,
        solved: bool,
        best_idx: Option<usize>,
    ) {
        let depth = if solved {
            SOLVED_DEPTH
        } else {
            depth.min(SOLVED_DEPTH as usize - 1) as u8
        };
        let best = best_idx
            .filter(|&i| i < u16::MAX as usize)
            .map(|i| i as u16);
        self.shared.tt.store(
            key,
            TtEntry {
                value,
                depth,
                bound,
                solved,
                best,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::kiothi::parse_position;
    use crate::search::exact_values::NoTables;

    /// A helper on its own, as when the main thread waits for a core: it
    /// must stop at the node limit by itself and end the search for all,
    /// not go on to complete (and publish) iterations past the limit.
    #[test]
    fn a_helper_alone_stops_at_the_node_limit() {
        let p =
            parse_position("kiothi 7,2,0,2,2,2,11,0,2,5,0,1,0,2,0,0,0,1,1,0 S play 13 9").unwrap();
        let tt = TranspositionTable::new(16);
        let stop = AtomicBool::new(false);
        let limits = Limits {
            nodes: Some(20_000),
            ..Limits::depth(12)
        };
        let shared = Shared::new(&tt, &stop, limits, 2);
        Worker::new(&shared, &NoTables, 1).iterate(&p, &mut |_| {});
        assert!(shared.finished.load(Relaxed));
        let nodes = shared.nodes.load(Relaxed);
        assert!(nodes <= 20_000 + CHECK, "{nodes}");
        // The node limit ended it, not the last iteration's completion.
        assert!(shared.best().is_none_or(|r| r.depth < 12));
    }
}
