//! An independent check of what the prover proved: its bounds
//! are re-derived move by move, down to the end of the game, the endgame
//! tables or a repetition, by a plain recursion that trusts nothing but
//! the rules (every legal move, `capture_gain`, `terminal_value`)
//! and the exact values it is given.
//!
//! # What is checked
//! `V ≥ t` holds at a position when one move `m` capturing `g` leads to a
//! child with `V(child) ≤ g − t`; `V ≤ t` when every move leads to a child
//! with `V(child) ≥ g − t` (RULES §0: the value is the future margin for
//! the mover). The two together, followed from the root until every line
//! ends, form a *certificate*: the set of positions whose tests prove the
//! bounds. The prover's table of proved bounds ([`BoundTable`]) only
//! chooses which move to follow where one is enough; a wrong bound in it
//! cannot make the check pass, only fail. Where the table has lost the
//! bound of every suitable move (evicted, or never stored because it rested
//! on a repetition), the child is proved again on one thread over the same
//! table (only the bound needed, `ProveLimits::question`), and then
//! checked like the rest.
//!
//! Leaves, as the prover scores them: a position with no move (its final
//! sweep, RULES §2.10), one the exact values cover (endgame tables), a
//! position that repeats one on the current line (0: the first repetition
//! stands for endless play, the prover's convention), and any test the
//! board's warriors settle alone (the value lies in `[-B, B]`).
//!
//! A position checked once is remembered with the test it passed, under its
//! Zobrist key and a second, independent hash of the whole position (a
//! collision of both is not a concern at any size reached here). As in the
//! prover, a result that rests on a repetition of a position above it is
//! not remembered, since another line may reach the position without it.
//!
//! The threads share the moves of every-move tests near the root, each on a
//! copy of the line, and one memo; where one test is reached by several,
//! whichever finishes first is remembered, so the counts may differ from
//! run to run, never the verdict on a sound proof. The memo can be given a
//! limit (the memory left when the check starts): past it the check stops
//! with [`CertificateError::TooLarge`] rather than abort on allocation.

use std::hash::{DefaultHasher, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

use hashbrown::HashMap;
use rayon::prelude::*;
use thiserror::Error;

use super::bounds::BoundTable;
use super::line::Line;
use super::{prove_with_tables, ProveLimits, NONE_REP};
use crate::search::exact_values::ExactValues;
use crate::search::Searchable;

/// Positions between two calls of the progress callback.
const PROGRESS_EVERY: u64 = 1 << 20;
/// df-pn's table for a child proved again, in MiB: such proofs are many
/// and mostly small, and with the default (half the bound table, gigabytes
/// for a long proof) the kernel spent most of the check zeroing fresh pages.
const REPROVE_PN_MB: usize = 8;
/// Inner positions between two looks at the stop flag.
const STOP_EVERY: u64 = 1 << 12;
/// A test of every move at a position this close to the root (positions
/// on the line) shares its moves among the threads; deeper, each thread
/// walks its share alone.
const SPLIT_DEPTH: usize = 12;
/// Locks of the memo: enough that threads seldom wait on one another.
const MEMO_SHARDS: usize = 64;
/// What one remembered position may cost, in bytes: its key and bounds
/// (24), the hash map's control byte and free slots, and the copy while
/// its shard doubles.
pub const MEMO_BYTES_PER_POSITION: u64 = 64;
/// Stack of each checking thread: the walk recurses once per ply of its
/// longest line, and a child proved again recurses in df-pn below that.
/// Reserved, touched only as deep as the walk goes.
const STACK: usize = 1 << 30;

/// How the check may run: its threads, and the most positions its memo may
/// hold (`None`: no limit).
#[derive(Clone, Copy, Debug)]
pub struct CheckLimits {
    pub threads: usize,
    pub max_positions: Option<u64>,
}

impl CheckLimits {
    /// The positions a memo of `mib` MiB holds ([`MEMO_BYTES_PER_POSITION`]).
    pub fn positions_in(mib: u64) -> u64 {
        (mib << 20) / MEMO_BYTES_PER_POSITION
    }
}

/// What the check went through.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct CertificateReport {
    /// The bounds checked: `lower ≤ V ≤ upper`.
    pub lower: i32,
    pub upper: i32,
    /// Distinct positions whose test the certificate holds (its inner
    /// nodes).
    pub positions: u64,
    /// Leaves reached (counted each time): endgame-table positions, ends of
    /// the game, repetitions on the line.
    pub table_leaves: u64,
    pub game_ends: u64,
    pub repetitions: u64,
    /// Children proved again because the table had lost their bounds.
    pub reproved: u64,
    pub seconds: f64,
}

impl CertificateReport {
    /// Adds the leaves and proofs another thread's walk counted.
    fn absorb(&mut self, other: &CertificateReport) {
        self.table_leaves += other.table_leaves;
        self.game_ends += other.game_ends;
        self.repetitions += other.repetitions;
        self.reproved += other.reproved;
    }
}

/// Why the check did not pass.
#[derive(Debug, Error)]
pub enum CertificateError {
    /// A bound the prover claimed has no certificate: the prover or the
    /// exact values are wrong.
    #[error("the proved bound V {relation} {t} of {position} has no certificate")]
    NoCertificate {
        position: String,
        /// `≥` or `≤`.
        relation: &'static str,
        t: i32,
    },
    /// The stop flag was set before the check ended.
    #[error("the check was stopped before it ended")]
    Stopped,
    /// The memo reached [`CheckLimits::max_positions`] before the check
    /// ended.
    #[error("the check was stopped at its limit of {positions} positions")]
    TooLarge { positions: u64 },
    /// The checking threads could not be started.
    #[error("starting the check's threads: {0}")]
    Threads(String),
}

/// Checks `lower ≤ V(root) ≤ upper`, the bounds a proof over `table` found,
/// on `limits.threads` threads of their own. `progress` is called with the
/// count of positions checked so far, now and then, from any of them;
/// `stop` (Ctrl-C) ends the check early.
pub fn check_bounds<G: Searchable>(
    root: &G,
    (lower, upper): (i32, i32),
    table: &BoundTable,
    exact: &dyn ExactValues<G>,
    limits: &CheckLimits,
    stop: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<CertificateReport, CertificateError> {
    let start = Instant::now();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(limits.threads.max(1))
        .stack_size(STACK)
        .thread_name(|i| format!("verify-{i}"))
        .build()
        .map_err(|e| CertificateError::Threads(e.to_string()))?;
    let shared = Shared {
        table,
        exact,
        memo: Memo::new(),
        stop,
        full: AtomicBool::new(false),
        max_positions: limits.max_positions.unwrap_or(u64::MAX),
        progress,
    };
    let mut walk = Walk {
        shared: &shared,
        path: Line::default(),
        report: CertificateReport {
            lower,
            upper,
            ..CertificateReport::default()
        },
        visits: 0,
    };
    let key = root.zobrist();
    let failed = |relation, t| {
        if shared.full.load(Relaxed) {
            CertificateError::TooLarge {
                positions: shared.max_positions,
            }
        } else if stop.load(Relaxed) {
            CertificateError::Stopped
        } else {
            CertificateError::NoCertificate {
                position: root.to_string(),
                relation,
                t,
            }
        }
    };
    if pool.install(|| walk.at_least(root, key, lower)).is_none() {
        return Err(failed("≥", lower));
    }
    if pool.install(|| walk.at_most(root, key, upper)).is_none() {
        return Err(failed("≤", upper));
    }
    let mut report = walk.report;
    report.positions = shared.memo.len();
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}

/// What every thread of the check shares.
struct Shared<'a, G: Searchable> {
    table: &'a BoundTable,
    exact: &'a dyn ExactValues<G>,
    memo: Memo,
    stop: &'a AtomicBool,
    /// Set when the memo reached `max_positions`.
    full: AtomicBool,
    max_positions: u64,
    progress: &'a (dyn Fn(u64) + Sync),
}

/// Position ([`identity`]) → the highest `t` with `V ≥ t` and the lowest
/// with `V ≤ t` checked for it.
type MemoShard = HashMap<(u64, u64), (i32, i32)>;

/// The memo, in shards under locks of their own.
struct Memo {
    shards: Vec<Mutex<MemoShard>>,
    len: AtomicU64,
}

impl Memo {
    fn new() -> Memo {
        Memo {
            shards: (0..MEMO_SHARDS).map(|_| Mutex::default()).collect(),
            len: AtomicU64::new(0),
        }
    }

    fn shard(&self, id: (u64, u64)) -> MutexGuard<'_, MemoShard> {
        let shard = &self.shards[id.1 as usize % MEMO_SHARDS];
        // A thread that panicked holding the lock left a map that is still
        // whole (it only ever inserts or raises a bound).
        shard.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn get(&self, id: (u64, u64)) -> Option<(i32, i32)> {
        self.shard(id).get(&id).copied()
    }

    /// Applies `update` to the position's entry; the memo's new size when
    /// the position is new.
    fn update(&self, id: (u64, u64), update: impl FnOnce(&mut (i32, i32))) -> Option<u64> {
        let mut shard = self.shard(id);
        let mut added = None;
        let entry = shard.entry(id).or_insert_with(|| {
            added = Some(self.len.fetch_add(1, Relaxed) + 1);
            (i32::MIN, i32::MAX)
        });
        update(entry);
        added
    }

    fn len(&self) -> u64 {
        self.len.load(Relaxed)
    }
}

/// One thread's walk: the line it is on and what it counted.
struct Walk<'s, 'a, G: Searchable> {
    shared: &'s Shared<'a, G>,
    /// The current line: each position's key and the position.
    path: Line<G>,
    report: CertificateReport,
    /// Inner positions entered, for the stop checks.
    visits: u64,
}

/// How a test ended at a leaf, if it is one.
enum Leaf {
    /// Settled: passed or failed, with the repetition it rests on.
    Settled(bool, usize),
    /// Not a leaf: the moves must be followed.
    Inner,
}

impl<G: Searchable> Walk<'_, '_, G> {
    /// Checks `V(pos) ≥ t`; on success, the lowest line index of a
    /// repetition it rests on ([`NONE_REP`] for none above `pos`).
    fn at_least(&mut self, pos: &G, key: u64, t: i32) -> Option<usize> {
        if let Leaf::Settled(ok, rep) = self.leaf(pos, key, |v| v >= t, t <= -bound(pos)) {
            return ok.then_some(rep);
        }
        let id = identity(pos, key);
        if self.shared.memo.get(id).is_some_and(|(ge, _)| ge >= t) {
            return Some(NONE_REP);
        }
        if self.should_stop() {
            return None;
        }
        let moves = children(pos);
        if moves.is_empty() {
            return self.game_end(pos, |v| v >= t);
        }
        let depth = self.path.len();
        self.path.push(key, pos.clone());
        let rep = self.through_one_move(pos, key, &moves, t);
        self.path.pop();
        self.remember(id, depth, rep, |m| m.0 = m.0.max(t))
    }

    /// Checks `V(pos) ≤ t`, as [`Walk::at_least`].
    fn at_most(&mut self, pos: &G, key: u64, t: i32) -> Option<usize> {
        if let Leaf::Settled(ok, rep) = self.leaf(pos, key, |v| v <= t, t >= bound(pos)) {
            return ok.then_some(rep);
        }
        let id = identity(pos, key);
        if self.shared.memo.get(id).is_some_and(|(_, le)| le <= t) {
            return Some(NONE_REP);
        }
        if self.should_stop() {
            return None;
        }
        let moves = children(pos);
        if moves.is_empty() {
            return self.game_end(pos, |v| v <= t);
        }
        let depth = self.path.len();
        self.path.push(key, pos.clone());
        let rep = match depth < SPLIT_DEPTH && rayon::current_num_threads() > 1 {
            true => self.every_move_shared(pos, &moves, t),
            false => self.every_move(pos, &moves, t),
        };
        self.path.pop();
        self.remember(id, depth, rep, |m| m.1 = m.1.min(t))
    }

    /// `V(pos) ≤ t` through every move (`pos` on the line): each child
    /// `V(child) ≥ gain − t`, on this thread, stopping at the first that
    /// fails.
    fn every_move(&mut self, pos: &G, moves: &[G], t: i32) -> Option<usize> {
        let mut rep = NONE_REP;
        for child in moves {
            let gain = G::capture_gain(pos, child);
            rep = rep.min(self.at_least(child, child.zobrist(), gain - t)?);
        }
        Some(rep)
    }

    /// [`Walk::every_move`] with the moves shared among the threads, each
    /// on a copy of the line; a failed move keeps the others not yet begun
    /// from starting.
    fn every_move_shared(&mut self, pos: &G, moves: &[G], t: i32) -> Option<usize> {
        let failed = AtomicBool::new(false);
        let this = &*self;
        let results: Vec<(Option<usize>, CertificateReport)> = moves
            .par_iter()
            .map(|child| {
                let mut walk = this.fork();
                let gain = G::capture_gain(pos, child);
                let r = match failed.load(Relaxed) {
                    true => None,
                    false => walk.at_least(child, child.zobrist(), gain - t),
                };
                if r.is_none() {
                    failed.store(true, Relaxed);
                }
                (r, walk.report)
            })
            .collect();
        let mut rep = Some(NONE_REP);
        for (r, counted) in results {
            self.report.absorb(&counted);
            rep = rep.zip(r).map(|(a, b)| a.min(b));
        }
        rep
    }

    /// A walk for another thread, on a copy of this one's line.
    fn fork(&self) -> Self {
        Walk {
            shared: self.shared,
            path: self.path.clone(),
            report: CertificateReport::default(),
            visits: 0,
        }
    }

    /// A leaf's verdict on a test: `holds` applied to its value, or
    /// `trivial` (the board's warriors settle the test alone). The end of
    /// the game is found with the moves ([`Walk::game_end`]).
    fn leaf(&mut self, pos: &G, key: u64, holds: impl Fn(i32) -> bool, trivial: bool) -> Leaf {
        if trivial {
            return Leaf::Settled(true, NONE_REP);
        }
        if let Some(i) = self.on_line(key, pos) {
            self.report.repetitions += 1;
            return Leaf::Settled(holds(0), i);
        }
        if let Some(v) = self.shared.exact.exact_value(pos) {
            self.report.table_leaves += 1;
            return Leaf::Settled(holds(v), NONE_REP);
        }
        Leaf::Inner
    }

    /// Whether the check must end (looked at every [`STOP_EVERY`] inner
    /// positions).
    fn should_stop(&mut self) -> bool {
        self.visits += 1;
        self.visits.is_multiple_of(STOP_EVERY) && self.stopped()
    }

    /// Whether the stop flag is set or the memo is full.
    fn stopped(&self) -> bool {
        self.shared.stop.load(Relaxed) || self.shared.full.load(Relaxed)
    }

    /// A position with no move: its final sweep (RULES §2.10).
    fn game_end(&mut self, pos: &G, holds: impl Fn(i32) -> bool) -> Option<usize> {
        self.report.game_ends += 1;
        holds(pos.terminal_value()).then_some(NONE_REP)
    }

    /// `V(pos) ≥ t` through one move: a move whose child the table (or a
    /// leaf) bounds low enough, cheapest first, else a child proved again.
    fn through_one_move(&mut self, pos: &G, key: u64, moves: &[G], t: i32) -> Option<usize> {
        // Each child's key and the bound `V(child) ≤ need` that proves the
        // node through it, worked out once.
        let kids: Vec<(u64, i32)> = moves
            .iter()
            .map(|child| (child.zobrist(), G::capture_gain(pos, child) - t))
            .collect();
        let mut candidates: Vec<((u8, u8), usize)> = Vec::new();
        for (i, (child, &(ckey, need))) in moves.iter().zip(&kids).enumerate() {
            if let Some(cost) = self.known_at_most(child, ckey, need) {
                candidates.push((cost, i));
            }
        }
        candidates.sort();
        for &(_, i) in &candidates {
            let (ckey, need) = kids[i];
            if let Some(rep) = self.at_most(&moves[i], ckey, need) {
                return Some(rep);
            }
            if self.stopped() {
                return None;
            }
        }
        // The table lost the bounds that proved this node: prove the other
        // children again, the table's best move first.
        let best = self.shared.table.probe(key).and_then(|p| p.best);
        let tried: Vec<usize> = candidates.iter().map(|&(_, i)| i).collect();
        let mut order: Vec<usize> = (0..moves.len()).filter(|i| !tried.contains(i)).collect();
        order.sort_by_key(|&i| Some(i as u16) != best);
        for i in order {
            let (child, (ckey, need)) = (&moves[i], kids[i]);
            self.report.reproved += 1;
            // Only the bound this node needs of the child.
            let limits = ProveLimits {
                pn_table_mb: Some(REPROVE_PN_MB),
                question: Some(need),
                ..ProveLimits::default()
            };
            let proof = prove_with_tables(
                child,
                &limits,
                1,
                self.shared.table,
                self.shared.exact,
                self.shared.stop,
                &mut |_| {},
            );
            if self.stopped() {
                return None;
            }
            if proof.upper <= need {
                if let Some(rep) = self.at_most(child, ckey, need) {
                    return Some(rep);
                }
            }
        }
        None
    }

    /// Whether what is known bounds `V(child) ≤ need` without a search, and
    /// how cheap its check is likely to be, cheapest first: a leaf, a
    /// position already checked, then one the table bounds, by the work of
    /// the search that proved it (the walk follows that search's proof, so
    /// a small search leaves a small certificate).
    fn known_at_most(&self, child: &G, key: u64, need: i32) -> Option<(u8, u8)> {
        const LEAF: (u8, u8) = (0, 0);
        if need >= bound(child) {
            return Some(LEAF);
        }
        if self.on_line(key, child).is_some() {
            return (0 <= need).then_some(LEAF);
        }
        if let Some(v) = self.shared.exact.exact_value(child) {
            return (v <= need).then_some(LEAF);
        }
        if self
            .shared
            .memo
            .get(identity(child, key))
            .is_some_and(|(_, le)| le <= need)
        {
            return Some((1, 0));
        }
        if let Some((p, work)) = self.shared.table.probe_with_work(key) {
            return (p.hi <= need).then_some((2, work));
        }
        (child.is_over() && child.terminal_value() <= need).then_some(LEAF)
    }

    /// The line index of `pos` if it is on the current line.
    fn on_line(&self, key: u64, pos: &G) -> Option<usize> {
        self.path.position(key, |p| p == pos)
    }

    /// Remembers a passed test (`update` on the memo's entry) unless it
    /// rests on a repetition above the node at line index `depth`. A memo
    /// past its limit fails the test and stops the check.
    fn remember(
        &mut self,
        id: (u64, u64),
        depth: usize,
        rep: Option<usize>,
        update: impl FnOnce(&mut (i32, i32)),
    ) -> Option<usize> {
        let rep = rep?;
        if rep < depth {
            return Some(rep);
        }
        let shared = self.shared;
        if let Some(len) = shared.memo.update(id, update) {
            if len > shared.max_positions {
                shared.full.store(true, Relaxed);
                return None;
            }
            if len.is_multiple_of(PROGRESS_EVERY) {
                (shared.progress)(len);
            }
        }
        Some(NONE_REP)
    }
}

/// Every legal move's child, in move order (not `search_moves`, which may
/// be a selection: a refutation must answer every move).
fn children<G: Searchable>(pos: &G) -> Vec<G> {
    let mut out = Vec::new();
    let _ = pos.for_each_child(|_, child| {
        out.push(child);
        std::ops::ControlFlow::Continue(())
    });
    out
}

/// The most a player can still gain or lose: the warriors on the board.
fn bound<G: Searchable>(pos: &G) -> i32 {
    pos.board_total() as i32
}

/// The memo's key: the Zobrist key and a second hash of the whole position.
fn identity<G: Searchable>(pos: &G, key: u64) -> (u64, u64) {
    let mut h = DefaultHasher::new();
    pos.hash(&mut h);
    (key, h.finish())
}
