//! `sow variants`: solves every small Kpé variant up to a size and writes
//! the table of start values as Markdown and JSON under `--out`.

use std::path::{Path, PathBuf};

use super::{CliError, Out};
use crate::analysis::kpe_db;
use crate::analysis::variants::{solve_row, variants, VariantsTable};
use crate::infra::files::{pretty_json, write_atomic};
use crate::infra::progress::Progress;
use crate::kpe_db::endgame_positions;
use crate::report::variants::markdown;

/// Solves the variants, writes `variants.md` and `.json` into `dir`, and
/// returns the JSON.
pub fn table(
    db: &Path,
    dir: &Path,
    max_positions: u64,
    progress: Progress,
    out: &mut Out,
) -> Result<VariantsTable, CliError> {
    let mut rows = Vec::new();
    let list = variants(max_positions);
    // The variants done out of all, above each variant's own layer bars;
    // a line per finished variant.
    let bar = progress.count(list.len() as u64, "variants", "variants");
    for variant in list {
        bar.set_message(format!("kpe:{variant}"));
        let row = solve_row(variant, db, progress)?;
        bar.suspend(|| -> Result<(), CliError> {
            out.info(format!(
                "kpe:{variant}: start {:+} ({}), {:.1} s",
                row.start.value, row.start.result, row.start.seconds
            ))?;
            out.flush()
        })?;
        bar.inc(1);
        rows.push(row);
    }
    bar.finish_and_clear();
    let command = format!("sow variants --max-positions {max_positions}");
    let larger = dir.join("larger-variants.md").is_file();
    write_atomic(
        &dir.join("variants.md"),
        markdown(&rows, &command, larger).as_bytes(),
    )?;
    let report = VariantsTable {
        command,
        game: "kpe".into(),
        variants: rows,
    };
    write_atomic(&dir.join("variants.json"), pretty_json(&report).as_bytes())?;
    Ok(report)
}

/// `sow variants`: its command line.
#[derive(clap::Args, Debug)]
pub struct VariantsArgs {
    #[command(flatten)]
    pub db: super::paths::DbDir,
    /// Directory of the reports.
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub out: PathBuf,
    /// Largest variant to solve, in unlocked positions (at least the
    /// smallest variant's, kpe:2x1: an empty table is refused).
    #[arg(long, value_name = "N", default_value_t = 1_000_000_000)]
    pub max_positions: u64,
}

impl VariantsArgs {
    pub fn run(&self, out: &mut Out) -> Result<(), CliError> {
        check_max_positions(self.max_positions)?;
        super::paths::check_out_dir("out", &self.out)?;
        run(self.db.given(), &self.out, self.max_positions, out)
    }
}

/// Refuses a `--max-positions` that no variant fits in: the table would
/// be empty (`--max-positions 0` wrote one and exited 0).
fn check_max_positions(max_positions: u64) -> Result<(), CliError> {
    if !variants(max_positions).is_empty() {
        return Ok(());
    }
    let smallest = variants(u64::MAX)[0];
    Err(CliError::usage(
        "max-positions",
        format!(
            "--max-positions {max_positions} is below the smallest variant (kpe:{smallest}, {} unlocked positions): the table would be empty",
            endgame_positions(smallest)
        ),
    ))
}

pub fn run(
    db: Option<&Path>,
    out_dir: &Path,
    max_positions: u64,
    out: &mut Out,
) -> Result<(), CliError> {
    let dir = out_dir.join("kpe");
    let report = table(
        &kpe_db::db_dir(db),
        &dir,
        max_positions,
        Progress::auto(out.quiet || out.json),
        out,
    )?;
    if out.json {
        return out.model_sorted(&report);
    }
    out.line(format!(
        "wrote {} and {}",
        dir.join("variants.md").display(),
        dir.join("variants.json").display()
    ))
}
