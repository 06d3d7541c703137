//! Markdown pieces shared by the report pages.

use serde_json::Value;

/// The strings of a JSON array (moves of a line).
pub fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m.as_str())
        .collect()
}

/// A Markdown table of `{"move","value"}` objects.
pub fn value_table(header: &str, moves: &Value) -> String {
    let mut md = format!("| {header} |\n|---|---|\n");
    for m in moves.as_array().into_iter().flatten() {
        md += &format!(
            "| {} | {:+} |\n",
            m["move"].as_str().unwrap_or(""),
            m["value"].as_i64().unwrap_or(0)
        );
    }
    md
}
