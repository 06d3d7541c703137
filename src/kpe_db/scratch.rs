//! Where the locked region's large arrays live while it is built: in
//! memory, or out of core in files mapped from the database directory.
//!
//! Out of core, each array is a file created in the scratch directory,
//! given its blocks at once (`posix_fallocate`, so that a full disk is an
//! error here and not a SIGBUS when a page is first written back), mapped,
//! and unlinked at once: the kernel keeps it while it is mapped and frees
//! it when it is dropped, however the process ends, so a crash leaves no
//! scratch file behind. Its pages are the page cache's: the kernel writes
//! them back and evicts them under memory pressure instead of failing,
//! which is what lets kpe:5x4's region (an estimated 6.4·10⁹ locked
//! positions, docs/scaling.md) be built beside 24 GiB of memory.

use std::fs::{File, OpenOptions};
use std::marker::PhantomData;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use memmap2::MmapMut;

use super::error::DbError;

/// Where arrays made for the region live.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Scratch {
    /// Allocated in memory.
    #[default]
    Memory,
    /// In files mapped from this directory (out of core).
    Disk(PathBuf),
}

/// Element types of scratch arrays: bytes, for which every bit pattern
/// is a value and zero is the default.
pub trait Byte: Copy + Default + Send + Sync + 'static {}
impl Byte for u8 {}
impl Byte for i8 {}

/// A fixed-length array of bytes, in memory or mapped from a scratch file.
#[derive(Debug, Default)]
pub struct ScratchVec<T: Byte> {
    storage: Storage,
    len: usize,
    _element: PhantomData<T>,
}

#[derive(Debug, Default)]
enum Storage {
    #[default]
    Empty,
    Memory(Vec<u8>),
    Mapped(MmapMut),
}

/// Arrays shorter than this stay in memory even out of core: a wide
/// board's region has thousands of small groups, and a mapping each would
/// near the kernel's limit on mappings a process may hold
/// (`vm.max_map_count`, 65,530 here), for little memory (a group this
/// small holds a tiny share of the region's positions).
const SMALLEST_MAPPED: usize = 64 << 10;

/// Distinguishes the scratch files of one process.
static NEXT_FILE: AtomicU64 = AtomicU64::new(0);

impl Scratch {
    /// An array of `len` zeros.
    pub fn zeroed<T: Byte>(&self, len: usize) -> Result<ScratchVec<T>, DbError> {
        let storage = match (self, len) {
            (_, 0) => Storage::Empty,
            (Scratch::Disk(dir), SMALLEST_MAPPED..) => Storage::Mapped(mapped_file(dir, len)?),
            _ => Storage::Memory(vec![0u8; len]),
        };
        Ok(ScratchVec {
            storage,
            len,
            _element: PhantomData,
        })
    }

    /// An array holding a copy of `values`.
    pub fn copy_of<T: Byte>(&self, values: &[T]) -> Result<ScratchVec<T>, DbError> {
        let mut array = self.zeroed(values.len())?;
        array.copy_from_slice(values);
        Ok(array)
    }

    pub fn is_disk(&self) -> bool {
        matches!(self, Scratch::Disk(_))
    }

    /// An array of the `len` bytes of `file` from `offset`: out of core,
    /// those bytes mapped (privately: a change, though none is made,
    /// would stay in memory), so that a file kept anyway (a checkpoint,
    /// `build/checkpoint.rs`) serves as the array's scratch; in memory,
    /// or when small, a copy of them.
    pub fn view_of<T: Byte>(
        &self,
        file: &File,
        path: &Path,
        offset: u64,
        len: usize,
    ) -> Result<ScratchVec<T>, DbError> {
        let io = |source| DbError::Io {
            path: path.to_path_buf(),
            source,
        };
        let storage = match (self, len) {
            (_, 0) => Storage::Empty,
            (Scratch::Disk(_), SMALLEST_MAPPED..) => {
                // SAFETY: the file is one this process wrote (temporary
                // name, then rename) and nothing writes it again; the map
                // is private.
                let map = unsafe {
                    memmap2::MmapOptions::new()
                        .offset(offset)
                        .len(len)
                        .map_copy(file)
                };
                Storage::Mapped(map.map_err(io)?)
            }
            _ => {
                let mut bytes = vec![0u8; len];
                std::os::unix::fs::FileExt::read_exact_at(file, &mut bytes, offset).map_err(io)?;
                Storage::Memory(bytes)
            }
        };
        Ok(ScratchVec {
            storage,
            len,
            _element: PhantomData,
        })
    }
}

/// A new file of `len` bytes in `dir`, its blocks allocated, mapped and
/// already unlinked.
fn mapped_file(dir: &Path, len: usize) -> Result<MmapMut, DbError> {
    let n = NEXT_FILE.fetch_add(1, Ordering::Relaxed);
    let path = dir.join(format!(".scratch-{}-{n}", std::process::id()));
    let io = |source| DbError::Io {
        path: path.clone(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(|source| DbError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(io)?;
    let mapped = allocate(&file, len).and_then(|()| {
        // SAFETY: the file is this process's alone (created here, unlinked
        // below before anyone else could open it), so nothing changes it
        // under the map.
        unsafe { MmapMut::map_mut(&file) }
    });
    // Unlinked whatever happened: the map keeps the file while it lives.
    let removed = std::fs::remove_file(&path);
    let mapped = mapped.map_err(io)?;
    removed.map_err(io)?;
    Ok(mapped)
}

/// Gives `file` its `len` bytes of blocks now.
fn allocate(file: &File, len: usize) -> std::io::Result<()> {
    let len = libc::off_t::try_from(len).map_err(|_| std::io::ErrorKind::InvalidInput)?;
    // SAFETY: a valid open descriptor; posix_fallocate reads nothing else.
    match unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len) } {
        0 => Ok(()),
        // Not every file system allocates ahead (the error, not errno).
        libc::EOPNOTSUPP | libc::EINVAL => file.set_len(len as u64),
        e => Err(std::io::Error::from_raw_os_error(e)),
    }
}

impl<T: Byte> ScratchVec<T> {
    /// The elements' bytes (each element is one byte).
    pub fn as_bytes(&self) -> &[u8] {
        match &self.storage {
            Storage::Empty => &[],
            Storage::Memory(v) => v,
            Storage::Mapped(m) => &m[..self.len],
        }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        match &mut self.storage {
            Storage::Empty => &mut [],
            Storage::Memory(v) => v,
            Storage::Mapped(m) => &mut m[..self.len],
        }
    }

    /// Whether it lives in a mapped scratch file.
    pub fn is_mapped(&self) -> bool {
        matches!(self.storage, Storage::Mapped(_))
    }
}

impl<T: Byte> std::ops::Deref for ScratchVec<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        let bytes = self.as_bytes();
        // SAFETY: `T` is one byte (u8 or i8, `Byte`), any bit pattern valid.
        unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast(), bytes.len()) }
    }
}

impl<T: Byte> std::ops::DerefMut for ScratchVec<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        let bytes = self.bytes_mut();
        // SAFETY: as for `deref`.
        unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast(), bytes.len()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratches(dir: &Path) -> [Scratch; 2] {
        [Scratch::Memory, Scratch::Disk(dir.to_path_buf())]
    }

    #[test]
    fn arrays_read_back_what_was_written_in_memory_and_on_disk() {
        let dir = std::env::temp_dir().join(format!("sow-scratch-{}", std::process::id()));
        for scratch in scratches(&dir) {
            let len = 100_000;
            let mut a: ScratchVec<i8> = scratch.zeroed(len).unwrap();
            assert_eq!(a.len(), len);
            assert!(a.iter().all(|&x| x == 0));
            for (i, x) in a.iter_mut().enumerate() {
                *x = (i % 251) as i8 - 100;
            }
            assert!(a
                .iter()
                .enumerate()
                .all(|(i, &x)| x == (i % 251) as i8 - 100));
            assert_eq!(a.is_mapped(), scratch.is_disk());
            let b = scratch.copy_of(&[1u8, 2, 3]).unwrap();
            assert_eq!(&b[..], &[1, 2, 3]);
            assert!(!b.is_mapped(), "small arrays stay in memory");
            let empty: ScratchVec<u8> = scratch.zeroed(0).unwrap();
            assert!(empty.is_empty());
        }
        // Unlinked at once: the directory holds no scratch file.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir(&dir).unwrap();
    }

    #[test]
    fn a_view_of_a_file_holds_its_bytes_mapped_out_of_core() {
        let dir = std::env::temp_dir().join(format!("sow-scratch-view-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("kept");
        let bytes: Vec<u8> = (0..3 * SMALLEST_MAPPED).map(|i| (i % 253) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let file = File::open(&path).unwrap();
        for scratch in scratches(&dir) {
            let (offset, len) = (1001, 2 * SMALLEST_MAPPED);
            let view: ScratchVec<u8> = scratch.view_of(&file, &path, offset as u64, len).unwrap();
            assert_eq!(&view[..], &bytes[offset..offset + len]);
            assert_eq!(view.is_mapped(), scratch.is_disk());
            let small: ScratchVec<u8> = scratch.view_of(&file, &path, 5, 10).unwrap();
            assert_eq!(&small[..], &bytes[5..15]);
            assert!(!small.is_mapped());
        }
        let err = Scratch::Memory
            .view_of::<u8>(&file, &path, bytes.len() as u64, 10)
            .unwrap_err();
        assert!(err.to_string().contains("kept"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_scratch_directory_that_cannot_be_made_is_an_error_naming_it() {
        let file = std::env::temp_dir().join(format!("sow-scratch-file-{}", std::process::id()));
        std::fs::write(&file, b"not a directory").unwrap();
        let err = Scratch::Disk(file.join("sub"))
            .zeroed::<u8>(SMALLEST_MAPPED)
            .unwrap_err();
        assert!(err.to_string().contains("sow-scratch-file"), "{err}");
        std::fs::remove_file(&file).unwrap();
    }
}
