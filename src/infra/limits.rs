//! Resource limits checked before work starts: worker threads and memory.
//!
//! `--threads` is bounded by [`max_threads`] (a multiple of the machine's
//! cores: beyond it threads only contend), and a table size (`--hash`, an
//! agent's `tt=`) must fit in the memory the kernel reports available
//! (`MemAvailable` in `/proc/meminfo`), so that a request that cannot fit
//! is refused with the figures instead of aborting on allocation.

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

fn parse_mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
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
}
