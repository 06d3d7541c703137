//! The statistics tables as CSV (written by the `csv` crate).

use crate::analysis::{kiothi_stats, kpe_stats};

/// A CSV table from its header and rows.
pub fn table<R, F>(header: &[&str], rows: R) -> String
where
    R: IntoIterator<Item = Vec<F>>,
    F: AsRef<[u8]>,
{
    let mut w = csv::Writer::from_writer(Vec::new());
    // Writing to memory cannot fail.
    w.write_record(header).expect("CSV to memory");
    for row in rows {
        w.write_record(&row).expect("CSV to memory");
    }
    String::from_utf8(w.into_inner().expect("CSV to memory")).expect("UTF-8 fields")
}

/// The rows as CSV with the documented columns.
pub fn kpe_csv(rows: &[kpe_stats::Row]) -> String {
    table(
        &["phase", "stones", "value", "positions", "never_ends"],
        rows.iter().flat_map(|r| {
            r.histogram.iter().map(|(v, n)| {
                let endless = r.never_ends[v];
                vec![
                    r.phase.to_string(),
                    r.stones.to_string(),
                    v.to_string(),
                    n.to_string(),
                    endless.to_string(),
                ]
            })
        }),
    )
}

/// The CSV, with the columns of the Kpé statistics.
pub fn kiothi_csv(rows: &[kiothi_stats::Row]) -> String {
    table(
        &["phase", "stones", "value", "positions"],
        rows.iter().flat_map(|r| {
            r.histogram.iter().map(|(v, n)| {
                vec![
                    r.phase.to_string(),
                    r.stones.to_string(),
                    v.to_string(),
                    n.to_string(),
                ]
            })
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::kiothi_stats::fixture_rows;

    #[test]
    fn kiothi_rows_as_csv() {
        let rows = fixture_rows();
        assert_eq!(
            kiothi_csv(&rows),
            "phase,stones,value,positions\nopening,60,0,1\nplay,38,-1,1\nplay,40,0,1\nplay,40,2,2\n"
        );
    }
}
