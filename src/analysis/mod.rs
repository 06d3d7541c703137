//! What turns the engines into findings: games between agents, tuning,
//! statistics, the opening explorer, the data behind every report, and
//! what positions and games are worth (evaluation, annotation, oracles).
//! Below it: the rules (`games`), the solver and the search; above it: the
//! renderers (`report`) and the command line (`cli`). Nothing here prints.

pub mod annotate;
pub mod book_match;
pub mod book_openings;
pub mod book_oracle;
pub mod elo;
pub mod engine_errors;
pub mod evaluation;
pub mod game_replay;
pub mod game_text;
pub mod kiothi_openings;
pub mod kiothi_report;
pub mod kiothi_stats;
pub mod kiothi_tables;
pub mod kpe_db;
pub mod kpe_openings;
pub mod kpe_report;
pub mod kpe_solve;
pub mod kpe_stats;
pub mod levels;
pub mod marks;
pub mod match_game;
pub mod matches;
pub mod move_values;
pub mod opening_book;
pub mod oracle;
pub mod over_ranks;
pub mod perft_report;
pub mod play_session;
pub mod position_models;
pub mod provenance;
pub mod search_budget;
pub mod tables_build;
#[cfg(test)]
pub mod test_games;
pub mod tune;
pub mod value_sources;
pub mod variants;
