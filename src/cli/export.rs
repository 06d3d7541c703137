//! `sow export kpe[:WxK] --positions LAYER|all --format csv [--db DIR] [--out FILE]`:
//! the selection checked, the rows (`report::export`) streamed to stdout or
//! written atomically to `--out`.

use std::path::PathBuf;

use super::{CliError, Out};
use crate::analysis::kpe_db;
use crate::error::ErrorKind;
use crate::games::kpe::KpeVariant;
use crate::infra::files::write_atomic_with;
use crate::infra::progress::Progress;
use crate::report::export::{export, ExportSummary, Selection};

/// `--format` of `sow export`: CSV only for now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    Csv,
}

/// `sow export`: its command line.
#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// `kpe` or `kpe:WxK`.
    #[arg(value_parser = crate::games::game_name::parse_kpe_game)]
    pub game: KpeVariant,
    /// An unlocked layer (stones on the board: even, 0 to the total) or
    /// `all` (every layer, then the locked positions of the start).
    #[arg(long, value_name = "LAYER|all", allow_hyphen_values = true)]
    pub positions: String,
    /// Output format: `csv`.
    #[arg(long, value_enum, default_value = "csv")]
    pub format: ExportFormat,
    #[command(flatten)]
    pub db: super::paths::DbDir,
    /// Write to FILE (atomically) instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

impl ExportArgs {
    pub fn run(&self, out: &mut Out) -> Result<(), CliError> {
        let selection = selection(self.game, &self.positions)?;
        if out.json && self.out.is_none() {
            return Err(CliError::usage(
                "json",
                "--json needs --out FILE (the CSV itself goes to stdout otherwise)",
            ));
        }
        let progress = Progress::auto(out.quiet || out.json);
        let solution =
            kpe_db::open_solution(self.game, &kpe_db::db_dir(self.db.given()), progress)?;
        let Some(path) = &self.out else {
            export(&solution, selection, progress, out.writer(), None)?;
            return Ok(());
        };
        let stop = crate::infra::interrupt::ctrl_c_flag();
        // A failure to write (a full disk, a file size limit) names the file.
        let rows = write_atomic_with(path, |file| {
            export(&solution, selection, progress, file, Some(&stop)).map_err(|e| match e.kind {
                ErrorKind::Io => CliError::new(
                    ErrorKind::Io,
                    Some("out"),
                    format!("--out {}: {}", path.display(), e.message),
                ),
                _ => e,
            })
        })?;
        if out.json {
            return out.model_sorted(&ExportSummary {
                format: "csv".into(),
                game: "kpe".into(),
                out: path.display().to_string(),
                positions: self.positions.clone(),
                rows,
                variant: self.game.to_string(),
            });
        }
        out.info(format!("{rows} positions written to {}", path.display()))
    }
}

/// `--positions`: an even stone count of the variant, or `all`.
fn selection(variant: KpeVariant, text: &str) -> Result<Selection, CliError> {
    Selection::parse(variant, text)
        .map_err(|e| CliError::usage("positions", format!("--positions {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selections_and_their_errors() {
        let v = KpeVariant::new(3, 2).unwrap();
        assert_eq!(selection(v, "all").unwrap(), Selection::All);
        assert_eq!(selection(v, "12").unwrap(), Selection::Layer(12));
        assert_eq!(selection(v, "0").unwrap(), Selection::Layer(0));
        for bad in ["13", "14", "7", "-2", "x"] {
            let e = selection(v, bad).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("positions"), "{bad}");
            assert!(e.message.contains("0, 2, ..., 12"), "{}", e.message);
        }
    }
}
