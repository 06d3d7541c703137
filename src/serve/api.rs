//! The JSON API: query parameters in, the CLI's `--json` models out, and
//! the CLI's error contract (HTTP 400 with `{"error":{kind,field,message}}`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use axum::extract::rejection::StringRejection;
use axum::extract::{FromRequestParts, Query, State};
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

use super::state::{AppState, MAX_CLIENT_ID};
use super::values;
use crate::analysis::game_replay::{find_start, StartError};
use crate::analysis::game_text::{parse_game_text, GameTextError};
use crate::analysis::levels::Level;
use crate::analysis::position_models::{apply_moves, split_moves, MovesModel, ShowModel};
use crate::analysis::search_budget::{Budget, SERVE_ANALYZE_SECONDS};
use crate::error::{CliError, ErrorKind};
use crate::games::{parse_any, AnyPosition};
use crate::infra::files::Sorted;

/// A refused request: the CLI's error object and an HTTP status.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub error: CliError,
}

impl From<CliError> for ApiError {
    fn from(error: CliError) -> Self {
        let status = match error.kind {
            ErrorKind::Internal | ErrorKind::Io => StatusCode::INTERNAL_SERVER_ERROR,
            ErrorKind::Busy => StatusCode::SERVICE_UNAVAILABLE,
            ErrorKind::Cancelled => StatusCode::CONFLICT,
            _ => StatusCode::BAD_REQUEST,
        };
        ApiError { status, error }
    }
}

impl From<crate::InputError> for ApiError {
    fn from(e: crate::InputError) -> Self {
        CliError::from(e).into()
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(self.error.to_json())).into_response()
    }
}

type ApiResult = Result<Response, ApiError>;

fn usage(field: &str, message: impl Into<String>) -> ApiError {
    CliError::usage(field, message).into()
}

/// The query parameters of a request, each given at most once, checked
/// against the names the endpoint knows.
pub struct Params(HashMap<String, String>);

impl<S: Send + Sync> FromRequestParts<S> for Params {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let Query(pairs) = Query::<Vec<(String, String)>>::try_from_uri(&parts.uri)
            .map_err(|e| usage("query", format!("malformed query string: {e}")))?;
        let mut map = HashMap::new();
        for (k, v) in pairs {
            if map.contains_key(&k) {
                return Err(usage(&k, format!("parameter `{k}` given twice")));
            }
            map.insert(k, v);
        }
        Ok(Params(map))
    }
}

impl Params {
    /// Refuses parameters the endpoint does not know (a typo is an error,
    /// not a silent default).
    fn only(&self, known: &[&str]) -> Result<(), ApiError> {
        let mut names: Vec<&String> = self.0.keys().collect();
        names.sort();
        match names.into_iter().find(|k| !known.contains(&k.as_str())) {
            Some(k) if known.is_empty() => Err(usage(
                k,
                format!("unknown parameter `{k}` (this endpoint takes none)"),
            )),
            Some(k) => Err(usage(
                k,
                format!("unknown parameter `{k}` (expected {})", known.join(", ")),
            )),
            None => Ok(()),
        }
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// The `position` parameter: notation or a start shortcut.
    fn position(&self) -> Result<AnyPosition, ApiError> {
        let text = self
            .get("position")
            .ok_or_else(|| usage("position", "missing parameter `position`"))?;
        Ok(parse_any(text)?)
    }

    fn number<T: std::str::FromStr>(&self, name: &str, what: &str) -> Result<Option<T>, ApiError> {
        self.get(name)
            .map(|t| {
                t.trim()
                    .parse()
                    .map_err(|_| usage(name, format!("`{name}` must be {what}, found `{t}`")))
            })
            .transpose()
    }

    /// The client id whose previous search a new one cancels.
    fn client(&self) -> Result<Option<&str>, ApiError> {
        match self.get("client") {
            Some(id)
                if id.is_empty()
                    || id.len() > MAX_CLIENT_ID
                    || !id
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') =>
            {
                Err(usage(
                    "client",
                    format!("`client` must be 1 to {MAX_CLIENT_ID} letters, digits, `-` or `_`"),
                ))
            }
            other => Ok(other),
        }
    }

    /// The search budget: `depth` (capped), `time` (capped), or the
    /// default time; `depth` and `time` together stop at the first reached.
    fn budget(&self, state: &AppState) -> Result<Budget, ApiError> {
        let limits = &state.limits;
        let depth: Option<u32> = self.number("depth", "a whole number of plies")?;
        let seconds: Option<f64> = self.number("time", "a number of seconds")?;
        if depth == Some(0) {
            return Err(usage("depth", "`depth` must be at least 1"));
        }
        if let Some(s) = seconds {
            if !crate::search::Limits::takes_seconds(s) {
                let least = crate::search::Limits::MIN_SECONDS;
                return Err(usage(
                    "time",
                    format!("`time` must be a number of seconds, at least {least}, found {s}"),
                ));
            }
        }
        let seconds = match (depth, seconds) {
            // A depth alone still ends within the server's cap.
            (_, Some(s)) => Some(s.min(limits.max_seconds)),
            (Some(_), None) => Some(limits.max_seconds),
            (None, None) => Some(limits.default_seconds),
        };
        Ok(Budget {
            depth: depth.map(|d| d.min(limits.max_depth)),
            seconds,
            nodes: None,
            hash_mb: limits.hash_mb,
            threads: limits.threads,
        })
    }

    fn searched(&self) -> bool {
        self.get("depth").is_some() || self.get("time").is_some()
    }
}

/// A JSON body already serialized (the CLI's own bytes).
fn json_text(text: String) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], text).into_response()
}

fn json_model<T: Serialize>(model: &T) -> ApiResult {
    let text = serde_json::to_string(model)
        .map_err(|e| CliError::new(ErrorKind::Internal, None, format!("serializing: {e}")))?;
    Ok(json_text(text))
}

/// `GET /api/show?position=P`: as `sow show --json P`.
pub async fn show(q: Params) -> ApiResult {
    q.only(&["position"])?;
    let pos = q.position()?;
    crate::with_position!(&pos, p => json_model(&ShowModel::new(p)))
}

/// `GET /api/moves?position=P`: as `sow moves --json P` (count only above
/// 10,000 moves).
pub async fn moves(q: Params) -> ApiResult {
    q.only(&["position"])?;
    let pos = q.position()?;
    crate::with_position!(&pos, p => json_model(&MovesModel::new(p)))
}

/// `GET /api/apply?position=P&moves=M1,M2`: as `sow apply --json P M1 M2`.
pub async fn apply(State(state): State<Arc<AppState>>, q: Params) -> ApiResult {
    q.only(&["position", "moves"])?;
    let pos = q.position()?;
    let text = q
        .get("moves")
        .ok_or_else(|| usage("moves", "missing parameter `moves`"))?;
    let moves = split_moves(text);
    if moves.is_empty() {
        return Err(usage("moves", "`moves` lists no move"));
    }
    if moves.len() > state.limits.max_moves {
        return Err(usage(
            "moves",
            format!("at most {} moves per request", state.limits.max_moves),
        ));
    }
    crate::with_position!(&pos, p => {
        let (model, _) = apply_moves(p, &moves, |_, _, _| {}).map_err(CliError::from)?;
        json_model(&model)
    })
}

/// Runs `work` on the blocking pool once a search slot is free, with the
/// stop flag of `client`'s new search (which stops its previous one).
pub async fn searching<T: Send + 'static>(
    state: &Arc<AppState>,
    client: Option<&str>,
    work: impl FnOnce(Arc<AtomicBool>) -> Result<T, CliError> + Send + 'static,
) -> Result<T, ApiError> {
    let ticket = state.claim(client);
    let permit = tokio::time::timeout(state.limits.queue_wait, state.slots().acquire_owned())
        .await
        .map_err(|_| {
            CliError::new(
                ErrorKind::Busy,
                None,
                "every search slot stayed busy; try again",
            )
        })?
        .map_err(|_| CliError::new(ErrorKind::Busy, None, "the server is shutting down"))?;
    if ticket.flag.load(Ordering::SeqCst) {
        return Err(CliError::new(
            ErrorKind::Cancelled,
            Some("client"),
            "cancelled by a newer search of the same client before it started",
        )
        .into());
    }
    let flag = ticket.flag.clone();
    let result = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        work(flag)
    })
    .await
    .map_err(|e| CliError::new(ErrorKind::Internal, None, format!("search failed: {e}")))?;
    drop(ticket);
    Ok(result?)
}

/// `GET /api/eval?position=P[&time=S|&depth=D][&client=ID]`: as
/// `sow eval --json P` (Kpé exact from the database unless `time` or
/// `depth` asks for a search).
pub async fn eval(State(state): State<Arc<AppState>>, q: Params) -> ApiResult {
    let model = position_search(state, q, values::evaluation).await?;
    json_model(&Sorted(&model))
}

/// `GET /api/values?position=P[&time=S|&depth=D][&client=ID]`: every legal
/// move with its value for the mover (Kpé exact; Kiothi by search).
pub async fn move_values(State(state): State<Arc<AppState>>, q: Params) -> ApiResult {
    let model = position_search(state, q, values::move_values).await?;
    json_model(&model)
}

/// The work of `eval` and `values`: the position, whether a search was
/// asked for, its budget and its stop flag.
type Work<T> = fn(&AppState, &AnyPosition, bool, Budget, Arc<AtomicBool>) -> Result<T, CliError>;

/// What `eval` and `values` share: the parameters `position`, `time` or
/// `depth`, and `client`, then `work` in one of the search slots.
async fn position_search<T: Send + 'static>(
    state: Arc<AppState>,
    q: Params,
    work: Work<T>,
) -> Result<T, ApiError> {
    q.only(&["position", "time", "depth", "client"])?;
    let pos = q.position()?;
    let budget = q.budget(&state)?;
    let searched = q.searched();
    let st = state.clone();
    searching(&state, q.client()?, move |stop| {
        work(&st, &pos, searched, budget, stop)
    })
    .await
}

/// `GET /api/play?position=P[&level=L][&time=S][&seed=N][&client=ID]`: the
/// oracle's move at a level (default `perfect`).
pub async fn play(State(state): State<Arc<AppState>>, q: Params) -> ApiResult {
    q.only(&["position", "level", "time", "depth", "client", "seed"])?;
    let pos = q.position()?;
    let budget = q.budget(&state)?;
    let level: Level = q.get("level").unwrap_or("perfect").parse()?;
    let seed: u64 = q.number("seed", "a whole number")?.unwrap_or(1);
    let st = state.clone();
    let model = searching(&state, q.client()?, move |stop| {
        values::oracle_move(&st, &pos, level, seed, budget, stop)
    })
    .await?;
    json_model(&model)
}

/// `POST /api/analyze[?time=S][&start=P][&record=N][&client=ID]` with a game
/// in the body, as `sow analyze` reads it: the object of `sow analyze
/// --json`. Kiothi positions get `time` seconds each (default 0.2), capped
/// so that the whole game takes at most the server's `--max-time`.
pub async fn analyze(
    State(state): State<Arc<AppState>>,
    q: Params,
    body: Result<String, StringRejection>,
) -> ApiResult {
    q.only(&["time", "start", "record", "client"])?;
    let body = body.map_err(|e| ApiError {
        status: e.status(),
        error: CliError::usage(
            "body",
            format!("the game could not be read: {}", e.body_text()),
        ),
    })?;
    let record: Option<usize> = q.number("record", "a whole number")?;
    let game = parse_game_text(&body, record).map_err(|e| match e {
        GameTextError::NotRecords => ApiError::from(CliError::new(
            ErrorKind::Malformed,
            Some("record"),
            "`record` picks a game of a JSON-lines file; this input holds one game",
        )),
        e => ApiError::from(CliError::from(e)),
    })?;
    if game.moves.len() > state.limits.max_moves {
        return Err(usage(
            "moves",
            format!("at most {} moves per game", state.limits.max_moves),
        ));
    }
    let start = find_start(&game, q.get("start")).map_err(|e| match e {
        StartError::NotFound(c) => ApiError::from(CliError::new(
            ErrorKind::Malformed,
            Some("start"),
            format!("{}: pass `start`", StartError::not_found(&c)),
        )),
        e => ApiError::from(CliError::from(e)),
    })?;
    let budget = q.budget(&state)?;
    let asked = match q.get("time") {
        Some(_) => budget.seconds.unwrap_or(SERVE_ANALYZE_SECONDS),
        None => SERVE_ANALYZE_SECONDS,
    };
    let seconds = asked.min(state.limits.max_seconds / (game.moves.len() + 1) as f64);
    let st = state.clone();
    let model = searching(&state, q.client()?, move |stop| {
        values::analysis(&st, &game, &start, seconds, budget, stop)
    })
    .await?;
    json_model(&Sorted(&model))
}

/// `POST /api/stop?client=ID`: stops the client's running search (it answers
/// with its best completed iteration).
pub async fn stop(State(state): State<Arc<AppState>>, q: Params) -> ApiResult {
    q.only(&["client"])?;
    let client = q
        .client()?
        .ok_or_else(|| usage("client", "missing parameter `client`"))?;
    json_model(&serde_json::json!({ "stopped": state.stop(client) }))
}

/// `GET /api/games`: the start shortcuts the page offers: Kiothi's two
/// setups and every Kpé variant with a database (or small enough to solve
/// on the fly).
pub async fn games(State(state): State<Arc<AppState>>, q: Params) -> ApiResult {
    q.only(&[])?;
    json_model(&values::games(state.sources.db()))
}

/// Anything else under `/api/`.
pub async fn not_found() -> ApiError {
    ApiError {
        status: StatusCode::NOT_FOUND,
        error: CliError::usage(
            "path",
            "no such endpoint (see docs/reference.md, `sow serve`, API)",
        ),
    }
}

/// A known path asked with another method (`POST /api/show`...).
pub async fn method_not_allowed() -> ApiError {
    ApiError {
        status: StatusCode::METHOD_NOT_ALLOWED,
        error: CliError::usage(
            "method",
            "method not allowed here (see docs/reference.md, `sow serve`, API)",
        ),
    }
}

/// The whole-request time limit (`Limits::request_time`): a request still
/// running then is answered with the `timeout` error (503) and dropped,
/// which stops its search (its ticket sets the stop flag). Work that
/// cannot be stopped (a Kpé variant or locked region being solved) ends
/// in the background and is kept, so the same request later succeeds.
pub async fn time_limit(
    State(state): State<Arc<AppState>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let limit = state.limits.request_time;
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(response) => response,
        Err(_) => ApiError {
            status: StatusCode::SERVICE_UNAVAILABLE,
            error: CliError::new(
                ErrorKind::Timeout,
                None,
                format!(
                    "the request took longer than the server's limit of {:.1} s (--max-time plus {:.0} s, \
                     its wait for a search slot included); try again later (a Kpé solve it started goes on \
                     and is kept)",
                    limit.as_secs_f64(),
                    super::state::REQUEST_MARGIN_SECONDS
                ),
            ),
        }
        .into_response(),
    }
}
