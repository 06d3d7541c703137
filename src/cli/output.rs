//! Printing: human text or exactly one JSON object on stdout, and the error
//! contract (one `error: ...` line on stderr, exit code 2, and with `--json`
//! also `{"error":{"kind","field","message"}}` on stdout).

use std::fmt;
use std::io::{self, Write};

use serde_json::Value;

pub use crate::error::CliError;
use crate::error::ErrorKind;

/// Exit code of every refused input or failed command.
pub const EXIT_ERROR: u8 = 2;

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

    /// Lines of human output (ignored in JSON mode).
    pub fn lines(&mut self, lines: Vec<String>) -> Result<(), CliError> {
        lines.into_iter().try_for_each(|l| self.line(l))
    }

    /// A command's result: its model as the JSON object, keys sorted (see
    /// [`Out::model_sorted`]), or the lines `text` renders of it.
    pub fn result<T: serde::Serialize>(
        &mut self,
        model: &T,
        text: impl FnOnce(&T) -> Vec<String>,
    ) -> Result<(), CliError> {
        match self.json {
            true => self.model_sorted(model),
            false => self.lines(text(model)),
        }
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
            let text = serde_json::to_string(model).map_err(|e| {
                CliError::new(
                    ErrorKind::Internal,
                    None,
                    format!("serializing output: {e}"),
                )
            })?;
            writeln!(self.w, "{text}")?;
        }
        Ok(())
    }

    /// A model as the command's JSON object, keys in alphabetical order at
    /// every level (see [`crate::infra::files::Sorted`]).
    pub fn model_sorted<T: serde::Serialize>(&mut self, model: &T) -> Result<(), CliError> {
        self.model(&crate::infra::files::Sorted(model))
    }

    /// Refuses `--json` for a command whose output is not data (a script,
    /// a man page): the contract promises one JSON object, which it cannot give.
    pub fn refuse_json(&self, command: &str, output: &str) -> Result<(), CliError> {
        if self.json {
            return Err(CliError::usage(
                "json",
                format!("sow {command} prints {output}: --json is not supported"),
            ));
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

/// What an [`Out`] wrote, for tests.
#[cfg(test)]
#[derive(Clone, Default)]
pub struct Captured(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

#[cfg(test)]
impl Captured {
    /// An [`Out`] writing here.
    pub fn out(&self, json: bool, quiet: bool) -> Out {
        Out::new(json, quiet, Box::new(self.clone()))
    }

    pub fn text(&self) -> String {
        String::from_utf8(self.0.borrow().clone()).expect("UTF-8")
    }
}

#[cfg(test)]
impl Write for Captured {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
