//! A board drawn as text (`sow show`, `sow play`): North's row on top,
//! South's below, with pit indices, captures and each game's marks. Rules
//! stay in `crate::games`; this is only how they look.

use crate::analysis::position_models::Described;
use crate::game::{Game, Side};
use crate::games::kiothi::KiothiPosition;
use crate::games::kpe::KpePosition;

/// What the commands need from a game beyond [`Game`] and the keys of
/// `show` ([`Described`]): drawing it.
pub trait Board: Described {
    /// The board as text: North's row on top, drawn right-to-left as South
    /// sees it, South's row below left-to-right, with pit indices, captures
    /// and the game's marks. No trailing newline.
    fn draw(&self) -> String;
}

/// Right-aligned cells of a fixed width.
fn cells<I: IntoIterator<Item = String>>(items: I, width: usize) -> String {
    items
        .into_iter()
        .map(|s| format!("{s:>width$}"))
        .collect::<Vec<_>>()
        .join("")
}

/// Human name of a side.
pub fn side_name(side: Side) -> &'static str {
    match side {
        Side::South => "South",
        Side::North => "North",
    }
}

impl Board for KpePosition {
    fn draw(&self) -> String {
        const CELL: usize = 4;
        let w = self.variant().w();
        let n = 2 * w;
        let pits = self.pits();
        let cap = Game::captured(self);
        let mark = |side: Side, i: usize| {
            let start = self.row_start(side);
            if self.marks(side) & (1 << (i - start)) != 0 {
                "x".to_string()
            } else {
                ".".to_string()
            }
        };
        let north: Vec<usize> = (w..n).rev().collect();
        let south: Vec<usize> = (0..w).collect();
        let lock = |side: Side| {
            if self.is_unlocked(side) {
                "unlocked"
            } else {
                "locked"
            }
        };
        let lines = [
            format!(
                "{:<9}{}",
                "pit",
                cells(north.iter().map(|i| i.to_string()), CELL)
            ),
            format!(
                "{:<9}{}",
                "N marks",
                cells(north.iter().map(|&i| mark(Side::North, i)), CELL)
            ),
            format!(
                "{:<9}{}   captured {:>2}  ({})",
                "North",
                cells(north.iter().map(|&i| pits[i].to_string()), CELL),
                cap[1],
                lock(Side::North)
            ),
            format!(
                "{:<9}{}   captured {:>2}  ({})",
                "South",
                cells(south.iter().map(|&i| pits[i].to_string()), CELL),
                cap[0],
                lock(Side::South)
            ),
            format!(
                "{:<9}{}",
                "S marks",
                cells(south.iter().map(|&i| mark(Side::South, i)), CELL)
            ),
            format!(
                "{:<9}{}",
                "pit",
                cells(south.iter().map(|i| i.to_string()), CELL)
            ),
        ];
        lines.join("\n")
    }
}

const KIOTHI_PITS: usize = 20;
const KIOTHI_ROW: usize = 10;

impl Board for KiothiPosition {
    fn draw(&self) -> String {
        const CELL: usize = 5;
        let pits = self.pits();
        let prot = self.protected();
        let cell = |i: usize| {
            if prot & (1 << i) != 0 {
                format!("{}*", pits[i])
            } else {
                pits[i].to_string()
            }
        };
        let prisons = Game::captured(self);
        let north: Vec<usize> = (KIOTHI_ROW..KIOTHI_PITS).rev().collect();
        let south: Vec<usize> = (0..KIOTHI_ROW).collect();
        [
            format!(
                "{:<9}{}",
                "pit",
                cells(north.iter().map(|i| i.to_string()), CELL)
            ),
            format!(
                "{:<9}{}   prison {:>2}",
                "North",
                cells(north.iter().map(|&i| cell(i)), CELL),
                prisons[1]
            ),
            format!(
                "{:<9}{}   prison {:>2}",
                "South",
                cells(south.iter().map(|&i| cell(i)), CELL),
                prisons[0]
            ),
            format!(
                "{:<9}{}",
                "pit",
                cells(south.iter().map(|i| i.to_string()), CELL)
            ),
            format!("phase {:?}   (`*` protected)", self.phase()),
        ]
        .join("\n")
    }
}
