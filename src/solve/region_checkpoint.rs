//! Checkpoints of a locked region being built, so that an interrupted
//! solve resumes where it stopped instead of from its start: a region
//! built out of core takes hours on the largest boards (kpe:5x4,
//! docs/scaling.md).
//!
//! In the variant's directory, `region-partial/`:
//! - `explored.sowdb`, written when the exploration ends: every group's
//!   class and compact keys (`compact_keys.rs`), in solving order;
//! - `run-NNNNN.sowdb`, written as each run of groups that no move joins
//!   is solved (`LockedRegion::independent_runs`): their values and "can
//!   end" bits.
//!
//! Both are database files (`db.rs`: written to a temporary name then
//! renamed, so only whole ones exist; every block checked against its
//! checksum as it is read), of kinds 4 and 5, plain, little-endian. A
//! resumed solve takes the exploration and the runs found in order,
//! solves the rest, and removes the directory once the region's own files
//! are written. Since a group's values depend only on the groups it leads
//! to, the database it writes is byte for byte the one an uninterrupted
//! solve writes (tested: `tests/kpe_db.rs`).
//!
//! `explored.sowdb`'s payload: the number of groups G (u64); per group,
//! five u64 (stones, class, keys, field width, directory length D); then
//! every group's directory (D u32 each), then every group's fields.
//! `run-NNNNN.sowdb`'s payload: per group of the run, its values (one
//! byte a position) and then its "can end" bits (u64 words).

use std::path::{Path, PathBuf};

use super::bits::Bits;
use super::compact_keys::{fields_len, CompactKeys};
use super::db::{self, DbError, FileId, FileKind, MappedFile};
use super::opening::LockedRegion;
use super::scratch::{Byte, Scratch, ScratchVec};
use crate::games::kpe::KpeVariant;

/// The checkpoints of one variant's region.
pub struct RegionCheckpoint {
    dir: PathBuf,
    variant: KpeVariant,
}

impl RegionCheckpoint {
    /// The checkpoints of `variant`'s region in database `db`.
    pub fn new(db: &Path, variant: KpeVariant) -> Self {
        RegionCheckpoint {
            dir: db::variant_dir(db, variant).join("region-partial"),
            variant,
        }
    }

    fn explored_path(&self) -> PathBuf {
        self.dir.join("explored.sowdb")
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

    /// Keeps the explored groups of `region`.
    fn save_explored(&self, region: &LockedRegion) -> Result<(), DbError> {
        let groups: Vec<(usize, &CompactKeys)> = region.explored_groups().collect();
        let mut table = (groups.len() as u64).to_le_bytes().to_vec();
        let mut dirs = Vec::new();
        for &(class, keys) in &groups {
            let fields = [keys.stones, class, keys.len, keys.shift as usize];
            for x in fields.into_iter().chain([keys.dir.len()]) {
                table.extend_from_slice(&(x as u64).to_le_bytes());
            }
            dirs.extend(keys.dir.iter().flat_map(|d| d.to_le_bytes()));
        }
        let mut parts: Vec<&[u8]> = vec![&table, &dirs];
        parts.extend(groups.iter().map(|(_, keys)| keys.fields.as_bytes()));
        let id = self.id(FileKind::RegionExplored, 0);
        db::write_file_parts(&self.explored_path(), id, region.len() as u64, &parts)
    }

    /// The explored region kept by [`Self::save_explored`], its arrays in
    /// `scratch`, none of its groups solved; None if there is none.
    pub fn load_explored(&self, scratch: &Scratch) -> Result<Option<LockedRegion>, DbError> {
        let path = self.explored_path();
        if !path.exists() {
            return Ok(None);
        }
        let file = MappedFile::open(&path, self.id(FileKind::RegionExplored, 0), None)?;
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
            if head[2] > file.entries() || head[3] > 64 {
                return Err(corrupt(&path, "a group larger than the region"));
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
        let region = LockedRegion::from_explored(self.variant, groups, scratch.clone());
        if region.len() as u64 != file.entries() {
            return Err(corrupt(&path, "its groups do not hold its positions"));
        }
        Ok(Some(region))
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
        db::write_file_parts(&self.run_path(run), id, positions, &parts)
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

    /// Keeps the explored groups of `region` and returns the region with
    /// its file holding their keys: out of core they are not kept twice.
    pub fn keep_explored(&self, region: LockedRegion) -> Result<LockedRegion, DbError> {
        self.save_explored(&region)?;
        let scratch = region.scratch().clone();
        drop(region);
        Ok(self.load_explored(&scratch)?.expect("just written"))
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
