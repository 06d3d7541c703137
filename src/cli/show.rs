//! `sow show <POSITION>`: the board, whose turn it is, and the legal moves.

use super::{parse_any, CliError, Out};
use crate::analysis::position_models::ShowModel;
use crate::report::board::Board;
use crate::report::position::show_text;

/// `sow show`: its command line.
#[derive(clap::Args, Debug)]
pub struct ShowArgs {
    /// Position (quoted notation or a shortcut).
    pub position: String,
}

impl ShowArgs {
    pub fn run(&self, out: &mut Out) -> Result<(), CliError> {
        crate::with_position!(parse_any(&self.position)?, p => show(&p, out))
    }
}

pub fn show<G: Board>(p: &G, out: &mut Out) -> Result<(), CliError> {
    if out.json {
        return out.model(&ShowModel::new(p));
    }
    // `--quiet`: the board and whose turn it is, without the moves.
    out.lines(show_text(p, out.quiet))
}
