//! `rulebook web`: a local page that draws any rules file from what it declares and plays it.
//!
//! [`App`] holds the rules (re-checked whenever they change), the match in a
//! [`Session`] of the line protocol, the agents that play the seats no human plays, and a
//! counter the page polls. Every answer about the match that reaches the page goes through
//! [`Session::run_as`] bound to the seat the page shows (its view, its legal actions, its
//! `why`), or is built from that seat's [`View`] ([`scene`]); the page never receives the
//! whole state. [`http`] serves the page and its JSON over HTTP.
//!
//! The rules come from a [`RulesSource`], so that reading files stays in the command line.

mod assets;
pub mod http;
pub mod scene;

use crate::agents::Agent;
use crate::check::Diagnostics;
use crate::engine::{Actor, Match, View};
use crate::ir::Game;
use crate::server::protocol::{Reply, Request};
use crate::server::Session;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Weak};
use yoke::Yoke;

/// What borrows the checked game: the match's session. [`App`] keeps it together with the
/// game it borrows ([`Yoke`]), so that a reload drops both and frees the old game.
#[derive(yoke::Yokeable)]
struct Live<'g> {
    game: &'g Game,
    session: Option<Session<'g>>,
}

/// A checked game and its session, owned together.
type Rules = Yoke<Live<'static>, Arc<Game>>;

/// The agents of the seats, `None` where a human plays.
type Agents = Vec<Option<Box<dyn Agent + Send>>>;

/// Where the rules come from: the command line reads a file and says when it changed.
pub trait RulesSource: Send + 'static {
    /// The name shown in diagnostics (the path).
    fn name(&self) -> String;
    /// The rules text if it changed since the last call (the first call always gives it), or
    /// why it cannot be read.
    fn changed(&mut self) -> Option<Result<String, String>>;
}

/// The agents a seat may be played by, as written in a setup (`random`). A spec names an
/// agent of [`crate::agents`] and may carry options after a colon in future agents.
pub const AGENTS: &[&str] = &["random", "mcts:200", "mcts:1000"];

/// An agent from its spec (`random`, `mcts`, `mcts:N`, as `rulebook::agents::AgentSpec`
/// reads them), seeded.
pub fn agent(spec: &str, seed: u64) -> Result<Box<dyn Agent + Send>, String> {
    let spec: crate::agents::AgentSpec = spec
        .parse()
        .map_err(|e: String| format!("{e}; agents: {}", AGENTS.join(", ")))?;
    Ok(spec.build(seed))
}

/// How the next match starts: the configuration and who plays each seat.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Setup {
    /// Number of players.
    pub players: u8,
    /// The variant, if any.
    pub variant: Option<String>,
    /// The match's seed.
    pub seed: u64,
    /// For each seat, whether a human plays it (at the page); other seats are agents.
    pub humans: Vec<bool>,
    /// The agent that plays the other seats, as a spec (`random`).
    pub agent: String,
}

/// One problem of the rules, for the page.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Problem {
    /// `error` or `warning`.
    pub severity: &'static str,
    /// The code, e.g. `unknown_name`.
    pub code: String,
    /// What is wrong.
    pub message: String,
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1, in characters.
    pub column: usize,
    /// The label of the place.
    pub label: String,
    /// A hint, if any.
    pub help: Option<String>,
    /// The line of the rules file, as written.
    pub source_line: String,
}

/// The problems of a check, with their places as lines and columns.
pub fn problems(text: &str, d: &Diagnostics) -> Vec<Problem> {
    let src = crate::source::Source {
        name: String::new(),
        text: text.to_string(),
    };
    d.problems
        .iter()
        .map(|p| {
            let (line, column) = src.line_col(p.span.start);
            Problem {
                severity: if p.severity == miette::Severity::Error {
                    "error"
                } else {
                    "warning"
                },
                code: p.code.to_string(),
                message: p.message.clone(),
                line,
                column,
                label: p.label.clone(),
                help: p.help.clone(),
                source_line: text.lines().nth(line - 1).unwrap_or("").to_string(),
            }
        })
        .collect()
}

/// The most decisions agents take in one request: a game of agents alone that never ends
/// stops there until the page asks again.
pub const MAX_AGENT_STEPS: usize = 100_000;

/// How long agents go on choosing in one request once they have taken a decision: the rest
/// is taken at the page's next poll of `/api/status`, so that no request's cost grows with
/// the match (a match of four search agents took 13 s in one `POST /api/new`, found by the
/// fuzzer's `web` target). The decisions are the same however they are split.
pub const AGENT_SLICE: std::time::Duration = std::time::Duration::from_millis(250);

/// The state of the page's server: rules, match, agents.
pub struct App {
    name: String,
    /// The rules as last read.
    text: String,
    /// The checked game and the session of its match; `None` when the rules have errors.
    /// A reload replaces both, and the game it replaces is freed.
    rules: Option<Rules>,
    problems: Vec<Problem>,
    /// Why the rules could not be read or the match not started, if so.
    trouble: Option<String>,
    setup: Setup,
    agents: Agents,
    /// How long agents may go on choosing in one request ([`AGENT_SLICE`]).
    pub agent_slice: std::time::Duration,
    /// How many times the rules were (re)loaded.
    rules_version: u64,
    /// Bumped whenever the match changes.
    match_version: u64,
}

/// What the page polls to know when to fetch again.
#[derive(Clone, Debug, Serialize)]
pub struct Status {
    /// Bumped on every reload of the rules.
    pub rules: u64,
    /// Bumped on every change of the match.
    pub r#match: u64,
    /// `pN`, `chance`, `nobody`, or `none` without a match.
    pub actor: String,
    /// The seats (from 0) that must choose now and are played at the page.
    pub humans_to_act: Vec<u8>,
    /// Whether an agent must still choose (the page's next poll lets it).
    pub agents_to_act: bool,
    /// Whether the game is over.
    pub over: bool,
    /// Decisions so far.
    pub decisions: usize,
}

/// The game as the page needs it before any match: name, players, variants, boards, setup,
/// and the problems of the rules.
#[derive(Clone, Debug, Serialize)]
pub struct GameInfo {
    /// The rules file's name.
    pub file: String,
    /// The game's title (`game "..."`), when the rules check.
    pub title: Option<String>,
    /// The problems found by the check (errors and warnings).
    pub problems: Vec<Problem>,
    /// Why the rules could not be read or the match not started.
    pub trouble: Option<String>,
    /// Fewest players.
    pub min_players: u8,
    /// Most players.
    pub max_players: u8,
    /// The variants: name and description.
    pub variants: Vec<(String, Option<String>)>,
    /// The boards, laid out.
    pub boards: Vec<scene::BoardLayout>,
    /// How the current match was started.
    pub setup: Setup,
    /// The agents a seat may be played by.
    pub agents: Vec<String>,
    /// Bumped on every reload of the rules.
    pub rules: u64,
}

/// A legal action as the page maps clicks to it: the protocol's [`LegalAction`], with the
/// values a sequence action's effect chooses after its own parameters.
///
/// [`LegalAction`]: crate::server::protocol::LegalAction
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct PageAction {
    /// The canonical text; `apply` takes it.
    pub text: String,
    /// The action or the labelled option; `None` for a value choice.
    pub name: Option<String>,
    /// Each bound name with the canonical text of its value, in order: the action's own
    /// parameters, then those of the choices its effect makes (`[["at", "g1"], ["take",
    /// "a7"]]` for `place at=g1 take=a7`), one click each.
    pub args: Vec<(String, String)>,
    /// How many of `args` are the action's own parameters.
    pub own: usize,
}

/// One seat's page: its view placed on the boards, its legal actions and the log as it may
/// see it.
#[derive(Clone, Debug, Serialize)]
pub struct SeatPage {
    /// The seat, from 0 (`None`: a spectator).
    pub seat: Option<u8>,
    /// The view itself (actor, turn, scores, winners).
    pub view: View,
    /// The view placed on the boards and in zones.
    pub scene: scene::Scene,
    /// The seat's legal actions now (empty when it must not act, or in the past).
    pub legal: Vec<PageAction>,
    /// Decisions in the match.
    pub decisions: usize,
    /// The decision the view is after, when looking back (`None`: now).
    pub at: Option<usize>,
    /// The log as the seat may read it: who decided, and the text (another seat's decision
    /// naming a component the seat cannot see is shown by its action name only).
    pub log: Vec<(String, String)>,
    /// Bumped on every change of the match.
    pub r#match: u64,
}

impl App {
    /// An app with no rules yet; [`App::poll`] reads them.
    pub fn new(name: String) -> Self {
        App {
            name,
            text: String::new(),
            problems: Vec::new(),
            trouble: None,
            setup: Setup {
                players: 0,
                variant: None,
                seed: 0,
                humans: Vec::new(),
                agent: "random".into(),
            },
            rules: None,
            agents: Vec::new(),
            agent_slice: AGENT_SLICE,
            rules_version: 0,
            match_version: 0,
        }
    }

    /// Reads the rules if they changed: re-checks them and restarts the match. Returns
    /// whether anything changed.
    pub fn poll(&mut self, source: &mut dyn RulesSource) -> bool {
        match source.changed() {
            None => false,
            Some(Err(e)) => {
                self.trouble = Some(e);
                self.rules_version += 1;
                true
            }
            Some(Ok(text)) => {
                self.reload(text);
                true
            }
        }
    }

    /// Checks a new text of the rules and, when it is valid, starts a new match of it.
    pub fn reload(&mut self, text: String) {
        let loaded = crate::check::load(&self.name, &text);
        self.problems = problems(&text, &loaded.diagnostics);
        self.text = text;
        self.trouble = None;
        self.rules_version += 1;
        self.match_version += 1;
        // The old match first, then the game it borrowed.
        self.rules = None;
        let Some(game) = loaded.game else {
            return;
        };
        let rules: Rules = Yoke::attach_to_cart(Arc::new(game), |game: &Game| Live {
            game,
            session: None,
        });
        let game: &Game = rules.get().game;
        let mut setup = self.setup.clone();
        setup.players = setup.players.clamp(game.min_players, game.max_players);
        if setup
            .variant
            .as_ref()
            .is_some_and(|v| !game.variants.iter().any(|d| &d.name == v))
        {
            setup.variant = None;
        }
        if self.setup.humans.is_empty() {
            // The first load: seat 1 is the page's, the others random.
            setup.humans = vec![false; setup.players as usize];
            setup.humans[0] = true;
        }
        self.rules = Some(rules);
        if let Err(e) = self.start(setup) {
            self.trouble = Some(e);
        }
    }

    /// A handle on the checked game, which does not keep it alive: a reload frees the game
    /// it replaces.
    pub fn game_handle(&self) -> Option<Weak<Game>> {
        self.rules
            .as_ref()
            .map(|r| Arc::downgrade(r.backing_cart()))
    }

    fn game(&self) -> Option<&Game> {
        self.rules.as_ref().map(|r| r.get().game)
    }

    /// Runs `f` on the session, moving `agents` in and out (what the rules borrow cannot
    /// leave [`Yoke::with_mut_return`]); `None` without a session.
    fn with_session<R: 'static>(
        &mut self,
        f: impl for<'g> FnOnce(&mut Session<'g>, &mut Agents) -> R + 'static,
    ) -> Option<R> {
        let rules = self.rules.as_mut()?;
        let mut agents = std::mem::take(&mut self.agents);
        let (agents, out) = rules.with_mut_return(move |live| {
            let out = live.session.as_mut().map(|s| f(s, &mut agents));
            (agents, out)
        });
        self.agents = agents;
        out
    }

    /// Starts a new match with `setup`.
    pub fn start(&mut self, mut setup: Setup) -> Result<(), String> {
        let rules = self.rules.as_mut().ok_or("the rules have errors")?;
        setup.humans.resize(setup.players as usize, false);
        let agents = (0..setup.players)
            .map(|s| {
                if setup.humans[s as usize] {
                    Ok(None)
                } else {
                    let seed = crate::run::agent_seed(crate::run::game_seed(setup.seed, s as u64));
                    agent(&setup.agent, seed).map(Some)
                }
            })
            .collect::<Result<Vec<_>, String>>()?;
        let new = Request::New {
            players: Some(setup.players),
            seed: Some(setup.seed),
            variant: setup.variant.clone(),
            chance: None,
            set: None,
        };
        rules.with_mut_return(move |live| {
            let mut session = Session::new(live.game, None);
            if let Reply::Error { error } = session.run(new) {
                return Err(error.message);
            }
            live.session = Some(session);
            Ok(())
        })?;
        self.agents = agents;
        self.setup = setup;
        self.trouble = None;
        self.match_version += 1;
        self.run_agents();
        Ok(())
    }

    fn current(&self) -> Option<&Match<'_>> {
        self.rules
            .as_ref()
            .and_then(|r| r.get().session.as_ref())
            .and_then(|s| s.current())
    }

    fn is_agent(&self, seat: u8) -> bool {
        is_agent(&self.agents, seat)
    }

    /// Lets the agents choose until a human must (or the game is over), for at most
    /// [`App::agent_slice`] after their first decision.
    pub fn run_agents(&mut self) {
        let slice = self.agent_slice;
        let Some((moves, trouble)) = self.with_session(move |s, a| run_agents(s, a, slice)) else {
            return;
        };
        self.match_version += moves;
        if trouble.is_some() {
            self.trouble = trouble;
        }
    }

    /// Answers one request of the line protocol as a client bound to `seat`; an action
    /// applied or undone lets the agents play.
    pub fn request(&mut self, seat: Option<u8>, req: Request) -> Reply {
        let changes = matches!(req, Request::Apply { .. } | Request::Undo {});
        let Some(reply) = self.with_session(move |session, _| session.run_as(seat, req)) else {
            return crate::server::protocol::Error::new(
                crate::server::protocol::Code::NoMatch,
                "no match: the rules have errors",
            )
            .into();
        };
        if changes && !matches!(reply, Reply::Error { .. }) {
            self.match_version += 1;
            self.run_agents();
        }
        reply
    }

    /// One decision back, then on to the last decision of a human: the agents' decisions
    /// after it are taken back too.
    pub fn undo(&mut self) -> Reply {
        let undone = self.with_session(|session, agents| {
            let first = session.run(Request::Undo {});
            if matches!(first, Reply::Error { .. }) {
                return first;
            }
            while let Some(m) = session.current() {
                let agent_to_act = m.pending().iter().any(|&s| is_agent(agents, s));
                if !agent_to_act || m.log().is_empty() {
                    break;
                }
                if matches!(session.run(Request::Undo {}), Reply::Error { .. }) {
                    break;
                }
            }
            first
        });
        let Some(first) = undone else {
            return self.request(None, Request::Undo {});
        };
        if matches!(first, Reply::Error { .. }) {
            return first;
        }
        self.match_version += 1;
        self.run_agents();
        first
    }

    /// The save of the match (RON).
    pub fn save(&mut self) -> Reply {
        self.request(None, Request::Save {})
    }

    /// Replays a save in place of the match; seats keep who plays them where they can.
    pub fn load(&mut self, data: String) -> Reply {
        let Some(reply) = self.with_session(move |session, _| session.run(Request::Load { data }))
        else {
            return crate::server::protocol::Error::new(
                crate::server::protocol::Code::NoMatch,
                "no match: the rules have errors",
            )
            .into();
        };
        if matches!(reply, Reply::Error { .. }) {
            return reply;
        }
        self.match_version += 1;
        if let Some(cfg) = self.current().map(|m| m.config().clone()) {
            let mut setup = self.setup.clone();
            setup.players = cfg.players;
            setup.variant = cfg.variant;
            setup.seed = cfg.seed;
            setup.humans.resize(cfg.players as usize, false);
            self.agents.resize_with(cfg.players as usize, || None);
            for s in 0..cfg.players {
                let human = setup.humans[s as usize];
                if human != self.agents[s as usize].is_none() {
                    let seed = crate::run::agent_seed(crate::run::game_seed(cfg.seed, s as u64));
                    self.agents[s as usize] = if human {
                        None
                    } else {
                        agent(&setup.agent, seed).ok()
                    };
                }
            }
            self.setup = setup;
        }
        self.run_agents();
        reply
    }

    /// What the page polls.
    pub fn status(&self) -> Status {
        let m = self.current();
        Status {
            rules: self.rules_version,
            r#match: self.match_version,
            actor: m.map_or("none".into(), |m| actor_name(m.actor())),
            humans_to_act: m.map_or(Vec::new(), |m| {
                m.pending()
                    .into_iter()
                    .filter(|&s| !self.is_agent(s))
                    .collect()
            }),
            agents_to_act: m.is_some_and(|m| m.pending().into_iter().any(|s| self.is_agent(s))),
            over: m.is_some_and(|m| m.state().is_over()),
            decisions: m.map_or(0, |m| m.log().len()),
        }
    }

    /// The game for the page.
    pub fn info(&self) -> GameInfo {
        let g = self.game();
        GameInfo {
            file: self.name.clone(),
            title: g.map(|g| g.name.clone()),
            problems: self.problems.clone(),
            trouble: self.trouble.clone(),
            min_players: g.map_or(0, |g| g.min_players),
            max_players: g.map_or(0, |g| g.max_players),
            variants: g.map_or(Vec::new(), |g| {
                g.variants
                    .iter()
                    .map(|v| (v.name.clone(), v.description.clone()))
                    .collect()
            }),
            boards: g.map_or(Vec::new(), scene::layouts),
            setup: self.setup.clone(),
            agents: AGENTS.iter().map(|s| s.to_string()).collect(),
            rules: self.rules_version,
        }
    }

    /// The page of one seat (`None`: a spectator), now or after the first `at` decisions.
    pub fn page(&mut self, seat: Option<u8>, at: Option<usize>) -> Result<SeatPage, String> {
        self.game().ok_or("the rules have errors")?;
        let m = self.current().ok_or("no match")?;
        let players = m.state().players;
        if seat.is_some_and(|s| s >= players) {
            return Err(format!("seat must be from 0 to {}", players - 1));
        }
        // The page shows the seats people play (hot-seat switches among them behind a cover)
        // and the spectator's view, never the view of a seat an agent plays.
        if let Some(s) =
            seat.filter(|&s| !self.setup.humans.get(s as usize).copied().unwrap_or(false))
        {
            return Err(format!(
                "{} is played by an agent: its view is not shown",
                crate::ir::player_name(s)
            ));
        }
        let version = self.match_version;
        self.with_session(move |session, _| page(session, seat, at, version))
            .ok_or("no match")?
    }
}

/// The page of one seat, now or after the first `at` decisions (see [`App::page`]).
fn page(
    session: &mut Session<'_>,
    seat: Option<u8>,
    at: Option<usize>,
    version: u64,
) -> Result<SeatPage, String> {
    {
        let m = session.current().ok_or("no match")?;
        let game = m.game();
        let players = m.state().players;
        let decisions = m.log().len();
        let at = at.filter(|&n| n < decisions);
        let upto = at.unwrap_or(decisions);
        let (view, legal) = match at {
            Some(n) => (
                m.view_at(n, seat).map_err(|e| e.message().to_string())?,
                Vec::new(),
            ),
            None => {
                let view = match session.run_as(seat, Request::View { seat: None }) {
                    Reply::View { view } => view,
                    other => return Err(serde_json::to_string(&other).unwrap_or_default()),
                };
                let legal = match seat.map(|s| session.run_as(Some(s), Request::Legal {})) {
                    Some(Reply::Actions { actions, .. }) => actions,
                    _ => Vec::new(),
                };
                let legal = page_actions(session, seat, legal);
                (view, legal)
            }
        };
        let log = log_for(session, seat, upto);
        Ok(SeatPage {
            seat,
            scene: scene::scene(game, &view, players),
            view,
            legal,
            decisions,
            at,
            log,
            r#match: version,
        })
    }
}

/// The seat's legal actions (as the protocol bound to it lists them) with the values each
/// chooses inside a sequence action's effect, read from the match when the seat acts alone
/// (the choices of its own actions, which its texts already name).
fn page_actions(
    session: &Session<'_>,
    seat: Option<u8>,
    legal: Vec<crate::server::protocol::LegalAction>,
) -> Vec<PageAction> {
    let inner: std::collections::HashMap<String, Vec<(String, String)>> = session
        .current()
        .filter(|m| seat.is_some_and(|s| m.actor() == Actor::Player(s)))
        .and_then(|m| m.legal_bindings().ok())
        .unwrap_or_default()
        .into_iter()
        .map(|(text, own, args)| (text, args[own.min(args.len())..].to_vec()))
        .collect();
    legal
        .into_iter()
        .map(|a| {
            let own = a.args.len();
            let mut args = a.args;
            if let Some(more) = inner.get(&a.text) {
                args.extend(more.iter().cloned());
            }
            PageAction {
                text: a.text,
                name: a.name,
                args,
                own,
            }
        })
        .collect()
}

fn is_agent(agents: &Agents, seat: u8) -> bool {
    agents.get(seat as usize).is_some_and(|a| a.is_some())
}

/// Lets the agents choose until a human must (or the game is over): how many decisions they
/// took, and why they stopped when one failed.
fn run_agents(
    session: &mut Session<'_>,
    agents: &mut Agents,
    slice: std::time::Duration,
) -> (u64, Option<String>) {
    let mut moves = 0;
    let start = std::time::Instant::now();
    for _ in 0..MAX_AGENT_STEPS {
        if moves > 0 && start.elapsed() >= slice {
            break;
        }
        let Some(m) = session.current() else {
            break;
        };
        let game = m.game();
        let pending = m.pending();
        let Some(&seat) = pending.iter().find(|&&s| is_agent(agents, s)) else {
            break;
        };
        let alone = m.actor() == Actor::Player(seat);
        let Ok(legal) = (if alone { m.legal() } else { m.legal_for(seat) }) else {
            break;
        };
        let actions: Vec<_> = legal.iter().map(|(a, _)| *a).collect();
        let Some(agent) = agents[seat as usize].as_mut() else {
            break;
        };
        let Some(choice) = agent.choose(game, m.state(), &actions) else {
            break;
        };
        let Some((_, text)) = legal.into_iter().find(|(a, _)| *a == choice) else {
            break;
        };
        let reply = session.run_as(Some(seat), Request::Apply { action: text });
        moves += 1;
        if matches!(reply, Reply::Error { .. }) {
            let why = format!(
                "the agent of p{} failed: {}",
                seat + 1,
                serde_json::to_string(&reply).unwrap_or_default()
            );
            return (moves, Some(why));
        }
    }
    (moves, None)
}

fn actor_name(a: Actor) -> String {
    match a {
        Actor::Player(p) => crate::ir::player_name(p),
        Actor::Chance => "chance".into(),
        Actor::Nobody => "nobody".into(),
    }
}

/// The first `upto` decisions of the log as `seat` may read them (`None`: a spectator): the
/// protocol's `log` bound to that seat, so the page shows of another seat's decisions only
/// what the seat's views show ([`crate::engine::Match::log_seen`]).
fn log_for(session: &mut Session, seat: Option<u8>, upto: usize) -> Vec<(String, String)> {
    match session.run_as(
        seat,
        Request::Log {
            from: Some(0),
            seat,
        },
    ) {
        Reply::Log { entries, .. } => entries
            .into_iter()
            .take(upto)
            .map(|l| (l.who, l.text))
            .collect(),
        _ => Vec::new(),
    }
}
