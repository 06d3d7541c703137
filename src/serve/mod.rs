//! `sow serve`: the web oracle. An axum server on tokio with the page's
//! HTML, CSS and JavaScript embedded in the binary (no network beyond the
//! listening socket), a JSON API with the CLI's models and error contract,
//! and bounded, cancellable searches.
//!
//! Layers: this module is an edge like `cli/` (it calls the commands' own
//! code paths, see `api`), and only `main.rs` calls it.

mod api;
mod assets;
mod state;
mod values;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::Router;
use tokio::net::TcpListener;

use crate::analysis::kpe_db;
use crate::cli::serve::ServeArgs;
use crate::cli::{CliError, Out};
pub use state::{AppState, Limits};

/// The whole application: page, assets and API.
pub fn router(state: Arc<AppState>) -> Router {
    let api = Router::new()
        .route("/show", get(api::show))
        .route("/moves", get(api::moves))
        .route("/apply", get(api::apply))
        .route("/eval", get(api::eval))
        .route("/values", get(api::move_values))
        .route("/play", get(api::play))
        .route("/analyze", post(api::analyze))
        .route("/stop", post(api::stop))
        .route("/games", get(api::games))
        .fallback(api::not_found)
        .method_not_allowed_fallback(api::method_not_allowed);
    Router::new()
        .route("/", get(assets::index))
        .route("/app.js", get(assets::script))
        .route("/style.css", get(assets::style))
        .nest("/api", api)
        .fallback(api::not_found)
        .method_not_allowed_fallback(api::method_not_allowed)
        .layer(DefaultBodyLimit::max(state.limits.max_body))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            api::time_limit,
        ))
        .with_state(state)
}

/// A running server (for tests): its address, and a handle that stops it.
pub struct Running {
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Running {
    /// Stops the server (running searches are told to stop) and waits.
    pub fn shutdown(mut self) {
        self.finish();
    }

    fn finish(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.finish();
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| {
            CliError::new(
                "io",
                None,
                format!("cannot start the server's runtime: {e}"),
            )
        })
}

async fn bind(addr: SocketAddr) -> Result<TcpListener, CliError> {
    TcpListener::bind(addr)
        .await
        .map_err(|e| CliError::usage("port", format!("cannot listen on {addr}: {e}")))
}

/// Starts a server on its own thread (tests, embedding) and returns once it
/// listens.
pub fn spawn(addr: SocketAddr, state: AppState) -> Result<Running, CliError> {
    let rt = runtime()?;
    let listener = rt.block_on(bind(addr))?;
    let addr = listener.local_addr()?;
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let state = Arc::new(state);
    let thread = std::thread::spawn(move || {
        rt.block_on(serve(listener, state, async {
            let _ = rx.await;
        }))
    });
    Ok(Running {
        addr,
        stop: Some(tx),
        thread: Some(thread),
    })
}

/// Serves until `shutdown` completes, then stops every search and lets the
/// open requests finish.
async fn serve(
    listener: TcpListener,
    state: Arc<AppState>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) {
    let app = router(state.clone());
    let stopper = state.clone();
    let signal = async move {
        shutdown.await;
        stopper.stop_all();
    };
    if let Err(e) = axum::serve(listener, app)
        .with_graceful_shutdown(signal)
        .await
    {
        eprintln!("error: serving: {e}");
    }
}

/// The largest `--max-time`, in seconds: a day.
pub const MAX_TIME_SECONDS: f64 = 86_400.0;

/// `sow serve`: listens (loopback by default), prints the address, serves
/// until Ctrl-C.
pub fn run(args: &ServeArgs, out: &mut Out) -> Result<(), CliError> {
    // Bounded: a request's time limit is a `Duration` (`--max-time 1e20`
    // overflowed it, a panic).
    if !(args.max_time > 0.0 && args.max_time <= MAX_TIME_SECONDS) {
        return Err(CliError::usage(
            "max-time",
            format!(
                "--max-time must be a positive number of seconds, at most {MAX_TIME_SECONDS} (a day), found {}",
                args.max_time
            ),
        ));
    }
    let tables = crate::cli::kiothi_tables::for_search(args.db.given())?;
    let state = Arc::new(
        AppState::new(
            kpe_db::db_dir(args.db.given()),
            Limits::new(args.searches as usize, args.max_time),
        )
        .with_kiothi_tables(tables),
    );
    let rt = runtime()?;
    let listener = rt.block_on(bind(SocketAddr::new(args.bind, args.port)))?;
    let addr = listener.local_addr()?;
    let url = format!("http://{addr}/");
    // Scripts and tests read the address from this line.
    writeln!(out.writer(), "sow serve: listening on {url} (Ctrl-C stops)")?;
    out.flush()?;
    if args.open {
        if let Err(e) = std::process::Command::new("xdg-open").arg(&url).spawn() {
            eprintln!("warning: could not open a browser ({e}); open {url} yourself");
        }
    }
    rt.block_on(serve(listener, state, async {
        let _ = tokio::signal::ctrl_c().await;
    }));
    writeln!(out.writer(), "sow serve: stopped")?;
    Ok(())
}
