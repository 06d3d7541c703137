//! The threshold retrograde of one layer over ranks, each holding the
//! words of its own range of the layer (`ranks/partition.rs`), and the "can end"
//! spread that completes it (`kpe_db::endless`'s, over ranks).
//!
//! The seeds of a threshold are each rank's own; the news of every
//! admitted position travels to its predecessors' owners in waves
//! (`ranks/exchange.rs`), as a message of its predecessor's index in its
//! owner's range and two flags: the child was lost (else won) at the
//! threshold, and it is known to be able to end. The owner informs its
//! word exactly as the single-process solve does ([`LayerState::inform`]),
//! so both find the same values and "can end": the least fixpoints
//! (`thresholds.rs`), whatever order the news comes in.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::{Endings, LayerState, Word, NO_EXIT, PREFETCHED_CHILDREN};
use crate::retrograde::bits::Bits;
use crate::retrograde::ranks::{waves, Outbox, Partition, Traffic, Transport, WAVE_CHILDREN};

/// A message of the thresholds: the predecessor's index in its owner's
/// range, the child lost (bit 1), the child can end (bit 0).
#[inline]
fn news(local: u64, lost: bool, ends: bool) -> u64 {
    local << 2 | (lost as u64) << 1 | ends as u64
}

impl LayerState {
    /// [`Self::solve`] of this rank's range (`partition.range(rank)`,
    /// whose words this state holds) with the other ranks, which call it
    /// together. `predecessors` takes and gives indices in the whole
    /// layer. Returns this rank's traffic.
    pub fn solve_over_ranks<T, P>(
        &mut self,
        transport: &T,
        partition: &Partition,
        max_value: i8,
        predecessors: P,
        mut on_threshold: impl FnMut(i8, u64),
    ) -> Traffic
    where
        T: Transport + ?Sized,
        P: Fn(&[u32], &mut Vec<(u32, u32)>) + Sync,
    {
        let first = partition.start(transport.rank());
        debug_assert_eq!(
            partition.range(transport.rank()).end - first,
            self.words.len() as u64
        );
        let pending = Bits::new(self.words.len() as u64);
        let mut traffic = Traffic::default();
        for t in (1..=max_value).rev().filter(|t| t % 2 == 0) {
            self.seeds(t, &pending);
            let admitted = AtomicU64::new(0);
            let state = &*self;
            let emit = |children: &[u32], out: &mut Outbox| {
                admitted.fetch_add(children.len() as u64, Relaxed);
                let global: Vec<u32> = children.iter().map(|&c| c + first as u32).collect();
                let mut edges = Vec::new();
                for batch in global.chunks(PREFETCHED_CHILDREN) {
                    edges.clear();
                    predecessors(batch, &mut edges);
                    for &(p, child) in &edges {
                        let child = state.load((child as u64 - first) as usize);
                        let owner = partition.owner(p as u64);
                        let local = p as u64 - partition.start(owner);
                        out.send(owner, news(local, child.value() < 0, child.can_end()));
                    }
                }
            };
            let apply = |m: u64| {
                let value = if m & 2 != 0 { -t } else { t };
                let ending = if m & 1 != 0 { value } else { NO_EXIT };
                let child = Word::new(NO_EXIT, 0, ending).with_value(value);
                let p = (m >> 2) as usize;
                if state.inform(p, child, t) {
                    pending.insert(p as u64);
                }
            };
            traffic.add(waves(transport, &pending, WAVE_CHILDREN, emit, apply));
            on_threshold(t, admitted.into_inner());
        }
        traffic
    }
}

/// "Can end" of this rank's range of a layer (`kpe_db::endless`'s spread
/// over ranks): `values` and `endings` are the range's, from
/// [`LayerState::solve_over_ranks`]; `edges` as there. A message carries
/// the predecessor's index in its owner's range and the child's value.
pub fn spread_endings_over_ranks<T, P>(
    transport: &T,
    partition: &Partition,
    values: &[i8],
    endings: Endings,
    edges: P,
) -> (Bits, Traffic)
where
    T: Transport + ?Sized,
    P: Fn(&[u32], &mut Vec<(u32, u32)>) + Sync,
{
    let first = partition.start(transport.rank());
    let Endings {
        known: bits,
        untold: pending,
    } = endings;
    let emit = |children: &[u32], out: &mut Outbox| {
        let global: Vec<u32> = children.iter().map(|&c| c + first as u32).collect();
        let mut out_edges = Vec::new();
        edges(&global, &mut out_edges);
        for &(p, child) in &out_edges {
            let value = values[(child as u64 - first) as usize];
            let owner = partition.owner(p as u64);
            let local = p as u64 - partition.start(owner);
            out.send(owner, local << 8 | value as u8 as u64);
        }
    };
    let apply = |m: u64| {
        let p = m >> 8;
        let child_value = m as u8 as i8;
        if values[p as usize] == -child_value && bits.insert(p) {
            pending.insert(p);
        }
    };
    let traffic = waves(transport, &pending, WAVE_CHILDREN, emit, apply);
    (bits, traffic)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infra::rng::Rng;
    use crate::retrograde::ranks::InProcess;
    use crate::retrograde::thresholds::pack_state;
    use crate::retrograde::thresholds::random_layer::Layer as RandomLayer;

    /// A random layer with its parents (each child's predecessors).
    struct Layer {
        exit: Vec<i8>,
        ending: Vec<i8>,
        moves: Vec<Vec<u32>>,
        parents: Vec<Vec<u32>>,
    }

    impl Layer {
        fn random(rng: &mut Rng, size: usize, max: i8) -> Self {
            let random = RandomLayer::random(rng, size, max);
            let parents = random.parents();
            let RandomLayer {
                exit,
                ending,
                moves,
            } = random;
            Layer {
                exit,
                ending,
                moves,
                parents,
            }
        }

        fn edges(&self, chunk: &[u32], out: &mut Vec<(u32, u32)>) {
            for &c in chunk {
                out.extend(self.parents[c as usize].iter().map(|&p| (p, c)));
            }
        }

        fn words(&self, range: std::ops::Range<u64>) -> Vec<std::sync::atomic::AtomicU32> {
            range
                .map(|i| i as usize)
                .map(|i| pack_state(self.exit[i], self.moves[i].len() as u8, self.ending[i]))
                .collect()
        }

        /// Values by the single-process `LayerState::solve`, and "can
        /// end" by its definition (`endless.rs`) run to a fixpoint.
        fn single(&self, max: i8) -> (Vec<i8>, Vec<bool>) {
            let len = self.exit.len() as u64;
            let mut state = LayerState::from_words(self.words(0..len));
            state.solve(max, |c, o| self.edges(c, o), |_, _| {});
            let (values, _) = state.into_values();
            let mut can: Vec<bool> = (0..values.len())
                .map(|i| self.ending[i] == values[i])
                .collect();
            let mut changed = true;
            while changed {
                changed = false;
                for i in 0..values.len() {
                    if !can[i]
                        && (self.moves[i].iter())
                            .any(|&c| -values[c as usize] == values[i] && can[c as usize])
                    {
                        can[i] = true;
                        changed = true;
                    }
                }
            }
            (values, can)
        }

        /// Values and "can end" over `ranks` ranks.
        fn over_ranks(&self, max: i8, ranks: usize, block: u64) -> (Vec<i8>, Vec<bool>, Traffic) {
            let len = self.exit.len() as u64;
            let part = Partition::new(len, ranks, block);
            let slices = InProcess::run(ranks, |t| {
                let range = part.range(t.rank());
                let mut state = LayerState::from_words(self.words(range.clone()));
                let edges = |c: &[u32], o: &mut Vec<(u32, u32)>| self.edges(c, o);
                let traffic = state.solve_over_ranks(t, &part, max, edges, |_, _| {});
                let (values, endings) = state.into_values();
                let (can, more) = spread_endings_over_ranks(t, &part, &values, endings, edges);
                let can: Vec<bool> = (0..values.len() as u64).map(|i| can.get(i)).collect();
                let mut traffic = traffic;
                traffic.add(more);
                (values, can, traffic.summed(t))
            });
            let traffic = slices[0].2;
            let (values, can) =
                slices
                    .into_iter()
                    .fold((Vec::new(), Vec::new()), |(mut v, mut c), s| {
                        v.extend(s.0);
                        c.extend(s.1);
                        (v, c)
                    });
            (values, can, traffic)
        }
    }

    /// Over 1 to 4 ranks, with ranges of uneven sizes and ranks left empty
    /// (more ranks than blocks), values and "can end" are the single
    /// process's, on random layers; news crosses ranks whenever there are
    /// several non-empty ones.
    #[test]
    fn ranks_find_the_single_process_values_and_endings() {
        let mut rng = Rng::new(64);
        let mut crossed = 0;
        for round in 0..120 {
            let size = match round % 4 {
                0 => 1 + rng.below(10),
                1 => 60 + rng.below(200),
                2 => 1_000 + rng.below(3_000),
                _ => 20_000 + rng.below(30_000),
            };
            let max = 2 * (1 + rng.below(4)) as i8;
            let layer = Layer::random(&mut rng, size, max);
            let (values, can) = layer.single(max);
            for ranks in 1..=4 {
                let block = [64, 128, 4096][rng.below(3)];
                let (v, c, traffic) = layer.over_ranks(max, ranks, block);
                assert_eq!(v, values, "round {round}, {ranks} ranks: values");
                assert_eq!(c, can, "round {round}, {ranks} ranks: can end");
                crossed += (traffic.messages_sent > 0) as usize;
                if ranks == 1 {
                    assert_eq!(traffic.messages_sent, 0);
                }
            }
        }
        assert!(crossed > 50, "{crossed}");
    }
}
