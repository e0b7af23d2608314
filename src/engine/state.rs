//! The running game: plain data that clones, saves and resumes at any decision.

use super::zones::Zones;
use super::*;
use crate::ir::vm::Program;
use crate::ir::*;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) enum Phase {
    Setup,
    Flow,
    Over,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) enum Wait {
    Running,
    Decision { choice: ChoiceId, actor: u8 },
    Chance,
    Over,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) struct Frame {
    pub proc: ProcId,
    pub pc: u32,
    pub base: u32,
    pub me: u8,
    /// The effect of an action a player chose, or a trigger's body: no window opens while
    /// such a frame is on the stack ("never interrupting an action").
    #[serde(default)]
    pub inside: bool,
}

/// The window that is open, if any (see `Step::Window`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) struct WindowState {
    /// A window is open at the flow's current window point.
    pub open: bool,
    /// Seats that passed since the last window action.
    pub passed: u8,
    /// A window before a turn that opened just after an `anytime` window closed, with no
    /// decision since: only `before turn` actions make a seat worth asking (until someone
    /// acts).
    pub only_before: bool,
    /// When the last window closed: (events counted then, see [`State::events`], whether it
    /// was before a turn). A window point reached with nothing new since then does not open
    /// again.
    pub quiet: Option<(u64, bool)>,
    /// Changes the flow made to the game (a variable, a field or a zone written with a new
    /// value, a reveal, a shuffle or roll from the state's seed): what the flow did between two
    /// window points may be answered, whether or not a decision came in between, and whichever
    /// way chance is resolved.
    #[serde(default)]
    pub changes: u64,
}

/// A running game. Cloning copies flat vectors; nothing in it points into the rules.
/// `clone_from` reuses the target's allocations, so a walk that copies states into spare ones
/// allocates nothing.
#[derive(Debug, Serialize, Deserialize)]
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
    /// Per field slot: the seats it was revealed to (`reveal x.f to p`), one bit per seat.
    pub(crate) grants: Vec<u8>,
    /// The zone instances opened to everyone by `reveal z` (until `hide z`), sorted.
    #[serde(default)]
    pub(crate) opened: Vec<u32>,
    /// Per `memory` declaration: the positions remembered, one after the other, each the
    /// values of the memory's parts ([`crate::ir::MemoryDef`]). Shared between a state and
    /// its copies until one of them remembers or forgets: a copy made to look ahead (an
    /// `after`, a sequence action's exploration, a search) does not copy a long game's
    /// positions.
    #[serde(default)]
    pub(crate) memory: Vec<std::sync::Arc<Vec<Value>>>,
    pub(crate) zones: Zones,
    /// Bits of the value indexes ([`crate::ir::vm::ValueIndex`]).
    pub(crate) index: Vec<u64>,
    /// The work budget of each decision.
    pub(crate) fuel: u64,
    /// A fingerprint of what `setup` left in the variables only it writes (0 during setup):
    /// remembered guard answers are valid for matches with the same fingerprint.
    pub(crate) frozen: u64,
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
    /// The inner choices of the sequence actions among those options, each with the choice it
    /// answers ([`Action::steps`] point here).
    #[serde(default)]
    pub(crate) runs: Vec<(ChoiceId, Action)>,
    /// Hidden commitments of a simultaneous choice, per seat (`None`: still to choose).
    pub(crate) commits: Vec<Option<Action>>,
    /// A simultaneous block in progress (`simul.rs`): `None` in a game without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) block: Option<Box<super::simul::Block>>,
    /// Decisions applied so far (players' and chance's).
    pub decisions: u64,
    /// The window open at the flow's current window point, if any.
    #[serde(default)]
    pub(crate) window: WindowState,
    pub(crate) outcome: Option<Outcome>,
    /// When each family of the state ([`crate::ir::vm::Family`]) was last written, and
    /// which state this is: remembered answers are kept from one decision to the next while
    /// what they read is unchanged ([`Stamps`]).
    #[serde(skip)]
    pub(crate) stamps: Stamps,
}

/// The write stamps of a state's families ([`crate::ir::vm::Family`]). Every write of a
/// variable, a field, a zone's contents or order, or `current` that changes it counts one on
/// the clock and stamps its family with it; an answer computed at clock `t` is still valid
/// while every family it reads has a stamp of at most `t`. `lineage` names the sequence of
/// states one state went through: a clone, a copy or a loaded state starts a new one (nothing
/// is remembered for it), so an answer is never read for a state it was not computed on.
#[derive(Debug)]
pub(crate) struct Stamps {
    pub lineage: u64,
    pub clock: u64,
    pub at: [u64; 64],
}

/// The last lineage handed out.
static LINEAGE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Default for Stamps {
    fn default() -> Self {
        Stamps {
            lineage: LINEAGE.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1,
            clock: 0,
            at: [0; 64],
        }
    }
}

impl State {
    /// Part of family `bit` was written (stamped when anything reads the stamps).
    #[inline(always)]
    pub(crate) fn wrote(&mut self, fam: &crate::ir::vm::Families, bit: u32) {
        if fam.on {
            self.stamps.write_apart(bit);
        }
    }
}

impl Stamps {
    /// A new lineage for a state that now holds a copy. The clock and the stamps are kept:
    /// an answer is only asked of the lineage it was computed on, at a clock at least the
    /// one kept here, and every write after it stamps a later clock, so old stamps never make
    /// an answer look unchanged that is not (this saves zeroing 64 stamps per copy).
    pub fn renew(&mut self) {
        self.lineage = LINEAGE.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
    }

    /// [`Stamps::write`] out of line (for the flow's step loop).
    #[inline(never)]
    pub fn write_apart(&mut self, bit: u32) {
        self.write(bit);
    }

    /// Family `bit` was written.
    #[inline(always)]
    pub fn write(&mut self, bit: u32) {
        self.clock += 1;
        self.at[bit as usize & 63] = self.clock;
    }

    /// Whether none of the families in `reads` was written after clock `t`.
    #[inline(always)]
    pub fn unchanged(&self, reads: u64, t: u64) -> bool {
        let mut m = reads;
        while m != 0 {
            if self.at[m.trailing_zeros() as usize] > t {
                return false;
            }
            m &= m - 1;
        }
        true
    }
}

impl Clone for State {
    fn clone(&self) -> Self {
        State {
            players: self.players,
            variant: self.variant,
            consts: self.consts.clone(),
            vars: self.vars.clone(),
            fields: self.fields.clone(),
            revealed: self.revealed.clone(),
            opened: self.opened.clone(),
            memory: self.memory.clone(),
            grants: self.grants.clone(),
            zones: self.zones.clone(),
            index: self.index.clone(),
            fuel: self.fuel,
            frozen: self.frozen,
            frames: self.frames.clone(),
            locals: self.locals.clone(),
            iters: self.iters.clone(),
            current: self.current,
            wait: self.wait,
            phase: self.phase,
            rng: self.rng.clone(),
            chance: self.chance,
            chance_step: self.chance_step,
            cache: self.cache.clone(),
            runs: self.runs.clone(),
            commits: self.commits.clone(),
            block: self.block.clone(),
            decisions: self.decisions,
            window: self.window,
            outcome: self.outcome.clone(),
            stamps: Stamps::default(),
        }
    }

    fn clone_from(&mut self, src: &Self) {
        self.copy_from(src, true);
    }
}

impl State {
    /// `clone_from`, with the options listed at the pause and their runs copied only when
    /// `lists` (a copy that runs on to its own next pause lists its own).
    pub(crate) fn copy_from(&mut self, src: &Self, lists: bool) {
        self.players = src.players;
        self.variant = src.variant;
        self.consts.clone_from(&src.consts);
        self.vars.clone_from(&src.vars);
        self.fields.clone_from(&src.fields);
        self.revealed.clone_from(&src.revealed);
        self.opened.clone_from(&src.opened);
        self.memory.clone_from(&src.memory);
        self.grants.clone_from(&src.grants);
        self.zones.clone_from(&src.zones);
        self.index.clone_from(&src.index);
        self.fuel = src.fuel;
        self.frozen = src.frozen;
        self.frames.clone_from(&src.frames);
        self.locals.clone_from(&src.locals);
        self.iters.clone_from(&src.iters);
        self.current = src.current;
        self.wait = src.wait;
        self.phase = src.phase;
        self.rng.clone_from(&src.rng);
        self.chance = src.chance;
        self.chance_step = src.chance_step;
        if lists {
            self.cache.clone_from(&src.cache);
            self.runs.clone_from(&src.runs);
        } else {
            self.cache.clear();
            self.runs.clear();
        }
        self.commits.clone_from(&src.commits);
        self.block.clone_from(&src.block);
        self.decisions = src.decisions;
        self.window = src.window;
        self.outcome.clone_from(&src.outcome);
        self.stamps.renew();
    }

    /// Decisions (players' and external chance's) and changes of the game so far: a window
    /// reopens only after one of them.
    pub(crate) fn events(&self) -> u64 {
        self.decisions + self.window.changes
    }
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
    /// The components in a zone instance, bottom to top (empty for an instance the game does
    /// not have).
    pub fn zone(&self, inst: InstId) -> Vec<CompId> {
        if (inst.0 as usize) < self.zones_count() {
            self.zones.items(inst)
        } else {
            Vec::new()
        }
    }
    fn zones_count(&self) -> usize {
        self.zones.instances()
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

    /// How many of the positions remembered in memory `m` are `position` (none for a memory
    /// the game does not have).
    pub fn times_remembered(&self, m: usize, position: &[Value]) -> usize {
        match self.memory.get(m) {
            Some(held) if !position.is_empty() => held
                .chunks_exact(position.len())
                .filter(|p| *p == position)
                .count(),
            _ => 0,
        }
    }

    /// Writes a variable slot, keeping the variable's value index (if it has one) up to date.
    #[inline]
    pub(crate) fn set_var(&mut self, p: &Program, var: VarId, base: u32, slot: usize, v: Value) {
        let old = std::mem::replace(&mut self.vars[slot], v);
        if old != v && p.families.on {
            self.stamps.write(p.families.var(var));
        }
        p.index_write(var, slot - base as usize, old, v, &mut self.index);
    }
}

impl State {
    /// Writes a field slot (field `f` of component `c`), keeping the field's value index (if
    /// it has one) up to date.
    #[inline]
    pub(crate) fn set_field(&mut self, p: &Program, c: CompId, f: u16, slot: usize, v: Value) {
        let old = std::mem::replace(&mut self.fields[slot], v);
        if old == v {
            return;
        }
        if p.families.on {
            self.stamps.write(p.families.field(f));
        }
        if p.field_indexes.is_empty() {
            return;
        }
        let Some(&(ty, pos)) = p.comp_pos.get(c.0 as usize) else {
            return;
        };
        let word = (pos / 64) as usize;
        let bit = 1u64 << (pos % 64);
        for ix in p
            .field_indexes
            .iter()
            .filter(|ix| ix.ty == ty && ix.field == f)
        {
            if let Some(code) = Program::value_code(old).filter(|c| *c < ix.codes) {
                self.index[(ix.base + code * ix.words) as usize + word] &= !bit;
            }
            if let Some(code) = Program::value_code(v).filter(|c| *c < ix.codes) {
                self.index[(ix.base + code * ix.words) as usize + word] |= bit;
            }
        }
    }

    /// Fingerprints the variables only `setup` writes, the constants and the player count.
    pub(crate) fn freeze(&mut self, g: &Game) {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.players.hash(&mut h);
        for c in self.consts.iter() {
            c.hash(&mut h);
        }
        for &v in &g.program.frozen {
            let var = &g.vars[v];
            self.vars[var.base as usize..(var.base + var.count) as usize].hash(&mut h);
        }
        self.frozen = h.finish() | 1;
    }

    /// The value index bits as the variables now hold them.
    pub(crate) fn computed_index(&self, g: &Game) -> Vec<u64> {
        let p = &g.program;
        let mut bits = vec![0u64; p.index_words as usize];
        for ix in &p.indexes {
            let var = &g.vars[ix.var];
            for pos in 0..var.count as usize {
                let v = self.vars[var.base as usize + pos];
                if let Some(c) = Program::value_code(v).filter(|c| *c < ix.codes) {
                    bits[(ix.base + c * ix.words) as usize + pos / 64] |= 1 << (pos % 64);
                }
            }
        }
        for ix in &p.field_indexes {
            for (pos, &c) in p.type_comps[ix.ty].iter().enumerate() {
                let v = self.fields[g.field_slot(c, ix.field)];
                if let Some(c) = Program::value_code(v).filter(|c| *c < ix.codes) {
                    bits[(ix.base + c * ix.words) as usize + pos / 64] |= 1 << (pos % 64);
                }
            }
        }
        bits
    }
}

impl Game {
    /// Checks that a state (one read from outside: deserialized, or built by hand) fits this
    /// game: every table of the right size, every list of components consistent, every frame
    /// and wait pointing at code that exists. A state that passes can be given to the other
    /// methods of the game; one that does not would make them fail, or worse.
    pub fn validate_state(&self, st: &State) -> Result<(), RunError> {
        let bad = |what: &str| {
            Err(RunError::Save {
                message: format!("this state does not fit the game: {what}"),
            })
        };
        let fields: usize = self.comps.iter().map(|c| c.fields.len()).sum();
        if st.players < self.min_players || st.players > self.max_players {
            return bad("its player count");
        }
        if st.variant.is_some_and(|v| self.variants.get(v).is_none()) {
            return bad("its variant");
        }
        if st.consts.len() != self.consts.len()
            || st.vars.len() != self.var_slots as usize
            || st.fields.len() != fields
            || st.revealed.len() != fields
            || st.grants.len() != fields
            || st
                .opened
                .iter()
                .any(|&i| i as usize >= self.instances.len())
            || !st.opened.windows(2).all(|w| w[0] < w[1])
            || st.memory.len() != self.memories.len()
            || st.memory.iter().map(|m| m.len()).sum::<usize>() > MAX_MEMORY_VALUES
            || st.memory.iter().zip(&self.memories).any(|(m, d)| {
                m.len() % d.parts.len().max(1) != 0 || d.parts.is_empty() && !m.is_empty()
            })
            || st.index.len() != self.program.index_words as usize
        {
            return bad("the size of its tables");
        }
        if !st.zones.consistent(self.instances.len(), self.comps.len()) {
            return bad("its zones");
        }
        if st.index != st.computed_index(self) {
            return bad("its value indexes");
        }
        let mut base = 0u32;
        for f in &st.frames {
            let Some(proc) = self.procs.get(f.proc) else {
                return bad("a frame's procedure");
            };
            if f.pc as usize > self.program.procs[f.proc].len()
                || f.base != base.min(f.base)
                || f.base as usize + proc.locals as usize > st.locals.len()
                || f.me >= st.players
            {
                return bad("a frame");
            }
            base = f.base;
        }
        match st.wait {
            Wait::Decision { choice, actor } => {
                if self.choices.get(choice).is_none() || actor >= st.players {
                    return bad("the choice it waits at");
                }
            }
            Wait::Chance | Wait::Running | Wait::Over => {}
        }
        if st.current.is_some_and(|p| p >= st.players) || st.commits.len() > st.players as usize {
            return bad("its players");
        }
        if let Some(b) = st.block.as_deref() {
            if !self.validate_block(st, b) {
                return bad("its simultaneous block");
            }
        }
        for a in &st.cache {
            let end = a.steps.start as usize + a.steps.len as usize;
            if a.steps.len > 0 && end > st.runs.len() {
                return bad("the moves of an option");
            }
        }
        if st.runs.iter().any(|(c, _)| self.choices.get(*c).is_none()) {
            return bad("the moves of an option");
        }
        let actions = st
            .cache
            .iter()
            .chain(st.commits.iter().flatten())
            .chain(st.runs.iter().map(|r| &r.1));
        let values = st
            .vars
            .iter()
            .chain(&st.fields)
            .chain(&st.locals)
            .chain(&st.iters)
            .chain(st.consts.iter())
            .chain(st.memory.iter().flat_map(|m| m.iter()))
            .chain(actions.flat_map(|a| a.args.iter()));
        for v in values {
            if !self.value_fits(*v) {
                return bad("a value it holds");
            }
        }
        Ok(())
    }

    /// Whether a value refers only to things this game has.
    fn value_fits(&self, v: Value) -> bool {
        match v {
            Value::None | Value::Int(_) | Value::Bool(_) => true,
            Value::Player(p) => p < self.max_players,
            Value::Enum(e, i) => self
                .enums
                .get(e)
                .is_some_and(|d| (i as usize) < d.values.len()),
            Value::Comp(c) => self.comps.get(c).is_some(),
            Value::Space(b, s) => self.boards.get(b).is_some_and(|d| s < d.len()),
            Value::Zone(z) => self.instances.get(z).is_some(),
            Value::Action(a) => self.actions.get(a).is_some(),
        }
    }
}

/// Positions: what decides the rest of a game, for walks that meet the same position by
/// several paths (`count`'s transposition table).
impl State {
    /// Whether the game tree below this state is known to be the same as below `o`: every
    /// part of the two states is equal but the work budget (the same in one match) and the
    /// options listed at the pause (listed from the rest). A state inside a simultaneous
    /// block is never the same as another.
    pub fn same_position(&self, o: &State) -> bool {
        self.block.is_none()
            && o.block.is_none()
            && self.players == o.players
            && self.variant == o.variant
            && self.frozen == o.frozen
            && self.current == o.current
            && self.wait == o.wait
            && self.phase == o.phase
            && self.chance == o.chance
            && self.chance_step == o.chance_step
            && self.decisions == o.decisions
            && self.window == o.window
            && self.vars == o.vars
            && self.fields == o.fields
            && self.revealed == o.revealed
            && self.opened == o.opened
            && self.memory == o.memory
            && self.grants == o.grants
            && self.index == o.index
            && self.frames == o.frames
            && self.locals == o.locals
            && self.iters == o.iters
            && self.commits == o.commits
            && self.outcome == o.outcome
            && self.zones == o.zones
            && self.rng == o.rng
            && self.consts.iter().eq(o.consts.iter())
    }

    /// A hash of what [`State::same_position`] compares (`None` inside a simultaneous block).
    pub fn position_hash(&self) -> Option<u64> {
        use std::hash::{Hash, Hasher};
        if self.block.is_some() {
            return None;
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (self.players, self.variant.map(|v| v.0), self.frozen).hash(&mut h);
        (self.current, self.wait, self.phase, self.chance_step).hash(&mut h);
        (self.decisions, self.window).hash(&mut h);
        self.vars.hash(&mut h);
        self.fields.hash(&mut h);
        self.revealed.hash(&mut h);
        self.opened.hash(&mut h);
        self.memory.hash(&mut h);
        self.grants.hash(&mut h);
        self.frames.hash(&mut h);
        self.locals.hash(&mut h);
        self.iters.hash(&mut h);
        self.commits.hash(&mut h);
        self.outcome.is_some().hash(&mut h);
        self.zones.hash(&mut h);
        (self.rng.get_word_pos(), self.rng.get_stream()).hash(&mut h);
        Some(h.finish())
    }

    /// Roughly the bytes the state's vectors hold (for limits on tables of states).
    pub fn approx_bytes(&self) -> usize {
        use std::mem::size_of;
        size_of::<State>()
            + (self.vars.len() + self.fields.len() + self.locals.len() + self.iters.len())
                * size_of::<Value>()
            + self.revealed.len()
            + self.grants.len()
            + self.index.len() * 8
            + self.frames.len() * size_of::<Frame>()
            + self.zones.approx_bytes()
            + self.memory.iter().map(|m| m.len()).sum::<usize>() * size_of::<Value>()
            + (self.cache.len() + self.commits.len()) * size_of::<Option<Action>>()
    }
}
