//! AFL++ harness: the target named by `$SOW_AFL_TARGET` (a `sow-fuzz`
//! target, same code), run in AFL's persistent mode. A panic, or a
//! violation of the error contract (turned into a panic here), is a crash
//! for AFL.
//!
//! The target is built in the forked process, at its first input, not
//! before AFL's fork server starts: threads started before the fork do
//! not exist in the forked process, so a target whose setup ran rayon
//! (the database targets solve their seed database) left a pool whose
//! first parallel loop then waited forever, every input a timeout. With
//! `SOW_AFL_PREPARE` set, the harness only builds the target (the seed
//! database on disk, which the forked processes then just reopen) and
//! exits: `scripts/fuzz_afl.sh` runs that first, outside AFL.

#[path = "../src/http.rs"]
mod http;
#[path = "../src/mutate.rs"]
#[allow(dead_code)] // the text mutations are sow-fuzz's; `reseal_input` is used here
mod mutate;
#[path = "../src/targets.rs"]
#[allow(dead_code)] // the runner's fields (name, seeds, ...) are sow-fuzz's
mod targets;

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::OnceLock;

struct Harness {
    name: String,
    seeds: PathBuf,
    work: PathBuf,
    target: OnceLock<targets::Target>,
}

impl Harness {
    fn target(&self) -> &targets::Target {
        self.target.get_or_init(|| {
            targets::target(&self.name, &self.seeds, &self.work).expect("the target builds")
        })
    }
}

fn main() {
    let name = std::env::var("SOW_AFL_TARGET").expect("set SOW_AFL_TARGET to a sow-fuzz target");
    let seeds = PathBuf::from(std::env::var("SOW_FUZZ_SEEDS").unwrap_or("fuzz/seeds".into()));
    let work = std::env::temp_dir().join(format!("sow-afl-{name}"));
    let harness = Harness {
        name,
        seeds,
        work,
        target: OnceLock::new(),
    };
    if std::env::var_os("SOW_AFL_PREPARE").is_some() {
        harness.target();
        return;
    }
    // afl's loop runs each input under `catch_unwind` and turns a panic into
    // an abort (a crash for AFL): a target's state is never reused after a
    // panic, so whatever it holds need not be unwind-safe.
    let harness = AssertUnwindSafe(harness);
    afl::fuzz!(|data: &[u8]| check(&harness, data));
}

/// Runs one input; a contract violation panics, a crash for AFL. (A
/// function of the whole wrapper: a closure naming `harness.0` would
/// capture the bare field, which is not unwind-safe.)
fn check(harness: &AssertUnwindSafe<Harness>, data: &[u8]) {
    let target = harness.0.target();
    if let Err(violation) = (target.run)(data) {
        panic!("error contract violated: {violation}");
    }
    // A database file is run a second time with its checksums recomputed
    // (as `sow-fuzz` does for half its mutants): AFL's byte mutations
    // almost never pass the checksums, so without this they would stop at
    // the checksum checks and never reach the content checks behind them.
    if let targets::Input::Binary { .. } = target.input {
        let mut resealed = data.to_vec();
        mutate::reseal_input(target.name, &mut resealed);
        if resealed != data {
            if let Err(violation) = (target.run)(&resealed) {
                panic!("error contract violated (checksums recomputed): {violation}");
            }
        }
    }
}
