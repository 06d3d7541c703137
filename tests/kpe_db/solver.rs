//! The Kpé solver (retrograde by thresholds with counters and un-moves,
//! locked region by forward enumeration) against an independent, naive
//! method on small variants: every position reachable from the start is
//! enumerated through the `Game` trait alone, grouped by stones on the
//! board, and each group is solved by sweeping the win/loss conditions of
//! every threshold to a fixpoint, with endless play worth 0 (RULES §0).

use std::collections::{HashMap, VecDeque};

use sow::games::kpe::{KpePosition, KpeVariant};
use sow::infra::progress::Progress;
use sow::kpe_db::Solution;
use sow::Game;

struct Node {
    stones: u32,
    /// Values of moves leaving the group (captures), known once lower
    /// groups are solved: (gain, child).
    captures: Vec<(i32, usize)>,
    /// Moves staying in the group.
    inside: Vec<usize>,
    over: bool,
}

fn reachable(start: KpePosition) -> (Vec<KpePosition>, Vec<Node>) {
    let mut ids: HashMap<KpePosition, usize> = HashMap::new();
    let mut positions = vec![start.repetition_key()];
    ids.insert(positions[0], 0);
    let mut queue = VecDeque::from([0usize]);
    let mut nodes: Vec<Option<Node>> = vec![None];
    while let Some(i) = queue.pop_front() {
        let pos = positions[i];
        let mut node = Node {
            stones: pos.board_total(),
            captures: vec![],
            inside: vec![],
            over: pos.is_over(),
        };
        for mv in pos.legal_moves() {
            let child = pos.play_unchecked(&mv).repetition_key();
            let j = *ids.entry(child).or_insert_with(|| {
                positions.push(child);
                nodes.push(None);
                queue.push_back(positions.len() - 1);
                positions.len() - 1
            });
            let gain = (pos.board_total() - child.board_total()) as i32;
            if gain > 0 {
                node.captures.push((gain, j));
            } else {
                node.inside.push(j);
            }
        }
        nodes[i] = Some(node);
    }
    (positions, nodes.into_iter().map(|n| n.unwrap()).collect())
}

fn naive_values(nodes: &[Node]) -> Vec<i32> {
    let mut value = vec![0i32; nodes.len()];
    let mut groups: Vec<u32> = nodes.iter().map(|n| n.stones).collect();
    groups.sort();
    groups.dedup();
    for stones in groups {
        let members: Vec<usize> = (0..nodes.len())
            .filter(|&i| nodes[i].stones == stones)
            .collect();
        let exit: HashMap<usize, Option<i32>> = members
            .iter()
            .map(|&i| {
                let n = &nodes[i];
                let e = if n.over {
                    Some(-(stones as i32))
                } else {
                    n.captures.iter().map(|&(g, c)| g - value[c]).max()
                };
                (i, e)
            })
            .collect();
        let mut decided: HashMap<usize, i32> = HashMap::new();
        for t in (1..=stones as i32).rev() {
            let mut win: HashMap<usize, bool> = members.iter().map(|&i| (i, false)).collect();
            let mut lose = win.clone();
            loop {
                let mut changed = false;
                for &i in &members {
                    let n = &nodes[i];
                    let e = exit[&i];
                    if !win[&i] && (e.is_some_and(|e| e >= t) || n.inside.iter().any(|c| lose[c])) {
                        win.insert(i, true);
                        changed = true;
                    }
                    let exits_low = e.is_none_or(|e| e <= -t);
                    if !lose[&i] && exits_low && n.inside.iter().all(|c| win[c]) {
                        lose.insert(i, true);
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
            for &i in &members {
                if let std::collections::hash_map::Entry::Vacant(slot) = decided.entry(i) {
                    if win[&i] {
                        slot.insert(t);
                    } else if lose[&i] {
                        slot.insert(-t);
                    }
                }
            }
        }
        for &i in &members {
            value[i] = decided.get(&i).copied().unwrap_or(0);
        }
    }
    value
}

/// Whether some line of value-keeping moves reaches the end of the game,
/// by sweeping to a fixpoint over the explicit graph.
fn naive_can_end(nodes: &[Node], value: &[i32]) -> Vec<bool> {
    let mut can_end: Vec<bool> = nodes.iter().map(|n| n.over).collect();
    loop {
        let mut changed = false;
        for (i, n) in nodes.iter().enumerate() {
            let moves = n
                .captures
                .iter()
                .copied()
                .chain(n.inside.iter().map(|&c| (0, c)));
            if !can_end[i]
                && moves
                    .into_iter()
                    .any(|(g, c)| g - value[c] == value[i] && can_end[c])
            {
                can_end[i] = true;
                changed = true;
            }
        }
        if !changed {
            return can_end;
        }
    }
}

fn check_endings(w: u8, k: u8) -> usize {
    let variant = KpeVariant::new(w, k).unwrap();
    let (positions, nodes) = reachable(KpePosition::start(variant));
    let values = naive_values(&nodes);
    let expected = naive_can_end(&nodes, &values);
    let solution = Solution::in_memory(variant, Progress::Hidden);
    for ((pos, &want), &value) in positions.iter().zip(&expected).zip(&values) {
        // The bit computed with the values and stored with them.
        let got = solution.can_end(pos, None).unwrap();
        assert_eq!(got, want, "kpe:{variant} position {pos}");
        // A game that ends gives every stone on the board to a player, the
        // opponent's share even (captures of 2 and 4, a sweep of an even
        // total): its margin is the stone count modulo 4.
        if (value - pos.board_total() as i32) % 4 != 0 {
            assert!(!want, "kpe:{variant} {pos}: value {value} yet it ends");
        }
    }
    expected.iter().filter(|&&e| !e).count()
}

#[test]
fn endless_perfect_play_equals_naive_fixpoint() {
    let mut endless = 0;
    for (w, k) in [(2, 1), (2, 2), (2, 3), (2, 4), (3, 1), (3, 2), (4, 1)] {
        endless += check_endings(w, k);
    }
    // The check is not vacuous: some perfect lines never end.
    assert!(endless > 0);
}

fn check_variant(w: u8, k: u8) -> usize {
    let variant = KpeVariant::new(w, k).unwrap();
    let start = KpePosition::start(variant);
    let (positions, nodes) = reachable(start);
    let expected = naive_values(&nodes);
    let solution = Solution::in_memory(variant, Progress::Hidden);
    for (pos, &want) in positions.iter().zip(&expected) {
        let got = solution.value(pos, None).unwrap();
        assert_eq!(got, want, "kpe:{variant} position {pos}");
        assert_eq!(
            solution.value(&pos.rotated(), None).unwrap(),
            want,
            "rotated {pos}"
        );
    }
    positions.len()
}

#[test]
fn retrograde_equals_naive_fixpoint_on_two_pit_rows() {
    for k in 1..=4 {
        assert!(check_variant(2, k) > 1);
    }
}

#[test]
fn retrograde_equals_naive_fixpoint_on_three_pit_rows() {
    for k in 1..=2 {
        assert!(check_variant(3, k) > 1);
    }
}

#[test]
fn retrograde_equals_naive_fixpoint_on_4x1() {
    assert!(check_variant(4, 1) > 1);
}

#[test]
fn every_unlocked_position_of_a_variant_matches_naive_values() {
    // Not only positions reachable from the start: every unlocked board of
    // every layer of 2x3, each checked with its own reachable set.
    let variant = KpeVariant::new(2, 3).unwrap();
    let solution = Solution::in_memory(variant, Progress::Hidden);
    let total = variant.total();
    let mut checked = 0;
    for n in (0..=total).step_by(2) {
        for a in 0..=n {
            for b in 0..=n - a {
                for c in 0..=n - a - b {
                    let d = n - a - b - c;
                    let text = format!("kpe:2x3 {a},{b},{c},{d} N xx xx 0 {}", total - n);
                    let pos: KpePosition = text.parse().unwrap();
                    let (positions, nodes) = reachable(pos);
                    let expected = naive_values(&nodes);
                    assert_eq!(
                        solution.value(&positions[0], None).unwrap(),
                        expected[0],
                        "{pos}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(
        checked,
        (0..=12)
            .step_by(2)
            .map(|n| (n + 1) * (n + 2) * (n + 3) / 6)
            .sum::<u32>()
    );
}

#[test]
fn locked_position_outside_the_start_region_is_solved_on_demand() {
    let variant = KpeVariant::new(3, 2).unwrap();
    let solution = Solution::in_memory(variant, Progress::Hidden);
    // South locked with a board the start cannot reach (all stones in one pit).
    let pos: KpePosition = "kpe:3x2 0,0,0,0,0,12 S x.. ...".parse().unwrap();
    assert!(solution.start_region().value(&pos).unwrap().is_none());
    let region = solution
        .region_for(&pos, Progress::Hidden)
        .unwrap()
        .expect("locked region");
    let (_, nodes) = reachable(pos);
    let expected = naive_values(&nodes);
    assert_eq!(solution.value(&pos, Some(&region)).unwrap(), expected[0]);
}

#[test]
fn retrograde_equals_naive_fixpoint_on_3x3() {
    assert!(check_variant(3, 3) > 1);
}

/// Every file of a variant's database directory (but the writer's lock),
/// by name.
fn database_files(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap() != "lock")
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn layers_are_shared_by_every_k_of_a_w() {
    // An unlocked position's value does not depend on the stones the game
    // started with: kpe:3x3 solved in a database that holds kpe:3x2 takes
    // its layers of 0-12 stones from it, and its files are byte for byte
    // those of kpe:3x3 solved alone.
    let base = std::env::temp_dir().join(format!("sow-test-{}-share", std::process::id()));
    let (alone, beside) = (base.join("alone"), base.join("beside"));
    let _ = std::fs::remove_dir_all(&base);
    let (v32, v33) = (
        KpeVariant::new(3, 2).unwrap(),
        KpeVariant::new(3, 3).unwrap(),
    );
    let (_, fresh) = Solution::build(v33, &alone, Progress::Hidden).unwrap();
    assert!(fresh.layers_shared.is_empty());
    Solution::build(v32, &beside, Progress::Hidden).unwrap();
    let (_, stats) = Solution::build(v33, &beside, Progress::Hidden).unwrap();
    let shared: Vec<usize> = stats.layers_shared.iter().map(|&(n, _)| n).collect();
    assert_eq!(shared, vec![0, 2, 4, 6, 8, 10, 12]);
    assert!(stats.layers_shared.iter().all(|&(_, from)| from == v32));
    assert_eq!(stats.layers_computed, vec![14, 16, 18]);
    let (a, b) = (
        database_files(&alone.join("kpe-3x3")),
        database_files(&beside.join("kpe-3x3")),
    );
    assert_eq!(a.len(), b.len());
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{name} differs");
    }
    std::fs::remove_dir_all(&base).unwrap();
}

/// The principal variation of every position reachable in small variants
/// keeps the value at every move, and ends the game exactly where perfect
/// play can end (otherwise it repeats a position): the captures along it
/// and the final sweep add up to the value.
#[test]
fn principal_variations_keep_the_value_and_end_where_play_can_end() {
    let mut ending = 0;
    for (w, k) in [(2, 3), (3, 2), (3, 3)] {
        let variant = KpeVariant::new(w, k).unwrap();
        let (positions, _) = reachable(KpePosition::start(variant));
        let solution = Solution::in_memory(variant, Progress::Hidden);
        for pos in &positions {
            let value = solution.value(pos, None).unwrap();
            let line = solution.principal_variation(pos, None, 1000).unwrap();
            // The mover's margin along the line, sign flipping each ply.
            let (mut at, mut margin, mut sign) = (*pos, 0, 1);
            for mv in &line {
                let before = solution.value(&at, None).unwrap();
                let (child, gained) = at.sow(mv.pit());
                let after = solution.value(&child, None).unwrap();
                assert_eq!(gained as i32 - after, before, "{at}: move {mv} loses value");
                margin += sign * gained as i32;
                (at, sign) = (child, -sign);
            }
            if solution.can_end(pos, None).unwrap() {
                assert!(at.is_over(), "{pos} can end; its line stops at {at}");
                margin += sign * at.terminal_value();
                assert_eq!(margin, value, "{pos}: the line's captures and sweep");
                ending += 1;
            } else {
                assert!(!at.is_over(), "{pos} cannot end; its line ends");
            }
        }
    }
    assert!(ending > 100, "{ending} positions that can end");
}

/// The ending line, which probes a position's children only until one
/// keeps the value and can end, is the line of the plain search that
/// probes every child first: the same depth-first search over the
/// value-keeping moves into positions that can end, the largest captures
/// first, then in pit order. Likewise the principal variation where no
/// ending line is found.
#[test]
fn ending_lines_equal_the_search_that_probes_every_child() {
    use sow::games::kpe::KpeMove;
    use sow::kpe_db::ENDING_LINE_NODES;
    use std::collections::HashSet;
    let eager = |solution: &Solution, pos: &KpePosition, max_len: usize| -> Option<Vec<KpeMove>> {
        if !solution.can_end(pos, None).unwrap() {
            return None;
        }
        let moves_of = |at: &KpePosition| -> Vec<KpeMove> {
            let all = solution.move_values(at, None).unwrap();
            let best = all.first().map(|&(_, v)| v);
            let mut keep: Vec<_> = (all.iter())
                .filter(|&&(mv, v)| {
                    Some(v) == best && solution.can_end(&at.play_unchecked(&mv), None).unwrap()
                })
                .map(|&(mv, _)| (std::cmp::Reverse(at.sow(mv.pit()).1), mv))
                .collect();
            keep.sort_unstable();
            keep.into_iter().map(|(_, mv)| mv).collect()
        };
        let mut visited = HashSet::from([pos.repetition_key()]);
        let mut stack = vec![(*pos, moves_of(pos), 0)];
        for _ in 0..ENDING_LINE_NODES {
            let depth = stack.len();
            let (at, moves, tried) = stack.last_mut()?;
            if at.is_over() {
                return Some(
                    stack[..depth - 1]
                        .iter()
                        .map(|(_, m, t)| m[t - 1])
                        .collect(),
                );
            }
            if *tried == moves.len() || depth > max_len {
                stack.pop();
                continue;
            }
            let child = at.play_unchecked(&moves[*tried]);
            *tried += 1;
            if visited.insert(child.repetition_key()) {
                let moves = moves_of(&child);
                stack.push((child, moves, 0));
            }
        }
        None
    };
    let mut lines = 0;
    for (w, k) in [(2, 3), (3, 2), (2, 4)] {
        let variant = KpeVariant::new(w, k).unwrap();
        let (positions, _) = reachable(KpePosition::start(variant));
        let solution = Solution::in_memory(variant, Progress::Hidden);
        // Every position of the smaller variants, one in five of kpe:3x2.
        let step = if positions.len() > 10_000 { 5 } else { 1 };
        for pos in positions.iter().step_by(step) {
            for max_len in [3, 1000] {
                let line = solution.ending_line(pos, None, max_len).unwrap();
                let expected = eager(&solution, pos, max_len);
                assert_eq!(line, expected, "{pos}, at most {max_len} moves");
                lines += line.is_some() as usize;
                // Otherwise the principal variation plays the first best
                // move each time, until a position repeats.
                let expected = expected.unwrap_or_else(|| {
                    let (mut at, mut line, mut seen) = (*pos, vec![], HashSet::new());
                    while line.len() < max_len && seen.insert(at.repetition_key()) {
                        let Some(&(best, _)) = solution.move_values(&at, None).unwrap().first()
                        else {
                            break;
                        };
                        line.push(best);
                        at = at.play_unchecked(&best);
                    }
                    line
                });
                let pv = solution.principal_variation(pos, None, max_len).unwrap();
                assert_eq!(
                    pv, expected,
                    "{pos}: principal variation, at most {max_len} moves"
                );
            }
        }
    }
    assert!(lines > 100, "{lines} ending lines");
}
