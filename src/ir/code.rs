//! Procedures: bytecode with explicit jumps, so that a paused game is plain data.

use super::*;

/// A procedure: the flow, the setup, or an action's effect.
#[derive(Clone, Debug)]
pub struct Proc {
    /// `flow`, `setup`, the action's name, or ``scenario `name` ``.
    pub name: String,
    /// Its instructions; running past the last one returns.
    pub code: Vec<Instr>,
    /// Local slots one run of it needs.
    pub locals: u16,
}

/// A `choose` statement: the options offered to a player at one point of a procedure.
#[derive(Clone, Debug)]
pub struct Choice {
    /// `by p`: who chooses; `None`: the acting player `me` (inside `turn p`, that is `p`).
    pub by: Option<Expr>,
    /// `choose each p in C`: the players who choose at once (bound to `bind.slot`), and two
    /// locals for resolving their choices in seat order (next seat, saved acting player).
    pub each: Option<(Bind, u16)>,
    /// The options, in order ([`crate::Action::arm`] indexes here).
    pub arms: Vec<Arm>,
    /// Where the `else` block starts, run when no option is legal; `None`: the choice is then
    /// skipped.
    pub else_pc: Option<u32>,
    /// The pc just after the whole statement, where play continues after an option.
    pub end_pc: u32,
    /// The whole `choose` statement.
    pub span: Span,
}

/// One option of a choice.
#[derive(Clone, Debug)]
pub enum Arm {
    /// An action offered by name (index into [`Game::actions`]), with its own parameters and
    /// guard.
    Action(ActionId),
    /// An option written in the choice: a labelled block (`pass { ... }`) or the value form
    /// `choose x in C where cond { ... }`.
    Inline {
        /// The label (`pass`); `None` for the value form, whose texts are just `x=value`.
        label: Option<String>,
        /// The names the value form binds (empty for a labelled block).
        binds: Vec<Bind>,
        /// The value form's whole `where` condition.
        guard: Option<Expr>,
        /// Where that condition is written.
        guard_span: Option<Span>,
        /// The condition split at `and`, each part with the number of bindings it needs.
        guard_parts: Vec<(u16, Expr)>,
        /// Where its block starts in the procedure.
        body_pc: u32,
    },
}

/// One instruction of a procedure. Control flow is explicit (`pc` jumps), so a paused game is
/// plain data: frames of (procedure, pc, locals).
#[derive(Clone, Debug)]
pub enum Instr {
    /// `let x = e` (and the counter of `repeat n`): stores a value in a local slot.
    Let(u16, Expr, Span),
    /// `target = value`, `+=` or `-=`; a range type's bounds are checked.
    Assign {
        /// What is assigned.
        target: LValue,
        /// `=`, `+=` or `-=`.
        op: AssignOp,
        /// The right-hand side.
        value: Expr,
        /// The statement.
        span: Span,
    },
    /// `move c to [bottom of] z`: one component onto the top (or bottom) of a zone.
    Move {
        /// The component.
        what: Expr,
        /// The destination zone instance.
        to: Expr,
        /// `bottom of`: to the bottom instead of the top.
        bottom: bool,
        /// The statement.
        span: Span,
    },
    /// `deal n from a to [bottom of] b`: the top `n` components of `a`, one at a time, to `b`
    /// (fewer when `a` runs out).
    Deal {
        /// How many; `None` for `deal all`.
        count: Option<Expr>,
        /// The zone instance dealt from.
        from: Expr,
        /// The zone instance dealt to.
        to: Expr,
        /// `bottom of`: each to the bottom instead of the top.
        bottom: bool,
        /// The statement.
        span: Span,
    },
    /// `shuffle z`: a chance event (with external chance, a zone of n ≥ 2 components takes
    /// n − 1 chance decisions, from the top position down).
    Shuffle {
        /// The zone instance to shuffle.
        zone: Expr,
        /// The statement.
        span: Span,
    },
    /// `roll x [in C]`: a chance event that assigns a random element of `domain`.
    Roll {
        /// What receives the value.
        target: LValue,
        /// The possible values: as written, or from the target's range, enum, Player or board
        /// type.
        domain: Coll,
        /// The statement.
        span: Span,
    },
    /// Continue at this pc.
    Jump(u32),
    /// Continue at the pc when the condition is false (`if`, `while`, `repeat n`); the span is
    /// blamed when the condition fails to evaluate.
    JumpIfNot(Expr, u32, Span),
    /// Push a collection onto the iteration stack; `slot`, `slot+1`, `slot+2` hold
    /// the next position, the end and the start.
    ForInit {
        /// The collection, listed once when the loop starts.
        coll: Coll,
        /// The loop statement.
        span: Span,
        /// The first of the loop's three local slots.
        slot: u16,
    },
    /// Bind the next element to `var`, or jump to `exit` when done.
    ForNext {
        /// The first of the loop's three local slots.
        slot: u16,
        /// The local slot of the loop's name.
        var: u16,
        /// The pc after the loop (its `ForDone`).
        exit: u32,
    },
    /// Drop the iteration started by the `ForInit` using `slot`.
    ForDone {
        /// The first of the loop's three local slots.
        slot: u16,
    },
    /// Waits at a choice (index into [`Game::choices`]) after checking `end when`; with no
    /// legal option, continues at its `else` block or its end.
    Choose(ChoiceId),
    /// After every player of a `choose each` committed: run the next seat's choice.
    SimNext(ChoiceId),
    /// `simultaneous p in C {`: each player of C runs the body on a private copy of the game,
    /// unseen by the others; when all are done, the parts run on the game in seat order
    /// with their recorded choices (section 4.1.2 of the reference).
    Simul {
        /// The players taking part.
        coll: Coll,
        /// The local slot of the player's name.
        slot: u16,
        /// The pc of the body's `SimulEnd`.
        end: u32,
        /// The statement.
        span: Span,
    },
    /// The end of a simultaneous block's body.
    SimulEnd,
    /// `do name(args)`: runs an action's effect now, without checking its guard.
    Do {
        /// The action (index into [`Game::actions`]).
        action: ActionId,
        /// The values of its parameters, in order.
        args: Vec<Expr>,
        /// The statement.
        span: Span,
    },
    /// `do x.effect(args)`: runs the action held by a field (a [`Value::Action`]) like
    /// [`Instr::Do`]; `none` does nothing.
    DoField {
        /// The field read.
        target: Expr,
        /// The values of its parameters, in order.
        args: Vec<Expr>,
        /// The statement.
        span: Span,
    },
    /// `turn p`: save the current player in `save`, make `p` current.
    TurnStart {
        /// The player whose turn starts.
        player: Expr,
        /// The local slot that keeps the previous current player.
        save: u16,
        /// The statement.
        span: Span,
    },
    /// The end of a `turn` block: the player saved in `save` is current again.
    TurnEnd {
        /// The local slot its `TurnStart` saved the previous current player in.
        save: u16,
    },
    /// `end`, `end draw` or `end lose`: the game ends now.
    End(EndKind),
    /// `win p`: the game ends and `p` wins (`win all`, whose `who` is `none`: everybody).
    Win {
        /// The winner.
        who: Expr,
        /// The statement.
        span: Span,
    },
    /// `reveal` (true) or `hide` (false) a secret field of a component.
    Reveal {
        /// The component.
        comp: Expr,
        /// The field (index in its type's fields).
        field: u16,
        /// `reveal` (true) or `hide` (false).
        on: bool,
        /// The statement.
        span: Span,
    },
    /// `reveal z` (true) or `hide z` (false): a zone instance's components are shown to
    /// everyone, or again as its visibility says.
    RevealZone {
        /// The zone instance.
        zone: Expr,
        /// `reveal` (true) or `hide` (false).
        on: bool,
        /// The statement.
        span: Span,
    },
    /// `remember m`: the present position (the values of the memory's parts, repeated here)
    /// is added to memory `memory` ([`Game::memories`]).
    Remember {
        /// The memory.
        memory: u16,
        /// Its parts ([`MemoryDef::parts`]).
        parts: Vec<Expr>,
        /// The statement.
        span: Span,
    },
    /// `forget m`: memory `memory` is emptied.
    Forget {
        /// The memory.
        memory: u16,
    },
    /// `reveal c.f to p`: one player sees a secret field of a component from now on.
    RevealTo {
        /// The component.
        comp: Expr,
        /// The field (index in its type's fields).
        field: u16,
        /// The player who sees it.
        to: Expr,
        /// The statement.
        span: Span,
    },
    /// A point where a window may open (`true`: before a turn, where `before turn` actions
    /// are offered too); only emitted when the game has window actions.
    Window(bool),
    /// A loop's step counter: every backward jump passes here, so a loop that never
    /// reaches a decision is stopped with its span.
    LoopGuard {
        /// The loop statement.
        span: Span,
    },
}

/// Something a value can be assigned (or rolled) to.
#[derive(Clone, Debug)]
pub enum LValue {
    /// A local slot.
    Local(u16),
    /// A variable slot.
    Var {
        /// The variable (index into [`Game::vars`]).
        var: VarId,
        /// Its index expressions, one per dimension.
        index: Vec<Expr>,
    },
    /// A field of a component.
    Field {
        /// The component.
        comp: Expr,
        /// The field (index in its type's fields).
        field: u16,
        /// The component's type, where the field was found.
        ty: TypeId,
    },
}
