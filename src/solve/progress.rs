//! Progress bars that show on a terminal and stay silent otherwise.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

/// Whether long jobs should draw progress bars.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    Shown,
    Hidden,
}

impl Progress {
    /// Shown on a terminal unless `quiet`.
    pub fn auto(quiet: bool) -> Self {
        if !quiet && std::io::stderr().is_terminal() {
            Progress::Shown
        } else {
            Progress::Hidden
        }
    }

    /// A bar counting positions, with a rate.
    pub fn bar(self, len: u64, label: impl Into<String>) -> ProgressBar {
        match self {
            Progress::Hidden => ProgressBar::hidden(),
            Progress::Shown => {
                let bar = ProgressBar::new(len);
                bar.set_style(
                    ProgressStyle::with_template(
                        "{prefix:>12} [{bar:30}] {human_pos}/{human_len} {per_sec} {msg}",
                    )
                    .expect("static template")
                    .progress_chars("=> "),
                );
                bar.set_prefix(label.into());
                bar
            }
        }
    }
}
