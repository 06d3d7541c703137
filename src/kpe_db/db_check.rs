//! Content checks of database files (format 2).
//!
//! The header, block-table and block checksums of `db.rs` catch a damaged
//! file; these checks catch a file whose checksums are consistent but whose
//! contents no solve can have written (a forged file, or one damaged before
//! its checksums were computed), so that it is a named error
//! ([`DbError::Corrupt`], exit 2) rather than a panic or a wrong answer:
//!
//! - **entry bytes** (layers and region values, [`check_entries`]): the
//!   value of a position of `n` stones lies in `-n..=n` (it is even by
//!   construction: the low bit is the flag), and the "can end" flag is set
//!   only when `value ≡ n (mod 4)`: a game that ends gives every stone on
//!   the board to a player, the opponent's share even (captures of 2 and
//!   4, a final sweep of an even total), so its margin is `n - 2·even`.
//!   Checked on every block as it is decoded (zstd) or on every entry read
//!   (plain), so a probe costs one pass over 4 KiB at most;
//! - **the key index** (`opening-keys.sowdb`, [`region`], [`bucket`],
//!   [`group`]): groups in ascending, even stone counts within the game's
//!   stones, each group's directory starting at 0 and ending at its key
//!   count, the start position present (at open: a few reads); the bucket
//!   a lookup searches in range and strictly ascending, every key in it
//!   below its universe (at every lookup: 16 to 32 fields); a group read
//!   whole (export) additionally with every key a locked position.
//!
//! Not checked: that a value is the *right* one (that needs the solve), and
//! that the region holds every locked child of its positions (a missing
//! child is refused as a position outside the solved regions).

use std::path::Path;

use super::entry::{entry_can_end, entry_value};
use super::error::DbError;
use super::file::{Encoding, EntryCheck, FileId, FileKind, MappedFile};
use super::region_keys::{KeyGroup, RegionKeys};
use crate::games::kpe::{KpePosition, KpeVariant};

/// What the entries of a value file are, for [`check_entries`].
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

fn corrupt(keys: &RegionKeys, what: String) -> DbError {
    DbError::Corrupt {
        path: keys.file().path().to_path_buf(),
        what,
    }
}

/// Checks a key index's encoding and group table before it is read
/// (`RegionKeys::new`): plain, its group count and every record's
/// directory and fields within the file, with checked arithmetic (a forged
/// count or offset overflowed there; found by the `db-region` target).
pub fn key_file(file: &MappedFile, variant: KpeVariant) -> Result<(), DbError> {
    let corrupt = |what: String| DbError::Corrupt {
        path: file.path().to_path_buf(),
        what,
    };
    if file.encoding() != Encoding::Plain {
        return Err(corrupt(format!(
            "key index in encoding {} (written plain)",
            file.encoding() as u8
        )));
    }
    let payload = file.entries();
    let read = |at: u64| -> Result<u64, DbError> {
        let bytes = file.bytes(at as usize, 8)?;
        Ok(u64::from_le_bytes(bytes.try_into().expect("8 bytes")))
    };
    if payload < 8 {
        return Err(corrupt("key file without a group table".into()));
    }
    let count = read(0)?;
    if count > (payload - 8) / 40 {
        return Err(corrupt(format!("{count} groups do not fit")));
    }
    let eg = super::endgame::Endgame::new(variant);
    for g in 0..count {
        let at = 8 + 40 * g;
        let [stones, keys, shift, dir_at, bits_at] = [0, 8, 16, 24, 32].map(|o| read(at + o));
        let (stones, keys, shift, dir_at, bits_at) = (stones?, keys?, shift?, dir_at?, bits_at?);
        let fits = stones <= variant.total() as u64
            && (1..=56).contains(&shift)
            && (eg.index.layer_size(stones as usize) << (2 * variant.w()) >> shift)
                .checked_add(2)
                .and_then(|d| d.checked_mul(4))
                .and_then(|d| d.checked_add(dir_at))
                .is_some_and(|end| end <= bits_at)
            && keys
                .checked_mul(shift)
                .map(|b| b.div_ceil(8))
                .and_then(|b| b.checked_add(bits_at))
                .and_then(|b| b.checked_add(8))
                .is_some_and(|end| end <= payload);
        if !fits {
            return Err(corrupt(format!("group {g} does not fit the file")));
        }
    }
    Ok(())
}

/// Checks the key index at open (its group table, each directory's ends,
/// the start position present) and tells the values file which stones
/// each of its entries has.
pub fn region(
    keys: &RegionKeys,
    values: &mut MappedFile,
    variant: KpeVariant,
) -> Result<(), DbError> {
    let total = variant.total() as usize;
    let buckets = |g: &KeyGroup| (keys.universe(g) >> g.shift) as usize + 1;
    // Both ends of every directory are read below: asked for at once, they
    // cost one wait for the disk instead of one per group.
    for g in keys.groups() {
        keys.read_ahead_dir(g, 0);
        keys.read_ahead_dir(g, buckets(g));
    }
    let mut last = None;
    for (i, g) in keys.groups().iter().enumerate() {
        if g.stones > total || g.stones % 2 != 0 || last.is_some_and(|l| l >= g.stones) {
            return Err(corrupt(
                keys,
                format!(
                    "group {i} of {} stones is out of order or not a stone count of kpe:{variant}",
                    g.stones
                ),
            ));
        }
        last = Some(g.stones);
        if g.keys > keys.universe(g) || keys.dir(g, 0)? != 0 || keys.dir(g, buckets(g))? != g.keys {
            return Err(corrupt(
                keys,
                format!(
                    "the directory of group {i} does not cover its {} keys",
                    g.keys
                ),
            ));
        }
    }
    let start = KpePosition::start(variant);
    if keys.find_position(&start)?.is_none() {
        return Err(corrupt(
            keys,
            "the key index does not hold the start position".into(),
        ));
    }
    let groups = keys
        .groups()
        .iter()
        .map(|g| (g.first, g.stones as u32))
        .collect();
    values.set_check(Content::Region {
        total: variant.total(),
        groups,
    });
    Ok(())
}

/// Checks the bucket `b` of group `g` that a lookup searches: its
/// directory range `lo..hi` within the group, its keys strictly ascending
/// and below the group's universe.
pub fn bucket(keys: &RegionKeys, g: &KeyGroup, b: usize, lo: u64, hi: u64) -> Result<(), DbError> {
    if lo > hi || hi > g.keys {
        return Err(corrupt(
            keys,
            format!(
                "bucket {b} of the {}-stone group spans keys {lo}..{hi} of {}",
                g.stones, g.keys
            ),
        ));
    }
    let top = keys.universe(g);
    let mut prev = None;
    for j in lo..hi {
        let u = (b as u64) << g.shift | keys.field(g, j)?;
        if u >= top || prev.is_some_and(|p| p >= u) {
            return Err(corrupt(
                keys,
                format!(
                    "key {j} of the {}-stone group is out of order or out of range",
                    g.stones
                ),
            ));
        }
        prev = Some(u);
    }
    Ok(())
}

/// Checks a whole group before it is read key by key (export): every
/// bucket as [`bucket`] does, the directory ascending, and every key a
/// locked position (a position with both players unlocked belongs to the
/// endgame layers).
pub fn group(keys: &RegionKeys, g: usize) -> Result<(), DbError> {
    let group = keys.groups()[g];
    let buckets = (keys.universe(&group) >> group.shift) as usize + 1;
    let marks = 2 * keys.eg.variant.w();
    let unlocked = (1u64 << marks) - 1;
    let mut lo = keys.dir(&group, 0)?;
    for b in 0..buckets {
        let hi = keys.dir(&group, b + 1)?;
        bucket(keys, &group, b, lo, hi)?;
        for j in lo..hi {
            let u = (b as u64) << group.shift | keys.field(&group, j)?;
            if u & unlocked == unlocked {
                return Err(corrupt(
                    keys,
                    format!(
                        "key {j} of the {}-stone group is not a locked position",
                        group.stones
                    ),
                ));
            }
        }
        lo = hi;
    }
    Ok(())
}
