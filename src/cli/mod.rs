//! The `sow` command line, as library functions the thin binary calls.
//!
//! Every command is written generically over [`Game`](crate::game::Game) plus
//! the small [`Board`] trait for drawing, and dispatched on [`AnyPosition`].
//! Output goes through [`Out`], which writes either human text or exactly one
//! JSON object; errors are [`CliError`]s, printed by [`Out::fail`].

pub mod analyze;
pub mod apply;
pub mod args;
pub mod board;
pub mod completions;
pub mod eval;
pub mod export;
pub mod game_arg;
pub mod kept_bounds;
mod kiothi_board;
pub mod kiothi_tables;
pub mod man;
pub mod matches;
pub mod moves;
pub mod openings;
pub mod output;
pub mod over_ranks;
pub mod paths;
pub mod perft;
pub mod play;
pub mod prove;
pub mod report;
pub mod search_eval;
pub mod serve;
pub mod show;
pub mod solve;
pub mod stats;
pub mod tune;
pub mod variants;

pub use crate::games::{parse_any, AnyPosition};
pub use board::Board;
pub use output::{CliError, Out};

/// A position argument, its refusal by the error contract.
pub fn parse_position(text: &str) -> Result<AnyPosition, CliError> {
    parse_any(text).map_err(CliError::from)
}

pub use crate::analysis::position_models::MOVE_LIST_LIMIT;

/// `perft --divide` refuses roots with more moves than this.
pub const DIVIDE_LIMIT: u64 = 100_000;

#[cfg(test)]
mod tests {
    //! Commands on a fake game with many moves (Kiothi's openings have
    //! hundreds of millions): the count-only paths and the divide refusal.

    use std::cell::RefCell;
    use std::fmt;
    use std::io::Write;
    use std::ops::ControlFlow;
    use std::rc::Rc;

    use serde_json::Value;

    use super::*;
    use crate::error::InputError;
    use crate::game::{Game, Side};

    /// A game whose root has `n` moves, each ending the game.
    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    struct Wide(u32);

    impl fmt::Display for Wide {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "wide {}", self.0)
        }
    }

    impl Game for Wide {
        type Move = u32;
        fn side_to_move(&self) -> Side {
            Side::South
        }
        fn for_each_move<F: FnMut(u32) -> ControlFlow<()>>(&self, mut f: F) -> ControlFlow<()> {
            for m in 0..self.0 {
                f(m)?;
            }
            ControlFlow::Continue(())
        }
        fn play_unchecked(&self, _: &u32) -> Self {
            Wide(0)
        }
        fn parse_move(&self, text: &str) -> Result<u32, InputError> {
            text.parse()
                .ok()
                .filter(|&m| m < self.0)
                .ok_or_else(|| InputError::illegal(text, "no such move"))
        }
        fn captured(&self) -> [u32; 2] {
            [0, 0]
        }
        fn final_sweep(&self) -> [u32; 2] {
            [0, 0]
        }
        fn board_total(&self) -> u32 {
            0
        }
        fn repetition_key(&self) -> Self {
            self.clone()
        }
        fn move_count(&self) -> u64 {
            self.0 as u64
        }
    }

    #[derive(Clone, Default)]
    struct Buf(Rc<RefCell<Vec<u8>>>);

    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn out(json: bool) -> (Out, Buf) {
        let buf = Buf::default();
        (Out::new(json, false, Box::new(buf.clone())), buf)
    }

    fn text(buf: &Buf) -> String {
        String::from_utf8(buf.0.borrow().clone()).unwrap()
    }

    #[test]
    fn many_moves_are_counted_not_listed() {
        let wide = Wide(MOVE_LIST_LIMIT as u32 + 1);
        let (mut o, buf) = out(false);
        moves::moves(&wide, false, &mut o).unwrap();
        assert!(text(&buf).contains("10001 legal moves"), "{}", text(&buf));

        let (mut o, buf) = out(true);
        moves::moves(&wide, false, &mut o).unwrap();
        let v: Value = serde_json::from_str(&text(&buf)).unwrap();
        assert_eq!(v["count"], 10001);
        assert!(v["moves"].is_null());

        let (mut o, buf) = out(true);
        moves::moves(&wide, true, &mut o).unwrap();
        let v: Value = serde_json::from_str(&text(&buf)).unwrap();
        assert_eq!(v["count"], 10001);
        assert_eq!(v["moves"].as_array().unwrap().len(), 10001);
        assert_eq!(v["moves"][10000], "10000");

        let (mut o, buf) = out(false);
        moves::moves(&wide, true, &mut o).unwrap();
        assert_eq!(text(&buf).lines().count(), 10001);

        let (count, listed) = crate::analysis::position_models::listed_moves(&wide);
        assert_eq!((count, listed), (10001, None));
    }

    fn perft_args(depth: u32, divide: bool) -> perft::PerftArgs {
        perft::PerftArgs {
            position: String::new(),
            depth,
            divide,
            max_nodes: perft::DEFAULT_MAX_NODES,
        }
    }

    #[test]
    fn divide_refuses_a_huge_root() {
        let wide = Wide(DIVIDE_LIMIT as u32 + 1);
        let (mut o, _) = out(true);
        let err = perft::perft(&wide, &perft_args(1, true), &mut o).unwrap_err();
        assert_eq!(err.kind, "usage");
        assert_eq!(err.field.as_deref(), Some("divide"));
        let (mut o, buf) = out(true);
        perft::perft(&wide, &perft_args(2, false), &mut o).unwrap();
        let v: Value = serde_json::from_str(&text(&buf)).unwrap();
        assert_eq!(v["nodes"], 0, "every move ends the game");
        let (mut o, buf) = out(true);
        perft::perft(&wide, &perft_args(1, false), &mut o).unwrap();
        let v: Value = serde_json::from_str(&text(&buf)).unwrap();
        assert_eq!(v["nodes"], 100_001);
        // A root too large to hold at once is walked in chunks.
        let wide = Wide((1 << 20) + 5);
        let (mut o, buf) = out(true);
        perft::perft(&wide, &perft_args(2, false), &mut o).unwrap();
        let v: Value = serde_json::from_str(&text(&buf)).unwrap();
        assert_eq!(v["nodes"], 0);
    }
}
