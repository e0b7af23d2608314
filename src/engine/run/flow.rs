//! The steps of the step loop that are not its hot path, each a function of its own: choices
//! (one chooser, or every seat at once), turns, `do` of an action held in a field, chance
//! (shuffles and rolls, which may wait for an outcome) and the effects that reveal, deal and
//! remember. Each gives the loop where to go on ([`Go`]); the loop spends the units of work.

use super::*;

impl Game {
    /// A compiled expression's value in a frame whose locals are `locals`, a failure blamed
    /// on `span`.
    #[inline(always)]
    pub(super) fn value_in(
        &self,
        m: &mut Machine,
        st: &State,
        code: Code,
        locals: &mut [Value],
        me: u8,
        span: Span,
    ) -> Result<Value, RunError> {
        let (native, code) = self.native_first(m, st, code, locals, me, span)?;
        if let Some(v) = native {
            return Ok(v);
        }
        m.eval(self, st, code, locals, me).blame(Some(span))
    }

    /// Code that starts with [`Op::Native`]: the value its native code computes (`None`
    /// without one), and the code without that op, whose own fast forms then apply.
    #[inline(always)]
    fn native_first(
        &self,
        m: &mut Machine,
        st: &State,
        code: Code,
        locals: &mut [Value],
        me: u8,
        span: Span,
    ) -> Result<(Option<Value>, Code), RunError> {
        let Some(&Op::Native(id)) = self.program.ops.get(code.start as usize) else {
            return Ok((None, code));
        };
        let ops = Code {
            start: code.start + 1,
            end: code.end,
        };
        let v = m
            .native_value(self, st, id, ops, locals, me)
            .blame(Some(span))?;
        Ok((v, ops))
    }

    /// [`Game::value_in`] for code that is often one op reading a value that cannot fail
    /// ([`Game::read_simple`]): read without a call into the machine.
    #[inline(always)]
    pub(super) fn read_in(
        &self,
        m: &mut Machine,
        st: &State,
        code: Code,
        locals: &mut [Value],
        me: u8,
        span: Span,
    ) -> Result<Value, RunError> {
        match self.read_simple(code, locals, me) {
            Some(v) => Ok(v),
            None => self.value_in(m, st, code, locals, me, span),
        }
    }

    /// Whether a condition holds: a flag graph's code tested in place, other code evaluated
    /// (it must give true or false).
    #[inline(always)]
    pub(super) fn holds_in(
        &self,
        m: &mut Machine,
        st: &State,
        c: Code,
        locals: &mut [Value],
        me: u8,
        span: Span,
    ) -> Result<bool, RunError> {
        let (native, c) = self.native_first(m, st, c, locals, me, span)?;
        if let Some(v) = native {
            return match v {
                Value::Bool(b) => Ok(b),
                other => Err(expected(self, st, "true or false", other, span)),
            };
        }
        if self.program.is_flag_code(c) {
            return m.flag_code(self, st, c, locals, me).blame(Some(span));
        }
        match self.value_in(m, st, c, locals, me, span)? {
            Value::Bool(b) => Ok(b),
            other => Err(expected(self, st, "true or false", other, span)),
        }
    }

    /// The frame the step loop runs next (`Ok`), or where it goes instead (`Err`): after
    /// setup, the flow's frame is pushed and the loop looks again (`Go::Jumped`), as it does
    /// after a finished frame is popped; with no frame left the game is scored, and an
    /// explored sequence action's effect stops when its frame is popped (`Go::Wait`).
    #[inline(always)]
    pub(super) fn top_frame(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut Vec<Value>,
    ) -> Result<Result<Frame, Go>, RunError> {
        let Some(&frame) = st.frames.last() else {
            if st.phase == Phase::Setup {
                st.phase = Phase::Flow;
                st.freeze(self);
                push(self, &mut st.frames, locals, self.flow, 0, &[], None)?;
                return Ok(Err(Go::Jumped));
            }
            st.locals = std::mem::take(locals);
            let r = self.finish_m(m, st, EndKind::Score, None);
            *locals = std::mem::take(&mut st.locals);
            return r.map(|()| Err(Go::Wait));
        };
        if frame.pc as usize >= self.program.procs[frame.proc].len() {
            locals.truncate(frame.base as usize);
            st.frames.pop();
            if st.frames.len() < m.stop_depth {
                return Ok(Err(Go::Wait)); // an explored sequence action's effect is over
            }
            return Ok(Err(Go::Jumped));
        }
        Ok(Ok(frame))
    }

    /// [`Step::ForInit`]: the loop's elements pushed onto `iters`, its first local holding
    /// where they start (and its next two where they end and where to truncate).
    #[inline(always)]
    pub(super) fn for_init(
        &self,
        m: &mut Machine,
        st: &State,
        locals: &mut [Value],
        iters: &mut Vec<Value>,
        me: u8,
        (coll, slot, span): (Code, u16, Span),
    ) -> Result<(), RunError> {
        let start = iters.len();
        if !self.for_elements(m, st, coll, iters, span)? {
            m.start(self, st, coll, locals, me).blame(Some(span))?;
            while let Some(v) = m.next(self, st, Some(span)).blame(Some(span))? {
                iters.push(v);
            }
        }
        let s = slot as usize;
        locals[s] = Value::Int(start as i64);
        locals[s + 1] = Value::Int(iters.len() as i64);
        locals[s + 2] = Value::Int(start as i64);
        Ok(())
    }

    /// [`Step::End`] and [`Step::Win`]: the game ends and is scored (`win p`: p wins).
    #[inline(never)]
    pub(super) fn end_step(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut Vec<Value>,
        (base, me): (usize, u8),
        step: &Step,
    ) -> Result<(), RunError> {
        let (kind, winner) = match *step {
            Step::End(kind) => (kind, None),
            Step::Win { who, span } => {
                let w = self.value_in(m, st, who, &mut locals[base..], me, span)?;
                (EndKind::Score, Some(w))
            }
            _ => return Ok(()),
        };
        st.locals = std::mem::take(locals);
        let r = self.finish_m(m, st, kind, winner);
        *locals = std::mem::take(&mut st.locals);
        r
    }

    /// [`Step::Window`]: the window of `anytime` (or `before turn`) actions at this point,
    /// as where the loop goes on.
    #[inline(always)]
    pub(super) fn window_go(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut Vec<Value>,
        before: bool,
        next: u32,
    ) -> Result<Go, RunError> {
        Ok(match self.window_step(m, st, locals, before)? {
            WindowStep::Closed => Go::Next(next),
            WindowStep::Waits => Go::Wait,
            WindowStep::Fired(sp) => Go::Again(sp),
        })
    }

    /// [`Step::Move`]: a component moved to a zone (on top, or at the bottom).
    #[inline(always)]
    pub(super) fn move_step(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut [Value],
        me: u8,
        step: &Step,
    ) -> Result<(), RunError> {
        if let Step::Move {
            what,
            to,
            bottom,
            span,
        } = *step
        {
            let c = comp(self, st, self.read_in(m, st, what, locals, me, span)?, span)?;
            let z = zone(self, st, self.read_in(m, st, to, locals, me, span)?, span)?;
            self.move_comp(st, c, z, bottom, span)?;
        }
        Ok(())
    }

    /// [`Step::Simul`]: a simultaneous block starts for the seats of its collection.
    #[inline(never)]
    pub(super) fn simul_step(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut Vec<Value>,
        step: &Step,
    ) -> Result<Go, RunError> {
        match *step {
            Step::Simul {
                coll,
                slot,
                end,
                span,
            } => self.simul_start(m, st, locals, coll, slot, end, span),
            _ => Ok(Go::Jumped),
        }
    }

    /// What comes before a decision is offered: the game may have ended (`Go::Wait`: it is
    /// scored) or a `when` trigger fire (`Go::Again`: its body runs first); `None`: neither.
    #[inline(always)]
    fn before_decision(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut Vec<Value>,
    ) -> Result<Option<Go>, RunError> {
        if self.ended(m, st, locals)? {
            return Ok(Some(Go::Wait));
        }
        Ok(self.fire_trigger(m, st, locals)?.map(Go::Again))
    }

    /// [`Step::Choose`] of a simultaneous choice (`choose each`): the seats of its collection
    /// that have an option commit in seat order; none: its `else` (or its end).
    #[inline(never)]
    pub(super) fn choose_each(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut Vec<Value>,
        (base, me): (usize, u8),
        cid: ChoiceId,
    ) -> Result<Go, RunError> {
        let ch = &self.choices[cid];
        let (coll, _) = self.program.choices[cid].each.expect("checked");
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
        if let Some(go) = self.before_decision(m, st, locals)? {
            return Ok(go);
        }
        st.locals = std::mem::take(locals);
        let mut pending = Ok(None);
        st.commits = vec![Some(Action::SKIP); st.players as usize];
        for p in 0..st.players {
            if !seats[p as usize] {
                continue;
            }
            match self.has_option(m, st, cid, p) {
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
        *locals = std::mem::take(&mut st.locals);
        match pending? {
            Some(p) => {
                st.wait = Wait::Decision {
                    choice: cid,
                    actor: p as u8,
                };
                Ok(Go::Wait)
            }
            None => {
                st.commits.clear();
                Ok(Go::Next(ch.else_pc.unwrap_or(ch.end_pc)))
            }
        }
    }

    /// [`Step::SimNext`]: plays the next committed seat's option of a simultaneous choice
    /// (an action in a frame of its own, an inline option here), or ends the choice when
    /// none is left. `at` is the frame's index and the step's pc.
    #[inline(never)]
    pub(super) fn sim_next(
        &self,
        st: &mut State,
        locals: &mut Vec<Value>,
        (base, me): (usize, u8),
        (fi, pc): (usize, u32),
        cid: ChoiceId,
    ) -> Result<Go, RunError> {
        let ch = &self.choices[cid];
        let (bind, iter) = ch.each.as_ref().expect("a simultaneous choice");
        let start = match locals[base + *iter as usize] {
            Value::Int(n) => n as usize,
            _ => 0,
        };
        let found = (start..st.commits.len()).find_map(|s| match st.commits[s] {
            Some(a) if a.arm != Action::SKIP.arm => Some((s, a)),
            _ => None,
        });
        let Some((seat, a)) = found else {
            st.frames[fi].me = match locals[base + *iter as usize + 1] {
                Value::Player(p) => p,
                _ => me,
            };
            st.commits.clear();
            return Ok(Go::Next(ch.end_pc));
        };
        locals[base + *iter as usize] = Value::Int(seat as i64 + 1);
        locals[base + bind.slot as usize] = Value::Player(seat as u8);
        st.frames[fi].me = seat as u8;
        match &ch.arms[a.arm as usize] {
            Arm::Action(ai) => {
                let act = &self.actions[*ai];
                st.frames[fi].pc = pc;
                let (proc, span) = (act.proc, Some(ch.span));
                push(self, &mut st.frames, locals, proc, seat as u8, &[], span)?;
                let top = st.frames.len() - 1;
                st.frames[top].inside = true;
                let nb = st.frames[top].base as usize;
                for (i, b) in act.params.iter().enumerate() {
                    locals[nb + b.slot as usize] = a.args[i];
                }
                Ok(Go::Jumped)
            }
            Arm::Inline { binds, body_pc, .. } => {
                for (i, b) in binds.iter().enumerate() {
                    locals[base + b.slot as usize] = a.args[i];
                }
                Ok(Go::Next(*body_pc))
            }
        }
    }

    /// [`Step::Choose`] of one chooser (`by`, else the frame's player): the game waits for
    /// its decision when it has an option, else its `else` (or its end) runs.
    #[inline(always)]
    pub(super) fn choose(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut Vec<Value>,
        (base, me): (usize, u8),
        cid: ChoiceId,
    ) -> Result<Go, RunError> {
        let ch = &self.choices[cid];
        let actor = match self.program.choices[cid].by {
            Some(b) => match self.value_in(m, st, b, &mut locals[base..], me, ch.span)? {
                Value::Player(p) if p < st.players => p,
                other => {
                    let msg = format!(
                        "the chooser must be a player, not {}",
                        show_value(self, st, other)
                    );
                    return Err(err(msg, Some(ch.span)));
                }
            },
            None => me,
        };
        if let Some(go) = self.before_decision(m, st, locals)? {
            return Ok(go);
        }
        st.locals = std::mem::take(locals);
        let mut cache = std::mem::take(&mut st.cache);
        let mut runs = std::mem::take(&mut st.runs);
        cache.clear();
        runs.clear();
        let has = self
            .options_into(m, st, cid, actor, &mut runs, &mut cache)
            .map(|_| !cache.is_empty())
            .map_err(|e| e.or_span(Some(ch.span)));
        st.cache = cache;
        st.runs = runs;
        *locals = std::mem::take(&mut st.locals);
        if has? {
            st.wait = Wait::Decision { choice: cid, actor };
            return Ok(Go::Wait);
        }
        Ok(Go::Next(ch.else_pc.unwrap_or(ch.end_pc)))
    }

    /// [`Step::DoField`]: runs the action a value holds (nothing when it holds none: the
    /// next statement runs). `at` is the frame's index and the pc the `do` resumes at.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(super) fn do_field(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut Vec<Value>,
        (base, me): (usize, u8),
        (fi, next): (usize, u32),
        (target, args, span): (Code, &[Code], Span),
    ) -> Result<Go, RunError> {
        let action = match self.value_in(m, st, target, &mut locals[base..], me, span)? {
            Value::Action(a) => a,
            Value::None => return Ok(Go::Next(next)),
            other => {
                let msg = format!("`do` needs an action, not {}", show_value(self, st, other));
                return Err(err(msg, Some(span)));
            }
        };
        self.do_action(m, st, locals, base, me, (fi, next), action, args, span)?;
        Ok(Go::Jumped)
    }

    /// [`Step::TurnStart`] and [`Step::TurnEnd`]: the current player set for a turn (the
    /// previous one kept in the frame's local `save`), then set back.
    #[inline(always)]
    pub(super) fn turn_step(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut [Value],
        (fi, me): (usize, u8),
        step: &Step,
    ) -> Result<(), RunError> {
        match *step {
            Step::TurnStart { player, save, span } => {
                let p = match self.read_simple(player, locals, me) {
                    Some(v) => v,
                    None => self.value_in(m, st, player, locals, me, span)?,
                };
                let p = match p {
                    Value::Player(p) if p < st.players => p,
                    other => {
                        let msg =
                            format!("a turn needs a player, not {}", show_value(self, st, other));
                        return Err(err(msg, Some(span)));
                    }
                };
                locals[save as usize] = st.current.map_or(Value::None, Value::Player);
                st.current = Some(p);
                st.wrote(&self.program.families, Family::CURRENT);
                st.frames[fi].me = p;
            }
            Step::TurnEnd { save } => {
                st.current = match locals[save as usize] {
                    Value::Player(p) => Some(p),
                    _ => None,
                };
                st.wrote(&self.program.families, Family::CURRENT);
                st.frames[fi].me = st.current.unwrap_or(0);
            }
            _ => {}
        }
        Ok(())
    }

    /// [`Step::Shuffle`] and [`Step::Roll`]: drawn from the match's generator, or, with
    /// external chance, the game waits for the outcome (after the checks a decision makes).
    #[inline(always)]
    pub(super) fn chance_step(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut Vec<Value>,
        (base, me): (usize, u8),
        step: &Step,
        next: u32,
    ) -> Result<Go, RunError> {
        // The zone a shuffle mixes, evaluated once (a zone of at most one component: nothing
        // to draw).
        let (shuffled, span) = match *step {
            Step::Shuffle { zone: z, span } => {
                let v = self.value_in(m, st, z, &mut locals[base..], me, span)?;
                let z = zone(self, st, v, span)?;
                if st.zones.len(z) <= 1 {
                    return Ok(Go::Next(next));
                }
                (Some(z), span)
            }
            Step::Roll { span, .. } => (None, span),
            _ => return Ok(Go::Next(next)),
        };
        if m.hypothetical > 0 {
            return Err(unknown_chance(span));
        }
        if st.chance == ChanceMode::External {
            return Ok(match self.pause_checks(m, st, locals)? {
                Some(sp) => Go::Again(sp),
                None => Go::Wait,
            });
        }
        match (shuffled, step) {
            (Some(z), _) => {
                st.window.changes += 1;
                let mut items = st.zones.items(z);
                for i in (1..items.len()).rev() {
                    let j = st.rng.gen_range(0..=i);
                    items.swap(i, j);
                }
                st.zones.set_items(z, &items);
                st.wrote(&self.program.families, self.program.families.inst(z));
            }
            (
                None,
                Step::Roll {
                    target,
                    domain,
                    span,
                },
            ) => {
                let l = &mut locals[base..];
                let v = self.roll(m, st, *domain, l, me, *span)?;
                st.window.changes += 1;
                self.assign(m, st, l, me, target, AssignOp::Set, v, *span)?;
            }
            _ => {}
        }
        Ok(Go::Next(next))
    }

    /// The effects that neither wait nor jump: [`Step::Deal`], the reveals
    /// ([`Step::Reveal`], [`Step::RevealZone`], [`Step::RevealTo`]) and the memories
    /// ([`Step::Remember`], [`Step::Forget`]).
    #[inline(never)]
    pub(super) fn effect_step(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut [Value],
        me: u8,
        step: &Step,
    ) -> Result<(), RunError> {
        match step {
            Step::Deal {
                count,
                from,
                to,
                bottom,
                span,
            } => {
                let f = zone(
                    self,
                    st,
                    self.value_in(m, st, *from, locals, me, *span)?,
                    *span,
                )?;
                let t = zone(
                    self,
                    st,
                    self.value_in(m, st, *to, locals, me, *span)?,
                    *span,
                )?;
                let n = match count {
                    Some(c) => match self.value_in(m, st, *c, locals, me, *span)? {
                        Value::Int(n) => n.max(0) as usize,
                        other => return Err(expected(self, st, "a number", other, *span)),
                    },
                    None => usize::MAX,
                };
                for _ in 0..n.min(st.zones.len(f)) {
                    let Some(c) = st.zones.top(f) else { break };
                    m.spend(Some(*span))?;
                    self.move_comp(st, c, t, *bottom, *span)?;
                }
            }
            Step::Reveal {
                comp: c,
                field,
                on,
                span,
            } => {
                let c = comp(
                    self,
                    st,
                    self.value_in(m, st, *c, locals, me, *span)?,
                    *span,
                )?;
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
                let z = match self.value_in(m, st, *zone, locals, me, *span)? {
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
            } => self.remember(m, st, locals, me, (*memory, parts, *span))?,
            Step::Forget { memory } => {
                if !st.memory[*memory as usize].is_empty() {
                    st.memory[*memory as usize] = std::sync::Arc::new(Vec::new());
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
                let c = comp(
                    self,
                    st,
                    self.value_in(m, st, *c, locals, me, *span)?,
                    *span,
                )?;
                let p = match self.value_in(m, st, *to, locals, me, *span)? {
                    Value::Player(p) if p < st.players => p,
                    other => return Err(expected(self, st, "a player", other, *span)),
                };
                if (*field as usize) < self.comps[c].fields.len() {
                    let slot = self.field_slot(c, *field);
                    st.grants[slot] |= 1 << p;
                    st.window.changes += 1;
                }
            }
            _ => return Err(err("internal: a step the step loop runs itself", None)),
        }
        Ok(())
    }

    /// [`Step::Remember`]: a position of the memory's width appended, or none when a part
    /// fails (no half position) or the memories would pass their limit.
    fn remember(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut [Value],
        me: u8,
        (memory, parts, span): (u16, &[Code], Span),
    ) -> Result<(), RunError> {
        let width = parts.len();
        let held: usize = st.memory.iter().map(|m| m.len()).sum();
        if held + width > MAX_MEMORY_VALUES {
            return Err(RunError::Limit {
                message: format!(
                    "memory `{}` is full: the memories of a match hold at most \
                     {MAX_MEMORY_VALUES} values (positions of {width} values here)",
                    self.memories[memory as usize].name,
                ),
                span: Some(span),
            });
        }
        // The position's values first (a failing part adds nothing), then appended at once:
        // `make_mut` (which makes a memory shared with a copy this state's own) costs an
        // atomic operation a call.
        let at = st.memory[memory as usize].len();
        let mut vals = [Value::None; REMEMBERED_AT_ONCE];
        for chunk in parts.chunks(REMEMBERED_AT_ONCE) {
            for (v, part) in vals.iter_mut().zip(chunk) {
                match self.value_in(m, st, *part, locals, me, span) {
                    Ok(x) => *v = x,
                    Err(e) => {
                        if st.memory[memory as usize].len() > at {
                            std::sync::Arc::make_mut(&mut st.memory[memory as usize]).truncate(at);
                        }
                        return Err(e);
                    }
                }
            }
            let mem = std::sync::Arc::make_mut(&mut st.memory[memory as usize]);
            mem.extend_from_slice(&vals[..chunk.len()]);
        }
        st.stamps.write(Family::WHERE);
        st.window.changes += 1;
        Ok(())
    }
}

/// How many values of a position [`Game::remember`] computes before appending them.
const REMEMBERED_AT_ONCE: usize = 16;
