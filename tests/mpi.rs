//! `sow solve` as the ranks of an MPI run (`--features mpi`, Debian's Open
//! MPI, docs/mpi.md): three ranks (more than this machine's cores, so
//! oversubscribed) write the database files of one process, byte for
//! byte, for a Kpé variant and the Kiothi endgame tables; a run whose rank
//! is killed mid-layer resumes to the same files; a database directory the
//! ranks do not share is refused before anything is written.
//!
//! Without `mpirun` on the PATH, or in a build without the `mpi` feature,
//! each test prints one line saying it was skipped and why, and passes;
//! with `SOW_MPI_TEST=required` (as `.ci/run` sets) it fails instead.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const SOW: &str = env!("CARGO_BIN_EXE_sow");

/// `mpirun`, if the tests can run: else None, once the reason is printed
/// (or the test failed, when they are required).
fn mpirun() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("mpirun"))
            .find(|p| p.is_file())
    });
    let why = match (&found, cfg!(feature = "mpi")) {
        (None, _) => {
            "mpirun is not on the PATH (apt-get install -y openmpi-bin libopenmpi-dev libclang-dev)"
        }
        (_, false) => "this build has no MPI (cargo test --features mpi)",
        (Some(_), true) => return found,
    };
    if std::env::var("SOW_MPI_TEST").as_deref() == Ok("required") {
        panic!("SOW_MPI_TEST=required, but {why}");
    }
    eprintln!("skipped: the MPI test needs Open MPI: {why}");
    None
}

/// `mpirun` with `args` (its own, then the program's), as root and with
/// more ranks than cores allowed, one worker thread a rank.
fn mpi_command(mpirun: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(mpirun);
    c.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
        .env("RAYON_NUM_THREADS", "1")
        .args(args);
    c
}

fn solve_over(mpirun: &Path, ranks: usize, game: &[&str], db: &Path) -> Output {
    let np = ranks.to_string();
    let mut args = vec!["-np", &np, SOW, "solve"];
    args.extend_from_slice(game);
    let db = db.to_str().unwrap();
    args.extend(["--db", db]);
    mpi_command(mpirun, &args).output().unwrap()
}

fn solve_alone(game: &[&str], db: &Path) -> Output {
    Command::new(SOW)
        .arg("solve")
        .args(game)
        .arg("--db")
        .arg(db)
        .output()
        .unwrap()
}

fn text(o: &[u8]) -> String {
    String::from_utf8_lossy(o).into_owned()
}

/// The database files under `dir` (not the lock), by name, with their bytes.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut found: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sowdb"))
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p.file_name().unwrap().to_string_lossy().into_owned(), bytes)
        })
        .collect();
    found.sort();
    found
}

fn assert_same_files(alone: &Path, ranks: &Path) {
    let (a, b) = (files(alone), files(ranks));
    assert!(!a.is_empty(), "no files in {}", alone.display());
    let names = |f: &[(String, Vec<u8>)]| f.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b));
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{name} differs from the single process's");
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sow-mpi-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// kpe:4x4 over three ranks (its smallest layers have fewer positions than
/// ranks) gives the single process's files and start value.
#[test]
fn three_ranks_write_the_single_process_kpe_database() {
    let Some(mpirun) = mpirun() else { return };
    let dir = scratch("kpe");
    let alone = solve_alone(&["kpe:4x4"], &dir.join("alone"));
    assert!(alone.status.success(), "{}", text(&alone.stderr));
    let ranks = solve_over(&mpirun, 3, &["kpe:4x4"], &dir.join("ranks"));
    let (stdout, stderr) = (text(&ranks.stdout), text(&ranks.stderr));
    assert!(ranks.status.success(), "{stdout}\n{stderr}");
    assert_same_files(&dir.join("alone/kpe-4x4"), &dir.join("ranks/kpe-4x4"));
    // Rank 0 alone prints: one start value, and the ranks' line.
    let start = |o: &str| {
        o.lines()
            .find(|l| l.starts_with("start value"))
            .map(str::to_string)
    };
    assert_eq!(start(&stdout), start(&text(&alone.stdout)));
    assert_eq!(stdout.matches("start value").count(), 1, "{stdout}");
    assert!(stdout.contains("over 3 ranks:"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The Kiothi endgame tables of 0 to 8 warriors over three ranks are the
/// single process's files.
#[test]
fn three_ranks_write_the_single_process_kiothi_tables() {
    let Some(mpirun) = mpirun() else { return };
    let dir = scratch("kiothi");
    let game = ["kiothi", "--stones", "8"];
    let alone = solve_alone(&game, &dir.join("alone"));
    assert!(alone.status.success(), "{}", text(&alone.stderr));
    let ranks = solve_over(&mpirun, 3, &game, &dir.join("ranks"));
    let stdout = text(&ranks.stdout);
    assert!(ranks.status.success(), "{stdout}\n{}", text(&ranks.stderr));
    assert_same_files(
        &dir.join("alone/kiothi-endgame"),
        &dir.join("ranks/kiothi-endgame"),
    );
    assert!(stdout.contains("over 3 ranks:"), "{stdout}");
    assert_eq!(stdout.matches(" 8 stones:").count(), 1, "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The process ids of rank `rank` of the run on database `db`, found by
/// their environment and command line (the other tests run their own
/// `mpirun` at the same time, with ranks of the same numbers).
fn rank_pids(rank: usize, db: &Path) -> Vec<u32> {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    procs
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok();
            let env = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            let args = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            exe.is_some_and(|e| e == Path::new(SOW))
                && args
                    .split(|&b| b == 0)
                    .any(|a| a == db.as_os_str().as_encoded_bytes())
                && env
                    .split(|&b| b == 0)
                    .any(|v| v == format!("OMPI_COMM_WORLD_RANK={rank}").as_bytes())
        })
        .collect()
}

/// A rank killed mid-layer stops the run; run again, it resumes from the
/// finished layers and ends with the single process's files.
#[test]
fn a_run_with_a_rank_killed_mid_layer_resumes_to_the_same_files() {
    let Some(mpirun) = mpirun() else { return };
    let dir = scratch("killed");
    let game = ["kpe:4x4", "--endgame-only"];
    let alone = solve_alone(&game, &dir.join("alone"));
    assert!(alone.status.success(), "{}", text(&alone.stderr));
    let db = dir.join("ranks");
    let layers = db.join("kpe-4x4");
    let mut run = mpi_command(
        &mpirun,
        &[
            "-np",
            "3",
            SOW,
            "solve",
            game[0],
            game[1],
            "--db",
            db.to_str().unwrap(),
        ],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    // Rank 1 dies once layer 20 (of 0-32) is written: in the middle of a
    // later layer.
    let deadline = Instant::now() + Duration::from_secs(120);
    while !layers.join("layer-020.sowdb").exists() {
        assert!(Instant::now() < deadline, "layer 20 never written");
        assert!(run.try_wait().unwrap().is_none(), "the run ended early");
        std::thread::sleep(Duration::from_millis(2));
    }
    let victims = rank_pids(1, &db);
    assert_eq!(victims.len(), 1, "rank 1's process");
    Command::new("kill")
        .args(["-KILL", &victims[0].to_string()])
        .status()
        .unwrap();
    let status = run.wait().unwrap();
    assert!(!status.success(), "a run with a killed rank fails");
    assert!(
        !layers.join("layer-032.sowdb").exists(),
        "killed before the end"
    );
    let again = solve_over(&mpirun, 3, &game, &db);
    let stdout = text(&again.stdout);
    assert!(again.status.success(), "{stdout}\n{}", text(&again.stderr));
    // Some layers were reused, some computed by the second run.
    let line = stdout
        .lines()
        .find(|l| l.starts_with("layers computed"))
        .unwrap();
    assert!(
        !line.contains("computed 0,") && !line.contains("reused 0"),
        "{line}"
    );
    assert_same_files(&dir.join("alone/kpe-4x4"), &layers);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Ranks given different directories (as nodes that do not share one)
/// are refused with exit code 2, and nothing is written in either.
#[test]
fn a_directory_the_ranks_do_not_share_is_refused() {
    let Some(mpirun) = mpirun() else { return };
    let dir = scratch("unshared");
    let (a, b) = (dir.join("a"), dir.join("b"));
    std::fs::create_dir_all(&dir).unwrap();
    let (a_s, b_s) = (a.to_str().unwrap(), b.to_str().unwrap());
    let out = mpi_command(
        &mpirun,
        &[
            "-np", "1", SOW, "solve", "kpe:3x3", "--db", a_s, ":", "-np", "2", SOW, "solve",
            "kpe:3x3", "--db", b_s,
        ],
    )
    .output()
    .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is not shared by the ranks"), "{stderr}");
    assert!(!a.exists() && !b.exists(), "nothing written");
    std::fs::remove_dir_all(&dir).unwrap();
}
