//! How a match builds the agents of its game: the agent as described, and
//! for Kiothi with `opening=reply` the reply search at North's turn 2
//! (RULES §2.2) around it, shaped to the agent's time or nodes as `eval`
//! shapes it (`book::ReplyLimits`).

use crate::book::{ReplyAgent, ReplyLimits};
use crate::error::InputError;
use crate::games::kiothi::KiothiPosition;
use crate::games::kpe::KpePosition;
use crate::infra::rng::splitmix64;
use crate::search::{Agent, AgentSpec, Searchable};

/// Refuses `opening=reply` for a game without a redistribution, where it
/// would be ignored.
pub fn check_agents<G: MatchGame>(specs: &[&AgentSpec]) -> Result<(), InputError> {
    match !G::REDISTRIBUTES && specs.iter().any(|s| s.reply_opening()) {
        true => Err(InputError::unsupported(
            "agent",
            "opening=reply answers Kiothi's redistribution at turn 2; this game has none",
        )),
        false => Ok(()),
    }
}

/// A game that matches are played in.
pub trait MatchGame: Searchable {
    /// The game opens with a free redistribution, which `opening=reply`
    /// answers by the reply search.
    const REDISTRIBUTES: bool;

    /// A fresh agent of `spec`; `seed` drives its random choices.
    fn agent(spec: &AgentSpec, seed: u64) -> Box<dyn Agent<Self>>;
}

impl MatchGame for KpePosition {
    const REDISTRIBUTES: bool = false;

    fn agent(spec: &AgentSpec, seed: u64) -> Box<dyn Agent<Self>> {
        spec.build(seed)
    }
}

impl MatchGame for KiothiPosition {
    const REDISTRIBUTES: bool = true;

    fn agent(spec: &AgentSpec, seed: u64) -> Box<dyn Agent<Self>> {
        let inner = spec.build(seed);
        let AgentSpec::AlphaBeta {
            limits,
            threads,
            reply_opening: true,
            ..
        } = spec
        else {
            return inner;
        };
        let reply = ReplyLimits::shaped(limits.seconds, limits.nodes, *threads);
        let mut state = seed;
        Box::new(ReplyAgent::new(inner, reply, splitmix64(&mut state)))
    }
}
