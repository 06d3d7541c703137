//! Checkpoints of a locked region being built, so that an interrupted
//! solve resumes where it stopped instead of from its start: a region
//! built out of core takes hours on the largest boards (kpe:5x4,
//! docs/scaling.md).
//!
//! In the variant's directory, `region-partial/`:
//! - `explored-NNN.sowdb` (NNN stones), written as the exploration closes
//!   each stone count's groups: their classes and compact keys
//!   (`keys/compact.rs`);
//! - `seeds.sowdb`, rewritten after a stone count when the keys found for
//!   fewer stones take no more bytes than the keys explored since it was
//!   last written (so that it never costs more writing than the
//!   exploration's own keys), and after the last: how far the
//!   exploration got, and those keys (`region/seeds.rs`);
//! - `run-NNNNN.sowdb`, written as each run of groups that no move joins
//!   is solved (`LockedRegion::independent_runs`): their values and "can
//!   end" bits.
//!
//! All are database files (`file/`: written to a temporary name then
//! renamed, so only whole ones exist; every block checked against its
//! checksum as it is read), of kinds 4, 6 and 5, plain, little-endian.
//! Once written, the keys and values they hold are mapped from them
//! (`Scratch::view_of`) rather than kept twice. A resumed solve takes the
//! stone counts explored up to `seeds.sowdb`'s, explores the rest, takes
//! the runs found in order, solves the rest, and removes the directory
//! once the region's own files are written. The exploration and each
//! group's values are determined by the rules alone, so the database it
//! writes is byte for byte the one an uninterrupted solve writes (tested:
//! `tests/kpe_db.rs`).
//!
//! `explored-NNN.sowdb`'s payload: the number of groups G (u64); per
//! group, five u64 (stones, class, keys, field width, directory length D);
//! then every group's directory (D u32 each), then every group's fields.
//! `seeds.sowdb`'s: the stone counts explored E (u64: the most, down to
//! total + 1 − E), then the table and runs of `Seeds::with_runs`.
//! `run-NNNNN.sowdb`'s: per group of the run, its values (one byte a
//! position) and then its "can end" bits (u64 words).

use std::cell::Cell;
use std::path::{Path, PathBuf};

use crate::games::kpe::KpeVariant;
use crate::kpe_db::error::DbError;
use crate::kpe_db::file::{self, FileId, FileKind, MappedFile};
use crate::kpe_db::keys::compact::{fields_len, CompactKeys};
use crate::kpe_db::paths::variant_dir;
use crate::kpe_db::region::seeds::Seeds;
use crate::kpe_db::region::{Explored, LockedRegion};
use crate::kpe_db::scratch::{Byte, Scratch, ScratchVec};
use crate::retrograde::bits::Bits;

/// The checkpoints of one variant's region.
pub struct RegionCheckpoint {
    dir: PathBuf,
    variant: KpeVariant,
    /// Bytes of keys explored since `seeds.sowdb` was last written.
    explored_since_seeds: Cell<usize>,
}

/// How far a checkpointed exploration got.
pub(super) enum Exploration {
    /// Every stone count: the region, none of its groups solved.
    Done(Box<LockedRegion>),
    /// Part way, with the stone counts explored (the most first).
    Partial(Explored),
}

impl RegionCheckpoint {
    /// The checkpoints of `variant`'s region in database `db`.
    pub fn new(db: &Path, variant: KpeVariant) -> Self {
        RegionCheckpoint {
            dir: variant_dir(db, variant).join("region-partial"),
            variant,
            explored_since_seeds: Cell::new(0),
        }
    }

    fn explored_path(&self, stones: usize) -> PathBuf {
        self.dir.join(format!("explored-{stones:03}.sowdb"))
    }

    fn seeds_path(&self) -> PathBuf {
        self.dir.join("seeds.sowdb")
    }

    fn run_path(&self, run: usize) -> PathBuf {
        self.dir.join(format!("run-{run:05}.sowdb"))
    }

    fn id(&self, kind: FileKind, stones: usize) -> FileId {
        FileId {
            kind,
            variant: self.variant,
            stones: stones as u32,
        }
    }

    /// Keeps stone count `n`'s groups, just closed, and lets their file
    /// hold their keys; then, when it is worth it (module documentation),
    /// the keys waiting for fewer stones.
    pub(super) fn keep_count(
        &self,
        n: usize,
        groups: &mut [(usize, CompactKeys)],
        seeds: &Seeds,
        scratch: &Scratch,
    ) -> Result<(), DbError> {
        let mut table = (groups.len() as u64).to_le_bytes().to_vec();
        let mut dirs = Vec::new();
        let mut positions = 0;
        for (class, keys) in groups.iter() {
            let fields = [keys.stones, *class, keys.len, keys.shift as usize];
            for x in fields.into_iter().chain([keys.dir.len()]) {
                table.extend_from_slice(&(x as u64).to_le_bytes());
            }
            dirs.extend(keys.dir.iter().flat_map(|d| d.to_le_bytes()));
            positions += keys.len as u64;
        }
        let mut parts: Vec<&[u8]> = vec![&table, &dirs];
        parts.extend(groups.iter().map(|(_, keys)| keys.fields.as_bytes()));
        let written: usize = parts.iter().map(|p| p.len()).sum();
        let id = self.id(FileKind::RegionExplored, n);
        file::write_file_parts(&self.explored_path(n), id, positions, &parts)?;
        for (g, (_, keys)) in self.read_count(n, scratch)?.into_iter().enumerate() {
            groups[g].1.fields = keys.fields;
        }
        let since = self.explored_since_seeds.get() + written;
        self.explored_since_seeds.set(since);
        if n == 0 || seeds.stored_bytes(n) <= since {
            self.save_seeds(n, seeds)?;
            self.explored_since_seeds.set(0);
        }
        Ok(())
    }

    /// Keeps how far the exploration got (every stone count down to `n`)
    /// and the keys found for fewer stones.
    fn save_seeds(&self, n: usize, seeds: &Seeds) -> Result<(), DbError> {
        let explored = (self.variant.total() as usize + 1 - n) as u64;
        seeds.with_runs(n, |table, runs| {
            let explored = explored.to_le_bytes();
            let mut parts: Vec<&[u8]> = vec![&explored, table];
            parts.extend_from_slice(runs);
            let id = self.id(FileKind::RegionSeeds, 0);
            file::write_file_parts(&self.seeds_path(), id, 0, &parts)
        })?
    }

    /// The groups of `n` stones kept by [`Self::keep_count`], their keys
    /// in `scratch`.
    fn read_count(
        &self,
        n: usize,
        scratch: &Scratch,
    ) -> Result<Vec<(usize, CompactKeys)>, DbError> {
        let path = self.explored_path(n);
        let file = MappedFile::open(&path, self.id(FileKind::RegionExplored, n), None)?;
        let mut reader = Reader::new(&file, &path)?;
        let count = reader.u64()?;
        if count > file.entries() + 1 {
            return Err(corrupt(&path, "more groups than positions"));
        }
        let mut heads = Vec::new();
        for _ in 0..count {
            let mut head = [0u64; 5];
            for x in &mut head {
                *x = reader.u64()?;
            }
            if head[0] != n as u64 || head[2] > file.entries() || head[3] > 64 {
                return Err(corrupt(&path, "a group not of its stones or its size"));
            }
            heads.push(head);
        }
        let mut dirs = Vec::with_capacity(heads.len());
        for &[.., dir_len] in &heads {
            let bytes = reader.take(dir_len as usize * 4)?;
            let dir: Vec<u32> = bytes
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
                .collect();
            dirs.push(dir);
        }
        let mut groups = Vec::with_capacity(heads.len());
        for (&[stones, class, len, shift, _], dir) in heads.iter().zip(dirs) {
            let (len, shift) = (len as usize, shift as u32);
            if dir.last().is_some_and(|&last| last as usize != len) {
                return Err(corrupt(&path, "a group's layout does not add up"));
            }
            let fields = reader.array(scratch, fields_len(len, shift))?;
            let keys = CompactKeys {
                stones: stones as usize,
                len,
                shift,
                dir,
                fields,
            };
            groups.push((class as usize, keys));
        }
        let positions: usize = groups.iter().map(|(_, k)| k.len).sum();
        if positions as u64 != file.entries() || reader.at != file.payload_len() {
            return Err(corrupt(&path, "its groups do not hold its positions"));
        }
        Ok(groups)
    }

    /// How far a checkpointed exploration got, its arrays in `scratch`;
    /// None if it kept nothing.
    pub(super) fn load_exploration(
        &self,
        scratch: &Scratch,
    ) -> Result<Option<Exploration>, DbError> {
        let path = self.seeds_path();
        if !path.exists() {
            return Ok(None);
        }
        let total = self.variant.total() as usize;
        let file = MappedFile::open(&path, self.id(FileKind::RegionSeeds, 0), None)?;
        let mut reader = Reader::new(&file, &path)?;
        let explored = reader.u64()?;
        if explored == 0 || explored > total as u64 + 1 {
            return Err(corrupt(&path, "more stone counts explored than there are"));
        }
        let below = total + 1 - explored as usize;
        let mut groups = Vec::new();
        for n in (below..=total).rev() {
            groups.extend(self.read_count(n, scratch)?);
        }
        if below == 0 {
            groups.reverse();
            let region = LockedRegion::from_explored(self.variant, groups, scratch.clone());
            return Ok(Some(Exploration::Done(Box::new(region))));
        }
        let seeds = Seeds::new(total + 1, scratch.clone());
        let runs = reader.u64()?;
        let mut heads = Vec::new();
        for _ in 0..runs.min(file.payload_len() as u64) {
            let mut head = [0u64; 3];
            for x in &mut head {
                *x = reader.u64()?;
            }
            heads.push(head);
        }
        let mut tables = Vec::new();
        for &[_, classes, _] in &heads {
            let bytes = reader.take((classes as usize).saturating_mul(12))?;
            let classes: Vec<(u32, usize)> = bytes
                .chunks_exact(12)
                .map(|c| {
                    let class = u32::from_le_bytes(c[..4].try_into().expect("4 bytes"));
                    let end = u64::from_le_bytes(c[4..].try_into().expect("8 bytes"));
                    (class, end as usize)
                })
                .collect();
            tables.push(classes);
        }
        for (&[stones, _, len], classes) in heads.iter().zip(tables) {
            let bytes = reader.array(scratch, len as usize)?;
            if stones >= below as u64 || !seeds.restore_run(stones as usize, classes, bytes) {
                return Err(corrupt(&path, "a run of keys that does not add up"));
            }
        }
        if heads.len() as u64 != runs || reader.at != file.payload_len() {
            return Err(corrupt(&path, "more bytes than its runs"));
        }
        let explored = Explored {
            groups,
            seeds,
            below,
        };
        Ok(Some(Exploration::Partial(explored)))
    }

    /// Keeps the values of run `run` of `region`, just solved: `groups`.
    fn save_run(
        &self,
        region: &LockedRegion,
        run: usize,
        groups: std::ops::Range<usize>,
    ) -> Result<(), DbError> {
        let mut positions = 0;
        let solved: Vec<(&[u8], Vec<u8>)> = groups
            .map(|g| {
                let (values, ends) = region.solved_group(g);
                positions += values.len() as u64;
                (values.as_bytes(), ends.to_le_bytes())
            })
            .collect();
        let parts: Vec<&[u8]> = solved
            .iter()
            .flat_map(|(values, ends)| [*values, ends.as_slice()])
            .collect();
        let id = self.id(FileKind::RegionSolvedRun, run);
        file::write_file_parts(&self.run_path(run), id, positions, &parts)
    }

    /// Restores into `region` (explored, none solved) the runs kept by
    /// [`Self::save_run`], in order from the first, and returns how many.
    pub fn load_runs(&self, region: &mut LockedRegion) -> Result<usize, DbError> {
        let runs = region.independent_runs();
        for (r, groups) in runs.iter().cloned().enumerate() {
            let path = self.run_path(r);
            if !path.exists() {
                return Ok(r);
            }
            for (g, values, ends) in self.read_run(region, r, groups)? {
                region.restore_solved(g, values, ends);
            }
        }
        Ok(runs.len())
    }

    /// The values and "can end" bits of each group of run `r` (`groups`),
    /// kept by [`Self::save_run`], the values in the region's scratch.
    #[allow(clippy::type_complexity)]
    fn read_run(
        &self,
        region: &LockedRegion,
        r: usize,
        groups: std::ops::Range<usize>,
    ) -> Result<Vec<(usize, ScratchVec<i8>, Bits)>, DbError> {
        let path = self.run_path(r);
        let file = MappedFile::open(&path, self.id(FileKind::RegionSolvedRun, r), None)?;
        let mut reader = Reader::new(&file, &path)?;
        let mut solved = Vec::new();
        for g in groups {
            let len = region.group_len(g);
            let values = reader.array(region.scratch(), len)?;
            let ends = Bits::from_le_bytes(len as u64, reader.take(len.div_ceil(64) * 8)?)
                .expect("as many bytes as taken");
            solved.push((g, values, ends));
        }
        if reader.at != file.payload_len() {
            return Err(corrupt(&path, "more bytes than its groups' values"));
        }
        Ok(solved)
    }

    /// Keeps run `r` of `region`, just solved (`groups`), and then lets
    /// its file hold the values: out of core they are not kept twice.
    pub fn keep_run(
        &self,
        region: &mut LockedRegion,
        r: usize,
        groups: std::ops::Range<usize>,
    ) -> Result<(), DbError> {
        self.save_run(region, r, groups.clone())?;
        for (g, values, _) in self.read_run(region, r, groups)? {
            region.replace_values(g, values);
        }
        Ok(())
    }

    /// Removes the checkpoints: the region's files are written.
    pub fn remove(&self) -> Result<(), DbError> {
        match std::fs::remove_dir_all(&self.dir) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(DbError::Io {
                path: self.dir.clone(),
                source: e,
            }),
            _ => Ok(()),
        }
    }
}

fn corrupt(path: &Path, what: &str) -> DbError {
    DbError::Corrupt {
        path: path.to_path_buf(),
        what: what.to_string(),
    }
}

/// Reads a plain file's payload in order, each read checked.
struct Reader<'a> {
    file: &'a MappedFile,
    /// The same file, for arrays mapped from it.
    raw: std::fs::File,
    path: &'a Path,
    at: usize,
}

impl<'a> Reader<'a> {
    fn new(file: &'a MappedFile, path: &'a Path) -> Result<Self, DbError> {
        let raw = std::fs::File::open(path).map_err(|source| DbError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(Reader {
            file,
            raw,
            path,
            at: 0,
        })
    }

    /// The next `len` bytes as an array in `scratch`: checked, then
    /// mapped from the file out of core ([`Scratch::view_of`]).
    fn array<T: Byte>(&mut self, scratch: &Scratch, len: usize) -> Result<ScratchVec<T>, DbError> {
        let offset = (self.file.payload_offset() + self.at) as u64;
        self.take(len)?;
        scratch.view_of(&self.raw, self.path, offset, len)
    }

    fn take(&mut self, len: usize) -> Result<&[u8], DbError> {
        let bytes = self.file.bytes(self.at, len)?;
        self.at += len;
        Ok(bytes)
    }

    fn u64(&mut self) -> Result<u64, DbError> {
        let bytes = self.take(8)?;
        Ok(u64::from_le_bytes(bytes.try_into().expect("8 bytes")))
    }
}
