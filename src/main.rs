//! The `sow` binary: parses the command line and calls `sow::cli`.

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use sow::cli::{self, CliError, Out};

/// Large blocks on huge pages (`allocator.rs`).
#[global_allocator]
static ALLOCATOR: sow::infra::allocator::HugePages = sow::infra::allocator::HugePages;

/// Rules engines, perft and analysis for the mancala games Kpé and Kiothi.
///
/// POSITION is RULES §3 notation in one (quoted) argument, e.g.
/// "kpe 6,6,6,6,6,6,6,6 S .... ....", or a shortcut for a start position:
/// kpe, kpe:WxK (e.g. kpe:3x4), kiothi, kiothi:five.
#[derive(Parser, Debug)]
#[command(
    name = "sow",
    version,
    about,
    after_help = "POSITION is RULES §3 notation in one quoted argument, e.g.\n  \"kpe 6,6,6,6,6,6,6,6 S .... ....\"\nor a start-position shortcut: kpe, kpe:WxK (e.g. kpe:3x4), kiothi, kiothi:five.\n\nErrors: exit code 2, one `error: ...` line on stderr; with --json also\n{\"error\":{\"kind\",\"field\",\"message\"}} on stdout."
)]
struct Cli {
    /// Print exactly one JSON object on stdout (errors too).
    #[arg(long, global = true)]
    json: bool,
    /// Worker threads for parallel commands (default: all cores).
    #[arg(long, global = true, value_name = "N", value_parser = cli::args::threads)]
    threads: Option<usize>,
    /// Print only the essential result.
    #[arg(long, short, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Draw the board, whose turn it is, and the legal moves.
    Show(cli::show::ShowArgs),
    /// List the legal moves in notation, one a line.
    Moves(cli::moves::MovesArgs),
    /// Play moves in order; the last line is the final position.
    Apply(cli::apply::ApplyArgs),
    /// Count the move sequences of exactly DEPTH moves (RULES §4).
    Perft(cli::perft::PerftArgs),
    /// Solve exactly: a Kpé variant whole, Kiothi's endgame tables, or a
    /// Kiothi position's value.
    Solve(cli::solve::SolveArgs),
    /// Evaluate a position: exact for Kpé, by deep search for Kiothi.
    Eval(cli::eval::EvalArgs),
    /// Opening report of a game, written as Markdown and JSON under --out.
    Openings(cli::openings::OpeningsArgs),
    /// Play engine-versus-engine games: score, Elo and game records.
    Match(cli::matches::MatchArgs),
    /// Regenerate the reports (Markdown, JSON, CSV, SVG) under --out.
    Report(cli::report::ReportArgs),
    /// Solve the small Kpé variants and tabulate their start values.
    Variants(cli::variants::VariantsArgs),
    /// Value statistics per phase and stones on the board: exact for a
    /// solved Kpé variant, estimated by engine self-play for Kiothi.
    ///
    /// CSV columns: phase, stones, value, positions, and for Kpé never_ends
    /// (perfect play never ends). Kiothi: every distinct
    /// position reached in N seeded self-play games of the depth-D engine
    /// (random openings as `sow match`), valued by a fresh depth-D search on
    /// one thread; the JSON gives the method, games, depth and seed.
    Stats(cli::stats::StatsArgs),
    /// Stream the positions of a solved Kpé variant with their exact values
    /// as CSV.
    ///
    /// Columns: position (RULES §3 notation, quoted, mover as South;
    /// captures fill up the total), phase (unlocked | opening), stones (on
    /// the board), value (exact future margin for the mover, RULES §0),
    /// result (win | draw | loss for the mover). A layer holds every board
    /// of that many stones, reachable or not, in the database's order.
    Export(cli::export::ExportArgs),
    /// Serve the web oracle: play and analyse both games in the browser.
    ///
    /// The server reads no directory but --db.
    Serve(cli::serve::ServeArgs),
    /// Analyse a played game: every ply valued and marked (?? ? ?! !),
    /// per-player summaries, the ply at which the result was decided.
    Analyze(cli::analyze::AnalyzeArgs),
    /// Play against the oracle in the terminal (commands: a move, hint,
    /// undo, flip, save FILE, quit).
    Play(cli::play::PlayArgs),
    /// Tune the Kiothi evaluation: self-play data, then a least-squares fit.
    Tune(cli::tune::TuneArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions(cli::completions::CompletionsArgs),
    /// Print the man page (roff), every subcommand included.
    Man(cli::man::ManArgs),
}

fn main() -> ExitCode {
    sow::infra::limits::file_size_limit_as_error();
    // `args_os`: an argument that is not UTF-8 is clap's usage error, not
    // the panic of `std::env::args`.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let parsed = negative_values_reach_their_parsers(Cli::command())
        .try_get_matches_from(&args)
        .and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => return usage_error(e, args.iter().any(|a| a.as_os_str() == "--json")),
    };
    let mut out = Out::stdout(cli.json, cli.quiet);
    let result = run(&cli, &mut out).and_then(|()| out.flush().map_err(anyhow::Error::from));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let err = match e.downcast::<CliError>() {
                Ok(err) => err,
                Err(other) => {
                    CliError::new(sow::error::ErrorKind::Internal, None, format!("{other:#}"))
                }
            };
            ExitCode::from(out.fail(&err))
        }
    }
}

fn run(cli: &Cli, out: &mut Out) -> anyhow::Result<()> {
    if let Some(n) = cli.threads {
        sow::infra::limits::check_threads(n).map_err(|e| CliError::usage("threads", e))?;
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| CliError::usage("threads", format!("cannot start {n} threads: {e}")))?;
    }
    let threads = cli.threads.unwrap_or_else(rayon::current_num_threads);
    match &cli.command {
        Command::Serve(args) => args.run(out)?,
        Command::Show(args) => args.run(out)?,
        Command::Moves(args) => args.run(out)?,
        Command::Apply(args) => args.run(out)?,
        Command::Perft(args) => args.run(out)?,
        Command::Solve(args) => args.run(out)?,
        Command::Eval(args) => args.run(out)?,
        Command::Openings(args) => args.run(out)?,
        Command::Match(args) => args.run(out)?,
        Command::Report(args) => args.run(out)?,
        Command::Variants(args) => args.run(out)?,
        Command::Stats(args) => args.run(out)?,
        Command::Export(args) => args.run(out)?,
        Command::Tune(args) => args.run(out)?,
        Command::Analyze(args) => args.run(threads, out)?,
        Command::Play(args) => args.run(threads, out)?,
        Command::Completions(args) => cli::completions::run(args, &mut Cli::command(), out)?,
        Command::Man(args) => cli::man::run(args, &Cli::command(), out)?,
    }
    Ok(())
}

/// Every option and positional that takes a value accepts a negative
/// number, so that `--time -1` reaches `--time`'s own parser and is refused
/// naming `time` (clap alone reads `-1` as an unknown flag `-1`).
fn negative_values_reach_their_parsers(cmd: clap::Command) -> clap::Command {
    let ids: Vec<clap::Id> = cmd
        .get_arguments()
        .filter(|a| a.get_action().takes_values())
        .map(|a| a.get_id().clone())
        .collect();
    let cmd = ids.into_iter().fold(cmd, |cmd, id| {
        cmd.mut_arg(id, |a| a.allow_negative_numbers(true))
    });
    cmd.mut_subcommands(negative_values_reach_their_parsers)
}

/// Clap's own errors: help and version print normally; usage errors follow
/// the error contract (one line on stderr, exit 2, JSON object with --json).
fn usage_error(e: clap::Error, json: bool) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let code = if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
            cli::output::EXIT_ERROR
        } else {
            0
        };
        let _ = e.print();
        return ExitCode::from(code);
    }
    // A value parser's refusal (a game, a number out of range) is already
    // an error of the contract: printed as it is.
    if let Some(err) = std::error::Error::source(&e).and_then(|s| s.downcast_ref::<CliError>()) {
        let mut out = Out::stdout(json, false);
        return ExitCode::from(out.fail(err));
    }
    // The message is the text before clap's blank line / usage block,
    // joined into one line.
    let text = e.render().to_string();
    let first = text
        .split("\n\n")
        .next()
        .unwrap_or("invalid command line")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let first = first.trim_start_matches("error: ");
    // The field: the argument at fault, `<DEPTH>` -> `depth`, `--all` ->
    // `all`, `--format <FORMAT>` -> `format`.
    let field = match e.get(clap::error::ContextKind::InvalidArg) {
        Some(clap::error::ContextValue::String(s)) => Some(s.clone()),
        // Several arguments (two positionals missing): the first names it.
        Some(clap::error::ContextValue::Strings(v)) => v.first().cloned(),
        _ => None,
    }
    .map(|f| {
        let f = f.replace("...", "");
        let name = if f.starts_with('-') {
            f.split([' ', '=']).next().unwrap_or("")
        } else {
            &f
        };
        name.trim_matches(|c| c == '<' || c == '>' || c == '-')
            .to_lowercase()
    });
    let err = CliError::new(
        sow::error::ErrorKind::Usage,
        field.as_deref(),
        format!("{first} (see `sow --help`)"),
    );
    let mut out = Out::stdout(json, false);
    ExitCode::from(out.fail(&err))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    /// Every subcommand, as clap knows it (a new command is covered as soon
    /// as it is added to `Command`).
    fn subcommands() -> Vec<String> {
        let names: Vec<String> = Cli::command()
            .get_subcommands()
            .map(|s| s.get_name().to_string())
            .collect();
        for known in ["show", "perft", "completions", "man"] {
            assert!(names.iter().any(|n| n == known), "{names:?}");
        }
        names
    }

    #[test]
    fn completions_name_every_subcommand_in_every_shell() {
        for shell in clap_complete::Shell::value_variants() {
            let text = String::from_utf8(cli::completions::script(*shell, &mut Cli::command()))
                .expect("UTF-8");
            for name in subcommands() {
                assert!(text.contains(&name), "{shell:?} completions lack `{name}`");
            }
        }
    }

    #[test]
    fn man_page_has_a_section_for_every_subcommand() {
        let page = String::from_utf8(sow::report::man::page(&Cli::command()).unwrap()).unwrap();
        assert!(
            page.starts_with(".ie") || page.contains(".TH sow 1"),
            "{}",
            &page[..200]
        );
        for name in subcommands() {
            let heading = format!(".SH \"SOW {}\"", name.to_uppercase());
            assert!(page.contains(&heading), "man page lacks {heading}");
        }
        assert!(page.contains("max\\-nodes") || page.contains("max-nodes"));
    }
}
