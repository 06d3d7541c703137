//! A layered retrograde run by several ranks (processes under `mpirun`,
//! or threads standing in for them), bulk synchronous:
//! - `transport.rs`: the few collectives it needs ([`Transport`]), by
//!   threads of one process ([`InProcess`]) or one rank alone;
//! - `mpi.rs`: the same over MPI (cargo feature `mpi`, docs/mpi.md);
//! - `partition.rs`: a layer split over the ranks by whole blocks;
//! - `exchange.rs`: waves of news between ranks (one all-to-all each);
//! - `file.rs`: one file written by every rank, each its slice;
//! - `shared_dir.rs`: the check that the ranks share the directory.

pub mod exchange;
pub mod file;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod partition;
pub mod shared_dir;
pub mod transport;

pub use exchange::{waves, Outbox, Traffic, WAVE_CHILDREN};
pub use partition::Partition;
pub use transport::{Alone, InProcess, Reduce, Transport};
