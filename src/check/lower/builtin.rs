//! Lowering of calls to built-in functions: their arities, the types of their arguments and
//! the types of their results.

use super::{Checker, Global};
use crate::check::Code;
use crate::ir::{self, Builtin, Expr, Type, Value};
use crate::syntax::ast;

impl Checker {
    /// A call of a built-in function (`count`, `top`, `next`, `step`, ...), or an error for a
    /// name that is a collection, not callable, or unknown.
    pub(super) fn builtin_call(
        &mut self,
        f: &ast::Ident,
        args: &[ast::Expr],
        span: ast::Span,
    ) -> (Expr, Type) {
        let name = f.name.as_str();
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
            "step" => (Builtin::Step, 2, Type::Any),
            "col" => (Builtin::Col, 1, Type::Int),
            "row" => (Builtin::Row, 1, Type::Int),
            "opposite" => (Builtin::Opposite, 1, Type::Any),
            "ord" => (Builtin::Ord, 1, Type::Int),
            "adjacent" | "players" | "ray" | "directions" => {
                let p = self.error(
                    Code::Collection,
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
                        Code::NotCallable,
                        f.span,
                        format!("the {} `{name}` cannot be called", g.kind()),
                        "not a function",
                    );
                    if let Global::Action(_) = g {
                        p.help = Some(format!("run an action's effect with `do {name}(...)`"));
                    }
                } else {
                    let p = self.error(
                        Code::UnknownFunction,
                        f.span,
                        format!("unknown function `{name}`"),
                        "no such function",
                    );
                    p.help = Some("functions: count, top, bottom, empty, next, prev, owner, space_of, zone_of, named, seat, abs, max, min, step, col, row, opposite, ord, can, repeated; or a `def`".into());
                }
                return (Expr::Lit(Value::None), Type::Any);
            }
        };
        if args.len() != arity {
            let p = self.error(
                Code::Arity,
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
        let mut xs: Vec<Expr> = vec![];
        let mut ret = ret;
        for a in args {
            let (x, t) = self.expr(a);
            self.builtin_arg(b, name, a, t, xs.is_empty(), &mut ret);
            xs.push(x);
        }
        (Expr::Builtin(b, xs, span), ret)
    }

    /// Checks one argument `a`, of type `t`, of the built-in `b` (`is_first` when it is the
    /// first argument), and refines the call's result type `ret` from it where the argument
    /// tells more (the component type of `top`, the board of `step` or `space_of`).
    fn builtin_arg(
        &mut self,
        b: Builtin,
        name: &str,
        a: &ast::Expr,
        t: Type,
        is_first: bool,
        ret: &mut Type,
    ) {
        match b {
            Builtin::Count | Builtin::Top | Builtin::Bottom | Builtin::Empty => {
                if let Type::Zone(ct) = t {
                    if matches!(b, Builtin::Top | Builtin::Bottom) {
                        *ret = Type::Comp(ct);
                    }
                } else if t != Type::Any {
                    let p = self.error(
                        Code::Type,
                        a.span,
                        format!("`{name}` takes a zone, not {}", self.type_name(t)),
                        "not a zone",
                    );
                    p.help =
                        Some("for other collections bind a name: `count(x in C where ...)`".into());
                }
            }
            Builtin::Next | Builtin::Prev => {
                self.expect_type(t, Type::Player, a.span, "the argument")
            }
            Builtin::Step if is_first => {
                if let Some(b) = self.geometric_space(t, a.span, name) {
                    *ret = Type::Space(b);
                }
            }
            Builtin::Step | Builtin::Opposite => {
                let dir = self.direction_type();
                self.expect_type(t, dir, a.span, "a direction");
                if b == Builtin::Opposite {
                    *ret = dir;
                }
            }
            Builtin::Col | Builtin::Row => {
                self.geometric_space(t, a.span, name);
            }
            Builtin::Ord => {
                if !matches!(t, Type::Enum(_) | Type::Player | Type::Any) {
                    let p = self.error(
                        Code::Type,
                        a.span,
                        format!(
                            "`ord` takes an enum value or a seat, not {}",
                            self.type_name(t)
                        ),
                        "not an enum value or a seat",
                    );
                    p.help = Some(
                        "`ord(two)` is the position of `two` in its enum, `ord(p)` a seat's \
                         number from 0"
                            .into(),
                    );
                }
            }
            Builtin::Owner | Builtin::SpaceOf | Builtin::ZoneOf => {
                if !matches!(t, Type::Comp(_) | Type::Any) {
                    self.error(
                        Code::Type,
                        a.span,
                        format!("`{name}` takes a component, not {}", self.type_name(t)),
                        "not a component",
                    );
                }
                if let (Builtin::ZoneOf, Type::Comp(ct)) = (b, t) {
                    *ret = Type::Zone(ct);
                }
                if let (Builtin::SpaceOf, Type::Comp(ct)) = (b, t) {
                    let boards: Vec<ir::BoardId> = self
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
                            *ret = Type::Space(*first);
                        }
                    }
                }
            }
            _ => self.expect_type(t, Type::Int, a.span, "the argument"),
        }
    }
}
