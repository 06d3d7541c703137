//! The lock of a variant's database directory: one writer at a time.
//!
//! A writer (`sow solve`, `variants`, `report`: everything that builds
//! through [`Solution::build`](super::solution::Solution::build)) holds an
//! exclusive advisory lock (`flock`, through std's `File::lock`) on
//! `<db>/kpe-WxK/lock` while it writes, and keeps its process id in that
//! file. A second writer finds the lock taken, says which process holds it,
//! and waits for it; it then reuses every layer the first one finished.
//! The kernel drops the lock when its holder exits, however it exits
//! (SIGKILL included), so a stale lock file never blocks anyone.
//!
//! Readers take no lock: files appear only whole (temporary name, then
//! rename), so a reader never sees a half-written layer. When a reader finds
//! layers missing it names what is missing and whether a writer is at work
//! ([`absent`]).

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::error::DbError;
use super::paths;
use crate::games::kpe::KpeVariant;

/// Name of the lock file inside a variant's directory.
pub const LOCK_FILE: &str = "lock";

/// The writer's lock; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct DbLock {
    file: File,
    path: PathBuf,
}

/// Who holds a lock, as its lock file says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Holder {
    /// The holder's process id, when the file names one.
    pub pid: Option<u32>,
    pub path: PathBuf,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.pid {
            Some(pid) => write!(f, "process {pid}"),
            None => write!(f, "another process"),
        }
    }
}

fn read_pid(file: &mut File) -> Option<u32> {
    let mut text = String::new();
    file.seek(SeekFrom::Start(0)).ok()?;
    file.read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}

fn open_lock_file(path: &Path) -> Result<File, DbError> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(DbError::io(dir))?;
    }
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(DbError::io(path))
}

impl DbLock {
    /// Takes the lock of the database directory `dir` (a variant's). When
    /// another process holds it, calls `waiting` with the holder once, then
    /// blocks until the holder is done.
    pub fn acquire(dir: &Path, waiting: impl FnOnce(&Holder)) -> Result<DbLock, DbError> {
        let path = dir.join(LOCK_FILE);
        let mut file = open_lock_file(&path)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                waiting(&Holder {
                    pid: read_pid(&mut file),
                    path: path.clone(),
                });
                file.lock().map_err(DbError::io(&path))?;
            }
            Err(TryLockError::Error(e)) => return Err(DbError::io(&path)(e)),
        }
        // Ours now: record our process id for the next writer's message.
        let write = |file: &mut File| -> std::io::Result<()> {
            file.set_len(0)?;
            file.seek(SeekFrom::Start(0))?;
            writeln!(file, "{}", std::process::id())?;
            file.flush()
        };
        write(&mut file).map_err(DbError::io(&path))?;
        Ok(DbLock { file, path })
    }

    /// Takes the lock only if it is free; else says who holds it.
    pub fn try_acquire(dir: &Path) -> Result<Result<DbLock, Holder>, DbError> {
        let mut holder = None;
        let lock = Self::acquire_or(dir, &mut holder)?;
        Ok(lock.ok_or_else(|| holder.expect("set when the lock is taken")))
    }

    fn acquire_or(dir: &Path, holder: &mut Option<Holder>) -> Result<Option<DbLock>, DbError> {
        let path = dir.join(LOCK_FILE);
        let mut file = open_lock_file(&path)?;
        match file.try_lock() {
            Ok(()) => {
                drop(file);
                // Free: take it properly (records our pid). A writer slipping
                // in between makes us wait for it, which is still correct.
                Self::acquire(dir, |_| {}).map(Some)
            }
            Err(TryLockError::WouldBlock) => {
                *holder = Some(Holder {
                    pid: read_pid(&mut file),
                    path,
                });
                Ok(None)
            }
            Err(TryLockError::Error(e)) => Err(DbError::io(&path)(e)),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for DbLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

/// The writer at work on a variant's directory, if any (readers' messages).
pub fn writer(dir: &Path) -> Option<Holder> {
    let path = dir.join(LOCK_FILE);
    let mut file = File::open(&path).ok()?;
    match file.try_lock_shared() {
        Ok(()) => {
            let _ = file.unlock();
            None
        }
        Err(TryLockError::WouldBlock) => Some(Holder {
            pid: read_pid(&mut file),
            path,
        }),
        Err(TryLockError::Error(_)) => None,
    }
}

/// The error of a reader that found the database of `variant` under `db`
/// without all its files: nothing there, or an incomplete database (being
/// built by a writer, or left by an interrupted one).
pub fn absent(db: &Path, variant: KpeVariant, layers: &[usize]) -> DbError {
    let hint = paths::solve_hint(db, variant);
    let present = layers
        .iter()
        .filter(|&&n| paths::layer_path(db, variant, n).exists())
        .count();
    let region = paths::region_path(db, variant).exists();
    if present == 0 && !region {
        return DbError::Missing {
            variant: variant.tag(),
            dir: db.to_path_buf(),
            hint,
        };
    }
    let state = match writer(&paths::variant_dir(db, variant)) {
        Some(h) => format!("being built by {h}: wait for it to finish"),
        None => format!("an interrupted build: run `{hint}` to complete it"),
    };
    DbError::Incomplete {
        variant: variant.tag(),
        dir: db.to_path_buf(),
        what: format!(
            "{present} of {} endgame layers, {} opening file",
            layers.len(),
            if region { "its" } else { "no" }
        ),
        state,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("sow-lock-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_second_writer_is_told_the_holder_and_waits_for_it() {
        let dir = temp_dir("two");
        let first = DbLock::acquire(&dir, |_| panic!("the lock was free")).unwrap();
        let me = Some(std::process::id());
        // flock locks belong to open files, so a second open in this
        // process contends like another process would.
        let holder = DbLock::try_acquire(&dir).unwrap().unwrap_err();
        assert_eq!(holder.pid, me);
        assert_eq!(writer(&dir).map(|h| h.pid), Some(me));
        let (tx, rx) = std::sync::mpsc::channel();
        let dir2 = dir.clone();
        let second = std::thread::spawn(move || {
            let lock = DbLock::acquire(&dir2, |h| tx.send(h.clone()).unwrap()).unwrap();
            drop(lock);
        });
        let told = rx.recv().unwrap();
        assert_eq!(told.pid, me);
        assert_eq!(told.to_string(), format!("process {}", std::process::id()));
        assert!(!second.is_finished(), "the second writer waits");
        drop(first);
        second.join().unwrap();
        assert_eq!(writer(&dir), None, "released");
        let again = DbLock::try_acquire(&dir).unwrap();
        assert!(again.is_ok());
        fs::remove_dir_all(&dir).unwrap();
    }
}
