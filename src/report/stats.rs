//! The statistics tables as CSV.

use crate::analysis::{kiothi_stats, kpe_stats};

/// The rows as CSV with the documented columns.
pub fn kpe_csv(rows: &[kpe_stats::Row]) -> String {
    let mut text = String::from("phase,stones,value,positions,never_ends\n");
    for r in rows {
        for (v, n) in &r.histogram {
            let endless = r.never_ends[v];
            text += &format!("{},{},{},{},{}\n", r.phase, r.stones, v, n, endless);
        }
    }
    text
}

/// The CSV, with the columns of the Kpé statistics.
pub fn kiothi_csv(rows: &[kiothi_stats::Row]) -> String {
    let mut text = String::from("phase,stones,value,positions\n");
    for r in rows {
        for (v, n) in &r.histogram {
            text += &format!("{},{},{},{}\n", r.phase, r.stones, v, n);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::kiothi_stats::{rows, Sample};
    use crate::games::kiothi::Phase;

    #[test]
    fn kiothi_rows_as_csv() {
        let s = |phase, stones, value| Sample {
            phase,
            stones,
            value,
            exact: value == 0,
        };
        let rows = rows(&[
            s(Phase::Play, 40, 2),
            s(Phase::Opening, 60, 0),
            s(Phase::Play, 40, 2),
            s(Phase::Play, 38, -1),
            s(Phase::Play, 40, 0),
        ]);
        assert_eq!(
            kiothi_csv(&rows),
            "phase,stones,value,positions\nopening,60,0,1\nplay,38,-1,1\nplay,40,0,1\nplay,40,2,2\n"
        );
    }
}
