//! The Kpé database: its files, checks and probes, and the solver against exhaustive minimax on small variants.

mod database;
mod solver;
