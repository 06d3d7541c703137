//! The exact Kiothi prover (`sow solve '<kiothi position>'`): proved bounds
//! on the value `V` of a late position (RULES §0: the future margin for
//! the mover), exact when they meet.
//!
//! - The root driver (`root.rs`) narrows a proved interval `[lo, hi]` by
//!   null-window tests `V ≥ t`, MTD(f)-style from a first guess (a short
//!   engine search), until `lo = hi`.
//! - Each test is searched by depth-first proof-number search (`dfpn.rs`);
//!   iterative deepening (`deepening.rs`) takes over a test that df-pn
//!   leaves open (lines longer than its ply cap).
//! - Every interval returned is proved, also when a limit or Ctrl-C cuts a
//!   search short, so an interrupted proof still reports sound bounds: a
//!   position nobody searched lies in `[-B, B]` (`B` = warriors on the
//!   board), and a move capturing `g` is worth `g - V(child)`. Proved
//!   bounds go to a shared table (`bounds.rs`), valid at any depth; the
//!   endgame tables ([`ExactValues`]) give exact values where they apply.
//! - All threads run the same root test over the shared tables, passing
//!   over the moves another thread is inside (ABDADA, `busy.rs`); the first
//!   to answer cancels the others (`worker.rs`: what a thread owns).
//!
//! Repetitions (RULES §0, endless play scores 0 for the board): a position
//! that repeats one on the current line scores 0 there. A bound that rests
//! on a repetition of a position above the node depends on the line, so
//! it is not stored; under this first-repetition convention the root's
//! value is the game-theoretic value of the graph game. The tests compare
//! the prover with an exhaustive minimax under the same convention.
//!
//! The prover works for any [`Searchable`] game whose `search_moves` are
//! all its legal moves: a Kiothi opening turn (`search_moves` a selection)
//! is refused (`pipeline.rs`). `certificate.rs` checks a proof
//! independently; `bounds_file.rs` and `kept_bounds.rs` keep the bounds
//! from one run to the next.
//!
//! [`ExactValues`]: crate::search::exact_values::ExactValues
//! [`Searchable`]: crate::search::Searchable

pub mod bounds;
pub mod bounds_file;
mod busy;
pub mod certificate;
mod deepening;
mod dfpn;
pub mod kept_bounds;
mod line;
pub mod pipeline;
mod pn_table;
mod root;
mod slab;
mod worker;

pub use root::{prove, prove_with_tables};

/// Deepest iteration of the deepening search.
const MAX_DEPTH: u32 = 1000;

/// Larger than any bound (boards hold at most 128 stones).
const INF: i32 = 1 << 20;

/// No repetition took part: the result can be stored.
const NONE_REP: usize = usize::MAX;

/// The deepening search counts its depth budget in quarter plies
/// (`deepening::ply_cost`).
const UNIT: u32 = 4;

/// When to give up proving. `Default`: never (until exact or Ctrl-C).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ProveLimits {
    /// Node budget (all threads together).
    pub nodes: Option<u64>,
    /// Wall-clock budget in seconds.
    pub seconds: Option<f64>,
    /// Size of df-pn's table of proof numbers, in MiB (`None`: half the
    /// table of proved bounds). Many small proofs over one large bound
    /// table (`certificate.rs`) want a small one: the kernel zeroes every
    /// page a proof touches.
    pub pn_table_mb: Option<usize>,
    /// `Some(q)`: only whether `V ≤ q`. The first test is `V ≥ q + 1`, with
    /// no engine search for a first guess, and the proof ends once the
    /// question is answered (`certificate.rs` needs one bound of many
    /// children). `None`: the exact value.
    pub question: Option<i32>,
    /// Plies below the root past which df-pn leaves a line to iterative
    /// deepening (`None`: 240, far beyond the lines of a late game). A
    /// lower cap only serves to test that fallback: `Some(0)` leaves every
    /// test to it.
    pub pn_max_ply: Option<usize>,
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
    /// Deepest iteration the deepening search started (its budget in plies
    /// of full cost); 0 when df-pn answered every test.
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
