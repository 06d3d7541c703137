//! The locked region of the start as queries read it: solved in memory,
//! or its key index (`keys/key_file.rs`) and values mapped and searched in
//! place, each lookup checking the bucket it searches (`check/keys.rs`).

use crate::games::kpe::{KpePosition, KpeVariant};
use crate::kpe_db::check::{self, Content};
use crate::kpe_db::entry::entry_value;
use crate::kpe_db::error::DbError;
use crate::kpe_db::file::MappedFile;
use crate::kpe_db::keys::compact::search;
use crate::kpe_db::keys::key_file::{KeyFile, KeyGroup};
use crate::kpe_db::keys::ranker::{key_of, rank, stones_of, KeyCursor, Ranker, RegionKey};
use crate::kpe_db::region::LockedRegion;

/// The locked region of the start: solved in memory, or its key and
/// value files mapped and searched in place.
// One per solution: the size of the mapped variant does not matter.
#[allow(clippy::large_enum_variant)]
pub enum StartRegion {
    Memory(LockedRegion),
    Mapped {
        keys: RegionKeys,
        values: MappedFile,
    },
}

/// The positions of one stone count of the start's region: their stones
/// and entry bytes (order: as stored).
pub struct RegionGroup {
    pub stones: usize,
    pub entries: Vec<u8>,
}

impl StartRegion {
    pub fn mapped(
        keys: MappedFile,
        mut values: MappedFile,
        variant: KpeVariant,
    ) -> Result<Self, DbError> {
        let keys = RegionKeys::new(keys, variant)?;
        if keys.len() != values.entries() {
            return Err(DbError::Mismatch {
                path: values.path().to_path_buf(),
                what: format!(
                    "{} values for the {} keys of {}",
                    values.entries(),
                    keys.len(),
                    keys.file().path().display()
                ),
            });
        }
        let index = keys.key_file();
        check::keys::groups(index, variant)?;
        check::keys::holds_start(index, keys.find_position(&KpePosition::start(variant))?)?;
        values.set_check(Content::region(index, variant));
        Ok(StartRegion::Mapped { keys, values })
    }

    pub fn len(&self) -> usize {
        match self {
            StartRegion::Memory(r) => r.len(),
            StartRegion::Mapped { values, .. } => values.entries() as usize,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of a locked position, if it is in the region.
    pub fn value(&self, pos: &KpePosition) -> Result<Option<i8>, DbError> {
        Ok(self.entry(pos)?.map(entry_value))
    }

    /// The entry byte of a locked position, if it is in the region.
    pub fn entry(&self, pos: &KpePosition) -> Result<Option<u8>, DbError> {
        match self {
            StartRegion::Memory(r) => Ok(r.entry(pos)),
            StartRegion::Mapped { keys, values } => match keys.find_position(pos)? {
                Some(i) => values.entry(i).map(Some),
                None => Ok(None),
            },
        }
    }

    /// Every position's entry, by group (ascending stone count).
    pub fn groups(&self) -> Result<Vec<RegionGroup>, DbError> {
        match self {
            StartRegion::Memory(r) => Ok(r
                .stone_count_entries()
                .into_iter()
                .map(|(stones, entries)| RegionGroup { stones, entries })
                .collect()),
            StartRegion::Mapped { keys, values } => {
                let all = values.all_entries()?;
                Ok(keys
                    .groups()
                    .iter()
                    .map(|g| RegionGroup {
                        stones: g.stones,
                        entries: all[g.first as usize..(g.first + g.keys) as usize].to_vec(),
                    })
                    .collect())
            }
        }
    }

    /// Calls `f` with every position (mover as South) and its entry byte,
    /// by ascending stone count.
    pub fn for_each<E: From<DbError>>(
        &self,
        mut f: impl FnMut(&KpePosition, u8) -> Result<(), E>,
    ) -> Result<(), E> {
        match self {
            StartRegion::Memory(r) => {
                let mut result = Ok(());
                r.for_each_entry(|pos, e| {
                    if result.is_ok() {
                        result = f(pos, e);
                    }
                });
                result?;
            }
            StartRegion::Mapped { keys, values } => {
                keys.file().advise_sequential();
                values.advise_sequential();
                for (g, group) in keys.groups().iter().enumerate() {
                    let mut cursor = keys.cursor();
                    for (j, key) in keys.keys_of(g)?.into_iter().enumerate() {
                        f(&cursor.position(key), values.entry(group.first + j as u64)?)?;
                    }
                }
            }
        }
        Ok(())
    }
}

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
