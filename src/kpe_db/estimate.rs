//! What a solve will need, before it starts: memory and disk, so that a
//! variant that cannot fit is refused with the estimate instead of failing
//! (or swapping) hours later.
//!
//! The unlocked layers are counted exactly. The locked region is not known
//! before its exploration: a variant solved before takes its measured size
//! ([`MEASURED`]), another the region / unlocked ratio of its nearest
//! solved neighbours ([`region_positions`]). Memory is the largest of a
//! solve's three peaks: the last layers (every smaller layer, a byte a
//! position, beside the retrograde's 4-byte words of the layer being
//! solved); the one pass that values the region's moves into the layers
//! (every layer beside the region's compact keys); and the region's
//! exploration and solution, which hold no layer. The bytes per position
//! below are calibrated on measured peaks (`/usr/bin/time -v`, recorded in
//! `results/BENCHMARKS.md`), and the tests check that the estimates cover
//! them.

use std::path::Path;

use serde::Serialize;

use super::endgame::Endgame;
use super::paths::variant_dir;
use super::size::positions_count;
use crate::games::kpe::KpeVariant;
use crate::infra::limits::{disk_budget, memory_budget};

/// (W, K, locked positions reachable from the start, unlocked positions)
/// of every variant solved so far (`results/kpe/variants.json`, and the
/// solves of 4x6, 4x7, 6x1 and 7x1 in `results/BENCHMARKS.md`).
const MEASURED: [(usize, usize, u64, u64); 24] = [
    (2, 1, 15, 46),
    (2, 2, 39, 295),
    (3, 1, 415, 610),
    (2, 3, 77, 1_036),
    (2, 4, 128, 2_685),
    (2, 5, 160, 5_786),
    (4, 1, 13_583, 8_518),
    (2, 6, 193, 11_011),
    (3, 2, 3_365, 11_088),
    (3, 3, 14_271, 76_714),
    (5, 1, 370_148, 122_464),
    (3, 4, 39_702, 329_329),
    (4, 2, 449_022, 439_791),
    (3, 5, 101_449, 1_061_208),
    (3, 6, 202_167, 2_822_260),
    (4, 3, 2_933_640, 5_998_876),
    (5, 2, 37_963_182, 17_978_389),
    (4, 4, 14_568_749, 42_671_853),
    (4, 5, 51_099_379, 205_649_026),
    (5, 3, 542_126_686, 483_631_776),
    (4, 6, 145_335_442, 764_395_515),
    (4, 7, 367_189_364, 2_359_472_248),
    (6, 1, 9_050_194, 1_794_196),
    (7, 1, 206_385_452, 26_635_774),
];

/// Bytes of memory per locked position while the region is explored or
/// solved, no layer in memory (8.4 measured on the standard game, 8.6 on
/// kpe:7x1).
const REGION_BYTES: u64 = 10;
/// Bytes per locked position beside the layers while the region's moves
/// into them are valued (3.8 measured).
const EXIT_BYTES: u64 = 5;
/// Memory a solve takes whatever its size (program, thread stacks, buffers).
const FIXED_BYTES: u64 = 32 << 20;
/// Bytes of memory per position of the layer being solved: its 4-byte
/// retrograde word, work lists and "can end" bits as bits (4.3 measured,
/// the standard game's layer 48).
const WORKING_BYTES: u64 = 6;
/// Disk bytes per position: compressed layer entries (about 0.3 measured
/// on kpe:4x5, with margin) and region keys plus values (about 2.6).
const DISK_LAYER_BYTES: f64 = 0.5;
const DISK_REGION_BYTES: f64 = 4.0;
/// Out of core (`scratch.rs`): bytes of memory per locked position, the
/// compact keys, exit values and values being in mapped scratch files, and
/// the keys found ahead of their group's turn in sorted runs there
/// (`region/seeds.rs`). What stays in memory is the visited sets of the
/// groups being closed, then the group being solved (its decoded keys,
/// words and rank bitmap) and each group's directory and bits (3.0
/// measured on kpe:7x1 with `--out-of-core always`, rounded up).
const OUT_OF_CORE_REGION_BYTES: u64 = 4;
/// Out of core: bytes per locked position beside the layers while the
/// region's moves into them are valued: each group's directory (about
/// 0.13) and two bit arrays (0.25) stay in memory, its keys and exit
/// values are mapped.
const OUT_OF_CORE_EXIT_BYTES: u64 = 1;
/// Out of core: bytes of scratch disk per locked position beside the
/// database, counted: compact keys (2.1 on kpe:7x1's key file), exit
/// values then values (1 each, freed group by group as the other fills),
/// then while a stone count is written its groups and the key file's
/// layout of it (2.1) and its entries (1): at most 6.2. While exploring:
/// the closed groups' keys and the runs of keys found ahead
/// (`region/seeds.rs`, 2 to 3 bytes each, fewer than the locked positions).
const SCRATCH_DISK_BYTES: f64 = 7.0;

/// The resources a solve needs and those this machine offers.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Estimate {
    /// Unlocked positions (exact).
    pub unlocked: u64,
    /// Locked positions reachable from the start (estimated).
    pub region: u64,
    /// Peak memory of the solve, bytes (estimated).
    pub memory: u64,
    /// Database size on disk, bytes (estimated).
    pub disk: u64,
    /// Peak memory with the region out of core (`scratch.rs`), bytes.
    pub memory_out_of_core: u64,
    /// Scratch disk the region takes out of core, beside the database.
    pub scratch_disk: u64,
    /// Memory available (MemAvailable, or `$SOW_MEMORY_MIB`), bytes.
    pub memory_available: Option<u64>,
    /// Free space where the database goes (or `$SOW_DISK_MIB`), plus
    /// what the variant's files there already take, bytes.
    pub disk_available: Option<u64>,
    /// Whether an in-memory solve keeps its layers through the region's
    /// exploration ([`Self::keeps_layers`]); `memory` then counts them
    /// beside it.
    pub layers_kept_exploring: bool,
}

/// How much the region / unlocked ratio grows per pit a row beyond the
/// widest board solved, at equal K: from ×1.5 to ×3.4 between the solved
/// widths ([`MEASURED`]), rounded up, since an estimate too low lets a
/// solve start that cannot finish.
const RATIO_GROWTH_PER_PIT: f64 = 3.0;

/// How much the ratio's fall from one K to a larger one, measured one pit
/// a row narrower, may overstate the fall at this W: predicted this way
/// from the K just below, each measured ratio of W ≥ 4 came out 0.90 to
/// 1.28 of itself, so the prediction is raised by 15% (tested below).
const DECLINE_MARGIN: f64 = 1.15;

/// The ratio measured for (`w`, `k`), if that variant was solved.
fn measured_ratio(w: usize, k: usize) -> Option<f64> {
    let m = MEASURED.iter().find(|m| (m.0, m.1) == (w, k))?;
    Some(m.2 as f64 / m.3 as f64)
}

/// Locked positions reachable from the start of `variant`: measured if it
/// was solved before, else estimated from the ratio measured at the
/// largest K of its W, lowered as the ratio fell between those two K one
/// pit a row narrower (when both are measured there; the ratio falls as K
/// grows) with [`DECLINE_MARGIN`]; on wider boards than any solved, from
/// the widest one's ratio at this K (or at its largest K), grown by
/// [`RATIO_GROWTH_PER_PIT`] for each pit more.
fn region_positions(variant: KpeVariant, unlocked: u64) -> u64 {
    let (w, k) = (variant.w(), variant.k());
    if let Some(m) = MEASURED.iter().find(|m| (m.0, m.1) == (w, k)) {
        return m.2;
    }
    let ratio = |m: &(usize, usize, u64, u64)| m.2 as f64 / m.3 as f64;
    let largest_k = |w: usize| MEASURED.iter().filter(|m| m.0 == w).max_by_key(|m| m.1);
    let estimated = match largest_k(w) {
        Some(m) => {
            let narrower =
                (w > 1).then(|| measured_ratio(w - 1, k).zip(measured_ratio(w - 1, m.1)));
            match narrower.flatten() {
                Some((at_k, at_largest)) if m.1 < k => {
                    ratio(m) * (at_k / at_largest * DECLINE_MARGIN).min(1.0)
                }
                _ => ratio(m),
            }
        }
        None => {
            let widest = MEASURED.iter().map(|m| m.0).max().expect("measured");
            let base = MEASURED
                .iter()
                .find(|m| (m.0, m.1) == (widest, k))
                .or_else(|| largest_k(widest))
                .expect("measured");
            let extra_pits = w.saturating_sub(widest) as i32;
            ratio(base) * RATIO_GROWTH_PER_PIT.powi(extra_pits)
        }
    };
    (unlocked as f64 * estimated).ceil() as u64
}

/// Whether a solve keeps the locked region in memory or puts its large
/// arrays in scratch files mapped from the database directory
/// (`scratch.rs`): slower where the page cache cannot hold them, but
/// bounded by disk rather than memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum OutOfCore {
    /// Out of core only when the estimate says memory does not suffice.
    #[default]
    Auto,
    Always,
    Never,
}

/// What a solve builds: the whole database, or its endgame layers alone
/// (`sow solve --endgame-only`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Whole,
    Endgame,
}

impl Estimate {
    /// What solving `variant` into `db` needs.
    pub fn new(variant: KpeVariant, db: &Path) -> Self {
        Self::of(variant, db, Scope::Whole)
    }

    /// What building `scope` of `variant`'s database into `db` needs.
    pub fn of(variant: KpeVariant, db: &Path, scope: Scope) -> Self {
        let eg = Endgame::new(variant);
        let mut done = 0u64;
        let mut layers_peak = 0u64;
        // Saturating throughout: the layer sizes of variants far too large
        // to solve saturate at `u64::MAX`, and their refusal still quotes
        // this estimate.
        let bytes = |per: u64, n: u64| per.saturating_mul(n);
        for n in eg.layers() {
            let size = eg.index.layer_size(n);
            layers_peak = layers_peak.max(done.saturating_add(bytes(WORKING_BYTES, size)));
            done = done.saturating_add(size);
        }
        let unlocked = done;
        let region = match scope {
            Scope::Whole => region_positions(variant, unlocked),
            Scope::Endgame => 0,
        };
        let memory_available = memory_budget();
        // The layers kept beside the exploration, bounded as the region is
        // with none ([`REGION_BYTES`]), when that fits the budget.
        let beside_exploration =
            FIXED_BYTES.saturating_add(unlocked.saturating_add(bytes(REGION_BYTES, region)));
        let layers_kept_exploring = scope == Scope::Whole
            && memory_available.is_some_and(|available| beside_exploration <= available);
        let memory = FIXED_BYTES
            .saturating_add(
                layers_peak
                    .max(unlocked.saturating_add(bytes(EXIT_BYTES, region)))
                    .max(bytes(REGION_BYTES, region)),
            )
            .max(match layers_kept_exploring {
                true => beside_exploration,
                false => 0,
            });
        let memory_out_of_core = FIXED_BYTES.saturating_add(
            layers_peak
                .max(unlocked.saturating_add(bytes(OUT_OF_CORE_EXIT_BYTES, region)))
                .max(bytes(OUT_OF_CORE_REGION_BYTES, region)),
        );
        let disk = (unlocked as f64 * DISK_LAYER_BYTES + region as f64 * DISK_REGION_BYTES) as u64;
        Estimate {
            unlocked,
            region,
            memory,
            disk,
            memory_out_of_core,
            scratch_disk: (region as f64 * SCRATCH_DISK_BYTES) as u64,
            memory_available,
            // What the variant's files already take is counted in the
            // estimate, so it is offered too: a resumed solve is not
            // refused for the disk its own checkpoints hold.
            disk_available: disk_budget(db).map(|free| free + bytes_in(&variant_dir(db, variant))),
            layers_kept_exploring,
        }
    }

    /// Whether a solve whose region is in memory (`out_of_core` false)
    /// keeps its solved layers through the region's exploration, which
    /// reads none, instead of dropping them and reading them back from
    /// their files for the region's moves into them after it: when the
    /// budget holds them beside the region's bound. On the standard game
    /// the read took 1.6 s, and the pages taken again after the
    /// exploration cost the kernel more (`results/BENCHMARKS.md`); the
    /// solve's peak stays that of its largest layer.
    pub fn keeps_layers(&self, out_of_core: bool) -> bool {
        !out_of_core && self.layers_kept_exploring
    }

    /// The estimate in a line: memory and disk, needed and offered, and
    /// the positions they are for.
    pub fn summary(&self) -> String {
        let offered = |b: Option<u64>, what: &str| {
            b.map_or(String::new(), |b| format!(" ({} {what})", gib(b)))
        };
        format!(
            "memory about {}{}, disk about {}{}, for {}",
            gib(self.memory),
            offered(self.memory_available, "available"),
            gib(self.disk),
            offered(self.disk_available, "available"),
            self.positions(" and ")
        )
    }

    /// The positions the estimate is for: the unlocked ones, and the
    /// locked ones when the region is part of it (joined by `and`).
    fn positions(&self, and: &str) -> String {
        let unlocked = positions_count(self.unlocked);
        match self.region {
            0 => format!("{unlocked} unlocked positions"),
            region => format!(
                "{unlocked} unlocked positions{and}about {} locked ones",
                positions_count(region)
            ),
        }
    }

    /// Why the solve cannot fit, if it cannot, with its region in
    /// memory (`out_of_core` false) or out of core.
    pub fn refusal(&self, out_of_core: bool) -> Option<String> {
        let (memory, disk, how) = match out_of_core {
            false => (self.memory, self.disk, ""),
            true => (
                self.memory_out_of_core,
                self.disk.saturating_add(self.scratch_disk),
                ", its region out of core",
            ),
        };
        let short = |need: u64, have: Option<u64>, what: &str, var: &str| {
            have.filter(|&h| need > h).map(|h| {
                format!(
                    "needs about {} of {what}{how} ({}: an estimate), {} available (${var} sets the budget in MiB)",
                    gib(need),
                    self.positions(", "),
                    gib(h)
                )
            })
        };
        short(memory, self.memory_available, "memory", "SOW_MEMORY_MIB")
            .or_else(|| short(disk, self.disk_available, "disk", "SOW_DISK_MIB"))
    }

    /// Whether the region goes out of core under `mode`, or why the solve
    /// cannot fit either way: `Auto` keeps it in memory when that fits.
    pub fn out_of_core(&self, mode: OutOfCore) -> Result<bool, String> {
        let fits = |out_of_core| match self.refusal(out_of_core) {
            Some(why) => Err(why),
            None => Ok(out_of_core),
        };
        match mode {
            OutOfCore::Never => fits(false),
            OutOfCore::Always => fits(true),
            OutOfCore::Auto => fits(false).or_else(|in_memory| {
                // Either refusal says what is short; the one out of core
                // is the last resort, so it is the one to give.
                fits(true).map_err(|out| match self.region {
                    0 => in_memory,
                    _ => out,
                })
            }),
        }
    }
}

/// Bytes as the estimate's messages give them: GiB, one decimal.
fn gib(bytes: u64) -> String {
    match bytes {
        u64::MAX => "16 EiB or more".to_string(),
        b => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
    }
}

/// Bytes of the files under `dir` (none if it is absent).
fn bytes_in(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => bytes_in(&e.path()),
            _ => e.metadata().map_or(0, |m| m.len()),
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kpe_db::size::endgame_positions;

    #[test]
    fn the_standard_estimate_covers_its_measured_solve() {
        let e = Estimate::new(KpeVariant::STANDARD, Path::new("/nonexistent"));
        assert_eq!(e.unlocked, 764_395_515);
        assert_eq!(e.region, 145_335_442);
        // Measured peak: 1,347 MiB (results/BENCHMARKS.md).
        assert!(
            (1_347u64 << 20..2_694u64 << 20).contains(&e.memory),
            "{e:?}"
        );
    }

    #[test]
    fn estimates_cover_their_measured_peaks() {
        // (variant, measured peak in MiB with the compact region)
        let measured = [
            (7, 1, 1_152u64),
            (6, 1, 99),
            (4, 7, 3_988),
            (4, 6, 1_347),
            (4, 5, 487),
            (4, 4, 123),
            (4, 3, 52),
        ];
        for (w, k, peak_mib) in measured {
            let e = Estimate::new(KpeVariant::new(w, k).unwrap(), Path::new("/"));
            assert!(e.memory >= peak_mib << 20, "kpe:{w}x{k}: {e:?}");
            assert!(e.memory <= 2 * (peak_mib << 20), "kpe:{w}x{k}: {e:?}");
        }
    }

    #[test]
    fn wider_boards_than_any_solved_grow_the_ratio_of_their_k() {
        let unlocked = |w, k| endgame_positions(KpeVariant::new(w, k).unwrap());
        let ratio_7x1 = 206_385_452.0 / 26_635_774.0;
        // kpe:8x1 from 7x1's ratio, tripled: beyond this machine.
        let e = Estimate::new(KpeVariant::new(8, 1).unwrap(), Path::new("/"));
        let expected = unlocked(8, 1) as f64 * ratio_7x1 * 3.0;
        assert!((e.region as f64 - expected).abs() <= 1.0, "{e:?}");
        assert!(e.memory > 24 << 30, "{e:?}");
        // No measured 7x2: 8x2 takes 7x1's ratio (7's largest K), tripled.
        let e = Estimate::new(KpeVariant::new(8, 2).unwrap(), Path::new("/"));
        let expected = unlocked(8, 2) as f64 * ratio_7x1 * 3.0;
        assert!(
            (e.region as f64 - expected).abs() / expected < 1e-9,
            "{e:?}"
        );
    }

    #[test]
    fn a_larger_k_lowers_the_ratio_as_it_fell_one_pit_narrower() {
        let unlocked = |w, k| endgame_positions(KpeVariant::new(w, k).unwrap());
        let ratio = |w, k| measured_ratio(w, k).unwrap();
        // kpe:5x4: 5x3's ratio, times 4x4's over 4x3's (0.698), plus 15%.
        let e = Estimate::new(KpeVariant::new(5, 4).unwrap(), Path::new("/"));
        let fall = ratio(4, 4) / ratio(4, 3);
        assert!((0.69..0.70).contains(&fall), "{fall}");
        let expected = unlocked(5, 4) as f64 * ratio(5, 3) * fall * DECLINE_MARGIN;
        assert!((e.region as f64 - expected).abs() <= 1.0, "{e:?}");
        // kpe:6x2: 6x1's ratio, lowered as 5x1's fell to 5x2's.
        let e = Estimate::new(KpeVariant::new(6, 2).unwrap(), Path::new("/"));
        let expected =
            unlocked(6, 2) as f64 * ratio(6, 1) * ratio(5, 2) / ratio(5, 1) * DECLINE_MARGIN;
        assert!((e.region as f64 - expected).abs() <= 1.0, "{e:?}");
        // No narrower fall measured (kpe:7x2: no 6x2): 7x1's ratio as is.
        let e = Estimate::new(KpeVariant::new(7, 2).unwrap(), Path::new("/"));
        let expected = unlocked(7, 2) as f64 * ratio(7, 1);
        assert!(
            (e.region as f64 - expected).abs() / expected < 1e-9,
            "{e:?}"
        );
        // With the margin, the model covers what was measured: 5x3 from
        // 5x2 (0.90 of it without), 4x4 from 4x3 (0.93), 4x6 from 4x5.
        for (w, k) in [(5, 3), (4, 4), (4, 6)] {
            let predicted = ratio(w, k - 1) * ratio(w - 1, k) / ratio(w - 1, k - 1);
            assert!(predicted * DECLINE_MARGIN >= ratio(w, k), "{w}x{k}");
        }
    }

    /// kpe:5x4's layers fit this machine's 23 GiB; its whole solve does not.
    #[test]
    fn the_endgame_alone_needs_only_the_layers() {
        let v = KpeVariant::new(5, 4).unwrap();
        let whole = Estimate::new(v, Path::new("/"));
        let endgame = Estimate::of(v, Path::new("/"), Scope::Endgame);
        assert_eq!(endgame.unlocked, 5_701_165_250);
        assert_eq!(endgame.region, 0);
        // The largest layer's words beside every smaller layer.
        let largest = 2_054_455_634u64;
        let below = 5_701_165_250 - largest;
        assert_eq!(
            endgame.memory,
            FIXED_BYTES + below + WORKING_BYTES * largest
        );
        assert!(endgame.memory < 20 << 30 && whole.memory > 24 << 30);
        assert!(endgame.disk < whole.disk);
    }

    #[test]
    fn the_region_goes_out_of_core_when_only_that_fits() {
        let mut e = Estimate::new(KpeVariant::new(4, 4).unwrap(), Path::new("/"));
        assert!(e.memory_out_of_core < e.memory, "{e:?}");
        assert!(e.scratch_disk > 0, "{e:?}");
        let (in_memory, out_of_core) = (e.memory, e.memory_out_of_core);
        let with_memory = |e: &mut Estimate, bytes: u64| {
            e.memory_available = Some(bytes);
            e.disk_available = Some(u64::MAX);
        };
        with_memory(&mut e, in_memory);
        assert_eq!(e.out_of_core(OutOfCore::Auto), Ok(false));
        assert_eq!(e.out_of_core(OutOfCore::Always), Ok(true));
        with_memory(&mut e, in_memory - 1);
        assert_eq!(e.out_of_core(OutOfCore::Auto), Ok(true));
        let never = e.out_of_core(OutOfCore::Never).unwrap_err();
        assert!(!never.contains("out of core"), "{never}");
        with_memory(&mut e, out_of_core - 1);
        let auto = e.out_of_core(OutOfCore::Auto).unwrap_err();
        assert!(auto.contains("of memory, its region out of core"), "{auto}");
        // Out of core needs the scratch beside the database.
        e.memory_available = Some(u64::MAX);
        e.disk_available = Some(e.disk + e.scratch_disk - 1);
        assert_eq!(e.out_of_core(OutOfCore::Auto), Ok(false));
        let always = e.out_of_core(OutOfCore::Always).unwrap_err();
        assert!(
            always.contains("of disk, its region out of core"),
            "{always}"
        );
    }

    #[test]
    fn the_files_a_solve_left_count_as_disk_it_has() {
        let db = std::env::temp_dir().join(format!("sow-estimate-{}", std::process::id()));
        let v = KpeVariant::new(3, 2).unwrap();
        let dir = variant_dir(&db, v);
        assert_eq!(bytes_in(&dir), 0, "absent");
        std::fs::create_dir_all(dir.join("region-partial")).unwrap();
        std::fs::write(dir.join("layer-000.sowdb"), [0u8; 1000]).unwrap();
        std::fs::write(dir.join("region-partial/run-00000.sowdb"), [0u8; 234]).unwrap();
        assert_eq!(bytes_in(&dir), 1234);
        std::fs::remove_dir_all(&db).unwrap();
    }

    #[test]
    fn variants_too_large_to_rank_saturate_instead_of_overflowing() {
        // kpe:8x8's layer sizes saturate at u64::MAX (the fuzz profile's
        // overflow checks panicked here; release builds wrapped to 0 GiB).
        let e = Estimate::new(KpeVariant::new(8, 8).unwrap(), Path::new("/"));
        assert_eq!(e.unlocked, u64::MAX);
        assert_eq!(e.memory, u64::MAX);
        assert!(e.memory_out_of_core > 1 << 60, "{e:?}");
    }

    #[test]
    fn larger_variants_need_more() {
        let small = Estimate::new(KpeVariant::new(4, 3).unwrap(), Path::new("/"));
        let large = Estimate::new(KpeVariant::new(4, 7).unwrap(), Path::new("/"));
        assert!(large.memory > 10 * small.memory);
        assert!(large.disk > 10 * small.disk);
    }
}
