//! `sow serve`: the command-line flags of the web oracle (`crate::serve`
//! runs it).

use std::net::IpAddr;

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
