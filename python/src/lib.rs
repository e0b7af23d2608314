//! `rulebook._native`: the Python bindings of rulebook, thin on purpose. The Python package
//! (`python/rulebook/`) builds the OpenSpiel game and the PettingZoo environment over them.
//!
//! - [`load`] reads and checks a rules file into a [`PyGame`];
//! - [`PySession`] is the line protocol's session (`rulebook serve`) on one match: the play
//!   API (legal actions, apply, undo, views, log, `why`, saves, `suggest`) answers with the
//!   protocol's JSON replies, so the binding and the protocol cannot disagree;
//! - [`PyState`] is a bare state with the game's action codes and view codes
//!   (`rulebook::engine::ActionCodes`, `ViewCodes`), cheap to clone, for search algorithms;
//! - `simulate`, `tune` and `count` run the library's own functions.
//!
//! Every failure is a Python exception of the `RulebookError` family with the message, and
//! the file, line and column when the error has a place; a panic inside the engine is caught
//! by PyO3 and raised as `pyo3_runtime.PanicException`, never an abort.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rulebook::agents::{Agent, AgentSpec};
use rulebook::engine::{ActionCodes, ViewCodes};
use rulebook::server::Session;
use rulebook::{Action, Actor, ChanceMode, Config, Game, RunError, State};
use std::sync::Arc;
use yoke::Yoke;

mod state;
use state::*;

create_exception!(
    _native,
    RulebookError,
    PyException,
    "Any error of rulebook."
);
create_exception!(
    _native,
    RulesError,
    RulebookError,
    "A rules file that cannot be read or has errors."
);
create_exception!(
    _native,
    ConfigError,
    RulebookError,
    "A bad configuration or parameter: players, variant, constants, options."
);
create_exception!(
    _native,
    IllegalActionError,
    RulebookError,
    "An action that is not legal now."
);
create_exception!(
    _native,
    RuleFailedError,
    RulebookError,
    "A rule failed while the game ran (with its place in the rules file)."
);
create_exception!(
    _native,
    LimitError,
    RulebookError,
    "The rules ran past a limit without reaching a decision."
);
create_exception!(
    _native,
    SaveError,
    RulebookError,
    "A save that does not load."
);
create_exception!(
    _native,
    GameOverError,
    RulebookError,
    "An action or a suggestion asked of a finished game."
);
create_exception!(
    _native,
    NothingToUndoError,
    RulebookError,
    "An undo at the start of a match."
);
create_exception!(
    _native,
    ProtocolError,
    RulebookError,
    "A request the play API refused for another reason (a seat not in play, a client bound to a seat)."
);

/// An exception of class `E` with `message`, and the attributes `code`, `file`, `line`,
/// `column` (None when unknown).
fn raise<E: pyo3::PyTypeInfo>(
    py: Python<'_>,
    message: &str,
    code: &str,
    place: Option<(String, usize, usize)>,
) -> PyErr {
    let err = PyErr::new::<E, _>(message.to_string());
    let value = err.value(py);
    let (file, line, column) = match place {
        Some((f, l, c)) => (Some(f), Some(l), Some(c)),
        None => (None, None, None),
    };
    let _ = value.setattr("message", message);
    let _ = value.setattr("code", code);
    let _ = value.setattr("file", file);
    let _ = value.setattr("line", line);
    let _ = value.setattr("column", column);
    err
}

/// An engine error as the exception of its kind, with the rule's place when it has one.
fn run_error(py: Python<'_>, g: &Game, e: &RunError) -> PyErr {
    let place = e.span().map(|sp| {
        let src = g.source(sp);
        let (l, c) = src.line_col(sp.start);
        (src.name.clone(), l, c)
    });
    let msg = e.message();
    match e {
        RunError::Illegal { .. } => raise::<IllegalActionError>(py, msg, "illegal_action", place),
        RunError::Rule { .. } => raise::<RuleFailedError>(py, msg, "rules_error", place),
        RunError::Config { .. } => raise::<ConfigError>(py, msg, "bad_config", place),
        RunError::Limit { .. } => raise::<LimitError>(py, msg, "limit_reached", place),
        RunError::Finished => raise::<GameOverError>(py, msg, "finished", place),
        RunError::NothingToUndo => raise::<NothingToUndoError>(py, msg, "nothing_to_undo", place),
        RunError::Save { .. } => raise::<SaveError>(py, msg, "bad_save", place),
    }
}

fn config_error(py: Python<'_>, msg: impl AsRef<str>) -> PyErr {
    raise::<ConfigError>(py, msg.as_ref(), "bad_config", None)
}

/// A checked game.
#[pyclass(frozen, name = "Game", module = "rulebook._native")]
struct PyGame {
    game: Arc<Game>,
    /// The warnings of the checker: (message, line, column).
    warnings: Vec<(String, usize, usize)>,
}

/// The player count, variant, seed and constants of a match, as the Python functions take
/// them.
fn make_config(
    py: Python<'_>,
    g: &Game,
    players: Option<i64>,
    seed: u64,
    variant: Option<String>,
    set: Option<&Bound<'_, PyDict>>,
    chance: &str,
) -> PyResult<Config> {
    let players = match players {
        None => None,
        Some(n) => Some(u8::try_from(n).map_err(|_| {
            config_error(
                py,
                format!(
                    "players must be from {} to {}, not {n}",
                    g.min_players, g.max_players
                ),
            )
        })?),
    };
    let chance = match chance {
        "seeded" => ChanceMode::Seeded,
        "external" => ChanceMode::External,
        other => {
            return Err(config_error(
                py,
                format!("chance must be \"seeded\" or \"external\", not {other:?}"),
            ))
        }
    };
    let mut pairs = Vec::new();
    if let Some(set) = set {
        for (k, v) in set.iter() {
            let k: String = k.extract()?;
            let v = if let Ok(b) = v.extract::<bool>() {
                b.to_string()
            } else if let Ok(n) = v.extract::<i64>() {
                n.to_string()
            } else if let Ok(s) = v.extract::<String>() {
                s
            } else {
                return Err(config_error(
                    py,
                    format!("constant {k}: a value is an int, a bool or a str"),
                ));
            };
            pairs.push((k, v));
        }
    }
    Ok(Config {
        players: players.unwrap_or(g.min_players),
        variant,
        seed,
        chance,
        fuel: None,
        set: pairs,
    })
}

#[pymethods]
impl PyGame {
    /// The game's display name.
    #[getter]
    fn name(&self) -> String {
        self.game.name.clone()
    }
    #[getter]
    fn min_players(&self) -> u8 {
        self.game.min_players
    }
    #[getter]
    fn max_players(&self) -> u8 {
        self.game.max_players
    }
    /// The variants' names, in declaration order.
    #[getter]
    fn variants(&self) -> Vec<String> {
        self.game.variants.iter().map(|v| v.name.clone()).collect()
    }
    /// The constants with their values in the file, as texts.
    #[getter]
    fn constants(&self) -> Vec<(String, String)> {
        self.game
            .consts
            .iter()
            .map(|c| (c.name.clone(), self.game.show_static(c.value)))
            .collect()
    }
    /// The checker's warnings: (message, line, column).
    #[getter]
    fn warnings(&self) -> Vec<(String, usize, usize)> {
        self.warnings.clone()
    }
    /// Whether the game declares scores (else only winners).
    #[getter]
    fn has_score(&self) -> bool {
        self.game.score.is_some()
    }

    /// Whether no seat is ever denied anything (no hidden zone, variable or field).
    #[getter]
    fn hides_nothing(&self) -> bool {
        self.game.hides_nothing()
    }
    /// Whether the rules hold a shuffle or a roll.
    #[getter]
    fn has_chance(&self) -> bool {
        use rulebook::ir::vm::Step;
        self.game.program.procs.iter().any(|p| {
            p.iter()
                .any(|s| matches!(s, Step::Roll { .. } | Step::Shuffle { .. }))
        })
    }
    /// The number of components.
    #[getter]
    fn components(&self) -> usize {
        self.game.comps.len()
    }

    /// Starts a match: a bare state with the game's action and view codes.
    #[pyo3(signature = (players=None, seed=0, variant=None, set=None, chance="external"))]
    fn start(
        &self,
        py: Python<'_>,
        players: Option<i64>,
        seed: u64,
        variant: Option<String>,
        set: Option<&Bound<'_, PyDict>>,
        chance: &str,
    ) -> PyResult<PyState> {
        let g = &self.game;
        let config = make_config(py, g, players, seed, variant, set, chance)?;
        let state = g.start(&config).map_err(|e| run_error(py, g, &e))?;
        let shared = Shared {
            codes: g.action_codes(&state),
            views: g.view_codes(&state),
            start: state.clone(),
            config,
        };
        Ok(PyState {
            game: self.game.clone(),
            shared: Arc::new(shared),
            state,
            history: Vec::new(),
        })
    }

    /// A session of the play API: the line protocol's session on this game. With `seat`, a
    /// client bound to that seat (it sees that seat's view and acts for it only).
    #[pyo3(signature = (seat=None))]
    fn session(&self, seat: Option<u8>) -> PySession {
        let live: Yoke<Live<'static>, Arc<Game>> =
            Yoke::attach_to_cart(self.game.clone(), |g: &Game| Live {
                session: Session::new(g, seat),
            });
        PySession { live }
    }

    /// `simulate`: the summary's JSON text.
    #[pyo3(signature = (games, players=None, seed=0, variant=None, set=None, agents=None, threads=1, max_turns=None, lead=false))]
    #[allow(clippy::too_many_arguments)]
    fn simulate(
        &self,
        py: Python<'_>,
        games: u64,
        players: Option<i64>,
        seed: u64,
        variant: Option<String>,
        set: Option<&Bound<'_, PyDict>>,
        agents: Option<Vec<String>>,
        threads: usize,
        max_turns: Option<u64>,
        lead: bool,
    ) -> PyResult<String> {
        let g = self.game.clone();
        let cfg = make_config(py, &g, players, seed, variant, set, "seeded")?;
        g.start(&cfg).map_err(|e| run_error(py, &g, &e))?;
        let agents = agent_specs(py, agents)?;
        let opts = rulebook::run::simulate::Options {
            threads: threads.clamp(1, 256),
            agents: &agents,
            max_turns,
            lead,
            ..rulebook::run::simulate::Options::new(games)
        };
        let summary = py
            .detach(|| rulebook::run::simulate::simulate_agents(&g, &cfg, &opts))
            .map_err(|e| run_error(py, &g, &e))?;
        Ok(summary.json())
    }

    /// `tune`: the search's result as JSON text.
    #[pyo3(signature = (params, goals, games=100, budget=20000, players=None, seed=0, variant=None, set=None, agents=None, threads=1, max_turns=None))]
    #[allow(clippy::too_many_arguments)]
    fn tune(
        &self,
        py: Python<'_>,
        params: Vec<String>,
        goals: Vec<String>,
        games: u64,
        budget: u64,
        players: Option<i64>,
        seed: u64,
        variant: Option<String>,
        set: Option<&Bound<'_, PyDict>>,
        agents: Option<Vec<String>>,
        threads: usize,
        max_turns: Option<u64>,
    ) -> PyResult<String> {
        use rulebook::run::tune::{tune, Goal, Param, TuneOptions};
        let g = self.game.clone();
        let cfg = make_config(py, &g, players, seed, variant, set, "seeded")?;
        let params: Vec<Param> = params
            .iter()
            .map(|p| Param::parse(p))
            .collect::<Result<_, _>>()
            .map_err(|e| config_error(py, e))?;
        let goals: Vec<Goal> = goals
            .iter()
            .map(|p| Goal::parse(p))
            .collect::<Result<_, _>>()
            .map_err(|e| config_error(py, e))?;
        let agents = agent_specs(py, agents)?;
        let opts = TuneOptions {
            games: games.max(1),
            budget,
            threads: threads.clamp(1, 256),
            agents: &agents,
            max_turns,
            progress: None,
            meeting: None,
        };
        let t = py
            .detach(|| tune(&g, &cfg, &params, &goals, opts))
            .map_err(|e| run_error(py, &g, &e))?;
        let trial = |t: &rulebook::run::tune::Trial| {
            serde_json::json!({
                "values": t.params_values(&params),
                "games": t.games,
                "loss": t.loss,
                "estimates": t.estimates.iter().zip(&goals).map(|(e, goal)| serde_json::json!({
                    "metric": goal.metric.name(), "lo": goal.lo, "hi": goal.hi,
                    "value": e.value, "low": e.low, "high": e.high, "n": e.n,
                })).collect::<Vec<_>>(),
            })
        };
        Ok(serde_json::json!({
            "best": trial(&t.best),
            "met": t.met,
            "games": t.games,
            "trials": t.trials.iter().map(trial).collect::<Vec<_>>(),
        })
        .to_string())
    }

    /// `count`: the game tree's nodes per depth (chance external, as `rulebook count`).
    #[pyo3(signature = (depth, players=None, variant=None, set=None, threads=1))]
    fn count(
        &self,
        py: Python<'_>,
        depth: u32,
        players: Option<i64>,
        variant: Option<String>,
        set: Option<&Bound<'_, PyDict>>,
        threads: usize,
    ) -> PyResult<String> {
        let g = self.game.clone();
        let cfg = make_config(py, &g, players, 0, variant, set, "external")?;
        let c = py
            .detach(|| rulebook::run::count::count_threads(&g, &cfg, depth, threads.clamp(1, 256)))
            .map_err(|e| run_error(py, &g, &e))?;
        Ok(
            serde_json::json!({"nodes": c.nodes, "finished": c.finished, "outcomes": c.outcomes})
                .to_string(),
        )
    }
}

trait TrialValues {
    fn params_values(&self, params: &[rulebook::run::tune::Param]) -> serde_json::Value;
}

impl TrialValues for rulebook::run::tune::Trial {
    fn params_values(&self, params: &[rulebook::run::tune::Param]) -> serde_json::Value {
        params
            .iter()
            .zip(&self.values)
            .map(|(p, v)| (p.name.clone(), serde_json::Value::from(*v)))
            .collect::<serde_json::Map<_, _>>()
            .into()
    }
}

fn agent_specs(py: Python<'_>, agents: Option<Vec<String>>) -> PyResult<Vec<AgentSpec>> {
    agents
        .unwrap_or_default()
        .iter()
        .map(|a| a.parse::<AgentSpec>())
        .collect::<Result<_, _>>()
        .map_err(|e| config_error(py, e))
}

/// An agent of `rulebook::agents` by its spec (`random`, `mcts:N`), seeded.
#[pyclass(name = "Agent", module = "rulebook._native", unsendable)]
struct PyAgent {
    agent: Box<dyn Agent + Send>,
}

#[pymethods]
impl PyAgent {
    #[new]
    #[pyo3(signature = (spec, seed=0))]
    fn new(py: Python<'_>, spec: &str, seed: u64) -> PyResult<Self> {
        let spec: AgentSpec = spec.parse().map_err(|e: String| config_error(py, e))?;
        Ok(PyAgent {
            agent: spec.build(seed),
        })
    }

    /// The code of the action the agent chooses in `state` (None when there is none).
    fn choose(&mut self, py: Python<'_>, state: &PyState) -> PyResult<Option<u64>> {
        let legal = state.legal_actions(py)?;
        let codes = state.codes_of(&legal);
        let chosen = self.agent.choose(&state.game, &state.state, &legal);
        Ok(chosen.and_then(|c| legal.iter().position(|a| *a == c).map(|i| codes[i])))
    }
}

/// Reads and checks a rules file (`text`: its text, else read from `path`).
#[pyfunction]
#[pyo3(signature = (path, text=None))]
fn load(py: Python<'_>, path: &str, text: Option<String>) -> PyResult<PyGame> {
    let text = match text {
        Some(t) => t,
        None => std::fs::read_to_string(path).map_err(|e| {
            raise::<RulesError>(
                py,
                &format!("cannot read the rules file {path}: {e}"),
                "unreadable",
                None,
            )
        })?,
    };
    let loaded = rulebook::load(path, &text);
    let place = |offset: usize| rulebook::source::line_col(&text, offset);
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    for p in &loaded.diagnostics.problems {
        let (line, column) = place(p.span.start);
        let item = (p.message.clone(), line, column, p.code.to_string());
        if p.severity == miette::Severity::Error {
            errors.push(item);
        } else {
            warnings.push((item.0, item.1, item.2));
        }
    }
    match loaded.game {
        Some(game) => Ok(PyGame {
            game: Arc::new(game),
            warnings,
        }),
        None => {
            let (msg, line, column, code) = errors
                .first()
                .cloned()
                .unwrap_or_else(|| ("the rules have errors".into(), 1, 1, "rules".into()));
            let more = if errors.len() > 1 {
                format!(" (and {} more errors)", errors.len() - 1)
            } else {
                String::new()
            };
            let err = raise::<RulesError>(
                py,
                &format!("{path}:{line}:{column}: {msg}{more}"),
                &code,
                Some((path.to_string(), line, column)),
            );
            let all: Vec<(String, usize, usize, String)> = errors;
            let _ = err.value(py).setattr("errors", all);
            Err(err)
        }
    }
}

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_class::<PyGame>()?;
    m.add_class::<PyState>()?;
    m.add_class::<PySession>()?;
    m.add_class::<PyAgent>()?;
    m.add("RulebookError", py.get_type::<RulebookError>())?;
    m.add("RulesError", py.get_type::<RulesError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("IllegalActionError", py.get_type::<IllegalActionError>())?;
    m.add("RuleFailedError", py.get_type::<RuleFailedError>())?;
    m.add("LimitError", py.get_type::<LimitError>())?;
    m.add("SaveError", py.get_type::<SaveError>())?;
    m.add("GameOverError", py.get_type::<GameOverError>())?;
    m.add("NothingToUndoError", py.get_type::<NothingToUndoError>())?;
    m.add("ProtocolError", py.get_type::<ProtocolError>())?;
    Ok(())
}
