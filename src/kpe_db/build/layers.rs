//! The endgame layers of a build: the per-layer loop
//! ([`Endgame::solve_layers`]) with the database's files as its store. A
//! layer whose file is there and checks out is read; one that another K of
//! the same W has is copied; the others are solved and written, each by a
//! thread of its own while the next layer is solved (written in line, the
//! writes and their `fsync` held the standard solve up 0.4 s).

use std::path::Path;
use std::thread::JoinHandle;

use super::SolveStats;
use crate::games::kpe::KpeVariant;
use crate::infra::progress::Progress;
use crate::kpe_db::check::open_checked;
use crate::kpe_db::endgame::{Endgame, LayerSteps, LayerStore};
use crate::kpe_db::error::{DbError, SolveError};
use crate::kpe_db::file::{self, Encoding, FileId, MappedFile, ValueFile};
use crate::kpe_db::paths;

/// Every endgame layer, smallest first: read from its file if it is
/// there and checks out, taken from another K of the same W if one has
/// it, else solved and written. All are returned decoded.
pub(super) fn build_layers(
    eg: &Endgame,
    db_dir: &Path,
    progress: Progress,
    encoding: Encoding,
    stats: &mut SolveStats,
) -> Result<Vec<Vec<u8>>, SolveError> {
    let mut files = LayerFiles {
        eg,
        db_dir,
        encoding,
        stats,
        writing: None,
    };
    let built = eg.solve_layers(progress, &mut files);
    // The last writer is waited for on every way out.
    let written = finish_writing(files.writing.take());
    let layers = built?;
    written?;
    stats.unlocked_positions = eg.layers().map(|n| eg.index.layer_size(n)).sum();
    Ok(layers)
}

/// A database directory as the store of the layers' loop.
struct LayerFiles<'a> {
    eg: &'a Endgame,
    db_dir: &'a Path,
    encoding: Encoding,
    stats: &'a mut SolveStats,
    /// The thread writing the last layer solved.
    writing: Option<JoinHandle<Result<(), DbError>>>,
}

impl LayerStore for LayerFiles<'_> {
    type Error = SolveError;

    fn take(&mut self, n: usize) -> Result<Option<Vec<u8>>, SolveError> {
        let variant = self.eg.variant;
        let (path, id) = (
            paths::layer_path(self.db_dir, variant, n),
            FileId::layer(variant, n),
        );
        let size = self.eg.index.layer_size(n);
        if let Some(file) = reuse(&path, id, Some(size))? {
            let entries = file.all_entries()?.into_owned();
            self.stats.layers_reused.push(n);
            return Ok(Some(entries));
        }
        if let Some((entries, from)) = shared_layer(self.db_dir, variant, n, size) {
            file::write_values(&path, id, &entries, self.encoding)?;
            self.stats.layers_reused.push(n);
            self.stats.layers_shared.push((n, from));
            return Ok(Some(entries));
        }
        Ok(None)
    }

    fn keep(&mut self, n: usize, entries: &[u8], steps: LayerSteps) -> Result<(), SolveError> {
        let variant = self.eg.variant;
        let (path, id) = (
            paths::layer_path(self.db_dir, variant, n),
            FileId::layer(variant, n),
        );
        self.stats.layer_steps.add(steps);
        let file = ValueFile::encode(entries, self.encoding).into_owned();
        finish_writing(self.writing.take())?;
        self.writing = Some(std::thread::spawn(move || file.write(&path, id)));
        self.stats.layers_computed.push(n);
        Ok(())
    }
}

/// Waits for the file being written by `writing`, if any, and passes on
/// its error, or its thread's panic.
fn finish_writing(
    writing: Option<std::thread::JoinHandle<Result<(), DbError>>>,
) -> Result<(), DbError> {
    match writing.map(std::thread::JoinHandle::join) {
        None => Ok(()),
        Some(Ok(written)) => written,
        Some(Err(panic)) => std::panic::resume_unwind(panic),
    }
}

/// A verified existing file, or None when it is absent.
pub(super) fn reuse(
    path: &Path,
    id: FileId,
    entries: Option<u64>,
) -> Result<Option<MappedFile>, DbError> {
    if !path.exists() {
        return Ok(None);
    }
    let file = open_checked(path, id, entries)?;
    file.verify_all()?;
    Ok(Some(file))
}

/// Layer `n` of `variant` taken from a solved variant of the same W and
/// another K, if the database holds one, with that variant. An unlocked
/// position's value and whether perfect play can end depend on its board
/// alone, never on the stones the game started with (RULES §1: sowing,
/// captures and the end count the stones on the board), so layer `n` is
/// the same for every K with `2WK ≥ n` (tested: `tests/kpe_solver.rs`,
/// `layers_are_shared_by_every_k_of_a_w`). A file of the other variant
/// that is absent or fails its checks is not used (its own readers
/// report it); this layer is then solved.
pub(super) fn shared_layer(
    db_dir: &Path,
    variant: KpeVariant,
    n: usize,
    size: u64,
) -> Option<(Vec<u8>, KpeVariant)> {
    KpeVariant::K_RANGE
        .rev()
        .filter_map(|k| KpeVariant::new(variant.w() as u8, k).ok())
        .filter(|&other| other != variant && other.total() as usize >= n)
        .find_map(|other| {
            let path = paths::layer_path(db_dir, other, n);
            let file = reuse(&path, FileId::layer(other, n), Some(size)).ok()??;
            let entries = file.all_entries().ok()?.into_owned();
            Some((entries, other))
        })
}
