//! Engine: game state, legal actions, apply, chance, outcomes and views.
//!
//! The engine does no IO and looks nothing up by name while a game runs. A paused game is
//! plain data ([`State`]): a stack of frames (procedure, pc, locals), so it clones, saves and
//! resumes at any decision, even one in the middle of an effect.

mod encode;
mod error;
mod native;
mod options;
mod outcome;
mod react;
mod run;
pub mod scenario;
mod seen;
mod sequence;
mod session;
mod simul;
mod start;
mod state;
mod text;
mod view;
mod vm;
mod why;
mod zones;

pub use encode::{ActionCodes, ViewCodes, MAX_ACTION_CODES, MAX_ONE_HOT};
pub use error::RunError;
pub use native::StateEnv;
pub use seen::{SeenLine, HIDDEN, MAX_ALTERNATIVES};
pub use session::{Match, Save, CHECKPOINT_EVERY, SAVE_VERSION};
pub use state::State;
pub(crate) use state::{Frame, Phase, Wait, WindowState};
pub use text::{field_visible, show_comp_for, show_value, var_visible, ActionText};
pub use view::{View, ZoneView};
pub use vm::DEFAULT_FUEL;
pub use why::WhyNot;

use crate::ir::{Value, MAX_ARGS};
use serde::{Deserialize, Serialize};

/// How chance events are resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum ChanceMode {
    /// The state's own seeded generator decides.
    #[default]
    Seeded,
    /// Each chance event waits for a decision of the chance actor.
    External,
}

/// How to start a match.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// Number of seats, which [`Game::start`] requires to lie within the game's declared
    /// `players` range.
    pub players: u8,
    /// The variants to play, by name, separated by commas (`"level3,high_start"`), applied
    /// in that order; `None` for the base rules.
    pub variant: Option<String>,
    /// Seed of the state's random generator (shuffles and rolls in [`ChanceMode::Seeded`]).
    pub seed: u64,
    /// How chance events are resolved.
    pub chance: ChanceMode,
    /// The work budget of each decision (`None`: [`DEFAULT_FUEL`]): statements run, elements
    /// of collections visited, path steps, parameter combinations tried and set allocations
    /// searched each cost one unit; running out is a [`RunError::Limit`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fuel: Option<u64>,
    /// Constants set for this match, after the variants: (name, value as text: `4`, `true`,
    /// `red`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set: Vec<(String, String)>,
}

impl Config {
    /// A match of the base rules with `players` seats, chance drawn from `seed`, the default
    /// work budget and no constants set.
    pub fn seeded(players: u8, seed: u64) -> Config {
        Config {
            players,
            seed,
            chance: ChanceMode::Seeded,
            ..Config::default()
        }
    }
}

/// Who must act now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Actor {
    /// The seat (from 0) that must choose an action.
    Player(u8),
    /// A chance event waits for its outcome (only with [`ChanceMode::External`]).
    Chance,
    /// The game is over.
    Nobody,
}

/// A decision: which option of the pending choice, with the values it binds.
/// `arm == CHANCE` for a chance outcome, whose value is `args[0]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Action {
    /// Index of the option in the waiting choice's [`arms`](crate::ir::Choice::arms), or
    /// [`Action::CHANCE`] for a chance outcome.
    pub arm: u16,
    /// The values bound to the option's parameters, in order; unused entries are
    /// [`Value::None`].
    pub args: [Value; MAX_ARGS],
    /// For a `sequence action`: the choices made inside its effect, kept in the state beside
    /// the options of the waiting choice ([`Steps::NONE`] otherwise).
    #[serde(default)]
    pub steps: Steps,
}

/// The inner choices of a sequence action's option: `len` entries from `start` in the state's
/// record of the options listed now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub struct Steps {
    /// The first entry.
    pub start: u32,
    /// How many.
    pub len: u32,
}

impl Steps {
    /// No inner choice.
    pub const NONE: Steps = Steps { start: 0, len: 0 };
}

impl Action {
    /// The `arm` of a chance outcome.
    pub const CHANCE: u16 = u16::MAX;
    /// Marks a seat that takes no part in a simultaneous choice.
    pub const SKIP: Action = Action {
        arm: u16::MAX - 1,
        args: [Value::None; MAX_ARGS],
        steps: Steps::NONE,
    };
    /// The chance outcome `v`: a rolled value, or the component a shuffle places next (its
    /// positions are filled from the top down).
    pub fn chance(v: Value) -> Self {
        Action {
            arm: Self::CHANCE,
            args: [v, Value::None, Value::None, Value::None],
            steps: Steps::NONE,
        }
    }
}

/// Why a game ended, and who won.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// Final score of each seat, in seat order (all 0 when the game declares no `score`).
    pub scores: Vec<i64>,
    /// The winning seats in increasing order; empty for a draw or when everybody lost.
    pub winners: Vec<u8>,
    /// How the game ended.
    pub kind: OutcomeKind,
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum OutcomeKind {
    /// Ended normally (the flow finished, an `end when` held, or `end`); winners by score
    /// and tie-breakers. A tie for first under `ties draw` is reported as [`OutcomeKind::Draw`].
    Scored,
    /// `win p` (or `win all`).
    Won,
    /// `end draw`, or a tie for first under `ties draw`.
    Draw,
    /// `end lose`: everybody lost.
    Lost,
}

/// A rule error with its place in the rules.
pub(crate) fn err(msg: impl Into<String>, span: Option<crate::source::Span>) -> RunError {
    RunError::rule(msg, span)
}

/// Blames a span for an evaluation's error that has no place yet.
pub(crate) trait Blame<T> {
    /// The result, with `span` given to an error without one.
    fn blame(self, span: Option<crate::source::Span>) -> Result<T, RunError>;
}

impl<T> Blame<T> for Result<T, Box<RunError>> {
    fn blame(self, span: Option<crate::source::Span>) -> Result<T, RunError> {
        self.map_err(|e| (*e).or_span(span))
    }
}
