//! Growing the book best-first, by drop-out expansion (Lincke 2000; Fuego's
//! book builder does the same on a graph of positions): every leaf has an
//! expansion cost, the least over the paths from the root of the sum of a
//! depth penalty per ply and of how far each move on the path falls below
//! its position's best move ([`Dag::costs`]). The cheapest leaves are
//! expanded: their children are added and valued by the engine, and the
//! values are backed up by minimax.
//!
//! At turns 1 and 2 the children come from a [`MoveProvider`], `width` at a
//! time: an opening node that has them all valued may be *widened* (asked
//! for `width` more), at the cost of a leaf whose move would fall as far
//! below the best as its `width`-th best move does now; a node whose good
//! moves turn out worse on deepening is widened sooner.
//!
//! Work goes in batches: the `batch` cheapest expansions (ties broken by a
//! hash of the seed and the position) are planned, their new positions
//! valued in parallel, then added in a fixed order. A batch depends on the
//! book alone, so the same parameters give the same book on any number of
//! threads; a batch cut short by Ctrl-C is dropped whole, so a resumed book
//! goes on exactly where an uninterrupted one would.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use hashbrown::HashSet;
use rayon::prelude::*;

use super::dag::{LeafValue, NodeId, NodeState};
use super::leaf::value_leaf;
use super::provider::MoveProvider;
use super::state::{BookState, BuildParams};
use crate::game::Game;
use crate::games::kiothi::{KiothiMove, KiothiPosition};
use crate::infra::rng::splitmix64;

/// When a run of [`grow`] stops.
pub struct RunLimits<'a> {
    /// Once the book counts this many expansions in all (not this run's).
    pub expansions: Option<u64>,
    /// At the first batch that ends after this instant.
    pub deadline: Option<Instant>,
    /// Ctrl-C: the batch under way is dropped.
    pub stop: &'a AtomicBool,
}

/// Why a run of [`grow`] stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// Nothing is left to expand (every node within `max_ply` expanded,
    /// every provider exhausted).
    Complete,
    /// The book reached the expansions asked for.
    Expansions,
    /// The time was up.
    Deadline,
    /// Ctrl-C.
    Interrupted,
}

impl Stopped {
    pub fn token(self) -> &'static str {
        match self {
            Stopped::Complete => "complete",
            Stopped::Expansions => "expansions",
            Stopped::Deadline => "budget",
            Stopped::Interrupted => "interrupted",
        }
    }
}

/// A new book: its root valued, nothing expanded.
pub fn new_book(
    root: KiothiPosition,
    params: BuildParams,
    provider: &dyn MoveProvider,
) -> BookState {
    let v = value_leaf(&root, params.leaf_nodes);
    BookState::new(root, v, params, provider.name())
}

/// What one expansion does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Work {
    /// A leaf gets its children.
    Expand(NodeId),
    /// An opening node gets `width` more moves from the provider.
    Widen(NodeId),
}

impl Work {
    fn node(self) -> NodeId {
        match self {
            Work::Expand(id) | Work::Widen(id) => id,
        }
    }
}

/// An expansion planned: the moves it adds, and the provider's state after it.
struct Plan {
    work: Work,
    moves: Vec<(KiothiMove, KiothiPosition)>,
    asked: u32,
    exhausted: bool,
}

/// Grows `book` by batches until a limit of `limits`; `after_batch` sees
/// the book after every batch (checkpoints, progress) and may stop the run
/// with an error.
pub fn grow<E>(
    book: &mut BookState,
    provider: &dyn MoveProvider,
    limits: &RunLimits,
    after_batch: &mut dyn FnMut(&BookState) -> Result<(), E>,
) -> Result<Stopped, E> {
    let mut order = book.dag.post_order();
    book.dag.back_up(&order);
    loop {
        if limits.stop.load(Ordering::SeqCst) {
            return Ok(Stopped::Interrupted);
        }
        if limits.expansions.is_some_and(|n| book.expansions >= n) {
            return Ok(Stopped::Expansions);
        }
        if limits.deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(Stopped::Deadline);
        }
        let work = choose(book, &order);
        if work.is_empty() {
            return Ok(Stopped::Complete);
        }
        match run_batch(book, provider, &work, limits.stop) {
            Some(()) => {}
            None => return Ok(Stopped::Interrupted),
        }
        order = book.dag.post_order();
        book.dag.back_up(&order);
        after_batch(book)?;
    }
}

/// The batch's expansions: the `batch` cheapest, cheapest first.
fn choose(book: &BookState, order: &[NodeId]) -> Vec<Work> {
    let p = &book.params;
    let (cost, ply) = book.dag.costs(order, p.depth_penalty as u64);
    let mut candidates: Vec<(u64, u64, Work)> = Vec::new();
    for &id in order {
        let node = book.dag.node(id);
        if ply[id as usize] >= p.max_ply {
            continue;
        }
        let c = cost[id as usize];
        let work = match node.state {
            NodeState::Leaf if !node.exhausted => (c, Work::Expand(id)),
            NodeState::Expanded if node.is_opening() && !node.exhausted => {
                (widening_cost(book, id, c), Work::Widen(id))
            }
            _ => continue,
        };
        candidates.push((work.0, tie_break(p.seed, &node.pos), work.1));
    }
    let k = (p.batch.max(1) as usize).min(candidates.len());
    if k == 0 {
        return Vec::new();
    }
    let key = |c: &(u64, u64, Work)| (c.0, c.1, c.2.node());
    candidates.select_nth_unstable_by_key(k - 1, key);
    candidates.truncate(k);
    candidates.sort_unstable_by_key(key);
    candidates.into_iter().map(|c| c.2).collect()
}

/// The cost of widening the opening node `id` (reached at cost `c`): that
/// of a new move falling below the best as far as the node's `width`-th
/// best move (its worst, when it has fewer).
fn widening_cost(book: &BookState, id: NodeId, c: u64) -> u64 {
    let node = book.dag.node(id);
    let mut values: Vec<i32> = node.edges.iter().map(|e| book.dag.move_value(e)).collect();
    let k = (book.params.width.max(1) as usize).min(values.len());
    let estimate = match k {
        0 => node.value as i32,
        _ => *values.select_nth_unstable_by(k - 1, |a, b| b.cmp(a)).1,
    };
    let drop = (node.value as i32 - estimate).max(0) as u64;
    c + book.params.depth_penalty as u64 + drop
}

/// A seeded hash of `pos` (its packed fields, each word mixed by
/// splitmix64): the order of expansions of equal cost.
fn tie_break(seed: u64, pos: &KiothiPosition) -> u64 {
    let pits = pos.pits();
    let [s, n] = pos.prisons();
    let last = pos.protected() as u64
        | (s as u64) << 24
        | (n as u64) << 40
        | (pos.side().index() as u64) << 56
        | (pos.is_opening() as u64) << 57;
    let words = pits.chunks(8).map(|chunk| {
        let mut w = [0u8; 8];
        w[..chunk.len()].copy_from_slice(chunk);
        u64::from_le_bytes(w)
    });
    words
        .chain([last])
        .fold(seed ^ 0x626f_6f6b_7469_6573, |h, w| {
            let mut state = h ^ w;
            splitmix64(&mut state)
        })
}

/// Plans `work`, values its new positions in parallel and adds them.
/// `None` (the book untouched) when `stop` was set before the last search.
fn run_batch(
    book: &mut BookState,
    provider: &dyn MoveProvider,
    work: &[Work],
    stop: &AtomicBool,
) -> Option<()> {
    let plans: Vec<Plan> = work.par_iter().map(|&w| plan(book, provider, w)).collect();
    // New positions, each once, in the order the plans name them.
    let mut fresh: Vec<KiothiPosition> = Vec::new();
    let mut seen = HashSet::new();
    for (_, child) in plans.iter().flat_map(|p| &p.moves) {
        if book.dag.find(child).is_none() && seen.insert(*child) {
            fresh.push(*child);
        }
    }
    let leaf_nodes = book.params.leaf_nodes;
    let values: Vec<Option<LeafValue>> = fresh
        .par_iter()
        .map(|pos| (!stop.load(Ordering::SeqCst)).then(|| value_leaf(pos, leaf_nodes)))
        .collect();
    if stop.load(Ordering::SeqCst) || values.iter().any(Option::is_none) {
        return None;
    }
    for (pos, v) in fresh.into_iter().zip(values.into_iter().flatten()) {
        book.engine_nodes += v.nodes;
        book.dag.add(pos, v);
    }
    for p in plans {
        apply(book, p);
    }
    book.expansions += work.len() as u64;
    book.batches += 1;
    Some(())
}

/// The moves `w` adds: every legal move of a position in play; the
/// provider's first `width` (or, widening, `width` more) at turns 1 and 2.
fn plan(book: &BookState, provider: &dyn MoveProvider, w: Work) -> Plan {
    let node = book.dag.node(w.node());
    let p = &book.params;
    if !node.is_opening() {
        let mut moves = Vec::new();
        let _ = node.pos.for_each_child(|mv, child| {
            moves.push((mv, child));
            ControlFlow::Continue(())
        });
        return Plan {
            work: w,
            moves,
            asked: 0,
            exhausted: false,
        };
    }
    let asked = match w {
        Work::Expand(_) => p.width,
        Work::Widen(_) => node.asked.saturating_add(p.width),
    };
    let mut moves = provider.opening_moves(&node.pos, asked as usize, p.seed);
    moves.truncate(asked as usize);
    let exhausted = moves.len() < asked as usize;
    for (mv, child) in &moves {
        assert!(
            node.pos.play_move(mv) == Some(*child),
            "move provider `{}`: {mv} is not a legal move to {child} from {}",
            provider.name(),
            node.pos
        );
    }
    // Widening: the moves the node has already are not new.
    let have: HashSet<NodeId> = node.edges.iter().map(|e| e.child).collect();
    moves.retain(|(_, child)| book.dag.find(child).is_none_or(|id| !have.contains(&id)));
    Plan {
        work: w,
        moves,
        asked,
        exhausted,
    }
}

/// Adds a planned expansion's edges (its new positions are in the book).
fn apply(book: &mut BookState, p: Plan) {
    let id = p.work.node();
    let moves: Vec<(KiothiMove, NodeId)> = p
        .moves
        .iter()
        .map(|(mv, child)| (*mv, book.dag.find(child).expect("valued before")))
        .collect();
    book.dag.link_all(id, &moves);
    let node = book.dag.node_mut(id);
    if node.is_opening() {
        node.asked = p.asked;
        node.exhausted = p.exhausted;
    }
    if node.state == NodeState::Leaf {
        if node.edges.is_empty() {
            // A provider with nothing to give: the leaf keeps its value.
            node.exhausted = true;
        } else {
            node.state = NodeState::Expanded;
        }
    }
}
