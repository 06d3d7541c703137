//! Combinatorial ranking of boards: every distribution of `n` stones over
//! `P` pits gets a dense index in `0..C(n+P-1, P-1)`, in lexicographic order
//! of the pit counts taken in a fixed order of the pits (the index's
//! *significance order*). No hashing, no gaps.
//!
//! Kpé boards are ranked with the two rows interleaved (pit 0, pit `W`,
//! pit 1, pit `W + 1`, …: [`BoardIndex::interleaved_rows`]). A position is
//! ranked relative to its mover, so a move turns the board half round: in
//! plain pit order the least significant pits of a child (the opponent's
//! row) became the most significant of its parents, and the parents of
//! nearby children lay far apart. Interleaved, the half turn swaps each
//! pair of digits and keeps their significance: the parents that the
//! retrograde's un-moves find for 64 consecutive boards of the standard
//! game's 48-stone layer fall on 56 cache lines and 15 pages of its state
//! instead of 194 and 192 (the test `parents_of_nearby_boards_are_near_\
//! with_interleaved_rows` in `kpe_db/unmove.rs` prints them).

use crate::games::kpe::KpeVariant;

/// Beyond this many steps forward, [`BoardIndex::seek`] unranks instead.
const NEAR: u64 = 48;
/// Most pits a board of an index has (Kiothi's 20).
const MAX_PITS: usize = 20;

/// Ranks and unranks boards of one pit count.
#[derive(Clone, Debug)]
pub struct BoardIndex {
    pits: usize,
    /// The pits from the most significant digit of a rank to the least.
    order: [usize; MAX_PITS],
    /// `binom[a][b]` = C(a, b), saturating at `u64::MAX`.
    binom: Vec<[u64; 22]>,
    /// `tails[i * stride + m]` = the boards of pits `i + 1..` holding at
    /// most `m` stones, C(m + P - i - 1, P - i - 1): a board's rank is a
    /// sum of differences of these ([`Self::below`]), one flat table of a
    /// few KiB that ranking and unranking read without a second index.
    tails: Vec<u64>,
    /// `steps[i * stride + m]` = `tails` row `i` minus row `i - 1` at `m`
    /// (wrapping: rows shrink as `i` grows), for `i` in `1..P - 1`; row 0
    /// is unused. [`Self::rank_in_layer`] reads one of these a pit.
    steps: Vec<u64>,
    stride: usize,
}

impl BoardIndex {
    /// An index for boards of `pits` pits holding at most `max_stones`,
    /// ranked in plain pit order.
    pub fn new(pits: usize, max_stones: usize) -> Self {
        Self::with_order(pits, max_stones, &(0..pits).collect::<Vec<_>>())
    }

    /// The index of every Kpé board of `variant` (the layers, the region's
    /// keys): its rows interleaved. The one place that chooses the order
    /// the database is laid out in (`kpe_db/file/`, format version 3).
    pub fn kpe(variant: KpeVariant) -> Self {
        Self::interleaved_rows(variant.pits(), variant.total() as usize)
    }

    /// An index for boards of two rows of `pits / 2` pits, ranked with
    /// the rows interleaved (module documentation): pit 0, pit `W`, pit 1,
    /// pit `W + 1`, …
    pub fn interleaved_rows(pits: usize, max_stones: usize) -> Self {
        let w = pits / 2;
        assert_eq!(2 * w, pits, "two rows");
        let order: Vec<usize> = (0..w).flat_map(|i| [i, w + i]).collect();
        Self::with_order(pits, max_stones, &order)
    }

    /// An index ranking the pits in `order`, most significant first.
    fn with_order(pits: usize, max_stones: usize, order: &[usize]) -> Self {
        assert!((2..=MAX_PITS).contains(&pits), "board of {pits} pits");
        let mut sorted = order.to_vec();
        sorted.sort_unstable();
        assert!(
            sorted.iter().copied().eq(0..pits),
            "order {order:?} of {pits} pits"
        );
        let mut significance = [0; MAX_PITS];
        significance[..pits].copy_from_slice(order);
        let rows = max_stones + pits + 2;
        let mut binom = vec![[0u64; 22]; rows];
        for a in 0..rows {
            binom[a][0] = 1;
            for b in 1..22.min(a + 1) {
                binom[a][b] =
                    binom[a - 1][b - 1].saturating_add(if b < a { binom[a - 1][b] } else { 0 });
            }
        }
        let stride = max_stones + 1;
        let mut tails = vec![0u64; (pits - 1) * stride];
        for i in 0..pits - 1 {
            let k = pits - i - 2;
            for m in 0..stride {
                tails[i * stride + m] = binom[m + k + 1][k + 1];
            }
        }
        let mut steps = vec![0u64; (pits - 1) * stride];
        for i in 1..pits - 1 {
            for m in 0..stride {
                steps[i * stride + m] =
                    tails[i * stride + m].wrapping_sub(tails[(i - 1) * stride + m]);
            }
        }
        BoardIndex {
            pits,
            order: significance,
            binom,
            tails,
            steps,
            stride,
        }
    }

    pub fn pits(&self) -> usize {
        self.pits
    }

    #[inline]
    fn c(&self, a: usize, b: usize) -> u64 {
        self.binom[a][b]
    }

    /// Number of boards holding exactly `n` stones.
    pub fn layer_size(&self, n: usize) -> u64 {
        self.c(n + self.pits - 1, self.pits - 1)
    }

    /// Row `i` of [`Self::tails`]: entry `m` counts the boards of pits
    /// `i + 1..` holding at most `m` stones.
    #[inline]
    fn tail_row(&self, i: usize) -> &[u64] {
        &self.tails[i * self.stride..][..self.stride]
    }

    /// Compositions of the `m` stones left with pit `i` holding fewer than `c`.
    #[inline]
    fn below(&self, i: usize, m: usize, c: usize) -> u64 {
        let row = self.tail_row(i);
        row[m] - row[m - c]
    }

    /// The index of a board within its layer (`n` = its stone count).
    ///
    /// The boards before it are, pit by pit, those that put fewer stones
    /// in pit `i` with the same pits before it: with `m` stones left for
    /// pits `i..`, [`Self::below`] of them.
    #[inline]
    pub fn rank(&self, board: &[u8]) -> u64 {
        self.rank_in_layer(board, board.iter().map(|&c| c as usize).sum())
    }

    /// [`Self::rank`] of a board whose stone count `n` the caller knows
    /// (an un-move keeps it): the sum is not taken again. Taken from bytes
    /// just written one by one, it stalled on their stores (the
    /// retrograde's hottest instruction, `results/BENCHMARKS.md`).
    ///
    /// The sum of [`Self::below`] over the pits telescopes: with `m_i` the
    /// stones in pits `i..` (significance order), pit `i`'s term is
    /// `T_i[m_i] - T_i[m_{i+1}]` (`T_i` = row `i` of `tails`), so the rank
    /// is `T_0[n] + Σ_{0<i<P-1} (T_i[m_i] - T_{i-1}[m_i]) - T_{P-2}[m_{P-1}]`,
    /// and `T_{P-2}[m] = m + 1`. One table read a pit ([`Self::steps`]),
    /// each address known from the counts alone, instead of two reads a
    /// pit in a chain: the un-moves' ranking is the retrograde's hottest
    /// code (`results/BENCHMARKS.md`). Always inlined: called on its own
    /// it reloads the index's fields and pushes registers every call.
    #[inline(always)]
    pub fn rank_in_layer(&self, board: &[u8], n: usize) -> u64 {
        debug_assert_eq!(board.iter().map(|&c| c as usize).sum::<usize>(), n);
        assert!(n < self.stride, "board of {n} stones");
        let last = self.order[self.pits - 1];
        let mut r = self.tails[n].wrapping_sub(board[last] as u64 + 1);
        let mut m = n;
        for i in 1..self.pits - 1 {
            m -= board[self.order[i - 1]] as usize;
            r = r.wrapping_add(self.steps[i * self.stride + m]);
        }
        r
    }

    /// The board of layer `n` with index `r`.
    pub fn unrank(&self, n: usize, r: u64, board: &mut [u8]) {
        let board = &mut board[..self.pits];
        self.for_each_unranked_count(n, r, |i, c| board[i] = c);
    }

    /// [`Self::unrank`] into one word (pit `i` in byte `i`), built in
    /// registers: stored a byte at a time, the board would be read back
    /// as a word only once those stores reach the cache.
    #[inline]
    pub fn unrank_word(&self, n: usize, r: u64) -> u128 {
        debug_assert!(self.pits <= 16);
        let mut word = 0u128;
        self.for_each_unranked_count(n, r, |i, c| word |= (c as u128) << (8 * i));
        word
    }

    /// Calls `put(i, count)` for every pit `i` of the board of layer `n`
    /// with index `r`, in significance order.
    #[inline]
    fn for_each_unranked_count(&self, n: usize, mut r: u64, mut put: impl FnMut(usize, u8)) {
        let mut m = n;
        for i in 0..self.pits - 1 {
            let mut c = 0;
            while c < m && self.below(i, m, c + 1) <= r {
                c += 1;
            }
            r -= self.below(i, m, c);
            put(self.order[i], c as u8);
            m -= c;
        }
        put(self.order[self.pits - 1], m as u8);
    }

    /// Moves `board`, the board of index `at` of layer `n` (any board if
    /// `at` is `None`), to the board of index `to`. A few steps forward
    /// cost less than ranking from scratch: the solver visits the members
    /// of its work lists in increasing order, often close together.
    #[inline]
    pub fn seek(&self, n: usize, at: Option<u64>, to: u64, board: &mut [u8]) {
        match at {
            Some(at) if at <= to && to - at <= NEAR => {
                let (last, before_last) = self.last_two();
                let mut steps = to - at;
                while steps > 0 {
                    // While the last pit holds stones, a step moves one of
                    // them to the pit before it: as many steps as it holds
                    // are one move (stepping one at a time waits on each
                    // step's stores).
                    let k = steps.min(board[last] as u64);
                    if k > 0 {
                        board[before_last] += k as u8;
                        board[last] -= k as u8;
                        steps -= k;
                    } else {
                        self.next(board);
                        steps -= 1;
                    }
                }
            }
            _ => self.unrank(n, to, board),
        }
    }

    /// The least significant pit and the one before it.
    #[inline]
    fn last_two(&self) -> (usize, usize) {
        (self.order[self.pits - 1], self.order[self.pits - 2])
    }

    /// Moves `board` to the next board of its layer in rank order; false
    /// after the last one.
    #[inline]
    pub fn next(&self, board: &mut [u8]) -> bool {
        let (last, before_last) = self.last_two();
        let tail = board[last];
        if tail > 0 {
            board[before_last] += 1;
            board[last] = tail - 1;
            return true;
        }
        // The last pit is empty: the least significant non-empty pit
        // before it (none but the first: the last board) gives one stone
        // to the pit before it, the rest to the last pit.
        let order = &self.order[..self.pits];
        let Some(j) = (1..self.pits - 1).rev().find(|&j| board[order[j]] > 0) else {
            return false;
        };
        board[order[j - 1]] += 1;
        board[last] = board[order[j]] - 1;
        board[order[j]] = 0;
        true
    }

    /// [`Self::next`] for a board of at most 16 pits held as one word (pit
    /// `i` in byte `i`, little-endian, as `KpePosition` keeps its pits):
    /// `None` after the last board. A scan that steps a board in memory a
    /// byte at a time and then reads it as a word waits for those stores
    /// to reach the cache (a store cannot be forwarded to a wider load);
    /// as a word the board stays in registers.
    #[inline]
    pub fn next_word(&self, board: u128) -> Option<u128> {
        debug_assert!(self.pits <= 16);
        let (last, before_last) = self.last_two();
        let unit = |i: usize| 1u128 << (8 * i);
        let count = |i: usize| (board >> (8 * i)) as u8 as u128;
        if count(last) > 0 {
            return Some(board + unit(before_last) - unit(last));
        }
        // The last pit is empty: the least significant non-empty pit
        // before it gives one stone to the pit before it, the rest to the
        // last pit.
        let order = &self.order[..self.pits];
        let j = (1..self.pits - 1).rev().find(|&j| count(order[j]) > 0)?;
        let stones = count(order[j]);
        Some(board + unit(order[j - 1]) - (stones << (8 * order[j])) + ((stones - 1) << (8 * last)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both kinds of index this tool uses: plain pit order and, on an even
    /// number of pits, interleaved rows.
    fn indexes(pits: usize, max_stones: usize) -> Vec<BoardIndex> {
        let mut all = vec![BoardIndex::new(pits, max_stones)];
        if pits.is_multiple_of(2) {
            all.push(BoardIndex::interleaved_rows(pits, max_stones));
        }
        all
    }

    #[test]
    fn next_word_steps_as_next_does() {
        for (pits, index) in [2usize, 3, 8, 16]
            .into_iter()
            .flat_map(|p| indexes(p, 12).into_iter().map(move |i| (p, i)))
        {
            for n in [0usize, 1, 2, 7, 12] {
                let mut board = vec![0u8; pits];
                index.unrank(n, 0, &mut board);
                let mut bytes = [0u8; 16];
                bytes[..pits].copy_from_slice(&board);
                let mut word = u128::from_le_bytes(bytes);
                assert_eq!(index.unrank_word(n, 0), word);
                let mut steps = 0u64;
                loop {
                    let more = index.next(&mut board);
                    let next = index.next_word(word);
                    assert_eq!(
                        next.is_some(),
                        more,
                        "{pits} pits, {n} stones, step {steps}"
                    );
                    let Some(next) = next else { break };
                    word = next;
                    assert_eq!(
                        &word.to_le_bytes()[..pits],
                        &board[..],
                        "{pits} pits, {n} stones"
                    );
                    steps += 1;
                    assert_eq!(index.unrank_word(n, steps), word);
                }
                assert_eq!(steps + 1, index.layer_size(n));
            }
        }
    }

    #[test]
    fn rank_and_unrank_are_inverse_bijections_on_every_small_layer() {
        for (pits, index) in [2usize, 4, 6, 8]
            .into_iter()
            .flat_map(|p| indexes(p, 10).into_iter().map(move |i| (p, i)))
        {
            for n in 0..=10 {
                let size = index.layer_size(n);
                let mut board = vec![0u8; pits];
                index.unrank(n, 0, &mut board);
                let mut seen = 0u64;
                loop {
                    assert_eq!(board.iter().map(|&c| c as usize).sum::<usize>(), n);
                    assert_eq!(index.rank(&board), seen, "{board:?}");
                    let mut back = vec![0u8; pits];
                    index.unrank(n, seen, &mut back);
                    assert_eq!(back, board);
                    seen += 1;
                    if !index.next(&mut board) {
                        break;
                    }
                }
                assert_eq!(seen, size, "pits {pits} n {n}");
                // Seeking from any board to any later or earlier one.
                let mut rng = crate::infra::rng::Rng::new(n as u64 * 31 + pits as u64);
                let mut sought = vec![0u8; pits];
                let mut back = vec![0u8; pits];
                let mut from: Option<u64> = None;
                for _ in 0..300 {
                    let below =
                        |rng: &mut crate::infra::rng::Rng, k: u64| rng.below(k as usize) as u64;
                    let to = match (from, rng.below(4)) {
                        (Some(f), 0) => (f + below(&mut rng, 4)).min(size - 1),
                        (Some(f), 1) => (f + below(&mut rng, 60)).min(size - 1),
                        _ => below(&mut rng, size),
                    };
                    index.seek(n, from, to, &mut sought);
                    index.unrank(n, to, &mut back);
                    assert_eq!(sought, back, "seek from {from:?} to {to}");
                    from = Some(to);
                }
            }
        }
    }

    /// Interleaved, the rows' pits alternate in significance: the first
    /// boards of a layer fill pit `2W - 1` (the least significant), then
    /// pit `W - 1`, and the last holds every stone in pit 0.
    #[test]
    fn interleaved_rows_rank_pits_alternately() {
        let index = BoardIndex::interleaved_rows(8, 48);
        let rank = |b: [u8; 8]| index.rank(&b);
        assert_eq!(rank([0, 0, 0, 0, 0, 0, 0, 3]), 0);
        assert_eq!(rank([0, 0, 0, 1, 0, 0, 0, 2]), 1);
        assert_eq!(rank([0, 0, 0, 3, 0, 0, 0, 0]), 3);
        assert_eq!(rank([0, 0, 0, 0, 0, 0, 1, 2]), 4);
        assert_eq!(rank([3, 0, 0, 0, 0, 0, 0, 0]), index.layer_size(3) - 1);
        assert_eq!(rank([2, 0, 0, 0, 1, 0, 0, 0]), index.layer_size(3) - 2);
    }

    #[test]
    fn standard_board_counts() {
        let index = BoardIndex::new(8, 48);
        let even: u64 = (0..=48).step_by(2).map(|n| index.layer_size(n)).sum();
        assert_eq!(even, 764_395_515);
        assert_eq!(index.layer_size(48), 202_927_725);
    }
}
