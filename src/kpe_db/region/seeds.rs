//! The keys an exploration of the locked region finds for groups whose
//! turn has not come, kept compact until it does.
//!
//! A move that captures or sets a mark leads out of its group (one stone
//! count, one class of marks) to a group closed later (`explore.rs`). Those
//! keys wait as sorted runs: per stone count, a buffer of (class, local
//! rank) pairs is sorted and deduplicated every [`RUN_KEYS`] keys, then
//! stored by class, each class's local ranks as LEB128 gaps (2 to 3 bytes a
//! key, against some 16 in a hash set), in the region's scratch
//! (`kpe_db/scratch.rs`: mapped from disk out of core). A group reads its
//! keys back, from every run, only when it is opened.

use std::sync::Mutex;

use crate::kpe_db::error::DbError;
use crate::kpe_db::scratch::{Scratch, ScratchVec};

/// Keys a stone count's buffer holds before it is stored as a run.
const RUN_KEYS: usize = 1 << 20;

/// Keys found ahead of their group's turn, by stone count.
pub struct Seeds {
    counts: Vec<StoneCount>,
    scratch: Scratch,
}

#[derive(Default)]
struct StoneCount {
    /// (class, local rank), in the order found.
    pending: Mutex<Vec<(u32, u64)>>,
    runs: Mutex<Vec<Run>>,
}

/// Sorted, deduplicated keys, by class.
struct Run {
    bytes: ScratchVec<u8>,
    /// (class, end of its bytes): ascending classes, each class's bytes
    /// starting where the previous one's end.
    classes: Vec<(u32, usize)>,
}

impl Run {
    fn encode(mut keys: Vec<(u32, u64)>, scratch: &Scratch) -> Result<Self, DbError> {
        keys.sort_unstable();
        keys.dedup();
        let mut bytes = Vec::with_capacity(3 * keys.len());
        let mut classes: Vec<(u32, usize)> = Vec::new();
        let mut previous = 0;
        for &(class, local) in &keys {
            if classes.last().map(|c| c.0) != Some(class) {
                classes.push((class, 0));
                previous = 0;
            }
            push_gap(&mut bytes, local - previous);
            previous = local;
            classes.last_mut().expect("pushed").1 = bytes.len();
        }
        Ok(Run {
            bytes: scratch.copy_of(&bytes)?,
            classes,
        })
    }

    /// The bytes of `class`'s keys in this run.
    fn class_bytes(&self, class: u32) -> Option<&[u8]> {
        let i = self.classes.binary_search_by_key(&class, |c| c.0).ok()?;
        let start = match i {
            0 => 0,
            _ => self.classes[i - 1].1,
        };
        Some(&self.bytes[start..self.classes[i].1])
    }
}

/// Appends `gap` in LEB128: 7 bits a byte, low first, high bit "more".
fn push_gap(bytes: &mut Vec<u8>, mut gap: u64) {
    while gap >= 0x80 {
        bytes.push(gap as u8 | 0x80);
        gap >>= 7;
    }
    bytes.push(gap as u8);
}

/// The keys of a class's bytes: running sums of their gaps.
fn decode(bytes: &[u8], out: &mut Vec<u64>) {
    let (mut key, mut gap, mut shift) = (0u64, 0u64, 0);
    for &b in bytes {
        gap |= ((b & 0x7f) as u64) << shift;
        shift += 7;
        if b < 0x80 {
            key += gap;
            out.push(key);
            (gap, shift) = (0, 0);
        }
    }
}

impl Seeds {
    /// No keys yet, for stone counts `0..stone_counts`, stored in `scratch`.
    pub fn new(stone_counts: usize, scratch: Scratch) -> Self {
        Seeds {
            counts: (0..stone_counts).map(|_| StoneCount::default()).collect(),
            scratch,
        }
    }

    /// Adds keys (class, local rank) of `stones` stones, emptying `found`.
    pub fn add(&self, stones: usize, found: &mut Vec<(u32, u64)>) -> Result<(), DbError> {
        let count = &self.counts[stones];
        let full = {
            let mut pending = count.pending.lock().expect("no panics while locked");
            pending.append(found);
            match pending.len() >= RUN_KEYS {
                true => std::mem::take(&mut *pending),
                false => return Ok(()),
            }
        };
        let run = Run::encode(full, &self.scratch)?;
        count.runs.lock().expect("no panics while locked").push(run);
        Ok(())
    }

    /// Stores what waits in `stones`'s buffer, so that every key found
    /// so far can be read back.
    pub fn flush(&self, stones: usize) -> Result<(), DbError> {
        let count = &self.counts[stones];
        let rest = std::mem::take(&mut *count.pending.lock().expect("no panics while locked"));
        if !rest.is_empty() {
            let run = Run::encode(rest, &self.scratch)?;
            count.runs.lock().expect("no panics while locked").push(run);
        }
        Ok(())
    }

    /// The classes of `stones` stones with keys (after [`Self::flush`]).
    pub fn classes(&self, stones: usize) -> Vec<u32> {
        let runs = self.counts[stones]
            .runs
            .lock()
            .expect("no panics while locked");
        let mut classes: Vec<u32> = runs
            .iter()
            .flat_map(|r| r.classes.iter().map(|c| c.0))
            .collect();
        classes.sort_unstable();
        classes.dedup();
        classes
    }

    /// The local ranks found for (`stones`, `class`), flushed before: each
    /// run's sorted, a key possibly in several runs.
    pub fn of_class(&self, stones: usize, class: u32) -> Vec<u64> {
        let runs = self.counts[stones]
            .runs
            .lock()
            .expect("no panics while locked");
        let mut keys = Vec::new();
        for bytes in runs.iter().filter_map(|r| r.class_bytes(class)) {
            decode(bytes, &mut keys);
        }
        keys
    }

    /// Bytes the runs of stone counts below `below` take (their pending
    /// keys not counted).
    pub fn stored_bytes(&self, below: usize) -> usize {
        self.counts[..below]
            .iter()
            .map(|c| {
                let runs = c.runs.lock().expect("no panics while locked");
                runs.iter().map(|r| r.bytes.len()).sum::<usize>()
            })
            .sum()
    }

    /// The keys waiting for stone counts below `below` (each count's
    /// pending ones stored first), for a checkpoint
    /// (`build/checkpoint.rs`): `f` gets a table (the number of runs;
    /// per run its stone count, number of classes and bytes; then per run
    /// its classes, a u32 class and the u64 end of its bytes each) and
    /// every run's bytes, in the table's order.
    pub fn with_runs<R>(
        &self,
        below: usize,
        f: impl FnOnce(&[u8], &[&[u8]]) -> R,
    ) -> Result<R, DbError> {
        for n in 0..below {
            self.flush(n)?;
        }
        let guards: Vec<_> = self.counts[..below]
            .iter()
            .map(|c| c.runs.lock().expect("no panics while locked"))
            .collect();
        let runs: Vec<(usize, &Run)> = (guards.iter().enumerate())
            .flat_map(|(n, runs)| runs.iter().map(move |r| (n, r)))
            .collect();
        let mut table = Vec::new();
        let mut push = |x: u64| table.extend_from_slice(&x.to_le_bytes());
        push(runs.len() as u64);
        for (n, run) in &runs {
            for x in [*n, run.classes.len(), run.bytes.len()] {
                push(x as u64);
            }
        }
        for (_, run) in &runs {
            for &(class, end) in &run.classes {
                table.extend_from_slice(&class.to_le_bytes());
                table.extend_from_slice(&(end as u64).to_le_bytes());
            }
        }
        let bytes: Vec<&[u8]> = runs.iter().map(|(_, r)| r.bytes.as_bytes()).collect();
        Ok(f(&table, &bytes))
    }

    /// Puts back a run of `stones` stones kept by [`Self::with_runs`]:
    /// its classes (class, end of its bytes) and bytes. Refused (false)
    /// unless the classes ascend and their ends cover the bytes.
    pub fn restore_run(
        &self,
        stones: usize,
        classes: Vec<(u32, usize)>,
        bytes: ScratchVec<u8>,
    ) -> bool {
        let ascending = classes
            .windows(2)
            .all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1);
        let covered = classes.last().map_or(0, |c| c.1) == bytes.len();
        if stones >= self.counts.len() || !ascending || !covered {
            return false;
        }
        let run = Run { bytes, classes };
        self.counts[stones]
            .runs
            .lock()
            .expect("no panics while locked")
            .push(run);
        true
    }

    /// Frees the keys of `stones` stones (every one of its groups closed).
    pub fn free(&self, stones: usize) {
        let count = &self.counts[stones];
        *count.runs.lock().expect("no panics while locked") = Vec::new();
        *count.pending.lock().expect("no panics while locked") = Vec::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infra::rng::Rng;

    #[test]
    fn keys_come_back_by_class_across_runs_in_memory_and_on_disk() {
        let dir = std::env::temp_dir().join(format!("sow-seeds-{}", std::process::id()));
        for scratch in [Scratch::Memory, Scratch::Disk(dir.clone())] {
            let seeds = Seeds::new(3, scratch);
            let mut rng = Rng::new(5);
            let mut want: Vec<Vec<u64>> = vec![Vec::new(); 4];
            // Over two runs and a flushed rest, with duplicates and gaps
            // from 0 to 2^40.
            for _ in 0..(2 * RUN_KEYS + 1000) / 1000 {
                let mut found: Vec<(u32, u64)> = (0..1000)
                    .map(|_| {
                        let class = rng.below(4) as u32;
                        let local = match rng.below(3) {
                            0 => rng.below(50) as u64,
                            1 => rng.below(1 << 20) as u64,
                            _ => (rng.below(1 << 20) as u64) << 20,
                        };
                        want[class as usize].push(local);
                        (class, local)
                    })
                    .collect();
                seeds.add(2, &mut found).unwrap();
                assert!(found.is_empty());
            }
            seeds.flush(2).unwrap();
            assert_eq!(seeds.classes(2), vec![0, 1, 2, 3]);
            assert!(seeds.classes(1).is_empty());
            for (class, want) in want.iter_mut().enumerate() {
                want.sort_unstable();
                want.dedup();
                let mut got = seeds.of_class(2, class as u32);
                got.sort_unstable();
                got.dedup();
                assert_eq!(&got, want, "class {class}");
            }
            seeds.free(2);
            assert!(seeds.classes(2).is_empty());
        }
        let _ = std::fs::remove_dir(&dir);
    }

    #[test]
    fn runs_laid_out_for_a_checkpoint_restore_the_same_keys() {
        let seeds = Seeds::new(4, Scratch::Memory);
        seeds
            .add(1, &mut vec![(3, 7), (1, 2), (3, 1000), (1, 2)])
            .unwrap();
        seeds.flush(1).unwrap();
        seeds.add(1, &mut vec![(2, 5)]).unwrap();
        seeds.add(2, &mut vec![(0, 1 << 40)]).unwrap();
        seeds.add(3, &mut vec![(0, 9)]).unwrap();
        // Below 3: stone counts 1 (two runs, one still pending) and 2.
        let (table, runs) = seeds
            .with_runs(3, |table, runs| {
                (
                    table.to_vec(),
                    runs.iter().map(|r| r.to_vec()).collect::<Vec<_>>(),
                )
            })
            .unwrap();
        let word = |i: usize| u64::from_le_bytes(table[8 * i..8 * i + 8].try_into().unwrap());
        assert_eq!(word(0), 3, "three runs");
        let heads: Vec<[u64; 3]> = (0..3).map(|r| [1, 2, 3].map(|j| word(3 * r + j))).collect();
        assert_eq!(heads.iter().map(|h| h[0]).collect::<Vec<_>>(), [1, 1, 2]);
        let mut at = 8 * (1 + 3 * 3);
        let restored = Seeds::new(4, Scratch::Memory);
        for (head, bytes) in heads.iter().zip(&runs) {
            assert_eq!(head[2] as usize, bytes.len());
            let classes = (0..head[1])
                .map(|_| {
                    let class = u32::from_le_bytes(table[at..at + 4].try_into().unwrap());
                    let end = u64::from_le_bytes(table[at + 4..at + 12].try_into().unwrap());
                    at += 12;
                    (class, end as usize)
                })
                .collect();
            let bytes = Scratch::Memory.copy_of(bytes).unwrap();
            assert!(restored.restore_run(head[0] as usize, classes, bytes));
        }
        assert_eq!(at, table.len());
        for (n, class, want) in [(1, 1, vec![2]), (1, 2, vec![5]), (1, 3, vec![7, 1000])] {
            assert_eq!(restored.of_class(n, class), want);
        }
        assert_eq!(restored.of_class(2, 0), vec![1 << 40]);
        assert!(restored.classes(3).is_empty(), "not below 3");
        // Classes out of order, or bytes their ends do not cover: refused.
        let bytes = || Scratch::Memory.copy_of(&[1u8, 2]).unwrap();
        assert!(!restored.restore_run(1, vec![(2, 1), (1, 2)], bytes()));
        assert!(!restored.restore_run(1, vec![(1, 1)], bytes()));
        assert!(!restored.restore_run(4, vec![(1, 2)], bytes()));
    }
}
