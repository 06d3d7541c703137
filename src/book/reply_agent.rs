//! North's turn-2 redistribution (RULES §2.2) chosen in play by the reply
//! search within the move's time, in place of the engine's search over its
//! candidate families; the engine's own agent everywhere else.

use std::time::Duration;

use super::reply::{reply_search, reply_search_within, ReplyBudget};
use crate::game::Side;
use crate::games::kiothi::{KiothiMove, KiothiPosition, Phase};
use crate::infra::rng::Rng;
use crate::search::Agent;

/// The reply search at turn 2, `inner` elsewhere.
pub struct ReplyAgent<'a> {
    inner: Box<dyn Agent<KiothiPosition> + 'a>,
    budget: ReplyBudget,
    time: Option<Duration>,
    rng: Rng,
}

impl<'a> ReplyAgent<'a> {
    /// Answers turn 2 by a reply search of about `seconds` (its random
    /// replies drawn from `seed`), and hands every other position to `inner`.
    pub fn new(inner: Box<dyn Agent<KiothiPosition> + 'a>, seconds: f64, seed: u64) -> Self {
        let time = Duration::from_secs_f64(seconds.max(0.0));
        Self::with_budget(inner, ReplyBudget::for_seconds(seconds), Some(time), seed)
    }

    /// Answers turn 2 by a reply search within `budget`, beginning no climb
    /// step after `time` when one is given.
    pub fn with_budget(
        inner: Box<dyn Agent<KiothiPosition> + 'a>,
        budget: ReplyBudget,
        time: Option<Duration>,
        seed: u64,
    ) -> Self {
        ReplyAgent {
            inner,
            budget,
            time,
            rng: Rng::new(seed),
        }
    }
}

impl Agent<KiothiPosition> for ReplyAgent<'_> {
    fn choose(&mut self, pos: &KiothiPosition) -> Option<KiothiMove> {
        if pos.phase() == Phase::Opening && pos.side() == Side::North {
            let seed = self.rng.next_u64();
            let found = match self.time {
                Some(t) => reply_search_within(pos, &self.budget, seed, t),
                None => reply_search(pos, &self.budget, seed),
            };
            if let Ok(found) = found {
                return Some(KiothiMove::Opening(found.best.opening));
            }
        }
        self.inner.choose(pos)
    }
}
