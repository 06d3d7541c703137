//! A build by the ranks of an MPI run together (`sow solve kpe:WxK` under
//! `mpirun`): rank 0 checks and locks the directory as one process does,
//! every rank builds the endgame layers (`layers_over_ranks.rs`), then
//! rank 0 alone explores and solves the locked region (not split over
//! ranks) and opens the solution.

use std::path::Path;
use std::time::Instant;

use super::layers_over_ranks::build_layers_over_ranks;
use super::{finish_build, prepare, BuildOptions, SolveStats};
use crate::games::kpe::KpeVariant;
use crate::infra::progress::Progress;
use crate::kpe_db::endgame::Endgame;
use crate::kpe_db::endgame_over_ranks::RanksLayers;
use crate::kpe_db::error::SolveError;
use crate::kpe_db::estimate::{OutOfCore, Scope};
use crate::kpe_db::lock::DbLock;
use crate::kpe_db::probe::Solution;
use crate::retrograde::ranks::Transport;

impl Solution {
    /// [`Self::build_with`] by the ranks of `transport` together: the
    /// endgame layers over every rank, the locked region on rank 0 alone,
    /// which returns the solution; the others return None once the layers
    /// are written. Every rank calls it together.
    pub fn build_over_ranks<T: Transport + ?Sized>(
        variant: KpeVariant,
        db_dir: &Path,
        progress: Progress,
        options: BuildOptions,
        transport: &T,
    ) -> Result<Option<(Self, SolveStats, RanksLayers)>, SolveError> {
        let (mut stats, writer) =
            prepare_over_ranks(variant, db_dir, Scope::Whole, options, transport)?;
        let start = Instant::now();
        let eg = Endgame::new(variant);
        let (layers, ranks) =
            build_layers_over_ranks(&eg, db_dir, progress, transport, &mut stats)?;
        if writer.is_none() {
            return Ok(None);
        }
        let encoding = options.encoding;
        let (solution, stats) = finish_build(eg, db_dir, progress, encoding, stats, layers, start)?;
        Ok(Some((solution, stats, ranks)))
    }

    /// [`Self::build_endgame`] by the ranks of `transport` together; the
    /// statistics on rank 0, None on the others.
    pub fn build_endgame_over_ranks<T: Transport + ?Sized>(
        variant: KpeVariant,
        db_dir: &Path,
        progress: Progress,
        transport: &T,
    ) -> Result<Option<(SolveStats, RanksLayers)>, SolveError> {
        let options = BuildOptions {
            out_of_core: OutOfCore::Never,
            ..BuildOptions::default()
        };
        let (mut stats, writer) =
            prepare_over_ranks(variant, db_dir, Scope::Endgame, options, transport)?;
        let start = Instant::now();
        let eg = Endgame::new(variant);
        let (_, ranks) = build_layers_over_ranks(&eg, db_dir, progress, transport, &mut stats)?;
        stats.layers_seconds = start.elapsed().as_secs_f64();
        stats.seconds = stats.layers_seconds;
        Ok(writer.map(|_| (stats, ranks)))
    }
}

/// `prepare` on rank 0 (which takes the writer's lock, and returns it),
/// its refusal on every rank.
fn prepare_over_ranks<T: Transport + ?Sized>(
    variant: KpeVariant,
    db_dir: &Path,
    scope: Scope,
    options: BuildOptions,
    transport: &T,
) -> Result<(SolveStats, Option<DbLock>), SolveError> {
    // Every rank's large blocks go back to the system when freed, as
    // rank 0's do in `prepare`.
    crate::infra::malloc::return_large_blocks_when_freed();
    let prepared = match transport.rank() {
        0 => Some(prepare(variant, db_dir, scope, options.out_of_core)),
        _ => None,
    };
    let refused = transport.broadcast(matches!(prepared, Some(Err(_))) as u64, 0);
    match prepared {
        Some(Ok((stats, writer))) => Ok((stats, Some(writer))),
        Some(Err(e)) => Err(e),
        None if refused == 0 => Ok((SolveStats::default(), None)),
        None => Err(crate::InputError::unsupported(
            "variant",
            format!("{}: refused by rank 0", variant.tag()),
        )
        .into()),
    }
}
