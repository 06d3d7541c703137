//! Exact values of late positions (`sow solve '<kiothi position>'`).
//!
//! # Method
//! Null-window tests over proved bounds, driven MTD(f)-style inside
//! iterative deepening:
//!
//! - A **test** `V ≥ t?` at depth `d` returns an interval `[lo, hi]` that
//!   is *proved* to hold the true value `V` (RULES §0: the future margin
//!   for the mover). It answers the test when `lo ≥ t` or `hi < t`, and is
//!   inconclusive otherwise. Nothing is estimated: a non-terminal position
//!   at the horizon is only known to lie in `[-B, B]` (`B` = stones on the
//!   board, all a player can still gain or lose), and a move capturing `g`
//!   stones is worth `g - V(child)`, so captures along the line narrow the
//!   bounds exactly. Every interval any call returns is sound, also when a
//!   node cap or Ctrl-C cuts a test short: that is what lets an interrupted
//!   solve print proved lower and upper bounds.
//! - Proved bounds go to a shared
//!   [`BoundTable`](super::bounds::BoundTable), valid at every depth, so
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
//!   being searched ([`Busy`](busy::Busy)), and a thread passes over the
//!   moves another thread is inside (all but a node's first move), coming
//!   back to them last, when their bounds are mostly proved. The first
//!   thread to answer the root's test cancels the others; every thread's
//!   bounds are sound, so they are all kept. Each thread keeps its own line
//!   (for repetitions), killers and history. (Sharing only the root's moves
//!   left one core idle when one move dominates, as it usually does.)
//!
//! - **Endgame tables** ([`prove_with_tables`],
//!   [`ExactValues`](super::exact_values::ExactValues); Kiothi's come from
//!   `kiothi_tables`): a position they cover is exact at once,
//!   found among the children before any search like a stored bound. df-pn
//!   starts a new node's numbers at (1 + its distance to the tables) times
//!   the usual ones, and in the deepening a capture that brings the board
//!   nearer them costs half a ply, so both go for the captures that reach
//!   the tables.
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
//! The prover works for any [`Searchable`](super::Searchable) game whose
//! `search_moves` are all the legal moves. A Kiothi opening (hundreds of
//! millions of moves, of which `search_moves` is a selection) cannot be
//! proved: the command refuses it.
//!
//! # Files
//! - `prove/root.rs`: the root driver ([`prove_with_tables`]): the tests
//!   from a first guess until the value is exact, the best move and line.
//! - `prove/dfpn.rs`: one test by proof numbers.
//! - `prove/deepening.rs`: one test by iterative deepening.
//! - `prove/worker.rs`: a thread's state and what both methods do at a
//!   node (its children's known bounds, their order, storing a result).
//! - `prove/busy.rs`: how the threads share nodes (ABDADA).

pub mod bounds;
pub mod bounds_file;
mod busy;
pub mod certificate;
mod deepening;
mod dfpn;
mod line;
mod pn_table;
mod root;
mod slab;
mod worker;

pub use root::{prove, prove_with_tables};

/// Deepest iteration: far beyond any Kiothi late game.
pub const MAX_DEPTH: u32 = 1000;

/// Larger than any bound (boards hold at most 128 stones).
const INF: i32 = 1 << 20;

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
