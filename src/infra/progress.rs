//! Progress bars for every long job: drawn on stderr when it is a terminal,
//! silent when it is piped or with `--quiet` / `--json`.
//!
//! Engine and analysis code takes a ready `ProgressBar` (a hidden one costs
//! nothing) and only calls `inc`, `set_length`, `set_message` or `println`;
//! the commands choose whether it is shown with `Progress::auto` and its
//! look with one of the constructors below.

use std::io::IsTerminal;

pub use indicatif::ProgressBar;
use indicatif::ProgressStyle;

/// Whether long jobs should draw progress bars.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    Shown,
    Hidden,
}

/// Labels are right-aligned to this width so stacked bars line up.
const TEMPLATE_RATE: &str = "{prefix:>12} [{bar:30}] {human_pos}/{human_len} {per_sec} {msg}";

impl Progress {
    /// Shown when stderr is a terminal, unless `quiet` (the commands pass
    /// `--quiet || --json`).
    pub fn auto(quiet: bool) -> Self {
        if !quiet && std::io::stderr().is_terminal() {
            Progress::Shown
        } else {
            Progress::Hidden
        }
    }

    /// A bar counting positions, with a rate.
    pub fn bar(self, len: u64, label: impl Into<String>) -> ProgressBar {
        self.styled(len, label, TEMPLATE_RATE.to_string())
    }

    /// A bar counting `unit`s done out of `len` (e.g. `games`), with the
    /// time left; the message (set by the job) follows.
    pub fn count(self, len: u64, label: impl Into<String>, unit: &str) -> ProgressBar {
        let template = format!(
            "{{prefix:>12}} [{{bar:30}}] {{human_pos}}/{{human_len}} {unit}, ETA {{eta}} {{msg}}"
        );
        self.styled(len, label, template)
    }

    /// A spinner for a job of unknown length, with the elapsed time; the
    /// message (set by the job, e.g. the bounds proved so far) follows.
    pub fn spinner(self, label: impl Into<String>) -> ProgressBar {
        match self {
            Progress::Hidden => ProgressBar::hidden(),
            Progress::Shown => {
                let bar = ProgressBar::new_spinner();
                bar.set_style(
                    ProgressStyle::with_template("{prefix:>12} {spinner} {msg} ({elapsed})")
                        .expect("static template"),
                );
                bar.set_prefix(label.into());
                bar.enable_steady_tick(std::time::Duration::from_millis(200));
                bar
            }
        }
    }

    fn styled(self, len: u64, label: impl Into<String>, template: String) -> ProgressBar {
        match self {
            Progress::Hidden => ProgressBar::hidden(),
            Progress::Shown => {
                let bar = ProgressBar::new(len);
                bar.set_style(
                    ProgressStyle::with_template(&template)
                        .expect("static template")
                        .progress_chars("=> "),
                );
                bar.set_prefix(label.into());
                bar
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_when_quiet_and_every_style_builds() {
        assert_eq!(Progress::auto(true), Progress::Hidden);
        for p in [Progress::Shown, Progress::Hidden] {
            let bar = p.count(10, "games", "games");
            bar.inc(3);
            assert_eq!(bar.position(), 3);
            bar.finish_and_clear();
            p.bar(5, "layer").finish_and_clear();
            let spin = p.spinner("proving");
            spin.set_message("depth 3");
            spin.finish_and_clear();
        }
    }
}
