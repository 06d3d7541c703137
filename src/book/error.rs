//! What the opening room refuses: positions and parameters the scan and the
//! reply search cannot take, and book files that cannot be read, written or
//! extended (each naming the file).

use std::path::PathBuf;

use crate::error::{CliError, ErrorKind};

/// A request the opening room cannot serve.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    /// The position is past the opening (turn 3 on, RULES §2.11): there is
    /// no redistribution to scan.
    #[error("not an opening position: {position} is in the play phase; the opening scan and the reply search take turn 1 (S to move) or turn 2 (N to move)")]
    NotOpening { position: String },
    /// A reply search or a reply scan was asked of turn 1, or a first-move
    /// scan of turn 2.
    #[error("wrong opening turn: {position} is turn {found}; this takes turn {wanted}")]
    WrongTurn {
        position: String,
        found: u8,
        wanted: u8,
    },
    /// The mover has no occupied pit: the game is over (RULES §2.10).
    #[error("no opening move: the mover of {position} has no occupied pit (the game is over)")]
    NoMove { position: String },
    /// A parameter out of its range (a shortlist of zero moves, ...).
    #[error("bad parameter {field}: {message}")]
    BadParameter {
        field: &'static str,
        message: String,
    },
    /// A book file that cannot be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The file does not begin with a book's magic bytes.
    #[error("{}: not a sow opening book (it does not begin with the book's magic bytes)", path.display())]
    NotABook { path: PathBuf },
    /// A book of a format version this sow does not read.
    #[error("{}: book format version {found}, this sow reads version {supported}", path.display())]
    Version {
        path: PathBuf,
        found: u16,
        supported: u16,
    },
    /// A book of another game.
    #[error("{}: an opening book of another game (game code {code}), not Kiothi", path.display())]
    OtherGame { path: PathBuf, code: u8 },
    /// Shorter than its header says.
    #[error("{}: truncated: {len} bytes, the header announces {expected}", path.display())]
    Truncated {
        path: PathBuf,
        len: u64,
        expected: u64,
    },
    /// The checksum does not match the contents.
    #[error("{}: damaged: the checksum does not match the contents", path.display())]
    Checksum { path: PathBuf },
    /// Contents that cannot be a book's (the checksum matched).
    #[error("{}: damaged: {what}", path.display())]
    Damaged { path: PathBuf, what: String },
    /// A book of another start position than the one asked for.
    #[error("{}: a book of {found}, not of {wanted}", path.display())]
    OtherSetup {
        path: PathBuf,
        found: String,
        wanted: String,
    },
    /// Another process is extending the book.
    #[error("{}: being extended by {holder}: one writer at a time", path.display())]
    Locked { path: PathBuf, holder: String },
    /// A build parameter that differs from the one the book was begun with.
    #[error("{}: {field} {given} differs from the book's {found}: a book is extended with the parameters it was begun with (start another file to change them)", path.display())]
    Parameter {
        path: PathBuf,
        field: &'static str,
        given: String,
        found: String,
    },
}

impl BookError {
    pub fn io(path: &std::path::Path, source: std::io::Error) -> BookError {
        BookError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// The error contract's refusal, `field` naming the input at fault: a
    /// file that cannot be read or written is `io`, a damaged or foreign
    /// one `database`, a build parameter that differs from the book's a
    /// `usage` error of its own flag, a position or parameter the scan
    /// refuses a `usage` error of `field`; the file's name is in the message.
    pub fn refusal(self, field: &str) -> CliError {
        let kind = match &self {
            BookError::Io { .. } | BookError::Locked { .. } => ErrorKind::Io,
            BookError::NotABook { .. }
            | BookError::Version { .. }
            | BookError::OtherGame { .. }
            | BookError::Truncated { .. }
            | BookError::Checksum { .. }
            | BookError::Damaged { .. }
            | BookError::OtherSetup { .. } => ErrorKind::Database,
            BookError::Parameter { field, .. } => return CliError::usage(field, self.to_string()),
            BookError::NotOpening { .. }
            | BookError::WrongTurn { .. }
            | BookError::NoMove { .. }
            | BookError::BadParameter { .. } => ErrorKind::Usage,
        };
        CliError::new(kind, Some(field), self.to_string())
    }
}
