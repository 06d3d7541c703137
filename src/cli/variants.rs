//! `sow variants`: solves every small Kpé variant up to a size and writes
//! the table of start values as Markdown and JSON under `--out`.

use super::{paths, CliError, Out};
use crate::analysis::kpe_db::db_dir;
use crate::analysis::variants::variants;
use crate::infra::progress::Progress;
use crate::kpe_db::endgame_positions;
use crate::report::variants::write_table;

/// `sow variants`: its command line.
#[derive(clap::Args, Debug)]
pub struct VariantsArgs {
    #[command(flatten)]
    pub db: paths::DbDir,
    #[command(flatten)]
    pub out: paths::ReportsDir,
    /// Largest variant to solve, in unlocked positions (at least the
    /// smallest variant's, kpe:2x1: an empty table is refused).
    #[arg(long, value_name = "N", default_value_t = 1_000_000_000)]
    pub max_positions: u64,
}

impl VariantsArgs {
    pub fn run(&self, out: &mut Out) -> Result<(), CliError> {
        // No variant fits: the table would be empty (`--max-positions 0`
        // wrote one and exited 0).
        if variants(self.max_positions).is_empty() {
            let smallest = variants(u64::MAX)[0];
            return Err(CliError::usage(
                "max-positions",
                format!(
                    "--max-positions {} is below the smallest variant (kpe:{smallest}, {} unlocked positions): the table would be empty",
                    self.max_positions,
                    endgame_positions(smallest)
                ),
            ));
        }
        paths::check_out_dir("out", &self.out.dir)?;
        let dir = self.out.dir.join("kpe");
        let progress = Progress::auto(out.quiet || out.json);
        let db = db_dir(self.db.given());
        let table = write_table(&db, &dir, self.max_positions, progress, &mut |line| {
            out.info(line)?;
            out.flush()
        })?;
        if out.json {
            return out.model_sorted(&table);
        }
        out.line(format!(
            "wrote {} and {}",
            dir.join("variants.md").display(),
            dir.join("variants.json").display()
        ))
    }
}
