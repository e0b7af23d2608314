//! The checked game: every name resolved to an index, every table flat.
//!
//! Nothing here is looked up by string while a game runs; names are kept for messages and
//! for the canonical text of actions only.

use crate::syntax::ast::{AssignOp, BinOp, EndKind, Span};
use serde::{Deserialize, Serialize};

/// The most values one action or choice may bind (parameters of an action, bindings of a choice).
pub const MAX_ARGS: usize = 4;
/// The most seats any game may declare.
pub const MAX_PLAYERS: usize = 8;

/// A run-time value. Small and `Copy`: the interpreter never allocates to hold one.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
pub enum Value {
    /// `none`: no value (an empty variable, no component, no player).
    #[default]
    None,
    /// A number.
    Int(i64),
    /// `true` or `false`.
    Bool(bool),
    /// A seat, from 0.
    Player(u8),
    /// An enum value: (enum, index), indexes into [`Game::enums`] and its `values`.
    Enum(u16, u16),
    /// A component: index into [`Game::comps`].
    Comp(u32),
    /// A space: (board, index), indexes into [`Game::boards`] and its `space_names`.
    Space(u16, u32),
    /// One zone instance: index into [`Game::instances`] and the state's zones.
    Zone(u32),
}

/// A static type, for checking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    /// A number; a range type `lo..hi` is `Int`, its bounds kept with the field or variable.
    Int,
    /// `true` or `false`.
    Bool,
    /// A seat.
    Player,
    /// A value of an enum (index into [`Game::enums`]).
    Enum(u16),
    /// A component of a type (index into [`Game::types`]).
    Comp(u16),
    /// A space of a board (index into [`Game::boards`]).
    Space(u16),
    /// A zone holding components of a type (index into [`Game::types`]).
    Zone(u16),
    /// `none`, or a type the checker could not tell (an error was reported already).
    Any,
}

/// A checked game: the tables the engine runs, every name resolved to an index. Built by
/// [`crate::load`]; the engine's methods on it ([`Game::start`], [`Game::legal`],
/// [`Game::apply`], ...) take the [`crate::State`] to work on.
#[derive(Clone, Debug)]
pub struct Game {
    /// The display name from `game "..."` (empty when not declared).
    pub name: String,
    /// The file name and text, for run-time diagnostics.
    pub source_name: String,
    /// The rules text, exactly as loaded.
    pub source: String,
    /// A stable hash of the source text, for saved games.
    pub source_hash: u64,
    /// The fewest seats the game takes (`players A..B`).
    pub min_players: u8,
    /// The most seats the game takes; Player-indexed zones and variables have this many
    /// entries.
    pub max_players: u8,
    /// Constants (`const`) with their values in the file; a variant overrides them per match.
    pub consts: Vec<ConstDef>,
    /// Variants, in declaration order; [`crate::Config::variant`] names one.
    pub variants: Vec<VariantDef>,
    /// Enums, in declaration order.
    pub enums: Vec<EnumDef>,
    /// Component types (`component`), in declaration order.
    pub types: Vec<CompType>,
    /// Every component, in the order of the `components` tables and their generators.
    pub comps: Vec<Comp>,
    /// Boards, in declaration order.
    pub boards: Vec<Board>,
    /// Zone declarations, in declaration order; each spans `count` instances from `base`.
    pub zones: Vec<ZoneDef>,
    /// Number of zone instances (all indices of all zones).
    pub zone_instances: u32,
    /// Per zone instance: its declaration, owning seat and board space, precomputed.
    pub instances: Vec<Instance>,
    /// Variable declarations; each spans `count` of the state's variable slots from `base`.
    pub vars: Vec<VarDef>,
    /// Number of variable slots (all indices of all variables).
    pub var_slots: u32,
    /// Functions (`def`), called by [`Expr::CallDef`].
    pub defs: Vec<Def>,
    /// Set kinds (`set`), formed by `best_sets` ([`Agg::sets`]).
    pub sets: Vec<SetDef>,
    /// Actions, in declaration order; referred to by [`Arm::Action`] and [`Instr::Do`].
    pub actions: Vec<ActionDef>,
    /// Procedures: every action's effect, the setup, the flow, and the setups of checked
    /// scenarios (appended by [`crate::check::scenario::load_with_scenarios`]).
    pub procs: Vec<Proc>,
    /// Every `choose` statement, referred to by [`Instr::Choose`] and [`Instr::SimNext`].
    pub choices: Vec<Choice>,
    /// The procedure of `setup`, which runs before the flow; `None` when not declared.
    pub setup: Option<u32>,
    /// The procedure of `flow`; the game ends (and is scored) when it finishes.
    pub flow: u32,
    /// `end when` conditions with their spans, checked in order each time a `choose` is
    /// reached (and, with external chance, before waiting on chance); the first that holds
    /// ends the game.
    pub end_when: Vec<(Expr, Span)>,
    /// `score(p) = ...`, the player being local 0; `None`: every score is 0.
    pub score: Option<Expr>,
    /// `tiebreak(p) = ...` in declaration order, the player being local 0; compared in turn
    /// when scores tie.
    pub tiebreaks: Vec<Expr>,
    /// Locals needed to evaluate score and tiebreak expressions (the player is local 0).
    pub score_locals: u16,
    /// `ties shared` (the default): every player tied for first wins; false for `ties draw`:
    /// such a tie is a draw.
    pub ties_shared: bool,
}

/// A `const` declaration.
#[derive(Clone, Debug)]
pub struct ConstDef {
    /// The constant's name.
    pub name: String,
    /// Its value in the file, computed when the file is checked (a variant may override it).
    pub value: Value,
}

/// A `variant`: a named set of constant overrides.
#[derive(Clone, Debug)]
pub struct VariantDef {
    /// The variant's name.
    pub name: String,
    /// The description string after the name, if any.
    pub description: Option<String>,
    /// The overrides: (constant, value), the constant an index into [`Game::consts`].
    pub sets: Vec<(u16, Value)>,
}

/// An `enum`: a closed set of named values.
#[derive(Clone, Debug)]
pub struct EnumDef {
    /// The enum's name.
    pub name: String,
    /// Its value names, in declaration order ([`Value::Enum`] indexes here).
    pub values: Vec<String>,
}

/// A component type (`component`).
#[derive(Clone, Debug)]
pub struct CompType {
    /// The type's name.
    pub name: String,
    /// Its fields, in declaration order.
    pub fields: Vec<FieldDef>,
}

/// One field of a component type.
#[derive(Clone, Debug)]
pub struct FieldDef {
    /// The field's name.
    pub name: String,
    /// Its type ([`Type::Int`] for a range).
    pub ty: Type,
    /// For a range type `lo..hi`: the bounds, checked on every assignment.
    pub range: Option<(i64, i64)>,
    /// The declared default (`= value`), or [`Value::None`]; a component whose table gives no
    /// value gets it (an undeclared default is `false` for bool and 0, clamped into the range,
    /// for int).
    pub default: Value,
    /// For a secret field: the field of the same component that holds the player who sees it.
    pub seen_by: Option<u16>,
}

/// One component.
#[derive(Clone, Debug)]
pub struct Comp {
    /// Its type (index into [`Game::types`]).
    pub ty: u16,
    /// Its name template: text, and fields shown with their current values.
    pub name: Vec<NamePart>,
    /// Initial field values, in the type's field order.
    pub fields: Vec<Value>,
    /// Offset of this component's fields in the state's flat field table.
    pub field_base: u32,
    /// The zone instance it starts in.
    pub zone: u32,
}

/// One piece of a component's name.
#[derive(Clone, Debug)]
pub enum NamePart {
    /// Literal text (values of the table's generators are already filled in).
    Text(String),
    /// The value of a field (index in the type's fields), read when the name is shown.
    Field(u16),
}

/// The shape of a board, which fixes its spaces' names and neighbours.
#[derive(Clone, Debug)]
pub enum BoardShape {
    /// `grid(width, height)`: spaces `a1`, `b1`, ... row by row (column letters, row numbers
    /// from 1); space `s` is column `s % width`, row `s / width`.
    Grid {
        /// Number of columns.
        width: u32,
        /// Number of rows.
        height: u32,
        /// The `diagonal` flag: 8 neighbours instead of 4.
        diagonal: bool,
    },
    /// `ring(size)`: spaces `<board>1` .. `<board>N` in a cycle, each next to the one before
    /// and the one after.
    Ring {
        /// Number of spaces.
        size: u32,
    },
}

/// A board: named spaces and who neighbours whom.
#[derive(Clone, Debug)]
pub struct Board {
    /// The board's name.
    pub name: String,
    /// Its shape and sizes.
    pub shape: BoardShape,
    /// The space names, by space index.
    pub space_names: Vec<String>,
    /// Adjacency in compressed rows: the neighbours of space `s` are
    /// `adj[adj_start[s]..adj_start[s + 1]]`.
    pub adj_start: Vec<u32>,
    /// Every space's neighbours, in increasing order per space, one space after another.
    pub adj: Vec<u32>,
}

impl Board {
    /// The number of spaces.
    pub fn len(&self) -> u32 {
        self.space_names.len() as u32
    }
    /// Whether the board has no space.
    pub fn is_empty(&self) -> bool {
        self.space_names.is_empty()
    }
    /// The neighbours of space `s`, in increasing order.
    pub fn neighbours(&self, s: u32) -> &[u32] {
        &self.adj[self.adj_start[s as usize] as usize..self.adj_start[s as usize + 1] as usize]
    }
}

/// What a zone or variable is indexed by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    /// By seat: [`Game::max_players`] entries.
    Player,
    /// By the values of an enum (index into [`Game::enums`]).
    Enum(u16),
    /// By the spaces of a board (index into [`Game::boards`]).
    Board(u16),
}

/// Who sees a zone's contents (`public` when the declaration says nothing). Views show
/// `hidden` and `top` zones in full once the game is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visibility {
    /// Everybody sees the contents.
    Public,
    /// Only the player the zone is indexed by sees the contents; others see the count.
    Owner,
    /// Nobody sees the contents, only the count.
    Hidden,
    /// Everybody sees the top component only, and the count.
    Top,
}

/// A `zone` declaration: one zone instance per combination of its indexes, numbered
/// row-major from `base`.
#[derive(Clone, Debug)]
pub struct ZoneDef {
    /// The zone's name.
    pub name: String,
    /// What it is indexed by, in order (empty: a single instance).
    pub dims: Vec<Dim>,
    /// The size of each dimension ([`Game::dim_size`]).
    pub sizes: Vec<u32>,
    /// Zone instance of index (0, 0, ...).
    pub base: u32,
    /// Number of instances: the product of `sizes` (1 when not indexed).
    pub count: u32,
    /// The component type it holds (index into [`Game::types`]).
    pub ty: u16,
    /// Who sees its contents.
    pub visibility: Visibility,
    /// Which dimension is the owning player, if any.
    pub owner_dim: Option<usize>,
}

/// What a zone instance is: its declaration, and the seat and space it is indexed by.
#[derive(Clone, Copy, Debug)]
pub struct Instance {
    /// Its declaration (index into [`Game::zones`]).
    pub zone: u16,
    /// The seat of its Player index, when the zone is indexed by Player.
    pub owner: Option<u8>,
    /// The (board, space) of its board index, when the zone is indexed by a board.
    pub space: Option<(u16, u32)>,
}

/// A `var` declaration: one slot per combination of its indexes, numbered row-major from
/// `base`.
#[derive(Clone, Debug)]
pub struct VarDef {
    /// The variable's name.
    pub name: String,
    /// What it is indexed by, in order (empty: a single slot).
    pub dims: Vec<Dim>,
    /// The size of each dimension ([`Game::dim_size`]).
    pub sizes: Vec<u32>,
    /// The state's variable slot of index (0, 0, ...).
    pub base: u32,
    /// Number of slots: the product of `sizes` (1 when not indexed).
    pub count: u32,
    /// The type of its values ([`Type::Int`] for a range).
    pub ty: Type,
    /// For a range type `lo..hi`: the bounds, checked on every assignment.
    pub range: Option<(i64, i64)>,
    /// The initial value (`= expr`), evaluated once at the start and stored in every slot;
    /// without one, int starts at 0 (clamped into the range), bool at false, others at none.
    pub init: Option<Expr>,
    /// The whole declaration, blamed when the initial value fails.
    pub span: Span,
}

/// A function (`def`): a pure expression of its parameters.
#[derive(Clone, Debug)]
pub struct Def {
    /// The function's name.
    pub name: String,
    /// Number of parameters, bound to locals `0..params`.
    pub params: u16,
    /// Local slots its body needs, parameters included (at most
    /// [`DEF_LOCALS`](crate::engine::DEF_LOCALS)).
    pub locals: u16,
    /// The expression it computes.
    pub body: Expr,
}

/// A kind of set for `best_sets`: `params` components that together meet the conditions.
#[derive(Clone, Debug)]
pub struct SetDef {
    /// The set kind's name.
    pub name: String,
    /// Number of members, bound to locals `0..params`.
    pub params: u16,
    /// Local slots its conditions and points need, members included.
    pub locals: u16,
    /// The conditions split at `and`, each with the last parameter it needs, so that a
    /// partial choice of members is pruned as early as possible.
    pub conds: Vec<(u16, Expr)>,
    /// What one set of this kind is worth; a set worth 0 or less is never formed.
    pub points: Expr,
}

/// An `action` declaration.
#[derive(Clone, Debug)]
pub struct ActionDef {
    /// The action's name, the first word of its canonical texts.
    pub name: String,
    /// Its parameters `x in C`, in order; their values are the [`crate::Action::args`].
    pub params: Vec<Bind>,
    /// The whole `where` condition, if any (for "why not" answers).
    pub guard: Option<Expr>,
    /// Where the `where` condition is written.
    pub guard_span: Option<Span>,
    /// The guard split at `and`, each part with the number of parameters it needs bound:
    /// listing options checks each part as soon as it can, pruning early.
    pub guard_parts: Vec<(u16, Expr)>,
    /// Listed in some `choose` (not only run by `do`).
    pub offered: bool,
    /// Its effect (index into [`Game::procs`]).
    pub proc: u32,
    /// The action's name in its declaration.
    pub span: Span,
}

/// `x in collection`: the local slot written and the collection read.
#[derive(Clone, Debug)]
pub struct Bind {
    /// The bound name (also the key in canonical texts: `name=value`).
    pub name: String,
    /// The local slot each value is written to.
    pub slot: u16,
    /// The collection the values come from.
    pub coll: Coll,
    /// The type of the values.
    pub ty: Type,
    /// Where the collection was written, for "why not" answers.
    pub span: Span,
}

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
    Action(u32),
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
    Let(u16, Expr),
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
    Choose(u32),
    /// After every player of a `choose each` committed: run the next seat's choice.
    SimNext(u32),
    /// `do name(args)`: runs an action's effect now, without checking its guard.
    Do {
        /// The action (index into [`Game::actions`]).
        action: u32,
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
        var: u32,
        /// Its index expressions, one per dimension.
        index: Vec<Expr>,
    },
    /// A field of a component.
    Field {
        /// The component.
        comp: Expr,
        /// The field (index in its type's fields).
        field: u16,
    },
}

/// A built-in function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// Number of components in a zone.
    Count,
    /// `top(z)`: the top component of a zone, or none.
    Top,
    /// `bottom(z)`: the bottom component of a zone, or none.
    Bottom,
    /// `empty(z)`: whether a zone holds no component.
    Empty,
    /// The next seat after a player (wrapping).
    Next,
    /// `prev(p)`: the seat before a player (wrapping).
    Prev,
    /// The player whose zone holds a component.
    Owner,
    /// The board space whose zone holds a component.
    SpaceOf,
    /// The zone instance holding a component.
    ZoneOf,
    /// A seat by number from 0.
    Seat,
    /// `abs(n)`: the absolute value.
    Abs,
    /// `max(a, b)`: the larger number.
    Max2,
    /// `min(a, b)`: the smaller number.
    Min2,
}

/// The kind of an aggregate `f(x in C, ... where filter: body else otherwise)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggKind {
    /// How many elements pass the filter.
    Count,
    /// The total of the bodies (of the elements themselves without a body).
    Sum,
    /// The largest body (or element); `otherwise`, else none, when no element passes.
    Max,
    /// The smallest body (or element); `otherwise`, else none, when no element passes.
    Min,
    /// Whether the body holds for some element passing the filter (without a body: whether
    /// any element passes).
    Any,
    /// Whether the body holds for every element passing the filter (without a body: whether
    /// every element passes).
    All,
    /// The body (or element) of the first element passing the filter; `otherwise`, else none,
    /// when none passes.
    First,
    /// `line(s in board, n where cond)`: a straight line of n consecutive spaces.
    /// With a second argument (`line(s in board, n, at where cond)`), only lines through the
    /// space `at` count.
    Line,
    /// `best_sets(c in C, kind1, kind2, ...)`: the most points from disjoint sets of C.
    BestSets,
}

/// An aggregate over one or more collections.
#[derive(Clone, Debug)]
pub struct Agg {
    /// What it computes.
    pub kind: AggKind,
    /// For `best_sets`: the set kinds to form.
    pub sets: Vec<u16>,
    /// The bound names, nested in order (the last varies fastest).
    pub binds: Vec<Bind>,
    /// Extra arguments: for `line`, the length and optionally the space it must pass through.
    pub args: Vec<Expr>,
    /// The `where` condition an element must meet.
    pub filter: Option<Expr>,
    /// The `: value` computed per element.
    pub body: Option<Expr>,
    /// The `else` value of `max`, `min` and `first` when no element passes.
    pub otherwise: Option<Expr>,
}

/// A resolved expression.
#[derive(Clone, Debug)]
pub enum Expr {
    /// A value known when the file is checked (numbers, enum values, spaces, `named(...)`).
    Lit(Value),
    /// A constant (index into [`Game::consts`]), read from the state, where a variant may
    /// have changed it.
    Const(u16),
    /// A local slot.
    Local(u16),
    /// `me`: the acting player.
    Me,
    /// `current`: the player whose turn it is, or none.
    Current,
    /// `player_count`: the number of seats in play.
    PlayerCount,
    /// A variable (index into [`Game::vars`]) at these indexes.
    Var(u32, Vec<Expr>),
    /// The instance of a zone (index into [`Game::zones`]) at these indexes.
    Zone(u32, Vec<Expr>),
    /// A field (index in the type's fields) of a component; reading one of none is an error.
    Field(Box<Expr>, u16),
    /// `not x`.
    Not(Box<Expr>),
    /// `-x`.
    Neg(Box<Expr>),
    /// `a op b`: `and`/`or` short-circuit, arithmetic fails on overflow, `/` and `%` are
    /// Euclidean and fail on 0; the span is blamed on failure.
    Bin(BinOp, Box<Expr>, Box<Expr>, Span),
    /// `if c then a else b`.
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A call of a built-in function, with its span.
    Builtin(Builtin, Vec<Expr>, Span),
    /// A call of a function (index into [`Game::defs`]) with its arguments.
    CallDef(u16, Vec<Expr>),
    /// An aggregate, with its span.
    Agg(Box<Agg>, Span),
}

/// A collection to iterate: in aggregates, `for`, `choose` and action parameters.
#[derive(Clone, Debug)]
pub enum Coll {
    /// The components of a zone, bottom to top.
    Zone(Expr),
    /// The spaces of a board.
    Board(u16),
    /// The values of an enum.
    Enum(u16),
    /// Every component of a type.
    Type(u16),
    /// The seats in play, from 0.
    Players,
    /// `a..b`, both included.
    Range(Expr, Expr),
    /// `[a, b, c]`, in order.
    List(Vec<Expr>),
    /// The neighbours of a space.
    Adjacent(Expr),
    /// `paths(s in board, from, n where cond)`: the spaces reached from `from` in exactly `n`
    /// steps between neighbours, each entered space meeting `cond`, none visited twice.
    Paths {
        /// The board (index into [`Game::boards`]).
        board: u16,
        /// The local slot `s` is bound to while `cond` is tested.
        slot: u16,
        /// The start space.
        from: Expr,
        /// The exact number of steps.
        steps: Expr,
        /// What every entered space must meet (`None`: any space).
        cond: Option<Expr>,
    },
    /// `group(s in board, start where cond)`: the connected spaces meeting `cond` that
    /// contain `start` (empty when `start` does not meet it).
    Group {
        /// The board (index into [`Game::boards`]).
        board: u16,
        /// The local slot `s` is bound to while `cond` is tested.
        slot: u16,
        /// The space the group grows from.
        start: Expr,
        /// What every member must meet (`None`: the whole connected board).
        cond: Option<Expr>,
    },
}

impl Expr {
    /// Calls `f` with every local slot the expression reads.
    pub fn reads(&self, f: &mut dyn FnMut(u16)) {
        match self {
            Expr::Local(l) => f(*l),
            Expr::Lit(_) | Expr::Const(_) | Expr::Me | Expr::Current | Expr::PlayerCount => {}
            Expr::Var(_, ix)
            | Expr::Zone(_, ix)
            | Expr::Builtin(_, ix, _)
            | Expr::CallDef(_, ix) => ix.iter().for_each(|x| x.reads(f)),
            Expr::Field(x, _) | Expr::Not(x) | Expr::Neg(x) => x.reads(f),
            Expr::Bin(_, a, b, _) => {
                a.reads(f);
                b.reads(f);
            }
            Expr::If(a, b, c) => {
                a.reads(f);
                b.reads(f);
                c.reads(f);
            }
            Expr::Agg(a, _) => {
                for b in &a.binds {
                    b.coll.reads(f);
                }
                for x in a
                    .args
                    .iter()
                    .chain(&a.filter)
                    .chain(&a.body)
                    .chain(&a.otherwise)
                {
                    x.reads(f);
                }
            }
        }
    }
}

impl Coll {
    /// Calls `f` with every local slot the collection reads.
    pub fn reads(&self, f: &mut dyn FnMut(u16)) {
        match self {
            Coll::Zone(e) | Coll::Adjacent(e) => e.reads(f),
            Coll::Range(a, b) => {
                a.reads(f);
                b.reads(f);
            }
            Coll::List(xs) => xs.iter().for_each(|x| x.reads(f)),
            Coll::Paths {
                from, steps, cond, ..
            } => {
                from.reads(f);
                steps.reads(f);
                if let Some(c) = cond {
                    c.reads(f);
                }
            }
            Coll::Group { start, cond, .. } => {
                start.reads(f);
                if let Some(c) = cond {
                    c.reads(f);
                }
            }
            Coll::Board(_) | Coll::Enum(_) | Coll::Type(_) | Coll::Players => {}
        }
    }
}

impl Game {
    /// The size of one index dimension.
    pub fn dim_size(&self, d: Dim) -> u32 {
        match d {
            Dim::Player => self.max_players as u32,
            Dim::Enum(e) => self.enums[e as usize].values.len() as u32,
            Dim::Board(b) => self.boards[b as usize].len(),
        }
    }

    /// Index labels of a zone instance, e.g. `hand[p1]`.
    pub fn zone_instance_name(&self, inst: u32) -> String {
        let Some(z) = self
            .zones
            .iter()
            .find(|z| inst >= z.base && inst < z.base + z.count)
        else {
            return format!("zone#{inst}");
        };
        let mut rest = inst - z.base;
        let mut parts = Vec::new();
        for (i, d) in z.dims.iter().enumerate().rev() {
            let v = rest % z.sizes[i];
            rest /= z.sizes[i];
            parts.push(match d {
                Dim::Player => format!("p{}", v + 1),
                Dim::Enum(e) => self.enums[*e as usize].values[v as usize].clone(),
                Dim::Board(b) => self.boards[*b as usize].space_names[v as usize].clone(),
            });
        }
        parts.reverse();
        if parts.is_empty() {
            z.name.clone()
        } else {
            format!("{}[{}]", z.name, parts.join(","))
        }
    }

    /// The zone declaration an instance belongs to, and its index values.
    pub fn zone_of_instance(&self, inst: u32) -> Option<(usize, Vec<u32>)> {
        let (zi, z) = self
            .zones
            .iter()
            .enumerate()
            .find(|(_, z)| inst >= z.base && inst < z.base + z.count)?;
        let mut rest = inst - z.base;
        let mut idx = vec![0; z.dims.len()];
        for i in (0..z.dims.len()).rev() {
            idx[i] = rest % z.sizes[i];
            rest /= z.sizes[i];
        }
        Some((zi, idx))
    }
}
