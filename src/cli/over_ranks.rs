//! `sow solve kpe:WxK` and `sow solve kiothi` under `mpirun` (a binary
//! built with `--features mpi`, docs/mpi.md): every rank runs the same
//! command; they solve each layer together and write the files one process
//! writes; rank 0 alone prints (and solves the Kpé opening region, which
//! is not split over ranks). Started by hand, such a binary is the
//! single-process solver.

use std::path::Path;

use serde::Serialize;

use super::{CliError, Out};
use crate::analysis::kpe_db::peak_rss_mib;
use crate::kpe_db::endgame_over_ranks::RanksReport;
use crate::retrograde::exchange::Traffic;
use crate::retrograde::transport::{Reduce, Transport};

/// What the ranks of a run did, as `--json`'s `ranks` and one line.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RanksFigures {
    pub ranks: usize,
    /// Positions (boards) of the layers the ranks solved.
    pub positions: u64,
    /// Waves of news (one all-to-all each).
    pub waves: u64,
    /// Bytes the ranks sent each other, in all.
    pub bytes_exchanged: u64,
    pub bytes_per_position: f64,
    pub bytes_per_wave: f64,
    /// The largest peak resident memory of any rank, MiB.
    pub peak_rss_mib_max: f64,
}

impl RanksFigures {
    pub fn new(ranks: usize) -> Self {
        RanksFigures {
            ranks,
            ..Default::default()
        }
    }

    /// Adds a layer of `positions` and its traffic (summed over ranks).
    pub fn add_layer(&mut self, positions: u64, traffic: Traffic) {
        self.positions += positions;
        self.waves += traffic.waves;
        self.bytes_exchanged += 8 * traffic.messages_sent;
        self.update_ratios();
    }

    fn update_ratios(&mut self) {
        self.bytes_per_position = self.bytes_exchanged as f64 / self.positions.max(1) as f64;
        self.bytes_per_wave = self.bytes_exchanged as f64 / self.waves.max(1) as f64;
    }

    /// The largest peak memory of the ranks (every rank calls it).
    pub fn finish<T: Transport + ?Sized>(&mut self, transport: &T) {
        let mut peak = [(peak_rss_mib().unwrap_or(0.0) * 1024.0) as u64];
        transport.all_reduce(&mut peak, Reduce::Max);
        self.peak_rss_mib_max = peak[0] as f64 / 1024.0;
    }

    pub fn of_layers(r: &RanksReport) -> Self {
        let mut f = RanksFigures::new(r.ranks);
        f.add_layer(r.positions, r.traffic);
        f.peak_rss_mib_max = r.peak_rss_mib_max;
        f
    }

    pub fn line(&self) -> String {
        format!(
            "over {} ranks: {} positions solved together in {} waves, {} bytes exchanged ({:.2} a position, {:.0} a wave), peak memory of a rank {:.0} MiB",
            self.ranks,
            self.positions,
            self.waves,
            self.bytes_exchanged,
            self.bytes_per_position,
            self.bytes_per_wave,
            self.peak_rss_mib_max
        )
    }
}

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
    let result = check_shared_dir(transport, db).and_then(|()| solve(out));
    transport.barrier();
    result
}

/// Refuses a database directory the ranks do not share: rank 0 writes a
/// token file in it, which every rank must read back. Nothing is left
/// behind (a directory rank 0 had to create for the token is removed).
fn check_shared_dir<T: Transport + ?Sized>(transport: &T, db: &Path) -> Result<(), CliError> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let token = transport.broadcast(nanos ^ ((std::process::id() as u64) << 32), 0);
    let name = format!(".sow-shared-check-{token:016x}");
    let path = db.join(&name);
    let mut created = false;
    let written = match transport.rank() {
        0 => {
            created = !db.exists();
            std::fs::create_dir_all(db)
                .and_then(|()| std::fs::write(&path, token.to_le_bytes()))
                .map_err(|e| format!("{}: {e}", path.display()))
        }
        _ => Ok(()),
    };
    let failed = transport.broadcast(written.is_err() as u64, 0);
    if failed != 0 {
        return Err(CliError::new(
            "io",
            Some("db"),
            written
                .err()
                .unwrap_or_else(|| format!("rank 0 cannot write in {}", db.display())),
        ));
    }
    transport.barrier();
    let seen = std::fs::read(&path).is_ok_and(|b| b == token.to_le_bytes());
    let mut seeing = [seen as u64];
    transport.all_reduce(&mut seeing, Reduce::Sum);
    transport.barrier();
    if transport.rank() == 0 {
        let _ = std::fs::remove_file(&path);
        if created && (seeing[0] as usize) < transport.size() {
            let _ = std::fs::remove_dir(db);
        }
    }
    match seeing[0] as usize == transport.size() {
        true => Ok(()),
        false => Err(CliError::new(
            "io",
            Some("db"),
            format!(
                "the database directory {} is not shared by the ranks: {} of {} ranks do not see the file rank 0 wrote there; give --db a directory every node mounts",
                db.display(),
                transport.size() - seeing[0] as usize,
                transport.size()
            ),
        )),
    }
}
