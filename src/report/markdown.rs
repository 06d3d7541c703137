//! Markdown pieces shared by the report pages.

/// A Markdown table of moves and their values.
pub fn value_table<S: AsRef<str>>(
    header: &str,
    rows: impl IntoIterator<Item = (S, i64)>,
) -> String {
    let mut md = format!("| {header} |\n|---|---|\n");
    for (mv, value) in rows {
        md += &format!("| {} | {:+} |\n", mv.as_ref(), value);
    }
    md
}
