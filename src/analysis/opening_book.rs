//! `sow openings kiothi --budget | --expansions`: the opening book built or
//! extended (`book::extend`) with progress, and what the run did, as the
//! command prints it.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::book::extend::{extend, Extension, Requested};
use crate::book::scan_provider::{ScanProvider, FIRST_MOVES_KEPT};
use crate::book::{Book, BookError, BookState, EngineCandidates, MoveProvider, RunLimits, Stopped};
use crate::games::game_name::GameName;
use crate::games::kiothi::{KiothiPosition, Setup};
use crate::infra::progress::Progress;

/// Where the book's opening moves come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ProviderKind {
    /// The full scan's best first moves and the reply scan's best replies.
    Scan,
    /// The engine's candidate families (the comparison baseline).
    Candidates,
}

/// How often a build writes its book when no checkpoint period is given.
pub const DEFAULT_CHECKPOINT: Duration = Duration::from_secs(600);

/// How many of the best first moves a run reports.
const BEST_SHOWN: usize = 10;

/// A build asked for: the book file, when to stop (a budget of time or a
/// count of expansions), how often to write it, and a new book's settings.
pub struct BookBuild {
    pub path: PathBuf,
    pub setup: Setup,
    pub budget: Option<Duration>,
    pub expansions: Option<u64>,
    pub checkpoint: Duration,
    pub provider: Option<ProviderKind>,
    pub requested: Requested,
}

impl BookBuild {
    /// Builds or extends the book until the budget, the count or `stop`
    /// (Ctrl-C), with a bar of seconds or expansions.
    pub fn run(&self, progress: Progress, stop: &AtomicBool) -> Result<BookRun, BookError> {
        let started = Instant::now();
        let limits = RunLimits {
            expansions: self.expansions,
            deadline: self.budget.map(|d| started + d),
            stop,
        };
        let bar = match self.budget {
            Some(d) => progress.count(d.as_secs().max(1), "book", "s"),
            None => progress.count(self.expansions.unwrap_or(0), "book", "expansions"),
        };
        let mut on_batch = |b: &BookState| {
            match self.budget {
                Some(_) => bar.set_position(started.elapsed().as_secs()),
                None => bar.set_position(b.expansions),
            }
            let (positions, value) = (b.dag.len(), b.dag.root().value);
            bar.set_message(format!("{positions} positions, start {value:+}"));
        };
        let provider = self.provider(&progress)?;
        let root = KiothiPosition::start(self.setup);
        let run = extend(
            &self.path,
            &root,
            &self.requested,
            provider.as_ref(),
            &limits,
            self.checkpoint,
            &mut on_batch,
        );
        bar.finish_and_clear();
        Ok(BookRun::new(
            &self.path,
            self.setup,
            &run?,
            started.elapsed().as_secs_f64(),
        ))
    }

    /// The provider asked for, or the existing book's, or the scan's.
    fn provider(&self, progress: &Progress) -> Result<Box<dyn MoveProvider>, BookError> {
        let chosen = match self.provider {
            Some(p) => p,
            None if self.path.exists() => match Book::open(&self.path)?.state().provider.as_str() {
                "candidates" => ProviderKind::Candidates,
                _ => ProviderKind::Scan,
            },
            None => ProviderKind::Scan,
        };
        Ok(match chosen {
            ProviderKind::Candidates => Box::new(EngineCandidates),
            ProviderKind::Scan => {
                Box::new(ScanProvider::new(self.setup, FIRST_MOVES_KEPT, *progress)?)
            }
        })
    }
}

/// A book move in the command's output.
#[derive(Serialize)]
pub struct BestMove {
    #[serde(rename = "move")]
    pub mv: String,
    pub value: i32,
    pub depth: u32,
}

/// What `sow openings kiothi --budget` prints.
#[derive(Serialize)]
pub struct BookRun {
    pub book: String,
    pub setup: String,
    pub positions: usize,
    pub edges: usize,
    pub expansions: u64,
    pub added_positions: usize,
    pub added_expansions: u64,
    pub engine_nodes: u64,
    pub file_bytes: u64,
    pub seconds: f64,
    pub stopped: &'static str,
    pub interrupted: bool,
    /// The start's value for South, its book depth and its book moves.
    pub value: i32,
    pub depth: u32,
    pub moves: usize,
    pub best: Vec<BestMove>,
    pub seed: u64,
    pub leaf_nodes: u64,
    pub batch: u32,
    pub width: u32,
    pub depth_penalty: u32,
    pub max_ply: u32,
    pub provider: String,
}

impl BookRun {
    pub fn new(path: &Path, setup: Setup, run: &Extension, seconds: f64) -> BookRun {
        let b = &run.book;
        let book = Book::from_state(b.clone());
        let entry = book.lookup(b.root()).expect("the root is in its book");
        let p = &b.params;
        BookRun {
            book: path.display().to_string(),
            setup: GameName::Kiothi(setup).to_string(),
            positions: b.dag.len(),
            edges: b.dag.edge_count(),
            expansions: b.expansions,
            added_positions: run.added_positions,
            added_expansions: run.added_expansions,
            engine_nodes: b.engine_nodes,
            file_bytes: run.file_bytes,
            seconds,
            stopped: run.stopped.token(),
            interrupted: run.stopped == Stopped::Interrupted,
            value: entry.value,
            depth: entry.depth,
            moves: entry.moves.len(),
            best: entry
                .moves
                .iter()
                .take(BEST_SHOWN)
                .map(|m| BestMove {
                    mv: m.mv.to_string(),
                    value: m.value,
                    depth: m.depth,
                })
                .collect(),
            seed: p.seed,
            leaf_nodes: p.leaf_nodes,
            batch: p.batch,
            width: p.width,
            depth_penalty: p.depth_penalty,
            max_ply: p.max_ply,
            provider: b.provider.clone(),
        }
    }
}
