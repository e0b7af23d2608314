//! Lowering of statements to bytecode with explicit jumps.

use super::{Checker, Global, Loops};
use crate::check::Code;
use crate::ir::{self, Coll, Expr, Instr, LValue, Type, Value};
use crate::syntax::ast::{self, ExprKind as K, StmtKind as S};

impl Checker {
    // ------------------------------------------------------------ statements

    /// `for var in coll { body }`, the collection lowered already; `spans` are the loop's
    /// head (blamed for an error gathering the elements) and the whole statement.
    pub(crate) fn for_loop(
        &mut self,
        coll: Coll,
        ty: Type,
        var: &ast::Ident,
        body: &ast::Block,
        spans: (ast::Span, ast::Span),
        code: &mut Vec<Instr>,
    ) {
        self.for_loop_in(coll, ty, var, body, spans, code, &mut vec![]);
    }

    #[allow(clippy::too_many_arguments)]
    fn for_loop_in(
        &mut self,
        coll: Coll,
        ty: Type,
        var: &ast::Ident,
        body: &ast::Block,
        (head, whole): (ast::Span, ast::Span),
        code: &mut Vec<Instr>,
        loops: &mut Loops,
    ) {
        let depth = self.scopes.len();
        let slot = self.alloc_local(3);
        let var = self.bind_local_at(var, ty, "binding");
        code.push(Instr::ForInit {
            coll,
            slot,
            span: head,
        });
        let top = Self::here(code);
        let next = code.len();
        code.push(Instr::ForNext { slot, var, exit: 0 });
        loops.push(vec![]);
        self.block(body, code, loops);
        code.push(Instr::LoopGuard { span: whole });
        code.push(Instr::Jump(top));
        let done = Self::here(code);
        Self::patch(code, next, done);
        for b in loops.pop().unwrap_or_default() {
            Self::patch(code, b, done);
        }
        code.push(Instr::ForDone { slot });
        self.scopes.truncate(depth);
    }

    pub(crate) fn block(&mut self, b: &ast::Block, code: &mut Vec<Instr>, loops: &mut Loops) {
        let depth = self.scopes.len();
        for s in &b.stmts {
            self.stmt(s, code, loops);
        }
        self.scopes.truncate(depth);
    }

    pub(crate) fn here(code: &[Instr]) -> u32 {
        code.len() as u32
    }

    pub(crate) fn patch(code: &mut [Instr], at: usize, to: u32) {
        match &mut code[at] {
            Instr::Jump(t) => *t = to,
            Instr::JumpIfNot(_, t, _) => *t = to,
            Instr::ForNext { exit, .. } => *exit = to,
            _ => {}
        }
    }

    /// One statement, appended to `code`. Each kind of statement with more than a few lines
    /// of its own is lowered by a helper: the statements that move control (`if`, the loops,
    /// `turn`, `choose`) and those that run other code (a procedure's call, `do`) here, the
    /// statements that write (assignments, moves, deals, rolls, reveals) in `write.rs`.
    pub(crate) fn stmt(&mut self, s: &ast::Stmt, code: &mut Vec<Instr>, loops: &mut Loops) {
        if self.simul.is_some() {
            self.simul_stmt(s);
        }
        match &s.kind {
            S::Simultaneous { binding, body } => self.simultaneous(s, binding, body, code),
            S::Let { name, value } => {
                let (x, t) = self.expr(value);
                let slot = self.bind_local_at(name, t, "local");
                code.push(Instr::Let(slot, x, s.span));
            }
            S::Assign { target, op, value } => self.assign_stmt(s, target, *op, value, code),
            S::If {
                cond,
                then,
                otherwise,
            } => self.if_stmt(cond, then, otherwise.as_ref(), code, loops),
            S::For { binding, body } => {
                let (coll, ty) = self.coll(&binding.coll);
                let spans = (head(s.span, binding.coll.span), s.span);
                self.for_loop_in(coll, ty, &binding.var, body, spans, code, loops);
            }
            S::Layout(name, text, at) => self.layout(name, text, *at, code),
            S::Repeat { count, body } => self.repeat_stmt(s, count.as_ref(), body, code, loops),
            S::While { cond, body } => self.while_stmt(s, cond, body, code, loops),
            S::Break => match loops.last_mut() {
                Some(l) => {
                    l.push(code.len());
                    code.push(Instr::Jump(0));
                }
                None => {
                    self.error(
                        Code::Break,
                        s.span,
                        "`break` outside a loop",
                        "nothing to leave",
                    );
                }
            },
            S::Turn { player, body } => self.turn_stmt(s, player, body, code, loops),
            S::Choose {
                by,
                each,
                arms,
                otherwise,
            } => self.choose_stmt(
                s,
                by.as_ref(),
                each.as_ref(),
                arms,
                otherwise.as_ref(),
                code,
                loops,
            ),
            S::Move { what, to, bottom } => self.move_stmt(s, what, to, *bottom, code),
            S::Deal {
                count,
                from,
                to,
                bottom,
            } => self.deal_stmt(s, count.as_ref(), from, to, *bottom, code),
            S::Shuffle(z) => self.shuffle_stmt(s, z, code),
            S::Roll { target, domain } => self.roll_stmt(s, target, domain.as_ref(), code),
            S::Call(name, args) => self.call_stmt(s, name, args, code, loops),
            S::Do { action, args } => self.do_stmt(s, action, args, code),
            S::DoField { target, args } => self.do_field(s.span, target, args, code),
            S::Remember(name, on) => self.remember(name, *on, s.span, code),
            S::Reveal(target, on) => self.reveal_stmt(s, target, *on, code),
            S::RevealTo(target, to) => self.reveal_to_stmt(s, target, to, code),
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

    // ------------------------------------------- statements that move control

    /// `if cond { then } else { otherwise }`: a jump over `then` when the condition fails,
    /// and one over `otherwise` at the end of `then` when there is an `else`.
    fn if_stmt(
        &mut self,
        cond: &ast::Expr,
        then: &ast::Block,
        otherwise: Option<&ast::Block>,
        code: &mut Vec<Instr>,
        loops: &mut Loops,
    ) {
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

    /// `repeat [count] { body }`: with a count, a hidden local counts the rounds down; the
    /// loop's `break`s jump past its end.
    fn repeat_stmt(
        &mut self,
        s: &ast::Stmt,
        count: Option<&ast::Expr>,
        body: &ast::Block,
        code: &mut Vec<Instr>,
        loops: &mut Loops,
    ) {
        let counter = count.map(|c| {
            let (x, t) = self.expr(c);
            self.expect_type(t, Type::Int, c.span, "a repeat count");
            let slot = self.alloc_local(1);
            code.push(Instr::Let(slot, x, head(s.span, c.span)));
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

    /// `while cond { body }`: the condition tested before each round, the loop's `break`s
    /// jumping past its end.
    fn while_stmt(
        &mut self,
        s: &ast::Stmt,
        cond: &ast::Expr,
        body: &ast::Block,
        code: &mut Vec<Instr>,
        loops: &mut Loops,
    ) {
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

    /// `turn player { body }`: the player acts inside; the previous one is saved in a local
    /// and comes back at the end.
    fn turn_stmt(
        &mut self,
        s: &ast::Stmt,
        player: &ast::Expr,
        body: &ast::Block,
        code: &mut Vec<Instr>,
        loops: &mut Loops,
    ) {
        let (p, t) = self.expr(player);
        self.expect_type(t, Type::Player, player.span, "the player of a turn");
        let save = self.alloc_local(1);
        if self.has_windows() {
            code.push(Instr::Window(true));
        }
        code.push(Instr::TurnStart {
            player: p,
            save,
            span: head(s.span, player.span),
        });
        self.block(body, code, loops);
        code.push(Instr::TurnEnd { save });
    }

    /// `choose [by p | each p in C] { arms } [else { otherwise }]`: the `each` binding is
    /// checked and bound here, the choice itself lowered by [`Checker::choose`] between two
    /// windows.
    #[allow(clippy::too_many_arguments)]
    fn choose_stmt(
        &mut self,
        s: &ast::Stmt,
        by: Option<&ast::Expr>,
        each: Option<&ast::Binding>,
        arms: &ast::ChooseArms,
        otherwise: Option<&ast::Block>,
        code: &mut Vec<Instr>,
        loops: &mut Loops,
    ) {
        let depth = self.scopes.len();
        let each2 = each.map(|b| {
            let (coll, ty) = self.coll(&b.coll);
            self.expect_type(
                ty,
                Type::Player,
                b.coll.span,
                "the players of `choose each`",
            );
            let slot = self.bind_local_at(&b.var, Type::Player, "binding");
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
                Code::Choose,
                s.span,
                "a choice cannot have both `by` and `each`",
                "choose one",
            );
        }
        // Windows open before a choice and after it (after the chosen effect).
        if self.has_windows() {
            code.push(Instr::Window(false));
        }
        self.choose(s, by, each2, arms, otherwise, code, loops);
        if self.has_windows() {
            code.push(Instr::Window(false));
        }
        self.scopes.truncate(depth);
    }

    // ---------------------------------------------- statements that run code

    /// `name(args)` as a statement: a procedure, run as `do name(args)` is. Anything else
    /// is an error, with a help that says how to run an action's effect.
    fn call_stmt(
        &mut self,
        s: &ast::Stmt,
        name: &ast::Ident,
        args: &[ast::Expr],
        code: &mut Vec<Instr>,
        loops: &mut Loops,
    ) {
        let found = match self.globals.get(&name.name).copied() {
            Some((Global::Action(a), _)) => Some(a),
            _ => None,
        };
        if !found.is_some_and(|a| self.procedures.contains(&a)) {
            let p = self.error(
                Code::UnknownAction,
                name.span,
                format!("`{}` is not a procedure", name.name),
                "not a procedure",
            );
            p.help = Some(if found.is_some() {
                format!("run an action's effect with `do {}(...)`", name.name)
            } else {
                "declare it with `procedure name(p: Type, ...) { ... }`".into()
            });
            return;
        }
        self.stmt(
            &ast::Stmt {
                kind: S::Do {
                    action: name.clone(),
                    args: args.to_vec(),
                },
                span: s.span,
            },
            code,
            loops,
        );
    }

    /// `do action(args)`: runs an action's effect; windows open after it.
    fn do_stmt(
        &mut self,
        s: &ast::Stmt,
        action: &ast::Ident,
        args: &[ast::Expr],
        code: &mut Vec<Instr>,
    ) {
        let help = "declare it with `action name(...) { ... }`";
        let Some(a) = self.action_called(action, args.len(), s.span, help) else {
            return;
        };
        let xs = args.iter().map(|a| self.expr(a).0).collect();
        code.push(Instr::Do {
            action: a,
            args: xs,
            span: s.span,
        });
        if self.has_windows() {
            code.push(Instr::Window(false));
        }
    }

    /// `do x.effect(args)`: the term must be a field of type `action(...)`, the arguments
    /// those its type lists.
    fn do_field(
        &mut self,
        span: ast::Span,
        target: &ast::Expr,
        args: &[ast::Expr],
        code: &mut Vec<Instr>,
    ) {
        if let K::Name(n) = &target.kind {
            if let Some((Global::Action(a), _)) = self.globals.get(n).copied() {
                let want = self.action_arity.get(&a).copied().unwrap_or(0);
                let args = vec!["_"; want].join(", ");
                let p = self.error(
                    Code::Effect,
                    target.span,
                    format!("`do {n}` needs its arguments in parentheses"),
                    "no arguments written",
                );
                p.help = Some(format!("write `do {n}({args})`"));
                return;
            }
        }
        let (x, t) = self.expr(target);
        let xs: Vec<(Expr, Type)> = args.iter().map(|a| self.expr(a)).collect();
        let sig = match t {
            Type::Action(sig) => sig,
            Type::Any => return,
            other => {
                let what = self.type_name(other);
                let p = self.error(
                    Code::Effect,
                    target.span,
                    "`do` runs an action: `do name(args)`, or `do x.effect(args)` for a field of type `action`",
                    format!("this is {what}, not an action"),
                );
                p.help = Some(
                    "declare the field `effect: action(Card)` and name an action in each entry"
                        .into(),
                );
                return;
            }
        };
        let want = self.game.signatures[sig].clone();
        if want.len() != xs.len() {
            let ty = self.type_name(t);
            let p = self.error(
                Code::Arity,
                span,
                format!(
                    "this field holds `{ty}`: it takes {} argument(s), got {}",
                    want.len(),
                    xs.len()
                ),
                "wrong number of arguments",
            );
            p.help = Some("pass what the field's type lists, e.g. `do c.effect(c)`".into());
        } else {
            for (i, ((_, got), w)) in xs.iter().zip(&want).enumerate() {
                self.expect_type(*got, *w, args[i].span, &format!("argument {}", i + 1));
            }
        }
        code.push(Instr::DoField {
            target: x,
            args: xs.into_iter().map(|(e, _)| e).collect(),
            span,
        });
        if self.has_windows() {
            code.push(Instr::Window(false));
        }
    }
}

/// The head of a statement with a body, from its first word to the end of `last` (the
/// collection of a `for`, the count of a `repeat`, the player of a `turn`): what a run-time
/// error there underlines, without the body.
fn head(stmt: ast::Span, last: ast::Span) -> ast::Span {
    ast::Span {
        end: last.end.max(stmt.start),
        ..stmt
    }
}
