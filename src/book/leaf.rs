//! The value of a new book position: the engine's search with a fixed node
//! budget on one thread and an emptied transposition table, which makes it
//! a function of the position and the budget alone (the book is then
//! reproducible, whatever the number of threads valuing leaves side by side).

use std::cell::RefCell;
use std::sync::atomic::AtomicBool;

use super::dag::LeafValue;
use crate::game::Game;
use crate::games::kiothi::KiothiPosition;
use crate::search::{search_with, Limits, NoTables, TranspositionTable};

/// Transposition table entries per node of the budget: the search stores
/// at most one entry per node, so the table never overflows.
const TT_ENTRIES_PER_NODE: usize = 2;

/// Bytes of one table entry.
const TT_ENTRY_BYTES: usize = 16;

thread_local! {
    /// Each thread's table, emptied before each search.
    static TABLE: RefCell<Option<(usize, TranspositionTable)>> = const { RefCell::new(None) };
}

/// The search's table size for a budget of `nodes`, in MiB (at least 1).
fn table_mb(nodes: u64) -> usize {
    let bytes = (nodes as usize)
        .saturating_mul(TT_ENTRIES_PER_NODE * TT_ENTRY_BYTES)
        .min(1 << 30);
    bytes.div_ceil(1 << 20).max(1)
}

/// `pos` valued: the end of the game's margin if it is over, else the
/// engine's search of `nodes` nodes (RULES §0 value for the mover).
pub fn value_leaf(pos: &KiothiPosition, nodes: u64) -> LeafValue {
    if pos.is_over() {
        return LeafValue {
            value: pos.terminal_value(),
            depth: 0,
            terminal: true,
            nodes: 0,
        };
    }
    let mb = table_mb(nodes);
    TABLE.with(|cell| {
        let mut slot = cell.borrow_mut();
        match slot.as_ref() {
            Some((size, tt)) if *size == mb => tt.clear(),
            _ => *slot = Some((mb, TranspositionTable::new(mb))),
        }
        let tt = &slot.as_ref().expect("just set").1;
        let never = AtomicBool::new(false);
        let r = search_with(
            pos,
            &Limits::nodes(nodes.max(1)),
            1,
            tt,
            &NoTables,
            &never,
            &mut |_| {},
        );
        LeafValue {
            value: r.value,
            depth: r.depth,
            terminal: false,
            nodes: r.nodes,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::kiothi::Setup;

    /// The value depends on the position and the budget alone: not on the
    /// searches the thread did before, nor on the thread.
    #[test]
    fn a_leaf_is_valued_alike_whatever_came_before() {
        let start = KiothiPosition::start(Setup::SixPit);
        let pos = start.play("4+5>0,0,1,1,2,2,3,3,9,9").unwrap();
        let fresh = std::thread::spawn(move || value_leaf(&pos, 3000))
            .join()
            .unwrap();
        let _ = value_leaf(&start, 5000);
        let _ = value_leaf(&pos, 200);
        assert_eq!(value_leaf(&pos, 3000), fresh);
        assert!(fresh.depth >= 1 && !fresh.terminal);
    }
}
