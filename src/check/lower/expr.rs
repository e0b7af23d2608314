//! Lowering of expressions to the IR, with their types.

use super::{Checker, Global, MakeExpr};
use crate::check::names::Target;
use crate::check::{Code, UNKNOWN_TYPE};
use crate::ir::{self, Expr, Type, Value};
use crate::syntax::ast::{self, ExprKind as K};

impl Checker {
    pub(crate) fn unknown_name(&mut self, name: &str, span: ast::Span) {
        if let Some(list) = self.ambiguous_values.get(name).cloned() {
            let names: Vec<String> = list
                .iter()
                .map(|e| format!("{}.{name}", self.game.enums[*e].name))
                .collect();
            let p = self.error(
                Code::Ambiguous,
                span,
                format!("`{name}` is a value of several enums"),
                "ambiguous value",
            );
            p.help = Some(format!("write it with its enum: {}", names.join(" or ")));
            return;
        }
        // "Did you mean" compares the name with every name in scope: only for the first
        // problems of a file, so that a file of many unknown names stays linear.
        let best = if self.reporting() && self.hints < HINTS {
            self.hints += 1;
            let mut candidates: Vec<&str> = self.globals.keys().map(|s| s.as_str()).collect();
            candidates.extend(self.scopes.iter().map(|l| l.name.as_str()));
            candidates.extend(["me", "current", "players", "player_count"]);
            candidates.sort_unstable(); // the same hint whatever the order of the hash map
            candidates
                .iter()
                .filter_map(|c| near(c, name).map(|d| (d, *c)))
                .min()
                .map(|(_, c)| c.to_string())
        } else {
            None
        };
        let p = self.error(
            Code::UnknownName,
            span,
            format!("unknown name `{name}`"),
            "not defined anywhere",
        );
        p.help = Some(match best {
            Some(b) => format!("did you mean `{b}`?"),
            None => "declare it first: a `var`, `zone`, `const`, `enum` value, or a `let`".into(),
        });
    }

    /// The value of the one enum that has a value named `n`, if exactly one has.
    pub(crate) fn enum_value_named(&self, n: &str) -> Option<(ir::EnumId, u16)> {
        let mut found = self.game.enums.ids().filter_map(|e| {
            let d = &self.game.enums[e];
            d.values.iter().position(|v| v == n).map(|v| (e, v as u16))
        });
        let first = found.next()?;
        found.next().is_none().then_some(first)
    }

    /// Lowers an expression and returns its type.
    pub(crate) fn expr(&mut self, e: &ast::Expr) -> (Expr, Type) {
        match &e.kind {
            K::Int(n) => (Expr::Lit(Value::Int(*n)), Type::Int),
            K::Bool(b) => (Expr::Lit(Value::Bool(*b)), Type::Bool),
            K::After { action, args, body } => self.after(action, args, body, e.span),
            K::None => (Expr::Lit(Value::None), Type::Any),
            K::Str(_) => {
                let p = self.error(
                    Code::Type,
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
                        Code::Index,
                        e.span,
                        "only zones and variables can be indexed",
                        "cannot index this",
                    );
                    (Expr::Lit(Value::None), Type::Any)
                }
            },
            K::Field(base, f) => self.field_expr(base, f),
            K::Call(f, args) => self.call(f, args, e.span),
            K::Aggregate {
                func,
                bindings,
                args,
                filter,
                until,
                body,
                otherwise,
            } => {
                if *until {
                    let p = self.error(
                        Code::Arity,
                        e.span,
                        format!("`until` belongs to `ray`, not to `{}`", func.name),
                        "`until` here",
                    );
                    p.help = Some("filter the elements with `where`".into());
                }
                self.aggregate(
                    func,
                    bindings,
                    args,
                    filter.as_deref(),
                    body.as_deref(),
                    otherwise.as_deref(),
                    e.span,
                )
            }
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
            K::Binary(op, a, b) => self.binary_expr(e, op, a, b),
            K::If(c, a, b) => self.if_expr(e, c, a, b),
            K::List(_) | K::Range(..) => {
                let p = self.error(
                    Code::Collection,
                    e.span,
                    "a collection is not a single value",
                    "a collection here",
                );
                p.help = Some("use it after `in` (`for x in ...`) or in an aggregate such as `count(x in ...)`".into());
                (Expr::Lit(Value::None), Type::Any)
            }
        }
    }

    /// `base.f`: a value of an enum (`Enum.value`), or a field of a component, found in the
    /// component's type or, when the type is unknown, in the only type that has the field.
    fn field_expr(&mut self, base: &ast::Expr, f: &ast::Ident) -> (Expr, Type) {
        // Enum.value
        if let K::Name(n) = &base.kind {
            if self.lookup_local(n).is_none() {
                if let Some((Global::Enum(ei), _)) = self.globals.get(n).copied() {
                    self.used.insert(Global::Enum(ei));
                    self.note_use(base.span, Target::Global(Global::Enum(ei)));
                    return match self.game.enums[ei].values.iter().position(|v| *v == f.name) {
                        Some(vi) => {
                            let value = Global::EnumValue(ei, vi as u16);
                            self.note_use(f.span, Target::Global(value));
                            (Expr::Lit(Value::Enum(ei, vi as u16)), Type::Enum(ei))
                        }
                        None => {
                            let values = self.game.enums[ei].values.join(", ");
                            let p = self.error(
                                Code::UnknownName,
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
            Type::Comp(ct) => match self.game.types[ct]
                .fields
                .iter()
                .position(|x| x.name == f.name)
            {
                Some(fi) => {
                    self.note_use(f.span, Target::Field(ct, fi as u16));
                    let ft = self.game.types[ct].fields[fi].ty;
                    self.field_owner = Some(ct);
                    (Expr::Field(Box::new(b), fi as u16), ft)
                }
                None => {
                    let names: Vec<String> = self.game.types[ct]
                        .fields
                        .iter()
                        .map(|x| x.name.clone())
                        .collect();
                    let p = self.error(
                        Code::UnknownField,
                        f.span,
                        format!("`{}` has no field `{}`", self.game.types[ct].name, f.name),
                        "unknown field",
                    );
                    p.help = Some(format!("its fields are: {}", names.join(", ")));
                    (Expr::Lit(Value::None), Type::Any)
                }
            },
            Type::Any => {
                // The type is unknown (a component from `named`, say): find the field by name
                // in the only type that has it.
                let owners: Vec<(ir::TypeId, usize)> = self
                    .game
                    .types
                    .enumerate()
                    .filter_map(|(ti, t)| {
                        t.fields
                            .iter()
                            .position(|x| x.name == f.name)
                            .map(|fi| (ti, fi))
                    })
                    .collect();
                if let [(ti, fi)] = owners.as_slice() {
                    self.note_use(f.span, Target::Field(*ti, *fi as u16));
                    let ft = self.game.types[*ti].fields[*fi].ty;
                    self.field_owner = Some(*ti);
                    (Expr::Field(Box::new(b), *fi as u16), ft)
                } else {
                    self.error(
                        Code::UnknownField,
                        f.span,
                        format!("cannot tell which component type's `{}` this is", f.name),
                        "unknown type here",
                    );
                    (Expr::Lit(Value::None), Type::Any)
                }
            }
            other => {
                let p = self.error(
                    Code::Type,
                    base.span,
                    format!("{} has no fields", self.type_name(other)),
                    "not a component",
                );
                p.help = Some("fields belong to components: `card.rank`".into());
                (Expr::Lit(Value::None), Type::Any)
            }
        }
    }

    /// `a op b`: both sides of the type the operator takes, or of one type for `==` and `!=`.
    fn binary_expr(
        &mut self,
        e: &ast::Expr,
        op: &ast::BinOp,
        a: &ast::Expr,
        b: &ast::Expr,
    ) -> (Expr, Type) {
        let (x, ta) = self.expr(a);
        let (y, tb) = self.expr(b);
        use ast::BinOp::*;
        // What both sides must be (none for `==`/`!=`), and what the result is.
        let (want, t) = match op {
            Or | And => (Some(Type::Bool), Type::Bool),
            Eq | Ne => (None, Type::Bool),
            Lt | Le | Gt | Ge => (Some(Type::Int), Type::Bool),
            Add | Sub | Mul | Div | Mod | Pow => (Some(Type::Int), Type::Int),
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
                        Code::Type,
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

    /// `if c then a else b`: a condition, and two branches of one type.
    fn if_expr(
        &mut self,
        e: &ast::Expr,
        c: &ast::Expr,
        a: &ast::Expr,
        b: &ast::Expr,
    ) -> (Expr, Type) {
        let (c2, tc) = self.expr(c);
        self.expect_type(tc, Type::Bool, c.span, "the condition of `if`");
        let (a2, ta) = self.expr(a);
        let (b2, tb) = self.expr(b);
        if ta != tb && ta != Type::Any && tb != Type::Any {
            self.error(
                Code::Type,
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

    /// A name as a value, with the indexes written after it: a local, `me`, `current` and
    /// `player_count`, else a global (a constant, an enum value, a space, a variable, a zone).
    pub(crate) fn name_expr(
        &mut self,
        n: &str,
        span: ast::Span,
        idx: &[ast::Expr],
    ) -> (Expr, Type) {
        if idx.is_empty() {
            if let Some(l) = self.lookup_local(n).cloned() {
                self.note_local(span, &l);
                if let Some(x) = l.alias {
                    return (x, l.ty);
                }
                return (Expr::Local(l.slot), l.ty);
            }
            match n {
                "me" => return (self.me_as.clone().unwrap_or(Expr::Me), Type::Player),
                "current" => return (Expr::Current, Type::Player),
                "player_count" => return (Expr::PlayerCount, Type::Int),
                _ => {}
            }
        }
        let Some((g, _)) = self.globals.get(n).copied() else {
            if n == "players" {
                let p = self.error(
                    Code::Collection,
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
        // An action (or another name that is no value) takes the name of an enum value:
        // where a value is expected, the name is the value, when one enum has it.
        let g = match g {
            Global::Const(_)
            | Global::EnumValue(..)
            | Global::Space(..)
            | Global::Var(_)
            | Global::Zone(_) => g,
            _ if idx.is_empty() => self
                .enum_value_named(n)
                .map_or(g, |(e, v)| Global::EnumValue(e, v)),
            _ => g,
        };
        self.used.insert(g);
        if let Global::Space(b, _) = g {
            // a space named uses its board
            self.used.insert(Global::Board(b));
        }
        self.note_use(span, Target::Global(g));
        let Some((dims, out)) = self.global_value(g, n, span) else {
            return (Expr::Lit(Value::None), Type::Any);
        };
        if dims.len() != idx.len() {
            self.wrong_index_count(n, span, &dims, idx.len());
            return (Expr::Lit(Value::None), Type::Any);
        }
        let ix = self.name_indexes(&dims, idx);
        out(ix)
    }

    /// The global `n` as a value: its dimensions, and how to make the expression once its
    /// indexes are lowered; `None`, with an error reported, for a name that is no value.
    fn global_value(
        &mut self,
        g: Global,
        n: &str,
        span: ast::Span,
    ) -> Option<(Vec<ir::Dim>, MakeExpr)> {
        let made: (Vec<ir::Dim>, MakeExpr) = match g {
            Global::Const(c) => {
                let t = self.value_type(self.game.consts[c].value);
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
                let t = self.game.vars[v].ty;
                (
                    self.game.vars[v].dims.clone(),
                    Box::new(move |ix| (Expr::Var(v, ix), t)),
                )
            }
            Global::Zone(z) => {
                let t = self.game.zones[z].ty;
                let ty = if t == UNKNOWN_TYPE {
                    Type::Any
                } else {
                    Type::Zone(t)
                };
                (
                    self.game.zones[z].dims.clone(),
                    Box::new(move |ix| (Expr::Zone(z, ix), ty)),
                )
            }
            other => {
                let p = self.error(
                    Code::NotAValue,
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
                return None;
            }
        };
        Some(made)
    }

    /// Reports a name written with a number of indexes other than its dimensions'.
    fn wrong_index_count(&mut self, n: &str, span: ast::Span, dims: &[ir::Dim], given: usize) {
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
            Code::Arity,
            span,
            format!("`{n}` {what}, but {given} index(es) were given"),
            "wrong number of indexes",
        );
        p.help = Some(help);
    }

    /// The indexes written after a name, each of its dimension's type; a range's index is
    /// made relative to the range's start.
    fn name_indexes(&mut self, dims: &[ir::Dim], idx: &[ast::Expr]) -> Vec<Expr> {
        let mut ix = vec![];
        for (d, x) in dims.iter().zip(idx) {
            let (mut ex, t) = self.expr(x);
            let want = match d {
                ir::Dim::Player => Type::Player,
                ir::Dim::Enum(e) => Type::Enum(*e),
                ir::Dim::Board(b) => Type::Space(*b),
                ir::Dim::Range { lo, .. } => {
                    // the engine indexes from 0: a range's index is its distance from `lo`
                    if *lo != 0 {
                        let lo = Box::new(Expr::Lit(Value::Int(*lo)));
                        ex = Expr::Bin(ast::BinOp::Sub, Box::new(ex), lo, x.span);
                    }
                    Type::Int
                }
            };
            self.expect_type(t, want, x.span, "this index");
            ix.push(ex);
        }
        ix
    }

    pub(crate) fn dim_name(&self, d: ir::Dim) -> String {
        match d {
            ir::Dim::Player => "Player".into(),
            ir::Dim::Enum(e) => self.game.enums[e].name.clone(),
            ir::Dim::Board(b) => self.game.boards[b].name.clone(),
            ir::Dim::Range { lo, size } => format!("{lo}..{}", lo + size as i64 - 1),
        }
    }
}

/// How many unknown names get a "did you mean" hint.
const HINTS: usize = 100;

/// The Levenshtein distance between two names when it is at most 2, for "did you mean"
/// hints; names whose lengths differ by more are not compared.
fn near(a: &str, b: &str) -> Option<usize> {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len().abs_diff(b.len()) > 2 || a.len() > 64 {
        return None;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            cur.push(
                (prev[j] + usize::from(ca != cb))
                    .min(prev[j + 1] + 1)
                    .min(cur[j] + 1),
            );
        }
        prev = cur;
    }
    Some(prev[b.len()]).filter(|d| *d <= 2)
}
