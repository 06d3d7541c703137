//! `sow export kpe[:WxK] --positions LAYER|all --format csv [--db DIR] [--out FILE]`:
//! the selection checked, the rows (`report::export`) streamed to stdout or
//! written atomically to `--out`.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{CliError, Out};
use crate::analysis::kpe_db;
use crate::error::ErrorKind;
use crate::games::kpe::KpeVariant;
use crate::infra::progress::Progress;
use crate::report::export::{export, Selection};

/// `--format` of `sow export`: CSV only for now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    Csv,
}

/// `sow export --out FILE --json`: what was written.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ExportSummary {
    pub format: String,
    pub game: String,
    pub out: String,
    /// The `--positions` selection.
    pub positions: String,
    pub rows: u64,
    pub variant: String,
}

/// `sow export`: its command line.
#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// `kpe` or `kpe:WxK`.
    #[arg(value_parser = super::game_arg::parse_kpe_game)]
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

/// Parses `--positions`: an even stone count of the variant, or `all`.
pub fn parse_selection(variant: KpeVariant, text: &str) -> Result<Selection, CliError> {
    let total = variant.total() as usize;
    let range = format!(
        "the unlocked layers of {} are the even stone counts 0, 2, ..., {total}",
        variant.tag()
    );
    if text == "all" {
        return Ok(Selection::All);
    }
    let n: usize = text.parse().map_err(|_| {
        CliError::usage(
            "positions",
            format!(
                "--positions `{text}`: expected a layer (stones on the board) or `all`; {range}"
            ),
        )
    })?;
    if n > total {
        return Err(CliError::usage(
            "positions",
            format!("--positions {n} is out of range: {range}"),
        ));
    }
    if n % 2 == 1 {
        return Err(CliError::usage(
            "positions",
            format!("--positions {n} is odd: captures take 2 or 4 stones, so {range}"),
        ));
    }
    Ok(Selection::Layer(n))
}

impl ExportArgs {
    /// Runs the command.
    pub fn run(&self, out: &mut Out) -> Result<(), CliError> {
        let selection = parse_selection(self.game, &self.positions)?;
        if out.json && self.out.is_none() {
            return Err(CliError::usage(
                "json",
                "--json needs --out FILE (the CSV itself goes to stdout otherwise)",
            ));
        }
        let progress = Progress::auto(out.quiet || out.json);
        let solution =
            kpe_db::open_solution(self.game, &kpe_db::db_dir(self.db.given()), progress)?;
        let rows = match &self.out {
            None => export(&solution, selection, progress, out.writer(), None)?,
            Some(path) => {
                let stop = crate::infra::interrupt::ctrl_c_flag();
                write_file_atomically(path, |file| {
                    export(&solution, selection, progress, file, Some(&stop))
                })?
            }
        };
        let Some(path) = &self.out else {
            return Ok(());
        };
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

/// Runs `write` on a temporary file next to `path`, then renames it to
/// `path` (`files::write_atomic_with`); an error of the writing (a full
/// disk, a file size limit) names the file.
fn write_file_atomically<T>(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<T, CliError>,
) -> Result<T, CliError> {
    crate::infra::files::write_atomic_with(path, |file| {
        write(file).map_err(|e| match e.kind {
            ErrorKind::Io => CliError::new(
                ErrorKind::Io,
                Some("out"),
                format!("--out {}: {}", path.display(), e.message),
            ),
            _ => e,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selections_and_their_errors() {
        let v = KpeVariant::new(3, 2).unwrap();
        assert_eq!(parse_selection(v, "all").unwrap(), Selection::All);
        assert_eq!(parse_selection(v, "12").unwrap(), Selection::Layer(12));
        assert_eq!(parse_selection(v, "0").unwrap(), Selection::Layer(0));
        for bad in ["13", "14", "7", "-2", "x"] {
            let e = parse_selection(v, bad).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("positions"), "{bad}");
            assert!(e.message.contains("0, 2, ..., 12"), "{}", e.message);
        }
    }
}
