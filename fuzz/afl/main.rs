//! AFL++ harness: the target named by `$SOW_AFL_TARGET` (a `sow-fuzz`
//! target, same code), run in AFL's persistent mode. A panic, or a
//! violation of the error contract (turned into a panic here), is a crash
//! for AFL.

#[path = "../../src/bin/sow-fuzz/http.rs"]
mod http;
#[path = "../../src/bin/sow-fuzz/mutate.rs"]
#[allow(dead_code)]
mod mutate;
#[path = "../../src/bin/sow-fuzz/targets.rs"]
#[allow(dead_code)] // the runner's fields (name, seeds, ...) are sow-fuzz's
mod targets;

use std::path::PathBuf;

fn main() {
    let name = std::env::var("SOW_AFL_TARGET").expect("set SOW_AFL_TARGET to a sow-fuzz target");
    let seeds = PathBuf::from(std::env::var("SOW_FUZZ_SEEDS").unwrap_or("fuzz/seeds".into()));
    let work = std::env::temp_dir().join(format!("sow-afl-{name}"));
    let target = targets::target(&name, &seeds, &work).expect("target");
    // afl's loop runs each input under `catch_unwind` and turns a panic into
    // an abort (a crash for AFL): a target's state is never reused after a
    // panic, so whatever it holds need not be unwind-safe.
    let run = std::panic::AssertUnwindSafe(&target.run);
    afl::fuzz!(|data: &[u8]| check(&run, data));
}

/// Runs one input; a contract violation panics, a crash for AFL. (A
/// function of the whole wrapper: a closure naming `run.0` would capture
/// the bare field, which is not unwind-safe.)
fn check(run: &std::panic::AssertUnwindSafe<&targets::Run>, data: &[u8]) {
    if let Err(violation) = (run.0)(data) {
        panic!("error contract violated: {violation}");
    }
}
