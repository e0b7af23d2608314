//! The bytecode loop: runs the rules until the next decision, chance event or end.
use super::eval::{Ctx, Env};
use super::*;
use crate::ir::*;
use rand::Rng;

impl Game {
    /// Runs until a decision, a chance event (external mode) or the end.
    pub(crate) fn run(&self, st: &mut State) -> Result<(), RunError> {
        let mut locals = std::mem::take(&mut st.locals);
        let mut iters = std::mem::take(&mut st.iters);
        let r = self.run_inner(st, &mut locals, &mut iters);
        st.locals = locals;
        st.iters = iters;
        r
    }

    fn run_inner(
        &self,
        st: &mut State,
        locals: &mut Vec<Value>,
        iters: &mut Vec<Value>,
    ) -> Result<(), RunError> {
        let mut steps: u64 = 0;
        let mut last_loop: Option<Span> = None;
        loop {
            steps += 1;
            if steps > STEP_LIMIT {
                return Err(err(format!("the rules ran {STEP_LIMIT} steps without reaching a decision: a loop that never ends?"), last_loop));
            }
            let Some(&frame) = st.frames.last() else {
                match st.phase {
                    Phase::Setup => {
                        st.phase = Phase::Flow;
                        let base = locals.len() as u32;
                        locals.resize(
                            base as usize + self.procs[self.flow].locals as usize,
                            Value::None,
                        );
                        st.frames.push(Frame {
                            proc: self.flow,
                            pc: 0,
                            base,
                            me: 0,
                        });
                        continue;
                    }
                    _ => {
                        st.locals = std::mem::take(locals);
                        let r = self.finish(st, EndKind::Score, None);
                        *locals = std::mem::take(&mut st.locals);
                        return r;
                    }
                }
            };
            let fi = st.frames.len() - 1;
            let code = &self.procs[frame.proc].code;
            if frame.pc as usize >= code.len() {
                locals.truncate(frame.base as usize);
                st.frames.pop();
                continue;
            }
            let base = frame.base as usize;
            let ctx = Ctx { g: self, s: st };
            let mut env = Env {
                locals: &mut locals[base..],
                me: frame.me,
                depth: 0,
            };
            let mut next = frame.pc + 1;
            match &code[frame.pc as usize] {
                Instr::Let(slot, e) => {
                    let v = ctx.eval(e, &mut env).map_err(|e| with_span(e, None))?;
                    env.locals[*slot as usize] = v;
                }
                Instr::Assign {
                    target,
                    op,
                    value,
                    span,
                } => {
                    let v = ctx
                        .eval(value, &mut env)
                        .map_err(|e| with_span(e, Some(*span)))?;
                    self.assign(st, locals, frame, target, *op, v, *span)?;
                }
                Instr::Move {
                    what,
                    to,
                    bottom,
                    span,
                } => {
                    let c = ctx
                        .comp(what, &mut env)
                        .map_err(|e| with_span(e, Some(*span)))?;
                    let z = ctx
                        .zone(to, &mut env)
                        .map_err(|e| with_span(e, Some(*span)))?;
                    self.move_comp(st, c, z, *bottom, *span)?;
                }
                Instr::Deal {
                    count,
                    from,
                    to,
                    bottom,
                    span,
                } => {
                    let f = ctx
                        .zone(from, &mut env)
                        .map_err(|e| with_span(e, Some(*span)))?;
                    let t = ctx
                        .zone(to, &mut env)
                        .map_err(|e| with_span(e, Some(*span)))?;
                    let n = match count {
                        Some(c) => ctx
                            .int(c, &mut env)
                            .map_err(|e| with_span(e, Some(*span)))?
                            .max(0) as usize,
                        None => usize::MAX,
                    };
                    let n = n.min(st.zones[f].len());
                    for _ in 0..n {
                        let c = *st.zones[f].last().expect("counted");
                        self.move_comp(st, c, t, *bottom, *span)?;
                    }
                }
                Instr::Shuffle { zone, span } => {
                    let z = ctx
                        .zone(zone, &mut env)
                        .map_err(|e| with_span(e, Some(*span)))?;
                    if st.zones[z].len() > 1 {
                        if st.chance == ChanceMode::External {
                            st.wait = Wait::Chance;
                            return self.pause_checks(st, locals);
                        }
                        let items = &mut st.zones[z];
                        for i in (1..items.len()).rev() {
                            let j = st.rng.gen_range(0..=i);
                            items.swap(i, j);
                        }
                    }
                }
                Instr::Roll {
                    target,
                    domain,
                    span,
                } => {
                    if st.chance == ChanceMode::External {
                        st.wait = Wait::Chance;
                        return self.pause_checks(st, locals);
                    }
                    let start = iters.len();
                    ctx.each(domain, &mut env, false, &mut |v, _| {
                        iters.push(v);
                        Ok(true)
                    })
                    .map_err(|e| with_span(e, Some(*span)))?;
                    let n = iters.len() - start;
                    if n == 0 {
                        return Err(err("a roll with no possible values", Some(*span)));
                    }
                    let v = iters[start + st.rng.gen_range(0..n)];
                    iters.truncate(start);
                    self.assign(st, locals, frame, target, AssignOp::Set, v, *span)?;
                }
                Instr::Jump(t) => next = *t,
                Instr::JumpIfNot(c, t, span) => {
                    if !ctx
                        .bool(c, &mut env)
                        .map_err(|e| with_span(e, Some(*span)))?
                    {
                        next = *t;
                    }
                }
                Instr::ForInit { coll, slot } => {
                    let start = iters.len();
                    ctx.each(coll, &mut env, false, &mut |v, _| {
                        iters.push(v);
                        Ok(true)
                    })?;
                    let s = *slot as usize;
                    env.locals[s] = Value::Int(start as i64);
                    env.locals[s + 1] = Value::Int(iters.len() as i64);
                    env.locals[s + 2] = Value::Int(start as i64);
                }
                Instr::ForNext { slot, var, exit } => {
                    let s = *slot as usize;
                    let (Value::Int(pos), Value::Int(end)) = (env.locals[s], env.locals[s + 1])
                    else {
                        return Err(err("internal: loop state lost", None));
                    };
                    if pos < end {
                        env.locals[*var as usize] = iters[pos as usize];
                        env.locals[s] = Value::Int(pos + 1);
                    } else {
                        next = *exit;
                    }
                }
                Instr::ForDone { slot } => {
                    if let Value::Int(start) = env.locals[*slot as usize + 2] {
                        iters.truncate(start as usize);
                    }
                }
                Instr::Choose(cid) if self.choices[*cid].each.is_some() => {
                    let ch = &self.choices[*cid];
                    let (bind, iter) = ch.each.as_ref().expect("checked");
                    let mut seats = [false; crate::ir::MAX_PLAYERS];
                    ctx.each(&bind.coll, &mut env, false, &mut |v, _| {
                        if let Value::Player(p) = v {
                            seats[p as usize] = true;
                        }
                        Ok(true)
                    })
                    .map_err(|e| with_span(e, Some(ch.span)))?;
                    env.locals[*iter as usize] = Value::Int(0);
                    env.locals[*iter as usize + 1] = Value::Player(frame.me);
                    st.locals = std::mem::take(locals);
                    let ended = self.check_end(st);
                    let mut pending = Ok(None);
                    if let Ok(false) = ended {
                        st.commits = vec![Some(Action::SKIP); st.players as usize];
                        for p in 0..st.players {
                            if !seats[p as usize] {
                                continue;
                            }
                            match self.has_option(st, *cid, p) {
                                Ok(true) => st.commits[p as usize] = None,
                                Ok(false) => {}
                                Err(e) => {
                                    pending = Err(with_span(e, Some(ch.span)));
                                    break;
                                }
                            }
                        }
                        if pending.is_ok() {
                            pending = Ok(st.commits.iter().position(|c| c.is_none()));
                        }
                    }
                    *locals = std::mem::take(&mut st.locals);
                    if ended? {
                        return Ok(());
                    }
                    match pending? {
                        Some(p) => {
                            st.wait = Wait::Decision {
                                choice: *cid,
                                actor: p as u8,
                            };
                            return Ok(());
                        }
                        None => {
                            st.commits.clear();
                            next = ch.else_pc.unwrap_or(ch.end_pc);
                        }
                    }
                }
                Instr::SimNext(cid) => {
                    let ch = &self.choices[*cid];
                    let (bind, iter) = ch.each.as_ref().expect("a simultaneous choice");
                    let start = match env.locals[*iter as usize] {
                        Value::Int(n) => n as usize,
                        _ => 0,
                    };
                    let found = (start..st.commits.len()).find_map(|s| match st.commits[s] {
                        Some(a) if a.arm != Action::SKIP.arm => Some((s, a)),
                        _ => None,
                    });
                    match found {
                        None => {
                            st.frames[fi].me = match env.locals[*iter as usize + 1] {
                                Value::Player(p) => p,
                                _ => frame.me,
                            };
                            st.commits.clear();
                            next = ch.end_pc;
                        }
                        Some((seat, a)) => {
                            env.locals[*iter as usize] = Value::Int(seat as i64 + 1);
                            env.locals[bind.slot as usize] = Value::Player(seat as u8);
                            st.frames[fi].me = seat as u8;
                            match &ch.arms[a.arm as usize] {
                                Arm::Action(ai) => {
                                    let act = &self.actions[*ai];
                                    st.frames[fi].pc = frame.pc;
                                    let nb = locals.len();
                                    locals.resize(
                                        nb + self.procs[act.proc].locals as usize,
                                        Value::None,
                                    );
                                    for (i, b) in act.params.iter().enumerate() {
                                        locals[nb + b.slot as usize] = a.args[i];
                                    }
                                    st.frames.push(Frame {
                                        proc: act.proc,
                                        pc: 0,
                                        base: nb as u32,
                                        me: seat as u8,
                                    });
                                    continue;
                                }
                                Arm::Inline { binds, body_pc, .. } => {
                                    for (i, b) in binds.iter().enumerate() {
                                        env.locals[b.slot as usize] = a.args[i];
                                    }
                                    next = *body_pc;
                                }
                            }
                        }
                    }
                }
                Instr::Choose(cid) => {
                    let ch = &self.choices[*cid];
                    let actor = match &ch.by {
                        Some(b) => match ctx
                            .eval(b, &mut env)
                            .map_err(|e| with_span(e, Some(ch.span)))?
                        {
                            Value::Player(p) => p,
                            other => {
                                return Err(err(
                                    format!(
                                        "the chooser must be a player, not {}",
                                        show_value(self, st, other)
                                    ),
                                    Some(ch.span),
                                ))
                            }
                        },
                        None => frame.me,
                    };
                    st.locals = std::mem::take(locals);
                    let ended = self.check_end(st);
                    let has = match &ended {
                        Ok(false) => {
                            let mut cache = std::mem::take(&mut st.cache);
                            cache.clear();
                            let r = self
                                .options(st, *cid, actor, &mut |a| {
                                    cache.push(a);
                                    true
                                })
                                .map(|_| !cache.is_empty())
                                .map_err(|e| with_span(e, Some(ch.span)));
                            st.cache = cache;
                            r
                        }
                        _ => Ok(false),
                    };
                    *locals = std::mem::take(&mut st.locals);
                    if ended? {
                        return Ok(());
                    }
                    if has? {
                        st.wait = Wait::Decision {
                            choice: *cid,
                            actor,
                        };
                        return Ok(());
                    }
                    next = ch.else_pc.unwrap_or(ch.end_pc);
                }
                Instr::Do { action, args, span } => {
                    let act = &self.actions[*action];
                    let mut vals = [Value::None; MAX_ARGS];
                    for (i, a) in args.iter().enumerate().take(MAX_ARGS) {
                        vals[i] = ctx
                            .eval(a, &mut env)
                            .map_err(|e| with_span(e, Some(*span)))?;
                    }
                    st.frames[fi].pc = next;
                    let nb = locals.len();
                    locals.resize(nb + self.procs[act.proc].locals as usize, Value::None);
                    for (i, b) in act.params.iter().enumerate() {
                        locals[nb + b.slot as usize] = vals[i];
                    }
                    st.frames.push(Frame {
                        proc: act.proc,
                        pc: 0,
                        base: nb as u32,
                        me: frame.me,
                    });
                    continue;
                }
                Instr::TurnStart { player, save, span } => {
                    let p = match ctx
                        .eval(player, &mut env)
                        .map_err(|e| with_span(e, Some(*span)))?
                    {
                        Value::Player(p) => p,
                        other => {
                            return Err(err(
                                format!(
                                    "a turn needs a player, not {}",
                                    show_value(self, st, other)
                                ),
                                Some(*span),
                            ))
                        }
                    };
                    env.locals[*save as usize] = st.current.map_or(Value::None, Value::Player);
                    st.current = Some(p);
                    st.frames[fi].me = p;
                }
                Instr::TurnEnd { save } => {
                    let prev = env.locals[*save as usize];
                    st.current = if let Value::Player(p) = prev {
                        Some(p)
                    } else {
                        None
                    };
                    st.frames[fi].me = st.current.unwrap_or(0);
                }
                Instr::End(kind) => {
                    st.locals = std::mem::take(locals);
                    let r = self.finish(st, *kind, None);
                    *locals = std::mem::take(&mut st.locals);
                    return r;
                }
                Instr::Win { who, span } => {
                    let w = ctx
                        .eval(who, &mut env)
                        .map_err(|e| with_span(e, Some(*span)))?;
                    st.locals = std::mem::take(locals);
                    let r = self.finish(st, EndKind::Score, Some(w));
                    *locals = std::mem::take(&mut st.locals);
                    return r;
                }
                Instr::LoopGuard { span } => last_loop = Some(*span),
                Instr::Reveal {
                    comp,
                    field,
                    on,
                    span,
                } => {
                    let c = ctx
                        .comp(comp, &mut env)
                        .map_err(|e| with_span(e, Some(*span)))?;
                    st.revealed[(self.comps[c].field_base + *field as u32) as usize] = *on;
                }
            }
            st.frames[fi].pc = next;
        }
    }

    /// Before waiting on chance: end conditions still apply.
    pub(crate) fn pause_checks(
        &self,
        st: &mut State,
        locals: &mut Vec<Value>,
    ) -> Result<(), RunError> {
        st.locals = std::mem::take(locals);
        let r = self.check_end(st);
        *locals = std::mem::take(&mut st.locals);
        r.map(|_| ())
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn assign(
        &self,
        st: &mut State,
        locals: &mut [Value],
        frame: Frame,
        target: &LValue,
        op: AssignOp,
        v: Value,
        span: Span,
    ) -> Result<(), RunError> {
        let base = frame.base as usize;
        let ctx = Ctx { g: self, s: st };
        let mut env = Env {
            locals: &mut locals[base..],
            me: frame.me,
            depth: 0,
        };
        #[derive(Clone, Copy)]
        enum Where {
            Local(usize),
            Var(usize, VarId),
            Field(usize, CompId, u16),
        }
        let at = match target {
            LValue::Local(l) => Where::Local(base + *l as usize),
            LValue::Var { var, index } => Where::Var(
                ctx.var_slot(*var, index, &mut env)
                    .map_err(|e| with_span(e, Some(span)))?,
                *var,
            ),
            LValue::Field { comp, field } => {
                let c = ctx
                    .comp(comp, &mut env)
                    .map_err(|e| with_span(e, Some(span)))?;
                Where::Field(self.field_slot(c, *field), c, *field)
            }
        };
        let name = |at: &Where| -> String {
            match at {
                Where::Local(_) => "a local".into(),
                Where::Var(_, var) => format!("`{}`", self.vars[*var].name),
                Where::Field(_, c, f) => format!(
                    "field `{}`",
                    self.types[self.comps[*c].ty].fields[*f as usize].name
                ),
            }
        };
        let (slot_ref, range): (&mut Value, Option<(i64, i64)>) = match at {
            Where::Local(i) => (&mut locals[i], None),
            Where::Var(i, var) => (&mut st.vars[i], self.vars[var].range),
            Where::Field(i, c, f) => (
                &mut st.fields[i],
                self.types[self.comps[c].ty].fields[f as usize].range,
            ),
        };
        let new = match op {
            AssignOp::Set => v,
            AssignOp::Add | AssignOp::Sub => match (*slot_ref, v) {
                (Value::Int(a), Value::Int(b)) => {
                    let r = if op == AssignOp::Add {
                        a.checked_add(b)
                    } else {
                        a.checked_sub(b)
                    };
                    Value::Int(r.ok_or_else(|| err("arithmetic overflow", Some(span)))?)
                }
                _ => return Err(err(format!("{} is not a number", name(&at)), Some(span))),
            },
        };
        if let (Some((lo, hi)), Value::Int(n)) = (range, new) {
            if n < lo || n > hi {
                return Err(err(
                    format!(
                        "{} would become {n}, outside its range {lo}..{hi}",
                        name(&at)
                    ),
                    Some(span),
                ));
            }
        }
        *slot_ref = new;
        Ok(())
    }

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
        let from = st.loc[c];
        if let Some(i) = st.zones[from].iter().rposition(|&x| x == c) {
            st.zones[from].remove(i);
        }
        if bottom {
            st.zones[to].insert(0, c);
        } else {
            st.zones[to].push(c);
        }
        st.loc[c] = to;
        Ok(())
    }
}
