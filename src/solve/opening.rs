//! The locked phase of Kpé (RULES §1.2): positions in which at least one
//! player still has an unset mark. They are enumerated forward from a root
//! (the start, or any locked position a user asks about) and solved by the
//! same threshold retrograde method as the endgame, stone count by stone
//! count, with moves into the unlocked database as exits.

use std::collections::VecDeque;

use hashbrown::HashMap;
use rayon::prelude::*;

use super::endgame::{Endgame, LayerValues};
use super::progress::Progress;
use super::retrograde::{LayerState, NO_EXIT};
use crate::games::kpe::KpePosition;
use crate::Game;

/// A position relative to its mover, packed: `b` bits per pit (enough for
/// the game's total), then the mover's and the opponent's marks. Fits in 64
/// bits for every variant `check_solvable` accepts.
pub type RegionKey = u64;

/// Packs a position (any side to move) relative to its mover.
pub fn region_key(pos: &KpePosition) -> RegionKey {
    let rel = pos.relative();
    let v = rel.variant();
    let bits = 32 - v.total().leading_zeros();
    let mut key: u64 = 0;
    for (i, &c) in rel.pits().iter().enumerate() {
        key |= (c as u64) << (bits as usize * i);
    }
    let marks_at = bits as usize * v.pits();
    key | (rel.marks(crate::Side::South) as u64) << marks_at
        | (rel.marks(crate::Side::North) as u64) << (marks_at + v.w())
}

/// Values of every locked position reachable from a root.
#[derive(Clone, Debug, Default)]
pub struct LockedRegion {
    /// Sorted keys.
    keys: Vec<RegionKey>,
    values: Vec<i8>,
}

/// Forward graph of the region, in discovery order.
struct RegionGraph {
    nodes: Vec<KpePosition>,
    /// Best value reachable by a move into the unlocked database.
    db_exit: Vec<i8>,
    /// Moves to other region nodes: (first edge of node i, ...).
    edge_start: Vec<u32>,
    edges: Vec<(u32, u8)>,
}

impl LockedRegion {
    /// Enumerates and solves the locked positions reachable from `root`.
    /// `layers` must hold the whole unlocked database of the variant.
    pub fn solve(
        root: &KpePosition,
        eg: &Endgame,
        layers: &impl LayerValues,
        progress: Progress,
    ) -> Self {
        let graph = RegionGraph::explore(root, eg, layers, progress);
        let values = graph.solve(progress);
        let mut pairs: Vec<(RegionKey, i8)> = graph
            .nodes
            .par_iter()
            .map(region_key)
            .zip(values.into_par_iter())
            .collect();
        pairs.par_sort_unstable_by_key(|p| p.0);
        let (keys, values) = pairs.into_iter().unzip();
        LockedRegion { keys, values }
    }

    pub fn from_parts(keys: Vec<RegionKey>, values: Vec<i8>) -> Self {
        LockedRegion { keys, values }
    }

    pub fn keys(&self) -> &[RegionKey] {
        &self.keys
    }

    pub fn values(&self) -> &[i8] {
        &self.values
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The value of a locked position of the region.
    pub fn value(&self, pos: &KpePosition) -> Option<i8> {
        let key = region_key(pos);
        self.keys.binary_search(&key).ok().map(|i| self.values[i])
    }
}

fn is_locked(pos: &KpePosition) -> bool {
    !(pos.is_unlocked(crate::Side::South) && pos.is_unlocked(crate::Side::North))
}

impl RegionGraph {
    fn explore(
        root: &KpePosition,
        eg: &Endgame,
        layers: &impl LayerValues,
        progress: Progress,
    ) -> Self {
        let bar = progress.bar(0, "locked");
        bar.set_message("exploring");
        let mut graph = RegionGraph {
            nodes: Vec::new(),
            db_exit: Vec::new(),
            edge_start: vec![0],
            edges: Vec::new(),
        };
        let mut seen: HashMap<RegionKey, u32> = HashMap::new();
        let mut queue = VecDeque::new();
        let root = root.relative();
        if is_locked(&root) {
            seen.insert(region_key(&root), 0);
            graph.nodes.push(root);
            queue.push_back(0u32);
        }
        while let Some(i) = queue.pop_front() {
            let pos = graph.nodes[i as usize];
            let mut exit = NO_EXIT;
            let _ = pos.for_each_move(|mv| {
                let (child, gained) = pos.sow(mv.pit());
                if is_locked(&child) {
                    let next = graph.nodes.len() as u32;
                    let j = *seen.entry(region_key(&child)).or_insert_with(|| {
                        graph.nodes.push(child.relative());
                        queue.push_back(next);
                        next
                    });
                    graph.edges.push((j, gained as u8));
                } else {
                    exit = exit.max(gained as i8 - eg.probe(layers, &child));
                }
                std::ops::ControlFlow::Continue(())
            });
            graph.db_exit.push(exit);
            graph.edge_start.push(graph.edges.len() as u32);
            if i % 65536 == 0 {
                bar.set_position(graph.nodes.len() as u64);
            }
        }
        bar.finish_and_clear();
        graph
    }

    fn edges(&self, i: usize) -> &[(u32, u8)] {
        &self.edges[self.edge_start[i] as usize..self.edge_start[i + 1] as usize]
    }

    /// Solves the region by stone count, smallest first: captures always
    /// lead to a smaller, already solved count.
    fn solve(&self, progress: Progress) -> Vec<i8> {
        let stones: Vec<usize> = self
            .nodes
            .iter()
            .map(|p| p.board_total() as usize)
            .collect();
        let mut values = vec![0i8; self.nodes.len()];
        let mut counts: Vec<usize> = stones.clone();
        counts.sort_unstable();
        counts.dedup();
        let bar = progress.bar(self.nodes.len() as u64, "locked");
        bar.set_message("solving");
        for n in counts {
            let members: Vec<u32> = (0..self.nodes.len() as u32)
                .filter(|&i| stones[i as usize] == n)
                .collect();
            let mut local = HashMap::with_capacity(members.len());
            for (k, &i) in members.iter().enumerate() {
                local.insert(i, k as u32);
            }
            let mut exit = Vec::with_capacity(members.len());
            let mut internal = Vec::with_capacity(members.len());
            let mut preds: Vec<Vec<u32>> = vec![Vec::new(); members.len()];
            for (k, &i) in members.iter().enumerate() {
                let pos = &self.nodes[i as usize];
                let mut e = if pos.is_over() {
                    -(n as i8)
                } else {
                    self.db_exit[i as usize]
                };
                let mut inside = 0u8;
                for &(j, gained) in self.edges(i as usize) {
                    if gained > 0 {
                        e = e.max(gained as i8 - values[j as usize]);
                    } else {
                        inside += 1;
                        preds[local[&j] as usize].push(k as u32);
                    }
                }
                exit.push(e);
                internal.push(inside);
            }
            let state = LayerState::new(exit, internal);
            state.solve(
                n as i8,
                |k, out| out.extend_from_slice(&preds[k]),
                |_, _| {},
            );
            for (k, v) in state.into_values().into_iter().enumerate() {
                values[members[k] as usize] = v;
            }
            bar.inc(members.len() as u64);
        }
        bar.finish_and_clear();
        values
    }
}
