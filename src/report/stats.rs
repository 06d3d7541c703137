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
