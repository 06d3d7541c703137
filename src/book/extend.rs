//! Building or extending a book file: take its lock, read it (or begin a
//! new book), grow it with checkpoints, write it.

use std::path::Path;
use std::time::{Duration, Instant};

use super::build::{grow, new_book, RunLimits, Stopped};
use super::error::BookError;
use super::file;
use super::lock::BookLock;
use super::provider::MoveProvider;
use super::state::{BookState, BuildParams};
use crate::games::kiothi::KiothiPosition;

/// The build parameters given on the command line: those not given are
/// the book's own (or, for a new book, the defaults).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Requested {
    pub seed: Option<u64>,
    pub leaf_nodes: Option<u64>,
    pub batch: Option<u32>,
    pub width: Option<u32>,
    pub depth_penalty: Option<u32>,
    pub max_ply: Option<u32>,
}

impl Requested {
    /// The parameters of a new book.
    pub fn new_params(&self) -> BuildParams {
        let d = BuildParams::default();
        BuildParams {
            seed: self.seed.unwrap_or(d.seed),
            leaf_nodes: self.leaf_nodes.unwrap_or(d.leaf_nodes),
            batch: self.batch.unwrap_or(d.batch),
            width: self.width.unwrap_or(d.width),
            depth_penalty: self.depth_penalty.unwrap_or(d.depth_penalty),
            max_ply: self.max_ply.unwrap_or(d.max_ply),
        }
    }

    /// Refuses a parameter given that differs from the book's.
    pub fn check(&self, book: &BuildParams, path: &Path) -> Result<(), BookError> {
        let pairs: [(&'static str, Option<u64>, u64); 6] = [
            ("seed", self.seed, book.seed),
            ("leaf-nodes", self.leaf_nodes, book.leaf_nodes),
            ("batch", self.batch.map(u64::from), book.batch as u64),
            ("width", self.width.map(u64::from), book.width as u64),
            (
                "depth-penalty",
                self.depth_penalty.map(u64::from),
                book.depth_penalty as u64,
            ),
            ("max-ply", self.max_ply.map(u64::from), book.max_ply as u64),
        ];
        for (field, given, found) in pairs {
            if let Some(g) = given.filter(|&g| g != found) {
                return Err(BookError::Parameter {
                    path: path.to_path_buf(),
                    field,
                    given: g.to_string(),
                    found: found.to_string(),
                });
            }
        }
        Ok(())
    }
}

/// What a run did.
#[derive(Debug)]
pub struct Extension {
    pub book: BookState,
    pub stopped: Stopped,
    /// The book was begun by this run.
    pub created: bool,
    pub added_expansions: u64,
    pub added_positions: usize,
    /// Bytes of the file written.
    pub file_bytes: u64,
}

/// Builds the book of `root` at `path`, or extends the one there, until a
/// limit of `limits`; writes it every `checkpoint` and when it stops
/// (Ctrl-C included). `on_batch` sees the book after every batch.
pub fn extend(
    path: &Path,
    root: &KiothiPosition,
    requested: &Requested,
    provider: &dyn MoveProvider,
    limits: &RunLimits,
    checkpoint: Duration,
    on_batch: &mut dyn FnMut(&BookState),
) -> Result<Extension, BookError> {
    let _lock = BookLock::acquire(path)?;
    let (mut book, created) = match std::fs::metadata(path) {
        Ok(_) => (open_for(path, root, requested, provider)?, false),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            (new_book(*root, requested.new_params(), provider), true)
        }
        Err(e) => return Err(BookError::io(path, e)),
    };
    let (expansions, positions) = (book.expansions, book.dag.len());
    let mut last_write = Instant::now();
    let mut written = false;
    let write = |book: &BookState| file::write(path, book);
    if created {
        write(&book)?;
        written = true;
    }
    let stopped = grow(&mut book, provider, limits, &mut |b| {
        on_batch(b);
        if last_write.elapsed() >= checkpoint {
            write(b)?;
            written = true;
            last_write = Instant::now();
        }
        Ok::<(), BookError>(())
    })?;
    if book.expansions != expansions || !written {
        write(&book)?;
    }
    let file_bytes = std::fs::metadata(path)
        .map_err(|e| BookError::io(path, e))?
        .len();
    Ok(Extension {
        added_expansions: book.expansions - expansions,
        added_positions: book.dag.len() - positions,
        book,
        stopped,
        created,
        file_bytes,
    })
}

/// The book at `path`, checked to be `root`'s, built with `requested` and `provider`.
fn open_for(
    path: &Path,
    root: &KiothiPosition,
    requested: &Requested,
    provider: &dyn MoveProvider,
) -> Result<BookState, BookError> {
    let book = file::read(path)?;
    if book.root() != root {
        return Err(BookError::OtherSetup {
            path: path.to_path_buf(),
            found: book.root().to_string(),
            wanted: root.to_string(),
        });
    }
    requested.check(&book.params, path)?;
    if book.provider != provider.name() {
        return Err(BookError::Parameter {
            path: path.to_path_buf(),
            field: "provider",
            given: provider.name().to_string(),
            found: book.provider.clone(),
        });
    }
    Ok(book)
}
