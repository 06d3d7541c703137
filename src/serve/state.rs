//! What every request shares: the value sources (the database directory,
//! its open Kpé solutions, the Kiothi endgame tables), the search slots (a
//! semaphore bounding concurrent searches), the stop flags of each
//! client's running search, and the limits.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Semaphore;

use crate::analysis::search_budget::SERVE_SECONDS;
use crate::analysis::value_sources::ValueSources;
use crate::infra::progress::Progress;
use crate::kiothi_tables::KiothiEndgames;

/// The server's limits on what one request may ask for.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Searches that run at once (the semaphore's permits).
    pub searches: usize,
    /// Threads of one search.
    pub threads: usize,
    /// Transposition table of one search, MiB.
    pub hash_mb: usize,
    /// Search time when a request gives neither `time` nor `depth`.
    pub default_seconds: f64,
    /// `time` is capped to this.
    pub max_seconds: f64,
    /// `depth` is capped to this.
    pub max_depth: u32,
    /// How long a search may wait for a slot before it is refused.
    pub queue_wait: Duration,
    /// Largest request body (`POST /api/analyze`), bytes.
    pub max_body: usize,
    /// Longest move list of `/api/apply` and of an analysed game.
    pub max_moves: usize,
    /// Longest time one request may take, whatever it does (a search is
    /// capped by `max_seconds`; a Kpé database opened, a variant or a
    /// locked region solved on demand are not): then it is answered with
    /// the `timeout` error (503) and its search told to stop.
    pub request_time: Duration,
    /// Largest Kpé variant (unlocked positions) solved in memory on demand
    /// when its database is missing.
    pub solve_positions: u64,
}

impl Limits {
    pub fn new(searches: usize, max_seconds: f64) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Limits {
            searches,
            // The cores are shared by the searches that run at once.
            threads: (cores / searches).max(1),
            hash_mb: 64,
            default_seconds: SERVE_SECONDS.min(max_seconds),
            max_seconds,
            max_depth: 64,
            queue_wait: Duration::from_secs(60),
            max_body: 256 * 1024,
            max_moves: 2000,
            request_time: Duration::from_secs_f64(max_seconds + REQUEST_MARGIN_SECONDS),
            solve_positions: crate::kpe_db::ON_THE_FLY_POSITIONS,
        }
    }
}

/// What a request may take beyond the longest search (`--max-time`).
pub const REQUEST_MARGIN_SECONDS: f64 = 10.0;

/// The shared state of the server.
pub struct AppState {
    /// Where values come from: the Kpé database directory (the only files
    /// the server reads), one exact oracle per Kpé variant asked for (its
    /// database opened, or solved in memory, once), and the Kiothi endgame
    /// tables every Kiothi search takes exact values from (none unless
    /// [`AppState::with_kiothi_tables`]).
    pub sources: ValueSources,
    pub limits: Limits,
    slots: Arc<Semaphore>,
    /// The stop flag of each client's current search.
    clients: Mutex<HashMap<String, Arc<AtomicBool>>>,
    /// Every search's stop flag, set all at once on shutdown.
    shutdown: AtomicBool,
    anonymous: AtomicU64,
}

/// Longest client id accepted (the page sends a random one).
pub const MAX_CLIENT_ID: usize = 64;

impl AppState {
    pub fn new(db: PathBuf, limits: Limits) -> Self {
        let sources = ValueSources::new(Some(&db), Progress::auto(true))
            .solving_up_to(limits.solve_positions)
            .with_tables(Arc::new(KiothiEndgames::empty()));
        AppState {
            sources,
            slots: Arc::new(Semaphore::new(limits.searches)),
            limits,
            clients: Mutex::new(HashMap::new()),
            shutdown: AtomicBool::new(false),
            anonymous: AtomicU64::new(0),
        }
    }

    /// The state whose Kiothi searches take exact values from `tables`.
    pub fn with_kiothi_tables(self, tables: Arc<KiothiEndgames>) -> Self {
        AppState {
            sources: self.sources.with_tables(tables),
            ..self
        }
    }

    /// A fresh stop flag for a search of `client` (anonymous searches get
    /// a key of their own); the client's previous search, running or
    /// waiting, is told to stop. The ticket stops its search when dropped
    /// (the request was answered, or its connection closed).
    pub fn claim(self: &Arc<Self>, client: Option<&str>) -> Ticket {
        let flag = Arc::new(AtomicBool::new(self.shutdown.load(Ordering::SeqCst)));
        let key = match client {
            Some(id) => format!("c:{id}"),
            None => format!("#{}", self.anonymous.fetch_add(1, Ordering::Relaxed)),
        };
        let mut map = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(old) = map.insert(key.clone(), flag.clone()) {
            old.store(true, Ordering::SeqCst);
        }
        Ticket {
            state: self.clone(),
            key,
            flag,
        }
    }

    /// Stops `client`'s search; true if one was running or waiting.
    pub fn stop(&self, client: &str) -> bool {
        let map = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        map.get(&format!("c:{client}")).is_some_and(|f| {
            f.store(true, Ordering::SeqCst);
            true
        })
    }

    /// Stops every search (shutdown): later ones start stopped.
    pub fn stop_all(&self) {
        self.shutdown.store(true, Ordering::SeqCst);
        let map = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        for f in map.values() {
            f.store(true, Ordering::SeqCst);
        }
    }

    pub fn slots(&self) -> Arc<Semaphore> {
        self.slots.clone()
    }
}

/// One search's claim on its client's slot: its stop flag.
pub struct Ticket {
    state: Arc<AppState>,
    key: String,
    pub flag: Arc<AtomicBool>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.flag.store(true, Ordering::SeqCst);
        let mut map = self.state.clients.lock().unwrap_or_else(|e| e.into_inner());
        if map
            .get(&self.key)
            .is_some_and(|f| Arc::ptr_eq(f, &self.flag))
        {
            map.remove(&self.key);
        }
    }
}
