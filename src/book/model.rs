//! The opening evaluations: linear models over the board after a move,
//! fitted by ridge least squares (`fit`), turned into the scan's tables.
//!
//! A model scores one of two boards, for the player who just moved:
//! - `AfterFirst` (E1): the board after South's first move, North to
//!   move, nothing protected. It stands for minus North's best reply,
//!   since North's free redistribution follows (RULES §2.2).
//! - `AfterReply` (E2): the board after North's reply, South to move,
//!   every occupied pit protected (RULES §2.3). It stands for minus the
//!   engine's value of that position for South.
//!
//! Its terms: a bias; for each pit, one weight per bucket of its count;
//! for each column (a pit and the pit opposite it), one weight per pair
//! of count buckets; optionally the engine's own features
//! (`search::kiothi_eval::features`) of the position reached, for the
//! player to move there; and optionally each side's best immediate
//! capture (`best_capture`). The pit and column terms are the separable
//! part, which the scans build column by column; the others are the
//! whole-board term.

use serde::{Deserialize, Serialize};

use crate::game::Side;
use crate::games::kiothi::{opposite, KiothiPosition, Phase, Setup, PITS, ROW};
use crate::search::kiothi_eval::{features, FEATURES, FEATURE_NAMES};

use super::enumerate::ScanEvaluator;
use super::score::{MAX_COUNT, SCORE_SCALE};

/// Which board a model scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// After South's first move: North to move, scored for South.
    AfterFirst,
    /// After North's reply: South to move in play, scored for North.
    AfterReply,
}

impl Stage {
    /// The position reached, as the engine sees it.
    pub fn position(self, board: &[u8; PITS]) -> KiothiPosition {
        let mut p = KiothiPosition::start(Setup::SixPit);
        p.pits = *board;
        match self {
            Stage::AfterFirst => {
                p.side = Side::North;
                p.phase = Phase::Opening;
                p.protected = 0;
            }
            Stage::AfterReply => {
                p.side = Side::South;
                p.phase = Phase::Play;
                p.protected = board
                    .iter()
                    .enumerate()
                    .filter(|(_, &c)| c > 0)
                    .fold(0, |m, (i, _)| m | 1 << i);
            }
        }
        p
    }
}

/// The shape of a model: its buckets and whether it uses the engine's
/// features.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// Pit buckets: bucket `i + 1` starts at count `pit_edges[i]`.
    pub pit_edges: Vec<u8>,
    /// Column buckets, the same way.
    pub column_edges: Vec<u8>,
    /// Whether the engine's features (all but its bias) are terms.
    pub engine_features: bool,
    /// Whether South's best immediate capture is a term.
    #[serde(default)]
    pub south_capture: bool,
    /// Whether North's best immediate capture is a term.
    #[serde(default)]
    pub north_capture: bool,
}

/// The largest capture (warriors taken, ending warrior included: RULES
/// §2.7–2.9) that `side` can make by one move on `board` in the play
/// phase with every occupied pit protected — after North's reply, South's
/// threats at turn 3 exactly; elsewhere a measure of the threats the next
/// redistribution has to answer.
pub fn best_capture(board: &[u8; PITS], side: Side) -> i32 {
    let mut p = Stage::AfterReply.position(board);
    p.side = side;
    let mut best = 0;
    let _ = p.for_each_play_child(|_, child| {
        best = best.max(child.prisons()[side.index()] as i32);
        std::ops::ControlFlow::Continue(())
    });
    best
}

/// Bucket of `count` for `edges`.
#[inline]
fn bucket(edges: &[u8], count: u8) -> usize {
    edges.iter().take_while(|&&e| count >= e).count()
}

impl Layout {
    fn pit_buckets(&self) -> usize {
        self.pit_edges.len() + 1
    }

    fn column_buckets(&self) -> usize {
        self.column_edges.len() + 1
    }

    fn pit_base(&self) -> usize {
        1
    }

    fn column_base(&self) -> usize {
        self.pit_base() + PITS * self.pit_buckets()
    }

    fn engine_base(&self) -> usize {
        self.column_base() + ROW * self.column_buckets() * self.column_buckets()
    }

    fn capture_base(&self) -> usize {
        self.engine_base()
            + if self.engine_features {
                FEATURES - 1
            } else {
                0
            }
    }

    /// The sides whose best capture is a term, in weight order.
    fn capture_sides(&self) -> Vec<Side> {
        let mut out = Vec::new();
        if self.south_capture {
            out.push(Side::South);
        }
        if self.north_capture {
            out.push(Side::North);
        }
        out
    }

    /// Number of weights.
    pub fn len(&self) -> usize {
        self.capture_base() + self.capture_sides().len()
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    fn pit_index(&self, pit: usize, count: u8) -> usize {
        self.pit_base() + pit * self.pit_buckets() + bucket(&self.pit_edges, count)
    }

    fn column_index(&self, j: usize, south: u8, north: u8) -> usize {
        let nc = self.column_buckets();
        let (s, n) = (
            bucket(&self.column_edges, south),
            bucket(&self.column_edges, north),
        );
        self.column_base() + (j * nc + s) * nc + n
    }

    /// The terms of a board as (weight index, value) pairs.
    pub fn row(&self, stage: Stage, board: &[u8; PITS]) -> Vec<(usize, f64)> {
        let mut row = Vec::with_capacity(1 + PITS + ROW + FEATURES);
        row.push((0, 1.0));
        for (p, &c) in board.iter().enumerate() {
            row.push((self.pit_index(p, c), 1.0));
        }
        for j in 0..ROW {
            row.push((self.column_index(j, board[j], board[opposite(j)]), 1.0));
        }
        if self.engine_features {
            let f = features(&stage.position(board));
            for (i, &v) in f.iter().enumerate().skip(1) {
                row.push((self.engine_base() + i - 1, v as f64));
            }
        }
        for (i, side) in self.capture_sides().into_iter().enumerate() {
            row.push((self.capture_base() + i, best_capture(board, side) as f64));
        }
        row
    }

    /// Names of the weights, for reports.
    pub fn names(&self) -> Vec<String> {
        let mut out = vec!["bias".to_string()];
        for p in 0..PITS {
            for b in 0..self.pit_buckets() {
                out.push(format!("pit{p}:b{b}"));
            }
        }
        for j in 0..ROW {
            for s in 0..self.column_buckets() {
                for n in 0..self.column_buckets() {
                    out.push(format!("col{j}:s{s}:n{n}"));
                }
            }
        }
        if self.engine_features {
            out.extend(FEATURE_NAMES[1..].iter().map(|s| format!("engine:{s}")));
        }
        for side in self.capture_sides() {
            out.push(format!("capture:{}", side.letter()));
        }
        out
    }
}

/// A fitted model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Model {
    pub stage: Stage,
    pub layout: Layout,
    /// One weight per term, in stones.
    pub weights: Vec<f64>,
}

impl Model {
    /// The model's estimate for a board, in stones.
    pub fn predict(&self, board: &[u8; PITS]) -> f64 {
        self.layout
            .row(self.stage, board)
            .iter()
            .map(|&(i, v)| self.weights[i] * v)
            .sum()
    }

    /// Whether it has pit and column terms only.
    pub fn is_separable(&self) -> bool {
        !self.layout.engine_features && self.layout.capture_sides().is_empty()
    }

    /// The model as the scans' fixed-point tables.
    pub fn tables(&self) -> TableEval {
        let l = &self.layout;
        let fixed = |w: f64| (w * SCORE_SCALE as f64).round() as i32;
        let mut pit = vec![[0i32; MAX_COUNT + 1]; PITS];
        for (p, row) in pit.iter_mut().enumerate() {
            for (c, cell) in row.iter_mut().enumerate() {
                *cell = fixed(self.weights[l.pit_index(p, c as u8)]);
            }
        }
        // The bias rides on pit 0, which every board has.
        for cell in pit[0].iter_mut() {
            *cell += fixed(self.weights[0]);
        }
        let nc = l.column_buckets();
        let mut column = vec![0i32; ROW * nc * nc];
        for j in 0..ROW {
            for s in 0..nc {
                for n in 0..nc {
                    column[(j * nc + s) * nc + n] =
                        fixed(self.weights[l.column_base() + (j * nc + s) * nc + n]);
                }
            }
        }
        let mut column_bucket = [0u8; MAX_COUNT + 1];
        for (c, b) in column_bucket.iter_mut().enumerate() {
            *b = bucket(&l.column_edges, c as u8) as u8;
        }
        let engine = if l.engine_features {
            Some(std::array::from_fn(|i| {
                fixed(self.weights[l.engine_base() + i])
            }))
        } else {
            None
        };
        let captures = l
            .capture_sides()
            .into_iter()
            .enumerate()
            .map(|(i, side)| (side, fixed(self.weights[l.capture_base() + i])))
            .collect();
        TableEval {
            stage: self.stage,
            pit,
            column,
            column_buckets: nc,
            column_bucket,
            engine,
            captures,
        }
    }
}

/// A model in fixed point, as the scans read it.
pub struct TableEval {
    stage: Stage,
    pit: Vec<[i32; MAX_COUNT + 1]>,
    column: Vec<i32>,
    column_buckets: usize,
    column_bucket: [u8; MAX_COUNT + 1],
    /// Weights of the engine's features but its bias, if used.
    engine: Option<[i32; FEATURES - 1]>,
    /// The capture terms: side and weight.
    captures: Vec<(Side, i32)>,
}

impl ScanEvaluator for TableEval {
    #[inline]
    fn pit(&self, pit: usize, count: u8) -> i32 {
        self.pit[pit][(count as usize).min(MAX_COUNT)]
    }

    #[inline]
    fn column(&self, j: usize, south: u8, north: u8) -> i32 {
        let nc = self.column_buckets;
        let s = self.column_bucket[(south as usize).min(MAX_COUNT)] as usize;
        let n = self.column_bucket[(north as usize).min(MAX_COUNT)] as usize;
        self.column[(j * nc + s) * nc + n]
    }

    #[inline]
    fn board(&self, board: &[u8; PITS]) -> i32 {
        let mut s = 0;
        if let Some(w) = &self.engine {
            let f = features(&self.stage.position(board));
            s += w.iter().zip(&f[1..]).map(|(w, &x)| w * x).sum::<i32>();
        }
        for &(side, w) in &self.captures {
            s += w * best_capture(board, side);
        }
        s
    }

    /// The capture terms are bounded (a capture takes 0 to every warrior
    /// on the board); the engine's features are not bounded here.
    fn board_bound(&self) -> Option<i32> {
        if self.engine.is_some() {
            return None;
        }
        let most = crate::games::kiothi::Setup::SixPit.total() as i32;
        Some(self.captures.iter().map(|&(_, w)| w.max(0) * most).sum())
    }
}
