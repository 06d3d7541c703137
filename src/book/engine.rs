//! The engine's value of a play-phase position with a fixed node budget:
//! one thread and a transposition table of its own, emptied before every
//! search, so that the same position always gets the same value.

use std::sync::atomic::AtomicBool;

use crate::game::Game;
use crate::games::kiothi::KiothiPosition;
use crate::search::{search, Limits, TranspositionTable};

/// A position valued by the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Valued {
    /// RULES §0 future margin for the player to move.
    pub value: i32,
    /// Depth of the deepest completed iteration (0 when the game is over).
    pub depth: u32,
    /// Proven (every line ended inside the horizon).
    pub exact: bool,
    /// Nodes searched.
    pub nodes: u64,
}

/// Searches positions one after another with the same node budget.
pub struct EngineValuer {
    limits: Limits,
    tt: TranspositionTable,
}

impl EngineValuer {
    /// A valuer stopping each search after `nodes` nodes (the last
    /// completed iteration counts), with a table of about two entries per
    /// node.
    pub fn new(nodes: u64) -> EngineValuer {
        let buckets = (nodes as usize / 2).clamp(1024, 1 << 22);
        EngineValuer {
            limits: Limits::nodes(nodes.max(1)),
            tt: TranspositionTable::with_buckets(buckets),
        }
    }

    /// The node budget of each search.
    pub fn nodes(&self) -> u64 {
        self.limits.nodes.unwrap_or(0)
    }

    /// The value of `pos` for its player to move.
    pub fn value(&self, pos: &KiothiPosition) -> Valued {
        if pos.is_over() {
            return Valued {
                value: pos.terminal_value(),
                depth: 0,
                exact: true,
                nodes: 1,
            };
        }
        self.tt.clear();
        let stop = AtomicBool::new(false);
        let r = search(pos, &self.limits, 1, &self.tt, &stop, &mut |_| {});
        Valued {
            value: r.value,
            depth: r.depth,
            exact: r.exact,
            nodes: r.nodes,
        }
    }
}
