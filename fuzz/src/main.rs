//! `sow-fuzz`: a structured mutation fuzzer for every input surface of
//! `sow` (issue #14), run as a binary on the stable toolchain.
//!
//! ```text
//! sow-fuzz TARGET --inputs N [--seed S] [--seeds DIR] [--findings DIR] [--work DIR]
//! sow-fuzz --list
//! sow-fuzz TARGET --dump-seeds DIR      # the seeds as files (AFL's input)
//! ```
//!
//! Each input is a seed (`fuzz/seeds/`, taken from the tests' positions)
//! or a mutant of a corpus entry ([`mutate`]); inputs that reach a new
//! outcome signature (accepted, or a refusal's kind and field) join the
//! corpus, so the fuzzer keeps inputs near valid and spreads over the
//! checks. Every input runs under `catch_unwind` (a panic is a finding,
//! saved under `--findings`), with a watchdog thread that saves the input
//! and exits with code 3 when one input runs longer than 1 s. The last
//! line is a JSON summary of the run.

mod http;
mod mutate;
mod targets;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Parser;
use sow::infra::rng::Rng;
use targets::{Input, Target, Verdict};

/// Longest time one input may take.
const HANG: Duration = Duration::from_secs(1);
/// Largest corpus kept per target.
const CORPUS_MAX: usize = 4096;

/// A structured mutation fuzzer for every input surface of `sow`.
#[derive(Parser)]
#[command(name = "sow-fuzz")]
struct Args {
    /// The input surface to fuzz (`--list` names them)
    #[arg(required_unless_present = "list", value_parser = clap::builder::PossibleValuesParser::new(targets::NAMES))]
    target: Option<String>,
    /// Inputs to run (underscores allowed: 1_000_000)
    #[arg(long, default_value = "10000", value_parser = parse_count)]
    inputs: u64,
    /// Seed of the mutations
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Directory of the seed inputs
    #[arg(long, default_value = "fuzz/seeds")]
    seeds: PathBuf,
    /// Where inputs that panicked, hung or broke the contract are saved
    #[arg(long, default_value = "fuzz/findings")]
    findings: PathBuf,
    /// Scratch directory (default: a new one in /dev/shm, else the
    /// temporary directory: the db-dir target writes a file per input)
    #[arg(long)]
    work: Option<PathBuf>,
    /// Write the target's seeds as files here and stop (AFL's input dir)
    #[arg(long, value_name = "DIR")]
    dump_seeds: Option<PathBuf>,
    /// Print the targets' names, one a line
    #[arg(long)]
    list: bool,
}

fn parse_count(text: &str) -> Result<u64, String> {
    text.replace('_', "").parse().map_err(|e| format!("{e}"))
}

fn default_work_dir() -> PathBuf {
    Some(Path::new("/dev/shm"))
        .filter(|p| p.is_dir())
        .map_or_else(std::env::temp_dir, Path::to_path_buf)
        .join(format!("sow-fuzz-{}", std::process::id()))
}

fn fail(message: impl std::fmt::Display) -> ! {
    eprintln!("error: {message}");
    std::process::exit(2);
}

/// The input being run, for the watchdog to save.
struct Current {
    started_ms: AtomicU64,
    busy: AtomicBool,
    input: Mutex<Vec<u8>>,
}

fn save(findings: &Path, target: &str, kind: &str, input: &[u8]) -> PathBuf {
    let _ = std::fs::create_dir_all(findings);
    let hash = sow::infra::checksum::checksum(input);
    let path = findings.join(format!("{target}-{kind}-{hash:016x}.bin"));
    let _ = std::fs::write(&path, input);
    path
}

/// A thread that saves the input being run and exits with code 3 once it
/// has run longer than [`HANG`].
fn spawn_watchdog(current: Arc<Current>, findings: PathBuf, name: &'static str, t0: Instant) {
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(100));
        if !current.busy.load(Ordering::SeqCst) {
            continue;
        }
        let now = t0.elapsed().as_millis() as u64;
        if now.saturating_sub(current.started_ms.load(Ordering::SeqCst)) > HANG.as_millis() as u64 {
            let input = current.input.lock().map(|i| i.clone()).unwrap_or_default();
            let path = save(&findings, name, "hang", &input);
            eprintln!("HANG over {HANG:?}: input saved as {}", path.display());
            std::process::exit(3);
        }
    });
}

/// Panics are findings: the hook keeps the last one's message for the
/// summary (and prints nothing).
fn keep_panic_messages() -> Arc<Mutex<String>> {
    let last_panic = Arc::new(Mutex::new(String::new()));
    let last = last_panic.clone();
    std::panic::set_hook(Box::new(move |info| {
        if let Ok(mut l) = last.lock() {
            *l = info.to_string();
        }
    }));
    last_panic
}

/// One fuzzing run of a target: the corpus and what became of the inputs.
struct Campaign<'a> {
    target: &'a Target,
    findings: &'a Path,
    rng: Rng,
    corpus: Vec<Vec<u8>>,
    signatures: BTreeMap<String, u64>,
    accepted: u64,
    refused: u64,
    panics: u64,
    violations: u64,
    finding_files: Vec<String>,
    last_panic: Arc<Mutex<String>>,
}

impl<'a> Campaign<'a> {
    /// `last_panic`: where the panic hook keeps the last panic's message
    /// ([`keep_panic_messages`]).
    fn new(
        target: &'a Target,
        findings: &'a Path,
        seed: u64,
        last_panic: Arc<Mutex<String>>,
    ) -> Self {
        Campaign {
            target,
            findings,
            rng: Rng::new(seed),
            corpus: target.seeds.clone(),
            signatures: BTreeMap::new(),
            accepted: 0,
            refused: 0,
            panics: 0,
            violations: 0,
            finding_files: Vec::new(),
            last_panic,
        }
    }

    /// Input `i`: the seeds first, then mutants of corpus entries.
    fn input(&mut self, i: usize) -> Vec<u8> {
        let seeds = &self.target.seeds;
        if i < seeds.len() {
            return seeds[i].clone();
        }
        let parent = &self.corpus[self.rng.below(self.corpus.len())];
        match &self.target.input {
            Input::Text => mutate::mutate_text(&mut self.rng, parent, &self.corpus),
            Input::Binary { fields } => {
                let mut m = mutate::mutate_bytes(&mut self.rng, parent, fields);
                if self.rng.below(2) == 0 {
                    mutate::reseal_input(self.target.name, &mut m);
                }
                m
            }
        }
    }

    /// Counts what became of `input` (the target's result, or a panic) and
    /// saves it if it is a finding; its outcome signature.
    fn judge(&mut self, input: &[u8], result: std::thread::Result<targets::Outcome>) -> String {
        let name = self.target.name;
        match result {
            Ok(Ok(Verdict::Accepted)) => {
                self.accepted += 1;
                "accepted".to_string()
            }
            Ok(Ok(Verdict::Refused(s))) => {
                self.refused += 1;
                s
            }
            Ok(Err(violation)) => {
                self.violations += 1;
                let path = save(self.findings, name, "violation", input);
                eprintln!("VIOLATION {violation}: input saved as {}", path.display());
                self.finding_files.push(path.display().to_string());
                "violation".to_string()
            }
            Err(_) => {
                self.panics += 1;
                let path = save(self.findings, name, "panic", input);
                let message = self
                    .last_panic
                    .lock()
                    .map(|m| m.clone())
                    .unwrap_or_default();
                eprintln!("PANIC {message}: input saved as {}", path.display());
                self.finding_files.push(path.display().to_string());
                "panic".to_string()
            }
        }
    }

    /// New outcomes, and a trickle of accepted inputs, join the corpus
    /// (past [`CORPUS_MAX`], in place of a mutant).
    fn learn(&mut self, input: Vec<u8>, signature: String) {
        let keep = !self.signatures.contains_key(&signature)
            || (signature == "accepted" && self.rng.below(64) == 0);
        *self.signatures.entry(signature).or_insert(0) += 1;
        if keep && input.len() < 1 << 16 {
            let seeds = self.target.seeds.len();
            if self.corpus.len() >= CORPUS_MAX {
                let victim = seeds + self.rng.below(CORPUS_MAX - seeds);
                self.corpus[victim] = input;
            } else {
                self.corpus.push(input);
            }
        }
    }

    fn summary(&self, inputs: u64, seconds: f64, slowest_us: u64) -> serde_json::Value {
        serde_json::json!({
            "target": self.target.name,
            "what": self.target.what,
            "inputs": inputs,
            "seconds": seconds,
            "accepted": self.accepted,
            "refused": self.refused,
            "panics": self.panics,
            "violations": self.violations,
            "hangs": 0,
            "slowest_input_ms": slowest_us as f64 / 1000.0,
            "signatures": self.signatures.len(),
            "signature_counts": self.signatures,
            "corpus": self.corpus.len(),
            "seeds": self.target.seeds.len(),
            "findings": self.finding_files,
        })
    }
}

fn main() {
    let args = Args::parse();
    if args.list {
        for name in targets::NAMES {
            println!("{name}");
        }
        return;
    }
    let Some(name) = &args.target else {
        fail("no target (sow-fuzz --list names them)")
    };
    // One thread for the database checks: the campaigns run beside others.
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global();
    let work = args.work.clone().unwrap_or_else(default_work_dir);
    let _ = std::fs::create_dir_all(&work);
    let target = targets::target(name, &args.seeds, &work).unwrap_or_else(|e| fail(e));
    if target.seeds.is_empty() {
        fail(format!(
            "no seeds for {} in {}",
            target.name,
            args.seeds.display()
        ));
    }
    if let Some(dir) = &args.dump_seeds {
        let _ = std::fs::create_dir_all(dir);
        for (i, seed) in target.seeds.iter().enumerate() {
            let _ = std::fs::write(dir.join(format!("seed-{i:04}")), seed);
        }
        let _ = std::fs::remove_dir_all(&work);
        return;
    }

    let t0 = Instant::now();
    let current = Arc::new(Current {
        started_ms: AtomicU64::new(0),
        busy: AtomicBool::new(false),
        input: Mutex::new(Vec::new()),
    });
    spawn_watchdog(current.clone(), args.findings.clone(), target.name, t0);
    let last_panic = keep_panic_messages();
    let mut campaign = Campaign::new(&target, &args.findings, args.seed, last_panic);
    let mut slowest_us = 0;
    let report_every = (args.inputs / 20).max(1);
    for i in 0..args.inputs {
        let input = campaign.input(i as usize);
        if let Ok(mut c) = current.input.lock() {
            c.clone_from(&input);
        }
        let started = t0.elapsed();
        current
            .started_ms
            .store(started.as_millis() as u64, Ordering::SeqCst);
        current.busy.store(true, Ordering::SeqCst);
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (target.run)(&input)));
        current.busy.store(false, Ordering::SeqCst);
        slowest_us = slowest_us.max((t0.elapsed() - started).as_micros() as u64);
        let signature = campaign.judge(&input, result);
        campaign.learn(input, signature);
        if (i + 1) % report_every == 0 {
            eprintln!(
                "{}: {} inputs, {:.0} s, {} signatures, {} panics, {} violations",
                target.name,
                i + 1,
                t0.elapsed().as_secs_f64(),
                campaign.signatures.len(),
                campaign.panics,
                campaign.violations
            );
        }
    }
    println!(
        "{}",
        campaign.summary(args.inputs, t0.elapsed().as_secs_f64(), slowest_us)
    );
    let _ = std::fs::remove_dir_all(&work);
    if campaign.panics + campaign.violations > 0 {
        std::process::exit(1);
    }
}
