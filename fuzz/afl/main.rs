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
mod targets;

use std::path::PathBuf;

fn main() {
    let name = std::env::var("SOW_AFL_TARGET").expect("set SOW_AFL_TARGET to a sow-fuzz target");
    let seeds = PathBuf::from(std::env::var("SOW_FUZZ_SEEDS").unwrap_or("fuzz/seeds".into()));
    let work = std::env::temp_dir().join(format!("sow-afl-{name}"));
    let target = targets::target(&name, &seeds, &work).expect("target");
    afl::fuzz!(|data: &[u8]| {
        if let Err(violation) = (target.run)(data) {
            panic!("error contract violated: {violation}");
        }
    });
}
