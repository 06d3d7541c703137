//! The check that the ranks of a run share one directory (a cluster file
//! system, or one machine's disk): they write one set of files together,
//! each rank its slices, so a directory each node has its own copy of
//! would give every node a file with holes.

use std::path::{Path, PathBuf};

use thiserror::Error;

use super::transport::{Reduce, Transport};

/// A directory the ranks cannot use together.
#[derive(Debug, Error)]
pub enum SharedDirError {
    #[error("{0}")]
    CannotWrite(String),
    #[error("the database directory {} is not shared by the ranks: {missing} of {ranks} ranks do not see the file rank 0 wrote there; give --db a directory every node mounts", dir.display())]
    NotShared {
        dir: PathBuf,
        missing: usize,
        ranks: usize,
    },
}

/// Refuses a directory `dir` the ranks do not share: rank 0 writes a token
/// file in it, which every rank must read back. Nothing is left behind (a
/// directory rank 0 had to create for the token is removed when the check
/// fails). Every rank calls it together.
pub fn check_shared_dir<T: Transport + ?Sized>(
    transport: &T,
    dir: &Path,
) -> Result<(), SharedDirError> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let token = transport.broadcast(nanos ^ ((std::process::id() as u64) << 32), 0);
    let path = dir.join(format!(".sow-shared-check-{token:016x}"));
    let mut created = false;
    let written = match transport.rank() {
        0 => {
            created = !dir.exists();
            std::fs::create_dir_all(dir)
                .and_then(|()| std::fs::write(&path, token.to_le_bytes()))
                .map_err(|e| format!("{}: {e}", path.display()))
        }
        _ => Ok(()),
    };
    if transport.broadcast(written.is_err() as u64, 0) != 0 {
        return Err(SharedDirError::CannotWrite(written.err().unwrap_or_else(
            || format!("rank 0 cannot write in {}", dir.display()),
        )));
    }
    transport.barrier();
    let seen = std::fs::read(&path).is_ok_and(|b| b == token.to_le_bytes());
    let mut seeing = [seen as u64];
    transport.all_reduce(&mut seeing, Reduce::Sum);
    transport.barrier();
    let missing = transport.size() - seeing[0] as usize;
    if transport.rank() == 0 {
        let _ = std::fs::remove_file(&path);
        if created && missing > 0 {
            let _ = std::fs::remove_dir(dir);
        }
    }
    match missing {
        0 => Ok(()),
        _ => Err(SharedDirError::NotShared {
            dir: dir.to_path_buf(),
            missing,
            ranks: transport.size(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::super::transport::InProcess;
    use super::*;

    /// Ranks of one process share every directory: the check passes and
    /// leaves nothing behind, also in a directory it had to create.
    #[test]
    fn threads_share_a_directory_and_nothing_is_left() {
        let dir = std::env::temp_dir().join(format!("sow-shared-dir-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let checked = InProcess::run(3, |t| check_shared_dir(t, &dir).is_ok());
        assert_eq!(checked, [true; 3]);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
