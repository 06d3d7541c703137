//! `perft` (RULES §4): the number of move sequences of exactly `d` moves.

use std::ops::ControlFlow;

use rayon::prelude::*;

use crate::game::Game;

/// Sequential perft. The last ply is counted without being expanded
/// (a game may still have to play those moves to know they are legal).
pub fn perft<G: Game>(pos: &G, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.move_count(),
        _ => {
            let mut nodes = 0;
            let _ = pos.for_each_child(|_, child| {
                nodes += perft(&child, depth - 1);
                ControlFlow::Continue(())
            });
            nodes
        }
    }
}

/// Perft split by root move, computed on the current rayon pool.
///
/// The tree is expanded breadth-first until there are enough independent
/// subtrees to keep every thread busy, then the subtrees are counted in
/// parallel and summed per root move (in the generator's order).
pub fn perft_divide<G: Game>(pos: &G, depth: u32) -> Vec<(G::Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let mut roots = Vec::new();
    let mut frontier: Vec<(usize, G)> = Vec::new();
    let _ = pos.for_each_child(|mv, child| {
        frontier.push((roots.len(), child));
        roots.push(mv);
        ControlFlow::Continue(())
    });
    let mut remaining = depth - 1;
    let wanted = 512 * rayon::current_num_threads().max(1);
    while remaining > 2 && frontier.len() < wanted {
        frontier = frontier
            .par_iter()
            .flat_map_iter(|(root, p)| {
                let mut kids = Vec::new();
                let _ = p.for_each_child(|_, c| {
                    kids.push((*root, c));
                    ControlFlow::Continue(())
                });
                kids
            })
            .collect();
        remaining -= 1;
    }
    let counts = frontier
        .par_iter()
        .fold(
            || vec![0u64; roots.len()],
            |mut acc, (root, p)| {
                acc[*root] += perft(p, remaining);
                acc
            },
        )
        .reduce(
            || vec![0u64; roots.len()],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        );
    roots.into_iter().zip(counts).collect()
}

/// Parallel perft on the current rayon pool.
pub fn perft_parallel<G: Game>(pos: &G, depth: u32) -> u64 {
    if depth <= 1 {
        return perft(pos, depth);
    }
    perft_divide(pos, depth).iter().map(|(_, n)| n).sum()
}
