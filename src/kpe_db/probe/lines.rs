//! Lines of perfect play from a position of a solved variant: a line that
//! ends the game where perfect play can end (a search over value-keeping
//! moves through positions that can end, `endless.rs`), else the first
//! best move each time until the game ends or a position repeats.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use super::layers::{Layers, LazyLayer};
use super::solution::{MoveEntry, Solution};
use crate::games::kpe::{KpeMove, KpePosition};
use crate::kpe_db::entry::entry_value;
use crate::kpe_db::error::SolveError;
use crate::kpe_db::region::LockedRegion;
use crate::Game;

/// Positions [`Solution::ending_line`] visits before it gives up, a few
/// probes each: a bound on its time (from the standard game's start it
/// finds a line of 147 moves).
pub const ENDING_LINE_NODES: usize = 100_000;

impl Solution {
    /// Perfect play from `pos`, at most `max_len` moves: where perfect
    /// play can end ([`Self::can_end`]), a line of value-keeping moves that
    /// ends the game ([`Self::ending_line`]); otherwise (or if that search
    /// gives up) the first best move each time until the game ends or a
    /// position repeats (the repeating line is endless play).
    ///
    /// The first best move alone can cycle where perfect play could end:
    /// from the start of the standard game it repeated after 357 moves,
    /// while the search finds an ending line of 147 in milliseconds.
    pub fn principal_variation(
        &self,
        pos: &KpePosition,
        extra: Option<&LockedRegion>,
        max_len: usize,
    ) -> Result<Vec<KpeMove>, SolveError> {
        self.opening_layers_below(pos, || self.principal_variation_here(pos, extra, max_len))
    }

    /// Runs `op` while another thread opens the layer files of at most
    /// `pos`'s stones not open yet, largest first, until `op` returns. A
    /// line from `pos` can only enter those layers, largest first; opening
    /// one reads its block table whole (up to 0.8 MB on the standard
    /// game), which a probe would otherwise wait for the first time the
    /// line enters it. From a cold page cache these reads then overlap the
    /// line's own probes of the locked region, which mostly wait for the
    /// disk too.
    fn opening_layers_below<R>(&self, pos: &KpePosition, op: impl FnOnce() -> R) -> R {
        let Layers::Mapped(files) = self.layers() else {
            return op();
        };
        let top = (pos.board_total() as usize).min(files.len() - 1);
        let closed: Vec<&LazyLayer> = (files[..=top].iter().rev().flatten())
            .filter(|layer| !layer.is_open())
            .collect();
        if closed.is_empty() {
            return op();
        }
        let done = AtomicBool::new(false);
        std::thread::scope(|scope| {
            // Without a thread (the system refused one), each layer is
            // opened when the line first enters it.
            let _ = std::thread::Builder::new()
                .name("open-layers".into())
                .spawn_scoped(scope, || {
                    for layer in closed {
                        if done.load(Relaxed) {
                            break;
                        }
                        // A file that fails to open is reported by the
                        // probe that needs it.
                        let _ = layer.file();
                    }
                });
            let out = op();
            done.store(true, Relaxed);
            out
        })
    }

    /// [`Self::principal_variation`], the layers' opening aside.
    fn principal_variation_here(
        &self,
        pos: &KpePosition,
        extra: Option<&LockedRegion>,
        max_len: usize,
    ) -> Result<Vec<KpeMove>, SolveError> {
        let (mut value, can_end) = self.value_and_can_end(pos, extra)?;
        if can_end {
            if let Some(line) = self.ending_line_from(pos, value, extra, max_len)? {
                return Ok(line);
            }
        }
        // The first best move (in move order) each time.
        let mut line = Vec::new();
        let mut seen = hashbrown::HashSet::new();
        let mut at = *pos;
        while line.len() < max_len && seen.insert(at.repetition_key()) {
            let mut moves = Candidates::in_move_order(&at);
            let Some(best) = self.next_keeping(&mut moves, value, false, extra)? else {
                break;
            };
            line.push(best.mv);
            at = best.child;
            value = entry_value(best.entry) as i32;
        }
        Ok(line)
    }

    /// A line of at most `max_len` value-keeping moves from `pos` to the
    /// end of the game through positions that can end, if `pos` can end:
    /// a depth-first search that never enters a position twice, captures
    /// first (they bring the end nearer), then in pit order. Every
    /// position that can end has a value-keeping move into another that
    /// can, or ends the game itself (`endless.rs`), so the search reaches
    /// the end unless the line would be longer than `max_len` or it visits
    /// [`ENDING_LINE_NODES`] positions first (then None).
    pub fn ending_line(
        &self,
        pos: &KpePosition,
        extra: Option<&LockedRegion>,
        max_len: usize,
    ) -> Result<Option<Vec<KpeMove>>, SolveError> {
        match self.value_and_can_end(pos, extra)? {
            (value, true) => self.ending_line_from(pos, value, extra, max_len),
            (_, false) => Ok(None),
        }
    }

    /// [`Self::ending_line`] from `pos`, which can end and is worth `value`.
    fn ending_line_from(
        &self,
        pos: &KpePosition,
        value: i32,
        extra: Option<&LockedRegion>,
        max_len: usize,
    ) -> Result<Option<Vec<KpeMove>>, SolveError> {
        let mut visited = hashbrown::HashSet::new();
        visited.insert(pos.repetition_key());
        let mut stack = vec![EndingFrame::new(*pos, value)];
        for _ in 0..ENDING_LINE_NODES {
            let depth = stack.len();
            let Some(frame) = stack.last_mut() else {
                return Ok(None);
            };
            if frame.at.is_over() {
                let line = (stack[..depth - 1].iter())
                    .map(|f| f.played.expect("each frame below the top played a move"))
                    .collect();
                return Ok(Some(line));
            }
            if depth > max_len {
                stack.pop();
                continue;
            }
            let Some(next) = self.next_keeping(&mut frame.moves, frame.value, true, extra)? else {
                stack.pop();
                continue;
            };
            frame.played = Some(next.mv);
            if visited.insert(next.child.repetition_key()) {
                stack.push(EndingFrame::new(next.child, entry_value(next.entry) as i32));
            }
        }
        Ok(None)
    }

    /// The next of `moves` that keeps `value` (the value of their position
    /// for its mover) and, if `must_end`, leads to a position that can end,
    /// with its child's entry; None when there are no more. The children
    /// are probed one at a time, in the order of `moves`, only until one
    /// qualifies: the position's own value says which moves keep it
    /// without the others' values. From a cold page cache a line then
    /// waits for about half the reads of probing every child
    /// (`results/BENCHMARKS.md`).
    fn next_keeping(
        &self,
        moves: &mut Candidates,
        value: i32,
        must_end: bool,
        extra: Option<&LockedRegion>,
    ) -> Result<Option<MoveEntry>, SolveError> {
        while let Some(&(mv, child, gained)) = moves.moves.get(moves.next) {
            moves.next += 1;
            let entry = self.entry(&child, extra)?;
            let candidate = MoveEntry {
                mv,
                child,
                gained,
                entry,
            };
            if candidate.value() == value && (!must_end || candidate.child_can_end()) {
                return Ok(Some(candidate));
            }
        }
        Ok(None)
    }
}

/// A position's legal moves with their children and captures, in the
/// order a line tries them, and how many were tried
/// ([`Solution::next_keeping`]).
struct Candidates {
    moves: Vec<(KpeMove, KpePosition, u32)>,
    next: usize,
}

impl Candidates {
    fn sorted_by<K: Ord>(at: &KpePosition, key: impl Fn(KpeMove, u32) -> K) -> Self {
        let mut moves: Vec<_> = (at.legal_moves().into_iter())
            .map(|mv| {
                let (child, gained) = at.sow(mv.pit());
                (mv, child, gained)
            })
            .collect();
        moves.sort_by_key(|&(mv, _, gained)| key(mv, gained));
        Candidates { moves, next: 0 }
    }

    /// In move order (pit order).
    fn in_move_order(at: &KpePosition) -> Self {
        Self::sorted_by(at, |mv, _| mv)
    }

    /// The largest captures first (they bring the end nearer), then in
    /// pit order.
    fn captures_first(at: &KpePosition) -> Self {
        Self::sorted_by(at, |mv, gained| (std::cmp::Reverse(gained), mv))
    }
}

/// A position on [`Solution::ending_line`]'s search stack.
struct EndingFrame {
    at: KpePosition,
    /// The position's exact value for its mover.
    value: i32,
    /// Its moves in the order the search tries them.
    moves: Candidates,
    /// The move last taken from here (to the frame above on the stack).
    played: Option<KpeMove>,
}

impl EndingFrame {
    fn new(at: KpePosition, value: i32) -> Self {
        EndingFrame {
            at,
            value,
            moves: Candidates::captures_first(&at),
            played: None,
        }
    }
}
