//! The exact Kiothi prover: proofs against exhaustive minimax, certificates, and `sow solve '<kiothi position>'`.

mod command;
mod prover;
