//! Inputs the fuzzer (`scripts/fuzz.sh`) found to panic or to be accepted
//! wrongly, kept as regression tests (results/RELIABILITY.md lists them).

use std::fs;
use std::path::{Path, PathBuf};

use sow::games::kpe::{KpePosition, KpeVariant};
use sow::games::parse_any;
use sow::infra::progress::Progress;
use sow::kpe_db::entry::entry;
use sow::kpe_db::file::{self, Encoding, FileId, FileKind, MappedFile};
use sow::kpe_db::{check_solvable, Solution, SolveError};
use sow::kpe_db::{paths, DbError};
use sow::Game;

fn refused_field(text: &str) -> String {
    let e = parse_any(text).expect_err(text);
    e.field().unwrap_or("").to_string()
}

#[test]
fn counts_near_u32_max_are_refused_not_wrapped() {
    // board 3 + 4294967295 + 46 = 2^32 + 48: with u32 sums it wrapped to
    // the standard total, 48, and the position was accepted (its captures
    // then cut to 16 bits); with overflow checks it panicked.
    assert_eq!(
        refused_field("kpe 1,1,1,0,0,0,0,0 N xxxx xxxx 4294967295 46"),
        "total"
    );
    assert_eq!(
        refused_field("kpe 1,1,1,0,0,0,0,0 N xxxx xxxx 4294967295 16"),
        "total"
    );
    assert_eq!(
        refused_field("kiothi 9,9,9,9,9,20,2,0,0,0,1,0,0,0,1,1,2,4294967295,0,1 N opening"),
        "total"
    );
    assert_eq!(
        refused_field("kiothi 2,3,2,3,0,9,0,0,0,0,0,2,1,1,1*,7*,5*,4294967295,0,0 S play 0 19"),
        "total"
    );
}

#[test]
fn sowing_from_the_last_pit_of_a_sixteen_pit_board() {
    // kpe:8x8: North's pit 15 has nothing after it; the sowing word was
    // shifted by 128 bits (a panic with overflow checks).
    let p = parse_any("kpe:8x8").unwrap().to_string();
    let after = match parse_any(&p).unwrap() {
        sow::games::AnyPosition::Kpe(k) => k.play("7").unwrap(),
        _ => unreachable!(),
    };
    let child = after.play("15").unwrap();
    assert_eq!(
        child.to_string(),
        "kpe:8x8 9,9,9,9,9,9,9,1,10,9,9,9,9,9,9,0 S .......x .......x 0 0"
    );
    let total: u32 = child.pits().iter().map(|&c| c as u32).sum();
    assert_eq!(total, 128);
}

#[test]
fn the_largest_variants_are_refused_without_overflow() {
    for (w, k) in [(8, 8), (8, 7), (7, 8)] {
        let v = KpeVariant::new(w, k).unwrap();
        let e = check_solvable(v).expect_err("too large");
        assert_eq!(e.field(), Some("variant"));
        assert!(sow::kpe_db::largest_layer(v) > sow::kpe_db::MAX_LAYER_POSITIONS);
    }
}

// Format-2 content checks (`src/kpe_db/check/`): files whose checksums
// are consistent (recomputed over forged content) but whose contents no
// solve writes are refused, naming the file, never a panic or a wrong value.

fn built(name: &str) -> (PathBuf, KpeVariant) {
    let db = std::env::temp_dir().join(format!("sow-fuzzreg-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&db);
    let v = KpeVariant::new(3, 2).unwrap();
    Solution::build(v, &db, Progress::Hidden).unwrap();
    (db, v)
}

fn id(kind: FileKind, v: KpeVariant, stones: usize) -> FileId {
    FileId {
        kind,
        variant: v,
        stones: stones as u32,
    }
}

fn corrupt(e: impl Into<SolveError>) -> String {
    match e.into() {
        SolveError::Db(e @ DbError::Corrupt { .. }) => e.to_string(),
        other => panic!("expected a corrupt file, got {other}"),
    }
}

/// The decoded entries of a value file.
fn entries_of(path: &Path, id: FileId) -> Vec<u8> {
    let f = MappedFile::open(path, id, None).unwrap();
    f.all_entries().unwrap().into_owned()
}

/// The payload of the (plain) key index and its group records.
fn key_payload(path: &Path) -> Vec<u8> {
    let b = fs::read(path).unwrap();
    let len = u64::from_le_bytes(b[32..40].try_into().unwrap()) as usize;
    b[b.len() - len..].to_vec()
}

fn word(p: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(p[at..at + 8].try_into().unwrap())
}

/// (stones, keys, shift, dir_at, bits_at) of group `g`.
fn group_record(p: &[u8], g: usize) -> [u64; 5] {
    std::array::from_fn(|i| word(p, 8 + 40 * g + 8 * i))
}

fn field(p: &[u8], bits_at: usize, shift: usize, j: usize) -> u64 {
    let bit = j * shift;
    (word(p, bits_at + bit / 8) >> (bit % 8)) & ((1 << shift) - 1)
}

fn set_field(p: &mut [u8], bits_at: usize, shift: usize, j: usize, x: u64) {
    let bit = j * shift;
    let at = bits_at + bit / 8;
    let mask = ((1u64 << shift) - 1) << (bit % 8);
    let w = (word(p, at) & !mask) | (x << (bit % 8));
    p[at..at + 8].copy_from_slice(&w.to_le_bytes());
}

fn write_keys(path: &Path, v: KpeVariant, payload: &[u8]) {
    let kid = id(FileKind::RegionKeys, v, 0);
    file::write_file(path, kid, payload.len() as u64, payload).unwrap();
}

#[test]
fn a_layer_value_beyond_its_stones_is_refused_when_read() {
    let (db, v) = built("layer-value");
    let n = 4;
    let path = paths::layer_path(&db, v, n);
    let lid = id(FileKind::Layer, v, n);
    let mut values = entries_of(&path, lid);
    // Within the game's 12 stones (and the i8 range), beyond the layer's 4.
    values[0] = entry(-10, false);
    file::write_values(&path, lid, &values, Encoding::Zstd).unwrap();
    let s = Solution::open(v, &db).unwrap();
    let e = corrupt(s.layer_entries(n).expect_err("refused"));
    assert!(
        e.contains("layer-004.sowdb") && e.contains("value -10 beyond the 4 stones"),
        "{e}"
    );
    // The position of rank 0 in that layer (all stones in the last pit).
    let pos = KpePosition::from_parts(v, &[0, 0, 0, 0, 0, 4], sow::Side::South, [7, 7], [4, 4]);
    assert!(corrupt(s.value(&pos, None).expect_err("refused")).contains("layer-004.sowdb"));
    // The same in a plain file.
    file::write_values(&path, lid, &values, Encoding::Plain).unwrap();
    let s = Solution::open(v, &db).unwrap();
    assert!(corrupt(s.value(&pos, None).expect_err("refused")).contains("beyond"));
    assert!(corrupt(s.layer_entries(n).expect_err("refused")).contains("beyond"));
    fs::remove_dir_all(&db).unwrap();
}

#[test]
fn an_ending_flag_on_a_value_that_cannot_end_is_refused() {
    // 4 stones: an ending game's margin is 4, 0 or -4 (mod 4); 2 cannot end.
    let (db, v) = built("can-end");
    let n = 4;
    let path = paths::layer_path(&db, v, n);
    let lid = id(FileKind::Layer, v, n);
    let mut values = entries_of(&path, lid);
    let last = values.len() - 1;
    values[last] = entry(2, true);
    file::write_values(&path, lid, &values, Encoding::Zstd).unwrap();
    let s = Solution::open(v, &db).unwrap();
    let e = corrupt(s.layer_entries(n).expect_err("refused"));
    assert!(
        e.contains("layer-004.sowdb") && e.contains("cannot end"),
        "{e}"
    );
    // Value 2 without the flag (endless play) is a possible entry.
    values[last] = entry(2, false);
    file::write_values(&path, lid, &values, Encoding::Zstd).unwrap();
    Solution::open(v, &db).unwrap().layer_entries(n).unwrap();
    fs::remove_dir_all(&db).unwrap();
}

#[test]
fn a_region_value_beyond_its_groups_stones_is_refused() {
    let (db, v) = built("region-value");
    let path = paths::region_path(&db, v);
    let rid = id(FileKind::Region, v, 0);
    let mut values = entries_of(&path, rid);
    // The first group has the fewest stones (fewer than the game's 12).
    let s = Solution::open(v, &db).unwrap();
    let groups = s.start_region().groups().unwrap();
    let fewest = groups[0].stones;
    assert!(fewest < 12);
    values[0] = entry(12, false);
    file::write_values(&path, rid, &values, Encoding::Zstd).unwrap();
    let s = Solution::open(v, &db).unwrap();
    let e = corrupt(s.start_region().groups().map(|_| ()).expect_err("refused"));
    assert!(
        e.contains("opening.sowdb") && e.contains(&format!("value 12 beyond the {fewest} stones")),
        "{e}"
    );
    fs::remove_dir_all(&db).unwrap();
}

#[test]
fn a_key_index_with_unsorted_or_unlocked_keys_is_refused() {
    let (db, v) = built("keys");
    let path = paths::region_keys_path(&db, v);
    let good = key_payload(&path);
    let groups = word(&good, 0) as usize;
    // The largest group: its first two keys share a bucket or not; swap
    // the first key of a bucket holding two or more with the next one.
    let g = (0..groups)
        .max_by_key(|&g| group_record(&good, g)[1])
        .unwrap();
    let [stones, keys, shift, dir_at, bits_at] = group_record(&good, g).map(|x| x as usize);
    let dir = |b: usize| u32::from_le_bytes(good[dir_at + 4 * b..][..4].try_into().unwrap());
    let b = (0..).find(|&b| dir(b + 1) >= dir(b) + 2).unwrap();
    let j = dir(b) as usize;
    let (x, y) = (
        field(&good, bits_at, shift, j),
        field(&good, bits_at, shift, j + 1),
    );
    let mut swapped = good.clone();
    set_field(&mut swapped, bits_at, shift, j, y);
    set_field(&mut swapped, bits_at, shift, j + 1, x);
    write_keys(&path, v, &swapped);
    // Read whole (export): the bucket check of every lookup sees it too.
    let s = Solution::open(v, &db).unwrap();
    let e = corrupt(
        s.start_region()
            .for_each(|_, _| Ok::<_, DbError>(()))
            .expect_err("refused"),
    );
    assert!(
        e.contains("opening-keys.sowdb")
            && e.contains(&format!(
                "key {} of the {stones}-stone group is out of order",
                j + 1
            )),
        "{e}"
    );

    // A key whose marks are both complete: an unlocked position, which
    // belongs to the layers. The group's last key with every mark set
    // stays last and in its bucket.
    let last = keys - 1;
    let marks = (1u64 << (2 * v.w())) - 1;
    assert!(shift as u32 >= 2 * v.w() as u32);
    let mut unlocked = good.clone();
    let f = field(&good, bits_at, shift, last);
    set_field(&mut unlocked, bits_at, shift, last, f | marks);
    assert_ne!(f | marks, f, "the last key was locked");
    write_keys(&path, v, &unlocked);
    let s = Solution::open(v, &db).unwrap();
    let e = corrupt(
        s.start_region()
            .for_each(|_, _| Ok::<_, DbError>(()))
            .expect_err("refused"),
    );
    assert!(e.contains("not a locked position"), "{e}");
    fs::remove_dir_all(&db).unwrap();
}

#[test]
fn a_key_index_without_the_start_or_with_a_bad_group_table_is_refused() {
    let (db, v) = built("keys-start");
    let path = paths::region_keys_path(&db, v);
    let good = key_payload(&path);
    let groups = word(&good, 0) as usize;
    let start_stones = v.total() as u64;
    let g = (0..groups)
        .find(|&g| group_record(&good, g)[0] == start_stones)
        .unwrap();
    // The start's group with its first key (the start: all marks clear,
    // lowest rank... not necessarily) removed from every lookup: its
    // directory emptied, the keys all counted in the last bucket.
    let [_, keys, shift, dir_at, _] = group_record(&good, g).map(|x| x as usize);
    let eg = sow::kpe_db::endgame::Endgame::new(v);
    let buckets = ((eg.index.layer_size(v.total() as usize) << (2 * v.w())) >> shift) as usize + 1;
    let mut forged = good.clone();
    for b in 0..buckets {
        forged[dir_at + 4 * b..dir_at + 4 * b + 4].copy_from_slice(&0u32.to_le_bytes());
    }
    forged[dir_at + 4 * buckets..dir_at + 4 * buckets + 4]
        .copy_from_slice(&(keys as u32).to_le_bytes());
    write_keys(&path, v, &forged);
    let e = corrupt(Solution::open(v, &db).map(|_| ()).expect_err("refused"));
    assert!(
        e.contains("opening-keys.sowdb") && e.contains("does not hold the start"),
        "{e}"
    );

    // Two groups swapped in the group table (stones out of order).
    if groups >= 2 {
        let mut swapped = good.clone();
        let (a, b) = (8..48, 48..88);
        let first: Vec<u8> = swapped[a.clone()].to_vec();
        let second: Vec<u8> = swapped[b.clone()].to_vec();
        swapped[a].copy_from_slice(&second);
        swapped[b].copy_from_slice(&first);
        write_keys(&path, v, &swapped);
        let e = corrupt(Solution::open(v, &db).map(|_| ()).expect_err("refused"));
        assert!(e.contains("out of order"), "{e}");
    }
    fs::remove_dir_all(&db).unwrap();
}

#[test]
fn a_key_index_compressed_or_with_too_many_groups_is_refused() {
    // Found by the db-region target: a key index whose header said zstd
    // was read as plain (a debug assertion; garbage keys in release), and
    // a group count near 2^64 overflowed the size check.
    let (db, v) = built("keys-table");
    let path = paths::region_keys_path(&db, v);
    let good = key_payload(&path);
    let kid = id(FileKind::RegionKeys, v, 0);
    file::write_values(&path, kid, &good, Encoding::Zstd).unwrap();
    let e = corrupt(Solution::open(v, &db).map(|_| ()).expect_err("refused"));
    assert!(
        e.contains("opening-keys.sowdb") && e.contains("encoding 1"),
        "{e}"
    );
    let mut many = good.clone();
    many[..8].copy_from_slice(&(u64::MAX / 8).to_le_bytes());
    write_keys(&path, v, &many);
    let e = corrupt(Solution::open(v, &db).map(|_| ()).expect_err("refused"));
    assert!(e.contains("groups do not fit"), "{e}");
    let mut far = good.clone();
    far[8 + 32..8 + 40].copy_from_slice(&(u64::MAX - 3).to_le_bytes());
    write_keys(&path, v, &far);
    let e = corrupt(Solution::open(v, &db).map(|_| ()).expect_err("refused"));
    assert!(e.contains("group 0 does not fit"), "{e}");
    fs::remove_dir_all(&db).unwrap();
}

#[test]
fn a_refusal_quoting_a_newline_stays_one_line() {
    // Found by the http target: a position URL-decoded with a newline in
    // a count; the message quoted it and broke the one-line contract.
    let text = "kiothi 1,3,2,1,0,2,1,0,2,3,2*,1*,4*,7,0,1,2*,1\n,15,4 N play 8 0";
    let e = sow::cli::CliError::from(parse_any(text).map(|_| ()).expect_err("refused"));
    assert!(!e.message.contains('\n'), "{}", e.message);
    assert!(e.message.contains("\\n"), "{}", e.message);
    assert_eq!(
        e.to_json()["error"]["message"].as_str(),
        Some(e.message.as_str())
    );
}

#[test]
fn an_agent_spec_quoting_a_newline_is_refused_on_one_line() {
    // Found by AFL++ on agent-spec (53 crashes, one cause): the library's
    // refusal quoted the option or value with its newline (and NUL), a
    // message of two lines before the command line escaped it.
    for text in [
        "ab:nodes=1000,threads=28tt=16\n\0",
        "ab:\0\nnod\x7fs=1000,threads=2,tt=16",
        "mcts:1110\n\x101",
    ] {
        let e = sow::search::agents::AgentSpec::parse(text)
            .map(|_| ())
            .expect_err(text);
        let message = e.to_string();
        assert!(!message.contains(|c: char| c.is_control()), "{message:?}");
        assert_eq!(e.field(), Some("agent"), "{message}");
        // The command line's message is the library's, not escaped twice.
        assert_eq!(sow::cli::CliError::from(e).message, message);
    }
    // And any other refusal built by the constructors.
    let e = sow::error::InputError::illegal("3\n", "empty pit\r");
    assert_eq!(e.to_string(), "illegal move 3\\n: empty pit\\r");
}
