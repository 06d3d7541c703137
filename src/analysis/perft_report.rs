//! `sow perft`'s walk and report: RULES §4 counted on the rayon pool (a
//! Kiothi opening by formula), with a refusal of walks far out of reach
//! and of a `divide` too wide to list.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use serde::Serialize;
use thiserror::Error;

use crate::game::Game;
use crate::infra::progress::ProgressBar;
use crate::perft::{estimate, perft_count, Count};

/// `divide` refuses roots with more moves than this.
pub const DIVIDE_LIMIT: u64 = 100_000;

/// About an hour of walking on 2 cores: Kiothi's play phase walks about
/// 2·10^7 positions per CPU-second (perft 7 of the turn-3 position of
/// `rule2_rule3_protection_marks_after_turn_2`: 269,274,991 in 13 s of CPU),
/// Kpé faster.
pub const DEFAULT_MAX_NODES: u64 = 100_000_000_000;

/// Random lines sampled to estimate the size of a walk.
pub const PROBES: u32 = 64;

/// One line of a divide.
#[derive(Serialize, Debug)]
pub struct DivideLine {
    /// A root move in notation, or the lifted pits (`4+5`) of a group of
    /// opening moves counted by formula.
    #[serde(rename = "move")]
    pub group: String,
    pub nodes: u64,
}

/// `sow perft --json`'s object (README: output contract).
#[derive(Serialize, Debug)]
pub struct PerftReport {
    pub position: String,
    pub depth: u32,
    pub nodes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub divide: Option<Vec<DivideLine>>,
    /// `move` (one line per root move) or `lifted pits` (per lift set of a
    /// Kiothi opening, counted by formula); with `divide` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub divide_by: Option<&'static str>,
    pub seconds: f64,
    /// Nodes per second; `null` when the nodes were counted by formula.
    pub nps: Option<u64>,
    /// True when the nodes were counted by formula, not visited.
    pub counted: bool,
    pub threads: usize,
}

/// Why a walk was not made, or not finished.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum PerftRefusal {
    #[error("the position has {0} root moves, more than the {DIVIDE_LIMIT} a divide can list")]
    TooWide(u64),
    #[error("perft to depth {depth} is out of reach: about {guess:.1e} positions to generate (estimated from {PROBES} random lines), more than the limit of {max_nodes}")]
    OutOfReach {
        depth: u32,
        guess: f64,
        max_nodes: u64,
    },
    #[error("perft interrupted after {0:.1} s")]
    Interrupted(f64),
}

/// Walks `p` to `depth` (split by root move when `divide`), refusing a
/// walk estimated above `max_nodes` positions; `bar` follows it and `stop`
/// ends it early.
pub fn perft_report<G: Game>(
    p: &G,
    depth: u32,
    divide: bool,
    max_nodes: u64,
    bar: &ProgressBar,
    stop: &AtomicBool,
) -> Result<PerftReport, PerftRefusal> {
    let by_formula = p.perft_by_formula(depth).is_some();
    if divide && !by_formula && p.move_count() > DIVIDE_LIMIT {
        return Err(PerftRefusal::TooWide(p.move_count()));
    }
    if !by_formula && depth > 1 {
        let guess = estimate(p, depth, PROBES, 1);
        if guess > max_nodes as f64 {
            return Err(PerftRefusal::OutOfReach {
                depth,
                guess,
                max_nodes,
            });
        }
    }
    let t0 = Instant::now();
    let Count {
        nodes,
        split,
        counted,
    } = perft_count(p, depth, bar, stop)
        .map_err(|_| PerftRefusal::Interrupted(t0.elapsed().as_secs_f64()))?;
    let seconds = t0.elapsed().as_secs_f64();
    let lines = split
        .into_iter()
        .map(|(group, nodes)| DivideLine { group, nodes });
    Ok(PerftReport {
        position: p.to_string(),
        depth,
        nodes,
        divide: divide.then(|| lines.collect()),
        divide_by: divide.then_some(if counted { "lifted pits" } else { "move" }),
        seconds,
        nps: (!counted).then(|| match seconds > 0.0 {
            true => (nodes as f64 / seconds).round() as u64,
            false => 0,
        }),
        counted,
        threads: rayon::current_num_threads(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_games::Wide;
    use crate::infra::progress::Progress;

    fn report(wide: &Wide, depth: u32, divide: bool) -> Result<PerftReport, PerftRefusal> {
        let bar = Progress::Hidden.count(0, "perft", "subtrees");
        perft_report(
            wide,
            depth,
            divide,
            DEFAULT_MAX_NODES,
            &bar,
            &AtomicBool::new(false),
        )
    }

    #[test]
    fn divide_refuses_a_huge_root() {
        let wide = Wide(DIVIDE_LIMIT as u32 + 1);
        let err = report(&wide, 1, true).unwrap_err();
        assert_eq!(err, PerftRefusal::TooWide(100_001));
        assert_eq!(
            report(&wide, 2, false).unwrap().nodes,
            0,
            "every move ends the game"
        );
        assert_eq!(report(&wide, 1, false).unwrap().nodes, 100_001);
        // A root too large to hold at once is walked in chunks.
        assert_eq!(report(&Wide((1 << 20) + 5), 2, false).unwrap().nodes, 0);
    }
}
