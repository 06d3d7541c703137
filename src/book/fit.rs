//! Fitting the opening evaluations: training data (boards valued by the
//! engine or by the reply search), ridge least squares, and the models
//! file. `scripts/book_refit.sh` runs it end to end.

use std::fmt::Write as _;

use rayon::prelude::*;
use serde::Serialize;

use crate::games::kiothi::{KiothiMove, KiothiPosition, OpeningMove, Setup, PITS};
use crate::infra::progress::ProgressBar;
use crate::infra::rng::Rng;

use super::best_k::{best_k, best_k_per_lift};
use super::correlation::spearman;
use super::engine::EngineValuer;
use super::error::BookError;
use super::model::{Layout, Model, Stage, TableEval};
use super::reply::{first_move_value_with, ReplyBudget};
use super::ridge::NormalEquations;
use super::sample::random_opening_move;
use super::scan::two_ply_score;
use super::score::stones;
use super::turn::OpeningTurn;

/// A board and the value a model is fitted to (stones, for the player who
/// just moved).
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub board: [u8; PITS],
    pub target: f64,
}

/// How well a model fits a set of samples.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FitQuality {
    pub samples: usize,
    pub rmse: f64,
    pub mae: f64,
    /// Rank correlation between prediction and target.
    pub spearman: f64,
    /// The same errors for the constant model (the mean), for scale.
    pub rmse_constant: f64,
}

/// The layouts the shipped models use.
pub fn default_layout(stage: Stage) -> Layout {
    match stage {
        Stage::AfterFirst => Layout {
            pit_edges: (1..=12).chain([14, 17, 21]).collect(),
            column_edges: vec![1, 2, 3, 5, 7, 10],
            engine_features: false,
            south_capture: false,
            north_capture: false,
        },
        Stage::AfterReply => Layout {
            pit_edges: (1..=12).chain([14, 17, 21]).collect(),
            column_edges: vec![1, 2, 3, 5, 7, 10],
            engine_features: false,
            south_capture: true,
            north_capture: false,
        },
    }
}

/// Fits `layout` to `samples` with penalty `ridge` on every weight but
/// the bias.
pub fn fit_model(
    stage: Stage,
    layout: &Layout,
    samples: &[Sample],
    ridge: f64,
) -> Result<Model, BookError> {
    let mut ne = NormalEquations::new(layout.len());
    for s in samples {
        ne.add(&layout.row(stage, &s.board), s.target);
    }
    let mut lambda = vec![ridge; layout.len()];
    lambda[0] = 1e-9;
    let weights = ne.solve(&lambda).ok_or(BookError::BadParameter {
        field: "ridge",
        message: format!("the normal equations are singular with ridge {ridge}"),
    })?;
    Ok(Model {
        stage,
        layout: layout.clone(),
        weights,
    })
}

/// The errors of `predict` on `samples`.
pub fn quality(samples: &[Sample], predict: impl Fn(&[u8; PITS]) -> f64) -> FitQuality {
    let n = samples.len().max(1) as f64;
    let pred: Vec<f64> = samples.iter().map(|s| predict(&s.board)).collect();
    let target: Vec<f64> = samples.iter().map(|s| s.target).collect();
    let mean = target.iter().sum::<f64>() / n;
    let err = |f: &dyn Fn(usize) -> f64| {
        let sq = (0..samples.len())
            .map(|i| (f(i) - target[i]).powi(2))
            .sum::<f64>();
        (sq / n).sqrt()
    };
    FitQuality {
        samples: samples.len(),
        rmse: err(&|i| pred[i]),
        mae: (0..samples.len())
            .map(|i| (pred[i] - target[i]).abs())
            .sum::<f64>()
            / n,
        spearman: spearman(&pred, &target),
        rmse_constant: err(&|_| mean),
    }
}

/// A random turn-2 position: the setup after a uniformly random first move.
pub fn random_turn2(setup: Setup, rng: &mut Rng) -> KiothiPosition {
    let start = KiothiPosition::start(setup);
    let mv = random_opening_move(&start, rng).expect("the setup has moves");
    start.play_opening(&mv)
}

/// The engine's values, for North, of the boards `replies` leave from
/// their turn-2 positions (each search on one thread, in parallel).
fn value_replies(
    replies: &[(KiothiPosition, OpeningMove)],
    nodes: u64,
    bar: &ProgressBar,
) -> Vec<Sample> {
    replies
        .par_iter()
        .map_init(
            || EngineValuer::new(nodes),
            |v, (pos, mv)| {
                let child = pos.play_opening(mv);
                let r = v.value(&child);
                bar.inc(1);
                Sample {
                    board: child.pits(),
                    target: -r.value as f64,
                }
            },
        )
        .collect()
}

/// E2 data: boards after a random first move and a random reply, valued
/// for North by the engine with `nodes` nodes.
pub fn random_reply_samples(
    setup: Setup,
    count: usize,
    seed: u64,
    nodes: u64,
    bar: &ProgressBar,
) -> Vec<Sample> {
    let mut rng = Rng::new(seed);
    let replies: Vec<(KiothiPosition, OpeningMove)> = (0..count)
        .map(|_| {
            let pos = random_turn2(setup, &mut rng);
            let mv = random_opening_move(&pos, &mut rng).expect("North has replies");
            (pos, mv)
        })
        .collect();
    bar.set_length(count as u64);
    value_replies(&replies, nodes, bar)
}

/// E2 data where the reply scan must be right: the best `per` replies
/// under `e2` to `positions` (turn 2) and the best `per_lift` of each
/// lift set (at most `limit` boards examined per search), valued for
/// North by the engine.
pub fn shortlist_reply_samples(
    positions: &[KiothiPosition],
    e2: &TableEval,
    (per, per_lift): (usize, usize),
    limit: u64,
    nodes: u64,
    bar: &ProgressBar,
) -> Result<Vec<Sample>, BookError> {
    let mut replies = Vec::new();
    for pos in positions {
        let turn = OpeningTurn::expect(pos, 2)?;
        let mut best = best_k(&turn, e2, per, limit).best;
        if per_lift > 0 {
            best.extend(best_k_per_lift(&turn, e2, per_lift, limit).best);
        }
        best.sort_by_key(|e| (e.lift, e.placed));
        best.dedup();
        for e in best {
            let lift = &turn.lifts[e.lift as usize];
            replies.push((*pos, OpeningMove::new(lift.lifted(), e.placed)));
        }
    }
    bar.set_length(replies.len() as u64);
    Ok(value_replies(&replies, nodes, bar))
}

/// A first move valued by the reply search.
#[derive(Clone, Debug, PartialEq)]
pub struct FirstMoveSample {
    pub mv: OpeningMove,
    /// The board it leaves; `target` is its value for South.
    pub sample: Sample,
    /// North's best reply found.
    pub reply: String,
}

/// E1 data and the trust sample: first moves of `setup` valued by the
/// reply search (`first_move_value`), one after another (each reply
/// search uses every core).
pub fn value_first_moves(
    setup: Setup,
    moves: &[OpeningMove],
    e2: &TableEval,
    budget: &ReplyBudget,
    seed: u64,
    bar: &ProgressBar,
) -> Result<Vec<FirstMoveSample>, BookError> {
    let start = KiothiPosition::start(setup);
    bar.set_length(moves.len() as u64);
    moves
        .iter()
        .enumerate()
        .map(|(i, mv)| {
            let v = first_move_value_with(&start, mv, e2, budget, seed.wrapping_add(i as u64))?;
            bar.inc(1);
            Ok(FirstMoveSample {
                mv: *mv,
                sample: Sample {
                    board: start.play_opening(mv).pits(),
                    target: v.value as f64,
                },
                reply: v.replies.best.mv,
            })
        })
        .collect()
}

/// `count` uniformly random first moves of `setup`.
pub fn random_first_moves(setup: Setup, count: usize, seed: u64) -> Vec<OpeningMove> {
    let start = KiothiPosition::start(setup);
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|_| random_opening_move(&start, &mut rng).expect("the setup has moves"))
        .collect()
}

/// `count` random first moves of `setup` that drop the lifted warriors
/// into one to three pits (the shape of the engine's candidates and of the
/// scan's best moves, which uniform moves almost never take): a uniform
/// lift set, targets uniform among the 20 pits, warriors split at random.
pub fn concentrated_first_moves(setup: Setup, count: usize, seed: u64) -> Vec<OpeningMove> {
    let start = KiothiPosition::start(setup);
    let turn = OpeningTurn::expect(&start, 1).expect("a setup is turn 1");
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let lift = &turn.lifts[rng.below(turn.lifts.len())];
        let targets: Vec<usize> = (0..1 + rng.below(3)).map(|_| rng.below(PITS)).collect();
        let mut placed = [0u8; PITS];
        for _ in 0..lift.warriors {
            placed[targets[rng.below(targets.len())]] += 1;
        }
        let mv = OpeningMove::new(lift.lifted(), placed);
        if start.play_move(&KiothiMove::Opening(mv)).is_some() {
            out.push(mv);
        }
    }
    out
}

/// E1 data by distillation: the boards `moves` leave from the start of
/// `setup`, each valued for South by the two-ply estimate of the scans
/// (minus North's best reply under E2, `two_ply_score`), in parallel.
pub fn two_ply_samples(
    setup: Setup,
    moves: &[OpeningMove],
    limit: u64,
    bar: &ProgressBar,
) -> Result<Vec<Sample>, BookError> {
    let start = KiothiPosition::start(setup);
    bar.set_length(moves.len() as u64);
    moves
        .par_iter()
        .map(|mv| {
            let after = start.play_opening(mv);
            let v = two_ply_score(&after, limit)?;
            bar.inc(1);
            Ok(Sample {
                board: after.pits(),
                target: stones(v),
            })
        })
        .collect()
}

/// Samples as CSV: the 20 counts, then the target.
pub fn samples_csv(samples: &[Sample]) -> String {
    let mut out = String::new();
    let header: Vec<String> = (0..PITS).map(|p| format!("p{p}")).collect();
    let _ = writeln!(out, "{},target", header.join(","));
    for s in samples {
        let counts: Vec<String> = s.board.iter().map(|c| c.to_string()).collect();
        let _ = writeln!(out, "{},{}", counts.join(","), s.target);
    }
    out
}

/// Valued first moves as CSV: the board after the move and its value
/// (`samples_csv`'s columns), then the move and North's best reply,
/// quoted.
pub fn first_moves_csv(samples: &[FirstMoveSample], header: bool) -> String {
    let mut out = String::new();
    let counts: Vec<String> = (0..PITS).map(|p| format!("p{p}")).collect();
    if header {
        let _ = writeln!(out, "{},target,move,reply", counts.join(","));
    }
    for s in samples {
        let c: Vec<String> = s.sample.board.iter().map(|c| c.to_string()).collect();
        let _ = writeln!(
            out,
            "{},{},\"{}\",\"{}\"",
            c.join(","),
            s.sample.target,
            s.mv,
            s.reply
        );
    }
    out
}

/// Reads `samples_csv`'s format (and `first_moves_csv`'s, moves ignored).
pub fn samples_from_csv(text: &str) -> Result<Vec<Sample>, BookError> {
    let bad = |line: usize, what: &str| BookError::BadParameter {
        field: "samples",
        message: format!("line {line}: {what}"),
    };
    text.lines()
        .enumerate()
        .skip(1)
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, line)| {
            // Cells after the 21st (the moves of `first_moves_csv`) are notes.
            let cells: Vec<&str> = line.splitn(PITS + 2, ',').collect();
            if cells.len() < PITS + 1 {
                return Err(bad(i + 1, "expected 21 cells"));
            }
            let mut board = [0u8; PITS];
            for (b, c) in board.iter_mut().zip(&cells) {
                *b = c.trim().parse().map_err(|_| bad(i + 1, "a count"))?;
            }
            let target = cells[PITS]
                .trim()
                .parse()
                .map_err(|_| bad(i + 1, "the target"))?;
            Ok(Sample { board, target })
        })
        .collect()
}
