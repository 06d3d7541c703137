//! What a key index (`keys/key_file.rs`) must satisfy: a group table that
//! fits the file ([`table`]); groups in ascending, even stone counts within
//! the game's stones, each group's directory starting at 0 and ending at
//! its key count, the start position present ([`groups`], [`holds_start`],
//! at open: a few reads); the bucket a lookup searches in range and
//! strictly ascending, every key in it below its universe ([`bucket`], at
//! every lookup: 16 to 32 fields); a group read whole (export)
//! additionally with every key a locked position ([`group`]).

use crate::games::kpe::KpeVariant;
use crate::kpe_db::error::DbError;
use crate::kpe_db::file::{Encoding, MappedFile};
use crate::kpe_db::keys::key_file::{KeyFile, KeyGroup, RECORD};
use crate::kpe_db::keys::ranker::Ranker;

fn corrupt(keys: &KeyFile, what: String) -> DbError {
    DbError::Corrupt {
        path: keys.file().path().to_path_buf(),
        what,
    }
}

/// Checks a key index's encoding and group table before it is read
/// ([`KeyFile::read`]): plain, its group count and every record's
/// directory and fields within the file, with checked arithmetic (a forged
/// count or offset overflowed there; found by the `db-region` target).
pub fn table(file: &MappedFile, ranker: &Ranker) -> Result<(), DbError> {
    let variant = ranker.variant();
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
    if count > (payload - 8) / RECORD as u64 {
        return Err(corrupt(format!("{count} groups do not fit")));
    }
    for g in 0..count {
        let at = 8 + RECORD as u64 * g;
        let [stones, keys, shift, dir_at, bits_at] = [0, 8, 16, 24, 32].map(|o| read(at + o));
        let (stones, keys, shift, dir_at, bits_at) = (stones?, keys?, shift?, dir_at?, bits_at?);
        let fits = stones <= variant.total() as u64
            && (1..=56).contains(&shift)
            && (ranker.universe(stones as usize) >> shift)
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

/// Checks the groups of a key index at open: ascending, even stone
/// counts within the game's stones, each group's directory starting at 0
/// and ending at its key count.
pub fn groups(keys: &KeyFile, variant: KpeVariant) -> Result<(), DbError> {
    let total = variant.total() as usize;
    // Both ends of every directory are read below: asked for at once, they
    // cost one wait for the disk instead of one per group.
    for g in keys.groups() {
        keys.read_ahead_dir(g, 0);
        keys.read_ahead_dir(g, keys.buckets(g));
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
        if g.keys > keys.universe(g)
            || keys.dir(g, 0)? != 0
            || keys.dir(g, keys.buckets(g))? != g.keys
        {
            return Err(corrupt(
                keys,
                format!(
                    "the directory of group {i} does not cover its {} keys",
                    g.keys
                ),
            ));
        }
    }
    Ok(())
}

/// Checks that the index holds the start position: `found` is where its
/// lookup found it.
pub fn holds_start(keys: &KeyFile, found: Option<u64>) -> Result<(), DbError> {
    match found {
        Some(_) => Ok(()),
        None => Err(corrupt(
            keys,
            "the key index does not hold the start position".into(),
        )),
    }
}

/// Checks the bucket `b` of group `g` that a lookup searches: its
/// directory range `lo..hi` within the group, its keys strictly ascending
/// and below the group's universe.
pub fn bucket(keys: &KeyFile, g: &KeyGroup, b: usize, lo: u64, hi: u64) -> Result<(), DbError> {
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
pub fn group(keys: &KeyFile, g: usize) -> Result<(), DbError> {
    let group = keys.groups()[g];
    let buckets = keys.buckets(&group);
    let marks = 2 * keys.ranker().variant().w();
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
