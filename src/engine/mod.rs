//! Engine: game state, legal actions, apply, chance, outcomes and views.
//!
//! The engine does no IO and looks nothing up by name while a game runs. A paused game is
//! plain data ([`State`]): a stack of frames (procedure, pc, locals), so it clones, saves and
//! resumes at any decision, even one in the middle of an effect.

mod eval;
mod exec;
pub mod scenario;
mod session;
mod view;

pub use eval::{Ctx, Env, DEF_LOCALS};
/// The most local names one procedure (the flow, the setup, an action) may use.
pub const LOCALS_LIMIT: usize = exec::MAX_LOCALS;
pub use exec::WhyNot;
pub use session::{Match, Save, SAVE_VERSION};
pub use view::{View, ZoneView};

use crate::ir::{Game, NamePart, Value, MAX_ARGS};
use crate::syntax::ast::Span;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::fmt;

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
    /// Name of the variant whose constant overrides apply, or `None` for the base rules.
    pub variant: Option<String>,
    /// Seed of the state's random generator (shuffles and rolls in [`ChanceMode::Seeded`]).
    pub seed: u64,
    /// How chance events are resolved.
    pub chance: ChanceMode,
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
}

impl Action {
    /// The `arm` of a chance outcome.
    pub const CHANCE: u16 = u16::MAX;
    /// Marks a seat that takes no part in a simultaneous choice.
    pub const SKIP: Action = Action {
        arm: u16::MAX - 1,
        args: [Value::None; MAX_ARGS],
    };
    /// The chance outcome `v`: a rolled value, or the component a shuffle places next (its
    /// positions are filled from the top down).
    pub fn chance(v: Value) -> Self {
        Action {
            arm: Self::CHANCE,
            args: [v, Value::None, Value::None, Value::None],
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

/// An error while running the rules: a rule did something impossible, or looped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunError {
    /// What went wrong, in words.
    pub message: String,
    /// Where in the rules file, when the error comes from a rule (`None` e.g. for a refused
    /// action or a bad configuration).
    pub span: Option<Span>,
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RunError {}

impl From<Box<RunError>> for RunError {
    fn from(b: Box<RunError>) -> Self {
        *b
    }
}

impl RunError {
    /// A diagnostic pointing into the rules file, when the error has a span.
    pub fn report(&self, g: &Game) -> miette::Report {
        let mut r = miette::miette!(
            labels = self
                .span
                .map(|s| vec![miette::LabeledSpan::new_primary_with_span(
                    Some("here".into()),
                    s
                )])
                .unwrap_or_default(),
            "{}",
            self.message
        );
        if self.span.is_some() {
            r = r.with_source_code(miette::NamedSource::new(&g.source_name, g.source.clone()));
        }
        r
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Phase {
    Setup,
    Flow,
    Over,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Wait {
    Running,
    Decision { choice: u32, actor: u8 },
    Chance,
    Over,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Frame {
    pub proc: u32,
    pub pc: u32,
    pub base: u32,
    pub me: u8,
}

/// A running game. Cloning copies flat vectors; nothing in it points into the rules.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct State {
    /// Number of seats in this match.
    pub players: u8,
    /// Index of the variant in play ([`Game::variants`]), if any.
    pub variant: Option<u16>,
    pub(crate) consts: Vec<Value>,
    pub(crate) vars: Vec<Value>,
    pub(crate) fields: Vec<Value>,
    /// Per field slot: revealed to everyone (for fields declared `seen by`).
    pub(crate) revealed: Vec<bool>,
    pub(crate) zones: Vec<Vec<u32>>,
    pub(crate) loc: Vec<u32>,
    pub(crate) frames: Vec<Frame>,
    pub(crate) locals: Vec<Value>,
    pub(crate) iters: Vec<Value>,
    pub(crate) current: Option<u8>,
    pub(crate) wait: Wait,
    pub(crate) phase: Phase,
    pub(crate) rng: ChaCha8Rng,
    /// How chance events are resolved in this match.
    pub chance: ChanceMode,
    pub(crate) chance_step: u32,
    /// The options of the waiting choice, listed once when the game paused there.
    pub(crate) cache: Vec<Action>,
    /// Hidden commitments of a simultaneous choice, per seat (`None`: still to choose).
    pub(crate) commits: Vec<Option<Action>>,
    /// Decisions applied so far (players' and chance's).
    pub decisions: u64,
    pub(crate) outcome: Option<Outcome>,
}

impl State {
    /// The outcome, once the game is over.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }
    /// Whether the game has ended (an [`Outcome`] is set).
    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }
    /// The player whose turn it is: the `p` of the innermost `turn p { }` now running, if any.
    pub fn current(&self) -> Option<u8> {
        self.current
    }
    /// Components (indices into [`Game::comps`]) in a zone instance, bottom to top.
    pub fn zone(&self, inst: u32) -> &[u32] {
        &self.zones[inst as usize]
    }
    /// The current value of field `field` (index into its type's fields) of component `c`.
    pub fn field(&self, c: u32, field: u16, g: &Game) -> Value {
        self.fields[(g.comps[c as usize].field_base + field as u32) as usize]
    }
    /// The value in a variable slot (a [`crate::ir::VarDef::base`] plus a flat index).
    pub fn var(&self, slot: usize) -> Value {
        self.vars[slot]
    }
}

/// The name of a component from its initial field values (used by the checker for `named`).
pub fn comp_static_name(g: &Game, c: u32) -> Option<String> {
    let comp = g.comps.get(c as usize)?;
    let mut s = String::new();
    for p in &comp.name {
        match p {
            NamePart::Text(t) => s.push_str(t),
            NamePart::Field(f) => s.push_str(&static_value(g, comp.fields[*f as usize])),
        }
    }
    Some(s)
}

/// A value as text, without a state (components named from their initial fields).
pub fn show_static(g: &Game, v: Value) -> String {
    static_value(g, v)
}

fn static_value(g: &Game, v: Value) -> String {
    match v {
        Value::None => "none".into(),
        Value::Int(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Player(p) => format!("p{}", p + 1),
        Value::Enum(e, i) => g.enums[e as usize].values[i as usize].clone(),
        Value::Comp(c) => comp_static_name(g, c).unwrap_or_default(),
        Value::Space(b, s) => g.boards[b as usize].space_names[s as usize].clone(),
        Value::Zone(z) => g.zone_instance_name(z),
    }
}

/// Whether `seat` (`None`: a spectator) may see field `f` of component `c` now.
pub fn field_visible(g: &Game, s: &State, c: u32, f: u16, seat: Option<u8>) -> bool {
    let comp = &g.comps[c as usize];
    let Some(by) = g.types[comp.ty as usize].fields[f as usize].seen_by else {
        return true;
    };
    let slot = (comp.field_base + f as u32) as usize;
    if s.is_over() || s.revealed[slot] {
        return true;
    }
    match (seat, s.fields[(comp.field_base + by as u32) as usize]) {
        (Some(p), Value::Player(o)) => p == o,
        _ => false,
    }
}

/// A component's name as `seat` may see it: secret fields it may not see show as `?`.
pub fn show_comp_for(g: &Game, s: &State, c: u32, seat: Option<u8>) -> String {
    let comp = &g.comps[c as usize];
    let mut out = String::new();
    for p in &comp.name {
        match p {
            NamePart::Text(t) => out.push_str(t),
            NamePart::Field(f) if !field_visible(g, s, c, *f, seat) => out.push('?'),
            NamePart::Field(f) => out.push_str(&show_value(
                g,
                s,
                s.fields[(comp.field_base + *f as u32) as usize],
            )),
        }
    }
    out
}

/// A value as text, with components named from their current fields.
pub fn show_value(g: &Game, s: &State, v: Value) -> String {
    match v {
        Value::Comp(c) => {
            let comp = &g.comps[c as usize];
            let mut out = String::new();
            for p in &comp.name {
                match p {
                    NamePart::Text(t) => out.push_str(t),
                    NamePart::Field(f) => out.push_str(&show_value(
                        g,
                        s,
                        s.fields[(comp.field_base + *f as u32) as usize],
                    )),
                }
            }
            out
        }
        other => static_value(g, other),
    }
}
