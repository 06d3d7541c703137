//! Kiothi endgame tables: the exact value (RULES §0: the future margin for
//! the player to move) of every play-phase position with at most N warriors
//! on the board and no protected pit, by retrograde analysis, one stone
//! count at a time, fewest stones first.
//!
//! # What a table holds
//! A position's value does not depend on the prisons (RULES §0 counts only
//! what is still to be captured), and the game is the same seen from either
//! side: turned by ten pits (pit `i` to `i + 10 mod 20`), North's row, its
//! leftmost pit and its bonus pits (RULES §2.7–2.8) are South's. So a table
//! keeps one signed byte per board of its stone count, *seen from the
//! mover* (the mover's row first), in the order of
//! [`BoardIndex`](crate::retrograde::index::BoardIndex).
//!
//! Protection marks are only ever cleared (RULES §2.3), so a position with
//! no mark has children with no mark: the tables are closed under play. Late
//! positions of real games have lost their marks long before (every engine
//! game of `results/kiothi/games/` had none in its last 24 plies); a
//! position that still has one is not in the tables, and the prover
//! searches it.
//!
//! - `file.rs`: one stone count's table file;
//! - `tables.rs`: the tables of every count up to N, solved or mapped;
//! - `probe.rs`: a position's value, as the searches take it;
//! - `retrograde.rs`: one stone count solved from the counts below;
//!   `retrograde_over_ranks.rs`, by the ranks of an MPI run together;
//! - `build.rs`: the per-count loop of `sow solve kiothi`.

pub mod build;
pub mod file;
pub mod probe;
pub mod retrograde;
pub mod retrograde_over_ranks;
pub mod tables;

pub use file::{table_path, EndgameError};
pub use retrograde::LayerReport;
pub use tables::{KiothiEndgames, MAX_STONES};

#[cfg(test)]
mod tests {
    use super::file::HEADER;
    use super::*;
    use crate::game::Side;
    use crate::games::kiothi::{KiothiPosition, Phase, Setup, PITS, ROW};
    use crate::infra::progress::ProgressBar;

    fn tables(stones: usize) -> KiothiEndgames {
        let mut t = KiothiEndgames::empty();
        while t.max_stones() != Some(stones) {
            t.solve_next(&ProgressBar::hidden());
        }
        t
    }

    #[test]
    fn files_round_trip_and_damage_is_refused() {
        let dir = std::env::temp_dir().join(format!("sow-kiothi-tables-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let t = tables(4);
        for n in 0..=4 {
            t.save_layer(&dir, n).unwrap();
        }
        let back = KiothiEndgames::load(&dir, 14).unwrap();
        assert_eq!(back.max_stones(), Some(4));
        for n in 0..=4 {
            assert_eq!(back.layers[n].values(), t.layers[n].values());
        }
        // Asked for fewer: only those.
        assert_eq!(KiothiEndgames::load(&dir, 2).unwrap().max_stones(), Some(2));

        let path = table_path(&dir, 3);
        let good = std::fs::read(&path).unwrap();
        let damaged = |bytes: Vec<u8>, says: &str| {
            std::fs::write(&path, bytes).unwrap();
            let e = KiothiEndgames::load(&dir, 4).unwrap_err().to_string();
            assert!(e.contains("stones-03.sowdb") && e.contains(says), "{e}");
        };
        damaged(good[..good.len() - 1].to_vec(), "entries");
        damaged(b"not a table".to_vec(), "header");
        let mut flipped = good.clone();
        flipped[HEADER + 5] ^= 0x40;
        damaged(flipped, "checksum");
        let mut other_count = good.clone();
        other_count[8] = 4;
        damaged(other_count, "4 stones");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn both_sides_read_the_same_table() {
        // A board and the same board turned by ten pits with the other
        // side to move are the same position for the mover.
        let t = tables(5);
        let mut rng = crate::infra::rng::Rng::new(3);
        for _ in 0..200 {
            let mut pits = [0u8; PITS];
            for _ in 0..1 + rng.below(5) {
                pits[rng.below(PITS)] += 1;
            }
            let south = KiothiPosition {
                pits,
                protected: 0,
                side: Side::South,
                phase: Phase::Play,
                prisons: [0, 0],
                setup: Setup::SixPit,
            };
            let north = KiothiPosition {
                pits: std::array::from_fn(|i| pits[(i + ROW) % PITS]),
                side: Side::North,
                ..south
            };
            assert_eq!(t.value(&south), t.value(&north), "{south}");
            assert!(t.value(&south).is_some());
        }
    }
}
