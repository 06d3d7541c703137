//! Building the tables of 0 to N warriors (`sow solve kiothi`): the stone
//! counts whose files are already there are read, the others solved one
//! after the other, fewest stones first (each solved from those below it,
//! `retrograde.rs`), each saved before the next: the per-count loop; by
//! the ranks of an MPI run together, each count solved and written over
//! the ranks (`retrograde_over_ranks.rs`).

use std::path::{Path, PathBuf};

use thiserror::Error;

use super::file::{table_path, EndgameError};
use super::retrograde::LayerReport;
use super::tables::KiothiEndgames;
use crate::infra::limits::{disk_budget, memory_budget};
use crate::infra::progress::Progress;
use crate::retrograde::ranks::{Traffic, Transport};

/// A build of the tables up to some stone count, its existing files read.
pub struct TablesBuild {
    db: PathBuf,
    stones: usize,
    tables: KiothiEndgames,
    reused: Vec<usize>,
}

/// What a build did.
#[derive(Clone, Debug)]
pub struct TablesBuilt {
    /// The directory the tables are in.
    pub dir: PathBuf,
    /// Stone counts read from existing files.
    pub reused: Vec<usize>,
    /// Stone counts solved by this build.
    pub solved: Vec<LayerReport>,
    /// Boards of every stone count built.
    pub boards: u64,
    /// Bytes of their files.
    pub bytes_on_disk: u64,
    /// Over ranks only: what the ranks exchanged solving (summed over them).
    pub traffic: Option<Traffic>,
}

/// A build that would not fit this machine's memory or disk.
#[derive(Debug, Error)]
#[error("the Kiothi endgame tables of {stones} warriors need about {need:.1} GiB of {what} (an estimate), {have:.1} GiB available")]
pub struct TooLarge {
    pub stones: usize,
    /// "memory" or "disk".
    pub what: &'static str,
    pub need: f64,
    pub have: f64,
}

impl TablesBuild {
    /// A build of the tables of 0 to `stones` warriors into `db`, the
    /// stone counts already there read (from 0 up to the first missing).
    pub fn open(db: &Path, stones: usize) -> Result<Self, EndgameError> {
        let tables = KiothiEndgames::load(db, stones)?;
        Ok(TablesBuild {
            db: db.to_path_buf(),
            stones,
            reused: (0..tables.stone_counts()).collect(),
            tables,
        })
    }

    /// Refuses, before any work, stone counts still to solve that would
    /// not fit the memory or the disk (`$SOW_MEMORY_MIB` and
    /// `$SOW_DISK_MIB` set the budgets, as for a Kpé solve).
    pub fn check_fits(&self) -> Result<(), TooLarge> {
        let (first, last) = (self.tables.stone_counts(), self.stones);
        if first > last {
            return Ok(());
        }
        let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
        let memory = KiothiEndgames::memory_estimate(last);
        let disk: u64 = (first..=last).map(KiothiEndgames::layer_size).sum();
        let short = [
            (memory, memory_budget(), "memory"),
            (disk, disk_budget(&self.db), "disk"),
        ]
        .into_iter()
        .find_map(|(need, have, what)| Some((need, have.filter(|&h| need > h)?, what)));
        match short {
            None => Ok(()),
            Some((need, have, what)) => Err(TooLarge {
                stones: last,
                what,
                need: gib(need),
                have: gib(have),
            }),
        }
    }

    /// Solves and saves every stone count not read, fewest stones first,
    /// calling `solved` with each one's report once it is saved.
    pub fn run<E: From<EndgameError>>(
        self,
        progress: Progress,
        solved: impl FnMut(&LayerReport) -> Result<(), E>,
    ) -> Result<TablesBuilt, E> {
        self.run_on(None, progress, solved)
    }

    /// [`Self::run`], each stone count solved by the ranks of `ranks`
    /// together when given (an MPI run, `retrograde_over_ranks.rs`: every
    /// rank calls this together, and the files are the same).
    pub fn run_on<E: From<EndgameError>>(
        mut self,
        ranks: Option<&dyn Transport>,
        progress: Progress,
        mut solved: impl FnMut(&LayerReport) -> Result<(), E>,
    ) -> Result<TablesBuilt, E> {
        let mut reports = Vec::new();
        let mut traffic = Traffic::default();
        while self.tables.stone_counts() <= self.stones {
            let n = self.tables.stone_counts();
            let bar = progress.bar(KiothiEndgames::layer_size(n), format!("{n} stones"));
            let report = match ranks {
                None => {
                    let report = self.tables.solve_next(&bar);
                    bar.finish_and_clear();
                    self.tables.save_layer(&self.db, n)?;
                    report
                }
                Some(t) => {
                    let (report, moved) = self.tables.solve_next_over_ranks(&self.db, t, &bar)?;
                    bar.finish_and_clear();
                    traffic.add(moved);
                    report
                }
            };
            solved(&report)?;
            reports.push(report);
        }
        let bytes_on_disk = (0..=self.stones)
            .filter_map(|n| std::fs::metadata(table_path(&self.db, n)).ok())
            .map(|m| m.len())
            .sum();
        Ok(TablesBuilt {
            dir: table_path(&self.db, 0)
                .parent()
                .unwrap_or(&self.db)
                .to_path_buf(),
            reused: self.reused,
            solved: reports,
            boards: (0..=self.stones).map(KiothiEndgames::layer_size).sum(),
            bytes_on_disk,
            traffic: ranks.map(|_| traffic),
        })
    }
}
