//! Lowering of `choose`: the options of a decision and where play goes on.

use super::{Checker, Global, Loops};
use crate::check::Code;
use crate::ir::{self, Instr, Type};
use crate::syntax::ast::{self};

impl Checker {
    /// A choice: who makes it, its options (named ones, or values bound by a `choose x in
    /// C`), its `else` block, and where each chosen option goes on.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn choose(
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
        let by_other = by.is_some_and(|b| !matches!(&b.kind, ast::ExprKind::Name(n) if n == "me"));
        if self.in_sequence && (simultaneous || by_other) {
            let p = self.error(
                Code::Sequence,
                s.span,
                "a choice inside a sequence action must be made by the player moving",
                "another player chooses here",
            );
            p.help = Some(
                "the choices of a `sequence action` make one move of one player: drop `by` / \
                 `each`, or make it a plain `action`"
                    .into(),
            );
        }
        let by2 = by.map(|b| {
            let (x, t) = self.expr(b);
            self.expect_type(t, Type::Player, b.span, "the chooser");
            x
        });
        let cid = self.game.choices.next_id();
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
                        Code::Choose,
                        s.span,
                        "a choice with no options",
                        "nothing to choose",
                    );
                }
                for a in list {
                    match &a.body {
                        None => {
                            if let Some(arm) = self.offered_action(a, simultaneous) {
                                out_arms.push(arm);
                            }
                        }
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
                let arm = self.value_arm(s, bindings, guard.as_ref(), body, code, loops, &mut ends);
                out_arms.push(arm);
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
        let c = &mut self.game.choices[cid];
        c.arms = out_arms;
        c.else_pc = else_pc;
        c.end_pc = end;
    }

    /// A named option without a body: an action offered, or `None`, with an error reported,
    /// for a procedure, a sequence action where one cannot be offered, or an unknown name.
    fn offered_action(&mut self, a: &ast::Arm, simultaneous: bool) -> Option<ir::Arm> {
        match self.globals.get(&a.name.name).copied() {
            Some((Global::Action(ai), _)) if self.procedures.contains(&ai) => {
                let p = self.error(
                    Code::Choose,
                    a.name.span,
                    format!("`{}` is a procedure: it is run, not chosen", a.name.name),
                    "a procedure",
                );
                p.help = Some(format!(
                    "offer an action that runs it: `action go(...) {{ {}(...) }}`",
                    a.name.name
                ));
            }
            Some((Global::Action(ai), _)) => {
                if self.game.actions[ai].sequence && (self.in_sequence || simultaneous) {
                    let p = self.error(
                        Code::Sequence,
                        a.name.span,
                        format!("sequence action `{}` cannot be offered here", a.name.name),
                        if simultaneous {
                            "in a `choose each`"
                        } else {
                            "inside another sequence action"
                        },
                    );
                    p.help = Some(
                        "offer a sequence action in a plain `choose` of the \
                         flow or of an ordinary action"
                            .into(),
                    );
                }
                self.action_refs.insert(ai);
                let target = crate::check::names::Target::Global(Global::Action(ai));
                self.note_use(a.name.span, target);
                self.game.actions[ai].offered = true;
                return Some(ir::Arm::Action(ai));
            }
            _ => {
                let p = self.error(
                    Code::UnknownAction,
                    a.name.span,
                    format!("unknown action `{}`", a.name.name),
                    "not an action",
                );
                p.help = Some(format!("declare `action {}(...) {{ ... }}`, or give an inline option a body: `{} {{ }}`", a.name.name, a.name.name));
            }
        }
        None
    }

    /// `choose x in C where cond { body }`: the names bound, the guard split into the parts
    /// tested as soon as their names are bound, and the body, which jumps to the end of the
    /// choice (its jump added to `ends`).
    #[allow(clippy::too_many_arguments)]
    fn value_arm(
        &mut self,
        s: &ast::Stmt,
        bindings: &[ast::Binding],
        guard: Option<&ast::Expr>,
        body: &ast::Block,
        code: &mut Vec<Instr>,
        loops: &mut Loops,
        ends: &mut Vec<usize>,
    ) -> ir::Arm {
        if bindings.len() > ir::MAX_ARGS {
            self.error(
                Code::Arity,
                s.span,
                format!("a choice binds at most {} names", ir::MAX_ARGS),
                "too many names",
            );
        }
        let depth = self.scopes.len();
        let binds = self.bind_all(bindings);
        let g = guard.map(|g| {
            let (x, t) = self.expr(g);
            self.expect_type(t, Type::Bool, g.span, "a `where` condition");
            x
        });
        let slots: Vec<u16> = binds.iter().map(|b| b.slot).collect();
        let parts = self.guard_parts(guard, &slots);
        let pc = Self::here(code);
        self.block(body, code, loops);
        self.scopes.truncate(depth);
        ends.push(code.len());
        code.push(Instr::Jump(0));
        ir::Arm::Inline {
            label: None,
            binds,
            guard_parts: parts,
            guard: g,
            guard_span: guard.map(|g| g.span),
            body_pc: pc,
        }
    }
}
