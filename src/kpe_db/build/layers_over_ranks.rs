//! The endgame layers of a build by the ranks of an MPI run together
//! (`endgame_over_ranks.rs`, the per-layer loop over ranks), with the
//! database's files as their store, as `layers.rs` has them for one
//! process: a layer whose file is there and checks out is read (by every
//! rank); one that another K of the same W has is copied (by rank 0); the
//! others are solved over the ranks, each rank writing its slice of the
//! file (`file/write_over_ranks.rs`), then read back whole by every rank
//! for the larger layers' exits. So a run stopped in any layer resumes
//! after the last whole one, as one process's does.

use std::path::Path;

use super::layers::{reuse, shared_layer};
use super::SolveStats;
use crate::infra::progress::Progress;
use crate::kpe_db::endgame::{Endgame, LayerSteps};
use crate::kpe_db::endgame_over_ranks::{LayerStoreOverRanks, RanksLayers};
use crate::kpe_db::error::{DbError, SolveError};
use crate::kpe_db::file::{self, Encoding, FileId};
use crate::kpe_db::paths;
use crate::retrograde::ranks::{Partition, Reduce, Transport};

/// Every endgame layer, smallest first, by the ranks of `transport`
/// together (each rank calls it): read, copied, or solved over the ranks
/// and written. All are returned decoded, on every rank.
pub(super) fn build_layers_over_ranks<T: Transport + ?Sized>(
    eg: &Endgame,
    db_dir: &Path,
    progress: Progress,
    transport: &T,
    stats: &mut SolveStats,
) -> Result<(Vec<Vec<u8>>, RanksLayers), SolveError> {
    let mut files = LayerFilesOverRanks {
        eg,
        db_dir,
        transport,
        stats,
    };
    let built = eg.solve_layers_over_ranks(progress, transport, &mut files)?;
    stats.unlocked_positions = eg.layers().map(|n| eg.index.layer_size(n)).sum();
    Ok(built)
}

/// A database directory shared by the ranks as the store of the layers'
/// loop over ranks.
struct LayerFilesOverRanks<'a, T: ?Sized> {
    eg: &'a Endgame,
    db_dir: &'a Path,
    transport: &'a T,
    stats: &'a mut SolveStats,
}

impl<T: Transport + ?Sized> LayerFilesOverRanks<'_, T> {
    fn file(&self, n: usize) -> (std::path::PathBuf, FileId) {
        let variant = self.eg.variant;
        (
            paths::layer_path(self.db_dir, variant, n),
            FileId::layer(variant, n),
        )
    }

    /// `step`'s result where it went well on every rank; else this rank's
    /// error, or (on the ranks whose own step went well) one naming `path`.
    fn on_every_rank<V>(&self, path: &Path, step: Result<V, DbError>) -> Result<V, DbError> {
        let mut failed = [step.is_err() as u64];
        self.transport.all_reduce(&mut failed, Reduce::Sum);
        match (step, failed[0]) {
            (Ok(v), 0) => Ok(v),
            (Err(e), _) => Err(e),
            (Ok(_), _) => Err(DbError::Io {
                path: path.to_path_buf(),
                source: std::io::Error::other("another rank failed reading or writing it"),
            }),
        }
    }
}

impl<T: Transport + ?Sized> LayerStoreOverRanks for LayerFilesOverRanks<'_, T> {
    type Error = SolveError;

    fn take(&mut self, n: usize) -> Result<Option<Vec<u8>>, SolveError> {
        let (path, id) = self.file(n);
        let size = self.eg.index.layer_size(n);
        // Every rank reads the same file; a failure on any stops all.
        if let Some(entries) = self.on_every_rank(&path, read_whole(&path, id, size))? {
            self.stats.layers_reused.push(n);
            return Ok(Some(entries));
        }
        let Some((entries, from)) = shared_layer(self.db_dir, self.eg.variant, n, size) else {
            return Ok(None);
        };
        let written = match self.transport.rank() {
            0 => file::write_values(&path, id, &entries, Encoding::Zstd),
            _ => Ok(()),
        };
        self.on_every_rank(&path, written)?;
        self.stats.layers_reused.push(n);
        self.stats.layers_shared.push((n, from));
        Ok(Some(entries))
    }

    fn keep(
        &mut self,
        n: usize,
        partition: &Partition,
        slice: Vec<u8>,
        steps: LayerSteps,
    ) -> Result<Vec<u8>, SolveError> {
        let (path, id) = self.file(n);
        self.stats.layer_steps.add(steps);
        file::write_values_over_ranks(self.transport, partition, &path, id, &slice)?;
        drop(slice);
        // The whole layer, for the exits of the larger ones: read from the
        // file just written, as every rank can.
        let found = read_whole(&path, id, partition.len()).and_then(|e| {
            e.ok_or_else(|| DbError::Io {
                path: path.clone(),
                source: std::io::Error::other(
                    "not found after it was written: is the database directory shared by every rank?",
                ),
            })
        });
        let entries = self.on_every_rank(&path, found)?;
        self.stats.layers_computed.push(n);
        Ok(entries)
    }
}

/// The entries of a layer's file, checked, or None if it is absent.
fn read_whole(path: &Path, id: FileId, size: u64) -> Result<Option<Vec<u8>>, DbError> {
    match reuse(path, id, Some(size))? {
        Some(file) => Ok(Some(file.all_entries()?.into_owned())),
        None => Ok(None),
    }
}
