//! The keys of locked positions: how a position is ranked into a 64-bit
//! key (`ranker.rs`), the classes of its marks (`mark_classes.rs`), sorted
//! key sets kept compact (`compact.rs`), and the key index file that holds
//! the solved region's sets (`key_file.rs`).

pub mod compact;
pub mod key_file;
pub mod mark_classes;
pub mod ranker;
