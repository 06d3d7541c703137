//! `sow openings kiothi[:five]`: the openings page's model. The book's best
//! first moves and North's best replies to them, the full scan's counts and
//! score histogram, and the trust measures of the issue that asked for the
//! page: the scan's filter against the reply search, the book's best moves
//! against an independent reply search with ten times the nodes, and the
//! book's top ten against the same build stopped at a quarter of its
//! expansions. Every value is RULES §0's future margin for South.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use super::book_match::{book_match, StrengthMatch};
use crate::book::build::{grow, new_book, RunLimits};
use crate::book::fit::Sample;
use crate::book::scan_provider::{ScanProvider, FIRST_MOVES_KEPT};
use crate::book::topk::Histogram;
use crate::book::trust::{first_move_filter, Recall};
use crate::book::{
    first_move_value, random_opening_move, scan_first_moves, Book, BookError, BookMove,
    EngineCandidates, MoveProvider, ReplyBudget,
};
use crate::games::game_name::GameName;
use crate::games::kiothi::{KiothiMove, KiothiPosition, OpeningMove, Setup};
use crate::infra::progress::Progress;
use crate::infra::rng::Rng;
use crate::Game;

/// First moves on the page, and how many of them get North's replies.
const BEST_SHOWN: usize = 20;
const REPLIED: usize = 5;
const REPLIES_SHOWN: usize = 5;
/// The book's best first moves checked by an independent reply search.
const EXPLOITED: usize = 10;
/// That search's nodes per engine search, as a multiple of the filter's.
const EXPLOIT_NODES: u64 = 10;
/// The stability measure compares the book's top ten with the top ten of
/// the same build stopped at a quarter of its expansions.
const STABILITY_TOP: usize = 10;
const STABILITY_FRACTION: u64 = 4;
/// Recall is measured at the scan's cut (`FIRST_MOVES_KEPT`, the first
/// moves the book draws from) and at cuts 10 and 100 times wider.
const RECALL_CUTS: [u64; 3] = [
    FIRST_MOVES_KEPT as u64,
    10 * FIRST_MOVES_KEPT as u64,
    100 * FIRST_MOVES_KEPT as u64,
];

/// The page's defaults: random first moves of the filter measure, their
/// seed, and games of each strength match.
pub const DEFAULT_SAMPLE: usize = 1000;
pub const TRUST_SEED: u64 = 1;
pub const DEFAULT_STRENGTH_GAMES: usize = 200;

/// What the page is made from.
pub struct PageRequest {
    pub setup: Setup,
    pub book: PathBuf,
    /// Random first moves valued by the reply search for the filter measure.
    pub sample: usize,
    /// Engine nodes per search of the filter's reply searches.
    pub reply_nodes: u64,
    /// Seed of the sample and of the reply searches (the exploitability
    /// searches use other seeds, derived from it).
    pub seed: u64,
    /// The command line written on the page.
    pub command: String,
    /// Seconds per move of each strength match, and its games.
    pub strength: Vec<f64>,
    pub strength_games: usize,
}

/// A move with its value for South and its depth (plies looked at).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ValuedMove {
    #[serde(rename = "move")]
    pub mv: String,
    pub value: i32,
    pub depth: u32,
}

/// A first move of the book with North's best replies to it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BookFirstMove {
    #[serde(rename = "move")]
    pub mv: String,
    pub value: i32,
    pub depth: u32,
    /// North's best book replies, best for North first (values for South).
    pub replies: Vec<ValuedMove>,
}

/// One of the book's best first moves against an independent reply search.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Exploit {
    #[serde(rename = "move")]
    pub mv: String,
    /// The book's value of the move, for South.
    pub book_value: i32,
    /// Minus the value of North's best reply found by the search.
    pub searched_value: i32,
    /// How far the search brings South below the book (0 when it does not).
    pub drop: i32,
    /// North's best reply found.
    pub reply: String,
    pub seed: u64,
    pub seconds: f64,
}

/// The book's top ten against the top ten of the same build stopped at a
/// quarter of its expansions (the same parameters and expansions give the
/// same book, so the smaller book is the larger one's past).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Stability {
    pub expansions: u64,
    pub quarter_expansions: u64,
    /// First moves in both top tens.
    pub overlap: usize,
    pub quarter_top: Vec<ValuedMove>,
    pub seconds: f64,
}

/// The trust figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Trust {
    /// First moves valued by the reply search.
    pub sample: usize,
    /// Rank correlation of their scan scores and values.
    pub spearman: f64,
    /// Recall of the scan's cut (the book's `FIRST_MOVES_KEPT`).
    pub recall: f64,
    /// Recall at wider cuts too.
    pub recall_cuts: Vec<Recall>,
    /// The sample's best 1 % by value.
    pub recall_top: usize,
    pub reply_budget: ReplyBudget,
    pub sample_seconds: f64,
    /// The largest drop of `exploit` (≤ 2 is the goal).
    pub exploit_max_drop: i32,
    pub exploit: Vec<Exploit>,
    /// `stability.overlap` out of ten, as a share.
    pub stability: f64,
    pub stability_detail: Stability,
    /// Matches of the engine with the book against the same engine
    /// choosing its opening among its candidate families, one per time
    /// asked for (`--strength`).
    #[serde(rename = "match")]
    pub matches: Vec<StrengthMatch>,
}

/// The book's build, as the page states it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BookInfo {
    pub file: String,
    pub bytes: u64,
    pub expansions: u64,
    pub engine_nodes: u64,
    pub leaf_nodes: u64,
    pub width: u32,
    pub depth_penalty: u32,
    pub max_ply: u32,
    pub seed: u64,
    pub provider: String,
}

/// `sow openings kiothi --json`, and `results/kiothi/openings.json`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BookOpenings {
    pub setup: String,
    /// Legal first moves (RULES §2.2).
    pub first_moves: u64,
    /// Distinct boards they leave, each scanned once.
    pub boards: u64,
    pub scan_seconds: f64,
    pub book_positions: usize,
    pub best: Vec<BookFirstMove>,
    pub trust: Trust,
    pub book: BookInfo,
    /// The start's value for South and its book depth.
    pub value: i32,
    pub depth: u32,
    /// The book's best line through turn 2, and the position it leaves.
    pub best_line: Vec<String>,
    pub after_turn_2: String,
    /// The scan's score of every board, in bins of one stone.
    pub histogram: Histogram,
    pub command: String,
    pub seconds: f64,
}

/// Builds the page's model: reads the book, scans every first move, and
/// measures the trust figures (the longest part), with progress.
pub fn book_openings(r: &PageRequest, progress: Progress) -> Result<BookOpenings, BookError> {
    let started = Instant::now();
    let book = Book::open(&r.book)?;
    let root = KiothiPosition::start(r.setup);
    if book.root().repetition_key() != root.repetition_key() {
        return Err(BookError::BadParameter {
            field: "book",
            message: format!(
                "{} is the book of {}, not of {}",
                r.book.display(),
                book.root(),
                GameName::Kiothi(r.setup)
            ),
        });
    }
    let entry = book.lookup(&root).expect("a book holds its root");
    let scan = scan_first_moves(r.setup, 1, progress)?;
    let histogram = scan.histogram.clone().unwrap_or_default();
    let budget = ReplyBudget {
        nodes: r.reply_nodes,
        ..ReplyBudget::default()
    };
    let sample = valued_sample(&root, r, &budget, progress)?;
    let filter = first_move_filter(&sample.0, &scan, &RECALL_CUTS)?;
    let exploit = exploits(&root, &entry.moves, r, &budget, progress)?;
    let stability = stability(&book, r.setup, &entry.moves, progress)?;
    let best_line = book.line(&root, 2);
    let after_turn_2 = best_line
        .iter()
        .fold(root, |p, m| p.play_move(m).unwrap_or(p));
    let params = book.params();
    Ok(BookOpenings {
        setup: GameName::Kiothi(r.setup).to_string(),
        first_moves: scan.moves,
        boards: scan.boards,
        scan_seconds: scan.seconds,
        book_positions: book.positions(),
        best: best_moves(&book, &root, &entry.moves),
        trust: Trust {
            sample: filter.sample,
            spearman: filter.spearman,
            recall: filter.recall[0].recall,
            recall_cuts: filter.recall,
            recall_top: filter.top,
            reply_budget: budget,
            sample_seconds: sample.1,
            exploit_max_drop: exploit.iter().map(|e| e.drop).max().unwrap_or(0),
            exploit,
            stability: stability.overlap as f64 / STABILITY_TOP as f64,
            stability_detail: stability,
            matches: strength(&book, r, progress),
        },
        book: BookInfo {
            file: r.book.display().to_string(),
            bytes: file_bytes(&r.book),
            expansions: book.state().expansions,
            engine_nodes: book.state().engine_nodes,
            leaf_nodes: params.leaf_nodes,
            width: params.width,
            depth_penalty: params.depth_penalty,
            max_ply: params.max_ply,
            seed: params.seed,
            provider: book.state().provider.clone(),
        },
        value: entry.value,
        depth: entry.depth,
        best_line: best_line.iter().map(KiothiMove::to_string).collect(),
        after_turn_2: after_turn_2.to_string(),
        histogram,
        command: r.command.clone(),
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The strength matches asked for, one after the other.
fn strength(book: &Book, r: &PageRequest, progress: Progress) -> Vec<StrengthMatch> {
    r.strength
        .iter()
        .map(|&seconds| {
            let label = format!("trust: strength at {seconds} s a move");
            let bar = progress.count(r.strength_games as u64, &label, "games");
            let m = book_match(book, seconds, r.strength_games, r.seed, &bar);
            bar.finish_and_clear();
            m
        })
        .collect()
}

fn file_bytes(path: &Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

/// The book's best first moves and, for the best few, North's best book
/// replies (a reply's value for South is minus its value for North).
fn best_moves(book: &Book, root: &KiothiPosition, moves: &[BookMove]) -> Vec<BookFirstMove> {
    moves
        .iter()
        .take(BEST_SHOWN)
        .enumerate()
        .map(|(i, m)| {
            let after = root.play_move(&m.mv).expect("a book move is legal");
            let replies = match (i < REPLIED, book.lookup(&after)) {
                (true, Some(e)) => e
                    .moves
                    .iter()
                    .take(REPLIES_SHOWN)
                    .map(|r| valued(r, -1))
                    .collect(),
                _ => Vec::new(),
            };
            let v = valued(m, 1);
            BookFirstMove {
                mv: v.mv,
                value: v.value,
                depth: v.depth,
                replies,
            }
        })
        .collect()
}

/// A book move with its value for its mover (`sign` 1) or for the other
/// side (`sign` -1).
fn valued(m: &BookMove, sign: i32) -> ValuedMove {
    ValuedMove {
        mv: m.mv.to_string(),
        value: sign * m.value,
        depth: m.depth,
    }
}

/// `r.sample` uniformly random first moves, each valued by the reply
/// search (in parallel over the moves); the seconds it took.
fn valued_sample(
    root: &KiothiPosition,
    r: &PageRequest,
    budget: &ReplyBudget,
    progress: Progress,
) -> Result<(Vec<Sample>, f64), BookError> {
    let t0 = Instant::now();
    let mut rng = Rng::new(r.seed);
    let moves: Vec<OpeningMove> = (0..r.sample)
        .filter_map(|_| random_opening_move(root, &mut rng))
        .collect();
    let bar = progress.count(moves.len() as u64, "trust: sample", "first moves");
    let samples = moves
        .par_iter()
        .enumerate()
        .map(|(i, mv)| {
            let v = first_move_value(root, mv, budget, r.seed.wrapping_add(i as u64))?;
            bar.inc(1);
            let board = root.play_opening(mv).pits();
            Ok(Sample {
                board,
                target: v.value as f64,
            })
        })
        .collect::<Result<Vec<_>, BookError>>()?;
    bar.finish_and_clear();
    Ok((samples, t0.elapsed().as_secs_f64()))
}

/// The book's best first moves, each against a reply search with ten
/// times the nodes and a seed of its own.
fn exploits(
    root: &KiothiPosition,
    moves: &[BookMove],
    r: &PageRequest,
    budget: &ReplyBudget,
    progress: Progress,
) -> Result<Vec<Exploit>, BookError> {
    let wide = ReplyBudget {
        nodes: budget.nodes.saturating_mul(EXPLOIT_NODES),
        ..budget.clone()
    };
    let best: Vec<&BookMove> = moves.iter().take(EXPLOITED).collect();
    let bar = progress.count(best.len() as u64, "trust: exploitability", "first moves");
    let found = best
        .par_iter()
        .enumerate()
        .map(|(i, m)| {
            let KiothiMove::Opening(opening) = m.mv else {
                unreachable!("a first move is an opening move")
            };
            let seed = r.seed ^ 0x9e37_79b9_7f4a_7c15_u64.wrapping_mul(i as u64 + 1);
            let v = first_move_value(root, &opening, &wide, seed)?;
            bar.inc(1);
            Ok(Exploit {
                mv: m.mv.to_string(),
                book_value: m.value,
                searched_value: v.value,
                drop: (m.value - v.value).max(0),
                reply: v.replies.best.mv.clone(),
                seed,
                seconds: v.replies.seconds,
            })
        })
        .collect::<Result<Vec<_>, BookError>>()?;
    bar.finish_and_clear();
    Ok(found)
}

/// The book rebuilt in memory to a quarter of its expansions, with its
/// parameters and provider, and the overlap of the two top tens.
fn stability(
    book: &Book,
    setup: Setup,
    moves: &[BookMove],
    progress: Progress,
) -> Result<Stability, BookError> {
    let t0 = Instant::now();
    let state = book.state();
    let quarter = state.expansions / STABILITY_FRACTION;
    let provider: Box<dyn MoveProvider> = match state.provider.as_str() {
        "candidates" => Box::new(EngineCandidates),
        _ => Box::new(ScanProvider::new(setup, FIRST_MOVES_KEPT, progress)?),
    };
    let mut small = new_book(*book.root(), state.params, provider.as_ref());
    let bar = progress.count(
        quarter,
        "trust: stability (book at a quarter)",
        "expansions",
    );
    let stop = AtomicBool::new(false);
    let limits = RunLimits {
        expansions: Some(quarter),
        deadline: None,
        stop: &stop,
    };
    grow(&mut small, provider.as_ref(), &limits, &mut |b| {
        bar.set_position(b.expansions);
        Ok::<(), BookError>(())
    })?;
    bar.finish_and_clear();
    let small = Book::from_state(small);
    let small_moves = small
        .lookup(small.root())
        .expect("a book holds its root")
        .moves;
    let top = |ms: &[BookMove]| -> Vec<String> {
        ms.iter()
            .take(STABILITY_TOP)
            .map(|m| m.mv.to_string())
            .collect()
    };
    let (big_top, small_top) = (top(moves), top(&small_moves));
    Ok(Stability {
        expansions: state.expansions,
        quarter_expansions: small.state().expansions,
        overlap: small_top.iter().filter(|m| big_top.contains(m)).count(),
        quarter_top: small_moves
            .iter()
            .take(STABILITY_TOP)
            .map(|m| valued(m, 1))
            .collect(),
        seconds: t0.elapsed().as_secs_f64(),
    })
}
