//! Playing strength levels of the oracle (`sow play --level`, the web
//! server's opponent), after the Awari Oracle's "fair" to "perfect": a
//! weaker level plays a best move only part of the time and otherwise any
//! move within a loss limit, drawn with a seeded generator.

use std::fmt;
use std::str::FromStr;

use super::move_values::MoveValues;
use super::oracle::Oracle;
use crate::error::InputError;
use crate::infra::rng::Rng;
use crate::kpe_db::SolveError;

/// A playing strength, strongest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Perfect,
    Expert,
    Strong,
    Good,
    Fair,
    Random,
}

/// How a level chooses: with probability `best_share` a best move (every
/// best move equally likely), otherwise any move losing at most `max_loss`
/// stones against the best (best moves included), all equally likely.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LevelRule {
    pub level: Level,
    pub best_share: f64,
    /// `None`: any legal move.
    pub max_loss: Option<i32>,
}

use serde::Serialize;

/// The rule of every level: the one table (README "Levels" quotes it).
pub const RULES: [LevelRule; 6] = [
    LevelRule {
        level: Level::Perfect,
        best_share: 1.0,
        max_loss: Some(0),
    },
    LevelRule {
        level: Level::Expert,
        best_share: 0.9,
        max_loss: Some(2),
    },
    LevelRule {
        level: Level::Strong,
        best_share: 0.75,
        max_loss: Some(4),
    },
    LevelRule {
        level: Level::Good,
        best_share: 0.5,
        max_loss: Some(8),
    },
    LevelRule {
        level: Level::Fair,
        best_share: 0.25,
        max_loss: Some(16),
    },
    LevelRule {
        level: Level::Random,
        best_share: 0.0,
        max_loss: None,
    },
];

impl Level {
    pub fn rule(self) -> LevelRule {
        RULES[self as usize]
    }

    pub fn name(self) -> &'static str {
        match self {
            Level::Perfect => "perfect",
            Level::Expert => "expert",
            Level::Strong => "strong",
            Level::Good => "good",
            Level::Fair => "fair",
            Level::Random => "random",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Level {
    type Err = InputError;
    fn from_str(text: &str) -> Result<Self, InputError> {
        RULES
            .iter()
            .map(|r| r.level)
            .find(|l| l.name() == text)
            .ok_or_else(|| {
                InputError::malformed(
                    "level",
                    format!("unknown level `{text}`: expected perfect, expert, strong, good, fair or random"),
                )
            })
    }
}

/// Chooses among valued moves by `level`'s rule (`None` when there is no move).
pub fn choose<M: Copy + PartialEq>(
    values: &MoveValues<M>,
    level: Level,
    rng: &mut Rng,
) -> Option<M> {
    let best = values.best_value()?;
    let rule = level.rule();
    let pool: Vec<M> = if rng.unit() < rule.best_share {
        values.best_moves()
    } else {
        values
            .moves
            .iter()
            .filter(|m| rule.max_loss.is_none_or(|l| best - m.value <= l))
            .map(|m| m.mv)
            .collect()
    };
    Some(pool[rng.below(pool.len())])
}

/// The move `level` plays in `pos`: `perfect` asks the oracle for its best
/// move (by search, the best found in the budget), `random` draws among the
/// legal moves without valuing them (in a Kiothi opening, among the
/// search's candidate redistributions: the legal ones number hundreds of
/// millions), the others value every move and [`choose`].
pub fn level_move<G: crate::search::Searchable, O: Oracle<G> + ?Sized>(
    pos: &G,
    level: Level,
    oracle: &mut O,
    rng: &mut Rng,
) -> Result<Option<G::Move>, SolveError> {
    match level {
        Level::Perfect => oracle.best_move(pos),
        Level::Random => {
            let moves: Vec<G::Move> = if pos.move_count() <= RANDOM_LIST_LIMIT {
                pos.legal_moves()
            } else {
                pos.search_moves().into_iter().map(|(m, _)| m).collect()
            };
            Ok((!moves.is_empty()).then(|| moves[rng.below(moves.len())]))
        }
        _ => Ok(choose(&oracle.move_values(pos)?, level, rng)),
    }
}

/// Above this many legal moves, `random` draws among the search's candidates.
pub const RANDOM_LIST_LIMIT: u64 = 100_000;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::move_values::MoveValue;

    fn values(v: &[i32]) -> MoveValues<u32> {
        MoveValues {
            moves: v
                .iter()
                .enumerate()
                .map(|(i, &value)| MoveValue {
                    mv: i as u32,
                    value,
                    exact: true,
                    line: vec![i as u32],
                })
                .collect(),
            complete: true,
            depth: 0,
            nodes: 0,
            seconds: 0.0,
            book: false,
        }
    }

    #[test]
    fn levels_stay_within_their_loss_limits() {
        // Moves worth 4, 4, 2, -4, -20 (best first).
        let v = values(&[4, 4, 2, -4, -20]);
        let mut rng = Rng::new(7);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..2000 {
            let p = choose(&v, Level::Perfect, &mut rng).unwrap();
            assert!(p <= 1, "perfect plays a best move");
            seen.insert(p);
            let e = choose(&v, Level::Expert, &mut rng).unwrap();
            assert!(e <= 2, "expert loses at most 2");
            let g = choose(&v, Level::Good, &mut rng).unwrap();
            assert!(g <= 3, "good loses at most 8");
        }
        assert_eq!(seen.len(), 2, "both best moves are played");
        let mut r = Rng::new(1);
        let fair: std::collections::BTreeSet<u32> = (0..2000)
            .map(|_| choose(&v, Level::Fair, &mut r).unwrap())
            .collect();
        assert_eq!(fair.len(), 4, "fair: every move within 16 stones");
        let random: std::collections::BTreeSet<u32> = (0..2000)
            .map(|_| choose(&v, Level::Random, &mut r).unwrap())
            .collect();
        assert_eq!(random.len(), 5);
        assert_eq!(choose(&values(&[]), Level::Perfect, &mut r), None);
    }

    #[test]
    fn the_table_is_in_level_order_and_parses() {
        for (i, r) in RULES.iter().enumerate() {
            assert_eq!(r.level as usize, i);
            assert_eq!(r.level.name().parse::<Level>().unwrap(), r.level);
        }
        assert_eq!(
            "grandmaster".parse::<Level>().unwrap_err().field(),
            Some("level")
        );
    }
}
