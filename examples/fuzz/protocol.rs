//! The line protocol, fuzzed: random request lines from the protocol's vocabulary (and lines
//! that are not requests: invalid UTF-8, blank, huge, deeply nested JSON) against a
//! `rulebook::server::Session`, checking that every line gets exactly one reply line of JSON
//! and that after every error reply the match is as it was.
//!
//! A script is lines of bytes; a few placeholders are filled in as it runs, from the session
//! itself: `$LEGAL<k>` (the text of the k-th legal action or chance outcome, modulo their
//! number) and `$SAVE` (the data of the last `save`, or it mangled with `$SAVE!`).

use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rulebook::server::Session;
use rulebook::Game;
use serde_json::{json, Value};

/// A random script of `n` lines for a game.
pub fn script(rng: &mut ChaCha8Rng, g: &Game, n: usize) -> Vec<Vec<u8>> {
    (0..n).map(|_| line(rng, g)).collect()
}

fn any_number(rng: &mut ChaCha8Rng) -> Value {
    match rng.gen_range(0..8) {
        0 => json!(-1),
        1 => json!(u64::MAX),
        2 => json!(1e300),
        3 => json!("3"),
        4 => json!(null),
        5 => json!(rng.gen_range(0..300)),
        _ => json!(rng.gen_range(0..10)),
    }
}

fn line(rng: &mut ChaCha8Rng, g: &Game) -> Vec<u8> {
    let k: u8 = rng.gen();
    let legal = || format!("$LEGAL{k}");
    let mut req = match rng.gen_range(0..30) {
        0..=3 => {
            let mut r = json!({"cmd": "new"});
            if rng.gen_bool(0.7) {
                r["players"] = if rng.gen_bool(0.8) {
                    json!(rng.gen_range(g.min_players..=g.max_players))
                } else {
                    any_number(rng)
                };
            }
            if rng.gen_bool(0.5) {
                r["seed"] = if rng.gen_bool(0.8) {
                    json!(rng.gen::<u32>())
                } else {
                    any_number(rng)
                };
            }
            if rng.gen_bool(0.3) {
                let names: Vec<String> = g.variants.iter().map(|v| v.name.clone()).collect();
                r["variant"] = match names.choose(rng) {
                    Some(n) if rng.gen_bool(0.8) => json!(n),
                    _ => {
                        let odd = ["nope", "", "\u{1b}x"].choose(rng);
                        json!(odd)
                    }
                };
            }
            if rng.gen_bool(0.4) {
                let modes = [
                    json!("seeded"),
                    json!("external"),
                    json!("loaded"),
                    json!(3),
                ];
                r["chance"] = modes.choose(rng).cloned().unwrap_or_default();
            }
            r
        }
        4..=11 => json!({"cmd": "apply", "action": legal()}),
        12 => {
            let long = "x".repeat(5000);
            let odd = ["chance 1", "", "place cell=zz9", "\u{0}", long.as_str()];
            json!({"cmd": "apply", "action": odd.choose(rng)})
        }
        13..=15 => json!({"cmd": "legal"}),
        16 => json!({"cmd": "why", "action": legal()}),
        17 => json!({"cmd": "why", "action": "not an action"}),
        18 => {
            let mut r = json!({"cmd": "view"});
            if rng.gen_bool(0.7) {
                r["seat"] = any_number(rng);
            }
            r
        }
        19 => json!({"cmd": "status"}),
        20 => json!({"cmd": "state"}),
        21 | 22 => json!({"cmd": "undo"}),
        23 => json!({"cmd": "save"}),
        24 => json!({"cmd": "load", "data": if rng.gen_bool(0.5) { "$SAVE" } else { "$SAVE!" }}),
        25 => {
            let cmd = ["frobnicate", "", "LEGAL"].choose(rng);
            json!({"cmd": cmd, "x": 1})
        }
        26 => json!({"cmd": "apply", "action": legal(), "extra": true}),
        _ => return raw(rng),
    };
    if rng.gen_bool(0.03) {
        req["cmd"] = json!(7);
    }
    req.to_string().into_bytes()
}

/// A line that is not a request.
fn raw(rng: &mut ChaCha8Rng) -> Vec<u8> {
    match rng.gen_range(0..9) {
        0 => vec![],
        1 => b"   \t ".to_vec(),
        2 => vec![0xff, 0xfe, b'{', 0xc3],
        3 => b"{\"cmd\":\"legal\"".to_vec(),
        4 => format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)).into_bytes(),
        5 => format!(
            "{{\"cmd\":\"apply\",\"action\":\"{}\"}}",
            "a".repeat(2 << 20)
        )
        .into_bytes(),
        6 => b"{\"cmd\":\"new\",\"players\":1e999999}".to_vec(),
        7 => b"null".to_vec(),
        _ => b"{\"cmd\":\"legal\"}{\"cmd\":\"legal\"}".to_vec(),
    }
}

fn request(s: &mut Session, line: &str) -> Value {
    serde_json::from_str(&s.handle(line.as_bytes())).unwrap_or(Value::Null)
}

/// The texts `$LEGAL<k>` picks from: the legal actions, or the chance outcomes.
fn legal_texts(s: &mut Session) -> Vec<String> {
    let reply = request(s, "{\"cmd\":\"legal\"}");
    ["actions", "outcomes"]
        .iter()
        .filter_map(|k| reply.get(*k).and_then(Value::as_array))
        .flatten()
        .filter_map(|a| a.get("text").and_then(Value::as_str).map(String::from))
        .collect()
}

/// Fills in the placeholders of a line.
fn fill(s: &mut Session, line: &[u8], save: &Option<String>) -> Vec<u8> {
    let Ok(text) = std::str::from_utf8(line) else {
        return line.to_vec();
    };
    if let Some(at) = text.find("$LEGAL") {
        let k: usize = text[at + 6..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .unwrap_or(0);
        let texts = legal_texts(s);
        let pick = if texts.is_empty() {
            "nothing legal".to_string()
        } else {
            texts[k % texts.len()].clone()
        };
        let end = at + 6 + k.to_string().len();
        let quoted = serde_json::to_string(&pick).expect("a string");
        return format!(
            "{}{}{}",
            &text[..at],
            &quoted[1..quoted.len() - 1],
            &text[end..]
        )
        .into_bytes();
    }
    if text.contains("$SAVE") {
        let mut data = save.clone().unwrap_or_default();
        if text.contains("$SAVE!") && !data.is_empty() {
            let cut = data.len() / 2;
            data = format!("{}9{}", &data[..cut], &data[cut..]);
        }
        let v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let mut v = v;
        v["data"] = json!(data);
        return v.to_string().into_bytes();
    }
    line.to_vec()
}

/// What the match looks like, to compare before and after an error: the whole state for a
/// trusted client, its status and view for a client bound to a seat.
fn snapshot(s: &mut Session, bound: bool) -> String {
    if bound {
        format!(
            "{}\n{}",
            s.handle(b"{\"cmd\":\"status\"}"),
            s.handle(b"{\"cmd\":\"view\"}")
        )
    } else {
        s.handle(b"{\"cmd\":\"state\"}")
    }
}

/// Runs a script: the number of lines answered, or the first broken promise.
pub fn run(g: &Game, seat: Option<u8>, lines: &[Vec<u8>]) -> Result<usize, String> {
    let mut s = Session::new(g, seat);
    let mut save: Option<String> = None;
    for (i, raw) in lines.iter().enumerate() {
        let line = fill(&mut s, raw, &save);
        let before = snapshot(&mut s, seat.is_some());
        let reply = s.handle(&line);
        if reply.contains('\n') || reply.contains('\r') {
            return Err(format!(
                "line {}: the reply holds a line end: {reply}",
                i + 1
            ));
        }
        let v: Value = serde_json::from_str(&reply)
            .map_err(|e| format!("line {}: the reply is not JSON ({e}): {reply}", i + 1))?;
        if !v.is_object() {
            return Err(format!("line {}: the reply is no object: {reply}", i + 1));
        }
        if let Some(data) = v.get("data").and_then(Value::as_str) {
            save = Some(data.to_string());
        }
        if v.get("error").is_some() {
            let after = snapshot(&mut s, seat.is_some());
            if before != after {
                return Err(format!(
                    "line {}: an error reply changed the match\n  request: {}\n  reply: {reply}",
                    i + 1,
                    rulebook::source::quote(&String::from_utf8_lossy(&line), 200)
                ));
            }
        }
    }
    Ok(lines.len())
}
