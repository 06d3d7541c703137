//! Printing: human text or exactly one JSON object on stdout, and the error
//! contract (one `error: ...` line on stderr, exit code 2, and with `--json`
//! also `{"error":{"kind","field","message"}}` on stdout).

use std::fmt;
use std::io::{self, Write};

use serde_json::{json, Value};

use crate::error::InputError;

/// Exit code of every refused input or failed command.
pub const EXIT_ERROR: u8 = 2;

/// A command's failure, ready to print.
#[derive(Debug)]
pub struct CliError {
    /// `malformed`, `impossible`, `illegal_move`, `unsupported` (from
    /// [`InputError::kind`]), `usage` (a bad command-line request) or `io`.
    pub kind: String,
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
    pub fn new(kind: &str, field: Option<&str>, message: impl Into<String>) -> Self {
        CliError {
            kind: kind.to_string(),
            field: field.map(str::to_string),
            message: message.into(),
            index: None,
            broken_pipe: false,
        }
    }

    /// A well-formed command line asking for something the tool refuses.
    pub fn usage(field: &str, message: impl Into<String>) -> Self {
        Self::new("usage", Some(field), message)
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

impl From<InputError> for CliError {
    fn from(e: InputError) -> Self {
        CliError::new(e.kind(), e.field(), e.to_string())
    }
}

impl From<io::Error> for CliError {
    fn from(e: io::Error) -> Self {
        let mut err = CliError::new("io", None, format!("writing output: {e}"));
        err.broken_pipe = e.kind() == io::ErrorKind::BrokenPipe;
        err
    }
}

/// Where a command writes. In JSON mode a command writes exactly one object
/// (with [`Out::json`] or by streaming through [`Out::writer`]); in human
/// mode, lines of text.
pub struct Out {
    pub json: bool,
    pub quiet: bool,
    w: Box<dyn Write>,
}

impl Out {
    pub fn new(json: bool, quiet: bool, w: Box<dyn Write>) -> Self {
        Out { json, quiet, w }
    }

    /// Buffered standard output.
    pub fn stdout(json: bool, quiet: bool) -> Self {
        Out::new(json, quiet, Box::new(io::BufWriter::new(io::stdout())))
    }

    /// A line of human output (ignored in JSON mode).
    pub fn line(&mut self, text: impl fmt::Display) -> Result<(), CliError> {
        if !self.json {
            writeln!(self.w, "{text}")?;
        }
        Ok(())
    }

    /// A line of human output that `--quiet` suppresses.
    pub fn info(&mut self, text: impl fmt::Display) -> Result<(), CliError> {
        if !self.quiet {
            self.line(text)?;
        }
        Ok(())
    }

    /// The JSON object of a command (ignored in human mode).
    pub fn json(&mut self, value: &Value) -> Result<(), CliError> {
        if self.json {
            writeln!(self.w, "{value}")?;
        }
        Ok(())
    }

    /// A typed model as the command's JSON object (ignored in human mode).
    pub fn model<T: serde::Serialize>(&mut self, model: &T) -> Result<(), CliError> {
        if self.json {
            let text = serde_json::to_string(model)
                .map_err(|e| CliError::new("internal", None, format!("serializing output: {e}")))?;
            writeln!(self.w, "{text}")?;
        }
        Ok(())
    }

    /// Raw access for streaming output.
    pub fn writer(&mut self) -> &mut dyn Write {
        &mut self.w
    }

    pub fn flush(&mut self) -> Result<(), CliError> {
        self.w.flush()?;
        Ok(())
    }

    /// Prints an error by the contract and returns the exit code. A broken
    /// pipe is silent and exits 0.
    pub fn fail(&mut self, err: &CliError) -> u8 {
        if err.broken_pipe {
            return 0;
        }
        if self.json {
            let _ = writeln!(self.w, "{}", err.to_json());
        }
        let _ = self.w.flush();
        let message = err.message.replace('\n', " ");
        eprintln!("error: {message}");
        EXIT_ERROR
    }
}
