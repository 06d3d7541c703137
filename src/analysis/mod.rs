//! Analysis: what the command line and the web server compute about games
//! and print, as typed models (`#[derive(Serialize)]`) shared by both.

pub mod position_models;
