//! Lowering of calls: built-in functions, `def`s and aggregates.

use super::{Checker, Global};
use crate::check::names::Target;
use crate::check::Code;
use crate::ir::{self, AggKind, Coll, Expr, Type, Value};
use crate::syntax::ast::{self, ExprKind as K};

impl Checker {
    /// A call: a `def` (or a function that returns a collection, where a value is
    /// expected), `named`, `can`, `repeated` or a built-in function.
    pub(crate) fn call(
        &mut self,
        f: &ast::Ident,
        args: &[ast::Expr],
        span: ast::Span,
    ) -> (Expr, Type) {
        let name = f.name.as_str();
        if let Some((Global::Def(d), _)) = self.globals.get(name).copied() {
            return self.def_call(d, f, args, span);
        }
        // `named("red-7")`: a component by name, resolved now.
        if name == "named" {
            return self.named(args, span);
        }
        if name == "can" {
            return self.can(args, span);
        }
        if name == "repeated" && !self.globals.contains_key("repeated") {
            return self.repeated(args, span);
        }
        self.builtin_call(f, args, span)
    }

    /// A call of the `def` `d`, with its number of arguments checked.
    fn def_call(
        &mut self,
        d: ir::DefId,
        f: &ast::Ident,
        args: &[ast::Expr],
        span: ast::Span,
    ) -> (Expr, Type) {
        let name = f.name.as_str();

        if self.coll_defs.contains_key(&d) {
            self.used.insert(Global::Def(d));
            self.note_use(f.span, Target::Global(Global::Def(d)));
            return self.coll_def_as_value(name, span);
        }
        self.used.insert(Global::Def(d));
        self.note_use(f.span, Target::Global(Global::Def(d)));
        let want = self.game.defs[d].params as usize;
        if args.len() != want {
            self.error(
                Code::Arity,
                span,
                format!("`{name}` takes {want} argument(s), got {}", args.len()),
                "wrong number of arguments",
            );
        }
        let xs = args.iter().map(|a| self.expr(a).0).collect();
        let ret = self.def_types.get(d).copied().unwrap_or(Type::Any);
        (Expr::CallDef(d, xs), ret)
    }

    /// `named("red-7")`: the component of that name, found now, when the file is read.
    fn named(&mut self, args: &[ast::Expr], span: ast::Span) -> (Expr, Type) {
        if let [ast::Expr {
            kind: K::Str(s),
            span: sp,
        }] = args
        {
            let found = self
                .game
                .comps
                .ids()
                .find(|&c| self.game.comp_static_name(c).as_deref() == Some(s.as_str()));
            return match found {
                Some(c) => (Expr::Lit(Value::Comp(c)), Type::Comp(self.game.comps[c].ty)),
                None => {
                    let p = self.error(
                        Code::UnknownComponent,
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
            Code::Arity,
            span,
            "`named` takes one string",
            "expected `named(\"name\")`",
        );
        (Expr::Lit(Value::None), Type::Any)
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn aggregate(
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
            "connected" => AggKind::Connected,
            "majority" => AggKind::Majority,
            "best_sets" => {
                if let Some(x) = body.or(otherwise) {
                    let p = self.error(
                        Code::Arity,
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
                    Code::UnknownFunction,
                    func.span,
                    format!("unknown aggregate `{other}`"),
                    "not an aggregate",
                );
                p.help = Some(
                    "aggregates: count, sum, max, min, any, all, first, line, connected, majority"
                        .into(),
                );
                return (Expr::Lit(Value::None), Type::Any);
            }
        };
        let depth = self.scopes.len();
        let binds = self.bind_all(bindings);
        let args2 = self.aggregate_args(kind, args);
        self.check_aggregate_shape(kind, func, &binds, &args2, args, body, otherwise, span);
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
        let ret = self.aggregate_type(kind, func, &binds, body, body_ty, span);
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

    /// The extra arguments of an aggregate, each of the type its kind takes there.
    fn aggregate_args(&mut self, kind: AggKind, args: &[ast::Expr]) -> Vec<Expr> {
        args
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let (x, t) = self.expr(a);
                if kind == AggKind::Connected {
                    self.expect_type(t, Type::Bool, a.span, "a condition of `connected`");
                } else if kind == AggKind::Line && i == 1 {
                    if !matches!(t, Type::Space(_) | Type::Any) {
                        self.error(Code::Type, a.span, "the third argument of `line` is the space every line must pass through", "not a space");
                    }
                } else if kind == AggKind::Majority && i == 1 {
                    self.expect_type(t, Type::Player, a.span, "the player whose share is asked");
                } else {
                    self.expect_type(t, Type::Int, a.span, "this argument");
                }
                x
            })
            .collect()
    }

    /// Checks the bindings and the number of extra arguments each kind of aggregate takes
    /// (`line`, `connected` and `majority` take some; the others none); `args` are those
    /// written, `args2` the same lowered.
    #[allow(clippy::too_many_arguments)]
    fn check_aggregate_shape(
        &mut self,
        kind: AggKind,
        func: &ast::Ident,
        binds: &[ir::Bind],
        args2: &[Expr],
        args: &[ast::Expr],
        body: Option<&ast::Expr>,
        otherwise: Option<&ast::Expr>,
        span: ast::Span,
    ) {
        if kind == AggKind::Line {
            let ok = binds.len() == 1
                && matches!(binds[0].coll, Coll::Board(_))
                && (args2.len() == 1 || args2.len() == 2);
            if !ok {
                let p = self.error(
                    Code::Arity,
                    span,
                    "`line` takes a board and a length",
                    "expected `line(s in board, n where cond)`",
                );
                p.help = Some("for example `line(s in grid, 3 where mark[s] == me)`".into());
            }
        } else if kind == AggKind::Connected {
            let ok = binds.len() == 1
                && matches!(binds[0].coll, Coll::Board(_))
                && args2.len() == 2
                && body.is_none()
                && otherwise.is_none();
            if !ok {
                let p = self.error(
                    Code::Arity,
                    span,
                    "`connected` takes a board binding and two conditions",
                    "expected `connected(s in board, A, B where c)`",
                );
                p.help = Some(
                    "for example `connected(s in board, row(s) == 1, row(s) == 11 where \
                     stone[s] == me)`"
                        .into(),
                );
            }
        } else if kind == AggKind::Majority {
            self.check_majority(binds, args2.len(), body, otherwise, span);
        } else if !args2.is_empty() {
            self.error(
                Code::Arity,
                args[0].span,
                format!("`{}` takes no extra arguments", func.name),
                "unexpected argument",
            );
        }
    }

    /// The type of an aggregate's result, with the type of its `:` value checked (`body_ty`,
    /// or the elements' type when there is none).
    fn aggregate_type(
        &mut self,
        kind: AggKind,
        func: &ast::Ident,
        binds: &[ir::Bind],
        body: Option<&ast::Expr>,
        body_ty: Type,
        span: ast::Span,
    ) -> Type {
        let elem_ty = binds.first().map_or(Type::Any, |b| b.ty);
        match kind {
            AggKind::Count | AggKind::BestSets => Type::Int,
            AggKind::Majority => {
                if let Some(b) = body {
                    self.expect_type(body_ty, Type::Int, b.span, "the value of `majority`");
                }
                Type::Int
            }
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
                        Code::Type,
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
            AggKind::Any | AggKind::All | AggKind::Line | AggKind::Connected => {
                if let Some(b) = body {
                    self.expect_type(body_ty, Type::Bool, b.span, "the condition");
                }
                Type::Bool
            }
            AggKind::First => body_ty,
        }
    }

    pub(crate) fn best_sets(
        &mut self,
        bindings: &[ast::Binding],
        args: &[ast::Expr],
        filter: Option<&ast::Expr>,
        span: ast::Span,
    ) -> (Expr, Type) {
        if bindings.len() != 1 || args.is_empty() {
            let p = self.error(
                Code::Arity,
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
        let slot = self.bind_local_at(&bindings[0].var, ty, "binding");
        let mut sets = vec![];
        for a in args {
            match &a.kind {
                K::Name(n) => match self.globals.get(n).copied() {
                    Some((Global::Set(s), _)) => {
                        self.used.insert(Global::Set(s));
                        self.note_use(a.span, Target::Global(Global::Set(s)));
                        sets.push(s);
                    }
                    _ => {
                        let p = self.error(
                            Code::UnknownSet,
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
                        Code::UnknownSet,
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

    /// The type of direction values (`Direction`).
    pub(crate) fn direction_type(&self) -> Type {
        self.game.direction_enum.map_or(Type::Any, Type::Enum)
    }

    /// The board of a space whose board has directions and coordinates (any board but a
    /// graph); a graph's space is `check::geometry`.
    pub(crate) fn geometric_space(
        &mut self,
        t: Type,
        span: ast::Span,
        what: &str,
    ) -> Option<ir::BoardId> {
        match t {
            Type::Space(b) if matches!(self.game.boards[b].shape, ir::BoardShape::Graph) => {
                let name = self.game.boards[b].name.clone();
                let p = self.error(
                    Code::Geometry,
                    span,
                    format!("`{what}` needs a board with directions; `{name}` is a graph"),
                    "a space of a graph board",
                );
                p.help = Some(
                    "a graph board has no directions or coordinates: use `adjacent(s)` and its \
                     declared lines"
                        .into(),
                );
                None
            }
            Type::Space(b) => Some(b),
            Type::Any => None,
            other => {
                let p = self.error(
                    Code::Type,
                    span,
                    format!("`{what}` takes a space, not {}", self.type_name(other)),
                    "not a space",
                );
                p.help = Some("spaces come from a board: `for s in grid`".into());
                None
            }
        }
    }

    /// `majority(q in players, points, p: value)`: one binding over players, two arguments, a
    /// value and no `else`.
    fn check_majority(
        &mut self,
        binds: &[ir::Bind],
        args: usize,
        body: Option<&ast::Expr>,
        otherwise: Option<&ast::Expr>,
        span: ast::Span,
    ) {
        let players = binds.len() == 1 && matches!(binds[0].ty, Type::Player | Type::Any);
        if !players || args != 2 || body.is_none() {
            let p = self.error(
                Code::Arity,
                span,
                "`majority` takes players, the points and the player whose share is asked",
                "expected `majority(q in players, points, p: value)`",
            );
            p.help = Some(
                "for example `majority(q in players, 5, me: count(works[q]))`: the players \
                 with the most works share 5 points"
                    .into(),
            );
        }
        if let Some(o) = otherwise {
            let p = self.error(
                Code::Arity,
                o.span,
                "`majority` takes no `else`",
                "not allowed here",
            );
            p.help = Some("a player who has no majority gets 0".into());
        }
    }
}

impl Checker {
    /// `can(p, a1, a2, ...)`: whether player `p` has an option of one of the actions named,
    /// as the state is now: `any(x in C, ... where guard)` of each action, with `me` standing
    /// for `p`, joined by `or`. Whether the flow offers the action now is not asked.
    fn can(&mut self, args: &[ast::Expr], span: ast::Span) -> (Expr, Type) {
        let fail = (Expr::Lit(Value::Bool(false)), Type::Bool);
        let Some((who, actions)) = args.split_first().filter(|(_, a)| !a.is_empty()) else {
            self.error(
                Code::Arity,
                span,
                "`can` takes a player and one or more actions",
                "expected `can(p, action, ...)`",
            )
            .help = Some("`can(next(me), place)`: whether the next player could place".into());
            return fail;
        };
        let (p, t) = self.expr(who);
        self.expect_type(t, Type::Player, who.span, "the player of `can`");
        let mut out: Option<Expr> = None;
        for a in actions {
            let found = match &a.kind {
                K::Name(n) => match self.globals.get(n.as_str()).copied() {
                    Some((Global::Action(id), _)) => Some(id),
                    _ => None,
                },
                _ => None,
            };
            let Some(id) = found else {
                self.error(
                    Code::Type,
                    a.span,
                    "`can` takes actions after the player",
                    "not an action",
                )
                .help = Some("name an action declared with `action NAME(...)`".into());
                return fail;
            };
            self.note_use(a.span, Target::Global(Global::Action(id)));
            if self.procedures.contains(&id) {
                self.error(
                    Code::Type,
                    a.span,
                    format!(
                        "`{}` is a procedure: no player chooses it",
                        self.game.actions[id].name
                    ),
                    "a procedure",
                )
                .help = Some("`can` asks about actions offered to players".into());
                return fail;
            }
            if self.can_stack.contains(&id) {
                if self.quiet > 0 {
                    self.can_cycle = Some(id);
                } else {
                    self.can_loop(id, a.span);
                }
                return fail;
            }
            let Some((params, guard, _)) = self.action_asts.get(&id).cloned() else {
                return fail;
            };
            if let Some(g) = &guard {
                if !self.write_out(g.span, a.span) {
                    return fail;
                }
            }
            let test = ast::Expr {
                kind: if params.is_empty() {
                    match guard {
                        Some(g) => g.kind,
                        None => K::Bool(true),
                    }
                } else {
                    K::Aggregate {
                        func: ast::Ident {
                            name: "any".into(),
                            span: a.span,
                        },
                        bindings: params,
                        args: vec![],
                        filter: guard.map(Box::new),
                        until: false,
                        body: None,
                        otherwise: None,
                    }
                },
                span: a.span,
            };
            // The guard reads the names of its own declaration, not the caller's locals
            // (its slots are fresh ones after the caller's).
            let saved = self.me_as.replace(p.clone());
            let outer = std::mem::take(&mut self.scopes);
            self.can_cycle = None;
            self.can_stack.push(id);
            self.quiet += 1;
            let (x, _) = self.expr(&test);
            self.quiet -= 1;
            self.can_stack.pop();
            self.scopes = outer;
            self.me_as = saved;
            if let Some(c) = self.can_cycle.take() {
                if self.quiet > 0 {
                    self.can_cycle = Some(c);
                } else {
                    self.can_loop(c, a.span);
                }
                return fail;
            }
            if let Some(d) = self.def_reading_me(&x) {
                self.error(
                    Code::Type,
                    a.span,
                    format!(
                        "`can` cannot ask for another player: the guard of `{}` calls `{}`, which reads `me`",
                        self.game.actions[id].name, self.game.defs[d].name
                    ),
                    "reads `me` inside a function",
                )
                .help = Some("give the function the player as a parameter".into());
                return fail;
            }
            out = Some(match out {
                None => x,
                Some(o) => Expr::Bin(ir::BinOp::Or, Box::new(o), Box::new(x), span),
            });
        }
        (out.unwrap_or(Expr::Lit(Value::Bool(false))), Type::Bool)
    }

    /// `can` met `id` again while asking whether `id` is possible.
    fn can_loop(&mut self, id: ir::ActionId, span: ast::Span) {
        self.error(
            Code::Type,
            span,
            format!(
                "`can` asks about `{}` inside that action's own guard (perhaps through another action's)",
                self.game.actions[id].name
            ),
            "the guard would ask itself",
        )
        .help = Some("a guard may ask `can` about other actions only".into());
    }

    /// A function called by `x` (or by the functions it calls) whose body reads `me`.
    fn def_reading_me(&self, x: &Expr) -> Option<ir::DefId> {
        let mut seen = std::collections::HashSet::new();
        let mut todo = vec![];
        x.visit(&mut |e| {
            if let Expr::CallDef(d, _) = e {
                todo.push(*d)
            }
        });
        while let Some(d) = todo.pop() {
            if !seen.insert(d) {
                continue;
            }
            let mut me = false;
            self.game.defs[d].body.visit(&mut |e| match e {
                Expr::Me => me = true,
                Expr::CallDef(f, _) => todo.push(*f),
                _ => {}
            });
            if me {
                return Some(d);
            }
        }
        None
    }
}
