//! `after a(args): body`: an expression read in the state an action's effect would leave.

use super::*;
use crate::check::{names, Code};
use crate::ir::{self, ActionId, Value};
use crate::syntax::ast;

impl Checker {
    /// The action `name` that `do` or `after` runs with `args` arguments, noted as used;
    /// `check::unknown_action` (with `help`) when there is none, `check::arity` (at `span`)
    /// when the number of arguments is not its number of parameters.
    pub(crate) fn action_called(
        &mut self,
        name: &ast::Ident,
        args: usize,
        span: ast::Span,
        help: &str,
    ) -> Option<ActionId> {
        let Some((Global::Action(a), _)) = self.globals.get(&name.name).copied() else {
            let p = self.error(
                Code::UnknownAction,
                name.span,
                format!("unknown action `{}`", name.name),
                "not an action",
            );
            p.help = Some(help.into());
            return None;
        };
        self.action_refs.insert(a);
        self.note_use(name.span, names::Target::Global(Global::Action(a)));
        let want = self.action_arity.get(&a).copied().unwrap_or(0);
        if want != args {
            self.error(
                Code::Arity,
                span,
                format!("`{}` takes {want} argument(s), got {args}", name.name),
                "wrong number of arguments",
            );
        }
        Some(a)
    }

    /// Lowers `after action(args): body`: the action's arguments are checked as `do` checks
    /// them (their number, their types against the parameters'), the body as any expression
    /// of the place it is written (it reads the same locals and `me`).
    pub(crate) fn after(
        &mut self,
        action: &ast::Ident,
        args: &[ast::Expr],
        body: &ast::Expr,
        span: ast::Span,
    ) -> (Expr, Type) {
        let (b, ty) = self.expr(body);
        let help = "`after` runs an action's effect: `after move(from, to): in_check(me)`";
        let Some(a) = self.action_called(action, args.len(), span, help) else {
            return (Expr::Lit(Value::None), ty);
        };
        if self.game.actions[a].sequence {
            let p = self.error(
                Code::Sequence,
                action.span,
                format!(
                    "`after` cannot run the sequence action `{}`: its effect makes choices",
                    action.name
                ),
                "a sequence action",
            );
            p.help = Some(
                "ask about an action whose effect makes no choice, or put the question in the \
                 sequence action's own choices"
                    .into(),
            );
        }
        let params = self.action_params.get(&a).cloned().unwrap_or_default();
        let mut xs = Vec::with_capacity(args.len());
        for (i, x) in args.iter().enumerate() {
            let (e, t) = self.expr(x);
            if let Some(&p) = params.get(i) {
                self.expect_type(t, p, x.span, "an argument");
            }
            xs.push(e);
        }
        let me = self.me_as.clone().unwrap_or(Expr::Me);
        let after = ir::After {
            action: a,
            args: xs,
            me,
            body: b,
            span,
        };
        (Expr::After(Box::new(after)), ty)
    }
}
