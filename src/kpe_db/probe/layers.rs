//! The endgame layers of a solved variant as queries read them: decoded in
//! memory, or each layer's file mapped the first time a probe needs it.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::kpe_db::check::open_checked;
use crate::kpe_db::endgame::{Endgame, LayerValues};
use crate::kpe_db::error::{DbError, SolveError};
use crate::kpe_db::file::{self, FileId, MappedFile};
use crate::kpe_db::lock;
use crate::kpe_db::paths;

/// Solved layers (entry bytes), owned or mapped from checked files.
pub enum Layers {
    Memory(Vec<Vec<u8>>),
    Mapped(Vec<Option<LazyLayer>>),
}

/// A layer file mapped when it is first read: a query touches a few
/// layers, and mapping one reads and checks its block table (0.8 MB for
/// the largest standard layer), which dominated a cold `eval`. Its header
/// is checked when the database is opened (`file::check_header`).
pub struct LazyLayer {
    path: PathBuf,
    id: FileId,
    entries: u64,
    file: OnceLock<MappedFile>,
}

impl LazyLayer {
    fn new(path: PathBuf, id: FileId, entries: u64) -> Self {
        LazyLayer {
            path,
            id,
            entries,
            file: OnceLock::new(),
        }
    }

    /// Whether the file is mapped already.
    pub fn is_open(&self) -> bool {
        self.file.get().is_some()
    }

    /// The mapped file, opened (and its header checked) on first use.
    pub fn file(&self) -> Result<&MappedFile, DbError> {
        if let Some(file) = self.file.get() {
            return Ok(file);
        }
        let file = open_checked(&self.path, self.id, Some(self.entries))?;
        // Another thread may have opened it meanwhile: either copy serves.
        let _ = self.file.set(file);
        Ok(self.file.get().expect("just set"))
    }
}

impl LayerValues for Layers {
    #[inline]
    fn entry(&self, n: usize, index: u64) -> u8 {
        // Solving never reads mapped layers (`build` and `region_for`
        // decode them first); a failed read is 0 here, an error in
        // `try_entry`, which queries use.
        self.try_entry(n, index).unwrap_or(0)
    }

    #[inline]
    fn prefetch(&self, n: usize, index: u64) {
        if let Layers::Memory(v) = self {
            v.prefetch(n, index);
        }
    }
}

impl Layers {
    /// The entry byte of board `index` of layer `n`, checked.
    pub fn try_entry(&self, n: usize, index: u64) -> Result<u8, DbError> {
        match self {
            Layers::Memory(v) => Ok(v[n][index as usize]),
            Layers::Mapped(files) => files[n]
                .as_ref()
                .expect("layer listed")
                .file()?
                .entry(index),
        }
    }
}

/// The error for a database not all of whose files are there: who is
/// building it, or which `sow solve` completes it (`lock.rs`).
pub(super) fn files_missing(eg: &Endgame, db_dir: &Path) -> SolveError {
    let all: Vec<usize> = eg.layers().collect();
    lock::absent(db_dir, eg.variant, &all).into()
}

/// Every layer file of a variant, its header checked, opened when first
/// read.
pub(crate) fn lazy_layers(
    eg: &Endgame,
    db_dir: &Path,
) -> Result<Vec<Option<LazyLayer>>, SolveError> {
    use rayon::prelude::*;
    let variant = eg.variant;
    let layers: Vec<usize> = eg.layers().collect();
    let checked = (layers.par_iter())
        .map(|&n| {
            let path = paths::layer_path(db_dir, variant, n);
            if !path.exists() {
                return Err(files_missing(eg, db_dir));
            }
            let entries = eg.index.layer_size(n);
            file::check_header(&path, FileId::layer(variant, n), Some(entries))?;
            Ok((n, LazyLayer::new(path, FileId::layer(variant, n), entries)))
        })
        .collect::<Result<Vec<_>, SolveError>>()?;
    let mut files: Vec<Option<LazyLayer>> = (0..=variant.total()).map(|_| None).collect();
    for (n, layer) in checked {
        files[n] = Some(layer);
    }
    Ok(files)
}
