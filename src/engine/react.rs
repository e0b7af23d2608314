//! Reactions the interpreter runs by itself: `when` triggers, tested at every pause.

use super::vm::Machine;
use super::*;
use crate::ir::*;
use crate::source::Span;

impl Game {
    /// Tests the triggers in declaration order (a trigger whose body is running is skipped);
    /// the first that holds gets its body pushed as a frame, with `me` the current player
    /// (or seat 0), and its span is returned: the caller resumes the loop and reaches the
    /// same pause again once the body is done. `None`: no trigger holds.
    pub(super) fn fire_trigger(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut Vec<Value>,
    ) -> Result<Option<Span>, RunError> {
        if self.program.triggers.is_empty() {
            return Ok(None);
        }
        let me = st.current.unwrap_or(0);
        for t in &self.program.triggers {
            if st.frames.iter().any(|f| f.proc == t.proc) {
                continue;
            }
            let mut scratch = [Value::None; MAX_LOCALS];
            let v = m
                .eval(self, st, t.test, &mut scratch, me)
                .blame(Some(t.span))?;
            let elem = match (t.each, v) {
                (None, Value::Bool(true)) => None,
                (None, _) | (Some(_), Value::None) => continue,
                (Some(slot), v) => Some((slot, v)),
            };
            super::run::push(self, &mut st.frames, locals, t.proc, me, &[], Some(t.span))?;
            if let Some((slot, v)) = elem {
                let base = st.frames[st.frames.len() - 1].base as usize;
                locals[base + slot as usize] = v;
            }
            return Ok(Some(t.span));
        }
        Ok(None)
    }
}
