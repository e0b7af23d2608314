//! Bodies: functions, set kinds, actions, the setup, the flow, end conditions and scoring.

use super::*;
use crate::ir::{self, Type};
use crate::syntax::ast;

impl Checker {
    /// Components tables, initial values, functions, set kinds and actions.
    pub(super) fn lower_bodies(&mut self, file: &ast::File) {
        for d in &file.decls {
            if let ast::DeclKind::Components { ty, zone, entries } = &d.kind {
                self.components(ty, zone, entries);
            }
        }
        self.var_inits(file);
        self.find_coll_defs(file);
        // Function result types first (a silent pass), so that calls in any order are typed.
        self.def_types = vec![Type::Any; self.game.defs.len()].into();
        if let Some(slot) = self.score_def.and_then(|d| self.def_types.get_mut(d)) {
            *slot = Type::Int;
        }
        self.quiet += 1;
        for d in &file.decls {
            if let ast::DeclKind::Def { name, params, body } = &d.kind {
                self.def_body(name, params, body);
            }
        }
        self.quiet -= 1;
        for d in &file.decls {
            if let ast::DeclKind::Set {
                name,
                params,
                cond,
                points,
            } = &d.kind
            {
                self.set_body(name, params, cond.as_ref(), points);
            }
        }
        // Bodies.
        for d in &file.decls {
            match &d.kind {
                ast::DeclKind::Def { name, params, body } => self.def_body(name, params, body),
                ast::DeclKind::Action {
                    name,
                    params,
                    guard,
                    body,
                    ..
                } => self.action_body(name, params, guard.as_ref(), body),
                ast::DeclKind::Procedure { name, params, body } => {
                    self.procedure_body(name, params, body)
                }
                ast::DeclKind::Trigger {
                    name,
                    each,
                    cond,
                    body,
                } => self.trigger(name, each.as_ref(), cond.as_ref(), body),
                _ => {}
            }
        }
    }

    /// `score(p)` may be called as a function of one player, the `score` declaration's
    /// formula (its body is set with the formula, [`Checker::lower_flow`]), unless the file
    /// gives the name `score` to something else. `head` is where the declaration starts.
    pub(super) fn declare_score_function(&mut self, head: ast::Span) {
        if self.globals.contains_key("score") {
            return;
        }
        let id = self.game.defs.next_id();
        self.score_def = Some(id);
        self.game.defs.push(ir::Def {
            name: "score".into(),
            params: 1,
            param_types: vec![ir::Type::Player],
            locals: 0,
            body: ir::Expr::Lit(ir::Value::Int(0)),
        });
        self.globals.insert("score".into(), (Global::Def(id), head));
    }

    /// Setup, flow, end conditions, score, tie-breakers and ties; returns where the flow is.
    pub(super) fn lower_flow(&mut self, file: &ast::File) -> Option<ast::Span> {
        let mut flow_seen: Option<ast::Span> = None;
        let mut setup_seen: Option<ast::Span> = None;
        for d in &file.decls {
            match &d.kind {
                ast::DeclKind::Setup(b) | ast::DeclKind::Flow(b) => {
                    let is_setup = matches!(d.kind, ast::DeclKind::Setup(_));
                    let (word, seen) = if is_setup {
                        ("setup", &mut setup_seen)
                    } else {
                        ("flow", &mut flow_seen)
                    };
                    if let Some(prev) = *seen {
                        let p = self.error(
                            Code::Duplicate,
                            d.span,
                            format!("`{word}` is declared twice"),
                            format!("second {word}"),
                        );
                        p.related = Some((prev, format!("first {word}")));
                    }
                    *seen = Some(d.span);
                    let id = self.proc_body(word, b);
                    if is_setup {
                        self.game.setup = Some(id);
                    } else {
                        self.game.flow = id;
                    }
                }
                ast::DeclKind::EndWhen(e) => {
                    self.begin_locals();
                    let (x, t) = self.expr(e);
                    self.expect_type(t, Type::Bool, e.span, "an end condition");
                    let n = self.end_locals();
                    self.aux_locals = self.aux_locals.max(n);
                    // `end when false` ends nothing: a flow that loops forever still never
                    // ends (`check::never_ends`).
                    if !matches!(x, ir::Expr::Lit(ir::Value::Bool(false))) {
                        self.ends = true;
                    }
                    self.game.end_when.push((x, e.span));
                }
                ast::DeclKind::Score { player, value }
                | ast::DeclKind::Tiebreak { player, value }
                | ast::DeclKind::Heuristic { player, value } => {
                    let heuristic = matches!(d.kind, ast::DeclKind::Heuristic { .. });
                    self.begin_locals();
                    self.bind_local_at(player, Type::Player, "parameter");
                    let (x, t) = self.expr(value);
                    let what = if heuristic { "a heuristic" } else { "a score" };
                    self.expect_type(t, Type::Int, value.span, what);
                    let n = self.end_locals();
                    self.game.score_locals = self.game.score_locals.max(n);
                    // The formula is also the body of `score(p)` ([`Checker::score_def`]).
                    let first = self.game.score.is_none();
                    if let (ast::DeclKind::Score { .. }, Some(f), true) =
                        (&d.kind, self.score_def, first)
                    {
                        if n as usize <= ir::DEF_LOCALS {
                            let def = &mut self.game.defs[f];
                            def.body = x.clone();
                            def.locals = n;
                        } else if self.used.contains(&Global::Def(f)) {
                            self.error(
                                Code::TooManyLocals,
                                value.span,
                                format!(
                                    "`score(...)` is called, but its formula uses {n} local names; a function may use at most {}",
                                    ir::DEF_LOCALS
                                ),
                                "too many local names",
                            ).help = Some("move parts of the formula into `def`s".into());
                        }
                    }
                    let slot = match d.kind {
                        ast::DeclKind::Score { .. } => &mut self.game.score,
                        ast::DeclKind::Heuristic { .. } => &mut self.game.heuristic,
                        _ => {
                            self.game.tiebreaks.push(x);
                            continue;
                        }
                    };
                    let twice = slot.replace(x).is_some();
                    if twice {
                        let word = if heuristic { "heuristic" } else { "score" };
                        self.error(
                            Code::Duplicate,
                            d.span,
                            format!("`{word}` is declared twice"),
                            format!("second {word}"),
                        );
                    }
                }
                ast::DeclKind::Ties(k) => match k.name.as_str() {
                    "draw" => self.game.ties_shared = false,
                    "shared" => self.game.ties_shared = true,
                    _ => {
                        let p = self.error(
                            Code::Ties,
                            k.span,
                            format!("unknown tie rule `{}`", k.name),
                            "expected `draw` or `shared`",
                        );
                        p.help = Some("`ties draw`: players tied for first have no winner; `ties shared`: they all win".into());
                    }
                },
                _ => {}
            }
        }
        flow_seen
    }

    pub(crate) fn var_inits(&mut self, file: &ast::File) {
        for d in &file.decls {
            if let ast::DeclKind::Var {
                name,
                init: Some(e),
                ..
            } = &d.kind
            {
                let Some((Global::Var(v), _)) = self.globals.get(&name.name).copied() else {
                    continue;
                };
                self.begin_locals();
                let (x, t) = self.expr(e);
                let want = self.game.vars[v].ty;
                self.expect_type(t, want, e.span, "this variable's initial value");
                let n = self.end_locals();
                self.aux_locals = self.aux_locals.max(n);
                self.game.vars[v].init = Some(x);
            }
        }
    }

    pub(crate) fn def_body(
        &mut self,
        name: &ast::Ident,
        params: &[(ast::Ident, ast::TypeExpr)],
        body: &ast::Expr,
    ) {
        let Some((Global::Def(d), _)) = self.globals.get(&name.name).copied() else {
            return;
        };
        if self.coll_defs.contains_key(&d) {
            return self.coll_def_body(d, params);
        }
        self.begin_locals();
        let mut types = Vec::with_capacity(params.len());
        for (p, t) in params {
            let (ty, _) = self.value_type_expr(t);
            types.push(ty);
            self.bind_local_at(p, ty, "parameter");
        }
        let (x, t) = self.expr(body);
        let n = self.end_locals();
        if let Some(slot) = self.def_types.get_mut(d) {
            *slot = t;
        }
        let def = &mut self.game.defs[d];
        def.body = x;
        def.locals = n;
        def.param_types = types;
    }

    /// Splits a guard at `and` and tags each part with how many of the bindings it needs.
    pub(crate) fn guard_parts(
        &mut self,
        guard: Option<&ast::Expr>,
        slots: &[u16],
    ) -> Vec<(u16, ir::Expr)> {
        let Some(g) = guard else { return vec![] };
        let mut conj = vec![];
        split_and(g, &mut conj);
        // The whole guard was checked already; its parts report nothing new.
        self.quiet += 1;
        let mut out = vec![];
        for c in conj {
            let (x, _) = self.expr(c);
            let mut need = 0u16;
            x.reads(&mut |l| {
                if let Some(pos) = slots.iter().position(|s| *s == l) {
                    need = need.max(pos as u16 + 1);
                }
            });
            out.push((need, x));
        }
        self.quiet -= 1;
        out.sort_by_key(|p| p.0);
        out
    }

    pub(crate) fn set_body(
        &mut self,
        name: &ast::Ident,
        params: &[(ast::Ident, ast::TypeExpr)],
        cond: Option<&ast::Expr>,
        points: &ast::Expr,
    ) {
        let Some((Global::Set(id), _)) = self.globals.get(&name.name).copied() else {
            return;
        };
        self.begin_locals();
        for (p, t) in params {
            let (ty, _) = self.value_type_expr(t);
            if !matches!(ty, Type::Comp(_) | Type::Any) {
                let p = self.error(
                    Code::Type,
                    t.span(),
                    "the members of a set are components",
                    "not a component type",
                );
                p.help = Some("write `set pair(a: Card, b: Card) ...`".into());
            }
            self.bind_local_at(p, ty, "parameter");
        }
        let mut conjuncts = vec![];
        if let Some(c) = cond {
            split_and(c, &mut conjuncts);
        }
        let n = params.len() as u16;
        let mut conds = vec![];
        for c in conjuncts {
            let (x, t) = self.expr(c);
            self.expect_type(t, Type::Bool, c.span, "a set's condition");
            let need = max_param(&x, n).unwrap_or(0);
            conds.push((need, x));
        }
        conds.sort_by_key(|c| c.0);
        let (pts, t) = self.expr(points);
        self.expect_type(t, Type::Int, points.span, "a set's value");
        let locals = self.end_locals();
        let s = &mut self.game.sets[id];
        s.conds = conds;
        s.points = pts;
        s.locals = locals;
    }

    /// Names an action (or a procedure: an action no choice lists) with its arity; its
    /// parameters, guard and effect are filled in when its body is lowered.
    pub(super) fn declare_action(
        &mut self,
        name: &ast::Ident,
        arity: usize,
        sequence: bool,
        window: Option<bool>,
    ) -> ir::ActionId {
        let id = self.game.actions.next_id();
        self.action_arity.insert(id, arity);
        self.define(name, Global::Action(id));
        self.game.actions.push(ir::ActionDef {
            name: name.name.clone(),
            params: vec![],
            guard: None,
            guard_span: None,
            guard_parts: vec![],
            offered: window.is_some(),
            sequence,
            window,
            proc: ir::ProcId(0),
            span: name.span,
        });
        id
    }

    /// `check::arity` past [`ir::MAX_ARGS`] parameters.
    fn at_most_args(&mut self, name: &ast::Ident, n: usize, what: &str) {
        if n > ir::MAX_ARGS {
            self.error(
                Code::Arity,
                name.span,
                format!("{what} takes at most {} parameters", ir::MAX_ARGS),
                "too many parameters",
            );
        }
    }

    /// The effect of an action or a procedure, its locals counted: a new procedure of code.
    fn effect_proc(&mut self, name: &ast::Ident, code: Vec<ir::Instr>) -> ir::ProcId {
        let locals = self.end_locals();
        let proc = self.game.procs.next_id();
        self.game.procs.push(ir::Proc {
            name: name.name.clone(),
            code,
            locals,
        });
        proc
    }

    /// A procedure: an action never offered, whose parameters are typed values (a range
    /// type keeps its bounds, checked when it is run, as `do` checks an action's range).
    fn procedure_body(
        &mut self,
        name: &ast::Ident,
        params: &[(ast::Ident, ast::TypeExpr)],
        body: &ast::Block,
    ) {
        let Some((Global::Action(a), _)) = self.globals.get(&name.name).copied() else {
            return;
        };
        self.at_most_args(name, params.len(), "a procedure");
        self.begin_locals();
        let mut binds = vec![];
        let mut tys = vec![];
        for (p, t) in params {
            let (ty, range) = self.value_type_expr(t);
            let slot = self.bind_local_at(p, ty, "parameter");
            let coll = match range {
                Some((lo, hi)) => ir::Coll::Range(
                    ir::Expr::Lit(ir::Value::Int(lo)),
                    ir::Expr::Lit(ir::Value::Int(hi)),
                ),
                None => ir::Coll::List(vec![]),
            };
            tys.push(ty);
            binds.push(ir::Bind {
                name: p.name.clone(),
                slot,
                coll,
                ty,
                span: t.span(),
            });
        }
        self.action_params.insert(a, tys);
        let mut code = vec![];
        self.block(body, &mut code, &mut vec![]);
        let proc = self.effect_proc(name, code);
        let act = &mut self.game.actions[a];
        act.params = binds;
        act.proc = proc;
    }

    pub(crate) fn action_body(
        &mut self,
        name: &ast::Ident,
        params: &[ast::Binding],
        guard: Option<&ast::Expr>,
        body: &ast::Block,
    ) {
        let Some((Global::Action(a), _)) = self.globals.get(&name.name).copied() else {
            return;
        };
        self.at_most_args(name, params.len(), "an action");
        self.begin_locals();
        // A `can` naming this action inside its own parameters or guard would ask itself.
        self.can_stack.push(a);
        let binds = self.bind_all(params);
        let tys = params
            .iter()
            .map(|p| self.lookup_local(&p.var.name).map_or(Type::Any, |l| l.ty))
            .collect();
        self.action_params.insert(a, tys);
        let g = guard.map(|g| {
            let (x, t) = self.expr(g);
            self.expect_type(t, Type::Bool, g.span, "a guard");
            x
        });
        let slots: Vec<u16> = binds.iter().map(|b| b.slot).collect();
        let parts = self.guard_parts(guard, &slots);
        self.can_stack.pop();
        let mut code = vec![];
        self.in_sequence = self.game.actions[a].sequence;
        self.block(body, &mut code, &mut vec![]);
        self.in_sequence = false;
        let proc = self.effect_proc(name, code);
        let act = &mut self.game.actions[a];
        act.params = binds;
        act.guard = g;
        act.guard_span = guard.map(|g| g.span);
        act.guard_parts = parts;
        act.proc = proc;
    }

    /// A `when` trigger: its test (a condition, or the first element meeting it) and its
    /// body, a procedure with the element in its first local.
    pub(crate) fn trigger(
        &mut self,
        name: &ast::Ident,
        each: Option<&ast::Binding>,
        cond: Option<&ast::Expr>,
        body: &ast::Block,
    ) {
        if let Some(prev) = self.game.triggers.iter().find(|t| t.name == name.name) {
            let prev = prev.span;
            let p = self.error(
                Code::Duplicate,
                name.span,
                format!("trigger `{}` is declared twice", name.name),
                "second trigger",
            );
            p.related = Some((prev, "first trigger".into()));
        }
        self.begin_locals();
        let binds = each.map(|b| self.bind_all(std::slice::from_ref(b)));
        let filter = cond.map(|c| {
            let (x, t) = self.expr(c);
            self.expect_type(t, Type::Bool, c.span, "a trigger's condition");
            if let ir::Expr::Lit(v) = x {
                let always = v == ir::Value::Bool(true);
                let p = self.error(
                    Code::Trigger,
                    c.span,
                    if always {
                        "this trigger's condition always holds: it would fire forever"
                    } else {
                        "this trigger's condition never holds"
                    },
                    "known when the file is read",
                );
                p.help = Some(
                    "a trigger reacts to the state: `when over_limit q in players where \
                     count(hand[q]) > 4 { ... }`"
                        .into(),
                );
            }
            x
        });
        let test_locals = self.end_locals();
        let (test, elem) = match binds {
            Some(binds) => {
                let ty = binds[0].ty;
                let agg = ir::Agg {
                    kind: ir::AggKind::First,
                    sets: vec![],
                    binds,
                    args: vec![],
                    filter,
                    body: None,
                    otherwise: None,
                };
                (ir::Expr::Agg(Box::new(agg), name.span), Some(ty))
            }
            None => (
                filter.unwrap_or(ir::Expr::Lit(ir::Value::Bool(false))),
                None,
            ),
        };
        self.begin_locals();
        let each_slot = match (each, elem) {
            (Some(b), Some(ty)) => Some(self.bind_local(&b.var.name, ty)),
            _ => None,
        };
        let mut code = vec![];
        self.block(body, &mut code, &mut vec![]);
        let locals = self.end_locals();
        let proc = self.game.procs.next_id();
        self.game.procs.push(ir::Proc {
            name: format!("when {}", name.name),
            code,
            locals,
        });
        self.aux_locals = self.aux_locals.max(test_locals);
        self.game.triggers.push(ir::Trigger {
            name: name.name.clone(),
            test,
            each: each_slot,
            test_locals,
            proc,
            span: name.span,
        });
    }

    /// Whether window points are compiled in: the rules file has window actions (never in
    /// a scenario's setup).
    pub(crate) fn has_windows(&self) -> bool {
        self.file == crate::source::FileId::RULES
            && self.game.actions.iter().any(|a| a.window.is_some())
    }

    /// The two choices a window offers: the `anytime` actions, or those and the `before
    /// turn` ones, each followed by `pass`.
    pub(crate) fn window_choices(&mut self) {
        if !self.has_windows() {
            return;
        }
        let make = |c: &mut Self, before: bool| {
            let mut arms: Vec<ir::Arm> = c
                .game
                .actions
                .enumerate()
                .filter(|(_, a)| a.window == Some(false) || before && a.window == Some(true))
                .map(|(id, _)| ir::Arm::Action(id))
                .collect();
            arms.push(ir::Arm::Inline {
                label: Some("pass".into()),
                binds: vec![],
                guard: None,
                guard_span: None,
                guard_parts: vec![],
                body_pc: 0,
            });
            let span = c
                .game
                .actions
                .iter()
                .find(|a| a.window.is_some())
                .map_or(crate::source::Span::default(), |a| a.span);
            let id = c.game.choices.next_id();
            c.game.choices.push(ir::Choice {
                by: None,
                each: None,
                arms,
                else_pc: None,
                end_pc: 0,
                span,
            });
            id
        };
        let anytime = make(self, false);
        let before = make(self, true);
        self.game.windows = Some((anytime, before));
    }

    pub(crate) fn proc_body(&mut self, name: &str, b: &ast::Block) -> ir::ProcId {
        self.begin_locals();
        let mut code = vec![];
        self.block(b, &mut code, &mut vec![]);
        let locals = self.end_locals();
        let id = self.game.procs.next_id();
        self.game.procs.push(ir::Proc {
            name: name.to_string(),
            code,
            locals,
        });
        id
    }
}

/// Splits `a and b and c` into its parts.
fn split_and<'a>(e: &'a ast::Expr, out: &mut Vec<&'a ast::Expr>) {
    match &e.kind {
        ast::ExprKind::Binary(ast::BinOp::And, a, b) => {
            split_and(a, out);
            split_and(b, out);
        }
        _ => out.push(e),
    }
}

/// The highest parameter (local below `n`) an expression reads.
fn max_param(e: &ir::Expr, n: u16) -> Option<u16> {
    use ir::Expr as E;
    let mut best: Option<u16> = None;
    let mut see = |x: Option<u16>| {
        if let Some(v) = x {
            best = Some(best.map_or(v, |b| b.max(v)));
        }
    };
    match e {
        E::Local(l) if *l < n => see(Some(*l)),
        E::Lit(_) | E::Const(_) | E::Local(_) | E::Me | E::Current | E::PlayerCount => {}
        E::Var(_, ix) | E::Zone(_, ix) | E::Builtin(_, ix, _) | E::CallDef(_, ix) => {
            ix.iter().for_each(|x| see(max_param(x, n)))
        }
        E::Field(x, _) | E::Not(x) | E::Neg(x) => see(max_param(x, n)),
        E::Bin(_, a, b, _) => {
            see(max_param(a, n));
            see(max_param(b, n));
        }
        E::If(a, b, c) => {
            see(max_param(a, n));
            see(max_param(b, n));
            see(max_param(c, n));
        }
        // Aggregates may read any parameter: evaluate them once all are bound; so may the
        // effect an `after` runs.
        E::Agg(..) | E::After(_) => see(Some(n.saturating_sub(1))),
    }
    best
}

impl Checker {
    /// Each action named by an action field takes the parameters the field's type says.
    pub(super) fn check_effects(&mut self) {
        for (span, a, sig, comp) in std::mem::take(&mut self.effect_uses) {
            let want = self.game.signatures[sig].clone();
            let got = self.action_params.get(&a).cloned().unwrap_or_default();
            let fits = want.len() == got.len()
                && want
                    .iter()
                    .zip(&got)
                    .all(|(w, g)| w == g || *w == Type::Any || *g == Type::Any);
            if fits {
                continue;
            }
            let field_ty = self.type_name(Type::Action(sig));
            let act = &self.game.actions[a];
            let (name, decl) = (act.name.clone(), act.span);
            let params: Vec<String> = got.iter().map(|t| self.type_name(*t)).collect();
            let ty = self.game.types[self.game.comps[comp].ty].name.clone();
            let p = self.error(
                Code::Effect,
                span,
                format!(
                    "`{name}` takes ({}), but this field of {ty} holds `{field_ty}`",
                    params.join(", ")
                ),
                "parameters differ",
            );
            p.related = Some((decl, format!("`{name}` declared here")));
            p.help = Some(
                "every action an action field holds takes the parameters its type lists, in order"
                    .into(),
            );
        }
    }
}
