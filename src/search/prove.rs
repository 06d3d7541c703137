//! Exact values of late positions (`sow solve '<kiothi position>'`).
//!
//! # Method
//! Null-window tests over proved bounds, driven MTD(f)-style inside
//! iterative deepening:
//!
//! - A **test** `V ≥ t?` at depth `d` returns an interval `[lo, hi]` that is
//!   *proved* to hold the true value `V` (RULES §0: the future margin for the
//!   mover). It answers the test when `lo ≥ t` or `hi < t`, and is
//!   inconclusive otherwise. Nothing is estimated: a non-terminal position
//!   at the horizon is only known to lie in `[-B, B]` (`B` = stones on the
//!   board, all a player can still gain or lose), and a move capturing `g`
//!   stones is worth `g - V(child)`, so captures along the line narrow the
//!   bounds exactly. Every interval any call returns is sound, also when a
//!   node cap or Ctrl-C cuts a test short: that is what lets an interrupted
//!   solve print proved lower and upper bounds.
//! - Proved bounds go to a shared [`BoundTable`], valid at every depth, so
//!   each deepening only searches what is still open. Before searching a
//!   node's moves, every child's stored bounds are looked up (enhanced
//!   transposition cutoffs): one child proved bad enough for the opponent
//!   answers the test at once, and the children's upper bounds together may
//!   refute it without a search. Moves that cannot reach the threshold are
//!   skipped. The rest are ordered as in the engine (`negamax.rs`): the
//!   move that proved the node before, captures by size, killer moves, the
//!   history heuristic.
//! - The depth of an iteration is a budget, not a count of plies: a ply
//!   costs a quarter-ply multiple that depends on how many moves the node
//!   has ([`PlyCost`]): a forced move is free, a choice of two costs half a
//!   ply. Lines where one side is short of moves, the way Kiothi games end
//!   (RULES §2.10), then reach the end of the game in early iterations
//!   instead of waiting for the uniform depth of the whole tree, in the
//!   spirit of proof-number search. Bounds stay proved whatever the budget.
//! - The root driver keeps the proved root interval `[lo, hi]` and a guess
//!   `c` (first from a short engine search): at each depth it tests
//!   `V ≥ c + 1` and `V ≥ c`, moves `c` to the fail-soft bound a test
//!   returns, and goes one ply deeper when both tests are inconclusive. The
//!   value is exact when `lo = hi`.
//! - Each test is answered by depth-first proof-number search (df-pn,
//!   `prove/dfpn.rs`, [`Method::ProofNumbers`], the default): no depth,
//!   it expands the most proving line; a new node's disproof number starts
//!   from its mover's mobility, so it goes for the lines where one side
//!   runs out of moves; its proof number grows with how far the engine's
//!   evaluation falls short of its threshold, its disproof number with how
//!   far the evaluation passes it beyond a margin. Every thread runs
//!   it from the root over the same tables, preferring the moves no other
//!   thread is inside. The iterative deepening search below takes over a
//!   test df-pn leaves open (lines past its ply cap); it also runs alone
//!   (`Method::Deepening`) or beside df-pn on the other threads
//!   (`Method::Mixed`, the default before the evaluation entered df-pn:
//!   df-pn now takes fewer nodes and less time on every measured case).
//! - Both cores, inside the tree (ABDADA): every thread runs the same root
//!   test over the shared table; a node with some depth left says it is
//!   being searched ([`Busy`]), and a thread passes over the moves another
//!   thread is inside (all but a node's first move), coming back to them
//!   last, when their bounds are mostly proved. The first thread to answer
//!   the root's test cancels the others; every thread's bounds are sound,
//!   so they are all kept. Each thread keeps its own line (for
//!   repetitions), killers and history. (Sharing only the root's moves left
//!   one core idle when one move dominates, as it usually does.)
//!
//! - **Endgame tables** ([`prove_with_tables`], [`ExactValues`]; Kiothi's
//!   come from `solve::kiothi_endgame`): a position they cover is exact at
//!   once, found among the children before any search like a stored
//!   bound. df-pn starts a new node's numbers at (1 + its distance to the
//!   tables) times the usual ones, and in the deepening a capture that
//!   brings the board nearer them costs half a ply, so both go for the
//!   captures that reach the tables.
//!
//! # Repetitions (graph-history interaction)
//! RULES §0: a line that never ends scores 0 for the stones on the board.
//! As in the engine, a position that repeats one on the current line is
//! scored 0 there (no stone can have been captured on the way: a capture
//! empties the board for good, so a repeated board means nothing was
//! gained in between). Such a score depends on the line: a bound derived
//! from a repetition of a position *above* the node is not stored (for the
//! node or any ancestor below the repeated one); a bound whose repetitions
//! all return to the node itself or below is stored, since it is what a
//! search started at that node finds. This is the usual "first repetition =
//! endless play" convention, under which the root's value is the
//! game-theoretic value of the graph game (each player can repeat a winning
//! choice). The tests compare the prover with a plain exhaustive minimax
//! over the same convention, and with the exact Kpé database.
//!
//! # Scope
//! The prover works for any [`Searchable`] game whose `search_moves` are all
//! the legal moves. A Kiothi opening (hundreds of millions of moves, of which
//! `search_moves` is a selection) cannot be proved: the command refuses it.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;

mod dfpn;

use super::bounds::{BoundTable, Open, Proved};
use super::exact_values::{ExactValues, NoTables};
use super::line::Line;
use super::negamax::Limits;
use super::slab::work;
use super::threads::search_with;
use super::tt::TranspositionTable;
use super::{Searchable, HISTORY_SLOTS};
use dfpn::{PnTable, PN_INF};

/// Deepest iteration: far beyond any Kiothi late game.
pub const MAX_DEPTH: u32 = 1000;

/// Larger than any bound (boards hold at most 128 stones).
const INF: i32 = 1 << 20;

/// Nodes between two stop checks.
const CHECK: u64 = 64;
/// Nodes between two updates of the shared node count.
const FLUSH: u64 = 1024;
/// Nodes with at least this many plies left order their moves by the
/// engine's evaluation of the children.
const EVAL_ORDER_DEPTH: u32 = 4;
/// No repetition took part: the result can be stored.
const NONE_REP: usize = usize::MAX;

/// Depth budgets are counted in quarter plies: a ply's cost depends on the
/// node ([`PlyCost`]).
pub const UNIT: u32 = 4;

/// How much of the depth budget a ply costs, in quarter plies ([`UNIT`]),
/// by the number of moves of the node it leaves: one move, two, three or
/// four, five or more. The budget only decides how far an iteration looks:
/// every bound is proved whatever it is, so any costs give exact values.
///
/// The default spends the budget where the tree is narrow, as proof-number
/// search does: a forced move costs nothing and a choice of two half a
/// ply, so the lines along which the side short of moves runs out of them
/// (the usual end of a Kiothi game, RULES §2.10) reach their end in an
/// early iteration, while wide nodes still cost a full ply. Measured on
/// the engine games (`results/kiothi/exact.md`): about twice as deep in
/// 60 s as one ply per move ([`PlyCost::UNIFORM`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlyCost(pub [u32; 4]);

impl PlyCost {
    /// One ply per move, whatever the node.
    pub const UNIFORM: PlyCost = PlyCost([UNIT; 4]);
    /// The tuned costs (see the type's doc).
    pub const NARROW_CHEAP: PlyCost = PlyCost([0, 2, 3, UNIT]);

    /// Parses `a,b,c,d` (quarter plies for 1, 2, 3-4, 5+ moves); wide nodes
    /// must cost something, so that an iteration ends.
    pub fn parse(text: &str) -> Option<PlyCost> {
        let c: Vec<u32> = text
            .split(',')
            .map(|x| x.trim().parse().ok().filter(|&v: &u32| v <= 4 * UNIT))
            .collect::<Option<_>>()?;
        (c.len() == 4 && c[3] >= 1).then(|| PlyCost([c[0], c[1], c[2], c[3]]))
    }

    /// The budget a ply costs at a node with `moves` moves and `ply`
    /// ancestors. Past [`FREE_PLIES`] every ply costs a full one, which
    /// bounds the line (and the stack) whatever the costs.
    fn of(self, moves: usize, ply: usize) -> u32 {
        if ply >= FREE_PLIES {
            return UNIT;
        }
        let c = self.0;
        match moves {
            0 | 1 => c[0],
            2 => c[1],
            3 | 4 => c[2],
            _ => c[3],
        }
    }
}

impl Default for PlyCost {
    fn default() -> Self {
        PlyCost::NARROW_CHEAP
    }
}

/// Plies from the root beyond which every ply costs a full one.
const FREE_PLIES: usize = 400;

/// When to give up proving, and how an iteration spends its depth.
/// `Default`: never give up (until exact or Ctrl-C), the tuned ply costs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ProveLimits {
    /// Node budget (all threads together).
    pub nodes: Option<u64>,
    /// Wall-clock budget in seconds.
    pub seconds: Option<f64>,
    /// What a ply costs of an iteration's depth budget.
    pub ply_cost: PlyCost,
    /// How each test is searched.
    pub method: Method,
    /// Size of df-pn's table of proof numbers, in MiB (`None`: half the
    /// table of proved bounds). Many small proofs over one large bound
    /// table (`certificate.rs` proving lost bounds again) want a small
    /// one: every page a proof touches is zeroed by the kernel first.
    pub pn_table_mb: Option<usize>,
    /// `Some(q)`: only whether `V ≤ q`. The first test is `V ≥ q + 1`, with
    /// no engine search for a first guess, and the proof ends as soon as
    /// the question is answered (`certificate.rs`, which needs one bound of
    /// many children: the guess's search and its table cost more than most
    /// of their proofs). `None`: the exact value.
    pub question: Option<i32>,
}

/// How the prover answers its tests `V ≥ t`. Every method gives exact
/// values; they differ in how fast.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Method {
    /// Iterative deepening of the tests (the module doc), alone.
    Deepening,
    /// The default: proof-number search (`dfpn.rs`) for each test, every
    /// thread from the root; iterative deepening after it only if it leaves
    /// a test open (lines past its ply cap). Since new nodes' proof numbers
    /// follow the evaluation (`dfpn.rs`, `EVAL_DOUBT`) it took fewer nodes
    /// and less time than [`Method::Mixed`] on every late engine-game
    /// position measured (`results/kiothi/exact.experiments.md`), also on the
    /// tests next to the value that made mixed the default before.
    #[default]
    ProofNumbers,
    /// Proof-number search on the first thread and iterative deepening of
    /// the same test on the others, over the shared table; the first to
    /// answer a test cancels the rest (on one thread, proof numbers alone).
    Mixed,
}

impl Method {
    /// `id`, `pn` or `mixed`.
    pub fn parse(text: &str) -> Option<Method> {
        match text.trim() {
            "id" => Some(Method::Deepening),
            "pn" => Some(Method::ProofNumbers),
            "mixed" => Some(Method::Mixed),
            _ => None,
        }
    }
}

/// What was proved about the root.
#[derive(Clone, Debug, PartialEq)]
pub struct Proof<M> {
    /// The true value (RULES §0, for the mover) is at least this ...
    pub lower: i32,
    /// ... and at most this; exact when both are equal.
    pub upper: i32,
    /// A best move when exact; otherwise the move with the best proved
    /// lower bound. `None` when the game is over at the root.
    pub best: Option<M>,
    /// When exact, a line of best moves (followed through the table while it
    /// holds proofs, stopped at a repetition); otherwise just `best`.
    pub pv: Vec<M>,
    /// Deepest iteration started: its budget in plies of full cost
    /// ([`PlyCost`]).
    pub depth: u32,
    pub nodes: u64,
    pub seconds: f64,
    /// Stopped by a limit or the stop flag before the value was exact.
    pub interrupted: bool,
}

impl<M> Proof<M> {
    pub fn exact(&self) -> bool {
        self.lower == self.upper
    }

    /// The exact value, if proved.
    pub fn value(&self) -> Option<i32> {
        self.exact().then_some(self.lower)
    }
}

/// The state of a running proof, passed to the progress callback after
/// every root test.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ProveProgress {
    pub lower: i32,
    pub upper: i32,
    pub depth: u32,
    pub nodes: u64,
    pub seconds: f64,
}

/// A proved interval and the repetition it rests on.
#[derive(Clone, Copy, Debug)]
struct Iv {
    lo: i32,
    hi: i32,
    /// Lowest line index of a repeated position that scored a leaf below
    /// (`NONE_REP`: none above the node that returned it).
    rep: usize,
}

/// Slots of the table of nodes being searched ([`Busy`]).
const BUSY_SLOTS: usize = 1 << 16;
/// Nodes with at least this depth budget left (quarter plies) say they are
/// being searched, and their parents defer them while another thread is
/// inside ([`Busy`]): below it a subtree is cheaper to search twice than
/// the bookkeeping.
const SHARE_DEPTH: u32 = 2 * UNIT;

/// Which nodes the threads are searching right now (ABDADA, Weill 1996):
/// a count per slot, indexed by the position's hash, raised on entering a
/// node with [`SHARE_DEPTH`] or more left and lowered on leaving it. A
/// thread searching a node's moves first passes over the moves another
/// thread is inside (all but the first: "young brothers wait"), and comes
/// back to them once the rest is done, when their bounds are mostly in the
/// table. Only the order of the search changes: a collision of two
/// positions on one slot costs time, never soundness.
struct Busy(Box<[AtomicU8]>);

impl Busy {
    fn new() -> Busy {
        Busy((0..BUSY_SLOTS).map(|_| AtomicU8::new(0)).collect())
    }

    fn slot(&self, key: u64) -> &AtomicU8 {
        // The bound table indexes by the high bits: the low ones are
        // independent of its buckets.
        &self.0[key as usize & (BUSY_SLOTS - 1)]
    }

    fn enter(&self, key: u64) {
        self.slot(key).fetch_add(1, Relaxed);
    }

    fn leave(&self, key: u64) {
        self.slot(key).fetch_sub(1, Relaxed);
    }

    fn searched(&self, key: u64) -> bool {
        self.slot(key).load(Relaxed) != 0
    }
}

/// The order a node's moves are searched in beside other threads
/// ([`Busy`]): `order`, passing over each move but a pass's first that
/// another thread is inside, then those deferred moves in further passes
/// until none is left. Without `defer`, just `order`.
struct MoveQueue {
    pass: std::vec::IntoIter<usize>,
    deferred: Vec<usize>,
    first: bool,
    defer: bool,
}

impl MoveQueue {
    fn new(order: Vec<usize>, defer: bool) -> Self {
        MoveQueue {
            pass: order.into_iter(),
            deferred: Vec::new(),
            first: true,
            defer,
        }
    }

    /// The next move to search; `key(i)` is move `i`'s child's hash.
    fn next(&mut self, busy: &Busy, key: impl Fn(usize) -> u64) -> Option<usize> {
        loop {
            let Some(i) = self.pass.next() else {
                if self.deferred.is_empty() {
                    return None;
                }
                self.pass = std::mem::take(&mut self.deferred).into_iter();
                self.first = true;
                continue;
            };
            if self.defer && !self.first && busy.searched(key(i)) {
                self.deferred.push(i);
                continue;
            }
            self.first = false;
            return Some(i);
        }
    }
}

/// State shared by the threads of one proof.
struct Ctx<'a, G> {
    table: &'a BoundTable,
    /// Exact values of the positions the endgame tables cover.
    exact: &'a dyn ExactValues<G>,
    /// Proof and disproof numbers of open tests (df-pn), in half the memory
    /// of the bound table (`--hash`).
    pn: PnTable,
    /// Worker threads: with more than one they share nodes ([`Busy`]).
    threads: usize,
    busy: Busy,
    /// Set by the caller (Ctrl-C).
    stop: &'a AtomicBool,
    /// Set when the root test is answered: the other threads unwind.
    cancel: AtomicBool,
    /// Set when a limit was hit or `stop` seen.
    out_of_budget: AtomicBool,
    nodes: AtomicU64,
    limits: ProveLimits,
    start: Instant,
}

impl<'a, G> Ctx<'a, G> {
    fn new(
        table: &'a BoundTable,
        exact: &'a dyn ExactValues<G>,
        threads: usize,
        limits: ProveLimits,
        stop: &'a AtomicBool,
    ) -> Self {
        Ctx {
            table,
            exact,
            pn: PnTable::new(match limits.method {
                Method::Deepening => 0,
                Method::ProofNumbers | Method::Mixed => {
                    limits.pn_table_mb.unwrap_or((table.bytes() / 2) >> 20)
                }
            }),
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

/// Which answers of a test `V ≥ t` its caller can use. A node needs all its
/// moves to fail to answer "no", so once one move is left open (at this
/// depth) only "yes" remains possible: a caller that needs "no" stops
/// there, and the node's later moves are searched for "yes" only. This is
/// the pruning of a three-valued search; without it an open subtree would
/// be searched in full to the horizon.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Need {
    /// Either answer (the root, and a node whose moves all failed so far).
    Both,
    /// Only "yes, `V ≥ t`": some move must be proved to reach `t`.
    Ge,
    /// Only "no, `V < t`": every move must be proved to fail.
    Lt,
}

impl Need {
    /// What the node's children must answer for the node's needs: a "yes"
    /// here is a child's "no", and the other way round.
    fn child(self) -> Need {
        match self {
            Need::Both => Need::Both,
            Need::Ge => Need::Lt,
            Need::Lt => Need::Ge,
        }
    }
}

/// The test a deepening node answers: `V ≥ t` at the position of hash `key`,
/// `ply` plies below the root, with `depth` quarter plies of budget left
/// ([`PlyCost`]), for a caller that needs `need`.
struct TestAt {
    key: u64,
    depth: u32,
    ply: usize,
    t: i32,
    need: Need,
}

/// A move at a node, with what is known about it.
struct Kid<G: Searchable> {
    mv: G::Move,
    pos: G,
    key: u64,
    gain: i32,
    /// Proved bounds on the move's value (`gain - V(child)`).
    lo: i32,
    hi: i32,
    /// The move's rank in the search order ([`Worker::order_into`]), higher first.
    score: i64,
}

/// One thread's private state.
struct Worker<'a, 'c, G: Searchable> {
    ctx: &'c Ctx<'a, G>,
    /// The current line, root first: (hash, position).
    path: Line<G>,
    killers: Vec<[Option<G::Move>; 2]>,
    history: Vec<i32>,
    /// Every node this worker has visited, never reset: what a subtree
    /// cost is the difference of two readings. (A count reset at every
    /// flush made every subtree of more than [`FLUSH`] nodes look cheap,
    /// and the bound table gave up those proofs first.)
    visited: u64,
    /// How many of them the shared count has been given.
    flushed: u64,
    aborted: bool,
    /// The best lower bound proved for each root move (in `search_moves`
    /// order) by this worker's tests started at the root: the best move
    /// when a proof rests on a return to the root, which the table does
    /// not keep.
    root_lo: Vec<i32>,
    /// df-pn's buffers, one set in use per node of the line.
    pn_scratch: Vec<dfpn::Scratch<G>>,
}

impl<'a, 'c, G: Searchable> Worker<'a, 'c, G> {
    fn new(ctx: &'c Ctx<'a, G>) -> Self {
        Worker {
            ctx,
            path: Line::default(),
            killers: vec![[None, None]; MAX_DEPTH as usize + 2],
            history: vec![0; 2 * HISTORY_SLOTS],
            visited: 0,
            flushed: 0,
            aborted: false,
            root_lo: Vec::new(),
            pn_scratch: Vec::new(),
        }
    }

    fn flush_nodes(&mut self) {
        self.ctx
            .nodes
            .fetch_add(self.visited - self.flushed, Relaxed);
        self.flushed = self.visited;
    }

    /// Keeps the root moves' proved lower bounds (see `root_lo`).
    fn note_root(&mut self, kids: &[Kid<G>]) {
        self.root_lo.resize(kids.len(), -INF);
        for (l, k) in self.root_lo.iter_mut().zip(kids) {
            *l = (*l).max(k.lo);
        }
    }

    fn count_node(&mut self) {
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
    fn on_line(&self, key: u64, pos: &G) -> Option<usize> {
        let wanted = pos.repetition_key();
        self.path.rposition(key, |p| p.repetition_key() == wanted)
    }

    /// The stored bounds of `pos`, within the trivial `[-B, B]`; its exact
    /// value if the endgame tables have it.
    fn known(&self, pos: &G, key: u64) -> Proved {
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

    fn store(&self, key: u64, p: Proved, nodes_before: u64) {
        // A bound counts at least its own node. Measured on two late
        // Kiothi positions, one thread (game 3 at 18 plies, game 0 at 26):
        // without the floor 0.5% and 1.5% more nodes; the same floor in
        // df-pn's table (`PnTable::store`) cost 1.4% and 7% more.
        let spent = (self.visited - nodes_before).max(1);
        self.ctx.table.store(key, p, work(spent));
    }

    /// A finished game: its sweep (RULES §2.10), stored as exact.
    fn game_over(&self, pos: &G, key: u64, nodes_before: u64) -> Iv {
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
    fn kids(&self, pos: &G, moves: Vec<(G::Move, G)>, rep: &mut usize) -> Vec<Kid<G>> {
        let mut kids = Vec::with_capacity(moves.len());
        self.kids_into(pos, moves, rep, &mut kids);
        kids
    }

    /// [`Self::kids`] into `out` (cleared first), `moves` drained: a
    /// buffer kept from node to node instead of new ones at every node.
    fn kids_into(
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
    fn order_into(
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
    fn reward(&mut self, mv: G::Move, gain: i32, ply: usize, depth: u32) {
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

    /// The test `V(pos) ≥ t` with a budget of `depth` quarter plies left
    /// ([`PlyCost`]); `pos` is not yet on the line (which holds its `ply`
    /// ancestors).
    fn test(&mut self, pos: &G, key: u64, depth: u32, ply: usize, t: i32, need: Need) -> Iv {
        self.count_node();
        let at = TestAt {
            key,
            depth,
            ply,
            t,
            need,
        };
        let nodes_before = self.visited;
        let stored = match self.test_without_moves(pos, &at, nodes_before) {
            Ok(stored) => stored,
            Err(answer) => return answer,
        };
        let moves = pos.search_moves();
        if moves.is_empty() {
            return self.game_over(pos, key, nodes_before);
        }
        let cost = self.ctx.limits.ply_cost.of(moves.len(), ply).min(depth);
        let distance = self.ctx.exact.distance(pos);
        self.path.push(key, pos.clone());
        let mut rep = NONE_REP;
        let mut kids = self.kids(pos, moves, &mut rep);
        let mut order = Vec::with_capacity(kids.len());
        self.order_into(&mut kids, t, stored.best, ply, depth, &mut order);
        let proved_by = self.test_moves(&at, &mut kids, order, cost, distance, &mut rep);
        self.path.pop();
        if ply == 0 {
            self.note_root(&kids);
        }
        if let Some(i) = proved_by {
            let (mv, gain) = (kids[i].mv, kids[i].gain);
            self.reward(mv, gain, ply, depth);
        }
        let board = pos.board_total() as i32;
        let (best_idx, best_lo) = kids
            .iter()
            .enumerate()
            .map(|(i, k)| (i, k.lo))
            .max_by_key(|&(i, l)| (l, std::cmp::Reverse(i)))
            .unwrap_or((0, -INF));
        let all_hi = kids.iter().map(|k| k.hi).max().unwrap_or(-INF);
        let (lo, hi) = (stored.lo.max(best_lo), stored.hi.min(all_hi));
        if rep >= ply {
            let best = proved_by
                .or((best_lo > -board).then_some(best_idx))
                .filter(|&i| i < u16::MAX as usize)
                .map(|i| i as u16);
            let open = (lo < t && t <= hi && !self.aborted).then_some(Open {
                t,
                depth,
                need: need as u8,
            });
            self.store(key, Proved { lo, hi, best, open }, nodes_before);
            rep = NONE_REP;
        }
        Iv { lo, hi, rep }
    }

    /// The test's answer when no move need be searched: the search was
    /// stopped, the position repeats one on the line, its stored bounds
    /// decide the test (or an as deep search of it was left open), or the
    /// depth budget is spent. Otherwise the stored bounds.
    fn test_without_moves(
        &mut self,
        pos: &G,
        at: &TestAt,
        nodes_before: u64,
    ) -> Result<Proved, Iv> {
        let iv = |lo, hi, rep| Err(Iv { lo, hi, rep });
        if self.aborted {
            let b = pos.board_total() as i32;
            return iv(-b, b, NONE_REP);
        }
        if let Some(i) = self.on_line(at.key, pos) {
            return iv(0, 0, i);
        }
        let stored = self.known(pos, at.key);
        let same_open = stored.open.is_some_and(|o| {
            o.t == at.t
                && o.depth >= at.depth
                && (o.need == Need::Both as u8 || o.need == at.need as u8)
        });
        if stored.lo >= at.t || stored.hi < at.t || same_open {
            return iv(stored.lo, stored.hi, NONE_REP);
        }
        if at.depth == 0 {
            return match pos.is_over() {
                true => Err(self.game_over(pos, at.key, nodes_before)),
                false => iv(stored.lo, stored.hi, NONE_REP),
            };
        }
        Ok(stored)
    }

    /// Searches the node's moves in `order` until one proves the test (its
    /// index is returned), all fail, the caller's need is settled
    /// ([`Need`]) or the search is stopped. `cost` is the budget a move
    /// takes ([`PlyCost`]), `distance` the node's distance to the tables.
    fn test_moves(
        &mut self,
        at: &TestAt,
        kids: &mut [Kid<G>],
        order: Vec<usize>,
        cost: u32,
        distance: u32,
        rep: &mut usize,
    ) -> Option<usize> {
        let t = at.t;
        let mut need = at.need;
        // With other threads, this node says it is being searched, and
        // passes over the children another thread is inside ([`Busy`]).
        let shared = self.ctx.threads > 1 && at.depth >= SHARE_DEPTH;
        let defer = self.ctx.threads > 1 && at.depth - cost >= SHARE_DEPTH;
        if shared {
            self.ctx.busy.enter(at.key);
        }
        let mut proved_by = None;
        // A move already known to prove the test leaves nothing to search.
        let settled = kids.iter().any(|k| k.lo >= t);
        let mut queue = MoveQueue::new(if settled { Vec::new() } else { order }, defer);
        while let Some(i) = queue.next(&self.ctx.busy, |i| kids[i].key) {
            let kid = &kids[i];
            let (child, ckey, gain) = (kid.pos.clone(), kid.key, kid.gain);
            // A capture that brings the board nearer the endgame tables
            // costs half a ply's budget: those lines reach exact values
            // sooner (with the tables of 14 warriors, five late
            // positions: 3-35% faster than full cost, each one).
            let closer = gain > 0 && self.ctx.exact.distance(&child) < distance;
            let r = self.test(
                &child,
                ckey,
                at.depth - if closer { cost / 2 } else { cost },
                at.ply + 1,
                gain - t + 1,
                need.child(),
            );
            *rep = (*rep).min(r.rep);
            let kid = &mut kids[i];
            kid.lo = kid.lo.max(gain - r.hi);
            kid.hi = kid.hi.min(gain - r.lo);
            if kid.lo >= t {
                proved_by = Some(i);
                break;
            }
            if self.aborted {
                break;
            }
            if kid.hi >= t {
                // This move is open: the node can no longer fail low
                // at this depth, only a later move can still prove it.
                match need {
                    Need::Lt => break,
                    Need::Both | Need::Ge => need = Need::Ge,
                }
            }
        }
        if shared {
            self.ctx.busy.leave(at.key);
        }
        proved_by
    }

    /// Iterative deepening of the root test `V ≥ t` (the second thread of
    /// [`Method::Mixed`]), until it is answered, the deepest depth is done
    /// or the search is stopped: the bounds proved and the last depth.
    fn deepen_root_test(&mut self, root: &G, root_key: u64, t: i32) -> (Iv, u32) {
        let b = root.board_total() as i32;
        let mut iv = Iv {
            lo: -b,
            hi: b,
            rep: NONE_REP,
        };
        let mut depth = 0;
        while depth < MAX_DEPTH && !self.aborted && (iv.lo < t && t <= iv.hi) {
            depth += 1;
            self.path.clear();
            let r = self.test(root, root_key, depth * UNIT, 0, t, Need::Both);
            iv.lo = iv.lo.max(r.lo);
            iv.hi = iv.hi.min(r.hi);
        }
        (iv, depth)
    }

    /// This worker's pass over the root's moves for `V ≥ t` (the root on
    /// the line), each child with `budget` quarter plies: the moves in
    /// `order`, those another thread is inside deferred to a second pass,
    /// until one proves the test, all fail, or the test is answered by
    /// another worker. The moves' proved bounds, starting from `kids`'.
    fn test_root_moves(
        &mut self,
        kids: &[Kid<G>],
        order: Vec<usize>,
        budget: u32,
        root_budget: u32,
        t: i32,
    ) -> Vec<(i32, i32)> {
        let mut bounds: Vec<(i32, i32)> = kids.iter().map(|k| (k.lo, k.hi)).collect();
        let defer = self.ctx.threads > 1 && budget >= SHARE_DEPTH;
        let mut need = Need::Both;
        let mut queue = MoveQueue::new(order, defer);
        while let Some(i) = queue.next(&self.ctx.busy, |i| kids[i].key) {
            if self.aborted || self.ctx.cancel.load(Relaxed) {
                break;
            }
            let kid = &kids[i];
            let r = self.test(&kid.pos, kid.key, budget, 1, kid.gain - t + 1, need.child());
            let b = &mut bounds[i];
            b.0 = b.0.max(kid.gain - r.hi);
            b.1 = b.1.min(kid.gain - r.lo);
            if b.0 >= t {
                self.reward(kid.mv, kid.gain, 0, root_budget);
                break;
            }
            if self.aborted {
                break;
            }
            if b.1 >= t {
                need = Need::Ge;
            }
        }
        bounds
    }
}

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
    // After every root test, whichever method ran it.
    let mut report = |lower, upper, depth| {
        progress(&ProveProgress {
            lower,
            upper,
            depth,
            nodes: ctx.nodes.load(Relaxed),
            seconds: ctx.start.elapsed().as_secs_f64(),
        })
    };
    let pn_depth = match limits.method {
        Method::Deepening => 0,
        Method::ProofNumbers | Method::Mixed => {
            proof_number_tests(root, root_key, &mut workers, &mut window, &mut report)
        }
    };
    let (depth, root_kids) = deepening_tests(
        root,
        root_key,
        &moves,
        &mut workers,
        &mut window,
        pn_depth,
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
/// the budget is spent, or a test is left open (lines past the ply cap),
/// where deepening takes over. Returns the deepest iteration a deepening
/// worker started ([`Method::Mixed`]).
fn proof_number_tests<G: Searchable>(
    root: &G,
    root_key: u64,
    workers: &mut [Worker<G>],
    window: &mut Window,
    report: &mut dyn FnMut(i32, i32, u32),
) -> u32 {
    let ctx = workers[0].ctx;
    let mut depth = 0;
    while window.is_open() && !ctx.out_of_budget.load(Relaxed) {
        window.guess = window.guess.clamp(window.lo, window.hi);
        let t = window.guess + i32::from(window.guess < window.hi);
        let (r, d) = pn_root_test(root, root_key, workers, t);
        depth = depth.max(d);
        let answered = window.take(r, t);
        report(window.lo, window.hi, depth);
        if !answered {
            break;
        }
    }
    depth
}

/// Root tests by iterative deepening ([`root_test`]), from `depth`, until
/// the value is exact, the budget is spent or [`MAX_DEPTH`]. At each depth
/// the tests run at the guess and above it until both are answered or
/// left open. Returns the last depth started, and the root moves' proved
/// bounds.
fn deepening_tests<G: Searchable>(
    root: &G,
    root_key: u64,
    moves: &[(G::Move, G)],
    workers: &mut [Worker<G>],
    window: &mut Window,
    mut depth: u32,
    report: &mut dyn FnMut(i32, i32, u32),
) -> (u32, Vec<Kid<G>>) {
    let ctx = workers[0].ctx;
    let mut root_kids = Vec::new();
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
/// is inside, `dfpn.rs`), or with [`Method::Mixed`] df-pn on the first
/// and iterative deepening of the test on the others; the first to answer
/// cancels the rest. Returns the intersection of the intervals they
/// proved, and the deepest iteration a deepening worker started.
fn pn_root_test<G: Searchable>(
    root: &G,
    root_key: u64,
    workers: &mut [Worker<G>],
    t: i32,
) -> (Iv, u32) {
    let ctx = workers[0].ctx;
    ctx.cancel.store(false, Relaxed);
    let results: Mutex<Vec<(Iv, u32)>> = Mutex::new(Vec::new());
    let mixed = ctx.limits.method == Method::Mixed;
    let answered = |iv: &Iv| iv.lo >= t || iv.hi < t;
    let job = |i: usize, w: &mut Worker<G>| {
        w.aborted = false;
        w.path.clear();
        let (iv, depth) = if mixed && i > 0 {
            w.deepen_root_test(root, root_key, t)
        } else {
            (w.mid(root, root_key, 0, t, PN_INF, PN_INF).iv, 0)
        };
        if answered(&iv) {
            w.ctx.cancel.store(true, Relaxed);
        }
        w.flush_nodes();
        results
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((iv, depth));
    };
    match workers {
        [w] => job(0, w),
        _ => std::thread::scope(|s| {
            for (i, w) in workers.iter_mut().enumerate() {
                s.spawn(move || job(i, w));
            }
        }),
    }
    let mut out = Iv {
        lo: -INF,
        hi: INF,
        rep: NONE_REP,
    };
    let mut depth = 0;
    for (iv, d) in results.into_inner().unwrap_or_else(|e| e.into_inner()) {
        out.lo = out.lo.max(iv.lo);
        out.hi = out.hi.min(iv.hi);
        depth = depth.max(d);
    }
    (out, depth)
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
    let root_cost = workers[0].ctx.limits.ply_cost.of(moves.len(), 0);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(queue: &mut MoveQueue, busy: &Busy) -> Vec<usize> {
        std::iter::from_fn(|| queue.next(busy, |i| i as u64)).collect()
    }

    #[test]
    fn a_move_queue_defers_the_moves_another_thread_is_inside() {
        let busy = Busy::new();
        busy.enter(0);
        busy.enter(2);
        busy.enter(3);
        // Move 0 is a pass's first, searched whoever is inside; 2 and 3
        // wait for the second pass, where 2 comes first and 3 waits again.
        let mut queue = MoveQueue::new(vec![0, 1, 2, 3, 4], true);
        assert_eq!(drain(&mut queue, &busy), vec![0, 1, 4, 2, 3]);
        let mut queue = MoveQueue::new(vec![3, 2, 1], false);
        assert_eq!(drain(&mut queue, &busy), vec![3, 2, 1]);
        busy.leave(2);
        busy.leave(3);
        let mut queue = MoveQueue::new(vec![0, 2, 3], true);
        assert_eq!(drain(&mut queue, &busy), vec![0, 2, 3]);
    }
}
