//! Scenarios: a position set up, actions applied, expectations checked. Lowered by the
//! checker from a scenario file, run by the engine.

use super::{vm::Code, ProcId, Span};

/// A scenario ready to run.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The name written after `scenario`.
    pub name: String,
    /// The whole scenario in the scenario file.
    pub span: Span,
    /// The steps in order, each with its span in the scenario file.
    pub steps: Vec<(Step, Span)>,
}

/// One step of a scenario. The configuration steps (`players`, `seed`, `variant`, `set`,
/// `chance`)
/// apply until the first other step starts the match.
#[derive(Clone, Debug)]
pub enum Step {
    /// `players N`: the number of seats (the game's minimum when not given).
    Players(u8),
    /// `seed N`: the seed of the match's random generator (0 when not given).
    Seed(u64),
    /// `variant name` or `variant a, b`: the variants to play, comma-separated, in order.
    Variant(String),
    /// `set NAME = value`: a constant's value for the match (name, value as text).
    Set(String, String),
    /// `chance external`: chance events wait for `apply "chance ..."` (`chance seeded`, the
    /// default, adds no step).
    ExternalChance,
    /// A procedure (appended to the game) run on the current position.
    Setup(ProcId),
    /// `apply "text"`: applies the legal action with this canonical text; failing if illegal.
    Apply(String),
    /// `expect legal "text"`: the action with this canonical text is legal now.
    ExpectLegal(String),
    /// `expect not legal "text"`: the action with this canonical text is not legal now.
    ExpectNotLegal(String),
    /// `expect illegal "text"`: applying this action is refused and changes nothing.
    ExpectIllegal(String),
    /// `expect finished`: the game is over.
    ExpectFinished,
    /// `expect not finished`: the game is not over.
    ExpectNotFinished,
    /// `expect winners C`: the winners are exactly the players of collection `C`; with the
    /// number of local slots it needs.
    ExpectWinners(Code, u16),
    /// `expect actor p`: player `p` must act now; with the number of local slots it needs.
    ExpectActor(Code, u16),
    /// `expect cond`: a boolean that must hold now; with the number of local slots it needs.
    Expect(Code, u16),
    /// `expect p sees x` / `expect p not sees x`: whether seat `p`'s view shows it.
    ExpectSees {
        /// The seat (`none`: a spectator).
        seat: Code,
        /// What must (not) be seen.
        target: Seen,
        /// `sees` (true) or `not sees` (false).
        sees: bool,
        /// Local slots the expressions need.
        locals: u16,
    },
}

/// What an `expect ... sees` step looks at.
#[derive(Clone, Debug)]
pub enum Seen {
    /// A field of a component: shown when the component is and the field is visible.
    Field(Code, u16),
    /// A zone instance: its contents are all shown.
    Zone(Code),
    /// One entry of a variable (its indexes' code; empty without index).
    Var(super::VarId, Code),
}
