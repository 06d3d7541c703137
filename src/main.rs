//! The `sow` binary: parses the command line and calls `sow::cli`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};
use sow::cli::{self, CliError, Out};

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
    #[arg(long, global = true, value_name = "N")]
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
    Show {
        /// Position (quoted notation or a shortcut).
        position: String,
    },
    /// List the legal moves in notation, one a line.
    Moves {
        /// Position (quoted notation or a shortcut).
        position: String,
        /// Enumerate the moves even when there are more than 10,000.
        #[arg(long)]
        all: bool,
    },
    /// Play moves in order; the last line is the final position.
    Apply {
        /// Position (quoted notation or a shortcut).
        position: String,
        /// Moves in notation (Kpé: a pit index such as `2`).
        #[arg(required = true, value_name = "MOVE")]
        moves: Vec<String>,
    },
    /// Count the move sequences of exactly DEPTH moves (RULES §4).
    Perft(cli::perft::PerftArgs),
    /// Solve a Kpé variant completely: endgame database and opening phase.
    Solve {
        /// `kpe` or `kpe:WxK`.
        game: String,
        /// Database directory (default: $SOW_DB, else ~/.local/share/sow).
        #[arg(long, value_name = "DIR")]
        db: Option<PathBuf>,
    },
    /// Evaluate a position: exact for Kpé, by deep search for Kiothi.
    Eval {
        /// Position (quoted notation or a shortcut).
        position: String,
        /// Kpé database directory (default: $SOW_DB, else ~/.local/share/sow).
        #[arg(long, value_name = "DIR")]
        db: Option<PathBuf>,
        /// Search depth limit (plies).
        #[arg(long)]
        depth: Option<u32>,
        /// Search time limit in seconds.
        #[arg(long, value_name = "SECONDS")]
        time: Option<f64>,
        /// Search node limit.
        #[arg(long)]
        nodes: Option<u64>,
        /// Transposition table size in MiB (search).
        #[arg(long, value_name = "MB", default_value_t = 256)]
        hash: usize,
        /// The N best moves with values and lines (by search: each move's
        /// child searched to the same depth, sharing the budget).
        #[arg(long, value_name = "N")]
        multipv: Option<usize>,
    },
    /// Opening report of a game, written as Markdown and JSON under --out.
    Openings {
        /// `kpe`, `kpe:WxK`, `kiothi` or `kiothi:five`.
        game: String,
        /// Kpé database directory.
        #[arg(long, value_name = "DIR")]
        db: Option<PathBuf>,
        /// Directory of the reports.
        #[arg(long, value_name = "DIR", default_value = "results")]
        out: PathBuf,
        /// Kiothi: search time per candidate, in seconds.
        #[arg(long, value_name = "SECONDS")]
        time: Option<f64>,
    },
    /// Play engine-versus-engine games: score, Elo and game records.
    Match {
        /// First agent: random, greedy, mcts:PLAYOUTS, ab:depth=D, ab:time=S (or `ab` with --time).
        a: String,
        /// Second agent.
        b: String,
        /// Start position of every game (`kiothi`, `kiothi:five`, `kpe`...).
        #[arg(long, default_value = "kiothi")]
        game: String,
        /// Number of games (each random opening is played twice, colours swapped).
        #[arg(long, default_value_t = 20)]
        games: usize,
        /// Seconds per move for an agent given as plain `ab`.
        #[arg(long, value_name = "SECONDS")]
        time: Option<f64>,
        /// Seed of the random openings and agents.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Random plies played before the agents take over (Kiothi: the two
        /// redistributions count as plies).
        #[arg(long, default_value_t = 4)]
        opening_plies: u32,
        /// Play only balanced openings: random openings whose expected final
        /// margin (stones captured in the opening plus the value of a
        /// one-thread search to --balance-depth) is within MARGIN stones of
        /// even (0: judged a draw).
        #[arg(long, value_name = "MARGIN")]
        balance: Option<i32>,
        /// Depth of the search that judges an opening's balance.
        #[arg(long, value_name = "PLIES", default_value_t = 8)]
        balance_depth: u32,
        /// Write the game records as JSON lines to this file.
        #[arg(long, value_name = "FILE")]
        records: Option<PathBuf>,
    },
    /// Regenerate the reports (Markdown, JSON, CSV, SVG) under --out.
    Report {
        /// Directory of the reports.
        #[arg(long, value_name = "DIR", default_value = "results")]
        out: PathBuf,
        /// Small variant and table, for a quick end-to-end run (CI).
        #[arg(long)]
        quick: bool,
        /// Database directory.
        #[arg(long, value_name = "DIR")]
        db: Option<PathBuf>,
        /// Regenerate one part only (the index keeps the other part's last report).
        #[arg(long, value_parser = ["kpe", "kiothi"])]
        only: Option<String>,
    },
    /// Solve the small Kpé variants and tabulate their start values.
    Variants {
        /// Database directory.
        #[arg(long, value_name = "DIR")]
        db: Option<PathBuf>,
        /// Directory of the reports.
        #[arg(long, value_name = "DIR", default_value = "results")]
        out: PathBuf,
        /// Largest variant to solve, in unlocked positions.
        #[arg(long, value_name = "N", default_value_t = 1_000_000_000)]
        max_positions: u64,
    },
    /// Value statistics per phase and stones on the board: exact for a
    /// solved Kpé variant, estimated by engine self-play for Kiothi.
    ///
    /// CSV columns: phase, stones, value, positions. Kiothi: every distinct
    /// position reached in N seeded self-play games of the depth-D engine
    /// (random openings as `sow match`), valued by a fresh depth-D search on
    /// one thread; the JSON gives the method, games, depth and seed.
    Stats {
        /// `kpe`, `kpe:WxK`, `kiothi` or `kiothi:five`.
        game: String,
        /// `csv` or `json`.
        #[arg(long, default_value = "csv")]
        format: String,
        /// Database directory.
        #[arg(long, value_name = "DIR")]
        db: Option<PathBuf>,
        /// Kiothi: self-play games (default 20).
        #[arg(long, value_name = "N")]
        games: Option<usize>,
        /// Kiothi: depth of the engine and of each estimate (default 5).
        #[arg(long, value_name = "D")]
        depth: Option<u32>,
        /// Kiothi: seed of the random openings (default 1).
        #[arg(long, value_name = "S")]
        seed: Option<u64>,
    },
    /// Stream the positions of a solved Kpé variant with their exact values
    /// as CSV.
    ///
    /// Columns: position (RULES §3 notation, quoted, mover as South;
    /// captures fill up the total), phase (unlocked | opening), stones (on
    /// the board), value (exact future margin for the mover, RULES §0),
    /// result (win | draw | loss for the mover). A layer holds every board
    /// of that many stones, reachable or not, in the database's order.
    Export {
        /// `kpe` or `kpe:WxK`.
        game: String,
        /// An unlocked layer (stones on the board: even, 0 to the total) or
        /// `all` (every layer, then the locked positions of the start).
        #[arg(long, value_name = "LAYER|all", allow_hyphen_values = true)]
        positions: String,
        /// Output format: `csv`.
        #[arg(long, default_value = "csv")]
        format: String,
        /// Database directory (default: $SOW_DB, else ~/.local/share/sow).
        #[arg(long, value_name = "DIR")]
        db: Option<PathBuf>,
        /// Write to FILE (atomically) instead of stdout.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Analyse a played game: every ply valued and marked (?? ? ?! !),
    /// per-player summaries, the ply at which the result was decided.
    Analyze(cli::analyze::AnalyzeArgs),
    /// Play against the oracle in the terminal (commands: a move, hint,
    /// undo, flip, save FILE, quit).
    Play(cli::play::PlayArgs),
    /// Tune the Kiothi evaluation: self-play data, then a least-squares fit.
    Tune {
        /// `kiothi` or `kiothi:five` (the start of the self-play games).
        game: String,
        /// Self-play games, each from its own random opening.
        #[arg(long, default_value_t = 2000)]
        games: usize,
        /// Fixed search depth of the self-play engine.
        #[arg(long, default_value_t = 4)]
        depth: u32,
        /// Seed of the random openings.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Random plies before the engines take over.
        #[arg(long, default_value_t = 4)]
        opening_plies: u32,
        /// Ridge penalty on every weight but the bias.
        #[arg(long, default_value_t = 1.0)]
        ridge: f64,
        /// Self-play data (CSV), written, or read with --fit-only.
        #[arg(long, value_name = "FILE", default_value = "data/kiothi/selfplay.csv")]
        data: PathBuf,
        /// Fitted weights (JSON); the engine compiles in data/kiothi/weights.json.
        #[arg(long, value_name = "FILE", default_value = "data/kiothi/weights.json")]
        out: PathBuf,
        /// Fit the --data file without playing games.
        #[arg(long)]
        fit_only: bool,
        /// Self-play with the hand-set evaluation instead of the compiled weights.
        #[arg(long)]
        hand_eval: bool,
    },
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions(cli::completions::CompletionsArgs),
    /// Print the man page (roff), every subcommand included.
    Man(cli::man::ManArgs),
}

fn main() -> ExitCode {
    sow::limits::file_size_limit_as_error();
    let args: Vec<String> = std::env::args().collect();
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => return usage_error(e, args.iter().any(|a| a == "--json")),
    };
    let mut out = Out::stdout(cli.json, cli.quiet);
    let result = run(&cli, &mut out).and_then(|()| out.flush().map_err(anyhow::Error::from));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let err = match e.downcast::<CliError>() {
                Ok(err) => err,
                Err(other) => CliError::new("internal", None, format!("{other:#}")),
            };
            ExitCode::from(out.fail(&err))
        }
    }
}

fn run(cli: &Cli, out: &mut Out) -> anyhow::Result<()> {
    if let Some(n) = cli.threads {
        sow::limits::check_threads(n).map_err(|e| CliError::usage("threads", e))?;
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| CliError::usage("threads", format!("cannot start {n} threads: {e}")))?;
    }
    let threads = cli.threads.unwrap_or_else(rayon::current_num_threads);
    match &cli.command {
        Command::Analyze(args) => cli::analyze::run(args, threads, out)?,
        Command::Play(args) => cli::play::run(args, threads, out)?,
        Command::Show { position } => cli::show::run(&parse(position)?, out)?,
        Command::Moves { position, all } => cli::moves::run(&parse(position)?, *all, out)?,
        Command::Apply { position, moves } => cli::apply::run(&parse(position)?, moves, out)?,
        Command::Perft(args) => cli::perft::run(args, &parse(&args.position)?, out)?,
        Command::Solve { game, db } => {
            cli::solve::run(cli::kpe_db::parse_kpe_game(game)?, db.as_deref(), out)?
        }
        Command::Eval {
            position,
            db,
            depth,
            time,
            nodes,
            hash,
            multipv,
        } => {
            let budget = cli::search_eval::Budget {
                depth: *depth,
                seconds: *time,
                nodes: *nodes,
                hash_mb: *hash,
                threads: cli.threads.unwrap_or_else(rayon::current_num_threads),
            };
            let searched = depth.is_some() || time.is_some() || nodes.is_some();
            match parse(position)? {
                cli::AnyPosition::Kpe(p) if !searched => {
                    cli::eval::run_kpe(&p, db.as_deref(), *multipv, out)?
                }
                cli::AnyPosition::Kpe(p) => cli::search_eval::run(&p, budget, *multipv, out)?,
                cli::AnyPosition::Kiothi(p) => cli::search_eval::run(&p, budget, *multipv, out)?,
            }
        }
        Command::Match {
            a,
            b,
            game,
            games,
            time,
            seed,
            opening_plies,
            balance,
            balance_depth,
            records,
        } => {
            let args = cli::matches::MatchArgs {
                a,
                b,
                games: *games,
                seconds: *time,
                seed: *seed,
                opening_plies: *opening_plies,
                balance: *balance,
                balance_depth: *balance_depth,
                records: records.as_deref(),
            };
            match parse(game)? {
                cli::AnyPosition::Kpe(p) => cli::matches::run(&p, &args, out)?,
                cli::AnyPosition::Kiothi(p) => cli::matches::run(&p, &args, out)?,
            }
        }
        Command::Openings {
            game,
            db,
            out: dir,
            time,
        } => match game.split(':').next() {
            Some("kiothi") => match parse(game)? {
                cli::AnyPosition::Kiothi(p) => {
                    let threads = cli.threads.unwrap_or_else(rayon::current_num_threads);
                    cli::kiothi_openings::run(&p, *time, threads, dir, out)?
                }
                cli::AnyPosition::Kpe(_) => {
                    return Err(CliError::usage("game", "expected a Kiothi game").into())
                }
            },
            _ => cli::openings::run(cli::kpe_db::parse_kpe_game(game)?, db.as_deref(), dir, out)?,
        },
        Command::Report {
            out: dir,
            quick,
            db,
            only,
        } => cli::report::run(db.as_deref(), dir, *quick, only.as_deref(), out)?,
        Command::Variants {
            db,
            out: dir,
            max_positions,
        } => cli::variants::run(db.as_deref(), dir, *max_positions, out)?,
        Command::Stats {
            game,
            format,
            db,
            games,
            depth,
            seed,
        } => {
            if game.starts_with("kiothi") {
                let plan = cli::kiothi_stats::SelfPlay::new(*games, *depth, *seed)?;
                cli::kiothi_stats::run(game, &plan, format, out)?
            } else {
                cli::kiothi_stats::refuse_for_kpe(*games, *depth, *seed)?;
                cli::stats::run(
                    cli::kpe_db::parse_kpe_game(game)?,
                    db.as_deref(),
                    format,
                    out,
                )?
            }
        }
        Command::Export {
            game,
            positions,
            format,
            db,
            out: file,
        } => cli::export::run(
            &cli::export::ExportArgs {
                variant: cli::kpe_db::parse_kpe_game(game)?,
                positions,
                format,
                db: db.as_deref(),
                out: file.as_deref(),
            },
            out,
        )?,
        Command::Tune {
            game,
            games,
            depth,
            seed,
            opening_plies,
            ridge,
            data,
            out: file,
            fit_only,
            hand_eval,
        } => {
            let args = cli::tune::TuneArgs {
                games: *games,
                depth: *depth,
                seed: *seed,
                opening_plies: *opening_plies,
                ridge: *ridge,
                data,
                out: file,
                fit_only: *fit_only,
                hand_eval: *hand_eval,
            };
            match parse(game)? {
                cli::AnyPosition::Kiothi(p) => cli::tune::run(&p, &args, out)?,
                cli::AnyPosition::Kpe(_) => {
                    return Err(CliError::usage("game", "sow tune supports Kiothi only").into())
                }
            }
        }
        Command::Completions(args) => cli::completions::run(args, &mut Cli::command(), out)?,
        Command::Man(args) => cli::man::run(args, &Cli::command(), out)?,
    }
    Ok(())
}

fn parse(text: &str) -> Result<cli::AnyPosition, CliError> {
    cli::parse_any(text).map_err(CliError::from)
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
    // The field: the argument at fault, `<DEPTH>` -> `depth`, `--all` -> `all`.
    let field = match e.get(clap::error::ContextKind::InvalidArg) {
        Some(clap::error::ContextValue::String(s)) => Some(s.clone()),
        Some(clap::error::ContextValue::Strings(v)) => Some(v.join(" ")),
        _ => None,
    }
    .map(|f| {
        f.replace("...", "")
            .trim_matches(|c| c == '<' || c == '>' || c == '-')
            .to_lowercase()
    });
    let err = CliError::new(
        "usage",
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
        let page = String::from_utf8(cli::man::page(&Cli::command()).unwrap()).unwrap();
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
