//! The man page (roff, section 1) of a clap command line: clap_mangen's
//! page for the top command, then one section per subcommand with its
//! usage and flags (clap_mangen renders one command per page; `sow` keeps
//! one page).

use crate::error::CliError;

/// The page: clap_mangen's for the top command (name, synopsis, global
/// options, the list of subcommands), then a section per subcommand.
pub fn page(cmd: &clap::Command) -> Result<Vec<u8>, CliError> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut buf)?;
    let mut cmd = cmd.clone();
    cmd.build();
    let top = cmd.get_name().to_uppercase();
    for sub in cmd.get_subcommands_mut().filter(|s| !s.is_hide_set()) {
        let mut text = format!(".SH \"{top} {}\"\n", sub.get_name().to_uppercase());
        text += &format!(".PP\n{}\n", escape(&sub.render_usage().to_string()));
        if let Some(about) = sub.get_long_about().or(sub.get_about()) {
            text += &format!(".PP\n{}\n", escape(&about.to_string()));
        }
        for arg in sub
            .get_arguments()
            .filter(|a| !a.is_hide_set() && !a.is_global_set())
        {
            let mut name = match (arg.get_long(), arg.get_short()) {
                (Some(l), Some(s)) => format!("\\fB\\-{s}\\fR, \\fB\\-\\-{l}\\fR"),
                (Some(l), None) => format!("\\fB\\-\\-{l}\\fR"),
                (None, Some(s)) => format!("\\fB\\-{s}\\fR"),
                (None, None) => format!("<{}>", arg.get_id().as_str().to_uppercase()),
            };
            if arg.get_long().is_some() || arg.get_short().is_some() {
                for v in arg.get_value_names().into_iter().flatten() {
                    name += &format!(" \\fI<{v}>\\fR");
                }
            }
            let help = arg
                .get_long_help()
                .or(arg.get_help())
                .map(|h| h.to_string());
            text += &format!(".TP\n{name}\n{}\n", escape(&help.unwrap_or_default()));
        }
        buf.extend(text.into_bytes());
    }
    Ok(buf)
}

/// roff text: backslashes escaped, no line starting with a control character.
fn escape(text: &str) -> String {
    text.replace('\\', "\\e")
        .lines()
        .map(|l| {
            if l.starts_with('.') || l.starts_with('\'') {
                format!("\\&{l}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
