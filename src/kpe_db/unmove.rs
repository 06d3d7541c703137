//! Un-moves: the positions from which a non-capturing move leads to a given
//! position, for retrograde analysis of the unlocked endgame.

use crate::games::kpe::KpeVariant;

/// Calls `f` with every predecessor of `board` by a non-capturing move.
///
/// `board` is relative to its mover X (X's row first, as South). The
/// predecessors are positions where X's opponent Y was to move; they are
/// given relative to Y, with the index (in Y's row) of the pit Y lifted. A
/// predecessor comes once per move that leads to `board`. `y_unlocked` says
/// whether Y was unlocked after its move: only then could it have captured
/// (RULES §1.3), so only then are moves ending on a 2 or 4 excluded.
pub fn for_each_unmove(
    variant: KpeVariant,
    board: &[u8],
    y_unlocked: bool,
    f: impl FnMut(&[u8], usize),
) {
    let mut word = [0u8; 16];
    word[..board.len()].copy_from_slice(board);
    let total = board.iter().map(|&c| c as usize).sum();
    for_each_unmove_word(variant, u128::from_le_bytes(word), total, y_unlocked, f)
}

/// [`for_each_unmove`] of a board held as one word (pit `i` in byte `i`,
/// nothing past its pits) of `total` stones, which callers know (a layer's
/// or a key's count). The board relative to Y is turned in registers, not
/// copied into a second array and read back (which waited on the stores:
/// `results/BENCHMARKS.md`), and the stones are not summed again.
#[inline]
pub fn for_each_unmove_word(
    variant: KpeVariant,
    board: u128,
    total: usize,
    y_unlocked: bool,
    mut f: impl FnMut(&[u8], usize),
) {
    let w = variant.w();
    let n = variant.pits();
    // The bytes of the board's pits.
    let lanes = u128::MAX >> (8 * (16 - n));
    // One stone in each of those bytes (a mask, not `lanes / 0xff`: a
    // 128-bit division is a library call).
    let ones = u128::from_le_bytes([1; 16]) & lanes;
    debug_assert!(board & !lanes == 0);
    debug_assert_eq!(
        board
            .to_le_bytes()
            .iter()
            .map(|&c| c as usize)
            .sum::<usize>(),
        total
    );
    // The board relative to Y (Y's pit i is pit i + w), built once; each
    // predecessor is then this minus whole lanes.
    let rotated_word = (board >> (8 * w) | board << (8 * (n - w))) & lanes;
    let rotated = rotated_word.to_le_bytes();
    let board = board.to_le_bytes();
    let least = board[..n].iter().copied().min().unwrap_or(0);
    for (q, &laps) in board.iter().enumerate().take(n).skip(w) {
        // RULES §1.1: the origin is emptied, then gets one stone per full lap.
        if laps > least {
            continue;
        }
        // Y's pit of the origin. The board before the move is built
        // incrementally: every pit lost a stone a lap (`before`, one
        // subtraction over the turned board's word), and each further stone sown
        // takes one more from the next pit along; the origin's own count
        // is overwritten with the stones lifted. (Built afresh for every
        // length with a modular index per pit, this was the solver's
        // hottest loop, `results/BENCHMARKS.md`.)
        let origin = q - w;
        // No lane borrows: every pit holds at least `laps` stones.
        let mut before = (rotated_word - ones * laps as u128).to_le_bytes();
        let mut pit = origin; // Y's pit of the last stone sown
        for r in 0..n {
            if r > 0 {
                pit = if pit + 1 == n { 0 } else { pit + 1 };
                // Pit `pit` got one stone more than a lap.
                if rotated[pit] <= laps {
                    break;
                }
                before[pit] -= 1;
            }
            let sown = laps as usize * n + r;
            if sown == 0 {
                continue;
            }
            if sown > total {
                break;
            }
            // X's pits are Y's w..n: a last stone there on a 2 or 4 would
            // have captured.
            if y_unlocked && pit >= w && matches!(rotated[pit], 2 | 4) {
                continue;
            }
            before[origin] = sown as u8;
            if !is_legal_for_y(&before[..n], w, origin) {
                continue;
            }
            f(&before[..n], origin);
        }
    }
}

/// RULES §1.4 from Y's side, on the board relative to Y (Y owns pits
/// 0..w): the move from `q` is legal unless X's row is empty and it does not
/// feed X while another of Y's moves would.
fn is_legal_for_y(before: &[u8], w: usize, q: usize) -> bool {
    if before[w..].iter().any(|&c| c > 0) {
        return true;
    }
    let feeds = |p: usize| before[p] as usize >= w - p;
    feeds(q) || !(0..w).any(feeds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kpe_db::endgame::Endgame;
    use crate::retrograde::index::BoardIndex;

    /// Distinct cache lines (16 four-byte retrograde words) and 4 KiB pages
    /// holding the parents that un-moves find for 2,000 runs of 64
    /// consecutive boards of the standard game's 48-stone layer: the
    /// figures of `index.rs`'s module documentation (`cargo test --release
    /// --lib parents_of_nearby_boards -- --nocapture` prints them).
    fn parent_spread(index: &BoardIndex) -> (f64, f64) {
        use std::collections::HashSet;
        let variant = KpeVariant::STANDARD;
        let n = 48;
        let size = index.layer_size(n);
        let mut rng = crate::infra::rng::Rng::new(12345);
        let (mut lines, mut pages) = (0usize, 0usize);
        const RUNS: usize = 2000;
        for _ in 0..RUNS {
            let start = rng.below(size as usize - 64) as u64;
            let (mut run_lines, mut run_pages) = (HashSet::new(), HashSet::new());
            let mut board = [0u8; 8];
            for r in start..start + 64 {
                index.unrank(n, r, &mut board);
                for_each_unmove(variant, &board, true, |pred, _| {
                    let rank = index.rank_in_layer(pred, n);
                    run_lines.insert(rank / 16);
                    run_pages.insert(rank / 1024);
                });
            }
            lines += run_lines.len();
            pages += run_pages.len();
        }
        (lines as f64 / RUNS as f64, pages as f64 / RUNS as f64)
    }

    /// Interleaved rows keep the parents of nearby boards near each other
    /// (`index.rs`): far fewer lines and pages than plain pit order.
    #[test]
    fn parents_of_nearby_boards_are_near_with_interleaved_rows() {
        let plain = parent_spread(&BoardIndex::new(8, 48));
        let interleaved = parent_spread(&BoardIndex::interleaved_rows(8, 48));
        println!(
            "lines and pages a run of 64 boards: plain {plain:.1?}, interleaved {interleaved:.1?}"
        );
        assert!(
            interleaved.0 * 2.0 < plain.0,
            "{interleaved:?} against {plain:?}"
        );
        assert!(
            interleaved.1 * 5.0 < plain.1,
            "{interleaved:?} against {plain:?}"
        );
    }

    /// Every non-capturing move from every unlocked position is found back
    /// as an un-move from the child, and nothing else is.
    #[test]
    fn unmoves_invert_non_capturing_moves() {
        for (w, k) in [(2, 2), (2, 3), (3, 2), (4, 1)] {
            let variant = KpeVariant::new(w, k).unwrap();
            let eg = Endgame::new(variant);
            let pits = variant.pits();
            let mut forward = Vec::new();
            let mut backward = Vec::new();
            for n in eg.layers() {
                let mut board = vec![0u8; pits];
                eg.index.unrank(n, 0, &mut board);
                loop {
                    let pos = eg.position(&board);
                    let mut mask = pos.legal_mask();
                    while mask != 0 {
                        let pit = mask.trailing_zeros() as usize;
                        mask &= mask - 1;
                        let (child, gained) = pos.sow(pit);
                        if gained == 0 {
                            forward.push((child.relative().pits().to_vec(), board.clone()));
                        }
                    }
                    for_each_unmove(variant, &board, true, |pred, _| {
                        backward.push((board.clone(), pred.to_vec()))
                    });
                    if !eg.index.next(&mut board) {
                        break;
                    }
                }
            }
            forward.sort();
            backward.sort();
            assert!(!forward.is_empty());
            assert_eq!(forward, backward, "variant {w}x{k}");
        }
    }
}
