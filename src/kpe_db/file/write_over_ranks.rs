//! A value file written by every rank of a run together, each its own
//! slice of the entries, byte for byte the file one process writes
//! (`write.rs`): the slices start on block boundaries
//! (`retrograde/ranks/partition.rs`), so a rank's compressed blocks are
//! the file's; rank 0 gathers their checksums and lengths, writes header
//! and block table; every rank writes its blocks at their offset in the
//! temporary file, which rank 0 renames once all are written and synced.

use std::path::Path;

use rayon::prelude::*;

use super::header::{Encoding, FileId, Header, HEADER};
use super::write::{compressed_blocks, BLOCK};
use crate::infra::checksum::checksum;
use crate::kpe_db::error::DbError;
use crate::retrograde::ranks::file::write_over_ranks;
use crate::retrograde::ranks::{Partition, Transport};

/// Writes the zstd value file `path` of a layer partitioned as `partition`
/// over the ranks, `entries` being this rank's slice. Every rank calls it.
pub fn write_values_over_ranks<T: Transport + ?Sized>(
    transport: &T,
    partition: &Partition,
    path: &Path,
    id: FileId,
    entries: &[u8],
) -> Result<(), DbError> {
    let me = transport.rank();
    let range = partition.range(me);
    debug_assert_eq!(range.start % BLOCK as u64, 0);
    debug_assert_eq!(range.end - range.start, entries.len() as u64);
    let blocks = compressed_blocks(entries);
    let sums: Vec<u64> = blocks.par_iter().map(|b| checksum(b)).collect();
    let lens: Vec<u64> = blocks.iter().map(|b| b.len() as u64).collect();
    let payloads = transport.all_gather(lens.iter().sum());
    let block_count = partition.len().div_ceil(BLOCK as u64) as usize;
    let table_len = 16 * block_count + 8;
    let at = (HEADER + table_len) as u64 + payloads[..me].iter().sum::<u64>();
    // Rank 0 gets every rank's block checksums, then their lengths.
    let mut counts = vec![0; transport.size()];
    counts[0] = 2 * blocks.len();
    let gathered = transport.all_to_all_v(&[&sums[..], &lens[..]].concat(), &counts);
    let parts: Vec<&[u8]> = blocks.iter().map(|b| &b[..]).collect();
    let head = || {
        let table = block_table(&gathered, partition, &payloads);
        let header = Header {
            entries: partition.len(),
            encoding: Encoding::Zstd,
            payload: payloads.iter().sum::<u64>() as usize,
            block: BLOCK,
            blocks: block_count,
        };
        let mut head = header.bytes(id, checksum(&table));
        head.extend(table);
        head
    };
    write_over_ranks(transport, path, at, &parts, head).map_err(|e| DbError::Io {
        path: e.path,
        source: e.source,
    })
}

/// The block table from what rank 0 gathered (each rank's checksums then
/// lengths, in rank order): every checksum, then every block's offset in
/// the payload and the payload's length.
fn block_table(gathered: &[u64], partition: &Partition, payloads: &[u64]) -> Vec<u8> {
    let mut sums = Vec::new();
    let mut offsets = Vec::new();
    let mut at = 0;
    let mut rest = gathered;
    for (r, &payload) in payloads.iter().enumerate() {
        let range = partition.range(r);
        let blocks = (range.end - range.start).div_ceil(BLOCK as u64) as usize;
        let (mine, after) = rest.split_at(2 * blocks);
        sums.extend_from_slice(&mine[..blocks]);
        for &len in &mine[blocks..] {
            offsets.push(at);
            at += len;
        }
        debug_assert_eq!(mine[blocks..].iter().sum::<u64>(), payload);
        rest = after;
    }
    offsets.push(at);
    sums.into_iter()
        .chain(offsets)
        .flat_map(u64::to_le_bytes)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::header::FileKind;
    use super::super::write::write_values;
    use super::*;
    use crate::games::kpe::KpeVariant;
    use crate::retrograde::ranks::InProcess;
    use std::fs;

    /// Written by 1 to 4 ranks (uneven slices, empty ranks), a value file
    /// is byte for byte the one a single process writes.
    #[test]
    fn ranks_write_the_single_process_file() {
        let dir = std::env::temp_dir().join(format!("sow-db-over-ranks-{}", std::process::id()));
        let id = FileId {
            kind: FileKind::Layer,
            variant: KpeVariant::new(4, 3).unwrap(),
            stones: 8,
        };
        let mut rng = crate::infra::rng::Rng::new(5);
        for len in [0usize, 100, 4096, 3 * 4096 + 17, 40_000] {
            // Runs of a few values: blocks that compress, and noise that
            // does not.
            let entries: Vec<u8> = (0..len)
                .map(|i| match i % 3000 < 1500 {
                    true => (i / 700) as u8 & 0xfe,
                    false => rng.below(256) as u8,
                })
                .collect();
            let single = dir.join("single.sowdb");
            write_values(&single, id, &entries, Encoding::Zstd).unwrap();
            let expected = fs::read(&single).unwrap();
            for ranks in 1..=4 {
                let path = dir.join(format!("ranks-{ranks}.sowdb"));
                let part = Partition::new(len as u64, ranks, BLOCK as u64);
                InProcess::run(ranks, |t| {
                    let r = part.range(t.rank());
                    let slice = &entries[r.start as usize..r.end as usize];
                    write_values_over_ranks(t, &part, &path, id, slice).unwrap();
                });
                assert_eq!(
                    fs::read(&path).unwrap(),
                    expected,
                    "{len} entries, {ranks} ranks"
                );
                assert!(!crate::retrograde::ranks::file::temporary(&path).exists());
            }
        }
        fs::remove_dir_all(&dir).unwrap();
    }
}
