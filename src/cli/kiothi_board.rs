//! How `sow show` draws a Kiothi position.

use super::board::{cells, Board};
use crate::game::Game;
use crate::games::kiothi::KiothiPosition;

const PITS: usize = 20;
const ROW: usize = 10;

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
        let north: Vec<usize> = (ROW..PITS).rev().collect();
        let south: Vec<usize> = (0..ROW).collect();
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
