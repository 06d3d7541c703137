//! One writer per book: a builder holds an exclusive advisory lock
//! (`flock`, through std's `File::lock`) on `BOOK.lock` beside the book,
//! with its process id inside. The kernel drops the lock when its holder
//! exits, however it exits, so a stale lock file never blocks anyone.
//! Readers take no lock: the book is only ever replaced whole (temporary
//! file, then rename).

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::error::BookError;

/// The lock of a book; released when dropped.
#[derive(Debug)]
pub struct BookLock {
    file: File,
    path: PathBuf,
}

/// The lock file of the book at `book`: `BOOK.lock`.
pub fn lock_path(book: &Path) -> PathBuf {
    let mut name = book.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    book.with_file_name(name)
}

impl BookLock {
    /// Takes the lock of the book at `book` (its directory created), or
    /// says who holds it.
    pub fn acquire(book: &Path) -> Result<BookLock, BookError> {
        let path = lock_path(book);
        let io = |e| BookError::io(&path, e);
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| BookError::io(dir, e))?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut text = String::new();
                let _ = file.read_to_string(&mut text);
                let holder = match text.trim().parse::<u32>() {
                    Ok(pid) => format!("process {pid}"),
                    Err(_) => "another process".to_string(),
                };
                return Err(BookError::Locked {
                    path: book.to_path_buf(),
                    holder,
                });
            }
            Err(TryLockError::Error(e)) => return Err(io(e)),
        }
        let mut record = || -> std::io::Result<()> {
            file.set_len(0)?;
            file.seek(SeekFrom::Start(0))?;
            writeln!(file, "{}", std::process::id())?;
            file.flush()
        };
        record().map_err(io)?;
        Ok(BookLock { file, path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for BookLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_refused_until_the_first_is_done() {
        let dir = std::env::temp_dir().join(format!("sow-book-lock-{}", std::process::id()));
        let book = dir.join("b.sowbook");
        let first = BookLock::acquire(&book).unwrap();
        assert_eq!(first.path(), dir.join("b.sowbook.lock"));
        // flock locks belong to open files: a second open contends like
        // another process would.
        let err = BookLock::acquire(&book).unwrap_err();
        assert!(
            err.to_string()
                .contains(&format!("process {}", std::process::id())),
            "{err}"
        );
        drop(first);
        BookLock::acquire(&book).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
