//! What an entry byte (`entry.rs`) can be: the value of a position of `n`
//! stones lies in `-n..=n` (it is even by construction: the low bit is the
//! flag), and the "can end" flag is set only when `value ≡ n (mod 4)`: a
//! game that ends gives every stone on the board to a player, the
//! opponent's share even (captures of 2 and 4, a final sweep of an even
//! total), so its margin is `n - 2·even`. [`Content`] is the
//! [`EntryCheck`] a value file's reader hands it (`file/mapped.rs`).

use std::path::Path;

use crate::games::kpe::KpeVariant;
use crate::kpe_db::entry::{entry_can_end, entry_value};
use crate::kpe_db::error::DbError;
use crate::kpe_db::file::{EntryCheck, FileId, FileKind, MappedFile};
use crate::kpe_db::keys::key_file::KeyFile;

/// What the entries of a value file are, which says what they may be.
#[derive(Clone, Debug, Default)]
pub enum Content {
    /// Not entry bytes (the key index), or not known.
    #[default]
    Opaque,
    /// An endgame layer: every position has this many stones.
    Layer(u32),
    /// The region's values: at most `total` stones until the key index
    /// gives each group's first entry and stones (ascending firsts).
    Region { total: u32, groups: Vec<(u64, u32)> },
}

impl Content {
    /// What a file of this identity holds, as far as its header tells.
    pub fn of(id: FileId) -> Self {
        match id.kind {
            FileKind::Layer => Content::Layer(id.stones),
            FileKind::Region => Content::Region {
                total: id.variant.total(),
                groups: Vec::new(),
            },
            FileKind::RegionKeys
            | FileKind::RegionExplored
            | FileKind::RegionSolvedRun
            | FileKind::RegionSeeds => Content::Opaque,
        }
    }

    /// The region's values, each group of the key index `keys` holding its
    /// own stone count (`check::keys::groups` checked them).
    pub fn region(keys: &KeyFile, variant: KpeVariant) -> Self {
        let groups = keys
            .groups()
            .iter()
            .map(|g| (g.first, g.stones as u32))
            .collect();
        Content::Region {
            total: variant.total(),
            groups,
        }
    }
}

/// Why an entry byte cannot be that of a position of `stones` stones.
#[inline]
fn fault(e: u8, stones: u32) -> bool {
    let v = entry_value(e) as i32;
    let n = stones as i32;
    v.abs() > n || (entry_can_end(e) && (v - n) & 3 != 0)
}

fn explain(path: &Path, index: u64, e: u8, stones: u32) -> DbError {
    let v = entry_value(e);
    let what = if (v as i32).abs() > stones as i32 {
        format!("entry {index}: value {v} beyond the {stones} stones on the board")
    } else {
        format!(
            "entry {index}: value {v} with {stones} stones cannot end, yet it is marked as ending \
             (an ending game's margin is the stone count modulo 4)"
        )
    };
    DbError::Corrupt {
        path: path.to_path_buf(),
        what,
    }
}

/// Checks entries `first..first + entries.len()` of a value file.
fn check_run(path: &Path, first: u64, entries: &[u8], stones: u32) -> Result<(), DbError> {
    // A branch-free pass (vectorized), then the culprit only on failure.
    if entries.iter().fold(false, |bad, &e| bad | fault(e, stones)) {
        let i = entries
            .iter()
            .position(|&e| fault(e, stones))
            .expect("a faulty entry");
        return Err(explain(path, first + i as u64, entries[i], stones));
    }
    Ok(())
}

/// Checks decoded entries `first..` of the file `path` against what
/// they are.
impl EntryCheck for Content {
    fn check(&self, path: &Path, first: u64, entries: &[u8]) -> Result<(), DbError> {
        match self {
            Content::Opaque => Ok(()),
            Content::Layer(n) => check_run(path, first, entries, *n),
            Content::Region { total, groups } if groups.is_empty() => {
                // Before the key index is read: the loose bound only.
                match entries
                    .iter()
                    .position(|&e| (entry_value(e) as i32).abs() > *total as i32)
                {
                    Some(i) => Err(explain(path, first + i as u64, entries[i], *total)),
                    None => Ok(()),
                }
            }
            Content::Region { groups, .. } => {
                let end = first + entries.len() as u64;
                let mut g = groups.partition_point(|&(f, _)| f <= first).max(1) - 1;
                let mut at = first;
                while at < end {
                    let stop = groups.get(g + 1).map_or(end, |&(f, _)| f.min(end));
                    let run = &entries[(at - first) as usize..(stop - first) as usize];
                    check_run(path, at, run, groups[g].1)?;
                    at = stop;
                    g += 1;
                }
                Ok(())
            }
        }
    }
}

/// Opens a database file with the checks of its entries ([`Content::of`]).
pub fn open_checked(
    path: &Path,
    id: FileId,
    expected_entries: Option<u64>,
) -> Result<MappedFile, DbError> {
    Ok(MappedFile::open(path, id, expected_entries)?.with_check(Content::of(id)))
}
