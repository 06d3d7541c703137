//! Where a database lives: a directory `<db>/kpe-<W>x<K>/` per variant,
//! holding one file per endgame layer (`layer-NNN.sowdb`, NNN = stones on
//! the board) and the locked region's values and keys (`opening.sowdb`,
//! `opening-keys.sowdb`).

use std::path::{Path, PathBuf};

use crate::games::kpe::KpeVariant;

/// The directory of one variant's database.
pub fn variant_dir(db: &Path, variant: KpeVariant) -> PathBuf {
    db.join(format!("kpe-{variant}"))
}

/// The file of the endgame layer of `stones` stones.
pub fn layer_path(db: &Path, variant: KpeVariant, stones: usize) -> PathBuf {
    variant_dir(db, variant).join(format!("layer-{stones:03}.sowdb"))
}

/// The values of the locked region reachable from the start.
pub fn region_path(db: &Path, variant: KpeVariant) -> PathBuf {
    variant_dir(db, variant).join("opening.sowdb")
}

/// The compact key index of the locked region (`keys/key_file.rs`).
pub fn region_keys_path(db: &Path, variant: KpeVariant) -> PathBuf {
    variant_dir(db, variant).join("opening-keys.sowdb")
}

/// The command that (re)builds a variant's database.
pub fn solve_hint(db: &Path, variant: KpeVariant) -> String {
    format!("sow solve {} --db {}", variant.tag(), db.display())
}

/// The default database directory: `$SOW_DB`, else the user's data directory.
pub fn default_db_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("SOW_DB") {
        return PathBuf::from(dir);
    }
    let base = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(|| PathBuf::from("."));
    base.join("sow")
}
