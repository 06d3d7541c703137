//! Where the values of positions come from, chosen in one place for the
//! command line (`eval`, `analyze`, `play`) and the web oracle: a Kpé
//! position is valued exactly from its solved database (a small variant
//! without one is solved on the fly) unless a search is asked for; any
//! other is searched within a budget, through Kiothi's endgame tables
//! where they reach.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};

use super::book_oracle::{kiothi_lookup, reply_limits, BookOracle};
use super::kpe_db;
use super::oracle::{KpeOracle, Oracle, SearchOracle};
use super::search_budget::Budget;
use crate::book::Book;
use crate::error::CliError;
use crate::games::kiothi::{KiothiPosition, Setup};
use crate::games::kpe::{KpePosition, KpeVariant};
use crate::infra::progress::Progress;
use crate::kiothi_tables::KiothiEndgames;
use crate::kpe_db::{endgame_positions, Solution, ON_THE_FLY_POSITIONS};
use crate::search::{ExactValues, NoTables, Searchable};

/// A Kpé variant's exact oracle, shared by the questions asked of it
/// (one at a time).
pub type SharedKpeOracle = Arc<Mutex<KpeOracle>>;

/// A game's exact oracle, shared as [`SharedKpeOracle`] is.
pub type SharedOracle<G> = Arc<Mutex<dyn Oracle<G> + Send>>;

/// The database directory, the Kpé oracles opened from it (each variant
/// once) and the Kiothi endgame tables (loaded when first needed).
pub struct ValueSources {
    db: PathBuf,
    /// The directory as the user gave it, if they did (the tables refuse
    /// one that is not a directory).
    given: Option<PathBuf>,
    /// Largest Kpé variant (unlocked positions) solved on the fly when its
    /// database is missing; a larger one must have its database.
    solve_positions: u64,
    progress: Progress,
    kpe: Mutex<HashMap<KpeVariant, SharedKpeOracle>>,
    tables: OnceLock<Arc<KiothiEndgames>>,
    /// Kiothi's opening books, standard and five-pit setups (loaded when
    /// first needed; `None` when the setup has none).
    books: [OnceLock<Option<Arc<Book>>>; 2],
}

impl ValueSources {
    /// The sources of the database directory `db` (`None`: the default,
    /// `kpe_db::db_dir`); `progress` shows a database opened or solved.
    pub fn new(db: Option<&Path>, progress: Progress) -> Self {
        ValueSources {
            db: kpe_db::db_dir(db),
            given: db.map(Path::to_path_buf),
            solve_positions: ON_THE_FLY_POSITIONS,
            progress,
            kpe: Mutex::new(HashMap::new()),
            tables: OnceLock::new(),
            books: Default::default(),
        }
    }

    /// The same, taking its Kiothi values from `tables` rather than from
    /// the directory.
    pub fn with_tables(self, tables: Arc<KiothiEndgames>) -> Self {
        ValueSources {
            tables: OnceLock::from(tables),
            ..self
        }
    }

    /// The same, solving on the fly no variant above `positions`.
    pub fn solving_up_to(self, positions: u64) -> Self {
        ValueSources {
            solve_positions: positions,
            ..self
        }
    }

    pub fn db(&self) -> &Path {
        &self.db
    }

    /// A variant's exact oracle: its database opened (or a small variant
    /// solved in memory) once, and kept.
    pub fn kpe(&self, variant: KpeVariant) -> Result<SharedKpeOracle, CliError> {
        let mut map = self.kpe.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(o) = map.get(&variant) {
            return Ok(o.clone());
        }
        let solution = if endgame_positions(variant) > self.solve_positions {
            // Too large to solve here: its database or a named refusal.
            Solution::open(variant, &self.db)?
        } else {
            Solution::open_or_solve(variant, &self.db, self.progress)?
        };
        let oracle = Arc::new(Mutex::new(KpeOracle::new(solution, self.progress)));
        map.insert(variant, oracle.clone());
        Ok(oracle)
    }

    /// The Kiothi endgame tables: every stone count the directory has,
    /// memory-mapped and checked (none when it has none), loaded once.
    pub fn kiothi_tables(&self) -> Result<Arc<KiothiEndgames>, CliError> {
        if let Some(t) = self.tables.get() {
            return Ok(t.clone());
        }
        let tables = super::kiothi_tables::for_search(self.given.as_deref())?;
        Ok(self.tables.get_or_init(|| tables).clone())
    }

    /// The setup's shipped opening book (`book::probe::shipped_path`),
    /// read and checked once; `None` when there is none.
    pub fn kiothi_book(&self, setup: Setup) -> Result<Option<Arc<Book>>, CliError> {
        let slot = &self.books[(setup == Setup::FivePit) as usize];
        if let Some(book) = slot.get() {
            return Ok(book.clone());
        }
        let book = match crate::book::probe::shipped_path(setup) {
            Some(path) => Some(Arc::new(Book::open(&path).map_err(|e| e.refusal("book"))?)),
            None => None,
        };
        let book = book.filter(|b| b.root() == &KiothiPosition::start(setup));
        Ok(slot.get_or_init(|| book).clone())
    }

    /// A search within `budget` that takes the game's exact values
    /// ([`Valued::exact_values`]); `stop` ends it early.
    pub fn search_oracle<G: Valued>(
        &self,
        budget: &Budget,
        stop: Arc<AtomicBool>,
    ) -> Result<SearchOracle<G>, CliError> {
        let limits = budget.limits()?;
        let oracle = SearchOracle::new(limits, budget.threads, budget.table()?, stop);
        Ok(oracle.with_exact(G::exact_values(self)?))
    }

    /// Runs `f` with the oracle of `pos`'s game: its exact one when
    /// `exact` is asked and the game has one (Kpé's database), else a
    /// search within `budget`, under the game's opening book if it has one
    /// (Kiothi).
    pub fn with_oracle<G: Valued, T>(
        &self,
        pos: &G,
        exact: bool,
        budget: &Budget,
        stop: Arc<AtomicBool>,
        f: impl FnOnce(&mut dyn Oracle<G>) -> Result<T, CliError>,
    ) -> Result<T, CliError> {
        if let Some(oracle) = exact.then(|| G::exact_oracle(self, pos)).flatten() {
            let oracle = oracle?;
            let mut guard = oracle.lock().unwrap_or_else(|e| e.into_inner());
            return f(&mut *guard);
        }
        let mut search = self.search_oracle::<G>(budget, stop)?;
        G::with_book(self, pos, budget, &mut search, f)
    }
}

/// A game's own sources of exact values.
pub trait Valued: Searchable {
    /// The exact values a search takes where they reach (Kiothi's endgame
    /// tables; none for Kpé).
    fn exact_values(sources: &ValueSources) -> Result<Arc<dyn ExactValues<Self>>, CliError>;

    /// The exact oracle of `pos`, when the game has one (Kpé's database).
    fn exact_oracle(
        sources: &ValueSources,
        pos: &Self,
    ) -> Option<Result<SharedOracle<Self>, CliError>>;

    /// Runs `f` with `inner` under the opening answers of `pos`'s game when
    /// it has them (Kiothi: its opening book, and the reply search within
    /// `budget` at turn 2), else with `inner`.
    fn with_book<T>(
        sources: &ValueSources,
        pos: &Self,
        budget: &Budget,
        inner: &mut dyn Oracle<Self>,
        f: impl FnOnce(&mut dyn Oracle<Self>) -> Result<T, CliError>,
    ) -> Result<T, CliError>;
}

impl Valued for KpePosition {
    fn exact_values(_: &ValueSources) -> Result<Arc<dyn ExactValues<Self>>, CliError> {
        Ok(Arc::new(NoTables))
    }

    fn exact_oracle(
        sources: &ValueSources,
        pos: &Self,
    ) -> Option<Result<SharedOracle<Self>, CliError>> {
        Some(sources.kpe(pos.variant()).map(|o| o as _))
    }

    fn with_book<T>(
        _: &ValueSources,
        _: &Self,
        _: &Budget,
        inner: &mut dyn Oracle<Self>,
        f: impl FnOnce(&mut dyn Oracle<Self>) -> Result<T, CliError>,
    ) -> Result<T, CliError> {
        f(inner)
    }
}

impl Valued for KiothiPosition {
    fn exact_values(sources: &ValueSources) -> Result<Arc<dyn ExactValues<Self>>, CliError> {
        Ok(sources.kiothi_tables()?)
    }

    fn exact_oracle(_: &ValueSources, _: &Self) -> Option<Result<SharedOracle<Self>, CliError>> {
        None
    }

    fn with_book<T>(
        sources: &ValueSources,
        pos: &Self,
        budget: &Budget,
        inner: &mut dyn Oracle<Self>,
        f: impl FnOnce(&mut dyn Oracle<Self>) -> Result<T, CliError>,
    ) -> Result<T, CliError> {
        let book = sources.kiothi_book(pos.setup())?;
        let mut oracle = BookOracle {
            lookup: kiothi_lookup(book.as_deref(), reply_limits(budget)),
            inner,
        };
        f(&mut oracle)
    }
}
