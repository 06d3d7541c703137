//! One file written by every rank of a run together, whole or not at all,
//! as one process writes it (`infra/files.rs`): each rank writes its slice
//! at its offset in the temporary file `NAME.EXT.tmp`, rank 0 its head
//! (written last: it may sum up the slices), and once every rank has
//! synced its part, rank 0 renames the file. A failure on any rank fails
//! the write on every rank and leaves no file behind.

use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::transport::{Reduce, Transport};
use crate::infra::files::WriteError;

/// The temporary name of `path` while it is written (as every atomic
/// write of the project names it, `infra/files.rs`).
pub fn temporary(path: &Path) -> PathBuf {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    path.with_extension(format!("{ext}.tmp"))
}

fn at(path: &Path) -> impl FnOnce(std::io::Error) -> WriteError + '_ {
    move |source| WriteError {
        path: path.to_path_buf(),
        source,
    }
}

/// Whether every rank's step went well: each rank's own error, or (on
/// the ranks that had none) an error naming `path` when another failed.
fn all_ok<T: Transport + ?Sized>(
    transport: &T,
    path: &Path,
    step: Result<(), WriteError>,
) -> Result<(), WriteError> {
    let mut failed = [step.is_err() as u64];
    transport.all_reduce(&mut failed, Reduce::Sum);
    match (step, failed[0]) {
        (Err(e), _) => Err(e),
        (Ok(()), 0) => Ok(()),
        (Ok(()), n) => Err(WriteError {
            path: path.to_path_buf(),
            source: std::io::Error::other(format!("{n} other rank(s) failed to write it")),
        }),
    }
}

/// Writes `path` with the ranks of `transport`, which all call this
/// together: this rank's `slice` (parts, concatenated) at byte `offset`,
/// and on rank 0 `head()` at byte 0, called once every slice is written.
pub fn write_over_ranks<T: Transport + ?Sized>(
    transport: &T,
    path: &Path,
    offset: u64,
    slice: &[&[u8]],
    head: impl FnOnce() -> Vec<u8>,
) -> Result<(), WriteError> {
    let me = transport.rank();
    let tmp = temporary(path);
    let created = match me {
        0 => create(path, &tmp),
        _ => Ok(()),
    };
    all_ok(transport, path, created)?;
    let written = all_ok(transport, path, write_at(&tmp, offset, slice));
    let finished = match (me, written) {
        (0, Ok(())) => finish(path, &tmp, &head()),
        (_, written) => written,
    };
    if me == 0 && finished.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    // Every rank sees the renamed file (or the failure) from here on.
    all_ok(transport, path, finished)
}

/// Rank 0: the directory, and the temporary file emptied.
fn create(path: &Path, tmp: &Path) -> Result<(), WriteError> {
    crate::infra::files::check_replaceable(path).map_err(at(path))?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).map_err(at(path))?;
    }
    File::create(tmp).map_err(at(path))?;
    Ok(())
}

/// This rank's slice, at `offset` in the temporary file, synced.
fn write_at(tmp: &Path, offset: u64, slice: &[&[u8]]) -> Result<(), WriteError> {
    if slice.iter().all(|p| p.is_empty()) {
        return Ok(());
    }
    let write = || -> std::io::Result<()> {
        let mut file = OpenOptions::new().write(true).open(tmp)?;
        file.seek(SeekFrom::Start(offset))?;
        let mut out = BufWriter::with_capacity(1 << 20, &mut file);
        for part in slice {
            out.write_all(part)?;
        }
        out.flush()?;
        drop(out);
        file.sync_data()
    };
    write().map_err(at(tmp))
}

/// Rank 0: the head written, the file synced and renamed.
fn finish(path: &Path, tmp: &Path, head: &[u8]) -> Result<(), WriteError> {
    let write = || -> std::io::Result<()> {
        let mut file = OpenOptions::new().write(true).open(tmp)?;
        file.write_all(head)?;
        file.sync_all()?;
        fs::rename(tmp, path)
    };
    write().map_err(at(path))
}

#[cfg(test)]
mod tests {
    use super::super::transport::InProcess;
    use super::*;

    /// Slices of 1 to 4 ranks (rank 0's empty) and rank 0's head make one
    /// file, renamed whole; a rank's failure fails every rank.
    #[test]
    fn slices_and_head_make_one_file_or_none() {
        let dir = std::env::temp_dir().join(format!("sow-file-over-ranks-{}", std::process::id()));
        let path = dir.join("f.bin");
        for ranks in 1..=4 {
            InProcess::run(ranks, |t| {
                let me = t.rank() as u64;
                // Rank r writes r bytes of value r after a 4-byte head.
                let bytes = vec![me as u8; me as usize];
                let offset = 4 + (0..me).sum::<u64>();
                write_over_ranks(t, &path, offset, &[&bytes], || b"head".to_vec()).unwrap();
            });
            let mut expected = b"head".to_vec();
            for r in 0..ranks {
                expected.extend(std::iter::repeat_n(r as u8, r));
            }
            assert_eq!(fs::read(&path).unwrap(), expected);
        }
        // A failure on one rank is a failure on every rank.
        let failed = InProcess::run(3, |t| {
            let step = match t.rank() {
                2 => Err(WriteError {
                    path: path.clone(),
                    source: std::io::Error::other("disk full"),
                }),
                _ => Ok(()),
            };
            all_ok(t, &path, step).unwrap_err().to_string()
        });
        assert!(failed[2].contains("disk full"), "{failed:?}");
        assert!(
            failed[..2].iter().all(|e| e.contains("1 other rank")),
            "{failed:?}"
        );
        fs::remove_dir_all(&dir).unwrap();
    }
}
