//! Reports: rendering the analysis models as pages (Markdown), pictures
//! drawn by the program (SVG, no system libraries) and tables (CSV).

pub mod analysis;
pub mod board;
pub mod book_openings;
pub mod evaluation;
pub mod export;
pub mod index;
pub mod kiothi;
pub mod kiothi_openings;
pub mod kpe;
pub mod kpe_openings;
pub mod kpe_solve;
pub mod man;
pub mod markdown;
pub mod matches;
pub mod opening_book;
pub mod over_ranks;
pub mod perft;
pub mod play;
pub mod position;
pub mod regenerate;
pub mod stats;
pub mod svg;
pub mod tables_build;
pub mod tune;
pub mod variants;
