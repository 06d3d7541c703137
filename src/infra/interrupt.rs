//! The Ctrl-C flag: long commands (a search, an export to a file) poll it to
//! stop cleanly, print their best result so far or remove their temporary
//! file, instead of being killed mid-write.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// The process's Ctrl-C flag, installing the handler on first use. Until it
/// is installed, Ctrl-C ends the process as usual (so commands call this
/// just before the work that must stop cleanly). Without signal support
/// the flag simply never gets set.
pub fn ctrl_c_flag() -> Arc<AtomicBool> {
    static STOP: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    STOP.get_or_init(|| {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
        stop
    })
    .clone()
}
