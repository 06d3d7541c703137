//! Game-playing agents for matches, parsed from text:
//! `random`, `greedy`, `mcts:PLAYOUTS`, `ab:depth=D`, `ab:time=S`,
//! `ab:nodes=N` (alpha-beta options combine with commas, plus `threads=T`,
//! `tt=MB`, `eval=hand` for the hand-set evaluation instead of the tuned
//! one, and `opening=reply` for Kiothi's turn 2 by the reply search
//! instead of the search over the candidate families, e.g.
//! `ab:time=0.5,threads=2`).

use std::fmt;
use std::sync::atomic::AtomicBool;

use super::hand_eval::HandEval;
use super::negamax::Limits;
use super::threads::search;
use super::tt::TranspositionTable;
use super::Searchable;
use crate::error::InputError;
use crate::infra::rng::Rng;

/// An agent's description; `Display` writes it back in the parsed syntax.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentSpec {
    /// Uniformly random move.
    Random,
    /// Largest one-move capture, ties broken at random.
    Greedy,
    /// UCT Monte-Carlo tree search with this many random playouts per move.
    Mcts { playouts: u32 },
    /// The alpha-beta search of this module.
    AlphaBeta {
        limits: Limits,
        threads: usize,
        tt_mb: usize,
        /// Search with `Searchable::evaluate_hand` (`eval=hand`).
        hand_eval: bool,
        /// Kiothi's turn 2 by the reply search (`opening=reply`; the
        /// games that have one wrap the agent, see `analysis::matches`).
        reply_opening: bool,
    },
}

impl AgentSpec {
    /// Parses an agent description (see the module documentation).
    pub fn parse(text: &str) -> Result<Self, InputError> {
        let text = text.trim();
        let (name, args) = match text.split_once(':') {
            Some((n, a)) => (n, Some(a)),
            None => (text, None),
        };
        let no_args = |spec: AgentSpec| match args {
            None => Ok(spec),
            Some(a) => Err(InputError::malformed(
                "agent",
                format!("`{name}` takes no parameters, found `:{a}`"),
            )),
        };
        match name {
            "random" => no_args(AgentSpec::Random),
            "greedy" => no_args(AgentSpec::Greedy),
            "mcts" => {
                let a = args.ok_or_else(|| {
                    InputError::malformed("agent", "expected `mcts:PLAYOUTS`, e.g. `mcts:1000`")
                })?;
                let playouts: u32 = a.trim().parse().map_err(|_| {
                    InputError::malformed(
                        "agent",
                        format!("mcts playouts must be a positive integer, found `{a}`"),
                    )
                })?;
                if playouts == 0 {
                    return Err(InputError::malformed("agent", "mcts needs at least 1 playout"));
                }
                Ok(AgentSpec::Mcts { playouts })
            }
            "ab" => Self::parse_ab(args.unwrap_or("")),
            _ => Err(InputError::unsupported(
                "agent",
                format!("unknown agent `{name}` (expected random, greedy, mcts:PLAYOUTS, ab:depth=D or ab:time=S)"),
            )),
        }
    }

    fn parse_ab(args: &str) -> Result<Self, InputError> {
        let mut limits = Limits::default();
        let mut threads = 1;
        let mut tt_mb = 16;
        let mut hand_eval = false;
        let mut reply_opening = false;
        for part in args.split(',').filter(|p| !p.trim().is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| {
                InputError::malformed(
                    "agent",
                    format!("expected `key=value` in `ab:{args}`, found `{part}`"),
                )
            })?;
            let (k, v) = (k.trim(), v.trim());
            let bad = |what: &str| {
                InputError::malformed("agent", format!("ab {k} must be {what}, found `{v}`"))
            };
            match k {
                "depth" => {
                    let d: u32 = v.parse().map_err(|_| bad("a positive integer"))?;
                    if d == 0 {
                        return Err(bad("a positive integer"));
                    }
                    limits.depth = Some(d);
                }
                "time" => {
                    let least = Limits::MIN_SECONDS;
                    let seconds = format!("a positive number of seconds (at least {least})");
                    let s: f64 = v.parse().map_err(|_| bad(&seconds))?;
                    if !Limits::takes_seconds(s) {
                        return Err(bad(&seconds));
                    }
                    limits.seconds = Some(s);
                }
                "nodes" => {
                    let n: u64 = v.parse().map_err(|_| bad("a positive integer"))?;
                    if n == 0 {
                        return Err(bad("a positive integer"));
                    }
                    limits.nodes = Some(n);
                }
                "threads" => {
                    threads = v.parse().map_err(|_| bad("a positive integer"))?;
                    crate::infra::limits::check_threads_of("ab threads", threads)
                        .map_err(|e| InputError::unsupported("agent", e))?;
                }
                "tt" => {
                    tt_mb = v.parse().map_err(|_| bad("a size in MiB"))?;
                    crate::infra::limits::check_memory("tt", tt_mb)
                        .map_err(|e| InputError::unsupported("agent", e))?;
                }
                "eval" => {
                    hand_eval = match v {
                        "hand" => true,
                        "tuned" => false,
                        _ => return Err(bad("`hand` or `tuned`")),
                    }
                }
                "opening" => {
                    reply_opening = match v {
                        "reply" => true,
                        "candidates" => false,
                        _ => return Err(bad("`reply` or `candidates`")),
                    }
                }
                _ => {
                    return Err(InputError::malformed(
                        "agent",
                        format!(
                        "unknown ab option `{k}` (expected depth, time, nodes, threads, tt, eval, opening)"
                    ),
                    ))
                }
            }
        }
        if limits == Limits::default() {
            return Err(InputError::malformed(
                "agent",
                "ab needs a limit: `ab:depth=D`, `ab:time=S` or `ab:nodes=N`",
            ));
        }
        Ok(AgentSpec::AlphaBeta {
            limits,
            threads,
            tt_mb,
            hand_eval,
            reply_opening,
        })
    }

    /// Kiothi's turn 2 by the reply search (`opening=reply`).
    pub fn reply_opening(&self) -> bool {
        matches!(
            self,
            AgentSpec::AlphaBeta {
                reply_opening: true,
                ..
            }
        )
    }

    /// Threads the agent uses while thinking.
    pub fn threads(&self) -> usize {
        match self {
            AgentSpec::AlphaBeta { threads, .. } => *threads,
            _ => 1,
        }
    }

    /// A fresh agent; `seed` drives every random choice it makes.
    pub fn build<G: Searchable>(&self, seed: u64) -> Box<dyn Agent<G>> {
        let rng = Rng::new(seed);
        match self {
            AgentSpec::Random => Box::new(RandomAgent { rng }),
            AgentSpec::Greedy => Box::new(GreedyAgent { rng }),
            AgentSpec::Mcts { playouts } => Box::new(MctsAgent {
                rng,
                playouts: *playouts,
            }),
            AgentSpec::AlphaBeta {
                limits,
                threads,
                tt_mb,
                hand_eval,
                ..
            } => Box::new(AlphaBetaAgent {
                limits: *limits,
                threads: *threads,
                tt: TranspositionTable::new(*tt_mb),
                hand_eval: *hand_eval,
            }),
        }
    }
}

impl std::str::FromStr for AgentSpec {
    type Err = InputError;
    fn from_str(s: &str) -> Result<Self, InputError> {
        AgentSpec::parse(s)
    }
}

impl fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentSpec::Random => write!(f, "random"),
            AgentSpec::Greedy => write!(f, "greedy"),
            AgentSpec::Mcts { playouts } => write!(f, "mcts:{playouts}"),
            AgentSpec::AlphaBeta {
                limits,
                threads,
                tt_mb,
                hand_eval,
                reply_opening,
            } => {
                let mut parts = Vec::new();
                if let Some(d) = limits.depth {
                    parts.push(format!("depth={d}"));
                }
                if let Some(s) = limits.seconds {
                    parts.push(format!("time={s}"));
                }
                if let Some(n) = limits.nodes {
                    parts.push(format!("nodes={n}"));
                }
                if *threads != 1 {
                    parts.push(format!("threads={threads}"));
                }
                if *tt_mb != 16 {
                    parts.push(format!("tt={tt_mb}"));
                }
                if *hand_eval {
                    parts.push("eval=hand".to_string());
                }
                if *reply_opening {
                    parts.push("opening=reply".to_string());
                }
                write!(f, "ab:{}", parts.join(","))
            }
        }
    }
}

/// Something that picks moves.
pub trait Agent<G: Searchable>: Send {
    /// The move to play, `None` when the game is over.
    fn choose(&mut self, pos: &G) -> Option<G::Move>;
}

struct RandomAgent {
    rng: Rng,
}

impl<G: Searchable> Agent<G> for RandomAgent {
    fn choose(&mut self, pos: &G) -> Option<G::Move> {
        let moves = pos.search_moves();
        if moves.is_empty() {
            return None;
        }
        Some(moves[self.rng.below(moves.len())].0)
    }
}

struct GreedyAgent {
    rng: Rng,
}

impl<G: Searchable> Agent<G> for GreedyAgent {
    fn choose(&mut self, pos: &G) -> Option<G::Move> {
        let moves = pos.search_moves();
        let best = moves.iter().map(|(_, c)| G::capture_gain(pos, c)).max()?;
        let top: Vec<_> = moves
            .iter()
            .filter(|(_, c)| G::capture_gain(pos, c) == best)
            .collect();
        Some(top[self.rng.below(top.len())].0)
    }
}

struct AlphaBetaAgent {
    limits: Limits,
    threads: usize,
    tt: TranspositionTable,
    hand_eval: bool,
}

impl<G: Searchable> Agent<G> for AlphaBetaAgent {
    fn choose(&mut self, pos: &G) -> Option<G::Move> {
        let stop = AtomicBool::new(false);
        let (limits, threads, tt) = (&self.limits, self.threads, &self.tt);
        let best = if self.hand_eval {
            search(
                &HandEval(pos.clone()),
                limits,
                threads,
                tt,
                &stop,
                &mut |_| {},
            )
            .best
        } else {
            search(pos, limits, threads, tt, &stop, &mut |_| {}).best
        };
        best.or_else(|| pos.search_moves().first().map(|m| m.0))
    }
}

/// Plies after which an MCTS playout stops (the board is then shared evenly).
const PLAYOUT_CAP: usize = 400;
const UCT_C: f64 = 1.0;

struct MctsNode<G: Searchable> {
    pos: G,
    /// Stones the move into this node captured (for the parent's mover).
    gain: i32,
    mv: Option<G::Move>,
    children: Vec<usize>,
    expanded: bool,
    visits: f64,
    /// Sum of margins from the parent's mover's view.
    total: f64,
}

struct MctsAgent {
    rng: Rng,
    playouts: u32,
}

impl MctsAgent {
    /// Margin for `pos`'s mover of a random continuation.
    fn playout<G: Searchable>(&mut self, pos: &G) -> f64 {
        let mut pos = pos.clone();
        let mut sign = 1.0;
        let mut margin = 0.0;
        for _ in 0..PLAYOUT_CAP {
            let moves = pos.search_moves();
            if moves.is_empty() {
                return margin + sign * pos.terminal_value() as f64;
            }
            let (_, child) = &moves[self.rng.below(moves.len())];
            margin += sign * G::capture_gain(&pos, child) as f64;
            sign = -sign;
            pos = child.clone();
        }
        margin
    }
}

impl<G: Searchable> Agent<G> for MctsAgent {
    fn choose(&mut self, pos: &G) -> Option<G::Move> {
        let scale = (pos.board_total() as f64).max(1.0);
        let mut tree = vec![MctsNode {
            pos: pos.clone(),
            gain: 0,
            mv: None,
            children: Vec::new(),
            expanded: false,
            visits: 0.0,
            total: 0.0,
        }];
        for _ in 0..self.playouts {
            // Selection.
            let mut path = vec![0usize];
            let mut at = 0;
            while tree[at].expanded && !tree[at].children.is_empty() {
                let parent_visits = tree[at].visits.max(1.0);
                let mut best = f64::NEG_INFINITY;
                let mut pick = tree[at].children[0];
                for &c in &tree[at].children {
                    let n = &tree[c];
                    let u = if n.visits == 0.0 {
                        f64::INFINITY
                    } else {
                        n.total / n.visits / scale + UCT_C * (parent_visits.ln() / n.visits).sqrt()
                    };
                    if u > best {
                        best = u;
                        pick = c;
                    }
                }
                at = pick;
                path.push(at);
            }
            // Expansion.
            if !tree[at].expanded {
                tree[at].expanded = true;
                let kids = tree[at].pos.search_moves();
                for (mv, child) in kids {
                    let gain = G::capture_gain(&tree[at].pos, &child);
                    tree.push(MctsNode {
                        pos: child,
                        gain,
                        mv: Some(mv),
                        children: Vec::new(),
                        expanded: false,
                        visits: 0.0,
                        total: 0.0,
                    });
                    let id = tree.len() - 1;
                    tree[at].children.push(id);
                }
                if !tree[at].children.is_empty() {
                    at = tree[at].children[self.rng.below(tree[at].children.len())];
                    path.push(at);
                }
            }
            // Simulation and backpropagation.
            let leaf = tree[at].pos.clone();
            let mut v = self.playout(&leaf);
            for &n in path.iter().rev() {
                let node = &mut tree[n];
                let up = node.gain as f64 - v;
                node.visits += 1.0;
                node.total += up;
                v = up;
            }
        }
        tree[0]
            .children
            .iter()
            .max_by(|&&a, &&b| tree[a].visits.total_cmp(&tree[b].visits))
            .and_then(|&c| tree[c].mv)
    }
}
