//! The HTTP side of `rulebook web`: the page and its assets (built into the binary), and the
//! JSON the page asks for. axum on tokio's current-thread runtime: one local user needs no
//! thread pool, and the app sits behind one mutex that no handler holds across an await.
//!
//! | route | who | what |
//! |---|---|---|
//! | `GET /` `/app.js` `/app.css` | anyone on this machine | the page; `/` holds the host's token |
//! | `GET /api/status` | host, seat | [`super::Status`]: what changed (polled); agents still to choose go on for a slice |
//! | `GET /api/game` | host, seat | [`super::GameInfo`]: the rules, their problems, the boards |
//! | `GET /api/seat/{K}?at=N` | host, seat K | [`super::SeatPage`] of seat K (from 0; `spectator` for none, any seat), now or after N decisions |
//! | `GET /api/seat/{K}/why?action=TEXT` | host, seat K | the protocol's `why`, bound to seat K |
//! | `POST /api/seat/{K}/apply` `{"action":TEXT}` | host, seat K | the protocol's `apply`, bound to seat K; agents play on |
//! | `POST /api/seat/{K}/undo` | host, seat K | the protocol's `undo` bound to seat K: its own last decision only |
//! | `GET /api/seat/{K}/token` | host | `{"seat":K,"token":T}`: the token of seat K, for a program that plays that seat only |
//! | `POST /api/new` [`super::Setup`] | host | a new match |
//! | `POST /api/undo` | host | back to the last human decision |
//! | `GET /api/save` | host | the protocol's `save` (RON) |
//! | `POST /api/load` `{"data":RON}` | host | the protocol's `load` |
//!
//! **Who asks.** Every request must name this server in `Host` (`127.0.0.1:PORT`,
//! `localhost:PORT` or `[::1]:PORT`: a page of another site reached through a rebound DNS
//! name is refused) and, when it has an `Origin`, come from that same origin. Every `/api/`
//! request must carry a token in `X-Rulebook-Token`: the host's, drawn from the operating
//! system's generator when the server starts and written into the page, or a seat's, handed
//! out by the host. Anything else is answered 403 with a JSON error. Bodies are at most
//! [`MAX_BODY_BYTES`] (413 beyond); a connection that sends no complete request head for
//! [`Gate::idle`] (30 s by default), idle between requests included, is closed.

use super::{App, RulesSource, Setup};
use crate::server::protocol::{Reply, Request};
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

type Shared = Arc<Mutex<App>>;

/// The largest request body read: 1 MiB, the protocol's longest line, so that a save
/// `rulebook serve` loads loads here too. A longer body is answered 413.
pub const MAX_BODY_BYTES: usize = crate::server::protocol::MAX_LINE_BYTES;

/// The header that carries a token.
pub const TOKEN_HEADER: &str = "x-rulebook-token";

/// Who may ask what of one run of the server: the port it serves (for `Host` and `Origin`),
/// the host's token, the seats' tokens handed out so far, and how long a connection may stay
/// silent.
pub struct Gate {
    port: u16,
    host: String,
    seats: Mutex<BTreeMap<u8, String>>,
    /// How long a connection may take to send a request's head, or stay idle between
    /// requests, before it is closed.
    pub idle: Duration,
}

/// 16 bytes of the operating system's generator, in hex: never a seeded game generator.
fn os_token() -> std::io::Result<String> {
    use rand::RngCore;
    let mut bytes = [0u8; 16];
    rand::rngs::OsRng
        .try_fill_bytes(&mut bytes)
        .map_err(|e| std::io::Error::other(format!("no random token from the system: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Equal texts, compared in a time that does not depend on where they first differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

/// Who made a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Host,
    Seat(u8),
}

impl Gate {
    /// A gate for a server on `port`, with a fresh host token from the operating system.
    pub fn new(port: u16) -> std::io::Result<Gate> {
        Ok(Gate {
            port,
            host: os_token()?,
            seats: Mutex::new(BTreeMap::new()),
            idle: Duration::from_secs(30),
        })
    }

    /// The host's token, which the page holds.
    pub fn token(&self) -> &str {
        &self.host
    }

    /// Seat K's token, made the first time it is asked for.
    fn seat_token(&self, seat: u8) -> std::io::Result<String> {
        let mut seats = self
            .seats
            .lock()
            .map_err(|_| std::io::Error::other("the tokens failed earlier"))?;
        if let Some(t) = seats.get(&seat) {
            return Ok(t.clone());
        }
        let t = os_token()?;
        seats.insert(seat, t.clone());
        Ok(t)
    }

    /// Whether `host` (a `Host` header, or an `Origin` without its scheme) names this server.
    fn ours(&self, host: &str) -> bool {
        let port = self.port;
        [
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
        ]
        .iter()
        .any(|h| h.eq_ignore_ascii_case(host))
    }

    /// Checks `Host`, `Origin` and, for `/api/`, the token and what its holder may ask.
    fn check(&self, path: &str, headers: &HeaderMap) -> Result<(), String> {
        let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        match text(header::HOST.as_str()) {
            Some(h) if self.ours(h) => {}
            Some(h) => {
                return Err(format!(
                    "Host `{}` is not this server (127.0.0.1:{})",
                    crate::server::protocol::quote(h),
                    self.port
                ))
            }
            None => return Err("a request must name this server in Host".into()),
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let o = origin.to_str().unwrap_or_default();
            if !o.strip_prefix("http://").is_some_and(|h| self.ours(h)) {
                return Err(format!(
                    "Origin `{}` is not this server's",
                    crate::server::protocol::quote(o)
                ));
            }
        }
        let Some(api) = path.strip_prefix("/api/") else {
            return Ok(());
        };
        let token = text(TOKEN_HEADER).ok_or("an /api/ request must carry X-Rulebook-Token")?;
        let role = if same(token, &self.host) {
            Role::Host
        } else {
            let seats = self.seats.lock().map_err(|_| "the tokens failed earlier")?;
            seats
                .iter()
                .find(|(_, t)| same(token, t))
                .map(|(&s, _)| Role::Seat(s))
                .ok_or("a wrong X-Rulebook-Token")?
        };
        let Role::Seat(s) = role else { return Ok(()) };
        // A seat reads what changed and the game, and asks as itself (or as a spectator).
        let parts: Vec<&str> = api.split('/').collect();
        let own = match parts[..] {
            ["status"] | ["game"] | ["seat", "spectator"] => true,
            ["seat", k] | ["seat", k, "why" | "apply" | "undo"] => k.parse::<u8>() == Ok(s),
            _ => false,
        };
        if own {
            Ok(())
        } else {
            Err(format!(
                "the token of seat {s} may ask only for that seat: /api/seat/{s}, its why, \
                 apply and undo, /api/status and /api/game"
            ))
        }
    }
}

/// Refuses what [`Gate::check`] refuses: 403 with a JSON error.
async fn guard(
    State(gate): State<Arc<Gate>>,
    request: axum::extract::Request,
    next: Next,
) -> Response {
    match gate.check(request.uri().path(), request.headers()) {
        Ok(()) => next.run(request).await,
        Err(message) => (
            StatusCode::FORBIDDEN,
            Json(serde_json::json!({"error": {"code": "forbidden", "message": message}})),
        )
            .into_response(),
    }
}

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
/// and whenever they change, letting in what `gate` lets in.
pub fn serve(
    listener: std::net::TcpListener,
    mut source: Box<dyn RulesSource>,
    gate: Gate,
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
        let idle = gate.idle;
        let routes = router(shared, Arc::new(gate));
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                // Out of descriptors, say: wait for connections to close.
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            };
            let service = hyper_util::service::TowerToHyperService::new(routes.clone());
            tokio::spawn(async move {
                let _ = hyper::server::conn::http1::Builder::new()
                    .timer(hyper_util::rt::TokioTimer::new())
                    .header_read_timeout(idle)
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    })
}

/// The routes, over one app, behind `gate`.
pub fn router(app: Shared, gate: Arc<Gate>) -> Router {
    let index = super::assets::INDEX.replace("{{TOKEN}}", gate.token());
    Router::new()
        .route(
            "/",
            get(move || {
                let index = index.clone();
                async move { asset("text/html; charset=utf-8", index) }
            }),
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
        .route("/api/seat/:seat/undo", post(seat_undo))
        .route(
            "/api/seat/:seat/token",
            get({
                let gate = gate.clone();
                move |Path(s): Path<String>| async move { seat_token(&gate, &s) }
            }),
        )
        .route("/api/new", post(new))
        .route("/api/undo", post(undo))
        .route("/api/save", get(save))
        .route("/api/load", post(load))
        .with_state(app)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(middleware::from_fn_with_state(gate, guard))
}

fn asset(kind: &'static str, body: impl IntoResponse) -> Response {
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

/// The page polls this: agents still to choose go on here, a slice at a time.
async fn status(State(app): State<Shared>) -> Response {
    match locked(&app) {
        Ok(mut a) => {
            a.run_agents();
            Json(a.status()).into_response()
        }
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

async fn seat_undo(State(app): State<Shared>, Path(s): Path<String>) -> Response {
    act(&app, &s, Request::Undo {})
}

fn seat_token(gate: &Gate, s: &str) -> Response {
    let seat = match seat(s) {
        Ok(Some(s)) => s,
        Ok(None) => return bad("a spectator has no token: any token may read its page"),
        Err(e) => return *e,
    };
    match gate.seat_token(seat) {
        Ok(token) => Json(serde_json::json!({"seat": seat, "token": token})).into_response(),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
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
