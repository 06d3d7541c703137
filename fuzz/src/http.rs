//! The `http` target: `sow serve`'s router driven in-process (no socket:
//! `tower::ServiceExt::oneshot` on `serve::router`) with mutated request
//! lines, query strings and POST bodies.
//!
//! An input is `METHOD PATH[?QUERY]`, a newline, then the body. Every
//! answer must come within the runner's 1 s; every 4xx/5xx must be the
//! error contract's object `{"error":{"kind","field","message"}}` with a
//! one-line message; a 500 (`internal`: a panic in a handler's blocking
//! task, or a bug) is a finding; every 2xx under `/api/` must be JSON.
//! Request lines that are not HTTP (a bad method or URI) are refused by
//! the HTTP layer before any router runs: they count as refused `http/…`.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Method, Request, Uri};
use sow::serve::{router, AppState, Limits};
use tower::ServiceExt;

use crate::targets::{Input, Outcome, Target, Verdict};

/// The API's parameters and the router's own fields.
const API_FIELDS: &[&str] = &[
    "", "position", "moves", "time", "depth", "client", "level", "seed", "start", "record", "body",
    "query", "path", "method",
];

/// Characters kept as they are in a query value; the rest percent-encoded.
fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Request lines taken from the API tests and the README, over the seed
/// positions, plus the seed games as `POST /api/analyze` bodies.
fn seeds(seeds_dir: &Path) -> Vec<Vec<u8>> {
    let positions: Vec<String> = std::fs::read_to_string(seeds_dir.join("positions.txt"))
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    let mut out: Vec<String> = [
        "GET /",
        "GET /app.js",
        "GET /style.css",
        "GET /api/games",
        "GET /api/show?position=kpe",
        "GET /api/moves?position=kiothi",
        "GET /api/apply?position=kpe&moves=2,4",
        "GET /api/apply?position=kpe:3x2&moves=0%201%202",
        "GET /api/eval?position=kpe:3x2",
        "GET /api/eval?position=kpe:3x2%202,2,2,2,2,2%20S%20x.x%20...%200%200",
        "GET /api/eval?position=kiothi&depth=2",
        "GET /api/eval?position=kpe:2x2&time=0.5&client=tab-1",
        "GET /api/values?position=kpe:3x2",
        "GET /api/values?position=kiothi:5&depth=1",
        "GET /api/play?position=kpe:3x2&level=good&seed=7",
        "GET /api/play?position=kiothi&level=random&client=a_b",
        "POST /api/stop?client=tab-1",
        "GET /api/nothing",
        "POST /api/show?position=kpe",
        "GET /api/show?position=kpe&position=kiothi",
        "GET /api/eval?position=kpe:3x2&depth=0",
        "GET /api/eval?position=kpe:3x2&time=-1",
        "POST /api/analyze?time=0.1\nkpe:3x2\n0 3 1 4",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let endpoints = ["show", "moves", "eval", "values", "play"];
    for (i, p) in positions.iter().enumerate() {
        let e = endpoints[i % endpoints.len()];
        out.push(format!("GET /api/{e}?position={}", encode(p)));
        out.push(format!("GET /api/apply?position={}&moves=0", encode(p)));
    }
    let games = std::fs::read_dir(seeds_dir.join("games"))
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()));
    let mut games: Vec<_> = games.collect();
    games.sort();
    for g in games {
        if let Ok(text) = std::fs::read_to_string(&g) {
            out.push(format!("POST /api/analyze?time=0.01\n{text}"));
        }
    }
    out.into_iter().map(String::into_bytes).collect()
}

/// The server's state for fuzzing: one search at a time, searches of a
/// few milliseconds, a small table, a short request limit, and only tiny
/// variants solved on demand (a larger one is a named refusal), so that
/// every answer comes well within 1 s.
fn state(db: &Path) -> AppState {
    let mut limits = Limits::new(1, 0.005);
    limits.hash_mb = 1;
    limits.threads = 1;
    limits.queue_wait = Duration::from_millis(300);
    limits.request_time = Duration::from_millis(600);
    limits.solve_positions = 20_000;
    AppState::new(db.to_path_buf(), limits)
}

pub fn target(seeds_dir: &Path, db: &Path) -> Result<Target, String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("runtime: {e}"))?;
    let app = router(Arc::new(state(db)));
    Ok(Target {
        name: "http",
        what: "`sow serve`'s router in-process: request line (method, path, query string) and POST body",
        input: Input::Text,
        seeds: seeds(seeds_dir),
        run: Box::new(move |b| request(&rt, &app, b)),
    })
}

fn request(rt: &tokio::runtime::Runtime, app: &axum::Router, b: &[u8]) -> Outcome {
    let (line, body) = match b.iter().position(|&c| c == b'\n') {
        Some(i) => (&b[..i], &b[i + 1..]),
        None => (b, &b[b.len()..]),
    };
    let (method, uri) = match line.iter().position(|&c| c == b' ') {
        Some(i) => (&line[..i], &line[i + 1..]),
        None => return Ok(Verdict::Refused("http/request-line".into())),
    };
    let Ok(method) = Method::from_bytes(method) else {
        return Ok(Verdict::Refused("http/method".into()));
    };
    let Ok(uri) = Uri::try_from(uri) else {
        return Ok(Verdict::Refused("http/uri".into()));
    };
    let api = uri.path().starts_with("/api/");
    let Ok(req) = Request::builder()
        .method(method)
        .uri(uri)
        .body(Body::from(body.to_vec()))
    else {
        return Ok(Verdict::Refused("http/request".into()));
    };
    let started = Instant::now();
    let (status, bytes) = rt.block_on(async {
        let response = app
            .clone()
            .oneshot(req)
            .await
            .expect("the router is infallible");
        let status = response.status();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await;
        (status, bytes)
    });
    let took = started.elapsed();
    if took > Duration::from_secs(1) {
        return Err(format!("answered in {took:?}"));
    }
    let bytes = bytes.map_err(|e| format!("unreadable body: {e}"))?;
    if status.is_success() {
        if api && serde_json::from_slice::<serde_json::Value>(&bytes).is_err() {
            return Err(format!("{status} under /api/ without a JSON body"));
        }
        return Ok(Verdict::Accepted);
    }
    if !(status.is_client_error() || status.is_server_error()) {
        return Err(format!("unexpected status {status}"));
    }
    let v: serde_json::Value = serde_json::from_slice(&bytes).map_err(|_| {
        format!(
            "{status} without the error object: {}",
            String::from_utf8_lossy(&bytes)
        )
    })?;
    let e = &v["error"];
    let kind = e["kind"].as_str().unwrap_or("");
    let message = e["message"].as_str().unwrap_or("");
    let field = match &e["field"] {
        serde_json::Value::Null => Some(""),
        f => f.as_str(),
    };
    let Some(field) = field else {
        return Err(format!("{status}: a field that is not a string: {v}"));
    };
    if kind.is_empty() || message.is_empty() || message.contains('\n') {
        return Err(format!("{status}: not the error contract's object: {v}"));
    }
    if status.as_u16() == 500 {
        return Err(format!("internal error: {message}"));
    }
    // A mutated parameter name is the field of its refusal: names not
    // of the API are one signature, so that they do not flood the corpus.
    let field_word = field.split(' ').next().unwrap_or(field);
    let field_word = if kind == "usage" && !API_FIELDS.contains(&field_word) {
        "*"
    } else {
        field_word
    };
    Ok(Verdict::Refused(format!(
        "{}/{kind}/{field_word}",
        status.as_u16()
    )))
}
