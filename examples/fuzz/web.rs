//! The web app, fuzzed: random request sequences against `rulebook::web::App`, the state the
//! page's HTTP routes (`src/web/http.rs`) read and change, in this process.
//!
//! A script is lines, one request each, written as the page would send it:
//! `GET /api/seat/0?at=3`, `GET /api/seat/1/why?action=TEXT`, `POST /api/seat/0/apply TEXT`,
//! `POST /api/new JSON`, `POST /api/load DATA`, ... [`request`] answers a line with the
//! status and body the route would (the one function that knows the routes: when they change,
//! it changes). The axum router itself is not driven: calling it needs `tower`'s `Service`
//! trait, which is not a dependency; so the extractors (path, query, JSON body) are stood in
//! for by the parsing here. Placeholders filled in as the script runs: `$LEGAL<k>` (the k-th
//! legal action of the seat of the line, modulo their number) and `$SAVE` (the last save's
//! data, mangled with `$SAVE!`).
//!
//! Findings: a panic, a status of 500 or more, and an `internal_error` reply (the protocol's
//! session caught a panic: what the page would see as a server fault).

use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rulebook::server::protocol::{Reply, Request};
use rulebook::web::{App, Setup};
use rulebook::Game;
use serde_json::{json, Value};

/// A random script of `n` lines for a game.
pub fn script(rng: &mut ChaCha8Rng, g: &Game, n: usize) -> Vec<Vec<u8>> {
    let mut lines = vec![new(rng, g).into_bytes()];
    lines.extend((1..n).map(|_| line(rng, g).into_bytes()));
    lines
}

fn new(rng: &mut ChaCha8Rng, g: &Game) -> String {
    let players = if rng.gen_bool(0.9) {
        rng.gen_range(g.min_players..=g.max_players)
    } else {
        rng.gen()
    };
    let humans: Vec<bool> = (0..rng.gen_range(0..=players.min(8) as usize + 1))
        .map(|_| rng.gen_bool(0.6))
        .collect();
    let variant = match rng.gen_range(0..4) {
        0 => {
            let names: Vec<&String> = g.variants.iter().map(|v| &v.name).collect();
            names.choose(rng).map(|n| json!(n))
        }
        1 => Some(json!("nope")),
        _ => None,
    };
    let agent = ["random", "random", "random", "mcts:20", "nope", "mcts:x"]
        .choose(rng)
        .expect("one");
    let mut setup = json!({"players": players, "variant": variant, "seed": rng.gen::<u32>(),
                           "humans": humans, "agent": agent});
    if rng.gen_bool(0.05) {
        setup["players"] = json!(-1);
    }
    if rng.gen_bool(0.05) {
        setup = json!({"players": 2});
    }
    format!("POST /api/new {setup}")
}

fn seat(rng: &mut ChaCha8Rng, g: &Game) -> String {
    match rng.gen_range(0..12) {
        0 => "spectator".into(),
        1 => ["255", "-1", "x", "", "1e3", "%41"]
            .choose(rng)
            .expect("one")
            .to_string(),
        _ => rng.gen_range(0..g.max_players.max(1) + 1).to_string(),
    }
}

fn line(rng: &mut ChaCha8Rng, g: &Game) -> String {
    let k: u8 = rng.gen();
    let s = seat(rng, g);
    match rng.gen_range(0..24) {
        0 => "GET /api/status".into(),
        1 => "GET /api/game".into(),
        2..=5 => match rng.gen_range(0..4) {
            0 => format!("GET /api/seat/{s}?at={}", rng.gen_range(0..40)),
            1 => format!("GET /api/seat/{s}?at=x"),
            _ => format!("GET /api/seat/{s}"),
        },
        6..=7 => format!("GET /api/seat/{s}/why?action=$LEGAL{k}"),
        8 => format!("GET /api/seat/{s}/why?action=no+such%20action%ZZ"),
        9..=15 => format!("POST /api/seat/{s}/apply $LEGAL{k}"),
        16 => format!(
            "POST /api/seat/{s}/apply {}",
            ["", "chance 1", "\u{0}", "x=y=z"].choose(rng).expect("one")
        ),
        17 => new(rng, g),
        18 | 19 => "POST /api/undo".into(),
        20 => "GET /api/save".into(),
        21 => format!(
            "POST /api/load {}",
            ["$SAVE", "$SAVE!", "", "(", "x"].choose(rng).expect("one")
        ),
        22 => [
            "GET /nope",
            "PUT /api/undo",
            "GET /api/seat",
            "GET /api/seat/0/x",
        ]
        .choose(rng)
        .expect("one")
        .to_string(),
        _ => format!(
            "GET /api/seat/{s}/why?action={}",
            "a".repeat(rng.gen_range(0..5000))
        ),
    }
}

/// `%XX` and `+` decoded, as a query string is.
fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => {
                match u8::from_str_radix(std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("x"), 16) {
                    Ok(x) => {
                        out.push(x);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

const BAD: u16 = 400;

fn json_of<T: serde::Serialize>(t: &T) -> (u16, String) {
    match serde_json::to_string(t) {
        Ok(s) => (200, s),
        Err(e) => (500, format!("not serialisable: {e}")),
    }
}

/// A reply of the protocol as the route sends it: 200, its JSON.
fn reply(r: Reply) -> (u16, String) {
    json_of(&r)
}

/// A seat in a path, as `http.rs` reads it.
fn path_seat(s: &str) -> Result<Option<u8>, (u16, String)> {
    if s == "spectator" {
        return Ok(None);
    }
    s.parse::<u8>()
        .map(Some)
        .map_err(|_| (BAD, "seat: a number from 0, or `spectator`".into()))
}

/// Answers one request line as the route of `src/web/http.rs` does: its status and body.
/// Lines that no route takes get 404 (axum would say 405 for a known path and another
/// method).
pub fn request(app: &mut App, line: &str) -> (u16, String) {
    let (method, rest) = line.split_once(' ').unwrap_or((line, ""));
    let (path, body) = rest.split_once(' ').unwrap_or((rest, ""));
    let (path, query) = path.split_once('?').unwrap_or((path, ""));
    let query = |key: &str| {
        query
            .split('&')
            .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
            .map(decode)
    };
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let act = |app: &mut App, s: &str, r: Request| match path_seat(s) {
        Ok(Some(seat)) => reply(app.request(Some(seat), r)),
        Ok(None) => (BAD, "a spectator does not act".into()),
        Err(e) => e,
    };
    match (method, parts.as_slice()) {
        ("GET", ["api", "status"]) => {
            app.run_agents();
            json_of(&app.status())
        }
        ("GET", ["api", "game"]) => json_of(&app.info()),
        ("GET", ["api", "seat", s]) => {
            let at = match query("at").map(|a| a.parse::<usize>()) {
                None => None,
                Some(Ok(n)) => Some(n),
                Some(Err(_)) => return (BAD, "at: not a number".into()),
            };
            match path_seat(s) {
                Ok(seat) => match app.page(seat, at) {
                    Ok(p) => json_of(&p),
                    Err(e) => (BAD, e),
                },
                Err(e) => e,
            }
        }
        ("GET", ["api", "seat", s, "why"]) => match query("action") {
            Some(action) => act(app, s, Request::Why { action }),
            None => (BAD, "no action".into()),
        },
        ("POST", ["api", "seat", s, "apply"]) => act(
            app,
            s,
            Request::Apply {
                action: body.to_string(),
            },
        ),
        ("POST", ["api", "new"]) => match serde_json::from_str::<Setup>(body) {
            Ok(setup) => match app.start(setup) {
                Ok(()) => json_of(&app.status()),
                Err(e) => (BAD, e),
            },
            Err(e) => (422, e.to_string()),
        },
        ("POST", ["api", "undo"]) => reply(app.undo()),
        ("GET", ["api", "save"]) => reply(app.save()),
        ("POST", ["api", "load"]) => reply(app.load(body.to_string())),
        _ => (404, "not found".into()),
    }
}

/// The texts `$LEGAL<k>` picks from for a seat: its legal actions, or the chance outcomes.
fn legal_texts(app: &mut App, seat: Option<u8>) -> Vec<String> {
    let v = serde_json::to_value(app.request(seat, Request::Legal {})).unwrap_or(Value::Null);
    ["actions", "outcomes"]
        .iter()
        .filter_map(|k| v.get(*k).and_then(Value::as_array))
        .flatten()
        .filter_map(|a| a.get("text").and_then(Value::as_str).map(String::from))
        .collect()
}

/// Fills in the placeholders of a line.
fn fill(app: &mut App, line: &str, save: &Option<String>) -> String {
    if let Some(at) = line.find("$LEGAL") {
        let digits: String = line[at + 6..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        let k: usize = digits.parse().unwrap_or(0);
        let seat = line.split('/').nth(3).and_then(|s| s.parse::<u8>().ok());
        let texts = legal_texts(app, seat);
        let pick = texts
            .get(k % texts.len().max(1))
            .cloned()
            .unwrap_or_else(|| "nothing legal".into());
        let pick = if line.contains('?') {
            pick.replace('%', "%25")
                .replace('+', "%2B")
                .replace('&', "%26")
        } else {
            pick
        };
        return format!("{}{pick}{}", &line[..at], &line[at + 6 + digits.len()..]);
    }
    if let Some(at) = line.find("$SAVE") {
        let mut data = save.clone().unwrap_or_default();
        if line[at..].starts_with("$SAVE!") && !data.is_empty() {
            let cut = (0..=data.len() / 2)
                .rev()
                .find(|&i| data.is_char_boundary(i))
                .unwrap_or(0);
            data.insert(cut, '9');
        }
        return format!("{}{data}", &line[..at]);
    }
    line.to_string()
}

/// Runs a script on an app: the number of lines answered, or the first fault.
pub fn run(app: &mut App, lines: &[Vec<u8>]) -> Result<usize, String> {
    let mut save = None;
    for (i, raw) in lines.iter().enumerate() {
        let line = fill(app, &String::from_utf8_lossy(raw), &save);
        let t = std::time::Instant::now();
        let (status, body) = request(app, &line);
        if std::env::var_os("FUZZ_TIMES").is_some() {
            eprintln!(
                "{:>8.3} s  {}",
                t.elapsed().as_secs_f64(),
                rulebook::source::quote(&line, 100)
            );
        }
        let shown = || rulebook::source::quote(&line, 200);
        if status >= 500 {
            return Err(format!("line {}: {status} for {}: {body}", i + 1, shown()));
        }
        if body.contains("\"internal_error\"") {
            return Err(format!(
                "line {}: internal_error for {}: {body}",
                i + 1,
                shown()
            ));
        }
        if line.starts_with("GET /api/save") {
            if let Ok(v) = serde_json::from_str::<Value>(&body) {
                save = v.get("data").and_then(Value::as_str).map(String::from);
            }
        }
    }
    Ok(lines.len())
}
