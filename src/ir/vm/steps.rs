//! The compiled flow: procedures as `Step`s with explicit jumps (a paused game is plain
//! data), function definitions, triggers, sets, value indexes and what the checker proved
//! about values (`Sure`).

use super::*;

/// One step of a compiled procedure (see [`Instr`], which it mirrors).
#[derive(Clone, Debug)]
pub enum Step {
    /// `let x = e`.
    Let(u16, Code, Span),
    /// `t = e`, `+=`, `-=`.
    Assign {
        /// What is assigned.
        target: Target,
        /// `=`, `+=` or `-=`.
        op: AssignOp,
        /// The value.
        value: Code,
        /// The statement.
        span: Span,
    },
    /// `move c to [bottom of] z`.
    Move {
        /// The component.
        what: Code,
        /// The zone.
        to: Code,
        /// To the bottom.
        bottom: bool,
        /// The statement.
        span: Span,
    },
    /// `deal n from a to [bottom of] b`.
    Deal {
        /// How many (`None`: all).
        count: Option<Code>,
        /// From this zone.
        from: Code,
        /// To this zone.
        to: Code,
        /// To the bottom.
        bottom: bool,
        /// The statement.
        span: Span,
    },
    /// `shuffle z`.
    Shuffle {
        /// The zone.
        zone: Code,
        /// The statement.
        span: Span,
    },
    /// `roll x [in C]`.
    Roll {
        /// What receives the value.
        target: Target,
        /// The possible values (a collection).
        domain: Code,
        /// The statement.
        span: Span,
    },
    /// Continue at a step.
    Jump(u32),
    /// Continue at the step when the condition is false.
    JumpIfNot(Code, u32, Span),
    /// Take the elements of a collection for a `for` loop (three locals from `slot`).
    ForInit {
        /// The collection.
        coll: Code,
        /// The loop's first local.
        slot: u16,
        /// The loop.
        span: Span,
    },
    /// The next element, or leave the loop.
    ForNext {
        /// The loop's first local.
        slot: u16,
        /// The local of the loop's name.
        var: u16,
        /// Where the loop ends.
        exit: u32,
    },
    /// A filtered loop's head (`for x in C { if cond { .. } }`, the `if` without `else` and
    /// the whole body): [`Step::ForNext`] fused with the [`Step::JumpIfNot`] that follows it
    /// (left in place), the elements whose condition fails skipped in the step. Each skipped
    /// element charges the units of work of the steps it stands for (the test, the loop's
    /// `LoopGuard`, its `Jump` back and the next `ForNext`), so the work counted is the same
    /// as unfused. An element whose condition holds continues two steps on, after the test.
    ForNextIf {
        /// The loop's first local.
        slot: u16,
        /// The local of the loop's name.
        var: u16,
        /// Where the loop ends.
        exit: u32,
        /// The condition (the `if`'s).
        cond: Code,
        /// The condition's span.
        span: Span,
        /// The loop's span (its `LoopGuard`'s).
        guard: Span,
    },
    /// Drop the loop's elements.
    ForDone {
        /// The loop's first local.
        slot: u16,
    },
    /// Wait at a choice.
    Choose(ChoiceId),
    /// Run the next seat's committed option of a `choose each`.
    SimNext(ChoiceId),
    /// `simultaneous p in C {`: start the players' private parts (`engine::simul`).
    Simul {
        /// The players.
        coll: Code,
        /// The local of the player's name.
        slot: u16,
        /// Where the body ends (its `SimulEnd`).
        end: u32,
        /// The statement.
        span: Span,
    },
    /// The end of a simultaneous block's body.
    SimulEnd,
    /// `do action(args)`.
    Do {
        /// The action.
        action: ActionId,
        /// Its arguments.
        args: Vec<Code>,
        /// The statement.
        span: Span,
    },
    /// `do x.effect(args)`.
    DoField {
        /// The field holding the action.
        target: Code,
        /// Its arguments.
        args: Vec<Code>,
        /// The statement.
        span: Span,
    },
    /// `turn p {`.
    TurnStart {
        /// The player.
        player: Code,
        /// The local that keeps the previous current player.
        save: u16,
        /// The statement.
        span: Span,
    },
    /// `}` of a turn.
    TurnEnd {
        /// The local its start saved the previous current player in.
        save: u16,
    },
    /// `end`, `end draw`, `end lose`.
    End(EndKind),
    /// `win p`.
    Win {
        /// The winner (`none`: everybody).
        who: Code,
        /// The statement.
        span: Span,
    },
    /// `reveal` or `hide`.
    Reveal {
        /// The component.
        comp: Code,
        /// The field.
        field: u16,
        /// Reveal (true) or hide (false).
        on: bool,
        /// The statement.
        span: Span,
    },
    /// `reveal z` or `hide z` of a zone instance.
    RevealZone {
        /// The zone instance.
        zone: Code,
        /// Reveal (true) or hide (false).
        on: bool,
        /// The statement.
        span: Span,
    },
    /// `remember m`: the values of the memory's parts are added to it.
    Remember {
        /// The memory ([`crate::ir::Game::memories`]).
        memory: u16,
        /// Its parts, each evaluated to one value.
        parts: Vec<Code>,
        /// The statement.
        span: Span,
    },
    /// `forget m`: the memory is emptied.
    Forget {
        /// The memory.
        memory: u16,
    },
    /// `reveal c.f to p`.
    RevealTo {
        /// The component.
        comp: Code,
        /// The field.
        field: u16,
        /// The player.
        to: Code,
        /// The statement.
        span: Span,
    },
    /// A window point (see [`crate::ir::Instr::Window`]).
    Window(bool),
    /// A loop's back edge: the span blamed when the work budget runs out.
    LoopGuard {
        /// The loop.
        span: Span,
    },
    /// The first step of a region of steps that may run as native code
    /// ([`Program::regions`]): the region runs natively from here when its code was built
    /// and the locals it reads are of the types it was built for; otherwise, or when it stops
    /// before it wrote anything, `first` runs, and the steps after it, as they would.
    Native {
        /// The region ([`Program::regions`]).
        region: u32,
        /// The step it stands in for.
        first: Box<Step>,
    },
}

impl Step {
    /// The step as the steps that follow it see it: the step a [`Step::Native`] stands in
    /// for (a region does what its steps do), any other step itself.
    pub fn plain(&self) -> &Step {
        match self {
            Step::Native { first, .. } => first,
            s => s,
        }
    }
}

/// A run of a procedure's steps that may run as native code: assignments and `let`s,
/// conditions and jumps, loops. It starts at `start` and every jump in it stays in it or
/// leaves it (for the steps after). The native code stops before a statement that fails or
/// runs out of work, with the pc and the locals where the steps go on: the failure is the
/// steps' to find and tell, before that statement wrote anything.
#[derive(Clone, Debug)]
pub struct Region {
    /// The procedure.
    pub proc: ProcId,
    /// Its first step (a [`Step::Native`]).
    pub start: u32,
    /// The step after its last.
    pub end: u32,
    /// The types the procedure gives the locals the region reads ([`crate::ir::Type`]),
    /// where it gives them one.
    pub known: Vec<(u16, crate::ir::Type)>,
}

/// A compiled function or set kind.
#[derive(Clone, Debug, Default)]
pub struct CDef {
    /// Parameters, bound to locals `0..params`.
    pub params: u16,
    /// Locals its body needs.
    pub locals: u16,
    /// The body.
    pub body: Code,
    /// Whether its results are worth remembering while one state's options are listed
    /// ([`crate::engine`]'s call cache): its body walks a collection or calls a function.
    pub remember: bool,
    /// Whether its value may depend on `me`: its body (or a function or set kind it uses)
    /// reads `me`. A remembered result of a function that does not serves every player.
    pub reads_me: bool,
    /// The families of the state its value may depend on ([`Family`]), one bit each: a
    /// remembered result stays valid, from one decision to the next, while none of them is
    /// written. All bits: it may read anything (its results serve one listing only).
    pub reads: u64,
}

/// An action's first parameter over one zone instance fixed by the seat
/// ([`Program::action_first`]).
#[derive(Clone, Copy, Debug)]
pub struct FirstZone {
    /// The instance (of the zone's seat 0 when `me`).
    pub inst: InstId,
    /// Whether the zone is indexed by the seat (`zone[me]`).
    pub me: bool,
    /// The families the zone and the parts tested before the first binding read.
    pub reads: u64,
}

/// A test that cannot fail ([`Program::action_sure`]): comparisons of values read in place,
/// `and`, `or`, `not`.
#[derive(Clone, Debug)]
pub enum Sure {
    /// `a == b` (`false`) or `a != b` (`true`).
    Cmp(SureValue, SureValue, bool),
    /// `a and b`.
    And(Box<Sure>, Box<Sure>),
    /// `a or b`.
    Or(Box<Sure>, Box<Sure>),
    /// `not a`.
    Not(Box<Sure>),
}

/// A value a [`Sure`] test reads.
#[derive(Clone, Copy, Debug)]
pub enum SureValue {
    /// A variable's slot (a variable without indexes).
    Slot(u32),
    /// A literal.
    Value(Value),
    /// A constant.
    Const(ConstId),
    /// `me`.
    Me,
    /// `player_count`.
    PlayerCount,
}

/// What a function may read of the state, grouped in 64 families (one bit of a `u64`), each
/// with a write stamp in the state (`engine::state::Stamps`): a variable (all its slots), a
/// zone (all its instances: their contents and order), a field number (that field of every
/// type), where components are (`zone_of`, `owner`, `space_of`), and `current`. The compiler
/// hands out the bits ([`Families`]); declarations past the room share one: a write then makes
/// more results stale, never fewer.
pub struct Family;

impl Family {
    /// Bits `0..ROOM` go to the variables written after setup, zones and field numbers that
    /// some function, action guard or trigger reads.
    pub const ROOM: u32 = 60;
    /// The parts no function, action guard or trigger reads.
    pub const UNREAD: u32 = 60;
    /// The variables only `setup` writes.
    pub const SETUP: u32 = 61;
    /// Where components are: every move writes it.
    pub const WHERE: u32 = 62;
    /// `current`.
    pub const CURRENT: u32 = 63;
}

/// The family bit of every variable, zone and field number ([`Family`]).
#[derive(Clone, Debug, Default)]
pub struct Families {
    /// Per variable.
    pub var: Vec<u8>,
    /// Per zone.
    pub zone: Vec<u8>,
    /// Per field number (that field of every type).
    pub field: Vec<u8>,
    /// Per zone instance: its zone's bit.
    pub inst: Vec<u8>,
    /// The bits of all zones.
    pub all_zones: u64,
    /// Whether anything reads the stamps (some function is remembered, or the game has
    /// windows or triggers): otherwise writes do not stamp.
    pub on: bool,
}

impl Families {
    /// The bit of a variable.
    #[inline(always)]
    pub fn var(&self, v: VarId) -> u32 {
        self.var
            .get(v.0 as usize)
            .map_or(Family::SETUP, |&b| b as u32)
    }
    /// The bit of a zone.
    #[inline(always)]
    pub fn zone(&self, z: ZoneId) -> u32 {
        self.zone
            .get(z.0 as usize)
            .map_or(Family::WHERE, |&b| b as u32)
    }
    /// The bit of a zone instance's zone.
    #[inline(always)]
    pub fn inst(&self, i: InstId) -> u32 {
        self.inst
            .get(i.0 as usize)
            .map_or(Family::WHERE, |&b| b as u32)
    }
    /// The bit of a field number.
    #[inline(always)]
    pub fn field(&self, f: u16) -> u32 {
        self.field
            .get(f as usize)
            .map_or(Family::WHERE, |&b| b as u32)
    }
}

/// A compiled `when` trigger.
#[derive(Clone, Copy, Debug)]
pub struct CTrigger {
    /// The test (see [`crate::ir::Trigger::test`]).
    pub test: Code,
    /// A trigger per element: the body's local slot of the element.
    pub each: Option<u16>,
    /// Its body.
    pub proc: ProcId,
    /// The trigger's name in its declaration.
    pub span: Span,
    /// The families of the state its test reads ([`Family`]): a test that did not hold is
    /// not tested again, for the same player, while none of them is written.
    pub reads: u64,
}

/// A compiled set kind.
#[derive(Clone, Debug, Default)]
pub struct CSet {
    /// Members, bound to locals `0..params`.
    pub params: u16,
    /// Locals its conditions and points need.
    pub locals: u16,
    /// Its condition split at `and`: (the last member it needs, part).
    pub conds: Vec<(u16, Code)>,
    /// What one set is worth.
    pub points: Code,
}

/// A variable whose values are indexed: per value, the set of index positions holding it, kept
/// up to date on every write, so that a binding narrowed by it ([`Narrow`]) lists only those.
#[derive(Clone, Copy, Debug)]
pub struct ValueIndex {
    /// The variable (one dimension).
    pub var: VarId,
    /// Its first word in the state's index bits.
    pub base: u32,
    /// Words per value code (the dimension's size / 64, rounded up).
    pub words: u32,
    /// Value codes: `none` is 0, then the values of the variable's type.
    pub codes: u32,
}

/// A component field whose values are indexed: per value, the set of the type's components
/// (by position in [`Program::type_comps`]) holding it, kept up to date on every write, so that
/// `any(x in T where x.field == v and ...)` (and the other aggregates) visit only those.
#[derive(Clone, Copy, Debug)]
pub struct FieldIndex {
    /// The component type.
    pub ty: TypeId,
    /// The field (index into the type's fields).
    pub field: u16,
    /// Its first word in the state's index bits.
    pub base: u32,
    /// Words per value code (the type's number of components / 64, rounded up).
    pub words: u32,
    /// Value codes: `none` is 0, then the values of the field's type.
    pub codes: u32,
}

/// Whether a component may look the same as another of its type ([`Program::twins`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Twin {
    /// Never: no other component of its type ever has the same fields.
    No,
    /// When its fields equal another's (some of its type's fields are written or secret).
    Fields,
    /// Always the same as the components of its class (the first of them, by id): its
    /// type's fields are never written nor secret, and these start with the same values.
    Class(u32),
}
