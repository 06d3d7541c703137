//! `sow serve`: the web oracle's flags, checked, then `crate::serve` bound,
//! its address printed and served until Ctrl-C.

use std::net::{IpAddr, SocketAddr};

use super::{CliError, Out};
use crate::analysis::{kiothi_tables, kpe_db};
use crate::search::Limits as SearchLimits;
use crate::serve::{AppState, Limits};

/// Serve the web oracle: a page to play and analyse both games in the
/// browser, and its JSON API (README, `sow serve`).
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// TCP port (0 picks a free one; the address is printed either way).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on (loopback by default: the oracle is for this
    /// machine; anything else exposes it to the network).
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: IpAddr,
    #[command(flatten)]
    pub db: super::paths::DbDir,
    /// Open the page in the desktop's browser (`xdg-open`).
    #[arg(long)]
    pub open: bool,
    /// Searches that may run at once; more wait their turn.
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub searches: u16,
    /// Longest search a request may ask for, in seconds (`time` is capped to it).
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub max_time: f64,
}

/// The largest `--max-time`, in seconds: a day.
pub const MAX_TIME_SECONDS: f64 = 86_400.0;

impl ServeArgs {
    /// `sow serve`: listens (loopback by default), prints the address,
    /// serves until Ctrl-C.
    pub fn run(&self, out: &mut Out) -> Result<(), CliError> {
        // Bounded: a request's time limit is a `Duration` (`--max-time 1e20`
        // overflowed it, a panic).
        // At least the shortest `time` a request may ask for, or every
        // search would be refused as the client's fault.
        if !(SearchLimits::takes_seconds(self.max_time) && self.max_time <= MAX_TIME_SECONDS) {
            return Err(CliError::usage(
                "max-time",
                format!(
                    "--max-time must be a number of seconds from {} to {MAX_TIME_SECONDS} (a day), found {}",
                    SearchLimits::MIN_SECONDS,
                    self.max_time
                ),
            ));
        }
        let tables = kiothi_tables::for_search(self.db.given())?;
        let state = AppState::new(
            kpe_db::db_dir(self.db.given()),
            Limits::new(self.searches as usize, self.max_time),
        )
        .with_kiothi_tables(tables);
        let server = crate::serve::bind(SocketAddr::new(self.bind, self.port))?;
        let url = format!("http://{}/", server.addr);
        // Scripts and tests read the address from this line; with `--json`
        // it is the command's one object, printed at once (the server runs
        // until Ctrl-C, and a script waits for the address).
        out.line(format!("sow serve: listening on {url} (Ctrl-C stops)"))?;
        out.json(&serde_json::json!({ "listening": url }))?;
        out.flush()?;
        if self.open {
            if let Err(e) = std::process::Command::new("xdg-open").arg(&url).spawn() {
                eprintln!("warning: could not open a browser ({e}); open {url} yourself");
            }
        }
        server.serve_until_ctrl_c(state);
        out.line("sow serve: stopped")?;
        Ok(())
    }
}
