//! The book as it is built and stored: the parameters that fix its
//! construction, its counters and its graph.

use super::dag::Dag;
use super::provider::PROVIDER_NAME_LEN;
use crate::games::kiothi::{KiothiPosition, Setup};

/// What fixes a book's construction: with the same parameters and the same
/// provider, the same number of expansions gives the same book, byte for
/// byte, whatever the number of threads and however often it was stopped
/// and resumed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildParams {
    /// Breaks ties between equally urgent expansions, and is passed to the provider.
    pub seed: u64,
    /// Engine nodes per leaf search.
    pub leaf_nodes: u64,
    /// Expansions chosen together, then valued in parallel.
    pub batch: u32,
    /// Moves asked of the provider at a new opening node, and added by each widening.
    pub width: u32,
    /// Drop-out expansion's depth penalty, in warriors per ply: one ply
    /// deeper costs as much as a move this much worse than the best. 0 is
    /// plain best-first; a large value, breadth-first.
    pub depth_penalty: u32,
    /// Nodes this many plies from the start (turn 1 is ply 0) are not
    /// expanded: the book covers turns 1 and 2 and `max_ply - 2` plies of play.
    pub max_ply: u32,
}

impl Default for BuildParams {
    fn default() -> Self {
        BuildParams {
            seed: 1,
            leaf_nodes: 50_000,
            batch: 8,
            width: 16,
            depth_penalty: 3,
            max_ply: 12,
        }
    }
}

/// How a setup is written in the book's header: 1 six-pit, 2 five-pit, 0
/// another board (tests).
pub fn setup_code(root: &KiothiPosition) -> u8 {
    if *root == KiothiPosition::start(Setup::SixPit) {
        1
    } else if *root == KiothiPosition::start(Setup::FivePit) {
        2
    } else {
        0
    }
}

/// The book: parameters, counters, graph.
#[derive(Clone, Debug)]
pub struct BookState {
    pub params: BuildParams,
    /// The provider of its opening moves (`MoveProvider::name`).
    pub provider: String,
    pub dag: Dag,
    /// Expansions done: leaves expanded and opening nodes widened.
    pub expansions: u64,
    /// Batches done.
    pub batches: u64,
    /// Engine nodes of the leaves' searches, counted to the end of each
    /// one's last completed iteration (the node limit stops the next).
    pub engine_nodes: u64,
}

impl BookState {
    /// A book of one leaf, `root`, valued by `root_value`.
    pub fn new(
        root: KiothiPosition,
        root_value: super::dag::LeafValue,
        params: BuildParams,
        provider: &str,
    ) -> BookState {
        assert!(
            provider.len() <= PROVIDER_NAME_LEN,
            "provider name too long"
        );
        BookState {
            params,
            provider: provider.to_string(),
            dag: Dag::new(root, root_value),
            expansions: 0,
            batches: 0,
            engine_nodes: root_value.nodes,
        }
    }

    /// The start position the book grows from.
    pub fn root(&self) -> &KiothiPosition {
        &self.dag.root().pos
    }
}
