//! The running game: plain data that clones, saves and resumes at any decision.

use super::*;
use crate::ir::*;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Phase {
    Setup,
    Flow,
    Over,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Wait {
    Running,
    Decision { choice: ChoiceId, actor: u8 },
    Chance,
    Over,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Frame {
    pub proc: ProcId,
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
    pub variant: Option<VariantId>,
    pub(crate) consts: Table<ConstId, Value>,
    pub(crate) vars: Vec<Value>,
    pub(crate) fields: Vec<Value>,
    /// Per field slot: revealed to everyone (for fields declared `seen by`).
    pub(crate) revealed: Vec<bool>,
    pub(crate) zones: Table<InstId, Vec<CompId>>,
    pub(crate) loc: Table<CompId, InstId>,
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
    pub fn zone(&self, inst: InstId) -> &[CompId] {
        self.zones.get(inst).map_or(&[], |z| z.as_slice())
    }
    /// The current value of field `field` (index into its type's fields) of component `c`;
    /// `none` for a component or field the game does not have.
    pub fn field(&self, c: CompId, field: u16, g: &Game) -> Value {
        match g.comps.get(c) {
            Some(comp) if (field as usize) < comp.fields.len() => self
                .fields
                .get(g.field_slot(c, field))
                .copied()
                .unwrap_or_default(),
            _ => Value::None,
        }
    }
    /// The value in a variable slot (a [`crate::ir::VarDef::base`] plus a flat index); `none`
    /// past the last slot.
    pub fn var(&self, slot: usize) -> Value {
        self.vars.get(slot).copied().unwrap_or_default()
    }
}
