//! perft
