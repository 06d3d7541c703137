//! Un-moves: the positions from which a non-capturing move leads to a given
//! position, for retrograde analysis of the unlocked endgame.

use crate::games::kpe::KpeVariant;

/// Calls `f` with every predecessor of `board` by a non-capturing move.
///
/// `board` is relative to its mover X (X's row first, as South). The
/// predecessors are positions where X's opponent Y was to move with both
/// players unlocked; they are given relative to Y. A predecessor comes
/// once per move that leads to `board`.
pub fn for_each_unmove(variant: KpeVariant, board: &[u8], mut f: impl FnMut(&[u8])) {
    let w = variant.w();
    let n = variant.pits();
    let total: usize = board.iter().map(|&c| c as usize).sum();
    let mut before = [0u8; 16];
    let mut relative = [0u8; 16];
    for q in w..n {
        // RULES §1.1: the origin is emptied, then gets one stone per full lap.
        let laps = board[q];
        if board.iter().any(|&c| c < laps) {
            continue;
        }
        for r in 0..n {
            let sown = laps as usize * n + r;
            if sown == 0 {
                continue;
            }
            if sown > total {
                break;
            }
            let last = (q + r) % n;
            if r > 0 && board[last] <= laps {
                break; // pits q+1..q+r each got one stone more than a lap
            }
            if last < w && matches!(board[last], 2 | 4) {
                continue; // §1.3: Y is unlocked, so this move captured
            }
            for (b, &c) in before[..n].iter_mut().zip(board) {
                *b = c - laps;
            }
            for d in 1..=r {
                before[(q + d) % n] -= 1;
            }
            before[q] = sown as u8;
            if !is_legal_for_y(&before[..n], w, q) {
                continue;
            }
            for (i, c) in relative[..n].iter_mut().enumerate() {
                *c = before[(i + w) % n];
            }
            f(&relative[..n]);
        }
    }
}

/// RULES §1.4 from Y's side (Y owns pits w..2w, X pits 0..w): the move
/// from `q` is legal unless X's row is empty and it does not feed X while
/// another of Y's moves would.
fn is_legal_for_y(before: &[u8], w: usize, q: usize) -> bool {
    let n = 2 * w;
    if before[..w].iter().any(|&c| c > 0) {
        return true;
    }
    let feeds = |p: usize| before[p] as usize >= n - p;
    feeds(q) || !(w..n).any(feeds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::endgame::Endgame;

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
                    for_each_unmove(variant, &board, |pred| {
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
