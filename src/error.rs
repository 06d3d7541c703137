//! Typed errors of the library. The binary turns them into messages and
//! exit code 2.

use std::fmt;
use std::io;

use serde::Serialize;
use serde_json::{json, Value};
use thiserror::Error;

/// The kind of a refusal or failure, as the error contract names it
/// (`{"error":{"kind",...}}` of `--json` and of the web oracle).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// Text that does not follow its notation.
    Malformed,
    /// Well-formed text describing a position that cannot occur.
    Impossible,
    /// A move that is not legal where it is played.
    IllegalMove,
    /// A request the tool does not support.
    Unsupported,
    /// A well-formed command line (or query) asking for what is refused.
    Usage,
    /// A file or stream that could not be read or written.
    Io,
    /// A database or endgame table that is missing or damaged.
    Database,
    /// A failure of the tool itself.
    Internal,
    /// Ctrl-C stopped the command.
    Interrupted,
    /// Web oracle: every search slot stayed busy.
    Busy,
    /// Web oracle: a newer search of the same client took the slot.
    Cancelled,
    /// Web oracle: the request outlived the server's time limit.
    Timeout,
}

impl ErrorKind {
    /// The contract's word for the kind.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Malformed => "malformed",
            ErrorKind::Impossible => "impossible",
            ErrorKind::IllegalMove => "illegal_move",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Usage => "usage",
            ErrorKind::Io => "io",
            ErrorKind::Database => "database",
            ErrorKind::Internal => "internal",
            ErrorKind::Interrupted => "interrupted",
            ErrorKind::Busy => "busy",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::Timeout => "timeout",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Bad text or an impossible request from a user. Built by the
/// constructors below, whose messages are one line like the contract's
/// (`one_line`): a message quoting the input it refuses (an agent spec
/// with a newline, found by AFL++ on `agent-spec`) stays one line for a
/// library caller too, not only once printed as a [`CliError`].
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
            message: one_line(message.into()),
        }
    }

    pub fn impossible(field: impl Into<String>, message: impl Into<String>) -> Self {
        InputError::Impossible {
            field: field.into(),
            message: one_line(message.into()),
        }
    }

    pub fn illegal(mv: impl Into<String>, reason: impl Into<String>) -> Self {
        InputError::IllegalMove {
            mv: one_line(mv.into()),
            reason: one_line(reason.into()),
        }
    }

    pub fn unsupported(field: impl Into<String>, message: impl Into<String>) -> Self {
        InputError::Unsupported {
            field: field.into(),
            message: one_line(message.into()),
        }
    }

    /// The same error with `note` after its message (`; note`).
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        let note = one_line(note.into());
        match &mut self {
            InputError::Malformed { message, .. }
            | InputError::Impossible { message, .. }
            | InputError::Unsupported { message, .. }
            | InputError::IllegalMove {
                reason: message, ..
            } => *message = format!("{message}; {note}"),
        }
        self
    }

    /// The error contract's kind.
    pub fn kind(&self) -> ErrorKind {
        match self {
            InputError::Malformed { .. } => ErrorKind::Malformed,
            InputError::Impossible { .. } => ErrorKind::Impossible,
            InputError::IllegalMove { .. } => ErrorKind::IllegalMove,
            InputError::Unsupported { .. } => ErrorKind::Unsupported,
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

/// A command's failure, ready to print by the README's error contract
/// (`Out::fail` of the command line): kind, field, message. Every layer
/// above the rules (analysis, reports, the web oracle, the command line)
/// returns it, so that a refusal keeps its field from where it is found to
/// where it is printed.
#[derive(Debug)]
pub struct CliError {
    pub kind: ErrorKind,
    /// The field at fault (`game`, `counts`, `side`, `move`, `depth`...).
    pub field: Option<String>,
    pub message: String,
    /// For `apply`: the 1-based index of the move that was refused.
    pub index: Option<usize>,
    /// Set when stdout was closed by the reader (`sow moves --all | head`):
    /// not an error worth reporting.
    pub broken_pipe: bool,
}

impl CliError {
    pub fn new(kind: ErrorKind, field: Option<&str>, message: impl Into<String>) -> Self {
        CliError {
            kind,
            field: field.map(str::to_string),
            message: one_line(message.into()),
            index: None,
            broken_pipe: false,
        }
    }

    /// A well-formed command line asking for something the tool refuses.
    pub fn usage(field: &str, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Usage, Some(field), message)
    }

    /// The error as the `--json` object.
    pub fn to_json(&self) -> Value {
        let mut e = json!({
            "kind": self.kind,
            "field": self.field,
            "message": self.message,
        });
        if let Some(i) = self.index {
            e["index"] = json!(i);
        }
        json!({ "error": e })
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CliError {}

/// The contract's message is one line: control characters of the input it
/// quotes (a newline in a URL-decoded position, say) are written escaped
/// (`\n`). Found by the `http` fuzz target (and, in [`InputError`]'s
/// messages, by AFL++ on `agent-spec`).
fn one_line(message: String) -> String {
    shortened(escaped(message))
}

/// The longest message, in characters: a refusal quotes what it refuses,
/// and a 50 MB one-line game file made a 50 MB error line.
const MAX_MESSAGE_CHARS: usize = 2000;

/// `message` cut to [`MAX_MESSAGE_CHARS`], saying how much was left out.
fn shortened(message: String) -> String {
    match message.char_indices().nth(MAX_MESSAGE_CHARS) {
        None => message,
        Some((cut, _)) => {
            let left_out = message[cut..].chars().count();
            format!("{}… ({left_out} more characters)", &message[..cut])
        }
    }
}

fn escaped(message: String) -> String {
    if !message.contains(|c: char| c.is_control()) {
        return message;
    }
    message
        .chars()
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect()
}

impl From<InputError> for CliError {
    fn from(e: InputError) -> Self {
        CliError::new(e.kind(), e.field(), e.to_string())
    }
}

/// A report or data file that could not be written: kind `io`, field `out`.
impl From<crate::infra::files::WriteError> for CliError {
    fn from(e: crate::infra::files::WriteError) -> Self {
        CliError::new(ErrorKind::Io, Some("out"), e.to_string())
    }
}

impl From<io::Error> for CliError {
    fn from(e: io::Error) -> Self {
        let mut err = CliError::new(ErrorKind::Io, None, format!("writing output: {e}"));
        err.broken_pipe = e.kind() == io::ErrorKind::BrokenPipe;
        err
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_one_line_of_bounded_length() {
        let short = CliError::usage("game", "unknown game `a\nb`");
        assert_eq!(short.message, "unknown game `a\\nb`");
        // 14 + 20,000 + 1 characters, multi-byte ones: cut on a character.
        let quoted = "é".repeat(20_000);
        let long = CliError::usage("game", format!("unknown game `{quoted}`"));
        let kept: String = long.message.chars().take(MAX_MESSAGE_CHARS).collect();
        assert!(kept.starts_with("unknown game `éé"));
        assert_eq!(long.message, format!("{kept}… (18015 more characters)"));
    }
}
