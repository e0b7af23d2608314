//! `rulebook serve FILE`: a JSON-lines protocol on stdin and stdout, one response per request.
//! Bad requests answer `{"error":{"code":..,"message":..}}` and leave the match as it was.

use crate::engine::{Actor, ChanceMode, Config, Match, RunError};
use crate::ir::Game;
use serde_json::{json, Value as Json};
use std::io::{BufRead, Write};

fn error(code: &str, message: impl Into<String>) -> Json {
    json!({"error": {"code": code, "message": message.into()}})
}

fn actor_name(a: Actor) -> String {
    match a {
        Actor::Player(p) => format!("p{}", p + 1),
        Actor::Chance => "chance".into(),
        Actor::Nobody => "nobody".into(),
    }
}

fn line_col(g: &Game, sp: crate::source::Span) -> (usize, usize) {
    g.source(sp).line_col(sp.start)
}

fn rules_error(g: &Game, e: &RunError) -> Json {
    let mut v = error(e.code(), e.message());
    if let Some(sp) = e.span() {
        let (line, column) = line_col(g, sp);
        v["error"]["line"] = json!(line);
        v["error"]["column"] = json!(column);
    }
    v
}

/// Serves one game until end of input: every non-blank line of `input` is a request, answered
/// by one line of JSON on `out`.
pub fn serve(g: &Game, input: impl BufRead, mut out: impl Write) -> std::io::Result<()> {
    let mut m: Option<Match> = None;
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let reply = handle(g, &mut m, &line);
        writeln!(out, "{reply}")?;
        out.flush()?;
    }
    Ok(())
}

/// Answers one request (one line of JSON) on the match in `m`, which `new` and `load` replace.
///
/// ```
/// use rulebook::cli::serve::handle;
/// let text = std::fs::read_to_string("rules/classic/tic_tac_toe.rules").unwrap();
/// let game = rulebook::load("tic_tac_toe.rules", &text).game.expect("valid rules");
/// let mut m = None;
///
/// let reply = handle(&game, &mut m, r#"{"cmd": "new", "players": 2, "seed": 1}"#);
/// assert_eq!(reply, serde_json::json!({"ok": true, "actor": "p1"}));
///
/// let reply = handle(&game, &mut m, r#"{"cmd": "legal"}"#);
/// assert_eq!(reply["actor"], "p1");
/// let actions = reply["actions"].as_array().unwrap();
/// assert_eq!(actions.len(), 9);
/// assert_eq!(actions[0]["text"], "place cell=a1");
/// ```
pub fn handle<'g>(g: &'g Game, m: &mut Option<Match<'g>>, line: &str) -> Json {
    let req: Json = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return error("bad_json", format!("not JSON: {e}")),
    };
    let Some(cmd) = req.get("cmd").and_then(Json::as_str) else {
        return error("bad_request", "a request needs a \"cmd\" string");
    };
    if cmd == "new" {
        let players = match req.get("players") {
            None | Some(Json::Null) => g.min_players as u64,
            Some(v) => match v.as_u64() {
                Some(n) if n <= 255 => n,
                _ => return error("bad_request", "\"players\" must be a number"),
            },
        };
        let seed = match req.get("seed") {
            None | Some(Json::Null) => 0,
            Some(v) => match v.as_u64() {
                Some(n) => n,
                None => return error("bad_request", "\"seed\" must be a non-negative number"),
            },
        };
        let variant = match req.get("variant") {
            None | Some(Json::Null) => None,
            Some(Json::String(s)) => Some(s.clone()),
            Some(_) => return error("bad_request", "\"variant\" must be a string or null"),
        };
        let chance = match req.get("chance").and_then(Json::as_str) {
            None | Some("seeded") => ChanceMode::Seeded,
            Some("external") => ChanceMode::External,
            Some(other) => {
                return error(
                    "bad_request",
                    format!("unknown chance mode `{other}`: use \"seeded\" or \"external\""),
                )
            }
        };
        let cfg = Config {
            players: players as u8,
            variant,
            seed,
            chance,
        };
        return match Match::new(g, cfg) {
            Ok(new) => {
                let actor = actor_name(new.actor());
                *m = Some(new);
                json!({"ok": true, "actor": actor})
            }
            Err(e) => rules_error(g, &e),
        };
    }
    if cmd == "load" {
        let Some(data) = req.get("data").and_then(Json::as_str) else {
            return error("bad_request", "\"load\" needs a \"data\" string");
        };
        return match Match::load_text(g, data) {
            Ok(new) => {
                let actor = actor_name(new.actor());
                *m = Some(new);
                json!({"ok": true, "actor": actor})
            }
            Err(e) => rules_error(g, &e),
        };
    }
    let known = [
        "legal", "apply", "view", "state", "status", "why", "undo", "save",
    ];
    if !known.contains(&cmd) {
        return error(
            "unknown_command",
            format!(
                "unknown command `{cmd}`; commands: new, load, {}",
                known.join(", ")
            ),
        );
    }
    let Some(mm) = m.as_mut() else {
        return error("no_match", "no match yet: send {\"cmd\":\"new\"} first");
    };
    let action_text = || req.get("action").and_then(Json::as_str);
    match cmd {
        "legal" => match mm.legal() {
            Ok(list) => {
                let actor = mm.actor();
                if actor == Actor::Chance {
                    let st = mm.state();
                    let mut weights = Vec::with_capacity(list.len());
                    let total = match g.chance_outcomes(st, &mut |_, w| weights.push(w)) {
                        Ok(t) => t.max(1),
                        Err(e) => return rules_error(g, &e),
                    };
                    let outcomes: Vec<Json> = list.iter().zip(weights).map(|((_, t), w)| json!({"text": t, "probability": w as f64 / total as f64, "weight": w, "total": total})).collect();
                    json!({"actor": "chance", "outcomes": outcomes})
                } else {
                    let actions: Vec<Json> = list
                        .iter()
                        .map(|(a, t)| json!({"text": t, "action": a}))
                        .collect();
                    json!({"actor": actor_name(actor), "actions": actions})
                }
            }
            Err(e) => rules_error(g, &e),
        },
        "apply" => {
            let Some(text) = action_text() else {
                return error("bad_request", "\"apply\" needs an \"action\" string");
            };
            if mm.actor() == Actor::Nobody {
                return error("finished", "the game is over");
            }
            match mm.apply_text(text) {
                Ok(()) => {
                    json!({"ok": true, "actor": actor_name(mm.actor()), "finished": mm.state().is_over()})
                }
                Err(e) => rules_error(g, &e),
            }
        }
        "view" => {
            let seat = match req.get("seat") {
                None | Some(Json::Null) => None,
                Some(v) => match v.as_u64() {
                    Some(s) if s < mm.state().players as u64 => Some(s as u8),
                    _ => {
                        return error(
                            "bad_seat",
                            format!("seat must be a number from 0 to {}", mm.state().players - 1),
                        )
                    }
                },
            };
            json!({"view": mm.view(seat)})
        }
        "state" => json!({"state": mm.state(), "log": mm.log()}),
        "status" => {
            let st = mm.state();
            let o = st.outcome();
            json!({"finished": st.is_over(), "actor": actor_name(mm.actor()), "scores": o.map(|o| o.scores.clone()), "winners": o.map(|o| o.winners.clone()), "decisions": mm.log().len()})
        }
        "why" => {
            let Some(text) = action_text() else {
                return error("bad_request", "\"why\" needs an \"action\" string");
            };
            match mm.why(text) {
                Ok(w) => {
                    let at = w.span.map(|sp| {
                        let (line, column) = line_col(g, sp);
                        json!({"line": line, "column": column, "text": g.source(sp).snippet(sp)})
                    });
                    json!({"legal": w.legal, "reason": w.reason, "at": at})
                }
                Err(e) => rules_error(g, &e),
            }
        }
        "undo" => match mm.undo() {
            Ok(()) => json!({"ok": true, "actor": actor_name(mm.actor())}),
            Err(e) => rules_error(g, &e),
        },
        "save" => json!({"data": mm.save_text()}),
        _ => error("unknown_command", format!("unknown command `{cmd}`")),
    }
}
