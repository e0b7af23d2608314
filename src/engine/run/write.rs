//! Writes: assignments to variables, fields and locals, components moved between zones,
//! and actions run with `do`.

use super::*;

impl Game {
    /// Assigns (or adds to, or takes from) a variable, a field or a local; a range type's
    /// bounds are enforced.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn assign(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut [Value],
        me: u8,
        target: &Target,
        op: AssignOp,
        v: Value,
        span: Span,
    ) -> Result<(), RunError> {
        let sp = Some(span);
        enum Place {
            Local(usize),
            Var(VarId, usize),
            Field(CompId, u16),
        }
        let at = match *target {
            Target::Local(l) => Place::Local(l as usize),
            Target::Var { var, index } => match local_slot(self, st, var, index, locals) {
                Some(slot) => Place::Var(var, slot),
                None => {
                    m.run_code(self, st, index, locals, me).blame(sp)?;
                    let slot = m.target_slot(self, st, var).blame(sp)?;
                    Place::Var(var, slot)
                }
            },
            Target::Field { comp: c, field } => {
                let v = m.eval(self, st, c, locals, me).blame(sp)?;
                let c = comp(self, st, v, span)?;
                if field as usize >= self.comps[c].fields.len() {
                    return Err(err("this component has no such field", sp));
                }
                Place::Field(c, field)
            }
        };
        let (old, range, clamp) = match at {
            Place::Local(i) => (locals[i], None, false),
            Place::Var(var, slot) => (st.vars[slot], self.vars[var].range, self.vars[var].clamp),
            Place::Field(c, f) => {
                let fd = &self.types[self.comps[c].ty].fields[f as usize];
                (st.fields[self.field_slot(c, f)], fd.range, fd.clamp)
            }
        };
        let describe = || match &at {
            Place::Local(_) => "a local".to_string(),
            Place::Var(var, _) => format!("`{}`", self.vars[*var].name),
            Place::Field(c, f) => format!(
                "field `{}`",
                self.types[self.comps[*c].ty].fields[*f as usize].name
            ),
        };
        // A value some seat may not see is never quoted in a message.
        let secret = || match &at {
            Place::Local(_) => false,
            Place::Var(var, _) => self.vars[*var].visibility != Visibility::Public,
            Place::Field(c, f) => self.types[self.comps[*c].ty].fields[*f as usize]
                .seen_by
                .is_some(),
        };
        let mut new = match op {
            AssignOp::Set => v,
            AssignOp::Add | AssignOp::Sub => match (old, v) {
                (Value::Int(a), Value::Int(b)) => {
                    let r = if op == AssignOp::Add {
                        a.checked_add(b)
                    } else {
                        a.checked_sub(b)
                    };
                    Value::Int(r.ok_or_else(|| err("arithmetic overflow", sp))?)
                }
                _ => return Err(err(format!("{} is not a number", describe()), sp)),
            },
        };
        if let (Some((lo, hi)), Value::Int(n), true) = (range, new, clamp) {
            new = Value::Int(n.clamp(lo, hi));
        }
        if let (Some((lo, hi)), Value::Int(n)) = (range, new) {
            if n < lo || n > hi {
                let becomes = if secret() {
                    "would leave".to_string()
                } else {
                    format!("would become {n}, outside")
                };
                return Err(err(
                    format!("{} {becomes} its range {lo}..{hi}", describe()),
                    sp,
                ));
            }
        }
        if old != new && !matches!(at, Place::Local(_)) {
            st.window.changes += 1;
        }
        match at {
            Place::Local(i) => locals[i] = new,
            Place::Var(var, slot) => st.set_var(&self.program, var, self.vars[var].base, slot, new),
            Place::Field(c, f) => {
                let slot = self.field_slot(c, f);
                st.set_field(&self.program, c, f, slot, new);
            }
        }
        Ok(())
    }

    /// The value of code that is one op reading a number, `none`, `me`, a local or a zone
    /// (that cannot fail), read without entering the machine; `None` for any other code.
    #[inline(always)]
    pub(in crate::engine) fn read_simple(
        &self,
        code: Code,
        locals: &[Value],
        me: u8,
    ) -> Option<Value> {
        if code.end != code.start + 1 {
            return None;
        }
        match *self.program.ops.get(code.start as usize)? {
            Op::Int(n) => Some(Value::Int(n as i64)),
            Op::None => Some(Value::None),
            Op::Me => Some(Value::Player(me)),
            Op::Local(l) => locals.get(l as usize).copied(),
            Op::Inst(i) => Some(Value::Zone(i)),
            _ => None,
        }
    }

    /// [`Game::assign`] in place for its most common shape: `var[x] = v` of a variable
    /// without a range, `x` a local or a local's field holding an index in range (nothing to
    /// check, nothing that can fail). False, nothing done: any other assignment.
    #[inline(always)]
    pub(super) fn set_local_var(
        &self,
        st: &mut State,
        locals: &[Value],
        target: &Target,
        op: AssignOp,
        v: Value,
    ) -> bool {
        let (&Target::Var { var, index }, AssignOp::Set) = (target, op) else {
            return false;
        };
        let def = &self.vars[var];
        if def.range.is_some() {
            return false;
        }
        let Some(slot) = local_slot(self, st, var, index, locals) else {
            return false;
        };
        let Some(&old) = st.vars.get(slot) else {
            return false;
        };
        if old != v {
            st.window.changes += 1;
        }
        st.set_var(&self.program, var, def.base, slot, v);
        true
    }

    /// Moves a component onto the top (or bottom) of a zone of its type.
    pub(crate) fn move_comp(
        &self,
        st: &mut State,
        c: CompId,
        to: InstId,
        bottom: bool,
        span: Span,
    ) -> Result<(), RunError> {
        let want = self.zones[self.instances[to].zone].ty;
        let ty = self.comps[c].ty;
        if want != ty {
            return Err(err(
                format!(
                    "{} cannot go to {}: that zone holds {}",
                    show_value(self, st, Value::Comp(c)),
                    self.zone_instance_name(to),
                    self.types[want].name
                ),
                Some(span),
            ));
        }
        let fam = &self.program.families;
        if fam.on {
            moved(st, fam, c, to);
        }
        st.zones.put(c, to, bottom);
        st.window.changes += 1;
        Ok(())
    }
}

impl Game {
    /// Runs an action with `do` (named, or stored in a field): its arguments evaluated in the
    /// frame `at` (its index and the step after the `do`, where it resumes), then a frame for
    /// its effect with its parameters bound to them in order.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn do_action(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut Vec<Value>,
        base: usize,
        me: u8,
        (fi, next): (usize, u32),
        action: ActionId,
        args: &[Code],
        span: Span,
    ) -> Result<(), RunError> {
        let act = &self.actions[action];
        let mut vals = [Value::None; MAX_ARGS];
        for (i, a) in args.iter().enumerate().take(MAX_ARGS) {
            vals[i] = m
                .eval(self, st, *a, &mut locals[base..], me)
                .blame(Some(span))?;
        }
        st.frames[fi].pc = next;
        push(self, &mut st.frames, locals, act.proc, me, &[], Some(span))?;
        let nb = st.frames[st.frames.len() - 1].base as usize;
        for (i, b) in act.params.iter().enumerate() {
            locals[nb + b.slot as usize] = vals[i];
        }
        // A parameter over a range takes no value outside it (its bounds may read the
        // parameters before it): `do` skips the guard, not the parameter's domain.
        let binds = &self.program.actions[action].binds;
        for (i, (b, cb)) in act.params.iter().zip(binds).enumerate() {
            if !matches!(b.coll, Coll::Range(..)) {
                continue;
            }
            m.start(self, st, cb.coll, &mut locals[nb..], me)
                .blame(Some(span))?;
            let bounds = match m.iters.last() {
                Some(&Iter::Numbers { next, last, .. }) => Some((next, last)),
                _ => None,
            };
            m.stop();
            let (Some((lo, hi)), Value::Int(v)) = (bounds, vals[i]) else {
                continue;
            };
            if v < lo || v > hi {
                return Err(err(
                    format!("`{}` takes `{}` in {lo}..{hi}, not {v}", act.name, b.name),
                    Some(span),
                ));
            }
        }
        Ok(())
    }
}
