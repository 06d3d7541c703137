//! `sow man`: the man page (`report::man`) of the one clap definition of
//! the command line.

use super::{CliError, Out};

/// `sow man`'s flags (none).
#[derive(clap::Args, Debug)]
pub struct ManArgs {}

/// Writes the page to stdout (never JSON: a man page).
pub fn run(_args: &ManArgs, cmd: &clap::Command, out: &mut Out) -> Result<(), CliError> {
    out.refuse_json("man", "a roff page")?;
    let page = crate::report::man::page(cmd)?;
    out.writer().write_all(&page)?;
    Ok(())
}
