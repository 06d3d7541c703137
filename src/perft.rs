//! `perft` (RULES §4): the number of move sequences of exactly `d` moves.
//!
//! Where the rules let a tree be counted without being enumerated (Kiothi's
//! opening redistributions, `Game::perft_by_formula`) the count is taken
//! from the formula; otherwise the tree is walked. `estimate` tells, before a
//! walk, about how many positions it will generate, so that a command can
//! refuse a walk that could not end in any reasonable time.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use indicatif::ProgressBar;
use rayon::prelude::*;

use crate::game::Game;

/// The deepest walk `sow perft` takes: the walk recurses once a move, and a
/// line of Kpé can go on for ever (RULES §0), so a depth of 10⁵ overflowed
/// the stack at once. Far beyond any count anyone walks (RULES §4 lists
/// depths up to 8); the estimate refuses such walks anyway.
pub const MAX_DEPTH: u32 = 1000;

/// Sequential perft. The last ply is counted without being expanded
/// (a game may still have to play those moves to know they are legal).
pub fn perft<G: Game>(pos: &G, depth: u32) -> u64 {
    walk(pos, depth, &AtomicBool::new(false)).unwrap_or(0)
}

/// The walk behind `perft`; `None` once `stop` is raised.
fn walk<G: Game>(pos: &G, depth: u32, stop: &AtomicBool) -> Option<u64> {
    match depth {
        0 => Some(1),
        1 => Some(pos.move_count()),
        _ => {
            if let Some(split) = pos.perft_by_formula(depth) {
                return Some(split.iter().map(|(_, n)| n).sum());
            }
            if depth >= 3 && stop.load(Ordering::Relaxed) {
                return None;
            }
            let mut nodes = 0;
            let flow = pos.for_each_child(|_, child| match walk(&child, depth - 1, stop) {
                Some(n) => {
                    nodes += n;
                    ControlFlow::Continue(())
                }
                None => ControlFlow::Break(()),
            });
            flow.is_continue().then_some(nodes)
        }
    }
}

/// A perft result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Count {
    /// perft(position, depth).
    pub nodes: u64,
    /// The count under each root move, or under each group of root moves
    /// when counted by formula (Kiothi: per lifted pair, `4+5`).
    pub split: Vec<(String, u64)>,
    /// True when the nodes were counted by formula rather than visited.
    pub counted: bool,
}

/// The walk was stopped (Ctrl-C) before it finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stopped;

/// Above this many root moves the children are generated in chunks rather
/// than all at once (a Kiothi opening root has hundreds of millions); more
/// than `--divide` lists (`cli::DIVIDE_LIMIT`).
const HUGE_ROOT: u64 = 1 << 20;
/// Root moves per chunk.
const ROOT_CHUNK: usize = 1 << 16;

/// Perft on the current rayon pool, split by root move (or group, see
/// `Count::split`). `bar` advances by one per unit of work; its length is
/// set here (work units are subtrees of the root, so the ETA follows the
/// root moves done) and its message shows the nodes counted so far. `stop`
/// ends the walk early (`Err(Stopped)`).
pub fn perft_count<G: Game>(
    pos: &G,
    depth: u32,
    bar: &ProgressBar,
    stop: &AtomicBool,
) -> Result<Count, Stopped> {
    if depth == 0 {
        return Ok(Count {
            nodes: 1,
            split: Vec::new(),
            counted: false,
        });
    }
    if let Some(split) = pos.perft_by_formula(depth) {
        return Ok(Count {
            nodes: split.iter().map(|(_, n)| n).sum(),
            split,
            counted: true,
        });
    }
    let roots = pos.move_count();
    let per_root = if roots > HUGE_ROOT {
        chunked(pos, depth, roots, bar, stop)?
    } else {
        breadth_first(pos, depth, bar, stop)?
    };
    Ok(Count {
        nodes: per_root.iter().map(|(_, n)| n).sum(),
        split: per_root,
        counted: false,
    })
}

/// Perft split by root move: the tree is expanded breadth-first until there
/// are enough independent subtrees to keep every thread busy, then the
/// subtrees are counted in parallel and summed per root move (in the
/// generator's order).
fn breadth_first<G: Game>(
    pos: &G,
    depth: u32,
    bar: &ProgressBar,
    stop: &AtomicBool,
) -> Result<Vec<(String, u64)>, Stopped> {
    let mut roots = Vec::new();
    let mut frontier: Vec<(usize, G)> = Vec::new();
    let _ = pos.for_each_child(|mv, child| {
        frontier.push((roots.len(), child));
        roots.push(mv.to_string());
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
    bar.set_length(frontier.len() as u64);
    let done = AtomicU64::new(0);
    let counts = frontier
        .par_iter()
        .try_fold(
            || vec![0u64; roots.len()],
            |mut acc, (root, p)| {
                let n = walk(p, remaining, stop).ok_or(Stopped)?;
                acc[*root] += n;
                tick(bar, &done, n);
                Ok(acc)
            },
        )
        .try_reduce(|| vec![0u64; roots.len()], |a, b| Ok(add(a, b)))?;
    Ok(roots.into_iter().zip(counts).collect())
}

/// Perft of a root with too many moves to hold: the root moves are taken
/// `ROOT_CHUNK` at a time and each chunk's subtrees counted in parallel.
/// The split is per root move only when the root is small enough to list;
/// otherwise it is empty.
fn chunked<G: Game>(
    pos: &G,
    depth: u32,
    roots: u64,
    bar: &ProgressBar,
    stop: &AtomicBool,
) -> Result<Vec<(String, u64)>, Stopped> {
    bar.set_length(roots);
    let done = AtomicU64::new(0);
    let mut total = 0u64;
    let mut chunk: Vec<G> = Vec::with_capacity(ROOT_CHUNK);
    let mut stopped = false;
    let mut flush = |chunk: &mut Vec<G>| -> Result<(), Stopped> {
        let n = chunk
            .par_iter()
            .map(|p| {
                let n = walk(p, depth - 1, stop).ok_or(Stopped)?;
                tick(bar, &done, n);
                Ok(n)
            })
            .try_reduce(|| 0, |a, b| Ok(a + b))?;
        total += n;
        chunk.clear();
        Ok(())
    };
    let _ = pos.for_each_child(|_, child| {
        chunk.push(child);
        if chunk.len() == ROOT_CHUNK && flush(&mut chunk).is_err() {
            stopped = true;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    });
    if stopped {
        return Err(Stopped);
    }
    flush(&mut chunk)?;
    Ok(vec![(String::new(), total)])
}

fn add(mut a: Vec<u64>, b: Vec<u64>) -> Vec<u64> {
    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
    a
}

/// One unit of work done: the bar moves on and shows the nodes so far.
fn tick(bar: &ProgressBar, done: &AtomicU64, nodes: u64) {
    let so_far = done.fetch_add(nodes, Ordering::Relaxed) + nodes;
    bar.inc(1);
    if !bar.is_hidden() {
        bar.set_message(format!("{so_far} nodes"));
    }
}

/// Perft split by root move, computed on the current rayon pool.
pub fn perft_divide<G: Game>(pos: &G, depth: u32) -> Vec<(G::Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let moves = pos.legal_moves();
    let split = breadth_first(pos, depth, &ProgressBar::hidden(), &AtomicBool::new(false))
        .expect("never stopped");
    moves
        .into_iter()
        .zip(split)
        .map(|(m, (_, n))| (m, n))
        .collect()
}

/// Parallel perft on the current rayon pool.
pub fn perft_parallel<G: Game>(pos: &G, depth: u32) -> u64 {
    if depth <= 1 {
        return perft(pos, depth);
    }
    perft_count(pos, depth, &ProgressBar::hidden(), &AtomicBool::new(false))
        .expect("never stopped")
        .nodes
}

/// About how many positions a perft walk to `depth` generates (every move
/// played or counted by the move generator; 1 for a subtree counted by
/// formula): Knuth's estimator, the mean over `probes` random lines from
/// the root of the product of the branching factors met. Exact when every
/// position at each depth has the same number of moves; otherwise a guess
/// good to an order of magnitude, which is what a refusal needs.
pub fn estimate<G: Game>(pos: &G, depth: u32, probes: u32, seed: u64) -> f64 {
    let mut state = seed;
    let mut sum = 0.0;
    for _ in 0..probes.max(1) {
        sum += probe(pos, depth, &mut state);
    }
    sum / probes.max(1) as f64
}

/// One random line: the work under `pos` as if every sibling were alike,
/// `b₁·(1 + b₂·(1 + …))` over the branching factors `bᵢ` met. A loop, not
/// a recursion: a refused walk may be thousands of moves deep.
fn probe<G: Game>(pos: &G, depth: u32, state: &mut u64) -> f64 {
    let mut branchings = Vec::new();
    let mut leaf = 1.0;
    let mut pos = pos.clone();
    for left in (1..=depth).rev() {
        if left >= 2 && pos.perft_by_formula(left).is_some() {
            break;
        }
        let branching = pos.move_count();
        if left == 1 || branching == 0 {
            leaf = branching.max(1) as f64;
            break;
        }
        branchings.push(branching as f64);
        let pick = crate::infra::rng::splitmix64(state) % branching;
        pos = pos.nth_child(pick).expect("index below the move count");
    }
    branchings
        .iter()
        .rev()
        .fold(leaf, |under, b| b * (1.0 + under))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::kiothi::{KiothiPosition, Setup};
    use crate::games::kpe::parse_position;

    #[test]
    fn parallel_and_divide_agree_with_sequential() {
        let start = parse_position("kpe").unwrap();
        for d in 1..=8 {
            assert_eq!(perft_parallel(&start, d), perft(&start, d), "depth {d}");
        }
        let split = perft_divide(&start, 5);
        assert_eq!(split.iter().map(|(_, n)| n).sum::<u64>(), 952);
        assert_eq!(split[3].1, 239);
    }

    #[test]
    fn kpe_estimate_is_near_the_walk() {
        let start = parse_position("kpe").unwrap();
        let walked: u64 = (1..=8).map(|d| perft(&start, d)).sum();
        let guess = estimate(&start, 8, 400, 1);
        assert!(
            guess > walked as f64 / 2.0 && guess < walked as f64 * 2.0,
            "{guess} vs {walked}"
        );
    }

    #[test]
    fn kiothi_opening_is_counted_and_deeper_is_estimated_huge() {
        let start = KiothiPosition::start(Setup::SixPit);
        let c = perft_count(&start, 2, &ProgressBar::hidden(), &AtomicBool::new(false)).unwrap();
        assert!(c.counted);
        assert_eq!(c.split.len(), 15);
        assert_eq!(estimate(&start, 2, 4, 1), 1.0);
        assert!(estimate(&start, 3, 16, 1) > 1e16);
    }

    #[test]
    fn a_line_thousands_of_moves_deep_is_estimated_without_recursion() {
        // Some random Kpé lines cycle for tens of thousands of moves: the
        // recursive estimate overflowed the stack at depth 50,000 (`sow
        // perft kpe 50000`, which samples these 64 lines).
        let start = parse_position("kpe").unwrap();
        let guess = estimate(&start, 100_000, 64, 1);
        assert!(guess > 1e100, "{guess}");
        assert_eq!(estimate(&start, 0, 4, 1), 1.0);
        assert_eq!(estimate(&start, 1, 4, 1), 4.0);
    }

    #[test]
    fn a_raised_stop_ends_the_walk() {
        let start = parse_position("kpe").unwrap();
        let stop = AtomicBool::new(true);
        assert_eq!(
            perft_count(&start, 9, &ProgressBar::hidden(), &stop),
            Err(Stopped)
        );
    }
}
