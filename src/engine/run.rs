//! The step loop: runs the rules' compiled procedures until the next decision, chance event
//! or end. Every step costs a unit of the decision's work budget.

use super::react::WindowStep;
use super::simul::Go;
use super::vm::{with_machine, Iter, Machine};
use super::*;
use crate::ir::vm::{Code, Family, Op, Step, Target};
use crate::ir::*;
use rand::Rng;

/// Procedures (the flow, actions run with `do`, chosen actions) may be nested this deep.
pub const MAX_FRAMES: usize = 1024;

impl Game {
    /// Runs until a decision, a chance event (external mode) or the end.
    pub(crate) fn run(&self, st: &mut State) -> Result<(), RunError> {
        with_machine(st.fuel, |m| self.run_m(m, st))
    }

    /// [`Game::run`] on a machine already in use (fuel shared with the caller).
    pub(crate) fn run_m(&self, m: &mut Machine, st: &mut State) -> Result<(), RunError> {
        let mut locals = std::mem::take(&mut st.locals);
        let mut iters = std::mem::take(&mut st.iters);
        let outer = m.walks_enter(st);
        let r = self.steps(m, st, &mut locals, &mut iters);
        m.walks_leave(outer);
        st.locals = locals;
        st.iters = iters;
        r
    }

    /// Pushes a procedure's frame with its first locals set.
    pub(crate) fn push_frame(
        &self,
        st: &mut State,
        proc: ProcId,
        me: u8,
        args: &[Value],
    ) -> Result<(), RunError> {
        push(self, &mut st.frames, &mut st.locals, proc, me, args, None)
    }

    fn steps(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut Vec<Value>,
        iters: &mut Vec<Value>,
    ) -> Result<(), RunError> {
        let mut last_loop: Option<Span> = None;
        'frame: loop {
            step_spend(m, &last_loop)?;
            let Some(&frame) = st.frames.last() else {
                match st.phase {
                    Phase::Setup => {
                        st.phase = Phase::Flow;
                        st.freeze(self);
                        push(self, &mut st.frames, locals, self.flow, 0, &[], None)?;
                        continue;
                    }
                    _ => {
                        st.locals = std::mem::take(locals);
                        let r = self.finish_m(m, st, EndKind::Score, None);
                        *locals = std::mem::take(&mut st.locals);
                        return r;
                    }
                }
            };
            let fi = st.frames.len() - 1;
            let code = &self.program.procs[frame.proc];
            if frame.pc as usize >= code.len() {
                locals.truncate(frame.base as usize);
                st.frames.pop();
                if st.frames.len() < m.stop_depth {
                    return Ok(()); // an explored sequence action's effect is over
                }
                continue;
            }
            let base = frame.base as usize;
            let mut pc = frame.pc;
            // The steps of this frame, one after the other, without reading the frame
            // again, while they are steps that leave the frames as they are (each still
            // spends its unit of work).
            loop {
                let me = st.frames[fi].me;
                let mut next = pc + 1;
                macro_rules! eval {
                    ($code:expr, $span:expr) => {
                        m.eval(self, st, $code, &mut locals[base..], me)
                            .blame($span)?
                    };
                }
                // `eval!` for code that is often one op reading a value that cannot fail
                // (`Game::read_simple`): read here without a call into the machine.
                macro_rules! value {
                    ($code:expr, $span:expr) => {
                        match self.read_simple($code, &locals[base..], me) {
                            Some(v) => v,
                            None => eval!($code, $span),
                        }
                    };
                }
                let step = &code[pc as usize];
                match step {
                    Step::Let(slot, e, span) => {
                        let v = eval!(*e, Some(*span));
                        locals[base + *slot as usize] = v;
                    }
                    Step::Assign {
                        target,
                        op,
                        value,
                        span,
                    } => {
                        let v = value!(*value, Some(*span));
                        if !self.set_local_var(st, &locals[base..], target, *op, v) {
                            self.assign(m, st, &mut locals[base..], me, target, *op, v, *span)?;
                        }
                    }
                    Step::Move {
                        what,
                        to,
                        bottom,
                        span,
                    } => {
                        let c = value!(*what, Some(*span));
                        let c = comp(self, st, c, *span)?;
                        let z = value!(*to, Some(*span));
                        let z = zone(self, st, z, *span)?;
                        self.move_comp(st, c, z, *bottom, *span)?;
                    }
                    Step::Deal {
                        count,
                        from,
                        to,
                        bottom,
                        span,
                    } => {
                        let f = zone(self, st, eval!(*from, Some(*span)), *span)?;
                        let t = zone(self, st, eval!(*to, Some(*span)), *span)?;
                        let n = match count {
                            Some(c) => match eval!(*c, Some(*span)) {
                                Value::Int(n) => n.max(0) as usize,
                                other => return Err(expected(self, st, "a number", other, *span)),
                            },
                            None => usize::MAX,
                        };
                        let n = n.min(st.zones.len(f));
                        for _ in 0..n {
                            let Some(c) = st.zones.top(f) else { break };
                            m.spend(Some(*span))?;
                            self.move_comp(st, c, t, *bottom, *span)?;
                        }
                    }
                    Step::Shuffle { zone: z, span } => {
                        let z = zone(self, st, eval!(*z, Some(*span)), *span)?;
                        if st.zones.len(z) > 1 {
                            if m.hypothetical > 0 {
                                return Err(unknown_chance(*span));
                            }
                            if st.chance == ChanceMode::External {
                                if let Some(sp) = self.pause_checks(m, st, locals)? {
                                    last_loop = Some(sp);
                                    continue 'frame;
                                }
                                return Ok(());
                            }
                            st.window.changes += 1;
                            let mut items = st.zones.items(z);
                            for i in (1..items.len()).rev() {
                                let j = st.rng.gen_range(0..=i);
                                items.swap(i, j);
                            }
                            st.zones.set_items(z, &items);
                            st.wrote(&self.program.families, self.program.families.inst(z));
                        }
                    }
                    Step::Roll {
                        target,
                        domain,
                        span,
                    } => {
                        if m.hypothetical > 0 {
                            return Err(unknown_chance(*span));
                        }
                        if st.chance == ChanceMode::External {
                            if let Some(sp) = self.pause_checks(m, st, locals)? {
                                last_loop = Some(sp);
                                continue 'frame;
                            }
                            return Ok(());
                        }
                        let v = self.roll(m, st, *domain, &mut locals[base..], me, *span)?;
                        st.window.changes += 1;
                        self.assign(
                            m,
                            st,
                            &mut locals[base..],
                            me,
                            target,
                            AssignOp::Set,
                            v,
                            *span,
                        )?;
                    }
                    Step::Jump(t) => next = *t,
                    Step::JumpIfNot(c, t, span) if self.program.is_flag_code(*c) => {
                        if !m
                            .flag_code(self, st, *c, &locals[base..], me)
                            .blame(Some(*span))?
                        {
                            next = *t;
                        }
                    }
                    Step::JumpIfNot(c, t, span) => match eval!(*c, Some(*span)) {
                        Value::Bool(true) => {}
                        Value::Bool(false) => next = *t,
                        other => return Err(expected(self, st, "true or false", other, *span)),
                    },
                    Step::ForInit { coll, slot, span } => {
                        let start = iters.len();
                        if !self.for_elements(m, st, *coll, iters, *span)? {
                            m.start(self, st, *coll, &mut locals[base..], me)
                                .blame(Some(*span))?;
                            while let Some(v) = m.next(self, st, Some(*span)).blame(Some(*span))? {
                                iters.push(v);
                            }
                        }
                        let s = base + *slot as usize;
                        locals[s] = Value::Int(start as i64);
                        locals[s + 1] = Value::Int(iters.len() as i64);
                        locals[s + 2] = Value::Int(start as i64);
                    }
                    Step::ForNext { slot, var, exit } => {
                        let s = base + *slot as usize;
                        let (Value::Int(pos), Value::Int(end)) = (locals[s], locals[s + 1]) else {
                            return Err(err("internal: loop state lost", None));
                        };
                        if pos < end {
                            locals[base + *var as usize] = iters[pos as usize];
                            locals[s] = Value::Int(pos + 1);
                        } else {
                            next = *exit;
                        }
                    }
                    Step::ForNextIf {
                        slot,
                        var,
                        exit,
                        cond,
                        span,
                        guard,
                    } => {
                        let found = self.for_next_if(
                            m,
                            st,
                            &mut locals[base..],
                            iters,
                            me,
                            &mut last_loop,
                            (*slot, *var, *cond, *span, *guard),
                        )?;
                        next = if found { pc + 2 } else { *exit };
                    }
                    Step::ForDone { slot } => {
                        if let Value::Int(start) = locals[base + *slot as usize + 2] {
                            iters.truncate(start as usize);
                        }
                    }
                    Step::Choose(cid) if st.block.is_some() => {
                        match self.simul_choose(m, st, locals, *cid)? {
                            Go::Next(pc) => next = pc,
                            Go::Wait => return Ok(()),
                            Go::Again(sp) => {
                                last_loop = Some(sp);
                                continue 'frame;
                            }
                            Go::Jumped => continue 'frame,
                        }
                    }
                    Step::Simul {
                        coll,
                        slot,
                        end,
                        span,
                    } => match self.simul_start(m, st, locals, *coll, *slot, *end, *span)? {
                        Go::Next(pc) => next = pc,
                        Go::Wait => return Ok(()),
                        Go::Again(sp) => {
                            last_loop = Some(sp);
                            continue 'frame;
                        }
                        Go::Jumped => continue 'frame,
                    },
                    Step::SimulEnd => match self.simul_end(st, locals)? {
                        Go::Next(pc) => next = pc,
                        Go::Wait | Go::Again(_) => return Ok(()),
                        Go::Jumped => continue 'frame,
                    },
                    Step::Choose(cid) if self.program.choices[*cid].each.is_some() => {
                        let ch = &self.choices[*cid];
                        let (coll, _) = self.program.choices[*cid].each.expect("checked");
                        let (_, iter) = ch.each.as_ref().expect("checked");
                        let mut seats = [false; MAX_PLAYERS];
                        m.start(self, st, coll, &mut locals[base..], me)
                            .blame(Some(ch.span))?;
                        while let Some(v) = m.next(self, st, Some(ch.span)).blame(Some(ch.span))? {
                            if let Value::Player(p) = v {
                                if p < st.players {
                                    seats[p as usize] = true;
                                }
                            }
                        }
                        locals[base + *iter as usize] = Value::Int(0);
                        locals[base + *iter as usize + 1] = Value::Player(me);
                        if self.ended(m, st, locals)? {
                            return Ok(());
                        }
                        if let Some(sp) = self.fire_trigger(m, st, locals)? {
                            last_loop = Some(sp);
                            continue 'frame;
                        }
                        st.locals = std::mem::take(locals);
                        let mut pending = Ok(None);
                        {
                            st.commits = vec![Some(Action::SKIP); st.players as usize];
                            for p in 0..st.players {
                                if !seats[p as usize] {
                                    continue;
                                }
                                match self.has_option(m, st, *cid, p) {
                                    Ok(true) => st.commits[p as usize] = None,
                                    Ok(false) => {}
                                    Err(e) => {
                                        pending = Err(e.or_span(Some(ch.span)));
                                        break;
                                    }
                                }
                            }
                            if pending.is_ok() {
                                pending = Ok(st.commits.iter().position(|c| c.is_none()));
                            }
                        }
                        *locals = std::mem::take(&mut st.locals);
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
                    Step::SimNext(cid) => {
                        let ch = &self.choices[*cid];
                        let (bind, iter) = ch.each.as_ref().expect("a simultaneous choice");
                        let start = match locals[base + *iter as usize] {
                            Value::Int(n) => n as usize,
                            _ => 0,
                        };
                        let found = (start..st.commits.len()).find_map(|s| match st.commits[s] {
                            Some(a) if a.arm != Action::SKIP.arm => Some((s, a)),
                            _ => None,
                        });
                        match found {
                            None => {
                                st.frames[fi].me = match locals[base + *iter as usize + 1] {
                                    Value::Player(p) => p,
                                    _ => me,
                                };
                                st.commits.clear();
                                next = ch.end_pc;
                            }
                            Some((seat, a)) => {
                                locals[base + *iter as usize] = Value::Int(seat as i64 + 1);
                                locals[base + bind.slot as usize] = Value::Player(seat as u8);
                                st.frames[fi].me = seat as u8;
                                match &ch.arms[a.arm as usize] {
                                    Arm::Action(ai) => {
                                        let act = &self.actions[*ai];
                                        st.frames[fi].pc = pc;
                                        push(
                                            self,
                                            &mut st.frames,
                                            locals,
                                            act.proc,
                                            seat as u8,
                                            &[],
                                            Some(ch.span),
                                        )?;
                                        let top = st.frames.len() - 1;
                                        st.frames[top].inside = true;
                                        let nb = st.frames[top].base as usize;
                                        for (i, b) in act.params.iter().enumerate() {
                                            locals[nb + b.slot as usize] = a.args[i];
                                        }
                                        continue 'frame;
                                    }
                                    Arm::Inline { binds, body_pc, .. } => {
                                        for (i, b) in binds.iter().enumerate() {
                                            locals[base + b.slot as usize] = a.args[i];
                                        }
                                        next = *body_pc;
                                    }
                                }
                            }
                        }
                    }
                    Step::Choose(cid) => {
                        let ch = &self.choices[*cid];
                        let actor = match self.program.choices[*cid].by {
                            Some(b) => match eval!(b, Some(ch.span)) {
                                Value::Player(p) if p < st.players => p,
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
                            None => me,
                        };
                        if self.ended(m, st, locals)? {
                            return Ok(());
                        }
                        if let Some(sp) = self.fire_trigger(m, st, locals)? {
                            last_loop = Some(sp);
                            continue 'frame;
                        }
                        st.locals = std::mem::take(locals);
                        let mut cache = std::mem::take(&mut st.cache);
                        let mut runs = std::mem::take(&mut st.runs);
                        cache.clear();
                        runs.clear();
                        let has = self
                            .options_into(m, st, *cid, actor, &mut runs, &mut cache)
                            .map(|_| !cache.is_empty())
                            .map_err(|e| e.or_span(Some(ch.span)));
                        st.cache = cache;
                        st.runs = runs;
                        *locals = std::mem::take(&mut st.locals);
                        if has? {
                            st.wait = Wait::Decision {
                                choice: *cid,
                                actor,
                            };
                            return Ok(());
                        }
                        next = ch.else_pc.unwrap_or(ch.end_pc);
                    }
                    Step::DoField { target, args, span } => {
                        let action = match eval!(*target, Some(*span)) {
                            Value::Action(a) => a,
                            Value::None => {
                                // No action held: nothing happens, the next statement runs.
                                st.frames[fi].pc = next;
                                continue 'frame;
                            }
                            other => {
                                return Err(err(
                                    format!(
                                        "`do` needs an action, not {}",
                                        show_value(self, st, other)
                                    ),
                                    Some(*span),
                                ))
                            }
                        };
                        self.do_action(m, st, locals, base, me, (fi, next), action, args, *span)?;
                        continue 'frame;
                    }
                    Step::Do { action, args, span } => {
                        self.do_action(m, st, locals, base, me, (fi, next), *action, args, *span)?;
                        continue 'frame;
                    }
                    Step::TurnStart { player, save, span } => {
                        let p = value!(*player, Some(*span));
                        let p = match p {
                            Value::Player(p) if p < st.players => p,
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
                        locals[base + *save as usize] =
                            st.current.map_or(Value::None, Value::Player);
                        st.current = Some(p);
                        st.wrote(&self.program.families, Family::CURRENT);
                        st.frames[fi].me = p;
                    }
                    Step::TurnEnd { save } => {
                        let prev = locals[base + *save as usize];
                        st.current = if let Value::Player(p) = prev {
                            Some(p)
                        } else {
                            None
                        };
                        st.wrote(&self.program.families, Family::CURRENT);
                        st.frames[fi].me = st.current.unwrap_or(0);
                    }
                    Step::End(kind) => {
                        st.locals = std::mem::take(locals);
                        let r = self.finish_m(m, st, *kind, None);
                        *locals = std::mem::take(&mut st.locals);
                        return r;
                    }
                    Step::Win { who, span } => {
                        let w = eval!(*who, Some(*span));
                        st.locals = std::mem::take(locals);
                        let r = self.finish_m(m, st, EndKind::Score, Some(w));
                        *locals = std::mem::take(&mut st.locals);
                        return r;
                    }
                    Step::LoopGuard { span } => last_loop = Some(*span),
                    Step::Window(before) => match self.window_step(m, st, locals, *before)? {
                        WindowStep::Closed => {}
                        WindowStep::Waits => return Ok(()),
                        WindowStep::Fired(sp) => {
                            last_loop = Some(sp);
                            continue 'frame;
                        }
                    },
                    Step::Reveal {
                        comp: c,
                        field,
                        on,
                        span,
                    } => {
                        let c = comp(self, st, eval!(*c, Some(*span)), *span)?;
                        if (*field as usize) < self.comps[c].fields.len() {
                            let slot = self.field_slot(c, *field);
                            st.revealed[slot] = *on;
                            st.window.changes += 1;
                            if !*on {
                                st.grants[slot] = 0;
                            }
                        }
                    }
                    Step::RevealZone { zone, on, span } => {
                        let z = match eval!(*zone, Some(*span)) {
                            Value::Zone(z) => z.0,
                            other => return Err(expected(self, st, "a zone", other, *span)),
                        };
                        match (st.opened.binary_search(&z), *on) {
                            (Err(at), true) => st.opened.insert(at, z),
                            (Ok(at), false) => {
                                st.opened.remove(at);
                            }
                            _ => {}
                        }
                        st.window.changes += 1;
                    }
                    Step::Remember {
                        memory,
                        parts,
                        span,
                    } => {
                        let width = parts.len();
                        let held: usize = st.memory.iter().map(Vec::len).sum();
                        if held + width > MAX_MEMORY_VALUES {
                            return Err(RunError::Limit {
                                message: format!(
                                    "memory `{}` is full: the memories of a match hold at \
                                     most {MAX_MEMORY_VALUES} values (positions of {width} \
                                     values here)",
                                    self.memories[*memory as usize].name,
                                ),
                                span: Some(*span),
                            });
                        }
                        // A part that fails leaves the memory as it was (no half position).
                        let at = st.memory[*memory as usize].len();
                        for part in parts {
                            match m
                                .eval(self, st, *part, &mut locals[base..], me)
                                .blame(Some(*span))
                            {
                                Ok(v) => st.memory[*memory as usize].push(v),
                                Err(e) => {
                                    st.memory[*memory as usize].truncate(at);
                                    return Err(e);
                                }
                            }
                        }
                        st.stamps.write(Family::WHERE);
                        st.window.changes += 1;
                    }
                    Step::Forget { memory } => {
                        if !st.memory[*memory as usize].is_empty() {
                            st.memory[*memory as usize].clear();
                            st.stamps.write(Family::WHERE);
                            st.window.changes += 1;
                        }
                    }
                    Step::RevealTo {
                        comp: c,
                        field,
                        to,
                        span,
                    } => {
                        let c = comp(self, st, eval!(*c, Some(*span)), *span)?;
                        let p = match eval!(*to, Some(*span)) {
                            Value::Player(p) if p < st.players => p,
                            other => return Err(expected(self, st, "a player", other, *span)),
                        };
                        if (*field as usize) < self.comps[c].fields.len() {
                            let slot = self.field_slot(c, *field);
                            st.grants[slot] |= 1 << p;
                            st.window.changes += 1;
                        }
                    }
                }
                st.frames[fi].pc = next;
                let stays = matches!(
                    step,
                    Step::Let(..)
                        | Step::Assign { .. }
                        | Step::Move { .. }
                        | Step::Deal { .. }
                        | Step::Shuffle { .. }
                        | Step::Roll { .. }
                        | Step::Jump(_)
                        | Step::JumpIfNot(..)
                        | Step::ForInit { .. }
                        | Step::ForNext { .. }
                        | Step::ForNextIf { .. }
                        | Step::ForDone { .. }
                        | Step::TurnStart { .. }
                        | Step::TurnEnd { .. }
                        | Step::LoopGuard { .. }
                        | Step::Reveal { .. }
                        | Step::RevealZone { .. }
                        | Step::Remember { .. }
                        | Step::Forget { .. }
                        | Step::RevealTo { .. }
                );
                if !stays || next as usize >= code.len() {
                    continue 'frame;
                }
                step_spend(m, &last_loop)?;
                pc = next;
            }
        }
    }

    /// [`Step::ForNextIf`]: binds the loop's name to the next element whose condition holds
    /// (true), or finds none left (false). It spends the units of work of the steps the
    /// unfused loop runs, in the same order and blaming the same loop when they run out: an
    /// element tested spends the test's unit (the `ForNext` that took it was spent by the
    /// step loop or below), and one that fails spends those of the loop's `LoopGuard` (from
    /// which the loop is the one blamed), its `Jump` back and the next `ForNext`.
    #[allow(clippy::too_many_arguments)]
    fn for_next_if(
        &self,
        m: &mut Machine,
        st: &State,
        locals: &mut [Value],
        iters: &[Value],
        me: u8,
        last_loop: &mut Option<Span>,
        (slot, var, cond, span, guard): (u16, u16, Code, Span, Span),
    ) -> Result<bool, RunError> {
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
    fn for_elements(
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
    fn roll(
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
    fn pause_checks(
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
    pub(super) fn ended(
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
            .all(|&(cond, _)| super::vm::fixed_test(self, st, cond, me) == Some(false))
        {
            return Ok(false);
        }
        st.locals = std::mem::take(locals);
        let r = self.check_end_m(m, st);
        *locals = std::mem::take(&mut st.locals);
        r
    }

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
    pub(super) fn read_simple(&self, code: Code, locals: &[Value], me: u8) -> Option<Value> {
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
    fn set_local_var(
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

/// A chance event met by an `after` effect: what it would leave is not known.
#[cold]
fn unknown_chance(span: Span) -> RunError {
    err("`after` cannot look past a chance event", Some(span))
}

/// Stamps a move of `c` to `to` ([`Game::move_comp`]): out of line, as games without
/// remembered functions or windows do not stamp.
#[inline(never)]
fn moved(st: &mut State, fam: &crate::ir::vm::Families, c: CompId, to: InstId) {
    st.stamps.write(fam.inst(st.zones.loc(c)));
    st.stamps.write(fam.inst(to));
    st.stamps.write(Family::WHERE);
}

/// A step's unit of work ([`Machine::spend`]), the span of the last loop read only when the
/// work runs out (passed by value, it was copied for every step).
#[inline(always)]
fn step_spend(m: &mut Machine, last_loop: &Option<Span>) -> Result<(), RunError> {
    if m.fuel == 0 {
        return out_of_work(m, *last_loop);
    }
    m.fuel -= 1;
    Ok(())
}

/// The error of a step that finds no work left.
#[cold]
#[inline(never)]
fn out_of_work(m: &mut Machine, last_loop: Option<Span>) -> Result<(), RunError> {
    Ok(m.spend(last_loop)?)
}

/// The slot of `var[x]` for an index code that is one local `x` or a field of one (`x.f`)
/// holding an index in range (`None`: another shape, or an index the general path must
/// judge and explain).
#[inline(always)]
fn local_slot(g: &Game, st: &State, var: VarId, index: Code, locals: &[Value]) -> Option<usize> {
    if index.end != index.start + 1 {
        return None;
    }
    let def = &g.vars[var];
    if def.dims.len() != 1 {
        return None;
    }
    let x = match *g.program.ops.get(index.start as usize)? {
        Op::Local(l) => *locals.get(l as usize)?,
        Op::LocalField(l, f) => match *locals.get(l as usize)? {
            Value::Comp(c) if (f as usize) < g.comps[c].fields.len() => {
                *st.fields.get(g.field_slot(c, f))?
            }
            _ => return None,
        },
        _ => return None,
    };
    let i = x.index_pos()?;
    (i < *def.sizes.first()?).then_some((def.base + i) as usize)
}

/// Pushes a procedure's frame, its locals after the caller's.
pub(super) fn push(
    g: &Game,
    frames: &mut Vec<Frame>,
    locals: &mut Vec<Value>,
    proc: ProcId,
    me: u8,
    args: &[Value],
    span: Option<Span>,
) -> Result<(), RunError> {
    if frames.len() >= MAX_FRAMES {
        return Err(RunError::Limit {
            message: format!(
                "actions run inside each other more than {MAX_FRAMES} deep (a `do` that never \
                 stops?)"
            ),
            span,
        });
    }
    let base = locals.len();
    let n = g.procs[proc].locals as usize;
    locals.resize(base + n.max(args.len()), Value::None);
    locals[base..base + args.len()].copy_from_slice(args);
    frames.push(Frame {
        proc,
        pc: 0,
        base: base as u32,
        me,
        inside: false,
    });
    Ok(())
}

impl Game {
    /// Runs an action with `do` (named, or stored in a field): its arguments evaluated in the
    /// frame `at` (its index and the step after the `do`, where it resumes), then a frame for
    /// its effect with its parameters bound to them in order.
    #[allow(clippy::too_many_arguments)]
    fn do_action(
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

fn expected(g: &Game, st: &State, what: &str, got: Value, span: Span) -> RunError {
    err(
        format!("expected {what}, got {}", show_value(g, st, got)),
        Some(span),
    )
}

/// A value that must be a component.
fn comp(g: &Game, st: &State, v: Value, span: Span) -> Result<CompId, RunError> {
    match v {
        Value::Comp(c) => Ok(c),
        other => Err(expected(g, st, "a component", other, span)),
    }
}

/// A value that must be a zone instance.
fn zone(g: &Game, st: &State, v: Value, span: Span) -> Result<InstId, RunError> {
    match v {
        Value::Zone(z) => Ok(z),
        other => Err(expected(g, st, "a zone", other, span)),
    }
}
