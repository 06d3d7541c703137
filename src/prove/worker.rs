//! One thread of a proof: the state the threads share ([`Ctx`]), each
//! thread's own ([`Worker`]: its line, killers, history, node count), and
//! what both searches (df-pn and deepening) do at a node: the children with
//! their known bounds, their order, storing a result, counting nodes.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use super::busy::Busy;
use super::pn_table::PnTable;
use super::{Iv, ProveLimits, INF, MAX_DEPTH, NONE_REP, UNIT};
use crate::prove::bounds::{BoundTable, Proved};
use crate::prove::line::Line;
use crate::prove::slab::work;
use crate::search::exact_values::ExactValues;
use crate::search::{Searchable, HISTORY_SLOTS};

/// Nodes between two stop checks.
const CHECK: u64 = 64;
/// Nodes between two updates of the shared node count.
const FLUSH: u64 = 1024;
/// Nodes with at least this many plies left order their moves by the
/// engine's evaluation of the children.
const EVAL_ORDER_DEPTH: u32 = 4;

/// State shared by the threads of one proof.
pub(super) struct Ctx<'a, G> {
    pub(super) table: &'a BoundTable,
    /// Exact values of the positions the endgame tables cover.
    pub(super) exact: &'a dyn ExactValues<G>,
    /// Proof and disproof numbers of open tests (df-pn): half the memory
    /// of the bound table unless `ProveLimits::pn_table_mb` says otherwise.
    pub(super) pn: PnTable,
    /// Worker threads: with more than one they share nodes ([`Busy`]).
    pub(super) threads: usize,
    pub(super) busy: Busy,
    /// Set by the caller (Ctrl-C).
    pub(super) stop: &'a AtomicBool,
    /// Set when the root test is answered: the other threads unwind.
    pub(super) cancel: AtomicBool,
    /// Set when a limit was hit or `stop` seen.
    pub(super) out_of_budget: AtomicBool,
    pub(super) nodes: AtomicU64,
    pub(super) limits: ProveLimits,
    pub(super) start: Instant,
}

impl<'a, G> Ctx<'a, G> {
    pub(super) fn new(
        table: &'a BoundTable,
        exact: &'a dyn ExactValues<G>,
        threads: usize,
        limits: ProveLimits,
        stop: &'a AtomicBool,
    ) -> Self {
        Ctx {
            table,
            exact,
            pn: PnTable::new(limits.pn_table_mb.unwrap_or((table.bytes() / 2) >> 20)),
            threads: threads.max(1),
            busy: Busy::new(),
            stop,
            cancel: AtomicBool::new(false),
            out_of_budget: AtomicBool::new(false),
            nodes: AtomicU64::new(0),
            limits,
            start: Instant::now(),
        }
    }
}

/// A move at a node, with what is known about it.
pub(super) struct Kid<G: Searchable> {
    pub(super) mv: G::Move,
    pub(super) pos: G,
    pub(super) key: u64,
    pub(super) gain: i32,
    /// Proved bounds on the move's value (`gain - V(child)`).
    pub(super) lo: i32,
    pub(super) hi: i32,
    /// The move's rank in the search order ([`Worker::order_into`]), higher first.
    pub(super) score: i64,
}

/// One thread's private state.
pub(super) struct Worker<'a, 'c, G: Searchable> {
    pub(super) ctx: &'c Ctx<'a, G>,
    /// The current line, root first: (hash, position).
    pub(super) path: Line<G>,
    pub(super) killers: Vec<[Option<G::Move>; 2]>,
    pub(super) history: Vec<i32>,
    /// Every node this worker has visited, never reset: what a subtree
    /// cost is the difference of two readings (the work the tables keep to
    /// choose what to evict).
    pub(super) visited: u64,
    /// How many of them the shared count has been given.
    pub(super) flushed: u64,
    pub(super) aborted: bool,
    /// The best lower bound proved for each root move (in `search_moves`
    /// order) by this worker's tests started at the root: the best move
    /// when a proof rests on a return to the root, which the table does
    /// not keep.
    pub(super) root_lo: Vec<i32>,
}

impl<'a, 'c, G: Searchable> Worker<'a, 'c, G> {
    pub(super) fn new(ctx: &'c Ctx<'a, G>) -> Self {
        Worker {
            ctx,
            path: Line::default(),
            killers: vec![[None, None]; MAX_DEPTH as usize + 2],
            history: vec![0; 2 * HISTORY_SLOTS],
            visited: 0,
            flushed: 0,
            aborted: false,
            root_lo: Vec::new(),
        }
    }

    pub(super) fn flush_nodes(&mut self) {
        self.ctx
            .nodes
            .fetch_add(self.visited - self.flushed, Relaxed);
        self.flushed = self.visited;
    }

    /// Keeps the root moves' proved lower bounds (see `root_lo`).
    pub(super) fn note_root(&mut self, kids: &[Kid<G>]) {
        self.root_lo.resize(kids.len(), -INF);
        for (l, k) in self.root_lo.iter_mut().zip(kids) {
            *l = (*l).max(k.lo);
        }
    }

    pub(super) fn count_node(&mut self) {
        self.visited += 1;
        if !self.visited.is_multiple_of(CHECK) {
            return;
        }
        let unflushed = self.visited - self.flushed;
        let total = self.ctx.nodes.load(Relaxed) + unflushed;
        if unflushed >= FLUSH {
            self.flush_nodes();
        }
        let c = self.ctx;
        let over = c.stop.load(Relaxed)
            || c.limits.nodes.is_some_and(|n| total >= n)
            || c.limits
                .seconds
                .is_some_and(|s| c.start.elapsed().as_secs_f64() >= s);
        if over {
            c.out_of_budget.store(true, Relaxed);
        }
        if over || c.cancel.load(Relaxed) {
            self.aborted = true;
        }
    }

    /// Index on the current line of a position equal to `pos`, if any.
    pub(super) fn on_line(&self, key: u64, pos: &G) -> Option<usize> {
        let wanted = pos.repetition_key();
        self.path.rposition(key, |p| p.repetition_key() == wanted)
    }

    /// The stored bounds of `pos`, within the trivial `[-B, B]`; its exact
    /// value if the endgame tables have it.
    pub(super) fn known(&self, pos: &G, key: u64) -> Proved {
        if let Some(v) = self.ctx.exact.exact_value(pos) {
            return Proved {
                lo: v,
                hi: v,
                best: None,
                open: None,
            };
        }
        let b = pos.board_total() as i32;
        match self.ctx.table.probe(key) {
            Some(p) => Proved {
                lo: p.lo.max(-b),
                hi: p.hi.min(b),
                ..p
            },
            None => Proved {
                lo: -b,
                hi: b,
                best: None,
                open: None,
            },
        }
    }

    /// Stores bounds proved with the nodes visited since `nodes_before`
    /// (counted as one at least): their work decides what a full bucket
    /// evicts.
    pub(super) fn store(&self, key: u64, p: Proved, nodes_before: u64) {
        let spent = (self.visited - nodes_before).max(1);
        self.ctx.table.store(key, p, work(spent));
    }

    /// A finished game: its sweep (RULES §2.10), stored as exact.
    pub(super) fn game_over(&self, pos: &G, key: u64, nodes_before: u64) -> Iv {
        let v = pos.terminal_value();
        let p = Proved {
            lo: v,
            hi: v,
            best: None,
            open: None,
        };
        self.store(key, p, nodes_before);
        Iv {
            lo: v,
            hi: v,
            rep: NONE_REP,
        }
    }

    /// The children of the node on top of the line with their known bounds
    /// (a child repeating a position of the line is worth exactly 0 there).
    pub(super) fn kids(&self, pos: &G, moves: Vec<(G::Move, G)>, rep: &mut usize) -> Vec<Kid<G>> {
        let mut kids = Vec::with_capacity(moves.len());
        self.kids_into(pos, moves, rep, &mut kids);
        kids
    }

    /// [`Self::kids`] into `out` (cleared first), `moves` drained: a
    /// buffer kept from node to node instead of new ones at every node.
    pub(super) fn kids_into(
        &self,
        pos: &G,
        moves: impl IntoIterator<Item = (G::Move, G)>,
        rep: &mut usize,
        out: &mut Vec<Kid<G>>,
    ) {
        out.clear();
        // Every child's bucket is fetched first, so that the probes' cache
        // misses overlap.
        out.extend(moves.into_iter().map(|(mv, child)| {
            let key = child.zobrist();
            self.ctx.table.prefetch(key);
            Kid {
                mv,
                pos: child,
                key,
                gain: 0,
                lo: 0,
                hi: 0,
                score: 0,
            }
        }));
        for kid in out.iter_mut() {
            let gain = G::capture_gain(pos, &kid.pos);
            let (clo, chi) = match self.on_line(kid.key, &kid.pos) {
                Some(i) => {
                    *rep = (*rep).min(i);
                    (0, 0)
                }
                None => {
                    let p = self.known(&kid.pos, kid.key);
                    (p.lo, p.hi)
                }
            };
            kid.gain = gain;
            kid.lo = gain - chi;
            kid.hi = gain - clo;
        }
    }

    /// The moves worth searching for `V ≥ t` (those whose upper bound
    /// reaches `t`), best first, into `out` (cleared first, kept by the
    /// caller from node to node); each kid's `score` is set on the way.
    pub(super) fn order_into(
        &self,
        kids: &mut [Kid<G>],
        t: i32,
        tt_best: Option<u16>,
        ply: usize,
        depth: u32,
        out: &mut Vec<usize>,
    ) {
        // Far from the horizon a subtree is worth the engine's estimate of
        // each child (`Searchable::evaluate`, the tuned evaluation) first.
        let deep = depth >= EVAL_ORDER_DEPTH * UNIT;
        let side = self
            .path
            .last()
            .map_or(0, |(_, p)| p.side_to_move().index());
        let killers = self.killers[ply.min(self.killers.len() - 1)];
        out.clear();
        for (i, k) in kids.iter_mut().enumerate() {
            if k.hi < t {
                continue;
            }
            k.score = if tt_best == Some(i as u16) {
                i64::MAX
            } else if deep {
                let estimate = (k.gain - k.pos.evaluate()).clamp(-1000, 1000) as i64;
                let killer = if killers[0] == Some(k.mv) {
                    2
                } else {
                    (killers[1] == Some(k.mv)) as i64
                };
                (estimate + 1000) << 34
                    | killer << 32
                    | self.history[side * HISTORY_SLOTS + G::history_slot(&k.mv)] as i64
            } else if k.gain > 0 {
                1 << 40 | (k.gain as i64) << 20
            } else if killers[0] == Some(k.mv) {
                1 << 32
            } else if killers[1] == Some(k.mv) {
                (1 << 32) - 1
            } else {
                self.history[side * HISTORY_SLOTS + G::history_slot(&k.mv)] as i64
            };
            out.push(i);
        }
        // Highest score first, equal scores in move order.
        out.sort_unstable_by_key(|&i| (std::cmp::Reverse(kids[i].score), i));
    }

    /// Remembers a move that answered a test (killers and history).
    pub(super) fn reward(&mut self, mv: G::Move, gain: i32, ply: usize, depth: u32) {
        if gain != 0 {
            return;
        }
        let side = self
            .path
            .last()
            .map_or(0, |(_, p)| p.side_to_move().index());
        let slot = &mut self.killers[ply.min(MAX_DEPTH as usize + 1)];
        if slot[0] != Some(mv) {
            slot[1] = slot[0];
            slot[0] = Some(mv);
        }
        let h = &mut self.history[side * HISTORY_SLOTS + G::history_slot(&mv)];
        *h = (*h + (depth * depth) as i32).min(1 << 20);
    }
}
