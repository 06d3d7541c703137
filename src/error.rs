//! Typed errors of the library. The binary turns them into messages and
//! exit code 2.

use thiserror::Error;

/// Bad text or an impossible request from a user.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum InputError {
    /// Text that does not follow RULES §3 notation.
    #[error("malformed {field}: {message}")]
    Malformed { field: String, message: String },
    /// Well-formed text describing a position that cannot occur.
    #[error("impossible position: {field}: {message}")]
    Impossible { field: String, message: String },
    /// A move that is not legal in the position it is played in.
    #[error("illegal move {mv}: {reason}")]
    IllegalMove { mv: String, reason: String },
    /// A request the tool does not support (an unknown game, a variant out of range...).
    #[error("unsupported {field}: {message}")]
    Unsupported { field: String, message: String },
}

impl InputError {
    pub fn malformed(field: impl Into<String>, message: impl Into<String>) -> Self {
        InputError::Malformed {
            field: field.into(),
            message: message.into(),
        }
    }

    pub fn impossible(field: impl Into<String>, message: impl Into<String>) -> Self {
        InputError::Impossible {
            field: field.into(),
            message: message.into(),
        }
    }

    pub fn illegal(mv: impl Into<String>, reason: impl Into<String>) -> Self {
        InputError::IllegalMove {
            mv: mv.into(),
            reason: reason.into(),
        }
    }

    pub fn unsupported(field: impl Into<String>, message: impl Into<String>) -> Self {
        InputError::Unsupported {
            field: field.into(),
            message: message.into(),
        }
    }

    /// Stable machine-readable kind for `--json` error objects.
    pub fn kind(&self) -> &'static str {
        match self {
            InputError::Malformed { .. } => "malformed",
            InputError::Impossible { .. } => "impossible",
            InputError::IllegalMove { .. } => "illegal_move",
            InputError::Unsupported { .. } => "unsupported",
        }
    }

    /// The field at fault, when there is one.
    pub fn field(&self) -> Option<&str> {
        match self {
            InputError::Malformed { field, .. }
            | InputError::Impossible { field, .. }
            | InputError::Unsupported { field, .. } => Some(field),
            InputError::IllegalMove { .. } => Some("move"),
        }
    }
}
