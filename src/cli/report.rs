//! `sow report [--out results] [--quick] [--only kpe|kiothi]`: regenerates
//! the reports and their index (`report::regenerate`).

use super::{paths, CliError, Out};
use crate::infra::progress::Progress;
use crate::report::regenerate::{regenerate, Part, Regeneration};

/// `sow report`: its command line.
#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    #[command(flatten)]
    pub out: paths::ReportsDir,
    /// Small variant and table, for a quick end-to-end run (CI).
    #[arg(long)]
    pub quick: bool,
    #[command(flatten)]
    pub db: paths::DbDir,
    /// Regenerate one part only (the index keeps the other part's last report).
    #[arg(long, value_enum)]
    pub only: Option<Part>,
}

impl ReportArgs {
    pub fn run(&self, out: &mut Out) -> Result<(), CliError> {
        let dir = &self.out.dir;
        paths::check_out_dir("out", dir)?;
        let regeneration = Regeneration {
            db: self.db.given(),
            out_dir: dir,
            quick: self.quick,
            only: self.only,
            progress: Progress::auto(out.quiet || out.json),
        };
        let report = regenerate(&regeneration, &mut |line| {
            out.info(line)?;
            out.flush()
        })?;
        if out.json {
            return out.model_sorted(&report);
        }
        out.line(format!(
            "wrote the reports under {} in {:.1} s",
            dir.display(),
            report.seconds
        ))
    }
}
