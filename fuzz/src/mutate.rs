//! Structured mutations that keep inputs near valid: most change one token
//! of a well-formed input (a number by one, a count to an extreme, a side
//! letter, a separator), so that most inputs reach deep into the parsers
//! and the rules instead of failing at the first byte.

use sow::infra::rng::Rng;

/// Tokens of the notations (RULES §3) and of the numbers that break them.
const TOKENS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "10",
    "19",
    "20",
    "24",
    "30",
    "48",
    "60",
    "63",
    "64",
    "99",
    "127",
    "128",
    "255",
    "256",
    "65535",
    "65536",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "-1",
    "-0",
    "+1",
    "1e3",
    "NaN",
    "inf",
    "0x10",
    "S",
    "N",
    "s",
    "n",
    "x",
    ".",
    "*",
    ",",
    ",,",
    " ",
    "  ",
    "\t",
    ":",
    "+",
    ">",
    "=",
    "kpe",
    "kiothi",
    "kpe:",
    "kpe:3x3",
    "kpe:8x8",
    "kpe:0x0",
    "kpe:2x1",
    "kpe:9x9",
    "kiothi:five",
    "kiothi:six",
    "opening",
    "play",
    "xxxx",
    "....",
    "x.x.",
    "é",
    "\u{0}",
    "\u{feff}",
    "٣",
    "Ｓ",
    "ab",
    "depth",
    "time",
    "nodes",
    "threads",
    "tt",
    "eval",
    "hand",
    "mcts",
    "random",
    "greedy",
];

/// Characters inserted or substituted one at a time.
const CHARS: &[u8] = b"0123456789,.x*SN :+>=-ab \t";

/// A copy of `input` with one mutation (half of the time: most stay near
/// valid) or 2 to 4.
pub fn mutate_text(rng: &mut Rng, input: &[u8], corpus: &[Vec<u8>]) -> Vec<u8> {
    let mut out = input.to_vec();
    let count = if rng.below(2) == 0 {
        1
    } else {
        2 + rng.below(3)
    };
    for _ in 0..count {
        mutate_once(rng, &mut out, corpus);
    }
    out
}

fn mutate_once(rng: &mut Rng, s: &mut Vec<u8>, corpus: &[Vec<u8>]) {
    let len = s.len();
    match rng.below(10) {
        // A number nudged by one or replaced by a token.
        0..=2 => {
            let numbers = spans(s, |c| c.is_ascii_digit());
            if let Some(&(a, b)) = pick(rng, &numbers) {
                let text = std::str::from_utf8(&s[a..b]).unwrap_or("0");
                let n: u128 = text.parse().unwrap_or(0);
                let new = match rng.below(4) {
                    0 => n.saturating_add(1).to_string(),
                    1 => n.saturating_sub(1).to_string(),
                    2 => (n * 2 + 1).to_string(),
                    _ => TOKENS[rng.below(TOKENS.len())].to_string(),
                };
                s.splice(a..b, new.into_bytes());
                return;
            }
            insert_token(rng, s)
        }
        // A word (side, phase, marks, game tag) replaced by a token.
        3 => {
            let words = spans(s, |c| !matches!(c, b' ' | b',' | b'\n'));
            match pick(rng, &words) {
                Some(&(a, b)) => {
                    let t = TOKENS[rng.below(TOKENS.len())];
                    s.splice(a..b, t.bytes());
                }
                None => insert_token(rng, s),
            }
        }
        4 => insert_token(rng, s),
        // One character replaced, inserted or removed.
        5 if len > 0 => s[rng.below(len)] = CHARS[rng.below(CHARS.len())],
        6 => s.insert(rng.below(len + 1), CHARS[rng.below(CHARS.len())]),
        7 if len > 0 => {
            let a = rng.below(len);
            let b = (a + 1 + rng.below(4)).min(len);
            s.drain(a..b);
        }
        // A span duplicated (more pits, more moves).
        8 if len > 0 => {
            let a = rng.below(len);
            let b = (a + 1 + rng.below(16)).min(len);
            let copy = s[a..b].to_vec();
            let at = rng.below(len + 1);
            s.splice(at..at, copy);
        }
        // Spliced with another input of the corpus.
        _ => {
            if let Some(other) = pick(rng, corpus) {
                let cut = rng.below(len + 1);
                let from = rng.below(other.len() + 1);
                s.truncate(cut);
                s.extend_from_slice(&other[from..]);
            }
        }
    }
}

fn insert_token(rng: &mut Rng, s: &mut Vec<u8>) {
    let t = TOKENS[rng.below(TOKENS.len())];
    let at = rng.below(s.len() + 1);
    s.splice(at..at, t.bytes());
}

/// Maximal runs of bytes satisfying `f`.
fn spans(s: &[u8], f: impl Fn(u8) -> bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, &c) in s.iter().enumerate() {
        match (f(c), start) {
            (true, None) => start = Some(i),
            (false, Some(a)) => {
                out.push((a, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(a) = start {
        out.push((a, s.len()));
    }
    out
}

pub fn pick<'a, T>(rng: &mut Rng, items: &'a [T]) -> Option<&'a T> {
    (!items.is_empty()).then(|| &items[rng.below(items.len())])
}

/// Little-endian values that break size fields.
const INTERESTING: &[u64] = &[
    0,
    1,
    2,
    7,
    8,
    63,
    64,
    65,
    4095,
    4096,
    4097,
    1 << 20,
    (1 << 20) + 1,
    1 << 31,
    u32::MAX as u64,
    1 << 32,
    1 << 52,
    1 << 61,
    u64::MAX / 9,
    u64::MAX / 8,
    u64::MAX - 63,
    u64::MAX,
];

/// Mutations of a binary database file: header fields, block table,
/// payload bytes, truncation and extension. `fields` are the offsets and
/// widths of the header fields.
pub fn mutate_bytes(rng: &mut Rng, input: &[u8], fields: &[(usize, usize)]) -> Vec<u8> {
    let mut s = input.to_vec();
    for _ in 0..1 + rng.below(3) {
        let len = s.len();
        match rng.below(8) {
            // A header field set to an interesting value or nudged.
            0 | 1 => {
                let &(at, width) = pick(rng, fields).expect("fields");
                if at + width <= len {
                    let mut old = [0u8; 8];
                    old[..width].copy_from_slice(&s[at..at + width]);
                    let old = u64::from_le_bytes(old);
                    let v = match rng.below(3) {
                        0 => INTERESTING[rng.below(INTERESTING.len())],
                        1 => old.wrapping_add(1),
                        _ => old.wrapping_sub(1),
                    };
                    s[at..at + width].copy_from_slice(&v.to_le_bytes()[..width]);
                }
            }
            // Random bytes flipped anywhere, or in the payload's tail.
            2 | 3 if len > 0 => {
                let at = rng.below(len);
                s[at] ^= 1 << rng.below(8);
            }
            4 if len > 0 => {
                let at = rng.below(len);
                s[at] = rng.next_u64() as u8;
            }
            // Truncated.
            5 => {
                let cut = if rng.below(2) == 0 {
                    rng.below(len + 1)
                } else {
                    len.saturating_sub(1 + rng.below(16))
                };
                s.truncate(cut);
            }
            // Extended.
            6 => {
                let most = if rng.below(2) == 0 { 8 } else { 5000 };
                let extra = 1 + rng.below(most);
                s.extend((0..extra).map(|_| rng.next_u64() as u8));
            }
            // An 8-byte word of the block table or payload overwritten.
            _ if len >= 8 => {
                let at = rng.below(len - 7);
                let v = INTERESTING[rng.below(INTERESTING.len())];
                s[at..at + 8].copy_from_slice(&v.to_le_bytes());
            }
            _ => {}
        }
    }
    s
}

/// [`reseal`] of a binary target's input: the `db-dir` and `db-region`
/// inputs carry a file number first, the file after it.
pub fn reseal_input(target: &str, input: &mut [u8]) {
    if target == "bound-file" {
        return reseal_bound_file(input);
    }
    let skip = usize::from(matches!(target, "db-dir" | "db-region"));
    if input.len() > skip {
        reseal(&mut input[skip..]);
    }
}

/// Recomputes the checksum at the end of a file of kept bounds (layout in
/// `src/prove/bounds_file.rs`), so that a mutant reaches the entries.
fn reseal_bound_file(b: &mut [u8]) {
    if b.len() >= 16 {
        let end = b.len() - 8;
        let sum = sow::infra::checksum::checksum(&b[..end]);
        b[end..].copy_from_slice(&sum.to_le_bytes());
    }
}

/// Recomputes a database image's block checksums and the checksum of its
/// block table from its own header (layout in `src/kpe_db/file/mod.rs`: plain
/// blocks of `block` bytes, or zstd blocks at the offsets that follow the
/// checksums), so that a mutant passes the checksum checks and reaches
/// the code behind them.
pub fn reseal(b: &mut [u8]) {
    const HEADER: usize = 64;
    if b.len() < HEADER {
        return;
    }
    let word = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().expect("8"));
    let (block, blocks) = (word(b, 48), word(b, 56));
    if !block.is_power_of_two() || !(4096..=1 << 20).contains(&block) {
        return;
    }
    let zstd = b[18] == 1;
    let table = if zstd {
        blocks.checked_mul(16).and_then(|t| t.checked_add(8))
    } else {
        blocks.checked_mul(8)
    };
    let Some(start) = table
        .and_then(|t| t.checked_add(HEADER as u64))
        .filter(|&s| s <= b.len() as u64)
    else {
        return;
    };
    let (start, block, blocks) = (start as usize, block as usize, blocks as usize);
    let (head, payload) = b.split_at_mut(start);
    for i in 0..blocks {
        let chunk = if zstd {
            let at = HEADER + 8 * (blocks + i);
            let (from, to) = (word(head, at) as usize, word(head, at + 8) as usize);
            if from > to || to > payload.len() {
                continue;
            }
            &payload[from..to]
        } else {
            let from = (i * block).min(payload.len());
            &payload[from..(from + block).min(payload.len())]
        };
        let at = HEADER + 8 * i;
        head[at..at + 8].copy_from_slice(&sow::infra::checksum::checksum(chunk).to_le_bytes());
    }
    let table = sow::infra::checksum::checksum(&head[HEADER..]);
    head[40..48].copy_from_slice(&table.to_le_bytes());
}
