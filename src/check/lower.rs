//! Lowering of expressions, collections and statements to the IR, with type checks.

use super::{Checker, Global};
use crate::ir::{self, AggKind, Builtin, Coll, Expr, Instr, LValue, Type, Value};
use crate::syntax::ast::{self, ExprKind as K, StmtKind as S};

/// Break targets of the enclosing loops: positions of `Jump` instructions to patch.
type Loops = Vec<Vec<usize>>;
/// Builds a variable or zone expression once its indexes are lowered.
type MakeExpr = Box<dyn Fn(Vec<Expr>) -> (Expr, Type)>;

impl Checker {
    fn unknown_name(&mut self, name: &str, span: ast::Span) {
        if let Some(list) = self.ambiguous_values.get(name).cloned() {
            let names: Vec<String> = list
                .iter()
                .map(|e| format!("{}.{name}", self.game.enums[*e as usize].name))
                .collect();
            let p = self.error(
                "check::ambiguous",
                span,
                format!("`{name}` is a value of several enums"),
                "ambiguous value",
            );
            p.help = Some(format!("write it with its enum: {}", names.join(" or ")));
            return;
        }
        let mut candidates: Vec<&str> = self.globals.keys().map(|s| s.as_str()).collect();
        candidates.extend(self.scopes.iter().map(|l| l.name.as_str()));
        candidates.extend(["me", "current", "players", "player_count"]);
        let best = candidates
            .iter()
            .filter(|c| edit_distance(c, name) <= 2)
            .min_by_key(|c| edit_distance(c, name))
            .map(|s| s.to_string());
        let p = self.error(
            "check::unknown_name",
            span,
            format!("unknown name `{name}`"),
            "not defined anywhere",
        );
        p.help = Some(match best {
            Some(b) => format!("did you mean `{b}`?"),
            None => "declare it first: a `var`, `zone`, `const`, `enum` value, or a `let`".into(),
        });
    }

    /// Lowers an expression and returns its type.
    pub(crate) fn expr(&mut self, e: &ast::Expr) -> (Expr, Type) {
        match &e.kind {
            K::Int(n) => (Expr::Lit(Value::Int(*n)), Type::Int),
            K::Bool(b) => (Expr::Lit(Value::Bool(*b)), Type::Bool),
            K::None => (Expr::Lit(Value::None), Type::Any),
            K::Str(_) => {
                let p = self.error(
                    "check::type",
                    e.span,
                    "a string is not a value here",
                    "strings only name components",
                );
                p.help = Some("use `named(\"red-7\")` to refer to a component by name".into());
                (Expr::Lit(Value::None), Type::Any)
            }
            K::Name(n) => self.name_expr(n, e.span, &[]),
            K::Index(base, idx) => match &base.kind {
                K::Name(n) => self.name_expr(n, base.span, idx),
                _ => {
                    self.error(
                        "check::index",
                        e.span,
                        "only zones and variables can be indexed",
                        "cannot index this",
                    );
                    (Expr::Lit(Value::None), Type::Any)
                }
            },
            K::Field(base, f) => {
                // Enum.value
                if let K::Name(n) = &base.kind {
                    if self.lookup_local(n).is_none() {
                        if let Some((Global::Enum(ei), _)) = self.globals.get(n).copied() {
                            self.used.insert(Global::Enum(ei));
                            return match self.game.enums[ei as usize]
                                .values
                                .iter()
                                .position(|v| *v == f.name)
                            {
                                Some(vi) => (Expr::Lit(Value::Enum(ei, vi as u16)), Type::Enum(ei)),
                                None => {
                                    let values = self.game.enums[ei as usize].values.join(", ");
                                    let p = self.error(
                                        "check::unknown_name",
                                        f.span,
                                        format!("enum `{n}` has no value `{}`", f.name),
                                        "unknown value",
                                    );
                                    p.help = Some(format!("its values are: {values}"));
                                    (Expr::Lit(Value::None), Type::Any)
                                }
                            };
                        }
                    }
                }
                let (b, t) = self.expr(base);
                match t {
                    Type::Comp(ct) => match self.game.types[ct as usize]
                        .fields
                        .iter()
                        .position(|x| x.name == f.name)
                    {
                        Some(fi) => {
                            let ft = self.game.types[ct as usize].fields[fi].ty;
                            (Expr::Field(Box::new(b), fi as u16), ft)
                        }
                        None => {
                            let names: Vec<String> = self.game.types[ct as usize]
                                .fields
                                .iter()
                                .map(|x| x.name.clone())
                                .collect();
                            let p = self.error(
                                "check::unknown_field",
                                f.span,
                                format!(
                                    "`{}` has no field `{}`",
                                    self.game.types[ct as usize].name, f.name
                                ),
                                "unknown field",
                            );
                            p.help = Some(format!("its fields are: {}", names.join(", ")));
                            (Expr::Lit(Value::None), Type::Any)
                        }
                    },
                    Type::Any => {
                        // The type is unknown (a component from `named`, say): find the field by name
                        // in the only type that has it.
                        let owners: Vec<(u16, usize)> = self
                            .game
                            .types
                            .iter()
                            .enumerate()
                            .filter_map(|(ti, t)| {
                                t.fields
                                    .iter()
                                    .position(|x| x.name == f.name)
                                    .map(|fi| (ti as u16, fi))
                            })
                            .collect();
                        if let [(ti, fi)] = owners.as_slice() {
                            let ft = self.game.types[*ti as usize].fields[*fi].ty;
                            (Expr::Field(Box::new(b), *fi as u16), ft)
                        } else {
                            self.error(
                                "check::unknown_field",
                                f.span,
                                format!("cannot tell which component type's `{}` this is", f.name),
                                "unknown type here",
                            );
                            (Expr::Lit(Value::None), Type::Any)
                        }
                    }
                    other => {
                        let p = self.error(
                            "check::type",
                            base.span,
                            format!("{} has no fields", self.type_name(other)),
                            "not a component",
                        );
                        p.help = Some("fields belong to components: `card.rank`".into());
                        (Expr::Lit(Value::None), Type::Any)
                    }
                }
            }
            K::Call(f, args) => self.call(f, args, e.span),
            K::Aggregate {
                func,
                bindings,
                args,
                filter,
                body,
                otherwise,
            } => self.aggregate(
                func,
                bindings,
                args,
                filter.as_deref(),
                body.as_deref(),
                otherwise.as_deref(),
                e.span,
            ),
            K::Unary(op, x) => {
                let (a, t) = self.expr(x);
                match op {
                    ast::UnOp::Not => {
                        self.expect_type(t, Type::Bool, x.span, "the operand of `not`");
                        (Expr::Not(Box::new(a)), Type::Bool)
                    }
                    ast::UnOp::Neg => {
                        self.expect_type(t, Type::Int, x.span, "the operand of `-`");
                        (Expr::Neg(Box::new(a)), Type::Int)
                    }
                }
            }
            K::Binary(op, a, b) => {
                let (x, ta) = self.expr(a);
                let (y, tb) = self.expr(b);
                use ast::BinOp::*;
                // What both sides must be (none for `==`/`!=`), and what the result is.
                let (want, t) = match op {
                    Or | And => (Some(Type::Bool), Type::Bool),
                    Eq | Ne => (None, Type::Bool),
                    Lt | Le | Gt | Ge => (Some(Type::Int), Type::Bool),
                    Add | Sub | Mul | Div | Mod => (Some(Type::Int), Type::Int),
                };
                match want {
                    Some(w) => {
                        self.expect_type(
                            ta,
                            w,
                            a.span,
                            &format!("the left side of `{}`", op.symbol()),
                        );
                        self.expect_type(
                            tb,
                            w,
                            b.span,
                            &format!("the right side of `{}`", op.symbol()),
                        );
                    }
                    None => {
                        if ta != tb && ta != Type::Any && tb != Type::Any {
                            let p = self.error(
                                "check::type",
                                e.span,
                                format!(
                                    "cannot compare {} with {}",
                                    self.type_name(ta),
                                    self.type_name(tb)
                                ),
                                "these can never be equal",
                            );
                            p.help = Some("compare values of the same type".into());
                        }
                    }
                }
                (Expr::Bin(*op, Box::new(x), Box::new(y), e.span), t)
            }
            K::If(c, a, b) => {
                let (c2, tc) = self.expr(c);
                self.expect_type(tc, Type::Bool, c.span, "the condition of `if`");
                let (a2, ta) = self.expr(a);
                let (b2, tb) = self.expr(b);
                if ta != tb && ta != Type::Any && tb != Type::Any {
                    self.error(
                        "check::type",
                        e.span,
                        format!(
                            "the branches of `if` differ: {} and {}",
                            self.type_name(ta),
                            self.type_name(tb)
                        ),
                        "both branches must have one type",
                    );
                }
                (
                    Expr::If(Box::new(c2), Box::new(a2), Box::new(b2)),
                    if ta == Type::Any { tb } else { ta },
                )
            }
            K::List(_) | K::Range(..) => {
                let p = self.error(
                    "check::collection",
                    e.span,
                    "a collection is not a single value",
                    "a collection here",
                );
                p.help = Some("use it after `in` (`for x in ...`) or in an aggregate such as `count(x in ...)`".into());
                (Expr::Lit(Value::None), Type::Any)
            }
        }
    }

    fn name_expr(&mut self, n: &str, span: ast::Span, idx: &[ast::Expr]) -> (Expr, Type) {
        if idx.is_empty() {
            if let Some(l) = self.lookup_local(n) {
                return (Expr::Local(l.slot), l.ty);
            }
            match n {
                "me" => return (Expr::Me, Type::Player),
                "current" => return (Expr::Current, Type::Player),
                "player_count" => return (Expr::PlayerCount, Type::Int),
                _ => {}
            }
        }
        let Some((g, _)) = self.globals.get(n).copied() else {
            if n == "players" {
                let p = self.error(
                    "check::collection",
                    span,
                    "`players` is a collection",
                    "a collection here",
                );
                p.help = Some(
                    "use `player_count` for the number of players, or `for p in players`".into(),
                );
            } else {
                self.unknown_name(n, span);
            }
            return (Expr::Lit(Value::None), Type::Any);
        };
        self.used.insert(g);
        let (dims, out): (Vec<ir::Dim>, MakeExpr) = match g {
            Global::Const(c) => {
                let t = self.value_type(self.game.consts[c as usize].value);
                (vec![], Box::new(move |_| (Expr::Const(c), t)))
            }
            Global::EnumValue(e, v) => (
                vec![],
                Box::new(move |_| (Expr::Lit(Value::Enum(e, v)), Type::Enum(e))),
            ),
            Global::Space(b, s) => (
                vec![],
                Box::new(move |_| (Expr::Lit(Value::Space(b, s)), Type::Space(b))),
            ),
            Global::Var(v) => {
                let t = self.game.vars[v as usize].ty;
                (
                    self.game.vars[v as usize].dims.clone(),
                    Box::new(move |ix| (Expr::Var(v, ix), t)),
                )
            }
            Global::Zone(z) => {
                let t = self.game.zones[z as usize].ty;
                let ty = if t == super::UNKNOWN_TYPE {
                    Type::Any
                } else {
                    Type::Zone(t)
                };
                (
                    self.game.zones[z as usize].dims.clone(),
                    Box::new(move |ix| (Expr::Zone(z, ix), ty)),
                )
            }
            other => {
                let p = self.error(
                    "check::not_a_value",
                    span,
                    format!("the {} `{n}` is not a value", other.kind()),
                    "used as a value",
                );
                p.help = Some(match other {
                    Global::Enum(_) | Global::Board(_) | Global::Type(_) => {
                        format!("`{n}` is a collection: use it after `in`")
                    }
                    Global::Def(_) => format!("call it: `{n}(...)`"),
                    Global::Action(_) => {
                        format!("offer it in `choose {{ {n} }}` or run it with `do {n}(...)`")
                    }
                    _ => "use a constant, variable, zone or enum value".into(),
                });
                return (Expr::Lit(Value::None), Type::Any);
            }
        };
        if dims.len() != idx.len() {
            let what = if dims.is_empty() {
                "takes no index".to_string()
            } else {
                format!(
                    "is indexed by [{}]",
                    dims.iter()
                        .map(|d| self.dim_name(*d))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            let help = if dims.is_empty() {
                format!("write `{n}` alone")
            } else {
                format!(
                    "write `{n}[{}]`",
                    dims.iter()
                        .map(|d| self.dim_name(*d).to_lowercase())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            let p = self.error(
                "check::arity",
                span,
                format!("`{n}` {what}, but {} index(es) were given", idx.len()),
                "wrong number of indexes",
            );
            p.help = Some(help);
            return (Expr::Lit(Value::None), Type::Any);
        }
        let mut ix = vec![];
        for (d, x) in dims.iter().zip(idx) {
            let (ex, t) = self.expr(x);
            let want = match d {
                ir::Dim::Player => Type::Player,
                ir::Dim::Enum(e) => Type::Enum(*e),
                ir::Dim::Board(b) => Type::Space(*b),
            };
            self.expect_type(t, want, x.span, "this index");
            ix.push(ex);
        }
        out(ix)
    }

    fn dim_name(&self, d: ir::Dim) -> String {
        match d {
            ir::Dim::Player => "Player".into(),
            ir::Dim::Enum(e) => self.game.enums[e as usize].name.clone(),
            ir::Dim::Board(b) => self.game.boards[b as usize].name.clone(),
        }
    }

    fn call(&mut self, f: &ast::Ident, args: &[ast::Expr], span: ast::Span) -> (Expr, Type) {
        let name = f.name.as_str();
        if let Some((Global::Def(d), _)) = self.globals.get(name).copied() {
            self.used.insert(Global::Def(d));
            let want = self.game.defs[d as usize].params as usize;
            if args.len() != want {
                self.error(
                    "check::arity",
                    span,
                    format!("`{name}` takes {want} argument(s), got {}", args.len()),
                    "wrong number of arguments",
                );
            }
            let xs = args.iter().map(|a| self.expr(a).0).collect();
            let ret = self.def_types.get(d as usize).copied().unwrap_or(Type::Any);
            return (Expr::CallDef(d, xs), ret);
        }
        // `named("red-7")`: a component by name, resolved now.
        if name == "named" {
            if let [ast::Expr {
                kind: K::Str(s),
                span: sp,
            }] = args
            {
                let found = (0..self.game.comps.len()).find(|&c| {
                    crate::engine::comp_static_name(&self.game, c as u32).as_deref()
                        == Some(s.as_str())
                });
                return match found {
                    Some(c) => (
                        Expr::Lit(Value::Comp(c as u32)),
                        Type::Comp(self.game.comps[c].ty),
                    ),
                    None => {
                        let p = self.error(
                            "check::unknown_component",
                            *sp,
                            format!("no component is named `{s}`"),
                            "unknown component",
                        );
                        p.help = Some(
                            "component names come from the name templates of `components` tables"
                                .into(),
                        );
                        (Expr::Lit(Value::None), Type::Any)
                    }
                };
            }
            self.error(
                "check::arity",
                span,
                "`named` takes one string",
                "expected `named(\"name\")`",
            );
            return (Expr::Lit(Value::None), Type::Any);
        }
        let (b, arity, ret): (Builtin, usize, Type) = match name {
            "count" => (Builtin::Count, 1, Type::Int),
            "top" => (Builtin::Top, 1, Type::Any),
            "bottom" => (Builtin::Bottom, 1, Type::Any),
            "empty" => (Builtin::Empty, 1, Type::Bool),
            "next" => (Builtin::Next, 1, Type::Player),
            "prev" => (Builtin::Prev, 1, Type::Player),
            "owner" => (Builtin::Owner, 1, Type::Player),
            "space_of" => (Builtin::SpaceOf, 1, Type::Any),
            "zone_of" => (Builtin::ZoneOf, 1, Type::Any),
            "seat" => (Builtin::Seat, 1, Type::Player),
            "abs" => (Builtin::Abs, 1, Type::Int),
            "max" => (Builtin::Max2, 2, Type::Int),
            "min" => (Builtin::Min2, 2, Type::Int),
            "adjacent" | "players" => {
                let p = self.error(
                    "check::collection",
                    span,
                    format!("`{name}(...)` is a collection"),
                    "a collection here",
                );
                p.help = Some("use it after `in`: `for s in adjacent(x)` or `count(s in adjacent(x) where ...)`".into());
                return (Expr::Lit(Value::None), Type::Any);
            }
            _ => {
                if let Some((g, _)) = self.globals.get(name).copied() {
                    let p = self.error(
                        "check::not_callable",
                        f.span,
                        format!("the {} `{name}` cannot be called", g.kind()),
                        "not a function",
                    );
                    if let Global::Action(_) = g {
                        p.help = Some(format!("run an action's effect with `do {name}(...)`"));
                    }
                } else {
                    let p = self.error(
                        "check::unknown_function",
                        f.span,
                        format!("unknown function `{name}`"),
                        "no such function",
                    );
                    p.help = Some("functions: count, top, bottom, empty, next, prev, owner, space_of, zone_of, named, seat, abs, max, min; or a `def`".into());
                }
                return (Expr::Lit(Value::None), Type::Any);
            }
        };
        if args.len() != arity {
            let p = self.error(
                "check::arity",
                span,
                format!("`{name}` takes {arity} argument(s), got {}", args.len()),
                "wrong number of arguments",
            );
            if name == "count" || name == "max" || name == "min" {
                p.help = Some(format!(
                    "to aggregate, bind a name: `{name}(x in collection ...)`"
                ));
            }
            return (Expr::Lit(Value::None), Type::Any);
        }
        let mut xs = vec![];
        let mut ret = ret;
        for a in args {
            let (x, t) = self.expr(a);
            match b {
                Builtin::Count | Builtin::Top | Builtin::Bottom | Builtin::Empty => {
                    if let Type::Zone(ct) = t {
                        if matches!(b, Builtin::Top | Builtin::Bottom) {
                            ret = Type::Comp(ct);
                        }
                    } else if t != Type::Any {
                        let p = self.error(
                            "check::type",
                            a.span,
                            format!("`{name}` takes a zone, not {}", self.type_name(t)),
                            "not a zone",
                        );
                        p.help = Some(
                            "for other collections bind a name: `count(x in C where ...)`".into(),
                        );
                    }
                }
                Builtin::Next | Builtin::Prev => {
                    self.expect_type(t, Type::Player, a.span, "the argument")
                }
                Builtin::Owner | Builtin::SpaceOf | Builtin::ZoneOf => {
                    if !matches!(t, Type::Comp(_) | Type::Any) {
                        self.error(
                            "check::type",
                            a.span,
                            format!("`{name}` takes a component, not {}", self.type_name(t)),
                            "not a component",
                        );
                    }
                    if let (Builtin::ZoneOf, Type::Comp(ct)) = (b, t) {
                        ret = Type::Zone(ct);
                    }
                    if let (Builtin::SpaceOf, Type::Comp(ct)) = (b, t) {
                        let boards: Vec<u16> = self
                            .game
                            .zones
                            .iter()
                            .filter(|z| z.ty == ct)
                            .flat_map(|z| {
                                z.dims.iter().filter_map(|d| {
                                    if let ir::Dim::Board(b) = d {
                                        Some(*b)
                                    } else {
                                        None
                                    }
                                })
                            })
                            .collect();
                        if let Some(first) = boards.first() {
                            if boards.iter().all(|x| x == first) {
                                ret = Type::Space(*first);
                            }
                        }
                    }
                }
                _ => self.expect_type(t, Type::Int, a.span, "the argument"),
            }
            xs.push(x);
        }
        (Expr::Builtin(b, xs, span), ret)
    }

    #[allow(clippy::too_many_arguments)]
    fn aggregate(
        &mut self,
        func: &ast::Ident,
        bindings: &[ast::Binding],
        args: &[ast::Expr],
        filter: Option<&ast::Expr>,
        body: Option<&ast::Expr>,
        otherwise: Option<&ast::Expr>,
        span: ast::Span,
    ) -> (Expr, Type) {
        let kind = match func.name.as_str() {
            "count" => AggKind::Count,
            "sum" => AggKind::Sum,
            "max" => AggKind::Max,
            "min" => AggKind::Min,
            "any" => AggKind::Any,
            "all" => AggKind::All,
            "first" => AggKind::First,
            "line" => AggKind::Line,
            "best_sets" => {
                if let Some(x) = body.or(otherwise) {
                    let p = self.error(
                        "check::arity",
                        x.span,
                        "`best_sets` takes no `:` value or `else`",
                        "not allowed here",
                    );
                    p.help = Some("the points come from the `set` declarations".into());
                }
                return self.best_sets(bindings, args, filter, span);
            }
            other => {
                let p = self.error(
                    "check::unknown_function",
                    func.span,
                    format!("unknown aggregate `{other}`"),
                    "not an aggregate",
                );
                p.help = Some("aggregates: count, sum, max, min, any, all, first, line".into());
                return (Expr::Lit(Value::None), Type::Any);
            }
        };
        let depth = self.scopes.len();
        let binds = self.bind_all(bindings);
        let args2: Vec<Expr> = args
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let (x, t) = self.expr(a);
                if kind == AggKind::Line && i == 1 {
                    if !matches!(t, Type::Space(_) | Type::Any) {
                        self.error("check::type", a.span, "the third argument of `line` is the space every line must pass through", "not a space");
                    }
                } else {
                    self.expect_type(t, Type::Int, a.span, "this argument");
                }
                x
            })
            .collect();
        if kind == AggKind::Line {
            let ok = binds.len() == 1
                && matches!(binds[0].coll, Coll::Board(_))
                && (args2.len() == 1 || args2.len() == 2);
            if !ok {
                let p = self.error(
                    "check::arity",
                    span,
                    "`line` takes a board and a length",
                    "expected `line(s in board, n where cond)`",
                );
                p.help = Some("for example `line(s in grid, 3 where mark[s] == me)`".into());
            }
        } else if !args2.is_empty() {
            self.error(
                "check::arity",
                args[0].span,
                format!("`{}` takes no extra arguments", func.name),
                "unexpected argument",
            );
        }
        let filter2 = filter.map(|f| {
            let (x, t) = self.expr(f);
            self.expect_type(t, Type::Bool, f.span, "a `where` condition");
            x
        });
        let elem_ty = binds.first().map_or(Type::Any, |b| b.ty);
        let (body2, body_ty) = match body {
            Some(b) => {
                let (x, t) = self.expr(b);
                (Some(x), t)
            }
            None => (None, elem_ty),
        };
        let ret = match kind {
            AggKind::Count | AggKind::BestSets => Type::Int,
            AggKind::Sum | AggKind::Max | AggKind::Min => {
                if let Some(b) = body {
                    self.expect_type(
                        body_ty,
                        Type::Int,
                        b.span,
                        &format!("the value of `{}`", func.name),
                    );
                } else if binds.len() == 1 && elem_ty != Type::Int && elem_ty != Type::Any {
                    let p = self.error(
                        "check::type",
                        span,
                        format!("`{}` needs numbers", func.name),
                        "the elements are not numbers",
                    );
                    p.help = Some(format!(
                        "say what to add up: `{}(x in C: x.points)`",
                        func.name
                    ));
                }
                Type::Int
            }
            AggKind::Any | AggKind::All | AggKind::Line => {
                if let Some(b) = body {
                    self.expect_type(body_ty, Type::Bool, b.span, "the condition");
                }
                Type::Bool
            }
            AggKind::First => body_ty,
        };
        let otherwise2 = otherwise.map(|o| self.expr(o).0);
        self.scopes.truncate(depth);
        (
            Expr::Agg(
                Box::new(ir::Agg {
                    kind,
                    sets: vec![],
                    binds,
                    args: args2,
                    filter: filter2,
                    body: body2,
                    otherwise: otherwise2,
                }),
                span,
            ),
            ret,
        )
    }

    fn best_sets(
        &mut self,
        bindings: &[ast::Binding],
        args: &[ast::Expr],
        filter: Option<&ast::Expr>,
        span: ast::Span,
    ) -> (Expr, Type) {
        if bindings.len() != 1 || args.is_empty() {
            let p = self.error(
                "check::arity",
                span,
                "`best_sets` takes a collection and set kinds",
                "expected `best_sets(c in cards, kind1, kind2)`",
            );
            p.help = Some(
                "declare set kinds with `set pair(a: Card, b: Card) where ... = points`".into(),
            );
            return (Expr::Lit(Value::None), Type::Any);
        }
        let depth = self.scopes.len();
        let (coll, ty) = self.coll(&bindings[0].coll);
        let slot = self.bind_local(&bindings[0].var.name, ty);
        let mut sets = vec![];
        for a in args {
            match &a.kind {
                K::Name(n) => match self.globals.get(n).copied() {
                    Some((Global::Set(s), _)) => {
                        self.used.insert(Global::Set(s));
                        sets.push(s);
                    }
                    _ => {
                        let p = self.error(
                            "check::unknown_set",
                            a.span,
                            format!("`{n}` is not a set kind"),
                            "expected a `set` name",
                        );
                        p.help = Some(
                            "declare it: `set name(a: Card, b: Card) where ... = points`".into(),
                        );
                    }
                },
                _ => {
                    self.error(
                        "check::unknown_set",
                        a.span,
                        "expected the name of a set kind",
                        "not a name",
                    );
                }
            }
        }
        let filter2 = filter.map(|f| {
            let (x, t) = self.expr(f);
            self.expect_type(t, Type::Bool, f.span, "a `where` condition");
            x
        });
        self.scopes.truncate(depth);
        let bind = ir::Bind {
            name: bindings[0].var.name.clone(),
            slot,
            coll,
            ty,
            span: bindings[0].coll.span,
        };
        (
            Expr::Agg(
                Box::new(ir::Agg {
                    kind: AggKind::BestSets,
                    sets,
                    binds: vec![bind],
                    args: vec![],
                    filter: filter2,
                    body: None,
                    otherwise: None,
                }),
                span,
            ),
            Type::Int,
        )
    }

    /// Lowers `x in C, y in D, ...`, bringing each name into scope in turn.
    pub(crate) fn bind_all(&mut self, bindings: &[ast::Binding]) -> Vec<ir::Bind> {
        bindings
            .iter()
            .map(|b| {
                let (coll, ty) = self.coll(&b.coll);
                let slot = self.bind_local(&b.var.name, ty);
                ir::Bind {
                    name: b.var.name.clone(),
                    slot,
                    coll,
                    ty,
                    span: b.coll.span,
                }
            })
            .collect()
    }

    /// Lowers a collection and returns the type of its elements.
    pub(crate) fn coll(&mut self, e: &ast::Expr) -> (Coll, Type) {
        match &e.kind {
            K::Range(a, b) => {
                let (x, ta) = self.expr(a);
                let (y, tb) = self.expr(b);
                self.expect_type(ta, Type::Int, a.span, "a range's start");
                self.expect_type(tb, Type::Int, b.span, "a range's end");
                (Coll::Range(x, y), Type::Int)
            }
            K::List(items) => {
                let mut t = Type::Any;
                let xs = items
                    .iter()
                    .map(|i| {
                        let (x, ti) = self.expr(i);
                        if t == Type::Any {
                            t = ti;
                        } else {
                            self.expect_type(ti, t, i.span, "every element of a list");
                        }
                        x
                    })
                    .collect();
                (Coll::List(xs), t)
            }
            K::Name(n) if self.lookup_local(n).is_none() => {
                if n == "players" {
                    return (Coll::Players, Type::Player);
                }
                match self.globals.get(n).copied() {
                    Some((Global::Enum(en), _)) => {
                        self.used.insert(Global::Enum(en));
                        (Coll::Enum(en), Type::Enum(en))
                    }
                    Some((Global::Board(b), _)) => {
                        self.used.insert(Global::Board(b));
                        (Coll::Board(b), Type::Space(b))
                    }
                    Some((Global::Type(t), _)) => (Coll::Type(t), Type::Comp(t)),
                    _ => self.zone_coll(e),
                }
            }
            K::Aggregate {
                func,
                bindings,
                args,
                filter,
                body: None,
                otherwise: None,
            } if func.name == "paths" || func.name == "group" => {
                let want = if func.name == "paths" { 2 } else { 1 };
                let board = bindings.first().and_then(|b| match &b.coll.kind {
                    K::Name(n) => match self.globals.get(n).copied() {
                        Some((Global::Board(bi), _)) => Some(bi),
                        _ => None,
                    },
                    _ => None,
                });
                let (Some(board), 1) = (board, bindings.len()) else {
                    let p = self.error(
                        "check::arity",
                        e.span,
                        format!("`{}` needs one name bound to a board", func.name),
                        "expected `s in board`",
                    );
                    p.help = Some(if want == 2 {
                        "`paths(s in grid, from, 3 where empty(cell[s]))`".into()
                    } else {
                        "`group(s in grid, start where colour[s] == red)`".into()
                    });
                    return (Coll::List(vec![]), Type::Any);
                };
                if args.len() != want {
                    let p = self.error(
                        "check::arity",
                        e.span,
                        format!(
                            "`{}` takes {} value(s) after the board binding, got {}",
                            func.name,
                            want,
                            args.len()
                        ),
                        "wrong number of arguments",
                    );
                    p.help = Some(if want == 2 {
                        "give the start space and the number of steps".into()
                    } else {
                        "give the start space".into()
                    });
                    return (Coll::List(vec![]), Type::Any);
                }
                let depth = self.scopes.len();
                let slot = self.bind_local(&bindings[0].var.name, Type::Space(board));
                self.used.insert(Global::Board(board));
                let (from, tf) = self.expr(&args[0]);
                self.expect_type(tf, Type::Space(board), args[0].span, "the start");
                let cond = filter.as_ref().map(|f| {
                    let (x, t) = self.expr(f);
                    self.expect_type(t, Type::Bool, f.span, "a `where` condition");
                    x
                });
                let c = if want == 2 {
                    let (n, tn) = self.expr(&args[1]);
                    self.expect_type(tn, Type::Int, args[1].span, "the number of steps");
                    Coll::Paths {
                        board,
                        slot,
                        from,
                        steps: n,
                        cond,
                    }
                } else {
                    Coll::Group {
                        board,
                        slot,
                        start: from,
                        cond,
                    }
                };
                self.scopes.truncate(depth);
                (c, Type::Space(board))
            }
            K::Call(f, args) if f.name == "adjacent" => {
                if args.len() != 1 {
                    self.error(
                        "check::arity",
                        e.span,
                        "`adjacent` takes one space",
                        "expected `adjacent(space)`",
                    );
                    return (Coll::List(vec![]), Type::Any);
                }
                let (x, t) = self.expr(&args[0]);
                if !matches!(t, Type::Space(_) | Type::Any) {
                    let p = self.error(
                        "check::type",
                        args[0].span,
                        format!("`adjacent` takes a space, not {}", self.type_name(t)),
                        "not a space",
                    );
                    p.help = Some(
                        "spaces come from a board: `for s in grid`, or `space_of(piece)`".into(),
                    );
                }
                (Coll::Adjacent(x), t)
            }
            _ => self.zone_coll(e),
        }
    }

    fn zone_coll(&mut self, e: &ast::Expr) -> (Coll, Type) {
        let (x, t) = self.expr(e);
        match t {
            Type::Zone(ct) => (Coll::Zone(x), Type::Comp(ct)),
            Type::Any => (Coll::Zone(x), Type::Any),
            other => {
                let p = self.error(
                    "check::collection",
                    e.span,
                    format!("cannot take elements from {}", self.type_name(other)),
                    "not a collection",
                );
                p.help = Some("collections are zones, boards, enums, component types, `players`, ranges `a..b`, lists `[a, b]` and `adjacent(space)`".into());
                (Coll::List(vec![]), Type::Any)
            }
        }
    }

    // ------------------------------------------------------------ statements

    pub(crate) fn block(&mut self, b: &ast::Block, code: &mut Vec<Instr>, loops: &mut Loops) {
        let depth = self.scopes.len();
        for s in &b.stmts {
            self.stmt(s, code, loops);
        }
        self.scopes.truncate(depth);
    }

    fn here(code: &[Instr]) -> u32 {
        code.len() as u32
    }

    fn patch(code: &mut [Instr], at: usize, to: u32) {
        match &mut code[at] {
            Instr::Jump(t) => *t = to,
            Instr::JumpIfNot(_, t, _) => *t = to,
            Instr::ForNext { exit, .. } => *exit = to,
            _ => {}
        }
    }

    fn stmt(&mut self, s: &ast::Stmt, code: &mut Vec<Instr>, loops: &mut Loops) {
        match &s.kind {
            S::Let { name, value } => {
                let (x, t) = self.expr(value);
                let slot = self.bind_local(&name.name, t);
                code.push(Instr::Let(slot, x));
            }
            S::Assign { target, op, value } => {
                let (lv, tt) = self.lvalue(target);
                let (x, t) = self.expr(value);
                if *op != ast::AssignOp::Set {
                    self.expect_type(tt, Type::Int, target.span, "the target of `+=`/`-=`");
                    self.expect_type(t, Type::Int, value.span, "the amount");
                } else {
                    self.expect_type(t, tt, value.span, "the assigned value");
                }
                code.push(Instr::Assign {
                    target: lv,
                    op: *op,
                    value: x,
                    span: s.span,
                });
            }
            S::If {
                cond,
                then,
                otherwise,
            } => {
                let (c, t) = self.expr(cond);
                self.expect_type(t, Type::Bool, cond.span, "the condition of `if`");
                let jf = code.len();
                code.push(Instr::JumpIfNot(c, 0, cond.span));
                self.block(then, code, loops);
                if let Some(o) = otherwise {
                    let je = code.len();
                    code.push(Instr::Jump(0));
                    let here = Self::here(code);
                    Self::patch(code, jf, here);
                    self.block(o, code, loops);
                    let here = Self::here(code);
                    Self::patch(code, je, here);
                } else {
                    let here = Self::here(code);
                    Self::patch(code, jf, here);
                }
            }
            S::For { binding, body } => {
                let depth = self.scopes.len();
                let (coll, ty) = self.coll(&binding.coll);
                let slot = self.alloc_local(3);
                let var = self.bind_local(&binding.var.name, ty);
                code.push(Instr::ForInit { coll, slot });
                let top = Self::here(code);
                let next = code.len();
                code.push(Instr::ForNext { slot, var, exit: 0 });
                loops.push(vec![]);
                self.block(body, code, loops);
                code.push(Instr::LoopGuard { span: s.span });
                code.push(Instr::Jump(top));
                let done = Self::here(code);
                Self::patch(code, next, done);
                for b in loops.pop().unwrap_or_default() {
                    Self::patch(code, b, done);
                }
                code.push(Instr::ForDone { slot });
                self.scopes.truncate(depth);
            }
            S::Repeat { count, body } => {
                let counter = count.as_ref().map(|c| {
                    let (x, t) = self.expr(c);
                    self.expect_type(t, Type::Int, c.span, "a repeat count");
                    let slot = self.alloc_local(1);
                    code.push(Instr::Let(slot, x));
                    slot
                });
                let top = Self::here(code);
                let test = counter.map(|slot| {
                    let at = code.len();
                    let cond = Expr::Bin(
                        ast::BinOp::Gt,
                        Box::new(Expr::Local(slot)),
                        Box::new(Expr::Lit(Value::Int(0))),
                        s.span,
                    );
                    code.push(Instr::JumpIfNot(cond, 0, s.span));
                    code.push(Instr::Assign {
                        target: LValue::Local(slot),
                        op: ast::AssignOp::Sub,
                        value: Expr::Lit(Value::Int(1)),
                        span: s.span,
                    });
                    at
                });
                loops.push(vec![]);
                self.block(body, code, loops);
                code.push(Instr::LoopGuard { span: s.span });
                code.push(Instr::Jump(top));
                let done = Self::here(code);
                if let Some(at) = test {
                    Self::patch(code, at, done);
                }
                let breaks = loops.pop().unwrap_or_default();
                // A `repeat` with no count and no `break` runs until something ends the game;
                // the checker reports it unless an `end`, `win` or `end when` exists.
                if count.is_none() && breaks.is_empty() {
                    self.unbounded_loop.get_or_insert(s.span);
                }
                for b in breaks {
                    Self::patch(code, b, done);
                }
            }
            S::While { cond, body } => {
                let top = Self::here(code);
                let (c, t) = self.expr(cond);
                self.expect_type(t, Type::Bool, cond.span, "the condition of `while`");
                let jf = code.len();
                code.push(Instr::JumpIfNot(c, 0, cond.span));
                loops.push(vec![]);
                self.block(body, code, loops);
                code.push(Instr::LoopGuard { span: s.span });
                code.push(Instr::Jump(top));
                let done = Self::here(code);
                Self::patch(code, jf, done);
                for b in loops.pop().unwrap_or_default() {
                    Self::patch(code, b, done);
                }
            }
            S::Break => match loops.last_mut() {
                Some(l) => {
                    l.push(code.len());
                    code.push(Instr::Jump(0));
                }
                None => {
                    self.error(
                        "check::break",
                        s.span,
                        "`break` outside a loop",
                        "nothing to leave",
                    );
                }
            },
            S::Turn { player, body } => {
                let (p, t) = self.expr(player);
                self.expect_type(t, Type::Player, player.span, "the player of a turn");
                let save = self.alloc_local(1);
                code.push(Instr::TurnStart {
                    player: p,
                    save,
                    span: s.span,
                });
                self.block(body, code, loops);
                code.push(Instr::TurnEnd { save });
            }
            S::Choose {
                by,
                each,
                arms,
                otherwise,
            } => {
                let depth = self.scopes.len();
                let each2 = each.as_ref().map(|b| {
                    let (coll, ty) = self.coll(&b.coll);
                    self.expect_type(
                        ty,
                        Type::Player,
                        b.coll.span,
                        "the players of `choose each`",
                    );
                    let slot = self.bind_local(&b.var.name, Type::Player);
                    let iter = self.alloc_local(2);
                    (
                        ir::Bind {
                            name: b.var.name.clone(),
                            slot,
                            coll,
                            ty: Type::Player,
                            span: b.coll.span,
                        },
                        iter,
                    )
                });
                if each2.is_some() && by.is_some() {
                    self.error(
                        "check::choose",
                        s.span,
                        "a choice cannot have both `by` and `each`",
                        "choose one",
                    );
                }
                self.choose(s, by.as_ref(), each2, arms, otherwise.as_ref(), code, loops);
                self.scopes.truncate(depth);
            }
            S::Move { what, to, bottom } => {
                let (w, tw) = self.expr(what);
                let (z, tz) = self.expr(to);
                self.check_zone_dest(&z, tz, Some(tw), to.span);
                if !matches!(tw, Type::Comp(_) | Type::Any) {
                    let p = self.error(
                        "check::type",
                        what.span,
                        format!("only components move, not {}", self.type_name(tw)),
                        "not a component",
                    );
                    p.help = Some("to move several, use `deal n from zone to zone`".into());
                }
                code.push(Instr::Move {
                    what: w,
                    to: z,
                    bottom: *bottom,
                    span: s.span,
                });
            }
            S::Deal {
                count,
                from,
                to,
                bottom,
            } => {
                let n = count.as_ref().map(|c| {
                    let (x, t) = self.expr(c);
                    self.expect_type(t, Type::Int, c.span, "the number of components to deal");
                    x
                });
                let (f, tf) = self.expr(from);
                if !matches!(tf, Type::Zone(_) | Type::Any) {
                    self.error(
                        "check::type",
                        from.span,
                        format!("deal takes from a zone, not {}", self.type_name(tf)),
                        "not a zone",
                    );
                }
                let (z, tz) = self.expr(to);
                let elem = if let Type::Zone(c) = tf {
                    Some(Type::Comp(c))
                } else {
                    None
                };
                self.check_zone_dest(&z, tz, elem, to.span);
                code.push(Instr::Deal {
                    count: n,
                    from: f,
                    to: z,
                    bottom: *bottom,
                    span: s.span,
                });
            }
            S::Shuffle(z) => {
                let (x, t) = self.expr(z);
                if !matches!(t, Type::Zone(_) | Type::Any) {
                    self.error(
                        "check::type",
                        z.span,
                        format!("only zones can be shuffled, not {}", self.type_name(t)),
                        "not a zone",
                    );
                }
                code.push(Instr::Shuffle {
                    zone: x,
                    span: s.span,
                });
            }
            S::Roll { target, domain } => {
                let (lv, tt) = self.lvalue(target);
                let coll = match domain {
                    Some(d) => {
                        let (c, t) = self.coll(d);
                        self.expect_type(t, tt, d.span, "the rolled value");
                        c
                    }
                    None => match self.roll_domain(&lv, tt) {
                        Some(c) => c,
                        None => {
                            let p = self.error(
                                "check::roll",
                                target.span,
                                "cannot tell which values this roll can take",
                                "no domain",
                            );
                            p.help = Some("say it: `roll x in 1..6`, or roll a field whose type is an enum or a range".into());
                            Coll::List(vec![])
                        }
                    },
                };
                code.push(Instr::Roll {
                    target: lv,
                    domain: coll,
                    span: s.span,
                });
            }
            S::Do { action, args } => {
                let Some((Global::Action(a), _)) = self.globals.get(&action.name).copied() else {
                    let p = self.error(
                        "check::unknown_action",
                        action.span,
                        format!("unknown action `{}`", action.name),
                        "not an action",
                    );
                    p.help = Some("declare it with `action name(...) { ... }`".into());
                    return;
                };
                self.action_refs.insert(a);
                let want = self.action_arity.get(&a).copied().unwrap_or(0);
                if want != args.len() {
                    self.error(
                        "check::arity",
                        s.span,
                        format!(
                            "`{}` takes {want} argument(s), got {}",
                            action.name,
                            args.len()
                        ),
                        "wrong number of arguments",
                    );
                }
                let xs = args.iter().map(|a| self.expr(a).0).collect();
                code.push(Instr::Do {
                    action: a,
                    args: xs,
                    span: s.span,
                });
            }
            S::Reveal(target, on) => {
                let (x, _) = self.expr(target);
                match x {
                    Expr::Field(comp, field) => code.push(Instr::Reveal {
                        comp: *comp,
                        field,
                        on: *on,
                        span: s.span,
                    }),
                    Expr::Lit(Value::None) => {}
                    _ => {
                        let p = self.error(
                            "check::reveal",
                            target.span,
                            "only a component's field can be revealed or hidden",
                            "not a field",
                        );
                        p.help = Some(
                            "write `reveal piece.element` for a field declared `seen by owner`"
                                .into(),
                        );
                    }
                }
            }
            S::End(k) => {
                self.ends = true;
                code.push(Instr::End(*k));
            }
            S::Win(who) => {
                self.ends = true;
                let (x, t) = if matches!(&who.kind, K::Name(n) if n == "all") {
                    (Expr::Lit(Value::None), Type::Player)
                } else {
                    self.expr(who)
                };
                self.expect_type(t, Type::Player, who.span, "the winner");
                code.push(Instr::Win {
                    who: x,
                    span: s.span,
                });
            }
        }
    }

    fn roll_domain(&self, lv: &LValue, t: Type) -> Option<Coll> {
        let range = match lv {
            LValue::Var { var, .. } => self.game.vars[*var as usize].range,
            LValue::Field {
                comp: Expr::Field(..),
                ..
            } => None,
            LValue::Field { field, comp } => {
                let _ = comp;
                self.game.types.iter().find_map(|ty| {
                    ty.fields
                        .get(*field as usize)
                        .filter(|f| f.ty == t)
                        .and_then(|f| f.range)
                })
            }
            LValue::Local(_) => None,
        };
        if let Some((lo, hi)) = range {
            return Some(Coll::Range(
                Expr::Lit(Value::Int(lo)),
                Expr::Lit(Value::Int(hi)),
            ));
        }
        match t {
            Type::Enum(e) => Some(Coll::Enum(e)),
            Type::Player => Some(Coll::Players),
            Type::Space(b) => Some(Coll::Board(b)),
            _ => None,
        }
    }

    fn check_zone_dest(&mut self, z: &Expr, tz: Type, elem: Option<Type>, span: ast::Span) {
        match tz {
            Type::Zone(ct) => {
                if let Some(Type::Comp(c)) = elem {
                    if c != ct {
                        let p = self.error(
                            "check::type",
                            span,
                            format!(
                                "this zone holds {}, not {}",
                                self.game.types[ct as usize].name, self.game.types[c as usize].name
                            ),
                            "wrong kind of zone",
                        );
                        p.help =
                            Some("a zone holds components of the type it was declared with".into());
                    }
                }
            }
            Type::Any => {}
            other => {
                self.error(
                    "check::type",
                    span,
                    format!(
                        "the destination must be a zone, not {}",
                        self.type_name(other)
                    ),
                    "not a zone",
                );
            }
        }
        if let Expr::Zone(zi, _) = z {
            let zd = &self.game.zones[*zi as usize];
            for i in zd.base..zd.base + zd.count {
                self.filled_zones.insert(i);
            }
        }
    }

    fn lvalue(&mut self, e: &ast::Expr) -> (LValue, Type) {
        match &e.kind {
            K::Name(n) if self.lookup_local(n).is_some() => {
                let l = self.lookup_local(n).expect("checked");
                (LValue::Local(l.slot), l.ty)
            }
            K::Name(_) | K::Index(..) => {
                let (x, t) = self.expr(e);
                match x {
                    Expr::Var(v, ix) => (LValue::Var { var: v, index: ix }, t),
                    Expr::Lit(Value::None) => (LValue::Local(0), Type::Any),
                    _ => {
                        let p = self.error(
                            "check::assign",
                            e.span,
                            "cannot assign to this",
                            "not a variable",
                        );
                        p.help = Some("assign to a `var`, a component field or a `let` name; zones change with `move` and `deal`".into());
                        (LValue::Local(0), Type::Any)
                    }
                }
            }
            K::Field(..) => {
                let (x, t) = self.expr(e);
                match x {
                    Expr::Field(c, f) => (LValue::Field { comp: *c, field: f }, t),
                    _ => {
                        self.error(
                            "check::assign",
                            e.span,
                            "cannot assign to this",
                            "not a field",
                        );
                        (LValue::Local(0), Type::Any)
                    }
                }
            }
            _ => {
                let p = self.error(
                    "check::assign",
                    e.span,
                    "cannot assign to this",
                    "not a variable",
                );
                p.help =
                    Some("the left side of `=` must be a variable, a field or a `let` name".into());
                (LValue::Local(0), Type::Any)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn choose(
        &mut self,
        s: &ast::Stmt,
        by: Option<&ast::Expr>,
        each: Option<(ir::Bind, u16)>,
        arms: &ast::ChooseArms,
        otherwise: Option<&ast::Block>,
        code: &mut Vec<Instr>,
        loops: &mut Loops,
    ) {
        let simultaneous = each.is_some();
        let by2 = by.map(|b| {
            let (x, t) = self.expr(b);
            self.expect_type(t, Type::Player, b.span, "the chooser");
            x
        });
        let cid = self.game.choices.len() as u32;
        self.game.choices.push(ir::Choice {
            by: by2,
            each,
            arms: vec![],
            else_pc: None,
            end_pc: 0,
            span: s.span,
        });
        code.push(Instr::Choose(cid));
        // In a simultaneous choice every chosen option returns to `SimNext`, which runs the
        // next seat's choice, and leaves when all are done.
        let sim_pc = Self::here(code);
        if simultaneous {
            code.push(Instr::SimNext(cid));
        }
        let mut ends = vec![];
        let mut out_arms = vec![];
        match arms {
            ast::ChooseArms::Arms(list) => {
                if list.is_empty() {
                    self.error(
                        "check::choose",
                        s.span,
                        "a choice with no options",
                        "nothing to choose",
                    );
                }
                for a in list {
                    match &a.body {
                        None => match self.globals.get(&a.name.name).copied() {
                            Some((Global::Action(ai), _)) => {
                                self.action_refs.insert(ai);
                                self.game.actions[ai as usize].offered = true;
                                out_arms.push(ir::Arm::Action(ai));
                            }
                            _ => {
                                let p = self.error(
                                    "check::unknown_action",
                                    a.name.span,
                                    format!("unknown action `{}`", a.name.name),
                                    "not an action",
                                );
                                p.help = Some(format!("declare `action {}(...) {{ ... }}`, or give an inline option a body: `{} {{ }}`", a.name.name, a.name.name));
                            }
                        },
                        Some(body) => {
                            let pc = Self::here(code);
                            self.block(body, code, loops);
                            ends.push(code.len());
                            code.push(Instr::Jump(0));
                            out_arms.push(ir::Arm::Inline {
                                label: Some(a.name.name.clone()),
                                binds: vec![],
                                guard: None,
                                guard_span: None,
                                guard_parts: vec![],
                                body_pc: pc,
                            });
                        }
                    }
                }
            }
            ast::ChooseArms::Value {
                bindings,
                guard,
                body,
            } => {
                if bindings.len() > ir::MAX_ARGS {
                    self.error(
                        "check::arity",
                        s.span,
                        format!("a choice binds at most {} names", ir::MAX_ARGS),
                        "too many names",
                    );
                }
                let depth = self.scopes.len();
                let binds = self.bind_all(bindings);
                let g = guard.as_ref().map(|g| {
                    let (x, t) = self.expr(g);
                    self.expect_type(t, Type::Bool, g.span, "a `where` condition");
                    x
                });
                let slots: Vec<u16> = binds.iter().map(|b| b.slot).collect();
                let parts = self.guard_parts(guard.as_ref(), &slots);
                let pc = Self::here(code);
                self.block(body, code, loops);
                self.scopes.truncate(depth);
                ends.push(code.len());
                code.push(Instr::Jump(0));
                out_arms.push(ir::Arm::Inline {
                    label: None,
                    binds,
                    guard_parts: parts,
                    guard: g,
                    guard_span: guard.as_ref().map(|g| g.span),
                    body_pc: pc,
                });
            }
        }
        let else_pc = otherwise.map(|o| {
            let pc = Self::here(code);
            self.block(o, code, loops);
            pc
        });
        let end = Self::here(code);
        for e in ends {
            Self::patch(code, e, if simultaneous { sim_pc } else { end });
        }
        let c = &mut self.game.choices[cid as usize];
        c.arms = out_arms;
        c.else_pc = else_pc;
        c.end_pc = end;
    }
}

/// Levenshtein distance, for "did you mean" hints.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            cur.push(
                (prev[j] + usize::from(ca != *cb))
                    .min(prev[j + 1] + 1)
                    .min(cur[j] + 1),
            );
        }
        prev = cur;
    }
    prev[b.len()]
}
