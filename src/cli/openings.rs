//! `sow openings GAME`: the opening page of a game, written as Markdown
//! and JSON under `--out` (Kpé: exact, from the solved database; Kiothi:
//! from the opening book, the full scan and the trust measures); with
//! `--budget` or `--expansions`, Kiothi's opening book built or extended
//! instead (`crate::book`); with `--scan`, every first move scanned.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::args::{self, bounded};
use super::{CliError, Out};
use crate::analysis::book_openings::{book_openings, PageRequest};
use crate::analysis::book_openings::{DEFAULT_SAMPLE, DEFAULT_STRENGTH_GAMES, TRUST_SEED};
use crate::analysis::kpe_openings;
use crate::analysis::opening_book::{BookBuild, ProviderKind, DEFAULT_CHECKPOINT};
use crate::book::extend::Requested;
use crate::book::{default_path, scan_first_moves, ReplyBudget};
use crate::games::game_name::{parse_game, GameName};
use crate::games::kiothi::Setup;
use crate::games::kpe::KpeVariant;
use crate::infra::progress::Progress;
use crate::report::opening_book::{run_text, scan_text};
use crate::report::{book_openings as book_page, kpe_openings as kpe_page};

/// `sow openings`: its command line.
#[derive(clap::Args, Debug)]
pub struct OpeningsArgs {
    /// `kpe`, `kpe:WxK`, `kiothi` or `kiothi:five`.
    #[arg(value_parser = parse_game)]
    pub game: GameName,
    #[command(flatten)]
    pub db: super::paths::DbDir,
    /// Directory of the reports.
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub out: PathBuf,
    /// Kiothi: scan every first move of the setup (RULES §2.2), scored by
    /// the opening evaluation E1, and print the best and the histogram;
    /// nothing is written.
    #[arg(long)]
    pub scan: bool,
    /// With --scan: how many of the best first moves to print (default 20).
    #[arg(long, value_name = "N", value_parser = |t: &str| bounded::<usize>("keep", t, 1, 1_000_000), requires = "scan")]
    pub keep: Option<usize>,
    #[command(flatten)]
    pub book: BookArgs,
    /// Kiothi page: random first moves valued by the reply search to
    /// measure the scan's filter (default 1000).
    #[arg(long, value_name = "N", value_parser = |t: &str| bounded::<usize>("sample", t, 1, 1_000_000))]
    pub sample: Option<usize>,
    /// Kiothi page: engine nodes per search of the reply searches (the
    /// exploitability check uses ten times as many). Default 10000.
    #[arg(long, value_name = "N", value_parser = |t: &str| bounded::<u64>("reply-nodes", t, 1, 1 << 32))]
    pub reply_nodes: Option<u64>,
    /// Kiothi page: a strength match at this many seconds a move (the
    /// engine with the book against the engine without it, from the
    /// setup); repeat for several times.
    #[arg(long, value_name = "SECONDS", value_parser = args::seconds)]
    pub strength: Vec<f64>,
    /// Kiothi page: games of each strength match (default 200).
    #[arg(long, value_name = "N", value_parser = args::games)]
    pub strength_games: Option<usize>,
}

/// The opening book's flags (Kiothi).
#[derive(clap::Args, Debug, Default)]
pub struct BookArgs {
    /// Build or extend the book for this long: 90s, 45m, 2h, 1h30m, or
    /// plain seconds.
    #[arg(long, value_name = "DURATION", value_parser = |t: &str| args::duration("budget", t))]
    pub budget: Option<Duration>,
    /// Build or extend the book until it counts N expansions in all (the
    /// same N gives the same book, whatever the threads and the stops).
    #[arg(long, value_name = "N", value_parser = |t: &str| bounded::<u64>("expansions", t, 1, u32::MAX as u64))]
    pub expansions: Option<u64>,
    /// The book file (default: data/kiothi/book-six.sowbook, or
    /// book-five.sowbook for kiothi:five).
    #[arg(long, value_name = "FILE")]
    pub book: Option<PathBuf>,
    /// New book: the seed (ties between equally urgent expansions; passed
    /// to the move provider). Default 1.
    #[arg(long, value_name = "N", value_parser = |t: &str| bounded::<u64>("seed", t, 0, u64::MAX))]
    pub seed: Option<u64>,
    /// New book: engine nodes per leaf search (default 50000).
    #[arg(long, value_name = "N", value_parser = |t: &str| bounded::<u64>("leaf-nodes", t, 1, 1 << 32))]
    pub leaf_nodes: Option<u64>,
    /// New book: expansions chosen together, then valued in parallel (default 8).
    #[arg(long, value_name = "N", value_parser = |t: &str| bounded::<u32>("batch", t, 1, 4096))]
    pub batch: Option<u32>,
    /// New book: moves of an opening position taken from the move provider
    /// at first, and added by each widening (default 16).
    #[arg(long, value_name = "N", value_parser = |t: &str| bounded::<u32>("width", t, 1, 1 << 20))]
    pub width: Option<u32>,
    /// New book: drop-out expansion's depth penalty, in warriors per ply (0:
    /// plain best-first; large: breadth-first). Default 3.
    #[arg(long, value_name = "N", value_parser = |t: &str| bounded::<u32>("depth-penalty", t, 0, 1_000_000))]
    pub depth_penalty: Option<u32>,
    /// New book: plies from the start that are not expanded (turns 1 and 2
    /// are plies 0 and 1). Default 12.
    #[arg(long, value_name = "N", value_parser = |t: &str| bounded::<u32>("max-ply", t, 1, 200))]
    pub max_ply: Option<u32>,
    /// Write the book at least this often while building (default 10m).
    #[arg(long, value_name = "DURATION", value_parser = |t: &str| args::duration("checkpoint", t))]
    pub checkpoint: Option<Duration>,
    /// New book: where its moves at turns 1 and 2 come from (default
    /// scan; an existing book keeps its own).
    #[arg(long, value_enum, value_name = "PROVIDER")]
    pub provider: Option<ProviderKind>,
}

impl BookArgs {
    /// Whether the book is to be built (a budget given).
    fn builds(&self) -> bool {
        self.budget.is_some() || self.expansions.is_some()
    }

    /// The first book flag given, if any.
    fn first_given(&self) -> Option<&'static str> {
        [
            ("budget", self.budget.is_some()),
            ("expansions", self.expansions.is_some()),
            ("book", self.book.is_some()),
            ("seed", self.seed.is_some()),
            ("leaf-nodes", self.leaf_nodes.is_some()),
            ("batch", self.batch.is_some()),
            ("width", self.width.is_some()),
            ("depth-penalty", self.depth_penalty.is_some()),
            ("max-ply", self.max_ply.is_some()),
            ("checkpoint", self.checkpoint.is_some()),
            ("provider", self.provider.is_some()),
        ]
        .into_iter()
        .find(|(_, given)| *given)
        .map(|(flag, _)| flag)
    }

    fn requested(&self) -> Requested {
        Requested {
            seed: self.seed,
            leaf_nodes: self.leaf_nodes,
            batch: self.batch,
            width: self.width,
            depth_penalty: self.depth_penalty,
            max_ply: self.max_ply,
        }
    }
}

impl OpeningsArgs {
    pub fn run(&self, out: &mut Out) -> Result<(), CliError> {
        super::paths::check_out_dir("out", &self.out)?;
        self.refuse_other_games_flags()?;
        if let GameName::Kiothi(setup) = self.game {
            if self.scan {
                return run_scan(setup, self.keep.unwrap_or(DEFAULT_KEEP), out);
            }
            if self.book.builds() {
                return run_book(setup, &self.book, out);
            }
        }
        match self.game {
            GameName::Kiothi(setup) => self.run_page(setup, out),
            GameName::Kpe(v) => run_kpe(v, self.db.given(), &self.out, out),
        }
    }

    /// The Kiothi openings page from the book.
    fn run_page(&self, setup: Setup, out: &mut Out) -> Result<(), CliError> {
        let book = self.book.book.clone();
        let request = PageRequest {
            setup,
            book: book.unwrap_or_else(|| default_path(setup)),
            sample: self.sample.unwrap_or(DEFAULT_SAMPLE),
            reply_nodes: self.reply_nodes.unwrap_or(ReplyBudget::default().nodes),
            seed: TRUST_SEED,
            command: super::command_line(),
            strength: self.strength.clone(),
            strength_games: self.strength_games.unwrap_or(DEFAULT_STRENGTH_GAMES),
        };
        let progress = Progress::auto(out.quiet || out.json);
        let page = book_openings(&request, progress).map_err(|e| e.refusal("book"))?;
        let files = book_page::write(&page, setup, &self.out)?;
        out.result(&page, |p| book_page::text(p, &files))
    }

    /// A flag given that this game or mode does not use (each serves one
    /// game or one mode: given to another it was silently ignored).
    fn refuse_other_games_flags(&self) -> Result<(), CliError> {
        let page = [
            ("sample", self.sample.is_some()),
            ("reply-nodes", self.reply_nodes.is_some()),
            ("strength", !self.strength.is_empty()),
            ("strength-games", self.strength_games.is_some()),
        ];
        let page = page.into_iter().find(|f| f.1).map(|f| f.0);
        let book = self.book.first_given();
        let (flag, why) = match self.game {
            GameName::Kpe(_) => match (self.scan, book.or(page)) {
                (true, _) => ("scan", "is for Kiothi's opening redistribution"),
                (false, Some(flag)) => (flag, "is for Kiothi's opening book and page"),
                (false, None) => return Ok(()),
            },
            _ if self.db.given().is_some() => (
                "db",
                "is for Kpé's solved database; Kiothi openings are searched",
            ),
            _ if self.scan => match book.or(page) {
                Some(flag) => (
                    flag,
                    "does not go with --scan, which only scans the first moves",
                ),
                None => return Ok(()),
            },
            _ if self.book.builds() => match page {
                Some(flag) => (flag, "is a flag of the openings page, not of a book build"),
                None => return Ok(()),
            },
            _ => match book.filter(|&f| f != "book") {
                Some(flag) => (
                    flag,
                    "is a flag of the opening book, built with --budget or --expansions",
                ),
                None => return Ok(()),
            },
        };
        Err(CliError::usage(flag, format!("--{flag} {why}")))
    }
}

pub fn run_kpe(
    variant: KpeVariant,
    db: Option<&Path>,
    out_dir: &Path,
    out: &mut Out,
) -> Result<(), CliError> {
    let r = kpe_openings::report(variant, db, Progress::auto(out.quiet || out.json))?;
    let written = kpe_page::write(&r, variant, out_dir)?;
    out.result(&written, kpe_page::text)
}

/// First moves `--scan` prints when `--keep` is not given.
const DEFAULT_KEEP: usize = 20;

/// `sow openings kiothi --scan`: every first move scanned, the best printed.
fn run_scan(setup: Setup, keep: usize, out: &mut Out) -> Result<(), CliError> {
    let progress = Progress::auto(out.quiet || out.json);
    let scan = scan_first_moves(setup, keep, progress).map_err(|e| e.refusal("keep"))?;
    out.result(&scan, scan_text)
}

/// `sow openings kiothi --budget D | --expansions N`: builds or extends the book.
fn run_book(setup: Setup, a: &BookArgs, out: &mut Out) -> Result<(), CliError> {
    let path = a.book.clone().unwrap_or_else(|| default_path(setup));
    super::paths::check_out_file("book", &path)?;
    let build = BookBuild {
        path,
        setup,
        budget: a.budget,
        expansions: a.expansions,
        checkpoint: a.checkpoint.unwrap_or(DEFAULT_CHECKPOINT),
        provider: a.provider,
        requested: a.requested(),
    };
    let stop = crate::infra::interrupt::ctrl_c_flag();
    let run = build.run(Progress::auto(out.quiet || out.json), &stop);
    out.result(&run.map_err(|e| e.refusal("book"))?, run_text)
}
