//! The syntax tree: what the author wrote, with spans, before any name is resolved.

/// A byte range in the source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }
    pub fn len(&self) -> usize {
        self.end - self.start
    }
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

impl From<Span> for miette::SourceSpan {
    fn from(s: Span) -> Self {
        (s.start, s.len()).into()
    }
}

/// A name as written, with where it was written.
#[derive(Clone, Debug)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A whole rules file.
#[derive(Clone, Debug, Default)]
pub struct File {
    pub decls: Vec<Decl>,
}

#[derive(Clone, Debug)]
pub struct Decl {
    pub kind: DeclKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum DeclKind {
    Game(String),
    Players {
        min: i64,
        max: i64,
    },
    Const {
        name: Ident,
        value: Expr,
    },
    Variant {
        name: Ident,
        description: Option<String>,
        sets: Vec<(Ident, Expr)>,
    },
    Enum {
        name: Ident,
        values: Vec<Ident>,
    },
    Component {
        name: Ident,
        fields: Vec<FieldDecl>,
    },
    Components {
        ty: Ident,
        zone: Expr,
        entries: Vec<Entry>,
    },
    Board {
        name: Ident,
        shape: Ident,
        args: Vec<Expr>,
        flags: Vec<Ident>,
    },
    Zone {
        name: Ident,
        index: Vec<Ident>,
        ty: Ident,
        visibility: Option<Ident>,
    },
    Var {
        name: Ident,
        index: Vec<Ident>,
        ty: TypeExpr,
        init: Option<Expr>,
    },
    Def {
        name: Ident,
        params: Vec<(Ident, TypeExpr)>,
        body: Expr,
    },
    Action {
        name: Ident,
        params: Vec<Binding>,
        guard: Option<Expr>,
        body: Block,
    },
    Setup(Block),
    Flow(Block),
    EndWhen(Expr),
    Score {
        player: Ident,
        value: Expr,
    },
    /// `set name(a: T, b: T) where cond = points`.
    Set {
        name: Ident,
        params: Vec<(Ident, TypeExpr)>,
        cond: Option<Expr>,
        points: Expr,
    },
    Tiebreak {
        player: Ident,
        value: Expr,
    },
    Ties(Ident),
}

#[derive(Clone, Debug)]
pub struct FieldDecl {
    pub name: Ident,
    pub ty: TypeExpr,
    /// `seen by owner`: the field holding the only player who sees this one.
    pub seen_by: Option<Ident>,
    pub default: Option<Expr>,
}

/// One line of a component table: a name template, optional generators, field values.
#[derive(Clone, Debug)]
pub struct Entry {
    pub name: String,
    pub name_span: Span,
    pub generators: Vec<Binding>,
    pub fields: Vec<(Ident, Expr)>,
}

#[derive(Clone, Debug)]
pub enum TypeExpr {
    Named(Ident),
    Range { lo: i64, hi: i64, span: Span },
}

impl TypeExpr {
    pub fn span(&self) -> Span {
        match self {
            TypeExpr::Named(i) => i.span,
            TypeExpr::Range { span, .. } => *span,
        }
    }
}

/// `x in collection`.
#[derive(Clone, Debug)]
pub struct Binding {
    pub var: Ident,
    pub coll: Expr,
}

#[derive(Clone, Debug, Default)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssignOp {
    Set,
    Add,
    Sub,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndKind {
    Score,
    Draw,
    Lose,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    Let {
        name: Ident,
        value: Expr,
    },
    Assign {
        target: Expr,
        op: AssignOp,
        value: Expr,
    },
    If {
        cond: Expr,
        then: Block,
        otherwise: Option<Block>,
    },
    For {
        binding: Binding,
        body: Block,
    },
    Repeat {
        count: Option<Expr>,
        body: Block,
    },
    While {
        cond: Expr,
        body: Block,
    },
    Break,
    Turn {
        player: Expr,
        body: Block,
    },
    Choose {
        by: Option<Expr>,
        /// `choose each p in C`: simultaneous choices of every player in C.
        each: Option<Binding>,
        arms: ChooseArms,
        otherwise: Option<Block>,
    },
    Move {
        what: Expr,
        to: Expr,
        bottom: bool,
    },
    Deal {
        count: Option<Expr>,
        from: Expr,
        to: Expr,
        bottom: bool,
    },
    Shuffle(Expr),
    Roll {
        target: Expr,
        domain: Option<Expr>,
    },
    Do {
        action: Ident,
        args: Vec<Expr>,
    },
    End(EndKind),
    Win(Expr),
    /// `reveal x.f` (true) or `hide x.f` (false).
    Reveal(Expr, bool),
}

#[derive(Clone, Debug)]
pub enum ChooseArms {
    /// `choose { play discard pass { ... } }`
    Arms(Vec<Arm>),
    /// `choose x in C where cond { body }`
    Value {
        bindings: Vec<Binding>,
        guard: Option<Expr>,
        body: Block,
    },
}

#[derive(Clone, Debug)]
pub struct Arm {
    pub name: Ident,
    /// `Some` for an inline option, `None` for an action.
    pub body: Option<Block>,
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Not,
    Neg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Or => "or",
            BinOp::And => "and",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
        }
    }
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Int(i64),
    Bool(bool),
    None,
    Str(String),
    Name(String),
    Index(Box<Expr>, Vec<Expr>),
    Field(Box<Expr>, Ident),
    Call(Ident, Vec<Expr>),
    Aggregate {
        func: Ident,
        bindings: Vec<Binding>,
        args: Vec<Expr>,
        filter: Option<Box<Expr>>,
        body: Option<Box<Expr>>,
        otherwise: Option<Box<Expr>>,
    },
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    List(Vec<Expr>),
    Range(Box<Expr>, Box<Expr>),
}

/// A scenario file: a rules file path and its scenarios.
#[derive(Clone, Debug)]
pub struct ScenarioFile {
    pub rules: String,
    pub rules_span: Span,
    pub scenarios: Vec<Scenario>,
}

#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    pub span: Span,
    pub steps: Vec<Step>,
}

#[derive(Clone, Debug)]
pub struct Step {
    pub kind: StepKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum StepKind {
    Players(i64),
    Seed(u64),
    Variant(Ident),
    Chance(Ident),
    Setup(Block),
    Apply(String),
    ExpectLegal(String),
    ExpectNotLegal(String),
    ExpectIllegal(String),
    ExpectFinished,
    ExpectNotFinished,
    ExpectWinners(Expr),
    ExpectActor(Expr),
    Expect(Expr),
}
