//! Reports: pictures drawn by the program (SVG, no system libraries) and
//! the pages that embed them.

pub mod analysis;
pub mod kiothi;
pub mod kpe;
pub mod svg;
