//! The line protocol's server: a [`Session`] owns at most one match of a game and answers one
//! request line with one reply line. `rulebook serve` feeds it stdin and prints its replies.
//!
//! ```
//! use rulebook::server::Session;
//! let text = std::fs::read_to_string("rules/classic/tic_tac_toe.rules").unwrap();
//! let game = rulebook::load("tic_tac_toe.rules", &text).game.expect("valid rules");
//! let mut session = Session::new(&game, None);
//!
//! let reply = session.handle(br#"{"cmd": "new", "players": 2, "seed": 1}"#);
//! assert_eq!(reply, r#"{"actor":"p1","ok":true}"#);
//!
//! let reply = session.handle(br#"{"cmd": "legal"}"#);
//! let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
//! assert_eq!(reply["actor"], "p1");
//! assert_eq!(reply["actions"][0]["text"], "place cell=a1");
//! assert_eq!(reply["actions"][0]["name"], "place");
//! assert_eq!(reply["actions"][0]["args"], serde_json::json!([["cell", "a1"]]));
//! ```
//!
//! **Panics.** A request is answered inside `catch_unwind`: a panic while answering it (a
//! bug) answers `internal_error` and leaves the match as it was. Nothing in the match
//! changes before the engine has done its part ([`Match`] applies an action to a copy of the
//! state and keeps it only on success; `new` and `load` replace the match last); should the
//! reply fail after the match changed, the change is taken back (an applied action undone,
//! an undone one applied again).

pub mod protocol;
mod suggest;

use crate::agents::{Mcts, MctsConfig};
use crate::engine::{Action, Actor, ChanceMode, Config, Match, RunError};
use crate::ir::{Arm, Game};
use crate::source::Span;
use protocol::{
    cut_quotes, quote, ChanceModeName, ChanceOutcome, Code, Error, LegalAction, Place, Reply,
    Request,
};
use std::panic::{catch_unwind, AssertUnwindSafe};
use suggest::suggest;

/// The protocol's code for an error of the engine: `rules_error` when a rule failed while
/// running, otherwise `refused`, the code of the request that was refused.
fn error_code(e: &RunError) -> Code {
    match e {
        RunError::Illegal { .. } => Code::IllegalAction,
        RunError::Rule { .. } => Code::RulesError,
        RunError::Config { .. } => Code::BadConfig,
        RunError::Limit { .. } => Code::LimitReached,
        RunError::Finished => Code::Finished,
        RunError::NothingToUndo => Code::NothingToUndo,
        RunError::Save { .. } => Code::BadSave,
    }
}

/// The line and column (from 1, in characters) of where a span starts.
fn line_col(g: &Game, sp: Span) -> (usize, usize) {
    g.source(sp).line_col(sp.start)
}

/// An engine error as a reply: its code (`rules_error`, or `refused`), its message, and the
/// line and column of the rule when it has one.
fn run_error(g: &Game, e: &RunError) -> Error {
    let mut out = Error::new(error_code(e), cut_quotes(e.message()));
    if let Some(sp) = e.span() {
        let (line, column) = line_col(g, sp);
        out.line = Some(line);
        out.column = Some(column);
    }
    out
}

fn actor_name(a: Actor) -> String {
    match a {
        Actor::Player(p) => format!("p{}", p + 1),
        Actor::Chance => "chance".into(),
        Actor::Nobody => "nobody".into(),
    }
}

/// The name and the bound values of a legal action of the waiting choice, as texts.
fn action_parts(
    g: &Game,
    st: &crate::engine::State,
    a: &Action,
) -> (Option<String>, Vec<(String, String)>) {
    let arm = g
        .waiting_choice(st)
        .and_then(|c| g.choices[c].arms.get(a.arm as usize));
    let (name, binds) = match arm {
        Some(Arm::Action(ai)) => {
            let decl = &g.actions[*ai];
            (Some(decl.name.clone()), &decl.params[..])
        }
        Some(Arm::Inline { label, binds, .. }) => (label.clone(), &binds[..]),
        None => return (None, Vec::new()),
    };
    let args = binds
        .iter()
        .zip(a.args)
        .map(|(b, v)| (b.name.clone(), crate::engine::show_value(g, st, v)))
        .collect();
    (name, args)
}

/// Where the answer to a request may fail after the match changed (see the module's
/// documentation); tests make it panic there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// The engine is about to be asked.
    BeforeEngine,
    /// The match has changed; the reply is being built.
    AfterChange,
}

/// One client's session: the game, at most one match, and the seat the client is bound to.
pub struct Session<'g> {
    game: &'g Game,
    /// The seat the request being answered is made for (`None`: the host).
    seat: Option<u8>,
    /// The seat this session's own client plays, kept while [`Session::run_as`] answers for
    /// another: every match must have it.
    bound: Option<u8>,
    /// How `suggest` searches (its budget when the request names none).
    search: MctsConfig,
    /// Each seat's search kept between its `suggest`s, with tree reuse
    /// ([`MctsConfig::reuse`]) on.
    kept: Vec<Option<Mcts>>,
    current: Option<Match<'g>>,
    #[cfg(test)]
    panic_at: Option<Stage>,
}

impl<'g> Session<'g> {
    /// A session with no match yet. With `seat` (from 0), the client plays that seat only:
    /// it sees that seat's view and legal actions, applies only that seat's actions, undoes
    /// only its own last decision, and may not start or load a match, read the whole state or
    /// save; the host starts the match with [`Session::run_as`]`(None, ..)`, and a match
    /// without that seat is refused (`bad_seat`). Without, it is the host, a trusted client.
    pub fn new(game: &'g Game, seat: Option<u8>) -> Self {
        Session {
            game,
            seat,
            bound: seat,
            search: MctsConfig::default(),
            kept: Vec::new(),
            current: None,
            #[cfg(test)]
            panic_at: None,
        }
    }

    /// The same session searching `suggest` on `threads` threads (root parallelism).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.search.threads = threads.max(1);
        self
    }

    /// The same session searching `suggest` with these settings (its threads kept); the
    /// budget applies when a request names no playouts.
    pub fn with_search(mut self, config: MctsConfig) -> Self {
        let threads = self.search.threads;
        self.search = MctsConfig { threads, ..config };
        self
    }

    /// The current match, if any.
    pub fn current(&self) -> Option<&Match<'g>> {
        self.current.as_ref()
    }

    /// Answers one request line (without its line end) with one reply line of JSON (without
    /// a line end). Never panics.
    pub fn handle(&mut self, line: &[u8]) -> String {
        let reply = match std::str::from_utf8(line) {
            Err(e) => Error::new(Code::BadJson, format!("the line is not UTF-8 text: {e}")).into(),
            Ok(text) if text.trim().is_empty() => Error::new(
                Code::BadJson,
                "an empty line; a request is one JSON object on one line",
            )
            .into(),
            Ok(text) => self.answer(text),
        };
        reply.to_line()
    }

    /// The reply to a line that is longer than [`protocol::MAX_LINE_BYTES`].
    pub fn too_long() -> String {
        Reply::from(Error::new(
            Code::TooLong,
            format!(
                "the line is longer than {} bytes; a request must fit in one line of at most that",
                protocol::MAX_LINE_BYTES
            ),
        ))
        .to_line()
    }

    fn answer(&mut self, text: &str) -> Reply {
        match parse(text) {
            Ok(req) => self.run(req),
            Err(e) => e.into(),
        }
    }

    /// Carries out one request, catching any panic; the match is as it was after a panic.
    pub fn run(&mut self, req: Request) -> Reply {
        // What `restore` needs, without copying the log: its length and its last entry.
        let before = self
            .current
            .as_ref()
            .map(|m| (m.log().len(), m.log().last().cloned()));
        match catch_unwind(AssertUnwindSafe(|| self.dispatch(&req))) {
            Ok(Ok(reply)) => reply,
            Ok(Err(e)) => e.into(),
            Err(panic) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                self.restore(before);
                Error::new(
                    Code::InternalError,
                    format!(
                        "rulebook failed while answering this request ({}); the match is as it was",
                        cut_quotes(&what)
                    ),
                )
                .into()
            }
        }
    }

    /// Carries out one request on this session's match as a client bound to `seat` would
    /// (`None`: a trusted client), whatever the session's own seat: for a program that serves
    /// several seats from one match, such as the page of `rulebook web`, each answer still
    /// derived from that seat's view and its legal actions.
    pub fn run_as(&mut self, seat: Option<u8>, req: Request) -> Reply {
        let own = std::mem::replace(&mut self.seat, seat);
        let reply = self.run(req);
        self.seat = own;
        reply
    }

    /// After a panic: takes back an action applied or an undo made while answering. A request
    /// changes the match by one decision at most, and `new` and `load` replace it only once
    /// nothing can fail, so the log's length and its last entry before the request tell what
    /// to take back.
    fn restore(&mut self, before: Option<(usize, Option<String>)>) {
        let (Some(m), Some((len, last))) = (self.current.as_mut(), before) else {
            return;
        };
        let now = m.log().len();
        if now == len + 1 {
            let _ = catch_unwind(AssertUnwindSafe(|| m.undo()));
        } else if now + 1 == len {
            if let Some(last) = last {
                let _ = catch_unwind(AssertUnwindSafe(|| redo(m, &last)));
            }
        }
    }

    #[cfg(test)]
    fn checkpoint(&self, stage: Stage) {
        if self.panic_at == Some(stage) {
            panic!("a test panic at {stage:?}");
        }
    }

    #[cfg(not(test))]
    fn checkpoint(&self, _stage: Stage) {}

    fn dispatch(&mut self, req: &Request) -> Result<Reply, Error> {
        let g = self.game;
        if self.seat.is_some() && matches!(req, Request::New { .. } | Request::Load { .. }) {
            let what = if matches!(req, Request::New { .. }) {
                "`new`"
            } else {
                "`load`"
            };
            return Err(Error::new(
                Code::Forbidden,
                format!(
                    "{what} is not allowed to a client bound to a seat: the host starts the match"
                ),
            ));
        }
        match req {
            Request::New {
                players,
                seed,
                variant,
                chance,
                set,
            } => {
                let cfg = Config {
                    players: players.unwrap_or(g.min_players),
                    variant: variant.clone(),
                    seed: seed.unwrap_or(0),
                    chance: match chance {
                        None | Some(ChanceModeName::Seeded) => ChanceMode::Seeded,
                        Some(ChanceModeName::External) => ChanceMode::External,
                    },
                    fuel: None,
                    set: set
                        .iter()
                        .flatten()
                        .map(|(n, v)| (n.clone(), v.text()))
                        .collect(),
                };
                self.checkpoint(Stage::BeforeEngine);
                let m = Match::new(g, cfg).map_err(|e| run_error(g, &e))?;
                self.replace(m)
            }
            Request::Load { data } => {
                self.checkpoint(Stage::BeforeEngine);
                let m = Match::load_text(g, data).map_err(|e| run_error(g, &e))?;
                self.replace(m)
            }
            _ => self.on_match(req),
        }
    }

    /// Puts `m` in place of the current match; the reply is built first. A match without
    /// the session's bound seat is refused.
    fn replace(&mut self, m: Match<'g>) -> Result<Reply, Error> {
        let players = m.state().players;
        if let Some(b) = self.bound.filter(|&b| b >= players) {
            return Err(Error::new(
                Code::BadSeat,
                format!(
                    "this session's client plays seat {b} (p{}), and a match of {players} players \
                     has seats from 0 to {} only (p1 to p{players})",
                    b as u16 + 1,
                    players.saturating_sub(1)
                ),
            ));
        }
        let reply = Reply::Ready {
            actor: actor_name(m.actor()),
            ok: true,
        };
        self.checkpoint(Stage::AfterChange);
        self.current = Some(m);
        Ok(reply)
    }

    /// A request on the current match.
    fn on_match(&mut self, req: &Request) -> Result<Reply, Error> {
        let g = self.game;
        let seat = self.seat;
        let m = self.current.as_mut().ok_or_else(no_match)?;
        let forbidden = |what: &str| {
            Error::new(
                Code::Forbidden,
                format!("{what} is not allowed to a client bound to a seat"),
            )
        };
        // The bound seat, when it must choose now (alone, or in a `choose each`).
        let to_act = seat.filter(|s| m.pending().contains(s));
        let reply = match req {
            Request::Legal {} => legal(g, m, seat, to_act)?,
            Request::Apply { action } => {
                if m.actor() == Actor::Nobody {
                    return Err(Error::new(Code::Finished, "the game is over"));
                }
                self.checkpoint(Stage::BeforeEngine);
                let m = self.current.as_mut().ok_or_else(no_match)?;
                match (seat, to_act) {
                    (None, _) => m.apply_text(action),
                    (Some(_), Some(s)) if m.actor() == Actor::Player(s) => m.apply_text(action),
                    (Some(_), Some(s)) => m.apply_for(s, action),
                    (Some(s), None) => {
                        return Err(Error::new(
                            Code::NotYourTurn,
                            format!(
                                "{} must act now, not {}",
                                actor_name(m.actor()),
                                crate::ir::player_name(s)
                            ),
                        ))
                    }
                }
                .map_err(|e| illegal(g, m, &e, action, to_act))?;
                let reply = Reply::Applied {
                    actor: actor_name(m.actor()),
                    finished: m.state().is_over(),
                    ok: true,
                };
                self.checkpoint(Stage::AfterChange);
                reply
            }
            Request::View { seat: asked } => Reply::View {
                view: m.view(seen_seat(m, seat, *asked)?),
            },
            Request::Log { from, seat: asked } => {
                let want = seen_seat(m, seat, *asked)?;
                Reply::Log {
                    entries: m
                        .log_seen(want, from.unwrap_or(0))
                        .map_err(|e| run_error(g, &e))?,
                    decisions: m.log().len(),
                }
            }
            Request::Why { action } => match (seat, to_act) {
                (Some(s), None) => Reply::Why {
                    at: None,
                    legal: false,
                    reason: format!(
                        "{} must act now, not {}",
                        actor_name(m.actor()),
                        crate::ir::player_name(s)
                    ),
                },
                _ => {
                    // Asked by a bound seat that is to choose: from its own part of a
                    // simultaneous block or its own choice of a `choose each`.
                    let w = m.why_for(to_act, action).map_err(|e| run_error(g, &e))?;
                    let at = w.span.map(|sp| {
                        let (line, column) = line_col(g, sp);
                        Place {
                            line,
                            column,
                            text: g.source(sp).snippet(sp).to_string(),
                        }
                    });
                    Reply::Why {
                        at,
                        legal: w.legal,
                        reason: cut_quotes(&w.reason),
                    }
                }
            },
            Request::Status {} => {
                let st = m.state();
                let o = st.outcome();
                Reply::Status {
                    actor: actor_name(m.actor()),
                    decisions: m.log().len(),
                    finished: st.is_over(),
                    scores: o.map(|o| o.scores.clone()),
                    winners: o.map(|o| o.winners.clone()),
                }
            }
            Request::State {} if seat.is_some() => return Err(forbidden("`state`")),
            Request::State {} => Reply::State {
                log: m.log().to_vec(),
                state: g.view_all(m.state()),
            },
            Request::Undo {} => {
                self.checkpoint(Stage::BeforeEngine);
                let m = self.current.as_mut().ok_or_else(no_match)?;
                let last = m.log().last().cloned();
                m.undo().map_err(|e| run_error(g, &e))?;
                // A seat takes back its own last decision only: a commitment `pN: ..` names
                // its seat, any other decision was the actor's before it.
                if let (Some(s), Some(last)) = (seat, last) {
                    let by = match seat_text(&last) {
                        Some((by, _)) => Actor::Player(by),
                        None => m.actor(),
                    };
                    if by != Actor::Player(s) {
                        redo(m, &last).map_err(|e| run_error(g, &e))?;
                        return Err(Error::new(
                            Code::Forbidden,
                            format!(
                                "the last decision is {}'s: a client bound to a seat may undo \
                                 only its own last decision",
                                actor_name(by)
                            ),
                        ));
                    }
                }
                let reply = Reply::Ready {
                    actor: actor_name(m.actor()),
                    ok: true,
                };
                self.checkpoint(Stage::AfterChange);
                reply
            }
            Request::Suggest { playouts } => suggest(
                g,
                m,
                (seat, to_act),
                *playouts,
                &self.search,
                &mut self.kept,
            )?,
            Request::Save {} if seat.is_some() => return Err(forbidden("`save`")),
            Request::Save {} => Reply::Save {
                data: m.save_text(),
            },
            Request::New { .. } | Request::Load { .. } => {
                return Err(Error::new(Code::InternalError, "not a request on a match"))
            }
        };
        Ok(reply)
    }
}

/// The seat whose view (or log) is asked: `asked`, else the client's own; a bound client may
/// ask for its own only.
fn seen_seat(m: &Match, own: Option<u8>, asked: Option<u8>) -> Result<Option<u8>, Error> {
    let players = m.state().players;
    let want = asked.or(own);
    if want.is_some_and(|s| s >= players) {
        return Err(Error::new(
            Code::BadSeat,
            format!("seat must be a number from 0 to {}", players - 1),
        ));
    }
    if let (Some(own), Some(w)) = (own, want) {
        if own != w {
            return Err(Error::new(
                Code::BadSeat,
                format!("this client plays seat {own} and may see only its view"),
            ));
        }
    }
    Ok(want)
}

/// Applies again a decision of the log as it was written (`pN: text` for a commitment).
fn redo(m: &mut Match, entry: &str) -> Result<(), RunError> {
    match seat_text(entry) {
        Some((seat, text)) => m.apply_for(seat, text),
        None => m.apply_text(entry),
    }
}

fn no_match() -> Error {
    Error::new(Code::NoMatch, "no match yet: send {\"cmd\":\"new\"} first")
}

/// `pN: text`, a commitment of seat N − 1 in a log.
fn seat_text(entry: &str) -> Option<(u8, &str)> {
    let (p, t) = entry.split_once(": ")?;
    let n = p.strip_prefix('p')?.parse::<u8>().ok()?;
    Some((n.checked_sub(1)?, t))
}

/// The legal actions (or chance outcomes) for the client: all of them for a trusted client,
/// the bound seat's when it must choose, none when another seat must.
fn legal(g: &Game, m: &Match, seat: Option<u8>, to_act: Option<u8>) -> Result<Reply, Error> {
    let actor = m.actor();
    if seat.is_some() && to_act.is_none() {
        return Ok(Reply::Actions {
            actions: Vec::new(),
            actor: actor_name(actor),
        });
    }
    let list = match to_act {
        Some(s) => m.legal_for(s),
        None => m.legal(),
    }
    .map_err(|e| run_error(g, &e))?;
    let st = m.state();
    if actor == Actor::Chance {
        let mut weights = Vec::with_capacity(list.len());
        let total = g
            .chance_outcomes(st, &mut |_, w| weights.push(w))
            .map_err(|e| run_error(g, &e))?
            .max(1);
        let outcomes = list
            .into_iter()
            .zip(weights)
            .map(|((_, text), weight)| ChanceOutcome {
                text,
                probability: weight as f64 / total as f64,
                weight,
                total,
            })
            .collect();
        return Ok(Reply::Outcomes {
            actor: actor_name(actor),
            outcomes,
        });
    }
    let actions = list
        .into_iter()
        .map(|(a, text)| {
            let (name, args) = action_parts(g, st, &a);
            LegalAction { text, name, args }
        })
        .collect();
    Ok(Reply::Actions {
        actions,
        actor: actor_name(actor),
    })
}

/// The reply to an action the engine refused: a rule error as such; otherwise
/// `illegal_action`, quoting at most a prefix of the text and naming some legal actions.
fn illegal(g: &Game, m: &Match, e: &RunError, text: &str, seat: Option<u8>) -> Error {
    if !matches!(e, RunError::Illegal { .. }) {
        return run_error(g, e);
    }
    let legal = match seat {
        Some(s) => m.legal_for(s),
        None => m.legal(),
    }
    .unwrap_or_default();
    let names: Vec<&str> = legal.iter().take(12).map(|(_, t)| t.as_str()).collect();
    let more = if legal.len() > 12 { ", ..." } else { "" };
    Error::new(
        Code::IllegalAction,
        format!(
            "`{}` is not a legal action now; legal: {}{more}",
            quote(text),
            names.join(", ")
        ),
    )
}

/// Reads one request: JSON, with a `"cmd"` string naming a command, and the fields of that
/// command.
pub fn parse(text: &str) -> Result<Request, Error> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        Error::new(
            Code::BadJson,
            format!("not JSON: {}", cut_quotes(&e.to_string())),
        )
    })?;
    let Some(cmd) = value.get("cmd").and_then(|c| c.as_str()) else {
        return Err(Error::new(
            Code::BadRequest,
            "a request is a JSON object with a \"cmd\" string",
        ));
    };
    if !Request::COMMANDS.contains(&cmd) {
        return Err(Error::new(
            Code::UnknownCommand,
            format!(
                "unknown command `{}`; commands: {}",
                quote(cmd),
                Request::COMMANDS.join(", ")
            ),
        ));
    }
    let cmd = cmd.to_string();
    serde_json::from_value(value).map_err(|e| {
        Error::new(
            Code::BadRequest,
            format!("`{cmd}`: {}", cut_quotes(&e.to_string())),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game() -> Game {
        let text = std::fs::read_to_string("rules/classic/tic_tac_toe.rules").expect("readable");
        crate::check::load("tic_tac_toe.rules", &text)
            .game
            .expect("valid rules")
    }

    /// The match as a trusted client sees it: log and whole state.
    fn snapshot(s: &mut Session) -> String {
        s.handle(br#"{"cmd":"state"}"#)
    }

    /// A panic while answering, before the engine is asked or after the match changed,
    /// answers `internal_error` and leaves the match exactly as it was; the session goes on.
    #[test]
    fn a_panic_never_changes_the_match() {
        let g = game();
        let mut s = Session::new(&g, None);
        s.handle(br#"{"cmd":"new","players":2,"seed":1}"#);
        s.handle(br#"{"cmd":"apply","action":"place cell=b2"}"#);
        let save = serde_json::json!({"cmd": "load", "data": s.current().map(|m| m.save_text())})
            .to_string();
        let requests = [
            r#"{"cmd":"apply","action":"place cell=a1"}"#.to_string(),
            r#"{"cmd":"undo"}"#.to_string(),
            r#"{"cmd":"new","players":2,"seed":9}"#.to_string(),
            save,
        ];
        for stage in [Stage::BeforeEngine, Stage::AfterChange] {
            for req in &requests {
                let before = snapshot(&mut s);
                s.panic_at = Some(stage);
                let reply: serde_json::Value =
                    serde_json::from_str(&s.handle(req.as_bytes())).expect("JSON");
                s.panic_at = None;
                assert_eq!(reply["error"]["code"], "internal_error", "{stage:?} {req}");
                assert_eq!(
                    snapshot(&mut s),
                    before,
                    "{stage:?} {req} changed the match"
                );
            }
        }
        let reply = s.handle(br#"{"cmd":"apply","action":"place cell=a1"}"#);
        assert_eq!(reply, r#"{"actor":"p1","finished":false,"ok":true}"#);
    }

    #[test]
    fn quotes_are_cut_on_a_char_boundary() {
        let long = "é".repeat(100);
        let cut = protocol::quote(&long);
        assert_eq!(cut, format!("{}...", "é".repeat(64)));
        let msg = format!("`{long}` is not legal; \"{long}\" either; and `{long}");
        let cut = cut_quotes(&msg);
        assert_eq!(cut.matches(&"é".repeat(64)).count(), 3, "{cut}");
        assert!(!cut.contains(&"é".repeat(65)), "{cut}");
        assert_eq!(cut_quotes("no quotes here"), "no quotes here");
    }

    /// Every command parses from its name alone or with its fields; unknown fields and
    /// wrong types are refused.
    #[test]
    fn requests_are_typed() {
        for cmd in Request::COMMANDS {
            let r = parse(&format!(r#"{{"cmd":"{cmd}"}}"#));
            assert!(
                r.is_ok() || r.as_ref().is_err_and(|e| e.code == Code::BadRequest),
                "{cmd}: {r:?}"
            );
        }
        assert_eq!(
            parse(r#"{"cmd":"view","seat":1}"#),
            Ok(Request::View { seat: Some(1) })
        );
        for bad in [
            r#"{"cmd":"legal","x":1}"#,
            r#"{"cmd":"new","chance":5}"#,
            r#"{"cmd":"new","players":300}"#,
            r#"{"cmd":"new","seed":-1}"#,
            r#"{"cmd":5}"#,
            r#"[1,2]"#,
        ] {
            assert_eq!(
                parse(bad).map_err(|e| e.code),
                Err(Code::BadRequest),
                "{bad}"
            );
        }
        assert_eq!(
            parse(r#"{"cmd":"fly"}"#).map_err(|e| e.code),
            Err(Code::UnknownCommand)
        );
        assert_eq!(parse("{").map_err(|e| e.code), Err(Code::BadJson));
    }
}
