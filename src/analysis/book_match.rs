//! The opening book's strength: the engine with the book against the same
//! engine choosing its opening as it always has (its search over the
//! candidate families), in games from the setup itself, colours
//! alternating. The book side plays the book's best move wherever the
//! book has the position (among moves of equal value, one drawn by the
//! game's seed, which makes the games differ), North's turn 2 out of the
//! book by the reply search within the move's time, and the engine
//! elsewhere.

use rayon::prelude::*;
use serde::Serialize;

use super::matches::{play_game_between, seed_for, summarize, MatchConfig, MatchReport, Opening};
use crate::book::{Book, ReplyAgent, ReplyLimits};
use crate::games::kiothi::{KiothiMove, KiothiPosition};
use crate::infra::progress::ProgressBar;
use crate::infra::rng::Rng;
use crate::search::{Agent, AgentSpec, Limits};

/// The book's move where it has the position, `engine`'s elsewhere.
pub struct BookAgent<'a> {
    book: &'a Book,
    engine: Box<dyn Agent<KiothiPosition>>,
    rng: Rng,
}

impl Agent<KiothiPosition> for BookAgent<'_> {
    fn choose(&mut self, pos: &KiothiPosition) -> Option<KiothiMove> {
        let entry = self.book.lookup(pos).filter(|e| !e.moves.is_empty());
        let Some(entry) = entry else {
            return self.engine.choose(pos);
        };
        let best = entry.moves[0].value;
        let tied = entry.moves.iter().take_while(|m| m.value == best).count();
        Some(entry.moves[self.rng.below(tied)].mv)
    }
}

/// One strength figure of the openings page: the match's report (from
/// the book side's view: its score, Elo and interval) at `time` seconds a
/// move.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StrengthMatch {
    pub time: f64,
    #[serde(flatten)]
    pub report: MatchReport,
}

/// `games` games from `book`'s root at `seconds` a move on one thread
/// each (games in parallel), the book side South in even games.
pub fn book_match(
    book: &Book,
    seconds: f64,
    games: usize,
    seed: u64,
    bar: &ProgressBar,
) -> StrengthMatch {
    let engine = AgentSpec::AlphaBeta {
        limits: Limits::seconds(seconds),
        threads: 1,
        tt_mb: 16,
        hand_eval: false,
        reply_opening: false,
    };
    let cfg = MatchConfig {
        games,
        opening_plies: 0,
        seed,
        ..MatchConfig::default()
    };
    let start = *book.root();
    let opening = Opening {
        start,
        plies: Vec::new(),
        position: start,
        value: None,
    };
    let (a_name, b_name) = (format!("book+reply+{engine}"), engine.to_string());
    let records: Vec<_> = (0..games)
        .into_par_iter()
        .map(|g| {
            let a_is_south = g % 2 == 0;
            let with_book: Box<dyn Agent<KiothiPosition> + '_> = Box::new(BookAgent {
                book,
                engine: Box::new(ReplyAgent::new(
                    engine.build(seed_for(seed, g as u64, 1)),
                    ReplyLimits::shaped(Some(seconds), None, 1),
                    seed_for(seed, g as u64, 4),
                )),
                rng: Rng::new(seed_for(seed, g as u64, 3)),
            });
            let plain = engine.build(seed_for(seed, g as u64, 2));
            let (agents, names) = match a_is_south {
                true => ([with_book, plain], [a_name.clone(), b_name.clone()]),
                false => ([plain, with_book], [b_name.clone(), a_name.clone()]),
            };
            let record = play_game_between(&opening, agents, names, a_is_south, &cfg, g);
            bar.inc(1);
            record
        })
        .collect();
    StrengthMatch {
        time: seconds,
        report: summarize(&a_name, &b_name, records),
    }
}
