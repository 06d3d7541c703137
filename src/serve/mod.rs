//! `sow serve`: the web oracle. An axum server on tokio with the page's
//! HTML, CSS and JavaScript embedded in the binary (no network beyond the
//! listening socket), a JSON API with the CLI's models and error contract,
//! and bounded, cancellable searches.
//!
//! Layers: below `cli/` (whose `sow serve` binds it, prints the address and
//! serves) and above `analysis/` and `report/`, whose models and code paths
//! the API answers with, as the commands do.

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

use crate::error::{CliError, ErrorKind};
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
                ErrorKind::Io,
                None,
                format!("cannot start the server's runtime: {e}"),
            )
        })
}

/// A server listening on its address, not yet answering: the caller can
/// print the address first (`sow serve`), then serve.
pub struct Bound {
    pub addr: SocketAddr,
    rt: tokio::runtime::Runtime,
    listener: TcpListener,
}

/// Listens on `addr` (port 0 picks a free one: see [`Bound::addr`]).
pub fn bind(addr: SocketAddr) -> Result<Bound, CliError> {
    let rt = runtime()?;
    let listener = rt
        .block_on(TcpListener::bind(addr))
        .map_err(|e| CliError::usage("port", format!("cannot listen on {addr}: {e}")))?;
    let addr = listener.local_addr()?;
    Ok(Bound { addr, rt, listener })
}

impl Bound {
    /// Serves on this thread until Ctrl-C.
    pub fn serve_until_ctrl_c(self, state: AppState) {
        self.rt
            .block_on(serve(self.listener, Arc::new(state), async {
                let _ = tokio::signal::ctrl_c().await;
            }));
    }

    /// Serves on a thread of its own (tests, embedding) until the
    /// [`Running`] handle stops it.
    pub fn spawn(self, state: AppState) -> Running {
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let Bound { addr, rt, listener } = self;
        let state = Arc::new(state);
        let thread = std::thread::spawn(move || {
            rt.block_on(serve(listener, state, async {
                let _ = rx.await;
            }))
        });
        Running {
            addr,
            stop: Some(tx),
            thread: Some(thread),
        }
    }
}

/// Starts a server on its own thread (tests, embedding) and returns once it
/// listens.
pub fn spawn(addr: SocketAddr, state: AppState) -> Result<Running, CliError> {
    Ok(bind(addr)?.spawn(state))
}

/// How long open connections may take to finish once the server is told
/// to stop: searches stop at once, but a client that sent half a request
/// (or keeps one open) would otherwise hold Ctrl-C off for as long as it
/// likes.
pub const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// Serves until `shutdown` completes, then stops every search and lets the
/// open requests finish, for at most [`SHUTDOWN_GRACE`].
async fn serve(
    listener: TcpListener,
    state: Arc<AppState>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) {
    let app = router(state.clone());
    let stopper = state.clone();
    let (stopped_tx, stopped_rx) = tokio::sync::oneshot::channel::<()>();
    let signal = async move {
        shutdown.await;
        stopper.stop_all();
        let _ = stopped_tx.send(());
    };
    let server = axum::serve(listener, app).with_graceful_shutdown(signal);
    let grace_over = async move {
        if stopped_rx.await.is_ok() {
            tokio::time::sleep(SHUTDOWN_GRACE).await;
        } else {
            std::future::pending::<()>().await;
        }
    };
    tokio::select! {
        served = server => {
            if let Err(e) = served {
                eprintln!("error: serving: {e}");
            }
        }
        () = grace_over => {}
    }
}
