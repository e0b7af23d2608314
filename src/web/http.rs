//! The HTTP side of `rulebook web`: the page and its assets (built into the binary), and the
//! JSON the page asks for. axum on tokio's current-thread runtime: one local user needs no
//! thread pool, and the app sits behind one mutex that no handler holds across an await.
//!
//! | route | what |
//! |---|---|
//! | `GET /` `/app.js` `/app.css` | the page |
//! | `GET /api/status` | [`super::Status`]: what changed (polled) |
//! | `GET /api/game` | [`super::GameInfo`]: the rules, their problems, the boards |
//! | `GET /api/seat/{K}?at=N` | [`super::SeatPage`] of seat K (from 0; `spectator` for none), now or after N decisions |
//! | `GET /api/seat/{K}/why?action=TEXT` | the protocol's `why`, bound to seat K |
//! | `POST /api/seat/{K}/apply` `{"action":TEXT}` | the protocol's `apply`, bound to seat K; agents play on |
//! | `POST /api/new` [`super::Setup`] | a new match |
//! | `POST /api/undo` | back to the last human decision |
//! | `GET /api/save` | the protocol's `save` (RON) |
//! | `POST /api/load` `{"data":RON}` | the protocol's `load` |

use super::{App, RulesSource, Setup};
use crate::server::protocol::{Reply, Request};
use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use std::sync::{Arc, Mutex};
use std::time::Duration;

type Shared = Arc<Mutex<App>>;

/// How often the rules file is looked at.
pub const POLL: Duration = Duration::from_millis(300);

/// Binds `addr` (e.g. `127.0.0.1:8080`; port 0 picks a free one) and returns the listener and
/// the address it got, before serving, so that the caller can print it.
pub fn bind(addr: &str) -> std::io::Result<(std::net::TcpListener, std::net::SocketAddr)> {
    let l = std::net::TcpListener::bind(addr)?;
    l.set_nonblocking(true)?;
    let a = l.local_addr()?;
    Ok((l, a))
}

/// Serves the page on `listener` until the process ends, reading the rules from `source` now
/// and whenever they change.
pub fn serve(
    listener: std::net::TcpListener,
    mut source: Box<dyn RulesSource>,
) -> std::io::Result<()> {
    let mut app = App::new(source.name());
    app.poll(source.as_mut());
    let shared: Shared = Arc::new(Mutex::new(app));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()?;
    rt.block_on(async move {
        let watch = shared.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(POLL).await;
                if let Ok(mut app) = watch.lock() {
                    app.poll(source.as_mut());
                }
            }
        });
        let listener = tokio::net::TcpListener::from_std(listener)?;
        axum::serve(listener, router(shared)).await
    })
}

/// The routes, over one app.
pub fn router(app: Shared) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", super::assets::INDEX) }),
        )
        .route(
            "/app.js",
            get(|| async { asset("text/javascript; charset=utf-8", super::assets::JS) }),
        )
        .route(
            "/app.css",
            get(|| async { asset("text/css; charset=utf-8", super::assets::CSS) }),
        )
        .route("/api/status", get(status))
        .route("/api/game", get(game))
        .route("/api/seat/:seat", get(page))
        .route("/api/seat/:seat/why", get(why))
        .route("/api/seat/:seat/apply", post(apply))
        .route("/api/new", post(new))
        .route("/api/undo", post(undo))
        .route("/api/save", get(save))
        .route("/api/load", post(load))
        .with_state(app)
}

fn asset(kind: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response()
}

/// The app, or the answer when it cannot be had (a handler panicked while holding it).
fn locked(app: &Shared) -> Result<std::sync::MutexGuard<'_, App>, Box<Response>> {
    app.lock().map_err(|_| {
        Box::new((StatusCode::INTERNAL_SERVER_ERROR, "the app failed earlier").into_response())
    })
}

fn bad(message: impl Into<String>) -> Response {
    (
        StatusCode::BAD_REQUEST,
        Json(serde_json::json!({"error": {"code": "bad_request", "message": message.into()}})),
    )
        .into_response()
}

/// A seat in a path: a number from 0, or `spectator`.
fn seat(s: &str) -> Result<Option<u8>, Box<Response>> {
    if s == "spectator" {
        return Ok(None);
    }
    s.parse::<u8>().map(Some).map_err(|_| {
        Box::new(bad(format!(
            "seat `{}`: a number from 0, or `spectator`",
            crate::server::protocol::quote(s)
        )))
    })
}

fn reply(r: Reply) -> Response {
    Json(r).into_response()
}

async fn status(State(app): State<Shared>) -> Response {
    match locked(&app) {
        Ok(a) => Json(a.status()).into_response(),
        Err(e) => *e,
    }
}

async fn game(State(app): State<Shared>) -> Response {
    match locked(&app) {
        Ok(a) => Json(a.info()).into_response(),
        Err(e) => *e,
    }
}

#[derive(Deserialize)]
struct At {
    at: Option<usize>,
}

async fn page(State(app): State<Shared>, Path(s): Path<String>, Query(at): Query<At>) -> Response {
    let seat = match seat(&s) {
        Ok(s) => s,
        Err(e) => return *e,
    };
    let mut a = match locked(&app) {
        Ok(a) => a,
        Err(e) => return *e,
    };
    match a.page(seat, at.at) {
        Ok(p) => Json(p).into_response(),
        Err(e) => bad(e),
    }
}

#[derive(Deserialize)]
struct ActionArg {
    action: String,
}

async fn why(
    State(app): State<Shared>,
    Path(s): Path<String>,
    Query(q): Query<ActionArg>,
) -> Response {
    act(&app, &s, Request::Why { action: q.action })
}

async fn apply(
    State(app): State<Shared>,
    Path(s): Path<String>,
    Json(q): Json<ActionArg>,
) -> Response {
    act(&app, &s, Request::Apply { action: q.action })
}

/// A request of the seat named in the path (a spectator does not act), answered as the
/// protocol answers a client bound to that seat.
fn act(app: &Shared, s: &str, request: Request) -> Response {
    let seat = match seat(s) {
        Ok(Some(s)) => s,
        Ok(None) => return bad("a spectator does not act"),
        Err(e) => return *e,
    };
    match locked(app) {
        Ok(mut a) => reply(a.request(Some(seat), request)),
        Err(e) => *e,
    }
}

async fn new(State(app): State<Shared>, Json(setup): Json<Setup>) -> Response {
    match locked(&app) {
        Ok(mut a) => match a.start(setup) {
            Ok(()) => Json(a.status()).into_response(),
            Err(e) => bad(e),
        },
        Err(e) => *e,
    }
}

async fn undo(State(app): State<Shared>) -> Response {
    match locked(&app) {
        Ok(mut a) => reply(a.undo()),
        Err(e) => *e,
    }
}

async fn save(State(app): State<Shared>) -> Response {
    match locked(&app) {
        Ok(mut a) => reply(a.save()),
        Err(e) => *e,
    }
}

#[derive(Deserialize)]
struct Data {
    data: String,
}

async fn load(State(app): State<Shared>, Json(d): Json<Data>) -> Response {
    match locked(&app) {
        Ok(mut a) => reply(a.load(d.data)),
        Err(e) => *e,
    }
}
