//! Writing files whole: to a temporary name, then renamed, so that an
//! interrupted or failed command leaves no partial file behind.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file that could not be written, with its path.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct WriteError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

impl WriteError {
    /// Turns an I/O error of writing `path` into one that names it.
    fn at(path: &Path) -> impl Fn(std::io::Error) -> WriteError + Copy + '_ {
        move |source| WriteError {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// A name for a write probe no other check uses at the same time: the
/// probe may sit in a shared ancestor (`/tmp`), where two threads of one
/// process probing at once removed each other's file.
fn probe_name() -> String {
    static PROBES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = PROBES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!(".sow-write-check-{}-{n}", std::process::id())
}

/// Checks that files can be written in `dir`, so that a long command
/// refuses an unwritable `--out` before its work, not after. `dir` is not
/// created: the check writes (and removes) a file in `dir` or, when `dir`
/// does not exist yet, in its nearest existing ancestor, from which the
/// writes create it; a command refused later (a bad `--db`) leaves no
/// empty directory behind.
pub fn check_writable_dir(dir: &Path) -> Result<(), WriteError> {
    let mut existing = dir;
    loop {
        match fs::metadata(existing) {
            Ok(m) if m.is_dir() => break,
            // `create_dir_all` said "File exists" for a file (`/dev/null`).
            Ok(_) => {
                return Err(WriteError::at(existing)(std::io::Error::other(
                    "not a directory",
                )))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // A relative path's last ancestor is "", the current directory.
                existing = match existing.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p,
                    _ if existing != Path::new(".") => Path::new("."),
                    _ => return Err(WriteError::at(existing)(e)),
                };
            }
            Err(e) => return Err(WriteError::at(existing)(e)),
        }
    }
    let probe = existing.join(probe_name());
    let fail = WriteError::at(existing);
    fs::File::create(&probe).map_err(|e| match e.kind() {
        // A directory that exists but takes no new file (`/proc`) answers
        // "No such file or directory", which misreads as a missing path.
        std::io::ErrorKind::NotFound => fail(std::io::Error::other(format!(
            "this directory takes no new file ({e})"
        ))),
        _ => fail(e),
    })?;
    fs::remove_file(&probe).map_err(fail)
}

/// [`check_writable_dir`] for the directory `path` will be written in,
/// and [`check_replaceable`] for `path` itself.
pub fn check_writable_parent(path: &Path) -> Result<(), WriteError> {
    check_replaceable(path).map_err(WriteError::at(path))?;
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => check_writable_dir(dir),
        _ => check_writable_dir(Path::new(".")),
    }
}

/// Refuses an existing `path` that is not a regular file: a file written
/// whole is a temporary file renamed over `path`, which would replace a
/// directory's place or a device itself (`--out /dev/full`, run as root,
/// left a regular file in `/dev`). A missing `path` is fine.
pub fn check_replaceable(path: &Path) -> std::io::Result<()> {
    match fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(std::io::Error::other("is a directory")),
        Ok(m) if !m.is_file() => Err(std::io::Error::other(
            "not a regular file (an output is written whole, then renamed over its path)",
        )),
        _ => Ok(()),
    }
}

/// Writes the files `(name, contents)` in `dir` (created if needed) as a
/// set: each to its temporary first, and only once all are written whole
/// and synced are they renamed, so that a failure (a full disk, a name
/// taken by a directory) leaves the old set, not a new file beside old
/// ones. Only a failing rename in between could still mix them.
pub fn write_set_in(dir: &Path, files: &[(&str, &[u8])]) -> Result<(), WriteError> {
    let mut written = Vec::with_capacity(files.len());
    for (name, contents) in files {
        let path = dir.join(name);
        let fail = WriteError::at(&path);
        let (tmp, ()) = written_temporary(&path, |file| file.write_all(contents).map_err(fail))?;
        written.push(tmp);
    }
    for ((name, _), tmp) in files.iter().zip(&mut written) {
        let path = dir.join(name);
        tmp.rename_to(&path).map_err(WriteError::at(&path))?;
    }
    Ok(())
}

/// `contents` written atomically as `dir/name`.
pub fn write_in(dir: &Path, name: &str, contents: &str) -> Result<(), WriteError> {
    write_atomic(&dir.join(name), contents.as_bytes())
}

/// Writes `contents` to `path` atomically, creating its directory.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), WriteError> {
    write_atomic_parts(path, &[contents])
}

/// Writes the concatenation of `parts` to `path` atomically, creating its
/// directory: a header and a large payload go out without first being
/// copied into one buffer.
pub fn write_atomic_parts(path: &Path, parts: &[&[u8]]) -> Result<(), WriteError> {
    let fail = WriteError::at(path);
    write_atomic_with(path, |file| {
        let mut out = BufWriter::new(file);
        for part in parts {
            out.write_all(part).map_err(fail)?;
        }
        out.flush().map_err(fail)
    })
}

/// Streams a file to `path` atomically, creating its directory: `write`
/// fills a temporary file next to it, which is then synced and renamed
/// over `path`; on any error (`write`'s own, a full disk, Ctrl-C seen by
/// `write`) the temporary file is removed and `path` is left as it was.
/// `write`'s error is returned as it is; the file's own failures as a
/// [`WriteError`] naming `path`.
pub fn write_atomic_with<T, E: From<WriteError>>(
    path: &Path,
    write: impl FnOnce(&mut fs::File) -> Result<T, E>,
) -> Result<T, E> {
    let (mut tmp, result) = written_temporary(path, write)?;
    tmp.rename_to(path).map_err(WriteError::at(path))?;
    Ok(result)
}

/// The first half of an atomic write: `write` fills the temporary file of
/// `path` (its directory created), which is synced, not yet renamed (a
/// set of files is renamed only once all are written, [`write_set_in`]).
fn written_temporary<T, E: From<WriteError>>(
    path: &Path,
    write: impl FnOnce(&mut fs::File) -> Result<T, E>,
) -> Result<(Temporary, T), E> {
    let fail = WriteError::at(path);
    check_replaceable(path).map_err(fail)?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).map_err(fail)?;
    }
    let mut tmp = Temporary::create(path).map_err(fail)?;
    let result = write(&mut tmp.file)?;
    tmp.file.sync_all().map_err(fail)?;
    Ok((tmp, result))
}

/// The temporary file of an atomic write: `NAME.EXT.tmp` beside
/// `NAME.EXT`, removed when dropped unless it was renamed.
struct Temporary {
    path: PathBuf,
    file: fs::File,
    renamed: bool,
}

impl Temporary {
    fn create(target: &Path) -> std::io::Result<Self> {
        let path = target.with_extension(format!(
            "{}.tmp",
            target.extension().and_then(|e| e.to_str()).unwrap_or("")
        ));
        let file = fs::File::create(&path)?;
        Ok(Temporary {
            path,
            file,
            renamed: false,
        })
    }

    fn rename_to(&mut self, target: &Path) -> std::io::Result<()> {
        fs::rename(&self.path, target)?;
        self.renamed = true;
        Ok(())
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        if !self.renamed {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// A model as pretty JSON with its keys in alphabetical order at every
/// level (the order of every JSON the project writes, whatever the order
/// of the model's fields or `#[serde(flatten)]`).
pub fn pretty_json<T: serde::Serialize + ?Sized>(model: &T) -> String {
    let value = serde_json::to_value(model).expect("a report model serializes");
    serde_json::to_string_pretty(&value).expect("a JSON value prints")
}

/// A model whose JSON keys come out in alphabetical order at every level,
/// whatever the order of its fields or `#[serde(flatten)]`: the order of
/// the objects the commands built with `json!` before they were typed.
pub struct Sorted<'a, T: ?Sized>(pub &'a T);

impl<T: serde::Serialize + ?Sized> serde::Serialize for Sorted<'_, T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serde_json::to_value(self.0)
            .map_err(serde::ser::Error::custom)?
            .serialize(s)
    }
}

/// A model as one line of JSON, keys in alphabetical order (see [`pretty_json`]).
pub fn line_json<T: serde::Serialize + ?Sized>(model: &T) -> String {
    serde_json::to_value(model)
        .expect("a model serializes")
        .to_string()
}

/// Writes a report as `<stem>.json` (pretty-printed `model`) and
/// `<stem>.md` in `dir`; returns their paths (Markdown first).
pub fn write_report<T: serde::Serialize + ?Sized>(
    dir: &Path,
    stem: &str,
    model: &T,
    markdown: &str,
) -> Result<(PathBuf, PathBuf), WriteError> {
    let md_path = dir.join(format!("{stem}.md"));
    let json_path = dir.join(format!("{stem}.json"));
    write_atomic(&json_path, pretty_json(model).as_bytes())?;
    write_atomic(&md_path, markdown.as_bytes())?;
    Ok((md_path, json_path))
}

/// Whether `a` and `b` name the same file: the same path, or the same
/// name in the same directory reached another way (`./x`, a symbolic
/// link); either may not exist yet.
pub fn same_file(a: &Path, b: &Path) -> bool {
    let resolve = |p: &Path| {
        if let Ok(full) = p.canonicalize() {
            return Some(full);
        }
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        Some(dir.canonicalize().ok()?.join(p.file_name()?))
    };
    a == b || matches!((resolve(a), resolve(b)), (Some(x), Some(y)) if x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_writable_dir_is_checked_without_creating_it() {
        let dir = std::env::temp_dir().join(format!("sow-files-check-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let out = dir.join("a").join("b");
        check_writable_dir(&out).unwrap();
        assert!(!dir.join("a").exists());
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 0);
        let file = dir.join("afile");
        fs::write(&file, "x").unwrap();
        for bad in [file.clone(), file.join("sub"), PathBuf::from("/dev/null")] {
            let e = check_writable_dir(&bad).unwrap_err();
            let text = e.to_string().to_lowercase();
            assert!(
                text.ends_with("not a directory (os error 20)")
                    || text.ends_with("not a directory"),
                "{e}"
            );
        }
        let e = check_writable_dir(Path::new("/proc/sow-no-such-dir")).unwrap_err();
        assert_eq!(e.path, Path::new("/proc"));
        assert!(e.to_string().contains("takes no new file"), "{e}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_device_or_a_pipe_is_not_replaced() {
        let dir = std::env::temp_dir().join(format!("sow-files-test-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        for path in [fifo.as_path(), dir.as_path(), Path::new("/dev/null")] {
            let e = write_atomic(path, b"x").unwrap_err();
            assert!(
                e.to_string().contains("not a regular file")
                    || e.to_string().contains("is a directory"),
                "{e}"
            );
            assert!(check_writable_parent(path).is_err(), "{}", path.display());
        }
        use std::os::unix::fs::FileTypeExt;
        assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
        assert!(fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device());
        let file = dir.join("out.txt");
        write_atomic(&file, b"a").unwrap();
        write_atomic(&file, b"b").unwrap();
        assert_eq!(fs::read(&file).unwrap(), b"b");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_set_is_written_whole_or_not_at_all() {
        let dir = std::env::temp_dir().join(format!("sow-files-set-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        write_set_in(&dir, &[("a.svg", b"old a"), ("b.md", b"old b")]).unwrap();
        // `c.json` cannot be replaced: the new `a.svg`, already in its
        // temporary, must not be renamed over the old one.
        fs::create_dir(dir.join("c.json")).unwrap();
        let e = write_set_in(
            &dir,
            &[
                ("a.svg", b"new a"),
                ("c.json", b"new c"),
                ("b.md", b"new b"),
            ],
        )
        .unwrap_err();
        assert!(e.to_string().contains("c.json"), "{e}");
        assert_eq!(fs::read(dir.join("a.svg")).unwrap(), b"old a");
        assert_eq!(fs::read(dir.join("b.md")).unwrap(), b"old b");
        let mut names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["a.svg", "b.md", "c.json"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_stream_leaves_the_old_file_and_no_temporary() {
        let dir = std::env::temp_dir().join(format!("sow-files-stream-{}", std::process::id()));
        let file = dir.join("sub").join("rows.csv");
        let n: usize = write_atomic_with(&file, |f| -> Result<usize, WriteError> {
            f.write_all(b"old").unwrap();
            Ok(3)
        })
        .unwrap();
        assert_eq!(n, 3);
        #[derive(Debug)]
        enum Failed {
            File,
            Interrupted,
        }
        impl From<WriteError> for Failed {
            fn from(_: WriteError) -> Self {
                Failed::File
            }
        }
        let e = write_atomic_with(&file, |f| -> Result<(), Failed> {
            f.write_all(b"half").unwrap();
            Err(Failed::Interrupted)
        })
        .unwrap_err();
        assert!(matches!(e, Failed::Interrupted), "{e:?}");
        assert_eq!(fs::read(&file).unwrap(), b"old");
        let names: Vec<_> = fs::read_dir(file.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["rows.csv"]);
        fs::remove_dir_all(&dir).unwrap();
    }
}
