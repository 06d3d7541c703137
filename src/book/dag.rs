//! The book's graph: one node per position, so that transpositions share
//! their node and its work; an edge per move. Values follow RULES §0: a
//! node's value is the future margin for its player to move; a move is
//! worth, to its mover, the warriors it captures minus its child's value.
//!
//! A node is a *leaf* (valued by the engine, not expanded), *expanded*
//! (value backed up by minimax over its edges) or *terminal* (the game is
//! over: its value is exact). An edge that would close a cycle (the move
//! returns to a position from which its own node is reached) is kept but
//! marked `repeat`: valued 0, as the engine values a position already on
//! its line (RULES §0, endless play), and never followed, so the graph of
//! the other edges has no cycle.

use hashbrown::{HashMap, HashSet};

use crate::games::kiothi::{KiothiMove, KiothiPosition, Phase};
use crate::search::Searchable;

/// Index of a node; the root is 0.
pub type NodeId = u32;

/// What a node's value rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeState {
    /// Valued by the engine's search, not expanded.
    Leaf,
    /// Has edges; its value is their minimax.
    Expanded,
    /// The game is over (RULES §2.10): the value is exact.
    Terminal,
}

/// A value given to a new node: the engine's search (or the end of the game).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeafValue {
    /// RULES §0 future margin for the player to move.
    pub value: i32,
    /// Depth of the search that gave it (0 at the end of the game).
    pub depth: u32,
    /// The game is over in this position.
    pub terminal: bool,
    /// Nodes the search had visited when its last iteration completed.
    pub nodes: u64,
}

/// One position of the book.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub pos: KiothiPosition,
    pub state: NodeState,
    /// RULES §0 value for the player to move: the engine's for a leaf, the
    /// minimax of the edges for an expanded node.
    pub value: i16,
    /// A leaf's search depth; an expanded node's height: one more than its
    /// deepest child's depth.
    pub depth: u16,
    /// Opening positions: how many moves the provider has been asked for.
    pub asked: u32,
    /// Opening positions: the provider gave fewer moves than asked, so it
    /// has no more.
    pub exhausted: bool,
    pub edges: Vec<Edge>,
}

/// A move from a node to its child.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    pub mv: KiothiMove,
    pub child: NodeId,
    /// Warriors the move sent to its mover's prison (RULES §2.7–2.9).
    pub gain: u8,
    /// The move closes a cycle: valued 0 and not followed (see the module).
    pub repeat: bool,
}

/// The graph, and the index of its positions.
#[derive(Clone, Debug)]
pub struct Dag {
    nodes: Vec<Node>,
    index: HashMap<KiothiPosition, NodeId>,
}

/// The longest depth a node records.
const MAX_DEPTH: u32 = u16::MAX as u32;

fn clamp_value(v: i32) -> i16 {
    v.clamp(i16::MIN as i32, i16::MAX as i32) as i16
}

impl Node {
    /// A node for `pos`, valued by `v`.
    pub fn new(pos: KiothiPosition, v: LeafValue) -> Node {
        Node {
            pos,
            state: if v.terminal {
                NodeState::Terminal
            } else {
                NodeState::Leaf
            },
            value: clamp_value(v.value),
            depth: v.depth.min(MAX_DEPTH) as u16,
            asked: 0,
            exhausted: false,
            edges: Vec::new(),
        }
    }

    /// Whether this is a turn-1 or turn-2 position.
    pub fn is_opening(&self) -> bool {
        self.pos.phase() == Phase::Opening
    }
}

impl Dag {
    /// A graph of one leaf, the root.
    pub fn new(root: KiothiPosition, v: LeafValue) -> Dag {
        Dag::from_nodes(vec![Node::new(root, v)]).expect("one node")
    }

    /// A graph of `nodes` (the root first), indexed; `Err` with the first
    /// position held twice (two nodes, one position), or an edge to no node.
    pub fn from_nodes(nodes: Vec<Node>) -> Result<Dag, String> {
        if nodes.is_empty() {
            return Err("no root".into());
        }
        let mut index = HashMap::with_capacity(nodes.len());
        for (i, n) in nodes.iter().enumerate() {
            if index.insert(n.pos, i as NodeId).is_some() {
                return Err(format!("position {} is held by two nodes", n.pos));
            }
            if let Some(e) = n.edges.iter().find(|e| e.child as usize >= nodes.len()) {
                return Err(format!(
                    "node {i} has an edge to node {}, past the last",
                    e.child
                ));
            }
        }
        Ok(Dag { nodes, index })
    }

    pub fn root(&self) -> &Node {
        &self.nodes[0]
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    pub fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id as usize]
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Edges in all.
    pub fn edge_count(&self) -> usize {
        self.nodes.iter().map(|n| n.edges.len()).sum()
    }

    /// The node of `pos`, if the book holds it.
    pub fn find(&self, pos: &KiothiPosition) -> Option<NodeId> {
        self.index.get(pos).copied()
    }

    /// Adds a node for `pos` (which the book must not hold yet).
    pub fn add(&mut self, pos: KiothiPosition, v: LeafValue) -> NodeId {
        let id = self.nodes.len() as NodeId;
        let prev = self.index.insert(pos, id);
        assert!(prev.is_none(), "{pos} is already in the book");
        self.nodes.push(Node::new(pos, v));
        id
    }

    /// What the move of `e` is worth to the mover of its node.
    pub fn move_value(&self, e: &Edge) -> i32 {
        if e.repeat {
            e.gain as i32
        } else {
            e.gain as i32 - self.nodes[e.child as usize].value as i32
        }
    }

    /// The depth of the value of `e`'s move, seen from its node.
    pub fn move_depth(&self, e: &Edge) -> u32 {
        if e.repeat {
            1
        } else {
            self.nodes[e.child as usize].depth as u32 + 1
        }
    }

    /// Adds the move `mv` from `parent` to `child`, unless `parent` has an
    /// edge to `child` already (two moves to one position: the first is
    /// kept). Returns whether an edge was added.
    pub fn link(&mut self, parent: NodeId, mv: KiothiMove, child: NodeId) -> bool {
        self.link_all(parent, &[(mv, child)]) == 1
    }

    /// [`Self::link`] for each of `moves` in turn; returns how many edges
    /// were added. An edge is marked `repeat` when `parent` is reached
    /// from its child.
    pub fn link_all(&mut self, parent: NodeId, moves: &[(KiothiMove, NodeId)]) -> usize {
        let mut have: HashSet<NodeId> = self.nodes[parent as usize]
            .edges
            .iter()
            .map(|e| e.child)
            .collect();
        let mut added = 0;
        for &(mv, child) in moves {
            if !have.insert(child) {
                continue;
            }
            let gain = KiothiPosition::capture_gain(
                &self.nodes[parent as usize].pos,
                &self.nodes[child as usize].pos,
            );
            let repeat = self.reaches(child, parent);
            self.nodes[parent as usize].edges.push(Edge {
                mv,
                child,
                gain: gain.clamp(0, u8::MAX as i32) as u8,
                repeat,
            });
            added += 1;
        }
        added
    }

    /// Whether `target` is reached from `from` by edges that are not
    /// `repeat`. Prisons only fill and, in play, marks only clear (RULES
    /// §2.3), so a node with a prison fuller than `target`'s, or without
    /// one of its marks, cannot lead to it: the search stops there.
    fn reaches(&self, from: NodeId, target: NodeId) -> bool {
        if from == target {
            return true;
        }
        if self.nodes[from as usize].edges.is_empty() {
            return false;
        }
        let goal = &self.nodes[target as usize].pos;
        let could_lead = |p: &KiothiPosition| {
            let [s, n] = p.prisons();
            let [gs, gn] = goal.prisons();
            if s > gs || n > gn {
                return false;
            }
            match (p.phase(), goal.phase()) {
                (Phase::Play, Phase::Opening) => false,
                (Phase::Play, Phase::Play) => p.protected() & goal.protected() == goal.protected(),
                _ => true,
            }
        };
        let mut seen = HashSet::new();
        let mut stack = vec![from];
        while let Some(id) = stack.pop() {
            if id == target {
                return true;
            }
            if !seen.insert(id) || !could_lead(&self.nodes[id as usize].pos) {
                continue;
            }
            stack.extend(
                self.nodes[id as usize]
                    .edges
                    .iter()
                    .filter(|e| !e.repeat)
                    .map(|e| e.child),
            );
        }
        false
    }

    /// The nodes reached from the root, children before their parents
    /// (post-order of a depth-first walk that takes edges in their order;
    /// `repeat` edges are not followed).
    pub fn post_order(&self) -> Vec<NodeId> {
        let mut order = Vec::with_capacity(self.nodes.len());
        let mut done = vec![false; self.nodes.len()];
        // (node, next edge to look at)
        let mut stack: Vec<(NodeId, usize)> = vec![(0, 0)];
        done[0] = true;
        while let Some(top) = stack.last_mut() {
            let (id, next) = *top;
            let edges = &self.nodes[id as usize].edges;
            match edges[next.min(edges.len())..]
                .iter()
                .position(|e| !e.repeat && !done[e.child as usize])
            {
                Some(k) => {
                    let child = edges[next + k].child;
                    top.1 = next + k + 1;
                    done[child as usize] = true;
                    stack.push((child, 0));
                }
                None => {
                    order.push(id);
                    stack.pop();
                }
            }
        }
        order
    }

    /// Backs the values up: every expanded node, after its children (in
    /// `post_order`), takes the best of its moves' values, and its depth is
    /// one more than its deepest child's.
    pub fn back_up(&mut self, post_order: &[NodeId]) {
        for &id in post_order {
            let node = &self.nodes[id as usize];
            if node.state != NodeState::Expanded {
                continue;
            }
            let value = node.edges.iter().map(|e| self.move_value(e)).max();
            let depth = node.edges.iter().map(|e| self.move_depth(e)).max();
            if let (Some(value), Some(depth)) = (value, depth) {
                let node = &mut self.nodes[id as usize];
                node.value = clamp_value(value);
                node.depth = depth.min(MAX_DEPTH) as u16;
            }
        }
    }

    /// For every node reached from the root: its expansion cost, the least
    /// over the paths from the root of the sum, edge by edge, of
    /// `depth_penalty` plus how far the edge's move falls below its node's
    /// best (drop-out expansion, Lincke 2000: the cheapest leaf is the one
    /// the best-first descent would reach); and its ply, the fewest moves
    /// from the root. `u64::MAX` / `u32::MAX` for nodes not reached.
    pub fn costs(&self, post_order: &[NodeId], depth_penalty: u64) -> (Vec<u64>, Vec<u32>) {
        let mut cost = vec![u64::MAX; self.nodes.len()];
        let mut ply = vec![u32::MAX; self.nodes.len()];
        cost[0] = 0;
        ply[0] = 0;
        for &id in post_order.iter().rev() {
            let node = &self.nodes[id as usize];
            let (c, p) = (cost[id as usize], ply[id as usize]);
            for e in node.edges.iter().filter(|e| !e.repeat) {
                let drop = (node.value as i32 - self.move_value(e)).max(0) as u64;
                let child = e.child as usize;
                cost[child] = cost[child].min(c + depth_penalty + drop);
                ply[child] = ply[child].min(p + 1);
            }
        }
        (cost, ply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Side;
    use crate::games::kiothi::Setup;

    fn leaf(value: i32) -> LeafValue {
        LeafValue {
            value,
            depth: 3,
            terminal: false,
            nodes: 1,
        }
    }

    /// A play position with South's warriors in `south` (unprotected, one
    /// each) and North's one warrior in pit 15.
    fn board(south: &[usize]) -> KiothiPosition {
        let mut pits = [0u8; 20];
        for &p in south {
            pits[p] = 1;
        }
        pits[15] = 1;
        KiothiPosition {
            pits,
            protected: 0,
            side: Side::South,
            phase: Phase::Play,
            prisons: [0, 0],
            setup: Setup::SixPit,
        }
    }

    #[test]
    fn a_move_back_up_the_graph_is_a_repeat_worth_nothing() {
        let (a, b, c) = (board(&[1]), board(&[2]), board(&[3]));
        let mut dag = Dag::new(a, leaf(0));
        let ib = dag.add(b, leaf(5));
        let ic = dag.add(c, leaf(-4));
        let play = |pit| KiothiMove::Play { pit, count: 1 };
        assert!(dag.link(0, play(1), ib));
        assert!(dag.link(ib, play(2), ic));
        assert!(!dag.link(0, play(1), ib), "one edge per child");
        // c leads back to a, from which c is reached: a repeat.
        assert!(dag.link(ic, play(3), 0));
        assert!(dag.node(ic).edges[0].repeat);
        // a to c directly is no cycle.
        assert!(dag.link(0, play(9), ic));
        assert!(!dag.node(0).edges[1].repeat);
        for id in [0, ib, ic] {
            dag.node_mut(id).state = NodeState::Expanded;
        }
        let order = dag.post_order();
        assert_eq!(order, vec![ic, ib, 0]);
        dag.back_up(&order);
        // c: its only move repeats, worth 0; b: -0; a: max(0 - 0, 0 - 0).
        assert_eq!(dag.node(ic).value, 0);
        assert_eq!(dag.node(ic).depth, 1);
        assert_eq!(dag.node(ib).depth, 2);
        assert_eq!(dag.node(0).depth, 3);
        let (cost, ply) = dag.costs(&order, 2);
        assert_eq!(ply, vec![0, 1, 1]);
        assert_eq!(cost, vec![0, 2, 2]);
    }

    #[test]
    fn a_position_with_fuller_prisons_or_fewer_marks_cannot_lead_back() {
        let a = board(&[1]);
        let mut fuller = board(&[2]);
        fuller.pits[2] = 0;
        fuller.prisons = [1, 0];
        let mut dag = Dag::new(a, leaf(0));
        let f = dag.add(fuller, leaf(0));
        assert!(dag.link(0, KiothiMove::Play { pit: 1, count: 1 }, f));
        assert!(!dag.reaches(f, 0));
        assert!(dag.reaches(0, f));
    }
}
