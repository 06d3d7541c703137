//! The locked region's key index, opened for lookups (its layout:
//! `keys/key_file.rs`): each lookup checks the bucket it searches.

use super::check;
use super::error::DbError;
use super::file::MappedFile;
use super::keys::compact::search;
use super::keys::key_file::{KeyFile, KeyGroup};
use super::keys::ranker::{key_of, rank, stones_of, KeyCursor, Ranker, RegionKey};
use crate::games::kpe::{KpePosition, KpeVariant};

/// The key file of a region, mapped, answering "where is this key".
pub struct RegionKeys {
    keys: KeyFile,
}

impl RegionKeys {
    /// Reads the group table of a key file, checked.
    pub fn new(file: MappedFile, variant: KpeVariant) -> Result<Self, DbError> {
        let ranker = Ranker::new(variant);
        check::keys::table(&file, &ranker)?;
        Ok(RegionKeys {
            keys: KeyFile::read(file, ranker)?,
        })
    }

    /// The index's fields, as the file holds them.
    pub fn key_file(&self) -> &KeyFile {
        &self.keys
    }

    pub fn file(&self) -> &MappedFile {
        self.keys.file()
    }

    /// Positions of the region.
    pub fn len(&self) -> u64 {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn groups(&self) -> &[KeyGroup] {
        self.keys.groups()
    }

    /// The index in the values file of a locked position, if present.
    pub fn find_position(&self, pos: &KpePosition) -> Result<Option<u64>, DbError> {
        self.find(self.keys.ranker().region_key(pos))
    }

    /// The index in the values file of a key, if present.
    pub fn find(&self, key: RegionKey) -> Result<Option<u64>, DbError> {
        let Some(g) = self.keys.group_of(stones_of(key)) else {
            return Ok(None);
        };
        let u = rank(key);
        let b = (u >> g.shift) as usize;
        if u >= self.keys.universe(g) {
            return Ok(None);
        }
        let (lo, hi) = (self.keys.dir(g, b)?, self.keys.dir(g, b + 1)?);
        check::keys::bucket(&self.keys, g, b, lo, hi)?;
        let low = u & ((1u64 << g.shift) - 1);
        let found = search(lo, hi, low, |j| self.keys.field(g, j))?;
        Ok(found.map(|j| g.first + j))
    }

    /// A decoder of the keys of [`Self::keys_of`] into positions, which
    /// steps from one key to the next in file order.
    pub fn cursor(&self) -> KeyCursor<'_> {
        self.keys.ranker().cursor()
    }

    /// Every key of group `g`, in file order.
    pub fn keys_of(&self, g: usize) -> Result<Vec<RegionKey>, DbError> {
        check::keys::group(&self.keys, g)?;
        let group = self.keys.groups()[g];
        let mut keys = Vec::with_capacity(group.keys as usize);
        let mut j = 0u64;
        for b in 0..self.keys.buckets(&group) {
            let end = self.keys.dir(&group, b + 1)?;
            while j < end {
                let u = (b as u64) << group.shift | self.keys.field(&group, j)?;
                keys.push(key_of(group.stones, u));
                j += 1;
            }
        }
        Ok(keys)
    }
}
