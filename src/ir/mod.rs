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
    #[default]
    None,
    Int(i64),
    Bool(bool),
    /// A seat, from 0.
    Player(u8),
    /// An enum value: (enum, index).
    Enum(u16, u16),
    /// A component.
    Comp(u32),
    /// A space: (board, index).
    Space(u16, u32),
    /// One zone instance.
    Zone(u32),
}

/// A static type, for checking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    Int,
    Bool,
    Player,
    Enum(u16),
    Comp(u16),
    Space(u16),
    /// A zone holding components of a type.
    Zone(u16),
    Str,
    /// `none`, or a type the checker could not tell (an error was reported already).
    Any,
}

#[derive(Clone, Debug)]
pub struct Game {
    pub name: String,
    /// The file name and text, for run-time diagnostics.
    pub source_name: String,
    pub source: String,
    /// A stable hash of the source text, for saved games.
    pub source_hash: u64,
    pub min_players: u8,
    pub max_players: u8,
    pub consts: Vec<ConstDef>,
    pub variants: Vec<VariantDef>,
    pub enums: Vec<EnumDef>,
    pub types: Vec<CompType>,
    pub comps: Vec<Comp>,
    pub boards: Vec<Board>,
    pub zones: Vec<ZoneDef>,
    /// Number of zone instances (all indices of all zones).
    pub zone_instances: u32,
    /// Per zone instance: its declaration, owning seat and board space, precomputed.
    pub instances: Vec<Instance>,
    pub vars: Vec<VarDef>,
    pub var_slots: u32,
    pub defs: Vec<Def>,
    pub sets: Vec<SetDef>,
    pub actions: Vec<ActionDef>,
    pub procs: Vec<Proc>,
    pub choices: Vec<Choice>,
    pub setup: Option<u32>,
    pub flow: u32,
    pub end_when: Vec<(Expr, Span)>,
    pub score: Option<Expr>,
    pub tiebreaks: Vec<Expr>,
    /// Locals needed to evaluate score and tiebreak expressions (the player is local 0).
    pub score_locals: u16,
    pub ties_shared: bool,
}

#[derive(Clone, Debug)]
pub struct ConstDef {
    pub name: String,
    pub value: Value,
}

#[derive(Clone, Debug)]
pub struct VariantDef {
    pub name: String,
    pub description: Option<String>,
    pub sets: Vec<(u16, Value)>,
}

#[derive(Clone, Debug)]
pub struct EnumDef {
    pub name: String,
    pub values: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct CompType {
    pub name: String,
    pub fields: Vec<FieldDef>,
}

#[derive(Clone, Debug)]
pub struct FieldDef {
    pub name: String,
    pub ty: Type,
    pub range: Option<(i64, i64)>,
    pub default: Value,
    /// For a secret field: the field of the same component that holds the player who sees it.
    pub seen_by: Option<u16>,
}

/// One component.
#[derive(Clone, Debug)]
pub struct Comp {
    pub ty: u16,
    pub name: Vec<NamePart>,
    /// Initial field values, in the type's field order.
    pub fields: Vec<Value>,
    /// Offset of this component's fields in the state's flat field table.
    pub field_base: u32,
    /// The zone instance it starts in.
    pub zone: u32,
}

#[derive(Clone, Debug)]
pub enum NamePart {
    Text(String),
    Field(u16),
}

#[derive(Clone, Debug)]
pub enum BoardShape {
    Grid {
        width: u32,
        height: u32,
        diagonal: bool,
    },
    Ring {
        size: u32,
    },
}

#[derive(Clone, Debug)]
pub struct Board {
    pub name: String,
    pub shape: BoardShape,
    pub space_names: Vec<String>,
    /// Adjacency in compressed rows: the neighbours of space `s` are
    /// `adj[adj_start[s]..adj_start[s + 1]]`.
    pub adj_start: Vec<u32>,
    pub adj: Vec<u32>,
}

impl Board {
    pub fn len(&self) -> u32 {
        self.space_names.len() as u32
    }
    pub fn is_empty(&self) -> bool {
        self.space_names.is_empty()
    }
    pub fn neighbours(&self, s: u32) -> &[u32] {
        &self.adj[self.adj_start[s as usize] as usize..self.adj_start[s as usize + 1] as usize]
    }
}

/// What a zone or variable is indexed by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    Player,
    Enum(u16),
    Board(u16),
}

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

#[derive(Clone, Debug)]
pub struct ZoneDef {
    pub name: String,
    pub dims: Vec<Dim>,
    pub sizes: Vec<u32>,
    /// Zone instance of index (0, 0, ...).
    pub base: u32,
    pub count: u32,
    pub ty: u16,
    pub visibility: Visibility,
    /// Which dimension is the owning player, if any.
    pub owner_dim: Option<usize>,
}

/// What a zone instance is: its declaration, and the seat and space it is indexed by.
#[derive(Clone, Copy, Debug)]
pub struct Instance {
    pub zone: u16,
    pub owner: Option<u8>,
    pub space: Option<(u16, u32)>,
}

#[derive(Clone, Debug)]
pub struct VarDef {
    pub name: String,
    pub dims: Vec<Dim>,
    pub sizes: Vec<u32>,
    pub base: u32,
    pub count: u32,
    pub ty: Type,
    pub range: Option<(i64, i64)>,
    pub init: Option<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Def {
    pub name: String,
    pub params: u16,
    pub locals: u16,
    pub body: Expr,
}

/// A kind of set for `best_sets`: `params` components that together meet the conditions.
#[derive(Clone, Debug)]
pub struct SetDef {
    pub name: String,
    pub params: u16,
    pub locals: u16,
    /// The conditions split at `and`, each with the last parameter it needs, so that a
    /// partial choice of members is pruned as early as possible.
    pub conds: Vec<(u16, Expr)>,
    pub points: Expr,
}

#[derive(Clone, Debug)]
pub struct ActionDef {
    pub name: String,
    pub params: Vec<Bind>,
    pub guard: Option<Expr>,
    pub guard_span: Option<Span>,
    /// The guard split at `and`, each part with the number of parameters it needs bound:
    /// listing options checks each part as soon as it can, pruning early.
    pub guard_parts: Vec<(u16, Expr)>,
    /// Listed in some `choose` (not only run by `do`).
    pub offered: bool,
    pub proc: u32,
    pub span: Span,
}

/// `x in collection`: the local slot written and the collection read.
#[derive(Clone, Debug)]
pub struct Bind {
    pub name: String,
    pub slot: u16,
    pub coll: Coll,
    pub ty: Type,
    /// Where the collection was written, for "why not" answers.
    pub span: Span,
}

/// A procedure: the flow, the setup, or an action's effect.
#[derive(Clone, Debug)]
pub struct Proc {
    pub name: String,
    pub code: Vec<Instr>,
    pub locals: u16,
}

#[derive(Clone, Debug)]
pub struct Choice {
    pub by: Option<Expr>,
    /// `choose each p in C`: the players who choose at once (bound to `bind.slot`), and two
    /// locals for resolving their choices in seat order (next seat, saved acting player).
    pub each: Option<(Bind, u16)>,
    pub arms: Vec<Arm>,
    pub else_pc: Option<u32>,
    pub end_pc: u32,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Arm {
    Action(u32),
    Inline {
        label: Option<String>,
        binds: Vec<Bind>,
        guard: Option<Expr>,
        guard_span: Option<Span>,
        guard_parts: Vec<(u16, Expr)>,
        body_pc: u32,
    },
}

/// One instruction of a procedure. Control flow is explicit (`pc` jumps), so a paused game is
/// plain data: frames of (procedure, pc, locals).
#[derive(Clone, Debug)]
pub enum Instr {
    Let(u16, Expr),
    Assign {
        target: LValue,
        op: AssignOp,
        value: Expr,
        span: Span,
    },
    Move {
        what: Expr,
        to: Expr,
        bottom: bool,
        span: Span,
    },
    Deal {
        count: Option<Expr>,
        from: Expr,
        to: Expr,
        bottom: bool,
        span: Span,
    },
    Shuffle {
        zone: Expr,
        span: Span,
    },
    Roll {
        target: LValue,
        domain: Coll,
        span: Span,
    },
    Jump(u32),
    JumpIfNot(Expr, u32, Span),
    /// Push a collection onto the iteration stack; `slot`, `slot+1`, `slot+2` hold
    /// the next position, the end and the start.
    ForInit {
        coll: Coll,
        slot: u16,
    },
    /// Bind the next element to `var`, or jump to `exit` when done.
    ForNext {
        slot: u16,
        var: u16,
        exit: u32,
    },
    /// Drop the iteration started by the `ForInit` using `slot`.
    ForDone {
        slot: u16,
    },
    Choose(u32),
    /// After every player of a `choose each` committed: run the next seat's choice.
    SimNext(u32),
    Do {
        action: u32,
        args: Vec<Expr>,
        span: Span,
    },
    /// `turn p`: save the current player in `save`, make `p` current.
    TurnStart {
        player: Expr,
        save: u16,
        span: Span,
    },
    TurnEnd {
        save: u16,
    },
    End(EndKind),
    Win {
        who: Expr,
        span: Span,
    },
    /// `reveal` (true) or `hide` (false) a secret field of a component.
    Reveal {
        comp: Expr,
        field: u16,
        on: bool,
        span: Span,
    },
    /// A loop's step counter: every backward jump passes here, so a loop that never
    /// reaches a decision is stopped with its span.
    LoopGuard {
        span: Span,
    },
}

#[derive(Clone, Debug)]
pub enum LValue {
    Local(u16),
    Var { var: u32, index: Vec<Expr> },
    Field { comp: Expr, field: u16 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// Number of components in a zone.
    Count,
    Top,
    Bottom,
    Empty,
    /// The next seat after a player (wrapping).
    Next,
    Prev,
    /// The player whose zone holds a component.
    Owner,
    /// The board space whose zone holds a component.
    SpaceOf,
    /// The zone instance holding a component.
    ZoneOf,
    /// The first component with this name.
    Named,
    /// A seat by number from 0.
    Seat,
    Abs,
    Max2,
    Min2,
    /// Is a value in a collection? (`contains(C, x)`)
    Contains,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggKind {
    Count,
    Sum,
    Max,
    Min,
    Any,
    All,
    First,
    /// `line(s in board, n where cond)`: a straight line of n consecutive spaces.
    Line,
    /// `best_sets(c in C, kind1, kind2, ...)`: the most points from disjoint sets of C.
    BestSets,
}

#[derive(Clone, Debug)]
pub struct Agg {
    pub kind: AggKind,
    /// For `best_sets`: the set kinds to form.
    pub sets: Vec<u16>,
    pub binds: Vec<Bind>,
    pub args: Vec<Expr>,
    pub filter: Option<Expr>,
    pub body: Option<Expr>,
    pub otherwise: Option<Expr>,
}

#[derive(Clone, Debug)]
pub enum Expr {
    Lit(Value),
    Const(u16),
    Local(u16),
    Me,
    Current,
    PlayerCount,
    Var(u32, Vec<Expr>),
    Zone(u32, Vec<Expr>),
    Field(Box<Expr>, u16),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>, Span),
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    Builtin(Builtin, Vec<Expr>, Span),
    CallDef(u16, Vec<Expr>),
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
    List(Vec<Expr>),
    /// The neighbours of a space.
    Adjacent(Expr),
    /// `paths(s in board, from, n where cond)`: the spaces reached from `from` in exactly `n`
    /// steps between neighbours, each entered space meeting `cond`, none visited twice.
    Paths {
        board: u16,
        slot: u16,
        from: Expr,
        steps: Expr,
        cond: Option<Expr>,
    },
    /// `group(s in board, start where cond)`: the connected spaces meeting `cond` that
    /// contain `start` (empty when `start` does not meet it).
    Group {
        board: u16,
        slot: u16,
        start: Expr,
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
