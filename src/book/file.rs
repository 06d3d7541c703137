//! The book file (`.sowbook`): a fixed header, the graph compressed with
//! zstd, and a checksum of everything before it. Read from bytes, so that
//! it can be fuzzed; every refusal names the file.
//!
//! ```text
//! offset size  field (little-endian)
//!      0    8  magic "SOWBOOK\n"
//!      8    2  format version (1)
//!     10    1  game (1: Kiothi)
//!     11    1  setup (1 six-pit, 2 five-pit, 0 another board: tests)
//!     12   26  the root position (a packed position, below)
//!     38    2  zero
//!     40    8  seed
//!     48    8  engine nodes per leaf
//!     56    4  batch            60  4  width
//!     64    4  depth penalty    68  4  max ply
//!     72   16  provider name, zero-padded
//!     88    8  nodes N          96  8  edges E
//!    104    8  expansions      112  8  batches
//!    120    8  engine nodes searched
//!    128    8  payload bytes, uncompressed
//!    136    8  payload bytes, compressed (C)
//!    144    C  payload (zstd)
//!  144+C    8  checksum (`infra::checksum`) of bytes 0 .. 144+C
//! ```
//!
//! The payload holds the nodes column by column (columns compress better
//! than records): pits (20 bytes each), marks (3 bytes: bit `i` for pit
//! `i`), flags (bit 0 North to move, bit 1 play phase, bits 2–3 state: 0
//! leaf, 1 expanded, 2 terminal; bit 4 the provider is exhausted), prisons
//! (South, North), value (i16), depth (u16), moves asked of the provider
//! (u32), edge count (u32); then the edges in node order: child (u32, bit
//! 31 set for a `repeat` edge) and move (2 bytes: pit and count in play;
//! the lifted pits at turns 1 and 2, one pit twice when one is lifted, the
//! placement following from the two positions). A packed position is its
//! pits, marks, flags and prisons (26 bytes).

use std::path::Path;

use super::dag::{Dag, Edge, Node, NodeState};
use super::error::BookError;
use super::provider::PROVIDER_NAME_LEN;
use super::state::{setup_code, BookState, BuildParams};
use crate::game::Side;
use crate::games::kiothi::{KiothiMove, KiothiPosition, OpeningMove, Phase, Setup, PITS};
use crate::infra::checksum::checksum;
use crate::search::Searchable;

/// The first bytes of every book.
pub const MAGIC: &[u8; 8] = b"SOWBOOK\n";
/// The format version this code writes and reads.
pub const VERSION: u16 = 1;
/// The game code of Kiothi.
const GAME_KIOTHI: u8 = 1;
/// Bytes before the payload.
pub const HEADER_LEN: usize = 144;
/// Bytes of the checksum after it.
const CHECKSUM_LEN: usize = 8;
/// Bytes of a packed position.
const POSITION_LEN: usize = PITS + 3 + 1 + 2;
/// Uncompressed bytes per node and per edge.
const NODE_LEN: usize = POSITION_LEN + 2 + 2 + 4 + 4;
const EDGE_LEN: usize = 4 + 2;
/// zstd level of the payload.
const ZSTD_LEVEL: i32 = 12;
/// The largest payload a book may announce (a guard against a header that
/// would have the reader allocate without end).
const MAX_PAYLOAD: u64 = 1 << 32;
const REPEAT_BIT: u32 = 1 << 31;

fn pack_flags(pos: &KiothiPosition) -> u8 {
    (pos.side() == Side::North) as u8 | ((pos.phase() == Phase::Play) as u8) << 1
}

fn pack_position(pos: &KiothiPosition, extra_flags: u8, out: &mut Vec<u8>) {
    out.extend_from_slice(&pos.pits());
    out.extend_from_slice(&pos.protected().to_le_bytes()[..3]);
    out.push(pack_flags(pos) | extra_flags);
    let [s, n] = pos.prisons();
    out.push(s as u8);
    out.push(n as u8);
}

fn state_code(s: NodeState) -> u8 {
    match s {
        NodeState::Leaf => 0,
        NodeState::Expanded => 1,
        NodeState::Terminal => 2,
    }
}

fn encode_move(mv: &KiothiMove) -> [u8; 2] {
    match mv {
        KiothiMove::Play { pit, count } => [*pit, *count],
        KiothiMove::Opening(m) => {
            let l = m.lifted();
            [l[0], l[l.len() - 1]]
        }
    }
}

/// The book as the bytes of its file.
pub fn encode(book: &BookState) -> Vec<u8> {
    let nodes = book.dag.nodes();
    let n = nodes.len();
    let e = book.dag.edge_count();
    let mut payload = Vec::with_capacity(n * NODE_LEN + e * EDGE_LEN);
    for node in nodes {
        payload.extend_from_slice(&node.pos.pits());
    }
    for node in nodes {
        payload.extend_from_slice(&node.pos.protected().to_le_bytes()[..3]);
    }
    for node in nodes {
        let state = state_code(node.state) << 2 | (node.exhausted as u8) << 4;
        payload.push(pack_flags(&node.pos) | state);
    }
    for node in nodes {
        let [s, n] = node.pos.prisons();
        payload.extend_from_slice(&[s as u8, n as u8]);
    }
    for node in nodes {
        payload.extend_from_slice(&node.value.to_le_bytes());
    }
    for node in nodes {
        payload.extend_from_slice(&node.depth.to_le_bytes());
    }
    for node in nodes {
        payload.extend_from_slice(&node.asked.to_le_bytes());
    }
    for node in nodes {
        payload.extend_from_slice(&(node.edges.len() as u32).to_le_bytes());
    }
    let edges = || nodes.iter().flat_map(|n| &n.edges);
    for edge in edges() {
        let child = edge.child | if edge.repeat { REPEAT_BIT } else { 0 };
        payload.extend_from_slice(&child.to_le_bytes());
    }
    for edge in edges() {
        payload.extend_from_slice(&encode_move(&edge.mv));
    }
    let compressed = zstd::bulk::compress(&payload, ZSTD_LEVEL).expect("zstd compresses in memory");
    let mut out = Vec::with_capacity(HEADER_LEN + compressed.len() + CHECKSUM_LEN);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.push(GAME_KIOTHI);
    out.push(setup_code(book.root()));
    pack_position(book.root(), 0, &mut out);
    out.extend_from_slice(&[0, 0]);
    let p = &book.params;
    out.extend_from_slice(&p.seed.to_le_bytes());
    out.extend_from_slice(&p.leaf_nodes.to_le_bytes());
    for v in [p.batch, p.width, p.depth_penalty, p.max_ply] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    let mut name = [0u8; PROVIDER_NAME_LEN];
    name[..book.provider.len()].copy_from_slice(book.provider.as_bytes());
    out.extend_from_slice(&name);
    for v in [
        n as u64,
        e as u64,
        book.expansions,
        book.batches,
        book.engine_nodes,
        payload.len() as u64,
        compressed.len() as u64,
    ] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    debug_assert_eq!(out.len(), HEADER_LEN);
    out.extend_from_slice(&compressed);
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Reads little-endian fields from a byte slice whose length was checked.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> &'a [u8] {
        let s = &self.bytes[self.at..self.at + n];
        self.at += n;
        s
    }
    fn u8(&mut self) -> u8 {
        self.take(1)[0]
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take(4).try_into().expect("4 bytes"))
    }
    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take(8).try_into().expect("8 bytes"))
    }
}

/// The fixed header, read.
struct Header {
    setup: u8,
    root: [u8; POSITION_LEN],
    params: BuildParams,
    provider: String,
    nodes: u64,
    edges: u64,
    expansions: u64,
    batches: u64,
    engine_nodes: u64,
    raw_len: u64,
    compressed_len: u64,
}

/// The book held in `bytes`, the contents of the file `path` (named in
/// every error). Checks, in order: magic, version, game, length, checksum,
/// then that the contents make a book (positions that can occur, with the
/// root's total; edges to existing nodes; one node per position).
pub fn decode(bytes: &[u8], path: &Path) -> Result<BookState, BookError> {
    let path_buf = || path.to_path_buf();
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(BookError::NotABook { path: path_buf() });
    }
    if bytes.len() < 11 {
        return Err(BookError::Truncated {
            path: path_buf(),
            len: bytes.len() as u64,
            expected: (HEADER_LEN + CHECKSUM_LEN) as u64,
        });
    }
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    if version != VERSION {
        return Err(BookError::Version {
            path: path_buf(),
            found: version,
            supported: VERSION,
        });
    }
    if bytes[10] != GAME_KIOTHI {
        return Err(BookError::OtherGame {
            path: path_buf(),
            code: bytes[10],
        });
    }
    if bytes.len() < HEADER_LEN + CHECKSUM_LEN {
        return Err(BookError::Truncated {
            path: path_buf(),
            len: bytes.len() as u64,
            expected: (HEADER_LEN + CHECKSUM_LEN) as u64,
        });
    }
    let header = read_header(bytes);
    let expected = (HEADER_LEN + CHECKSUM_LEN) as u64 + header.compressed_len;
    let body = bytes.len() - CHECKSUM_LEN;
    let stored = u64::from_le_bytes(bytes[body..].try_into().expect("8 bytes"));
    if checksum(&bytes[..body]) != stored {
        if (bytes.len() as u64) < expected {
            return Err(BookError::Truncated {
                path: path_buf(),
                len: bytes.len() as u64,
                expected,
            });
        }
        return Err(BookError::Checksum { path: path_buf() });
    }
    let damaged = |what: String| BookError::Damaged {
        path: path_buf(),
        what,
    };
    if bytes.len() as u64 != expected {
        return Err(damaged(format!(
            "{} bytes, the header announces {expected}",
            bytes.len()
        )));
    }
    state_from(&header, &bytes[HEADER_LEN..body]).map_err(damaged)
}

fn read_header(bytes: &[u8]) -> Header {
    let mut r = Reader { bytes, at: 11 };
    let setup = r.u8();
    let root = r.take(POSITION_LEN).try_into().expect("a packed position");
    r.take(2);
    let seed = r.u64();
    let leaf_nodes = r.u64();
    let (batch, width, depth_penalty, max_ply) = (r.u32(), r.u32(), r.u32(), r.u32());
    let name = r.take(PROVIDER_NAME_LEN);
    let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    let provider = String::from_utf8_lossy(&name[..end]).into_owned();
    let header = Header {
        setup,
        root,
        params: BuildParams {
            seed,
            leaf_nodes,
            batch,
            width,
            depth_penalty,
            max_ply,
        },
        provider,
        nodes: r.u64(),
        edges: r.u64(),
        expansions: r.u64(),
        batches: r.u64(),
        engine_nodes: r.u64(),
        raw_len: r.u64(),
        compressed_len: r.u64(),
    };
    debug_assert_eq!(r.at, HEADER_LEN);
    header
}

/// The book of a checked header and its compressed payload.
fn state_from(h: &Header, compressed: &[u8]) -> Result<BookState, String> {
    let n = h.nodes;
    let e = h.edges;
    let wanted = n.checked_mul(NODE_LEN as u64).and_then(|a| {
        e.checked_mul(EDGE_LEN as u64)
            .and_then(|b| a.checked_add(b))
    });
    if wanted != Some(h.raw_len) || h.raw_len > MAX_PAYLOAD || n == 0 || n > REPEAT_BIT as u64 {
        return Err(format!(
            "{n} nodes and {e} edges do not fill a payload of {} bytes",
            h.raw_len
        ));
    }
    let payload = zstd::bulk::decompress(compressed, h.raw_len as usize)
        .map_err(|err| format!("the payload does not decompress ({err})"))?;
    if payload.len() as u64 != h.raw_len {
        return Err(format!(
            "the payload holds {} bytes, the header announces {}",
            payload.len(),
            h.raw_len
        ));
    }
    let (n, e) = (n as usize, e as usize);
    let mut cols = Reader {
        bytes: &payload,
        at: 0,
    };
    let pits = cols.take(n * PITS);
    let marks = cols.take(n * 3);
    let flags = cols.take(n);
    let prisons = cols.take(n * 2);
    let values = cols.take(n * 2);
    let depths = cols.take(n * 2);
    let asked = cols.take(n * 4);
    let counts = cols.take(n * 4);
    let children = cols.take(e * 4);
    let moves = cols.take(e * 2);
    let setup = match h.setup {
        1 => Setup::SixPit,
        2 => Setup::FivePit,
        0 => Setup::SixPit,
        other => return Err(format!("unknown setup code {other}")),
    };
    let root = unpack_root(&h.root, setup)?;
    if setup_code(&root) != h.setup {
        return Err(format!(
            "the root {root} does not match setup code {}",
            h.setup
        ));
    }
    let total = root.board_sum();
    let mut nodes = Vec::with_capacity(n);
    let mut edge_at = 0usize;
    for i in 0..n {
        let mut packed = [0u8; POSITION_LEN];
        packed[..PITS].copy_from_slice(&pits[i * PITS..(i + 1) * PITS]);
        packed[PITS..PITS + 3].copy_from_slice(&marks[i * 3..i * 3 + 3]);
        packed[PITS + 3] = flags[i] & 0b11;
        packed[PITS + 4..].copy_from_slice(&prisons[i * 2..i * 2 + 2]);
        let pos = unpack_position(&packed, setup, total).map_err(|m| format!("node {i}: {m}"))?;
        let state = match (flags[i] >> 2) & 0b11 {
            0 => NodeState::Leaf,
            1 => NodeState::Expanded,
            2 => NodeState::Terminal,
            _ => return Err(format!("node {i}: unknown state")),
        };
        if flags[i] >> 5 != 0 {
            return Err(format!("node {i}: unknown flags {:#04x}", flags[i]));
        }
        let count = u32::from_le_bytes(counts[i * 4..i * 4 + 4].try_into().expect("4")) as usize;
        if count > e - edge_at {
            return Err(format!("node {i}: {count} edges, past the {e} announced"));
        }
        if (state == NodeState::Expanded) != (count > 0) {
            return Err(format!("node {i}: {count} edges for a {state:?} node"));
        }
        let mut edges = Vec::with_capacity(count);
        for k in edge_at..edge_at + count {
            let raw = u32::from_le_bytes(children[k * 4..k * 4 + 4].try_into().expect("4"));
            let child = raw & !REPEAT_BIT;
            if child as usize >= n {
                return Err(format!("node {i}: an edge to node {child}, past the last"));
            }
            edges.push((
                child,
                raw & REPEAT_BIT != 0,
                [moves[k * 2], moves[k * 2 + 1]],
            ));
        }
        edge_at += count;
        nodes.push((
            pos,
            Node {
                pos,
                state,
                value: i16::from_le_bytes([values[i * 2], values[i * 2 + 1]]),
                depth: u16::from_le_bytes([depths[i * 2], depths[i * 2 + 1]]),
                asked: u32::from_le_bytes(asked[i * 4..i * 4 + 4].try_into().expect("4")),
                exhausted: flags[i] & 0b1_0000 != 0,
                edges: Vec::new(),
            },
            edges,
        ));
    }
    if edge_at != e {
        return Err(format!("{edge_at} edges listed, {e} announced"));
    }
    if nodes[0].0 != root {
        return Err(format!(
            "the first node is {}, not the root {root}",
            nodes[0].0
        ));
    }
    let positions: Vec<KiothiPosition> = nodes.iter().map(|t| t.0).collect();
    let mut out = Vec::with_capacity(n);
    for (i, (pos, mut node, edges)) in nodes.into_iter().enumerate() {
        for (child, repeat, mv) in edges {
            let to = &positions[child as usize];
            let mv = decode_move(&pos, to, mv).map_err(|m| format!("node {i}: {m}"))?;
            let gain = KiothiPosition::capture_gain(&pos, to);
            node.edges.push(Edge {
                mv,
                child,
                gain: gain.clamp(0, u8::MAX as i32) as u8,
                repeat,
            });
        }
        out.push(node);
    }
    let dag = Dag::from_nodes(out)?;
    Ok(BookState {
        params: h.params,
        provider: h.provider.clone(),
        dag,
        expansions: h.expansions,
        batches: h.batches,
        engine_nodes: h.engine_nodes,
    })
}

fn unpack_root(packed: &[u8; POSITION_LEN], setup: Setup) -> Result<KiothiPosition, String> {
    let board: u32 = packed[..PITS].iter().map(|&c| c as u32).sum();
    let root = unpack_position(packed, setup, board)?;
    if root.phase() != Phase::Opening || root.side() != Side::South {
        return Err(format!("the root {root} is not a turn-1 position"));
    }
    Ok(root)
}

/// A packed position, checked: warriors (board and prisons) making
/// `total`; marks only in play, on occupied pits; no prisons in the opening.
fn unpack_position(
    packed: &[u8; POSITION_LEN],
    setup: Setup,
    total: u32,
) -> Result<KiothiPosition, String> {
    let mut pits = [0u8; PITS];
    pits.copy_from_slice(&packed[..PITS]);
    let protected = u32::from_le_bytes([packed[PITS], packed[PITS + 1], packed[PITS + 2], 0]);
    let flags = packed[PITS + 3];
    let prisons = [packed[PITS + 4] as u16, packed[PITS + 5] as u16];
    let pos = KiothiPosition {
        pits,
        protected,
        side: if flags & 1 != 0 {
            Side::North
        } else {
            Side::South
        },
        phase: if flags & 2 != 0 {
            Phase::Play
        } else {
            Phase::Opening
        },
        prisons,
        setup,
    };
    let board: u32 = pits.iter().map(|&c| c as u32).sum();
    if board + prisons[0] as u32 + prisons[1] as u32 != total {
        return Err(format!(
            "{board} warriors on the board and {prisons:?} in prison, not {total}"
        ));
    }
    let occupied = (0..PITS).fold(0u32, |m, i| m | ((pits[i] > 0) as u32) << i);
    if protected & !occupied != 0 {
        return Err("a protected pit is empty".into());
    }
    if pos.phase == Phase::Opening && (protected != 0 || prisons != [0, 0]) {
        return Err("marks or prisons in the opening".into());
    }
    Ok(pos)
}

/// The move of an edge from `from` to `to`, encoded as `mv`.
fn decode_move(
    from: &KiothiPosition,
    to: &KiothiPosition,
    mv: [u8; 2],
) -> Result<KiothiMove, String> {
    let [a, b] = mv;
    if from.phase() == Phase::Play {
        if a as usize >= PITS || b == 0 {
            return Err(format!("a move {a}x{b}"));
        }
        return Ok(KiothiMove::Play { pit: a, count: b });
    }
    if a as usize >= PITS || b as usize >= PITS || a > b {
        return Err(format!("a move lifting pits {a} and {b}"));
    }
    let lifted: &[u8] = if a == b { &[a] } else { &[a, b] };
    let (src, dst) = (from.pits(), to.pits());
    let mut placed = [0u8; PITS];
    for i in 0..PITS {
        let left = if lifted.contains(&(i as u8)) {
            0
        } else {
            src[i]
        };
        placed[i] = dst[i]
            .checked_sub(left)
            .ok_or_else(|| format!("an opening move that takes warriors from pit {i}"))?;
    }
    Ok(KiothiMove::Opening(OpeningMove::new(lifted, placed)))
}

/// Reads the book at `path`.
pub fn read(path: &Path) -> Result<BookState, BookError> {
    let bytes = std::fs::read(path).map_err(|e| BookError::io(path, e))?;
    decode(&bytes, path)
}

/// Writes `book` to `path` whole (a temporary file renamed over it).
pub fn write(path: &Path, book: &BookState) -> Result<(), BookError> {
    crate::infra::files::write_atomic(path, &encode(book)).map_err(|e| BookError::Io {
        path: e.path,
        source: e.source,
    })
}

/// A book's positions replayed: every edge's move, played from its node,
/// must lead to its child. `Err` names the first that does not.
pub fn verify_moves(book: &BookState) -> Result<(), String> {
    for (i, node) in book.dag.nodes().iter().enumerate() {
        for e in &node.edges {
            let child = &book.dag.node(e.child).pos;
            match node.pos.play_move(&e.mv) {
                Some(p) if p == *child => {}
                _ => return Err(format!("node {i}: {} does not lead to {child}", e.mv)),
            }
        }
    }
    Ok(())
}
