//! `sow solve kpe:WxK` and `sow solve kiothi` under `mpirun` (a binary
//! built with `--features mpi`, docs/mpi.md): every rank runs the same
//! command; they solve each layer together and write the files one process
//! writes; rank 0 alone prints (and solves the Kpé opening region, which
//! is not split over ranks). Started by hand, such a binary is the
//! single-process solver.

use std::path::Path;

use super::{CliError, Out};
use crate::error::ErrorKind;
use crate::retrograde::ranks::shared_dir::check_shared_dir;
use crate::retrograde::ranks::Transport;

/// `sow solve` as one rank of an MPI run: the database directory `db`
/// checked to be the same for every rank, then `solve`; every rank waits
/// for the others at the end (rank 0 may go on alone with the Kpé opening
/// region), so that no rank leaves while another still needs it. Ranks
/// other than 0 print nothing but their errors.
pub fn run<T: Transport>(
    transport: &T,
    db: &Path,
    out: &mut Out,
    solve: impl FnOnce(&mut Out) -> Result<(), CliError>,
) -> Result<(), CliError> {
    if transport.rank() != 0 {
        *out = Out::new(false, true, Box::new(std::io::sink()));
    }
    let result = check_shared_dir(transport, db)
        .map_err(|e| CliError::new(ErrorKind::Io, Some("db"), e.to_string()))
        .and_then(|()| solve(out));
    transport.barrier();
    result
}
