//! `sow solve GAME`: a Kpé variant's database built (or completed) with
//! the value of the start and of each first move; Kiothi's endgame tables
//! built; or a Kiothi position's exact value proved. Under `mpirun` (a
//! binary built with `--features mpi`), the first two by every rank
//! together (`over_ranks.rs`).

use std::path::PathBuf;

use super::args::refuse_given;
use super::{CliError, Out};
use crate::analysis::kpe_db;
use crate::analysis::kpe_solve::{
    solve, solve_endgame, solve_endgame_over_ranks, solve_over_ranks,
};
use crate::games::game_name::parse_kpe_game;
use crate::infra::progress::Progress;
use crate::kpe_db::estimate::OutOfCore;
use crate::report::kpe_solve::{endgame_text, text};
use crate::retrograde::ranks::Transport;

/// `sow solve`: its command line.
#[derive(clap::Args, Debug)]
pub struct SolveArgs {
    /// `kpe`, `kpe:WxK`, `kiothi` (its endgame tables), or a Kiothi
    /// play-phase position (quoted notation) whose exact value is proved.
    pub game: String,
    #[command(flatten)]
    pub db: super::paths::DbDir,
    /// Kiothi: stop after this many seconds with the proved bounds (default: no limit).
    #[arg(long, value_name = "SECONDS", value_parser = super::args::seconds)]
    pub time: Option<f64>,
    /// Kiothi: stop after this many nodes with the proved bounds.
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Kiothi: table of proved bounds, in MiB.
    // 128 MiB: larger tables cost more than they save in a 60 s proof
    // (first-touch page faults: 512 MiB took 8 s more than 128 MiB on the
    // same proof at the same node count; results/kiothi/exact.experiments.md).
    #[arg(long, value_name = "MB", default_value_t = 128, value_parser = super::args::hash_mb)]
    pub hash: usize,
    /// Kiothi: the endgame tables cover boards of at most this many
    /// warriors: `sow solve kiothi` builds them (default 10), a proof uses
    /// those in --db (default: all there are).
    #[arg(long, value_name = "N", value_parser = super::args::endgame_stones)]
    pub stones: Option<usize>,
    /// Kiothi position: keep the proved bounds in FILE from one run to the
    /// next: read before the proof when FILE exists, written back after it
    /// (also when Ctrl-C or a limit stopped it), so that a stopped proof
    /// goes on where it was.
    #[arg(long, value_name = "FILE")]
    pub keep: Option<PathBuf>,
    /// Kiothi position: check the proved bounds afterwards by a second,
    /// independent method: a certificate walked move by move down to the
    /// end of the game or the endgame tables (`prove::certificate`).
    #[arg(long)]
    pub verify: bool,
    /// Kpé: build only the endgame database (every layer of positions in
    /// which both players are unlocked), not the opening region: for a
    /// variant whose whole solve does not fit; a later full solve reuses it.
    #[arg(long)]
    pub endgame_only: bool,
    /// Kpé: where the opening region's keys and values go while it is
    /// built: in memory, or out of core in scratch files mapped from the
    /// database directory (slower, bounded by disk rather than memory);
    /// `auto` (the default) goes out of core only when the estimate says
    /// memory does not suffice.
    #[arg(long, value_enum, value_name = "WHEN")]
    pub out_of_core: Option<OutOfCore>,
}

impl SolveArgs {
    pub fn run(&self, out: &mut Out) -> Result<(), CliError> {
        #[cfg(feature = "mpi")]
        if let Some(mpi) = crate::retrograde::ranks::mpi::Mpi::init() {
            let db = kpe_db::db_dir(self.db.given());
            return super::over_ranks::run(&mpi, &db, out, |out| self.run_on(Some(&mpi), out));
        }
        self.run_on(None, out)
    }

    /// [`Self::run`], by the ranks of `ranks` together when given (an MPI
    /// run, `over_ranks.rs`).
    fn run_on(&self, ranks: Option<&dyn Transport>, out: &mut Out) -> Result<(), CliError> {
        let db = kpe_db::db_dir(self.db.given());
        if self.game.trim_start().starts_with("kiothi") {
            refuse_given(&[("endgame-only", self.endgame_only)], |_| {
                "--endgame-only is for Kpé (its unlocked layers); Kiothi's endgame tables are `sow solve kiothi --stones N`".into()
            })?;
            refuse_given(&[("out-of-core", self.out_of_core.is_some())], |_| {
                "--out-of-core is for Kpé (where its opening region is built)".into()
            })?;
        }
        if self.game.trim() == "kiothi" {
            refuse_given(
                &[("keep", self.keep.is_some()), ("verify", self.verify)],
                |flag| {
                    format!("--{flag} is for the proof of a Kiothi position; `sow solve kiothi` builds endgame tables")
                },
            )?;
            let stones = self.stones.unwrap_or(super::kiothi_tables::DEFAULT_STONES);
            return super::kiothi_tables::run(ranks, stones, &db, out);
        }
        if self.game.trim_start().starts_with("kiothi") {
            if ranks.is_some() {
                return Err(CliError::usage(
                    "game",
                    "under mpirun, `sow solve` builds a Kpé database or the Kiothi endgame tables; a Kiothi position is proved by one process",
                ));
            }
            let args = super::prove::ProveArgs {
                seconds: self.time,
                nodes: self.nodes,
                hash_mb: self.hash,
                threads: rayon::current_num_threads(),
                endgame_stones: self.stones,
                keep: self.keep.clone(),
                verify: self.verify,
            };
            let pos = crate::games::kiothi::parse_position(&self.game).map_err(CliError::from)?;
            return super::prove::run(&pos, args, &db, out);
        }
        let kiothi_only = [
            ("time", self.time.is_some()),
            ("nodes", self.nodes.is_some()),
            ("stones", self.stones.is_some()),
            ("keep", self.keep.is_some()),
            ("verify", self.verify),
        ];
        refuse_given(&kiothi_only, |flag| {
            format!("--{flag} is for Kiothi (a proof or the endgame tables); a Kpé solve always runs to the end")
        })?;
        let variant = parse_kpe_game(&self.game)?;
        let quiet = out.quiet || out.json || ranks.is_some_and(|t| t.rank() != 0);
        let progress = Progress::auto(quiet);
        let out_of_core = self.out_of_core.unwrap_or_default();
        // Over ranks, rank 0 alone has the run's figures to print.
        match (ranks, self.endgame_only) {
            (None, true) => out.result(&solve_endgame(variant, &db, progress)?, endgame_text),
            (None, false) => out.result(&solve(variant, &db, out_of_core, progress)?, text),
            (Some(t), true) => match solve_endgame_over_ranks(t, variant, &db, progress)? {
                Some(built) => out.result(&built, endgame_text),
                None => Ok(()),
            },
            (Some(t), false) => match solve_over_ranks(t, variant, &db, out_of_core, progress)? {
                Some(solved) => out.result(&solved, text),
                None => Ok(()),
            },
        }
    }
}
