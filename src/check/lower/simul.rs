//! Lowering of `simultaneous p in C { }` and what may run inside one (section 4.1.2 of the
//! reference): each player's part is run on a private copy of the game and played out again
//! on the game once every part is done, so a part may only make its own player's choices and
//! do what plays out the same the second time.

use super::{Checker, Loops};
use crate::check::Code;
use crate::ir::{ActionId, Arm, Expr, Instr, ProcId, Type};
use crate::source::Span;
use crate::syntax::ast::{self, StmtKind as S};
use std::collections::HashSet;

const HELP: &str = "inside `simultaneous p in C { }` each player only makes its own choices \
                    (`choose` or `choose by p`), with no `turn`, `roll`, `shuffle`, `end`, \
                    `win`, `choose each`, sequence action or other simultaneous block";

impl Checker {
    pub(crate) fn simultaneous(
        &mut self,
        s: &ast::Stmt,
        binding: &ast::Binding,
        body: &ast::Block,
        code: &mut Vec<Instr>,
    ) {
        if self.in_sequence {
            let p = self.error(
                Code::Sequence,
                s.span,
                "a sequence action cannot hold a simultaneous block",
                "other players choose here",
            );
            p.help = Some("the choices of a `sequence action` make one move of one player".into());
        }
        let depth = self.scopes.len();
        let (coll, ty) = self.coll(&binding.coll);
        self.expect_type(
            ty,
            Type::Player,
            binding.coll.span,
            "the players of `simultaneous`",
        );
        let slot = self.bind_local_at(&binding.var, Type::Player, "binding");
        let at = code.len();
        code.push(Instr::Simul {
            coll,
            slot,
            end: 0,
            span: s.span,
        });
        let outer = self.simul.replace((slot, binding.var.name.clone()));
        // A fresh list of loops: `break` cannot leave the block.
        let mut inner: Loops = vec![];
        self.block(body, code, &mut inner);
        self.simul = outer;
        let end = Self::here(code);
        code.push(Instr::SimulEnd);
        if let Instr::Simul { end: e, .. } = &mut code[at] {
            *e = end;
        }
        self.scopes.truncate(depth);
    }

    /// A statement written inside a simultaneous block that cannot be there.
    pub(crate) fn simul_stmt(&mut self, s: &ast::Stmt) {
        let Some((_, name)) = self.simul.clone() else {
            return;
        };
        let what = match &s.kind {
            S::Turn { .. } => "`turn`",
            S::Roll { .. } => "`roll`",
            S::Shuffle(_) => "`shuffle`",
            S::End(_) => "`end`",
            S::Win(_) => "`win`",
            S::Simultaneous { .. } => "a simultaneous block",
            S::Choose { each: Some(_), .. } => "`choose each`",
            S::Choose { by: Some(b), .. } if !matches!(&b.kind, ast::ExprKind::Name(n) if *n == name || n == "me") =>
            {
                let p = self.error(
                    Code::Simultaneous,
                    b.span,
                    format!("inside a simultaneous block, choices are made by `{name}`"),
                    "another player",
                );
                p.help = Some(HELP.into());
                return;
            }
            _ => return,
        };
        let p = self.error(
            Code::Simultaneous,
            s.span,
            format!("{what} cannot be inside a simultaneous block"),
            "not allowed here",
        );
        p.help = Some(HELP.into());
    }

    /// The actions a simultaneous block runs (offered in its choices, or run with `do`, and
    /// so on through theirs) are held to the same rules as its body.
    pub(crate) fn check_simultaneous(&mut self) {
        let mut reached: Vec<(ActionId, Span)> = vec![];
        for proc in self.game.procs.ids() {
            let code = &self.game.procs[proc].code;
            for (pc, ins) in code.iter().enumerate() {
                if let Instr::Simul { end, span, .. } = ins {
                    for inner in &code[pc + 1..*end as usize] {
                        self.actions_of(inner, &mut |a| reached.push((a, *span)));
                    }
                }
            }
        }
        let mut seen: HashSet<ActionId> = HashSet::new();
        let mut bad: Vec<(Span, String, String)> = vec![];
        while let Some((a, block)) = reached.pop() {
            if !seen.insert(a) {
                continue;
            }
            let act = &self.game.actions[a];
            if act.sequence {
                bad.push((
                    act.span,
                    format!(
                        "sequence action `{}` cannot be chosen in a simultaneous block",
                        act.name
                    ),
                    "offered inside a simultaneous block".into(),
                ));
            }
            let proc: ProcId = act.proc;
            for ins in &self.game.procs[proc].code {
                if let Some((sp, what)) = self.not_in_block(ins) {
                    bad.push((
                        sp.unwrap_or(act.span),
                        format!(
                            "{what} in action `{}`, which runs inside a simultaneous block",
                            act.name
                        ),
                        "not allowed inside a simultaneous block".into(),
                    ));
                }
                self.actions_of(ins, &mut |b| reached.push((b, block)));
            }
        }
        bad.sort_by_key(|b| (b.0.start, b.0.end));
        bad.dedup_by(|x, y| x.0 == y.0 && x.1 == y.1);
        for (sp, msg, label) in bad {
            let p = self.error(Code::Simultaneous, sp, msg, label);
            p.help = Some(HELP.into());
        }
    }

    /// The actions an instruction offers or runs.
    fn actions_of(&self, ins: &Instr, f: &mut dyn FnMut(ActionId)) {
        match ins {
            Instr::Choose(c) => {
                for arm in &self.game.choices[*c].arms {
                    if let Arm::Action(a) = arm {
                        f(*a);
                    }
                }
            }
            Instr::Do { action, .. } => f(*action),
            _ => {}
        }
    }

    /// What an instruction of an action run inside a simultaneous block must not do.
    fn not_in_block(&self, ins: &Instr) -> Option<(Option<Span>, &'static str)> {
        match ins {
            Instr::Roll { span, .. } => Some((Some(*span), "`roll`")),
            Instr::Shuffle { span, .. } => Some((Some(*span), "`shuffle`")),
            Instr::TurnStart { span, .. } => Some((Some(*span), "`turn`")),
            Instr::End(_) => Some((None, "`end`")),
            Instr::Win { span, .. } => Some((Some(*span), "`win`")),
            Instr::Simul { span, .. } => Some((Some(*span), "a simultaneous block")),
            Instr::Choose(c) => {
                let ch = &self.game.choices[*c];
                if ch.each.is_some() {
                    Some((Some(ch.span), "`choose each`"))
                } else if ch.by.as_ref().is_some_and(|b| !matches!(b, Expr::Me)) {
                    Some((Some(ch.span), "a choice by another player (`choose by`)"))
                } else {
                    None
                }
            }
            _ => None,
        }
    }
}
