//! The marks of a move (`??`, `?`, `?!`, `!`) and the losses in stones
//! from which they are given, by how sure the values are.

use serde::Serialize;

/// Losses in stones from which a move is marked, by how sure the values
/// are. The one place these numbers live (README "Marks" quotes them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Thresholds {
    /// `?!` from this loss on; below it a move keeps the value.
    pub inaccuracy: i32,
    /// `?` from this loss on.
    pub mistake: i32,
    /// `??` from this loss on.
    pub blunder: i32,
}

impl Thresholds {
    /// Proven values (the Kpé database; search values proven to the end):
    /// every stone lost counts.
    pub const EXACT: Thresholds = Thresholds {
        inaccuracy: 1,
        mistake: 3,
        blunder: 6,
    };

    /// Search estimates (Kiothi): two searches of the same position to the
    /// same depth can disagree by a stone or two (the horizon falls in
    /// another place of a capture sequence, a transposition brings a deeper
    /// value), so a loss below 3 stones is not held against the move, and
    /// the marks need twice the exact losses.
    pub const ESTIMATE: Thresholds = Thresholds {
        inaccuracy: 3,
        mistake: 6,
        blunder: 12,
    };

    /// The thresholds for values that are proven or estimated.
    pub fn for_values(exact: bool) -> Thresholds {
        if exact {
            Self::EXACT
        } else {
            Self::ESTIMATE
        }
    }

    /// The mark of a loss (`!` is decided elsewhere: it needs the other moves).
    pub fn mark(&self, loss: i32) -> Option<Mark> {
        if loss >= self.blunder {
            Some(Mark::Blunder)
        } else if loss >= self.mistake {
            Some(Mark::Mistake)
        } else if loss >= self.inaccuracy {
            Some(Mark::Inaccuracy)
        } else {
            None
        }
    }

    /// A move that loses less than the inaccuracy threshold keeps the value.
    pub fn keeps_value(&self, loss: i32) -> bool {
        loss < self.inaccuracy
    }
}

/// The mark of a move, as chess annotators write them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Mark {
    #[serde(rename = "??")]
    Blunder,
    #[serde(rename = "?")]
    Mistake,
    #[serde(rename = "?!")]
    Inaccuracy,
    /// The only move that keeps the value.
    #[serde(rename = "!")]
    Only,
}

impl Mark {
    pub fn symbol(self) -> &'static str {
        match self {
            Mark::Blunder => "??",
            Mark::Mistake => "?",
            Mark::Inaccuracy => "?!",
            Mark::Only => "!",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_follow_the_thresholds() {
        let t = Thresholds::EXACT;
        assert_eq!(t.mark(0), None);
        assert_eq!(t.mark(1), Some(Mark::Inaccuracy));
        assert_eq!(t.mark(3), Some(Mark::Mistake));
        assert_eq!(t.mark(6), Some(Mark::Blunder));
        let e = Thresholds::ESTIMATE;
        assert_eq!(e.mark(2), None);
        assert!(e.keeps_value(2) && !t.keeps_value(2));
        assert_eq!(e.mark(12), Some(Mark::Blunder));
        assert_eq!(
            serde_json::to_string(&[Mark::Blunder, Mark::Only]).unwrap(),
            r#"["??","!"]"#
        );
    }
}
