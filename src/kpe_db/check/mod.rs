//! Content checks of database files.
//!
//! The header, block-table and block checksums (`file/`) catch a damaged
//! file; these checks catch a file whose checksums are consistent but whose
//! contents no solve can have written (a forged file, or one damaged before
//! its checksums were computed), so that it is a named error
//! ([`DbError::Corrupt`](crate::kpe_db::DbError), exit 2) rather than a
//! panic or a wrong answer:
//!
//! - **entry bytes** (layers and region values, `entries.rs`), checked on
//!   every block as it is decoded (zstd) or on every entry read (plain), so
//!   a probe costs one pass over 4 KiB at most;
//! - **the key index** (`opening-keys.sowdb`, `keys.rs`): its group table
//!   at open, the bucket a lookup searches at every lookup (16 to 32
//!   fields), a group read whole (export) key by key.
//!
//! Not checked: that a value is the *right* one (that needs the solve), and
//! that the region holds every locked child of its positions (a missing
//! child is refused as a position outside the solved regions).

pub mod entries;
pub mod keys;

pub use entries::{open_checked, Content};
