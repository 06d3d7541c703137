//! What turns the engines into findings: games between agents, tuning,
//! statistics, the opening explorer and the data behind every report.
//! Below it: the rules (`games`), the solver and the search; above it: the
//! renderers (`report`) and the command line (`cli`), which only parse,
//! print and write files.

pub mod elo;
pub mod kiothi_openings;
pub mod kiothi_report;
pub mod kiothi_stats;
pub mod kpe_db;
pub mod kpe_openings;
pub mod kpe_stats;
pub mod matches;
pub mod provenance;
pub mod tune;
pub mod variants;
