//! Resource limits checked before work starts: worker threads, memory and
//! disk.
//!
//! `--threads` is bounded by [`max_threads`] (a multiple of the machine's
//! cores: beyond it threads only contend), and a table size (`--hash`, an
//! agent's `tt=`) must fit in the memory the kernel reports available
//! (`MemAvailable` in `/proc/meminfo`), so that a request that cannot fit
//! is refused with the figures instead of aborting on allocation. The large
//! builds (the Kpé database, the Kiothi tables, kept proofs) compare their
//! estimates with [`memory_budget`] and [`disk_budget`].

use std::path::Path;

/// Makes writing past a file size limit (`ulimit -f`, RLIMIT_FSIZE) an
/// error of the write (EFBIG), which names the file and removes the
/// temporary, instead of the SIGXFSZ signal that kills the process.
pub fn file_size_limit_as_error() {
    // SAFETY: setting a signal's disposition to "ignore" has no handler to
    // race with; SIGXFSZ is not used otherwise by this program.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// Worker threads allowed per core.
pub const THREADS_PER_CORE: usize = 4;

/// The cores of this machine (1 if unknown).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The largest `--threads` accepted: [`THREADS_PER_CORE`] per core.
pub fn max_threads() -> usize {
    THREADS_PER_CORE * cores()
}

/// Checks a worker-thread count (`--threads`); the message names the bound.
pub fn check_threads(n: usize) -> Result<(), String> {
    check_threads_of("--threads", n)
}

/// [`check_threads`] for a count given as `what` (an agent's `threads=`,
/// which a message about `--threads` would misname).
pub fn check_threads_of(what: &str, n: usize) -> Result<(), String> {
    if n == 0 {
        return Err(format!("{what} must be at least 1"));
    }
    let max = max_threads();
    if n > max {
        return Err(format!(
            "{what} {n} is more than {THREADS_PER_CORE} per core ({max} on this machine's {} cores)",
            cores()
        ));
    }
    Ok(())
}

/// Memory available to a new allocation, in MiB (`MemAvailable`; `None`
/// where `/proc/meminfo` does not say).
pub fn mem_available_mib() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_mem_available(&info)
}

/// Peak resident memory of this process so far, in MiB (`VmHWM` of
/// `/proc/self/status`; `None` where it does not say).
pub fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn parse_mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

/// The memory a large build (a Kpé solve, the Kiothi tables) may use, in
/// bytes: `$SOW_MEMORY_MIB`, else what the system has available.
pub fn memory_budget() -> Option<u64> {
    env_mib("SOW_MEMORY_MIB").or_else(|| mem_available_mib().map(|mib| mib << 20))
}

/// The disk space a large build may write into `dir`, in bytes:
/// `$SOW_DISK_MIB`, else what its file system has free.
pub fn disk_budget(dir: &Path) -> Option<u64> {
    env_mib("SOW_DISK_MIB").or_else(|| disk_available(dir))
}

fn env_mib(name: &str) -> Option<u64> {
    let mib: u64 = std::env::var(name).ok()?.trim().parse().ok()?;
    Some(mib << 20)
}

/// Free space for an unprivileged writer on the file system that holds
/// `dir` (or its nearest existing ancestor).
fn disk_available(dir: &Path) -> Option<u64> {
    // A relative path's last ancestor is "", which names the current
    // directory but does not `exist`.
    let dir = dir
        .ancestors()
        .map(|p| {
            if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            }
        })
        .find(|p| p.exists())?;
    let c = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()).ok()?;
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `c` is a NUL-terminated path; statvfs fills `stat` on success.
    if unsafe { libc::statvfs(c.as_ptr(), stat.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: statvfs returned 0, so `stat` is initialized.
    let stat = unsafe { stat.assume_init() };
    // The field types differ between platforms (u64 on 64-bit Linux).
    #[allow(clippy::unnecessary_cast)]
    Some(stat.f_bavail as u64 * stat.f_frsize as u64)
}

/// Checks that `mb` MiB can be allocated now: at least 1 and at most the
/// available memory. `what` names the request in the message (`--hash`).
pub fn check_memory(what: &str, mb: usize) -> Result<(), String> {
    if mb == 0 {
        return Err(format!("{what} must be at least 1 MiB"));
    }
    match mem_available_mib() {
        Some(avail) if mb as u64 > avail => Err(format!(
            "{what} {mb} MiB is more than the {avail} MiB of memory available"
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_bound() {
        assert!(check_threads(0).is_err());
        assert!(check_threads(1).is_ok());
        assert!(check_threads(max_threads()).is_ok());
        let e = check_threads(max_threads() + 1).unwrap_err();
        assert!(e.contains("per core"), "{e}");
    }

    #[test]
    fn memory_bound() {
        let info = "MemTotal: 24000000 kB\nMemFree: 100 kB\nMemAvailable:   2097152 kB\n";
        assert_eq!(parse_mem_available(info), Some(2048));
        assert_eq!(parse_mem_available("MemTotal: 1 kB\n"), None);
        assert!(check_memory("--hash", 0).is_err());
        assert!(check_memory("--hash", 1).is_ok());
        if let Some(avail) = mem_available_mib() {
            let e = check_memory("--hash", avail as usize + 1).unwrap_err();
            assert!(e.contains("MiB of memory available"), "{e}");
        }
    }

    #[test]
    fn a_relative_directory_has_the_free_space_of_its_file_system() {
        assert!(disk_available(Path::new("not-made-yet/db")).is_some());
        assert!(disk_available(Path::new("/")).is_some());
    }
}
