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

use sow::rng::Rng;
use targets::{Input, Verdict};

/// Longest time one input may take.
const HANG: Duration = Duration::from_secs(1);
/// Largest corpus kept per target.
const CORPUS_MAX: usize = 4096;

struct Args {
    target: String,
    inputs: u64,
    seed: u64,
    seeds: PathBuf,
    findings: PathBuf,
    work: PathBuf,
    /// Write the target's seeds as files here and stop (AFL's input dir).
    dump_seeds: Option<PathBuf>,
}

fn parse_args() -> Result<Option<Args>, String> {
    let mut args = std::env::args().skip(1);
    let mut a = Args {
        target: String::new(),
        inputs: 10_000,
        seed: 1,
        seeds: PathBuf::from("fuzz/seeds"),
        findings: PathBuf::from("fuzz/findings"),
        // Memory-backed when there is one: the db-dir target writes a file
        // per input.
        work: Some(Path::new("/dev/shm"))
            .filter(|p| p.is_dir())
            .map_or_else(std::env::temp_dir, Path::to_path_buf)
            .join(format!("sow-fuzz-{}", std::process::id())),
        dump_seeds: None,
    };
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--list" => {
                for name in targets::NAMES {
                    println!("{name}");
                }
                return Ok(None);
            }
            "--inputs" => {
                a.inputs = value("--inputs")?
                    .replace('_', "")
                    .parse()
                    .map_err(|e| format!("--inputs: {e}"))?
            }
            "--seed" => {
                a.seed = value("--seed")?
                    .parse()
                    .map_err(|e| format!("--seed: {e}"))?
            }
            "--seeds" => a.seeds = value("--seeds")?.into(),
            "--findings" => a.findings = value("--findings")?.into(),
            "--work" => a.work = value("--work")?.into(),
            "--dump-seeds" => a.dump_seeds = Some(value("--dump-seeds")?.into()),
            t if !t.starts_with('-') && a.target.is_empty() => a.target = t.to_string(),
            other => return Err(format!("unexpected argument `{other}`")),
        }
    }
    if a.target.is_empty() {
        return Err("usage: sow-fuzz TARGET --inputs N (sow-fuzz --list for the targets)".into());
    }
    Ok(Some(a))
}

/// The input being run, for the watchdog to save.
struct Current {
    started_ms: AtomicU64,
    busy: AtomicBool,
    input: Mutex<Vec<u8>>,
}

fn save(findings: &Path, target: &str, kind: &str, input: &[u8]) -> PathBuf {
    let _ = std::fs::create_dir_all(findings);
    let hash = sow::solve::db::checksum(input);
    let path = findings.join(format!("{target}-{kind}-{hash:016x}.bin"));
    let _ = std::fs::write(&path, input);
    path
}

fn main() {
    let args = match parse_args() {
        Ok(Some(a)) => a,
        Ok(None) => return,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    // One thread for the database checks: the campaigns run beside others.
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global();
    let _ = std::fs::create_dir_all(&args.work);
    let target = match targets::target(&args.target, &args.seeds, &args.work) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    if target.seeds.is_empty() {
        eprintln!(
            "error: no seeds for {} in {}",
            target.name,
            args.seeds.display()
        );
        std::process::exit(2);
    }
    if let Some(dir) = &args.dump_seeds {
        let _ = std::fs::create_dir_all(dir);
        for (i, seed) in target.seeds.iter().enumerate() {
            let _ = std::fs::write(dir.join(format!("seed-{i:04}")), seed);
        }
        let _ = std::fs::remove_dir_all(&args.work);
        return;
    }

    let t0 = Instant::now();
    let current = Arc::new(Current {
        started_ms: AtomicU64::new(0),
        busy: AtomicBool::new(false),
        input: Mutex::new(Vec::new()),
    });
    let slowest_us = Arc::new(AtomicU64::new(0));
    {
        let current = current.clone();
        let findings = args.findings.clone();
        let name = target.name;
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(100));
            if !current.busy.load(Ordering::SeqCst) {
                continue;
            }
            let now = t0.elapsed().as_millis() as u64;
            if now.saturating_sub(current.started_ms.load(Ordering::SeqCst))
                > HANG.as_millis() as u64
            {
                let input = current.input.lock().map(|i| i.clone()).unwrap_or_default();
                let path = save(&findings, name, "hang", &input);
                eprintln!("HANG over {HANG:?}: input saved as {}", path.display());
                std::process::exit(3);
            }
        });
    }
    // Panics are findings: the hook keeps their message for the summary.
    let last_panic = Arc::new(Mutex::new(String::new()));
    {
        let last = last_panic.clone();
        std::panic::set_hook(Box::new(move |info| {
            if let Ok(mut l) = last.lock() {
                *l = info.to_string();
            }
        }));
    }

    let mut rng = Rng::new(args.seed);
    let mut corpus: Vec<Vec<u8>> = target.seeds.clone();
    let mut signatures: BTreeMap<String, u64> = BTreeMap::new();
    let (mut accepted, mut refused, mut panics, mut violations) = (0u64, 0u64, 0u64, 0u64);
    let mut finding_files: Vec<String> = Vec::new();
    let report_every = (args.inputs / 20).max(1);
    for i in 0..args.inputs {
        let input = if (i as usize) < target.seeds.len() {
            target.seeds[i as usize].clone()
        } else {
            let parent = &corpus[rng.below(corpus.len())];
            match &target.input {
                Input::Text => mutate::mutate_text(&mut rng, parent, &corpus),
                Input::Binary { fields } => {
                    let mut m = mutate::mutate_bytes(&mut rng, parent, fields);
                    if rng.below(2) == 0 {
                        mutate::reseal_input(target.name, &mut m);
                    }
                    m
                }
            }
        };
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
        let us = (t0.elapsed() - started).as_micros() as u64;
        slowest_us.fetch_max(us, Ordering::Relaxed);
        let signature = match result {
            Ok(Ok(Verdict::Accepted)) => {
                accepted += 1;
                "accepted".to_string()
            }
            Ok(Ok(Verdict::Refused(s))) => {
                refused += 1;
                s
            }
            Ok(Err(violation)) => {
                violations += 1;
                let path = save(&args.findings, target.name, "violation", &input);
                eprintln!("VIOLATION {violation}: input saved as {}", path.display());
                finding_files.push(path.display().to_string());
                "violation".to_string()
            }
            Err(_) => {
                panics += 1;
                let path = save(&args.findings, target.name, "panic", &input);
                let message = last_panic.lock().map(|m| m.clone()).unwrap_or_default();
                eprintln!("PANIC {message}: input saved as {}", path.display());
                finding_files.push(path.display().to_string());
                "panic".to_string()
            }
        };
        // New outcomes, and a trickle of accepted inputs, join the corpus.
        let keep =
            !signatures.contains_key(&signature) || (signature == "accepted" && rng.below(64) == 0);
        *signatures.entry(signature).or_insert(0) += 1;
        if keep && input.len() < 1 << 16 {
            if corpus.len() >= CORPUS_MAX {
                let victim = target.seeds.len() + rng.below(CORPUS_MAX - target.seeds.len());
                corpus[victim] = input;
            } else {
                corpus.push(input);
            }
        }
        if (i + 1) % report_every == 0 {
            eprintln!(
                "{}: {} inputs, {:.0} s, {} signatures, {} panics, {} violations",
                target.name,
                i + 1,
                t0.elapsed().as_secs_f64(),
                signatures.len(),
                panics,
                violations
            );
        }
    }
    let summary = serde_json::json!({
        "target": target.name,
        "what": target.what,
        "inputs": args.inputs,
        "seconds": t0.elapsed().as_secs_f64(),
        "accepted": accepted,
        "refused": refused,
        "panics": panics,
        "violations": violations,
        "hangs": 0,
        "slowest_input_ms": slowest_us.load(Ordering::Relaxed) as f64 / 1000.0,
        "signatures": signatures.len(),
        "signature_counts": signatures,
        "corpus": corpus.len(),
        "seeds": target.seeds.len(),
        "findings": finding_files,
    });
    println!("{summary}");
    let _ = std::fs::remove_dir_all(&args.work);
    if panics + violations > 0 {
        std::process::exit(1);
    }
}
