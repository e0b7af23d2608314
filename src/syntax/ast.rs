//! The syntax tree: what the author wrote, with spans, before any name is resolved.

pub use crate::ops::{AssignOp, BinOp, EndKind, UnOp};
pub use crate::source::Span;

/// A name as written, with where it was written.
#[derive(Clone, Debug)]
pub struct Ident {
    /// The name.
    pub name: String,
    /// Where it was written.
    pub span: Span,
}

/// A whole rules file.
#[derive(Clone, Debug, Default)]
pub struct File {
    /// Its declarations, in the order written.
    pub decls: Vec<Decl>,
}

/// One top-level declaration.
#[derive(Clone, Debug)]
pub struct Decl {
    /// What it declares.
    pub kind: DeclKind,
    /// The whole declaration.
    pub span: Span,
}

/// What a zone or variable is indexed by, as written.
#[derive(Clone, Debug)]
pub enum IndexType {
    /// `Player`, an enum or a board.
    Name(Ident),
    /// `lo..hi`: numbers, both ends included (each a number or a constant).
    Range {
        /// The low end.
        lo: Box<Expr>,
        /// The high end.
        hi: Box<Expr>,
        /// Where it is written.
        span: Span,
    },
}

/// One line of a `present` section.
#[derive(Clone, Debug)]
pub enum PresentItem {
    /// `value Enum.value glyph "x" label "K" colour red`.
    Value {
        /// The enum.
        enum_name: Ident,
        /// Its value.
        value: Ident,
        /// Each look: its word (`glyph`, `label`, `colour`, with its span) and what follows.
        looks: Vec<(Ident, LookArg)>,
    },
    /// `piece a, b`: board-indexed variables drawn on the spaces.
    Piece(Vec<Ident>),
    /// `zone z as role`.
    Zone {
        /// The zone.
        zone: Ident,
        /// Its role as written.
        role: Ident,
    },
    /// `component T glyph "x" colour red shows f, g` (looks, fields or both).
    Shows {
        /// The component type.
        ty: Ident,
        /// Its looks on a space, as for a value.
        looks: Vec<(Ident, LookArg)>,
        /// The fields shown, in order.
        fields: Vec<Ident>,
    },
    /// `board b checkered` or `board b plain`.
    Board {
        /// The board.
        board: Ident,
        /// `checkered` or `plain`, as written.
        style: Ident,
    },
}

/// What follows a look's word: a string (`"♚"`) or a name (`red`).
#[derive(Clone, Debug)]
pub enum LookArg {
    /// A string, with its span.
    Text(String, Span),
    /// A name.
    Name(Ident),
}

/// The kinds of top-level declaration.
#[derive(Clone, Debug)]
pub enum DeclKind {
    /// `game "Name"`: the display name.
    Game(String),
    /// `players N` or `players A..B`: the seat counts the game takes (`min == max` for `N`).
    Players {
        /// The fewest seats.
        min: i64,
        /// The most seats.
        max: i64,
    },
    /// `const NAME = expr`.
    Const {
        /// The constant's name.
        name: Ident,
        /// Its value (must be known when the file is checked).
        value: Expr,
    },
    /// `variant name "description" { CONST = expr ... }`.
    Variant {
        /// The variant's name.
        name: Ident,
        /// The optional description.
        description: Option<String>,
        /// `group NAME`: variants of one group cannot be combined.
        group: Option<Ident>,
        /// The constants it overrides, with their new values.
        sets: Vec<(Ident, Expr)>,
    },
    /// `enum Name { a, b, c }`.
    Enum {
        /// The enum's name.
        name: Ident,
        /// Its values, in order.
        values: Vec<Ident>,
    },
    /// `component Name { field: type ... }`.
    Component {
        /// The type's name.
        name: Ident,
        /// Its fields, in order.
        fields: Vec<FieldDecl>,
    },
    /// `components Type in zone { entries }`: the components of a type and where they start.
    Components {
        /// The component type.
        ty: Ident,
        /// The zone they start in (a zone name, indexed by constants if need be).
        zone: Expr,
        /// The table's lines.
        entries: Vec<Entry>,
    },
    /// `board name = shape(args) flags`.
    Board {
        /// The board's name.
        name: Ident,
        /// The shape: `grid` or `ring`.
        shape: Ident,
        /// The sizes: `grid(width, height)`, `ring(size)`.
        args: Vec<Expr>,
        /// Options after the shape (`diagonal`).
        flags: Vec<Ident>,
        /// `graph { ... }`: the graph's spaces, edges and lines (the shape is then `graph`).
        graph: Option<GraphDecl>,
        /// `closed [...] when FLAG`: the closed spaces and the condition.
        closed: Option<ClosedDecl>,
    },
    /// `zone name[Index, ...]: Type visibility`.
    Zone {
        /// The zone's name.
        name: Ident,
        /// What it is indexed by (Player, an enum, a board or a range); empty when not indexed.
        index: Vec<IndexType>,
        /// The component type it holds.
        ty: Ident,
        /// `public`, `owner`, `hidden` or `top`, if written.
        visibility: Option<Ident>,
    },
    /// `var name[Index, ...]: type = init`.
    Var {
        /// The variable's name.
        name: Ident,
        /// What it is indexed by; empty when not indexed.
        index: Vec<IndexType>,
        /// The type of its values.
        ty: TypeExpr,
        /// The initial value, if written.
        init: Option<Expr>,
        /// `owner`, `hidden`, `secret` or `public`, if written.
        visibility: Option<Ident>,
    },
    /// `def name(p: T, ...) = expr`.
    Def {
        /// The function's name.
        name: Ident,
        /// Its parameters with their types.
        params: Vec<(Ident, TypeExpr)>,
        /// The expression it computes.
        body: Expr,
    },
    /// `action name(x in C, ...) where guard { effect }`.
    Action {
        /// The action's name.
        name: Ident,
        /// `sequence action`: the effect's own choices are part of the move.
        sequence: bool,
        /// Its parameters, each bound to a collection.
        params: Vec<Binding>,
        /// The `where` condition, if any.
        guard: Option<Expr>,
        /// `anytime` or `before turn`: when players may take it outside the flow's choices.
        window: Option<Window>,
        /// The effect.
        body: Block,
    },
    /// `when name cond { body }` or `when name x in C where cond { body }`: a trigger.
    Trigger {
        /// The trigger's name.
        name: Ident,
        /// The element bound, for a trigger per element.
        each: Option<Binding>,
        /// The condition (for a trigger per element: which elements fire it), if any.
        cond: Option<Expr>,
        /// What it does.
        body: Block,
    },
    /// `memory name(part, ...)`: positions remembered by `remember name`.
    Memory {
        /// The memory's name.
        name: Ident,
        /// What a position is made of: variables (every entry) or values.
        parts: Vec<Expr>,
    },
    /// `procedure name(p: T, ...) { ... }`: statements run by `name(args)`.
    Procedure {
        /// The procedure's name.
        name: Ident,
        /// Its parameters and their types.
        params: Vec<(Ident, TypeExpr)>,
        /// What it does.
        body: Block,
    },
    /// `legend name(s in board) { "c" { ... } ... }`: what each character of a position
    /// written as text does on its space.
    Legend {
        /// The legend's name.
        name: Ident,
        /// The space each entry's block reads (`s in board`).
        binding: Binding,
        /// The characters (as written, with the string's span) and their blocks, in order.
        entries: Vec<(String, Span, Block)>,
    },
    /// `present { ... }`: how the game is drawn, never a rule.
    Present(Vec<PresentItem>),
    /// `setup { ... }`.
    Setup(Block),
    /// `flow { ... }`.
    Flow(Block),
    /// `end when cond`.
    EndWhen(Expr),
    /// `score(p) = expr`.
    Score {
        /// The name bound to each player.
        player: Ident,
        /// The player's score.
        value: Expr,
    },
    /// `heuristic(p) = expr`: an estimate of progress for agents, never a rule.
    Heuristic {
        /// The name bound to each player.
        player: Ident,
        /// The player's estimated progress.
        value: Expr,
    },
    /// `set name(a: T, b: T) where cond = points`.
    Set {
        /// The set kind's name.
        name: Ident,
        /// Its members with their types.
        params: Vec<(Ident, TypeExpr)>,
        /// The condition the members must meet, if any.
        cond: Option<Expr>,
        /// What one set is worth.
        points: Expr,
    },
    /// `tiebreak(p) = expr`.
    Tiebreak {
        /// The name bound to each player.
        player: Ident,
        /// The player's tie-breaker value.
        value: Expr,
    },
    /// `ties draw` or `ties shared`.
    Ties(Ident),
}

/// The body of `graph { ... }`.
#[derive(Clone, Debug, Default)]
pub struct GraphDecl {
    /// `spaces a, b, c`, in order (several `spaces` parts add up).
    pub spaces: Vec<Ident>,
    /// `edges a - b, ...`.
    pub edges: Vec<(Ident, Ident)>,
    /// `line NAME = a, b, c` (with a name) and `lines a b c, ...` (without), in order.
    pub lines: Vec<(Option<Ident>, Vec<Ident>)>,
}

/// `closed [a, b] when FLAG`.
#[derive(Clone, Debug)]
pub struct ClosedDecl {
    /// The closed spaces.
    pub spaces: Vec<Ident>,
    /// The condition after `when`, if any.
    pub when: Option<Expr>,
    /// The whole clause.
    pub span: Span,
}

/// One field of a `component` declaration: `name: type [seen by f] [= default]`.
#[derive(Clone, Debug)]
pub struct FieldDecl {
    /// The field's name.
    pub name: Ident,
    /// Its type.
    pub ty: TypeExpr,
    /// `seen by owner`: the field holding the only player who sees this one.
    pub seen_by: Option<Ident>,
    /// `seen by owner secret`: not revealed when the game is over.
    pub kept: bool,
    /// The default value, if written.
    pub default: Option<Expr>,
}

/// One line of a component table: a name template, optional generators, field values.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The name template, without quotes: text with `{field}` or `{generator}` holes.
    pub name: String,
    /// Where the template is written (quotes included).
    pub name_span: Span,
    /// `for x in C, ...`: one component per combination of values (none: one component).
    pub generators: Vec<Binding>,
    /// `{ field = expr, ... }`: the field values given.
    pub fields: Vec<(Ident, Expr)>,
}

/// A type as written.
#[derive(Clone, Debug)]
pub enum TypeExpr {
    /// `int`, `bool`, `Player`, or the name of an enum, a component type or a board.
    Named(Ident),
    /// `action` or `action(T, ...)`: an action taking arguments of these types.
    Action {
        /// The parameter types.
        params: Vec<TypeExpr>,
        /// Where it is written.
        span: Span,
    },
    /// `lo..hi`: a number between the bounds, both included.
    Range {
        /// The low bound: a number or a constant's name (an [`ExprKind::Int`] or
        /// [`ExprKind::Name`]), known when the file is read.
        lo: Box<Expr>,
        /// The high bound, as `lo`.
        hi: Box<Expr>,
        /// Where it is written.
        span: Span,
        /// `clamp`: an assignment outside the range takes the nearest bound.
        clamp: bool,
    },
}

impl TypeExpr {
    /// Where the type is written.
    pub fn span(&self) -> Span {
        match self {
            TypeExpr::Named(i) => i.span,
            TypeExpr::Range { span, .. } | TypeExpr::Action { span, .. } => *span,
        }
    }

    /// Whether it is a range written with `clamp`.
    pub fn clamps(&self) -> bool {
        matches!(self, TypeExpr::Range { clamp: true, .. })
    }
}

/// `x in collection`.
#[derive(Clone, Debug)]
pub struct Binding {
    /// The name bound.
    pub var: Ident,
    /// The collection its values come from (a range `a..b` is allowed here).
    pub coll: Expr,
}

/// `{ statements }`.
#[derive(Clone, Debug, Default)]
pub struct Block {
    /// The statements, in order.
    pub stmts: Vec<Stmt>,
    /// The block, braces included.
    pub span: Span,
}

/// One statement.
#[derive(Clone, Debug)]
pub struct Stmt {
    /// What it does.
    pub kind: StmtKind,
    /// The whole statement.
    pub span: Span,
}

/// The kinds of statement.
#[derive(Clone, Debug)]
pub enum StmtKind {
    /// `let name = value`: a new local name.
    Let {
        /// The name.
        name: Ident,
        /// Its value.
        value: Expr,
    },
    /// `target = value`, `target += value`, `target -= value`.
    Assign {
        /// A variable, a component field or a `let` name.
        target: Expr,
        /// The operator.
        op: AssignOp,
        /// The right-hand side.
        value: Expr,
    },
    /// `if cond { } else { }`; `else if` is an `else` block holding one `if`.
    If {
        /// The condition.
        cond: Expr,
        /// Run when it holds.
        then: Block,
        /// Run when it does not, if written.
        otherwise: Option<Block>,
    },
    /// `for x in C { }`.
    For {
        /// The name and its collection.
        binding: Binding,
        /// The loop body.
        body: Block,
    },
    /// `repeat { }` (until `break` or the end of the game) or `repeat n { }`.
    Repeat {
        /// The number of rounds, if written.
        count: Option<Expr>,
        /// The loop body.
        body: Block,
    },
    /// `while cond { }`.
    While {
        /// Checked before each round.
        cond: Expr,
        /// The loop body.
        body: Block,
    },
    /// `break`: leaves the innermost loop.
    Break,
    /// `turn p { }`: `p` is the current player (and `me`) inside.
    Turn {
        /// The player.
        player: Expr,
        /// The turn's statements.
        body: Block,
    },
    /// `simultaneous p in C { }`: each player of C runs the body unseen by the others.
    Simultaneous {
        /// The name bound to each player, and the players.
        binding: Binding,
        /// The statements each player runs.
        body: Block,
    },
    /// `choose [by p | each p in C] { arms } [else { }]` or `choose x in C where cond { }`.
    Choose {
        /// `by p`: who chooses, if written (default: `me`, the acting player).
        by: Option<Expr>,
        /// `choose each p in C`: simultaneous choices of every player in C.
        each: Option<Binding>,
        /// The options.
        arms: ChooseArms,
        /// The `else` block, run when no option is legal.
        otherwise: Option<Block>,
    },
    /// `move c to [bottom of] z`.
    Move {
        /// The component.
        what: Expr,
        /// The destination zone.
        to: Expr,
        /// `bottom of` was written.
        bottom: bool,
    },
    /// `deal n from a to [bottom of] b` (or `deal all`).
    Deal {
        /// How many; `None` for `all`.
        count: Option<Expr>,
        /// The zone dealt from.
        from: Expr,
        /// The zone dealt to.
        to: Expr,
        /// `bottom of` was written.
        bottom: bool,
    },
    /// `shuffle z`.
    Shuffle(Expr),
    /// `roll x [in C]`.
    Roll {
        /// What receives the value.
        target: Expr,
        /// The possible values, if written (else taken from the target's type).
        domain: Option<Expr>,
    },
    /// `do name(args)`: runs an action's effect.
    Do {
        /// The action.
        action: Ident,
        /// Its arguments.
        args: Vec<Expr>,
    },
    /// `do x.effect(args)` (or `do x.effect`): runs the action a field holds; also any other
    /// term after `do` that is not `name(args)`, for the checker to refuse.
    DoField {
        /// The term after `do`.
        target: Expr,
        /// Its arguments (none when not written).
        args: Vec<Expr>,
    },
    /// `end`, `end draw` or `end lose`.
    End(EndKind),
    /// `win p` (or `win all`).
    Win(Expr),
    /// `reveal x.f` (true) or `hide x.f` (false).
    Reveal(Expr, bool),
    /// `reveal x.f to p`: one player sees the field from now on.
    RevealTo(Expr, Expr),
    /// `remember m` (true) or `forget m` (false).
    Remember(Ident, bool),
    /// `legend "text"`: a position written as text, read through a legend (with the span
    /// of the string).
    Layout(Ident, String, Span),
    /// `name(args)`: runs a procedure.
    Call(Ident, Vec<Expr>),
}

/// When an action may be taken outside the flow's choices.
#[derive(Clone, Debug)]
pub enum Window {
    /// `anytime`: at every window.
    Anytime,
    /// `before WORD`: at the windows before a turn (`WORD` must be `turn`, checked).
    Before(Ident),
}

/// The options of a `choose`.
#[derive(Clone, Debug)]
pub enum ChooseArms {
    /// `choose { play discard pass { ... } }`
    Arms(Vec<Arm>),
    /// `choose x in C where cond { body }`
    Value {
        /// The names bound, each to a collection.
        bindings: Vec<Binding>,
        /// The `where` condition, if any.
        guard: Option<Expr>,
        /// Run with the chosen values.
        body: Block,
    },
}

/// One named option of a `choose { ... }`.
#[derive(Clone, Debug)]
pub struct Arm {
    /// The action's name, or the inline option's label.
    pub name: Ident,
    /// `Some` for an inline option, `None` for an action.
    pub body: Option<Block>,
}

/// An expression.
#[derive(Clone, Debug)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// The whole expression.
    pub span: Span,
}

/// The kinds of expression.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A number (one too large for `i64` stops the file before its tree is built:
    /// `check::number`).
    Int(i64),
    /// `true` or `false`.
    Bool(bool),
    /// `none`.
    None,
    /// A string, without quotes (only `named("...")` takes one).
    Str(String),
    /// A name, resolved by the checker (a local, a global, `me`, `current`, ...).
    Name(String),
    /// `after action(args): body`: `body` in the state the action's effect would leave.
    After {
        /// The action.
        action: Ident,
        /// Its arguments.
        args: Vec<Expr>,
        /// The expression evaluated after it.
        body: Box<Expr>,
    },
    /// `base[i, j]`: a zone or variable at indexes.
    Index(Box<Expr>, Vec<Expr>),
    /// `base.field` (also `Enum.value`).
    Field(Box<Expr>, Ident),
    /// `f(args)`: a built-in function or a `def`.
    Call(Ident, Vec<Expr>),
    /// `func(x in C, ..., args where filter: body else otherwise)`: an aggregate (also
    /// `paths(...)` and `group(...)`, which the checker reads as collections).
    Aggregate {
        /// The aggregate's name (`count`, `sum`, `line`, `best_sets`, ...).
        func: Ident,
        /// The names bound, each to a collection.
        bindings: Vec<Binding>,
        /// Extra arguments after the bindings (`, expr`).
        args: Vec<Expr>,
        /// The `where` condition (or the `until` condition, when `until`).
        filter: Option<Box<Expr>>,
        /// Whether the condition was written `until` (a ray's stop) instead of `where`.
        until: bool,
        /// The `: value` per element.
        body: Option<Box<Expr>>,
        /// The `else` value.
        otherwise: Option<Box<Expr>>,
    },
    /// A prefix operator and its operand.
    Unary(UnOp, Box<Expr>),
    /// A binary operator and its operands.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `if c then a else b`.
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `[a, b, c]`: a collection.
    List(Vec<Expr>),
    /// `a..b`: a collection of numbers, both ends included (after `in` only).
    Range(Box<Expr>, Box<Expr>),
}

/// A scenario file: a rules file path and its scenarios.
#[derive(Clone, Debug)]
pub struct ScenarioFile {
    /// The `rules "path"`, relative to the scenario file's folder.
    pub rules: String,
    /// Where that path is written.
    pub rules_span: Span,
    /// Its scenarios, in order.
    pub scenarios: Vec<Scenario>,
}

/// `scenario "name" steps...`.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The scenario's name.
    pub name: String,
    /// The whole scenario.
    pub span: Span,
    /// Its steps, in order.
    pub steps: Vec<Step>,
}

/// One step of a scenario.
#[derive(Clone, Debug)]
pub struct Step {
    /// What it does.
    pub kind: StepKind,
    /// The whole step.
    pub span: Span,
}

/// The kinds of scenario step.
#[derive(Clone, Debug)]
pub enum StepKind {
    /// `players N`.
    Players(i64),
    /// `seed N`.
    Seed(u64),
    /// `variant name` or `variant a, b`: the variants to play, in order.
    Variant(Vec<Ident>),
    /// `set NAME = value`: a constant's value for the match.
    Set(Ident, Expr),
    /// `chance external` or `chance seeded`.
    Chance(Ident),
    /// `setup { ... }`: statements run on the current position.
    Setup(Block),
    /// `apply "action text"`.
    Apply(String),
    /// `expect legal "action text"`.
    ExpectLegal(String),
    /// `expect not legal "action text"`.
    ExpectNotLegal(String),
    /// `expect illegal "action text"`: applying it must be refused.
    ExpectIllegal(String),
    /// `expect finished`.
    ExpectFinished,
    /// `expect not finished`.
    ExpectNotFinished,
    /// `expect winners C`: the collection of the players who must have won.
    ExpectWinners(Expr),
    /// `expect actor p`.
    ExpectActor(Expr),
    /// `expect cond`.
    Expect(Expr),
    /// `expect p sees x` (true) or `expect p not sees x` (false): whether the view of seat p
    /// shows a field's value, a zone's contents or a variable's value.
    ExpectSees {
        /// The seat (`none`: a spectator).
        seat: Expr,
        /// The field, zone or variable.
        target: Expr,
        /// `sees` (true) or `not sees` (false).
        sees: bool,
    },
}
