//! Resolved expressions and collections.

use super::*;

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
    /// `step(s, d)`: the space one step from `s` in direction `d`, or none.
    Step,
    /// `col(s)`: a space's column from 1 (a ring: its number).
    Col,
    /// `row(s)`: a space's row from 1 (a ring: 1).
    Row,
    /// `opposite(d)`: the opposite direction.
    Opposite,
    /// `ord(v)`: the position of an enum value (or a direction) from 0.
    Ord,
    /// `repeated(m)`: how many times the present position was remembered in a memory. Its
    /// arguments are the memory's parts ([`MemoryDef::parts`]), then the memory's number.
    Repeated,
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
    /// `connected(s in board, A, B where c)`: a space meeting `A` and `c` is joined to one
    /// meeting `B` and `c` through neighbours all meeting `c`.
    Connected,
    /// `majority(q in players, points, p: value)`: player p's share of `points`, split evenly
    /// (rounded down) among the players of highest value, if that value is at least 1.
    Majority,
}

/// An aggregate over one or more collections.
#[derive(Clone, Debug)]
pub struct Agg {
    /// What it computes.
    pub kind: AggKind,
    /// For `best_sets`: the set kinds to form.
    pub sets: Vec<SetId>,
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
    Const(ConstId),
    /// A local slot.
    Local(u16),
    /// `me`: the acting player.
    Me,
    /// `current`: the player whose turn it is, or none.
    Current,
    /// `player_count`: the number of seats in play.
    PlayerCount,
    /// A variable (index into [`Game::vars`]) at these indexes.
    Var(VarId, Vec<Expr>),
    /// The instance of a zone (index into [`Game::zones`]) at these indexes.
    Zone(ZoneId, Vec<Expr>),
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
    CallDef(DefId, Vec<Expr>),
    /// An aggregate, with its span.
    Agg(Box<Agg>, Span),
    /// `after a(args): body`: `body` in the state action `a`'s effect would leave.
    After(Box<After>),
}

/// `after a(args): body`: the effect of action `a` is run on a copy of the state, with these
/// arguments and `me` (without its guard, as `do` runs it, and without what the flow would do
/// next); `body` is evaluated in the state it leaves, with the locals of the place it is
/// written. An effect that reaches a choice or a chance event is a run-time error.
#[derive(Clone, Debug)]
pub struct After {
    /// The action.
    pub action: ActionId,
    /// Its arguments, one per parameter.
    pub args: Vec<Expr>,
    /// The player the effect runs for (`me` where it is written).
    pub me: Expr,
    /// The value asked for.
    pub body: Expr,
    /// The expression.
    pub span: Span,
}

/// A collection to iterate: in aggregates, `for`, `choose` and action parameters.
#[derive(Clone, Debug)]
pub enum Coll {
    /// The components of a zone, bottom to top.
    Zone(Expr),
    /// The spaces of a board.
    Board(BoardId),
    /// The values of an enum.
    Enum(EnumId),
    /// Every component of a type.
    Type(TypeId),
    /// The seats in play, from 0.
    Players,
    /// `a..b`, both included.
    Range(Expr, Expr),
    /// `[a, b, c]`, in order.
    List(Vec<Expr>),
    /// The neighbours of a space.
    Adjacent(Expr),
    /// `ray(s, d)`: the spaces from `s` (excluded) stepping in direction `d`, in order, until
    /// the edge of the board or a closed space.
    Ray(Expr, Expr),
    /// `ray(s, [d, ...])`, `ray(t in board, s, d where c)`, `ray(t in board, s, d until c)`:
    /// rays in several directions one after the other, or rays that stop ([`Rays`]).
    Rays(Box<Rays>),
    /// `paths(s in board, from, n where cond)`: the spaces reached from `from` in exactly `n`
    /// steps between neighbours, each entered space meeting `cond`, none visited twice.
    Paths {
        /// The board (index into [`Game::boards`]).
        board: BoardId,
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
        board: BoardId,
        /// The local slot `s` is bound to while `cond` is tested.
        slot: u16,
        /// The space the group grows from.
        start: Expr,
        /// What every member must meet (`None`: the whole connected board).
        cond: Option<Expr>,
    },
    /// `groups(s in board where cond)`: every maximal connected group of spaces meeting
    /// `cond`, each given by its first space in board order, in board order.
    Groups {
        /// The board (index into [`Game::boards`]).
        board: BoardId,
        /// The local slot `s` is bound to while `cond` is tested.
        slot: u16,
        /// What every member must meet (`None`: any space).
        cond: Option<Expr>,
    },
}

/// Rays from one space in each of several directions in turn, each stopped by a condition.
#[derive(Clone, Debug)]
pub struct Rays {
    /// The start space (excluded).
    pub from: Expr,
    /// The directions, in order; on a ring, a space reached in two directions is listed once.
    pub dirs: Vec<Expr>,
    /// Where each ray stops besides the edge, a closed space or its start.
    pub stop: Option<RayStop>,
}

/// The condition a ray stops by.
#[derive(Clone, Debug)]
pub struct RayStop {
    /// The local slot each space is bound to while `cond` is tested.
    pub slot: u16,
    /// The condition.
    pub cond: Expr,
    /// `until`: the ray takes the first space meeting `cond` and stops after it; otherwise
    /// (`where`) every space of the ray meets `cond`: it stops before the first that fails.
    pub until: bool,
}

impl Expr {
    /// Calls `f` with every local slot the expression reads.
    pub fn reads(&self, f: &mut dyn FnMut(u16)) {
        self.visit(&mut |e| {
            if let Expr::Local(l) = e {
                f(*l)
            }
        });
    }

    /// Calls `f` with every local slot bound inside the expression: its aggregates'
    /// bindings and the slots their walks' conditions read the space from.
    pub fn bound_slots(&self, f: &mut dyn FnMut(u16)) {
        self.visit(&mut |x| {
            if let Expr::Agg(a, _) = x {
                for b in &a.binds {
                    f(b.slot);
                    match &b.coll {
                        Coll::Paths { slot, .. }
                        | Coll::Group { slot, .. }
                        | Coll::Groups { slot, .. } => f(*slot),
                        Coll::Rays(r) => r.stop.iter().for_each(|s| f(s.slot)),
                        _ => {}
                    }
                }
            }
        });
    }

    /// `e` when this is `s == e` (or `e == s`) for local `slot` and `e` does not read it:
    /// the one space a `connected` whose start is this condition floods from.
    pub fn seed_of(&self, slot: u16) -> Option<&Expr> {
        let Expr::Bin(crate::ops::BinOp::Eq, l, r, _) = self else {
            return None;
        };
        let free = |e: &Expr| {
            let mut reads = false;
            e.reads(&mut |x| reads |= x == slot);
            !reads
        };
        match (&**l, &**r) {
            (Expr::Local(x), e) | (e, Expr::Local(x)) if *x == slot && free(e) => Some(e),
            _ => None,
        }
    }

    /// Calls `f` with the expression and every expression inside it, parents first
    /// (aggregates and collections included).
    pub fn visit(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        match self {
            Expr::Lit(_)
            | Expr::Const(_)
            | Expr::Local(_)
            | Expr::Me
            | Expr::Current
            | Expr::PlayerCount => {}
            Expr::Var(_, ix)
            | Expr::Zone(_, ix)
            | Expr::Builtin(_, ix, _)
            | Expr::CallDef(_, ix) => ix.iter().for_each(|x| x.visit(f)),
            Expr::Field(x, _) | Expr::Not(x) | Expr::Neg(x) => x.visit(f),
            Expr::Bin(_, a, b, _) => {
                a.visit(f);
                b.visit(f);
            }
            Expr::If(a, b, c) => {
                a.visit(f);
                b.visit(f);
                c.visit(f);
            }
            Expr::Agg(a, _) => {
                for b in &a.binds {
                    b.coll.visit(f);
                }
                for x in a
                    .args
                    .iter()
                    .chain(&a.filter)
                    .chain(&a.body)
                    .chain(&a.otherwise)
                {
                    x.visit(f);
                }
            }
            Expr::After(a) => {
                for x in a.args.iter().chain([&a.me, &a.body]) {
                    x.visit(f);
                }
            }
        }
    }
}

impl Coll {
    /// Calls `f` with every local slot the collection reads.
    pub fn reads(&self, f: &mut dyn FnMut(u16)) {
        self.visit(&mut |e| {
            if let Expr::Local(l) = e {
                f(*l)
            }
        });
    }

    /// [`Expr::visit`] for the expressions of a collection.
    pub fn visit(&self, f: &mut dyn FnMut(&Expr)) {
        match self {
            Coll::Zone(e) | Coll::Adjacent(e) => e.visit(f),
            Coll::Range(a, b) | Coll::Ray(a, b) => {
                a.visit(f);
                b.visit(f);
            }
            Coll::List(xs) => xs.iter().for_each(|x| x.visit(f)),
            Coll::Rays(r) => {
                r.from.visit(f);
                r.dirs.iter().for_each(|x| x.visit(f));
                r.stop.iter().for_each(|x| x.cond.visit(f));
            }
            Coll::Paths {
                from, steps, cond, ..
            } => {
                from.visit(f);
                steps.visit(f);
                cond.iter().for_each(|x| x.visit(f));
            }
            Coll::Group { start, cond, .. } => {
                start.visit(f);
                cond.iter().for_each(|x| x.visit(f));
            }
            Coll::Groups { cond, .. } => cond.iter().for_each(|x| x.visit(f)),
            Coll::Board(_) | Coll::Enum(_) | Coll::Type(_) | Coll::Players => {}
        }
    }
}
