//! What the moves of a region's positions into the unlocked layers are
//! worth: the one pass of a region's solution that reads the layers, so
//! that a build can let them go before it solves the groups.

use rayon::prelude::*;

use super::{is_locked, LockedRegion};
use crate::infra::progress::Progress;
use crate::kpe_db::endgame::{Endgame, LayerValues};
use crate::kpe_db::entry::{entry_can_end, entry_value};
use crate::kpe_db::error::DbError;
use crate::kpe_db::keys::ranker::{KeyCursor, RegionKey};
use crate::kpe_db::scratch::ScratchVec;
use crate::retrograde::bits::Bits;
use crate::retrograde::thresholds::NO_EXIT;
use crate::Game;

/// Positions whose moves into the unlocked database are sown before their
/// entries are read ([`LockedRegion::unlocked_exits_of`]).
const EXITS_BATCH: usize = 16;

/// What the moves of a region's positions into the unlocked database are
/// worth, per group: the best value such a move gives ([`NO_EXIT`] if
/// none), and whether perfect play after that best move can end.
pub(crate) struct UnlockedExits {
    pub(super) best: Vec<ScratchVec<i8>>,
    pub(super) ends: Vec<Bits>,
}

impl LockedRegion {
    /// What the moves of every position into the unlocked database are
    /// worth: the one pass that reads the layers, so that the solver
    /// can let them go before it solves (they were the largest thing in
    /// memory beside the region).
    /// Groups before `first` are solved already (restored from a
    /// checkpoint): they get none.
    pub(crate) fn unlocked_exits(
        &self,
        eg: &Endgame,
        layers: &impl LayerValues,
        first: usize,
        progress: Progress,
    ) -> Result<UnlockedExits, DbError> {
        let solved: usize = self.groups[..first].iter().map(|g| g.len).sum();
        let bar = progress.bar((self.len() - solved) as u64, "locked");
        bar.set_message("exits");
        let mut exits = UnlockedExits {
            best: Vec::new(),
            ends: Vec::new(),
        };
        // A slice of a group's keys at a time: the largest group's keys,
        // decoded at once, made this pass's peak.
        const SLICE: usize = 1 << 22;
        for _ in 0..first {
            exits.best.push(ScratchVec::default());
            exits.ends.push(Bits::new(0));
        }
        for (g, group) in self.groups.iter().enumerate().skip(first) {
            let ends = Bits::new(group.len as u64);
            let mut best = self.scratch.zeroed(group.len)?;
            for start in (0..group.len).step_by(SLICE) {
                let end = group.len.min(start + SLICE);
                let keys = self.group_keys_in(g, start..end);
                keys.par_chunks(EXITS_BATCH)
                    .zip(best[start..end].par_chunks_mut(EXITS_BATCH))
                    .enumerate()
                    .for_each_init(
                        || (self.ranker.cursor(), Vec::new()),
                        |(cursor, probes), (c, (keys, slots))| {
                            let first = start + c * EXITS_BATCH;
                            self.unlocked_exits_of(eg, layers, cursor, keys, slots, probes)
                                .into_iter()
                                .enumerate()
                                .filter(|&(_, can_end)| can_end)
                                .for_each(|(k, _)| {
                                    ends.insert((first + k) as u64);
                                });
                        },
                    );
                bar.inc(keys.len() as u64);
            }
            exits.best.push(best);
            exits.ends.push(ends);
        }
        bar.finish_and_clear();
        Ok(exits)
    }

    /// [`Self::unlocked_exits`] of the positions of `keys`: each one's
    /// best move into the unlocked database written to `slots`, and
    /// whether play after it can end returned. Two steps, as the layers'
    /// exits (`Endgame::classify_batch`): every such move is sown and its
    /// entry asked for, then the entries are read, so that the cache
    /// misses over the layers overlap.
    fn unlocked_exits_of(
        &self,
        eg: &Endgame,
        layers: &impl LayerValues,
        cursor: &mut KeyCursor,
        keys: &[RegionKey],
        slots: &mut [i8],
        probes: &mut Vec<(u8, u8, usize, u64)>,
    ) -> [bool; EXITS_BATCH] {
        probes.clear();
        for (k, &key) in keys.iter().enumerate() {
            let pos = cursor.position(key);
            let _ = pos.for_each_move(|mv| {
                // Only the moves that leave the lock are sown.
                if pos.move_unlocks_both(mv.pit()) {
                    let (child, gained) = pos.sow(mv.pit());
                    debug_assert!(!is_locked(&child));
                    let (n, index) = eg.probe_at(&child);
                    layers.prefetch(n, index);
                    probes.push((k as u8, gained as u8, n, index));
                }
                std::ops::ControlFlow::Continue(())
            });
        }
        let mut ending = [NO_EXIT; EXITS_BATCH];
        slots.fill(NO_EXIT);
        for &(k, gained, n, index) in probes.iter() {
            let e = layers.entry(n, index);
            let value = gained as i8 - entry_value(e);
            let k = k as usize;
            slots[k] = slots[k].max(value);
            if entry_can_end(e) {
                ending[k] = ending[k].max(value);
            }
        }
        std::array::from_fn(|k| k < slots.len() && slots[k] != NO_EXIT && ending[k] == slots[k])
    }
}
