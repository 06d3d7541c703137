//! What the opening scan and the reply search refuse.

/// A request the book layer cannot serve.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
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
    BadParameter { field: &'static str, message: String },
}
