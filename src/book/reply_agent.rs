//! North's turn-2 redistribution (RULES §2.2) chosen in play by the reply
//! search within the move's time, in place of the engine's search over its
//! candidate families; the engine's own agent everywhere else.

use super::reply::{is_turn_2, ReplyLimits};
use crate::games::kiothi::{KiothiMove, KiothiPosition};
use crate::infra::rng::Rng;
use crate::search::Agent;

/// The reply search at turn 2, `inner` elsewhere.
pub struct ReplyAgent<'a> {
    inner: Box<dyn Agent<KiothiPosition> + 'a>,
    limits: ReplyLimits,
    rng: Rng,
}

impl<'a> ReplyAgent<'a> {
    /// Answers turn 2 by a reply search within `limits` (its random
    /// replies drawn from `seed`), and hands every other position to `inner`.
    pub fn new(inner: Box<dyn Agent<KiothiPosition> + 'a>, limits: ReplyLimits, seed: u64) -> Self {
        ReplyAgent {
            inner,
            limits,
            rng: Rng::new(seed),
        }
    }
}

impl Agent<KiothiPosition> for ReplyAgent<'_> {
    fn choose(&mut self, pos: &KiothiPosition) -> Option<KiothiMove> {
        if is_turn_2(pos) {
            let seed = self.rng.next_u64();
            if let Ok(found) = self.limits.search(pos, seed) {
                return Some(KiothiMove::Opening(found.best.opening));
            }
        }
        self.inner.choose(pos)
    }
}
