//! The web oracle: its HTTP API in-process, and the page in a real browser.

mod api;
mod browser;
#[path = "../common/mod.rs"]
mod common;
