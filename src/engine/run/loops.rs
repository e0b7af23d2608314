//! The flow's loops and rolls: a `for` fused with its one `if` (`ForNextIf`), a loop's
//! elements gathered without the machine when their collection allows it, rolls, and the
//! checks made before the game waits for chance.

use super::*;

impl Game {
    /// [`Step::ForNextIf`] (`step`): binds the loop's name to the next element whose condition holds
    /// (true), or finds none left (false). It spends the units of work of the steps the
    /// unfused loop runs, in the same order and blaming the same loop when they run out: an
    /// element tested spends the test's unit (the `ForNext` that took it was spent by the
    /// step loop or below), and one that fails spends those of the loop's `LoopGuard` (from
    /// which the loop is the one blamed), its `Jump` back and the next `ForNext`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn for_next_if(
        &self,
        m: &mut Machine,
        st: &State,
        locals: &mut [Value],
        iters: &[Value],
        me: u8,
        last_loop: &mut Option<Span>,
        step: &Step,
    ) -> Result<bool, RunError> {
        let Step::ForNextIf {
            slot,
            var,
            cond,
            span,
            guard,
            ..
        } = *step
        else {
            return Err(err("internal: not a filtered loop", None));
        };
        let s = slot as usize;
        let (Value::Int(mut pos), Value::Int(end)) = (locals[s], locals[s + 1]) else {
            return Err(err("internal: loop state lost", None));
        };
        let flags = self.program.is_flag_code(cond);
        // One comparison with a fast form: the elements it fails are passed over in
        // `skip_failing`, as many as the work left pays for (four units each).
        let fast = match self.program.ops.get(cond.start as usize) {
            Some(&Op::Cmp(i)) if flags && cond.end == cond.start + 1 => Some(i),
            _ => None,
        };
        while pos < end {
            if let Some(i) = fast {
                let upto = end.min(pos.saturating_add(i64::try_from(m.fuel / 4).unwrap_or(end)));
                let k = Machine::skip_failing(
                    self,
                    st,
                    i,
                    iters,
                    (pos as usize, upto as usize),
                    locals,
                    var,
                    me,
                ) as i64;
                if k > pos {
                    m.fuel -= 4 * (k - pos) as u64;
                    *last_loop = Some(guard);
                    pos = k;
                    locals[s] = Value::Int(pos);
                    if pos >= end {
                        break;
                    }
                }
            }
            locals[var as usize] = iters[pos as usize];
            pos += 1;
            locals[s] = Value::Int(pos);
            step_spend(m, last_loop)?;
            let holds = if flags {
                m.flag_code(self, st, cond, locals, me).blame(Some(span))?
            } else {
                match m.eval(self, st, cond, locals, me).blame(Some(span))? {
                    Value::Bool(b) => b,
                    other => return Err(expected(self, st, "true or false", other, span)),
                }
            };
            if holds {
                return Ok(true);
            }
            step_spend(m, last_loop)?;
            *last_loop = Some(guard);
            if m.fuel >= 2 {
                m.fuel -= 2;
            } else {
                step_spend(m, last_loop)?;
                step_spend(m, last_loop)?;
            }
        }
        Ok(false)
    }

    /// The elements of a `for` loop's collection when its code is one op walking the seats,
    /// an enum's values or a board's open spaces: pushed onto `iters` without the machine's
    /// iterator, each spending its unit of work as [`Machine::next`] does (false, nothing
    /// pushed: other code).
    #[inline(never)]
    pub(super) fn for_elements(
        &self,
        m: &mut Machine,
        st: &State,
        coll: Code,
        iters: &mut Vec<Value>,
        span: Span,
    ) -> Result<bool, RunError> {
        if coll.end != coll.start + 1 {
            return Ok(false);
        }
        let sp = Some(span);
        match self.program.ops.get(coll.start as usize) {
            Some(Op::IterPlayers) => {
                for p in 0..st.players {
                    m.spend(sp).blame(sp)?;
                    iters.push(Value::Player(p));
                }
            }
            Some(&Op::IterEnum(e)) => {
                for i in 0..self.enums[e].values.len() as u16 {
                    m.spend(sp).blame(sp)?;
                    iters.push(Value::Enum(e, i));
                }
            }
            Some(&Op::IterBoard(b)) if !self.boards[b].closing(&st.consts) => {
                // No space closed: every space, its units of work charged together when
                // the work left pays for them all.
                let n = self.boards[b].len();
                if m.fuel >= n as u64 {
                    m.fuel -= n as u64;
                    iters.extend((0..n).map(|i| Value::Space(b, i)));
                } else {
                    for i in 0..n {
                        m.spend(sp).blame(sp)?;
                        iters.push(Value::Space(b, i));
                    }
                }
            }
            Some(&Op::IterBoard(b)) => {
                let board = &self.boards[b];
                let closing = board.closing(&st.consts);
                for i in 0..board.len() {
                    if !board.is_closed(i, closing) {
                        m.spend(sp).blame(sp)?;
                        iters.push(Value::Space(b, i));
                    }
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// A random element of a roll's domain, drawn from the state's generator. A range is
    /// drawn from without listing it.
    pub(super) fn roll(
        &self,
        m: &mut Machine,
        st: &mut State,
        domain: crate::ir::vm::Code,
        locals: &mut [Value],
        me: u8,
        span: Span,
    ) -> Result<Value, RunError> {
        let start = m.buf.len();
        m.start(self, st, domain, locals, me).blame(Some(span))?;
        if let Some(Iter::Numbers { next, last, done }) = m.iters.last().copied() {
            m.stop();
            if done || next > last {
                return Err(err("a roll with no possible values", Some(span)));
            }
            let n = (last as i128 - next as i128 + 1) as u128;
            let k = if n <= usize::MAX as u128 {
                st.rng.gen_range(0..n as usize) as i128
            } else {
                st.rng.gen_range(0..=u128::MAX) as i128
            };
            return Ok(Value::Int((next as i128 + k) as i64));
        }
        // A domain listed in the scratch buffer (a list, rays, paths) is drawn from in place:
        // its iterator drops what it listed when it stops, so it is not listed again.
        if let Some(Iter::Buf { pos, end, .. }) = m.iters.last().copied() {
            let n = end.saturating_sub(pos) as usize;
            let v = (n > 0).then(|| m.buf[pos as usize + st.rng.gen_range(0..n)]);
            m.stop();
            return v.ok_or_else(|| err("a roll with no possible values", Some(span)));
        }
        while let Some(v) = m.next(self, st, Some(span)).blame(Some(span))? {
            m.buf.push(v);
        }
        let n = m.buf.len() - start;
        if n == 0 {
            return Err(err("a roll with no possible values", Some(span)));
        }
        let v = m.buf[start + st.rng.gen_range(0..n)];
        m.buf.truncate(start);
        Ok(v)
    }

    /// Before waiting on chance: end conditions still apply, then triggers. The game waits
    /// for chance unless it ended or a trigger fired (its span is returned: run its body,
    /// then come back to the same chance event).
    pub(super) fn pause_checks(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut Vec<Value>,
    ) -> Result<Option<Span>, RunError> {
        if self.ended(m, st, locals)? {
            return Ok(None);
        }
        if let Some(sp) = self.fire_trigger(m, st, locals)? {
            return Ok(Some(sp));
        }
        st.wait = Wait::Chance;
        Ok(None)
    }

    /// Whether an `end when` condition holds (the game is then over).
    pub(in crate::engine) fn ended(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut Vec<Value>,
    ) -> Result<bool, RunError> {
        if self.program.end_when.is_empty() {
            return Ok(false); // a game without `end when`: nothing to test
        }
        // Conditions that are one comparison read in place (`empty(deck)`) and do not hold:
        // the game goes on, without the frame's locals moved for the general test.
        let me = st.current.unwrap_or(0);
        if self
            .program
            .end_when
            .iter()
            .all(|&(cond, _)| crate::engine::vm::fixed_test(self, st, cond, me) == Some(false))
        {
            return Ok(false);
        }
        // Compiled, the conditions are tested straight from the state; one that holds (or
        // fails) is tested again the general way, which ends the game (or says why not).
        if self.ended_native(m, st) == Some(false) {
            return Ok(false);
        }
        st.locals = std::mem::take(locals);
        let r = self.check_end_m(m, st);
        *locals = std::mem::take(&mut st.locals);
        r
    }
}
