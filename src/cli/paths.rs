//! Files named on the command line: outputs checked writable before a
//! command's work, inputs read whole with a bound on their size.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::CliError;
use crate::error::ErrorKind;
use crate::infra::files::{check_writable_dir, check_writable_parent, WriteError};

/// `--db DIR`, defined once and flattened into every command that reads
/// or writes the database directory.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct DbDir {
    /// Database directory: Kpé databases and Kiothi endgame tables
    /// (default: $SOW_DB, else ~/.local/share/sow).
    #[arg(long = "db", id = "db", value_name = "DIR")]
    path: Option<PathBuf>,
}

impl DbDir {
    /// The directory given, if any (`kpe_db::db_dir` supplies the default).
    pub fn given(&self) -> Option<&Path> {
        self.path.as_deref()
    }
}

/// `--out DIR`, the directory of the reports (`report`, `variants`), defined once.
#[derive(clap::Args, Clone, Debug)]
pub struct ReportsDir {
    /// Directory of the reports.
    #[arg(long = "out", value_name = "DIR", default_value = "results")]
    pub dir: PathBuf,
}

/// `--FLAG DIR` of a command that writes there after long work: checked
/// writable first (without creating it: the command creates it when it
/// writes), refused (kind `io`, exit 2) if not.
pub fn check_out_dir(flag: &str, dir: &Path) -> Result<(), CliError> {
    check_writable_dir(dir).map_err(|e| cannot_write(flag, e))
}

/// [`check_out_dir`] for the directory of the file `--FLAG FILE`.
pub fn check_out_file(flag: &str, file: &Path) -> Result<(), CliError> {
    check_writable_parent(file).map_err(|e| cannot_write(flag, e))
}

/// A file of `--FLAG` that could not be written: kind `io`, field `FLAG`.
pub fn cannot_write(flag: &str, e: WriteError) -> CliError {
    CliError::new(
        ErrorKind::Io,
        Some(flag),
        format!("--{flag}: cannot write in {e}"),
    )
}

/// The largest input file read, in bytes: a game is a few kilobytes, a
/// `sow match --records` file of thousands of games or a self-play CSV
/// some megabytes (`sow analyze /dev/zero` read until the memory ran out).
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

/// The text of `file` (`None`: standard input), at most
/// [`MAX_INPUT_BYTES`]; refused with kind `io` and field `field`, the
/// message naming the input as `name` (standard input as such).
pub fn read_input(file: Option<&Path>, field: &str, name: &str) -> Result<String, CliError> {
    read_at_most(file, field, name, MAX_INPUT_BYTES)
}

fn read_at_most(
    file: Option<&Path>,
    field: &str,
    name: &str,
    max: u64,
) -> Result<String, CliError> {
    let name = file.map_or("standard input", |_| name);
    let refuse = |why: String| {
        CliError::new(
            ErrorKind::Io,
            Some(field),
            format!("cannot read {name}: {why}"),
        )
    };
    let mut text = String::new();
    let read = match file {
        None => std::io::stdin().take(max + 1).read_to_string(&mut text),
        Some(file) => File::open(file).and_then(|f| f.take(max + 1).read_to_string(&mut text)),
    };
    read.map_err(|e| refuse(e.to_string()))?;
    if text.len() as u64 > max {
        let why = format!("more than {max} bytes, far beyond any input of this tool");
        return Err(refuse(why));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_input_is_refused_at_the_limit() {
        let zero = Some(Path::new("/dev/zero"));
        let e = read_at_most(zero, "file", "the game file", 1 << 16).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("file"));
        assert!(e.message.contains("more than 65536 bytes"), "{}", e.message);
        assert!(
            e.message.starts_with("cannot read the game file:"),
            "{}",
            e.message
        );
        let null = Some(Path::new("/dev/null"));
        assert_eq!(read_at_most(null, "data", "x", 0).unwrap(), "");
    }
}
