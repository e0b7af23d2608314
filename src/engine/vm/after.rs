//! `after a(args): body` ([`Op::After`]): the effect of an action run on a copy of the state,
//! and an expression read there.
//!
//! The copy comes from the machine's spare states; the effect runs on a second machine kept
//! by this one (its stacks are in use), with what is left of this one's work budget, which it
//! spends. The effect stops when its own frame returns (as an explored sequence action's
//! does), so nothing the flow would do next runs; an effect that reaches a choice or a chance
//! event is an error, since the state it leaves is not known.

use super::*;
use crate::engine::Wait;
use crate::ir::vm::CAfter;

/// How deeply `after` expressions may nest (an `after` in the body of another, or in a
/// function the effect's rules call).
pub const MAX_AFTER_DEPTH: u8 = 8;

impl Machine {
    /// Runs [`Op::After`] number `i`: its arguments and `me` are on the stack; the value of
    /// its body is pushed and `pc` set past the body.
    pub(super) fn after(
        &mut self,
        g: &Game,
        s: &State,
        i: u32,
        pc: &mut u32,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<()> {
        let Some(&CAfter { action, argc, body }) = g.program.afters.get(i as usize) else {
            return Err(err("internal: an unknown `after`", None));
        };
        *pc = body.end;
        let who = match self.pop() {
            Value::Player(p) if p < s.players => p,
            other => return Err(expected(g, s, "a player", other, None)),
        };
        let n = (argc as usize).min(MAX_ARGS);
        let mut args = [Value::None; MAX_ARGS];
        for k in (0..n).rev() {
            args[k] = self.pop();
        }
        if self.hypothetical >= MAX_AFTER_DEPTH {
            return Err(err(
                format!("`after` nested more than {MAX_AFTER_DEPTH} deep"),
                None,
            ));
        }
        let mut node = self.spare(s);
        let mut inner = self.inner.take().unwrap_or_default();
        inner.reset(self.fuel);
        inner.hypothetical = self.hypothetical + 1;
        let r = g
            .hypothetical(&mut inner, &mut node, action, &args[..n], who)
            .map_err(Box::new)
            .and_then(|()| inner.eval(g, &node, body, locals, me));
        self.fuel = inner.fuel;
        inner.reset(0);
        self.inner = Some(inner);
        self.recycle(node);
        self.stack.push(r?);
        Ok(())
    }
}

impl Game {
    /// Runs action `action`'s effect on `node` (a copy of a state), with `args` for its
    /// parameters and `me` = `who`, until the effect's frame returns or the game ends.
    pub(crate) fn hypothetical(
        &self,
        m: &mut Machine,
        node: &mut State,
        action: ActionId,
        args: &[Value],
        who: u8,
    ) -> Result<(), RunError> {
        node.cache.clear();
        node.runs.clear();
        let act = &self.actions[action];
        let base = node.locals.len();
        self.push_frame(node, act.proc, who, &[])?;
        let depth = node.frames.len();
        node.frames[depth - 1].inside = true;
        for (b, v) in act.params.iter().zip(args) {
            if let Some(slot) = node.locals.get_mut(base + b.slot as usize) {
                *slot = *v;
            }
        }
        node.wait = Wait::Running;
        let saved = std::mem::replace(&mut m.stop_depth, depth);
        let r = self.run_m(m, node);
        m.stop_depth = saved;
        r?;
        if node.wait == Wait::Over || node.frames.len() < depth {
            return Ok(());
        }
        let name = &act.name;
        Err(match node.wait {
            Wait::Decision { choice, .. } => RunError::rule(
                format!("`after {name}(...)` cannot look past a choice: its effect reaches one"),
                Some(self.choices[choice].span),
            ),
            _ => RunError::rule(
                format!("`after {name}(...)` cannot look past a chance event"),
                None,
            ),
        })
    }

    /// The state action `action`'s effect would leave from `s` (`after`): for the reference
    /// evaluator, which reads the state it leaves as it reads any other.
    pub fn after_state(
        &self,
        s: &State,
        action: ActionId,
        args: &[Value],
        who: u8,
    ) -> Result<State, RunError> {
        with_machine(s.fuel, |m| {
            m.hypothetical = 1;
            let mut node = s.clone();
            self.hypothetical(m, &mut node, action, args, who)?;
            Ok(node)
        })
    }
}
