//! The options of a decision: listing them, testing one, applying one; chance outcomes;
//! simultaneous choices.
use super::eval::{Ctx, Env};
use super::*;
use crate::ir::*;

impl Game {
    /// The index in [`Game::choices`] of the choice a player must make now, if any.
    pub fn waiting_choice(&self, st: &State) -> Option<ChoiceId> {
        match st.wait {
            Wait::Decision { choice, .. } => Some(choice),
            _ => None,
        }
    }

    /// Who must act now.
    pub fn actor(&self, st: &State) -> Actor {
        match st.wait {
            Wait::Decision { actor, .. } => Actor::Player(actor),
            Wait::Chance => Actor::Chance,
            Wait::Over | Wait::Running => Actor::Nobody,
        }
    }

    /// Lists the legal actions of the actor into `out` (cleared first), in a stable order:
    /// a player's options, or the outcomes of a waiting chance event; nothing once the game
    /// is over.
    pub fn legal(&self, st: &State, out: &mut Vec<Action>) -> Result<(), RunError> {
        out.clear();
        match st.wait {
            Wait::Decision { choice, .. } if self.choices[choice].each.is_none() => {
                out.extend_from_slice(&st.cache);
                Ok(())
            }
            Wait::Decision { choice, actor } => self.options(st, choice, actor, &mut |a| {
                out.push(a);
                true
            }),
            Wait::Chance => {
                self.chance_outcomes(st, &mut |v, _w| {
                    out.push(Action::chance(v));
                })?;
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Calls `f` with each outcome of the waiting chance event and its weight, in a stable
    /// order, and returns the total weight (probability = weight / total; 0 when no chance
    /// event waits). Interchangeable components are merged into one weighted outcome.
    pub fn chance_outcomes(
        &self,
        st: &State,
        f: &mut dyn FnMut(Value, u32),
    ) -> Result<u32, RunError> {
        let Some(frame) = st.frames.last() else {
            return Ok(0);
        };
        let ctx = Ctx { g: self, s: st };
        let mut locals = [Value::None; MAX_LOCALS];
        let n = self.procs[frame.proc].locals as usize;
        locals[..n].copy_from_slice(&st.locals[frame.base as usize..frame.base as usize + n]);
        let mut env = Env {
            locals: &mut locals[..],
            me: frame.me,
            depth: 0,
        };
        let mut vals: Vec<(Value, u32)> = Vec::new();
        match &self.procs[frame.proc].code[frame.pc as usize] {
            Instr::Roll { domain, .. } => {
                ctx.each(domain, &mut env, false, &mut |v, _| {
                    let same = |x: &Value| match (*x, v) {
                        (Value::Comp(a), Value::Comp(b)) => {
                            a == b || (st.loc[a] == st.loc[b] && ctx.same_fields(a, b))
                        }
                        (a, b) => a == b,
                    };
                    match vals.iter_mut().find(|(x, _)| same(x)) {
                        Some(e) => e.1 += 1,
                        None => vals.push((v, 1)),
                    }
                    Ok(true)
                })?;
            }
            Instr::Shuffle { zone, .. } => {
                let z = ctx.zone(zone, &mut env)?;
                let items = &st.zones[z];
                let open = items.len() - st.chance_step as usize;
                for (i, &c) in items[..open].iter().enumerate() {
                    match items[..i].iter().position(|&o| ctx.same_fields(o, c)) {
                        Some(j) => {
                            if let Some(e) =
                                vals.iter_mut().find(|(x, _)| *x == Value::Comp(items[j]))
                            {
                                e.1 += 1;
                            }
                        }
                        None => vals.push((Value::Comp(c), 1)),
                    }
                }
            }
            _ => {}
        }
        let total = vals.iter().map(|v| v.1).sum();
        for (v, w) in vals {
            f(v, w);
        }
        Ok(total)
    }

    /// Calls `f` with every legal option of a choice, until it returns false.
    pub(crate) fn options(
        &self,
        st: &State,
        choice: ChoiceId,
        actor: u8,
        f: &mut dyn FnMut(Action) -> bool,
    ) -> Result<(), RunError> {
        let ch = &self.choices[choice];
        let frame = st.frames.last().expect("a waiting choice has a frame");
        let ctx = Ctx { g: self, s: st };
        let mut locals = [Value::None; MAX_LOCALS];
        let n = self.procs[frame.proc].locals as usize;
        locals[..n].copy_from_slice(&st.locals[frame.base as usize..frame.base as usize + n]);
        let inline_me = match &ch.each {
            Some((b, _)) => {
                locals[b.slot as usize] = Value::Player(actor);
                actor
            }
            None => frame.me,
        };
        for (ai, arm) in ch.arms.iter().enumerate() {
            let mut go_on = true;
            match arm {
                Arm::Action(a) => {
                    let act = &self.actions[*a];
                    let mut alocals = [Value::None; MAX_LOCALS];
                    let mut env = Env {
                        locals: &mut alocals[..],
                        me: actor,
                        depth: 0,
                    };
                    self.bind_rec(
                        &ctx,
                        &act.params,
                        &act.guard_parts,
                        0,
                        &mut env,
                        &mut |env| {
                            let mut args = [Value::None; MAX_ARGS];
                            for (i, b) in act.params.iter().enumerate() {
                                args[i] = env.locals[b.slot as usize];
                            }
                            go_on = f(Action {
                                arm: ai as u16,
                                args,
                            });
                            go_on
                        },
                    )
                    .map_err(|e| with_span(e, act.guard_span.or(Some(ch.span))))?;
                }
                Arm::Inline {
                    binds, guard_parts, ..
                } => {
                    let mut env = Env {
                        locals: &mut locals[..],
                        me: inline_me,
                        depth: 0,
                    };
                    self.bind_rec(&ctx, binds, guard_parts, 0, &mut env, &mut |env| {
                        let mut args = [Value::None; MAX_ARGS];
                        for (i, b) in binds.iter().enumerate() {
                            args[i] = env.locals[b.slot as usize];
                        }
                        go_on = f(Action {
                            arm: ai as u16,
                            args,
                        });
                        go_on
                    })
                    .map_err(|e| with_span(e, Some(ch.span)))?;
                }
            }
            if !go_on {
                break;
            }
        }
        Ok(())
    }

    /// Enumerates every binding of `binds` that passes `guard`.
    #[allow(clippy::only_used_in_recursion)]
    pub(crate) fn bind_rec(
        &self,
        ctx: &Ctx,
        binds: &[Bind],
        parts: &[(u16, crate::ir::Expr)],
        k: usize,
        env: &mut Env,
        f: &mut dyn FnMut(&mut Env) -> bool,
    ) -> Result<bool, RunError> {
        // The parts of the guard that need exactly the first k bindings: check them now.
        for (need, g) in parts {
            if *need as usize == k && !ctx.bool(g, env)? {
                return Ok(true);
            }
        }
        if k == binds.len() {
            return Ok(f(env));
        }
        let b = &binds[k];
        let mut go_on = true;
        let dedup = matches!(b.coll, Coll::Zone(_));
        ctx.each(&b.coll, env, dedup, &mut |v, env| {
            env.locals[b.slot as usize] = v;
            go_on = self.bind_rec(ctx, binds, parts, k + 1, env, f)?;
            Ok(go_on)
        })?;
        Ok(go_on)
    }

    pub(crate) fn has_option(
        &self,
        st: &State,
        choice: ChoiceId,
        actor: u8,
    ) -> Result<bool, RunError> {
        let mut any = false;
        self.options(st, choice, actor, &mut |_| {
            any = true;
            false
        })?;
        Ok(any)
    }

    /// Whether this action is among the legal actions of the actor now.
    pub fn is_legal(&self, st: &State, a: &Action) -> Result<bool, RunError> {
        let mut found = false;
        match st.wait {
            // Listed when the game paused at this choice.
            Wait::Decision { choice, .. } if self.choices[choice].each.is_none() => {
                found = st.cache.contains(a)
            }
            Wait::Decision { choice, actor } => self.options(st, choice, actor, &mut |x| {
                found = x == *a;
                !found
            })?,
            Wait::Chance => {
                self.chance_outcomes(st, &mut |v, _| {
                    found |= a.arm == Action::CHANCE && a.args[0] == v
                })?;
            }
            _ => {}
        }
        Ok(found)
    }

    /// Applies a legal action and runs to the next decision. An illegal action is refused
    /// and the state is left as it was.
    pub fn apply(&self, st: &mut State, a: &Action) -> Result<(), RunError> {
        if st.is_over() {
            return Err(RunError::Finished);
        }
        if !self.is_legal(st, a)? {
            return Err(RunError::illegal(format!(
                "`{}` is not legal now",
                self.action_text(st, a)
            )));
        }
        self.apply_unchecked(st, a)
    }

    /// Applies an action known to be legal (one that [`Game::legal`] listed for this state).
    /// Crate-private: an action from outside goes through [`Game::apply`], which checks it.
    pub(crate) fn apply_unchecked(&self, st: &mut State, a: &Action) -> Result<(), RunError> {
        st.decisions += 1;
        if let Wait::Decision { choice, actor } = st.wait {
            if self.choices[choice].each.is_some() {
                st.commits[actor as usize] = Some(*a);
                if let Some(p) = st.commits.iter().position(|c| c.is_none()) {
                    st.wait = Wait::Decision {
                        choice,
                        actor: p as u8,
                    };
                    return Ok(());
                }
                let fi = st.frames.len() - 1;
                st.frames[fi].pc += 1;
                st.wait = Wait::Running;
                return self.run(st);
            }
        }
        match st.wait {
            Wait::Decision { choice, actor } => {
                let ch = &self.choices[choice];
                let fi = st.frames.len() - 1;
                match &ch.arms[a.arm as usize] {
                    Arm::Action(ai) => {
                        st.frames[fi].pc = ch.end_pc;
                        let act = &self.actions[*ai];
                        let n = act.params.len();
                        let base = st.locals.len();
                        self.push_frame(st, act.proc, actor, &[]);
                        for (i, b) in act.params.iter().enumerate().take(n) {
                            st.locals[base + b.slot as usize] = a.args[i];
                        }
                    }
                    Arm::Inline { binds, body_pc, .. } => {
                        let base = st.frames[fi].base as usize;
                        for (i, b) in binds.iter().enumerate() {
                            st.locals[base + b.slot as usize] = a.args[i];
                        }
                        st.frames[fi].pc = *body_pc;
                    }
                }
            }
            Wait::Chance => self.apply_chance(st, a.args[0])?,
            _ => return Err(RunError::Finished),
        }
        st.wait = Wait::Running;
        self.run(st)
    }

    pub(crate) fn apply_chance(&self, st: &mut State, v: Value) -> Result<(), RunError> {
        let fi = st.frames.len() - 1;
        let frame = st.frames[fi];
        match &self.procs[frame.proc].code[frame.pc as usize] {
            Instr::Roll { target, span, .. } => {
                let mut locals = std::mem::take(&mut st.locals);
                let r = self.assign(st, &mut locals, frame, target, AssignOp::Set, v, *span);
                st.locals = locals;
                r?;
                st.frames[fi].pc += 1;
            }
            Instr::Shuffle { zone, .. } => {
                let ctx = Ctx { g: self, s: st };
                let mut locals = st.locals[frame.base as usize..].to_vec();
                let z = ctx.zone(
                    zone,
                    &mut Env {
                        locals: &mut locals,
                        me: frame.me,
                        depth: 0,
                    },
                )?;
                let Value::Comp(c) = v else {
                    return Err(RunError::illegal("a shuffle outcome must be a component"));
                };
                let len = st.zones[z].len();
                let pos = len - 1 - st.chance_step as usize;
                let Some(i) = st.zones[z][..=pos].iter().position(|&x| x == c) else {
                    return Err(RunError::illegal(
                        "that component is not among the shuffled ones",
                    ));
                };
                st.zones[z].swap(i, pos);
                st.chance_step += 1;
                if st.chance_step as usize + 1 >= len {
                    st.chance_step = 0;
                    st.frames[fi].pc += 1;
                }
            }
            _ => return Err(RunError::illegal("no chance event is waiting")),
        }
        Ok(())
    }
}

impl Game {
    /// The players who must still choose: one, or several when a `choose each` waits for
    /// simultaneous choices (each sees only its own options; commitments stay hidden).
    pub fn pending(&self, st: &State) -> Vec<u8> {
        match st.wait {
            Wait::Decision { choice, actor } if self.choices[choice].each.is_some() => {
                let _ = actor;
                st.commits
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.is_none())
                    .map(|(p, _)| p as u8)
                    .collect()
            }
            Wait::Decision { actor, .. } => vec![actor],
            _ => Vec::new(),
        }
    }

    /// Lists the legal actions of one pending player (for simultaneous choices).
    pub fn legal_for(&self, st: &State, seat: u8, out: &mut Vec<Action>) -> Result<(), RunError> {
        out.clear();
        match st.wait {
            Wait::Decision { choice, .. } if self.pending(st).contains(&seat) => {
                self.options(st, choice, seat, &mut |a| {
                    out.push(a);
                    true
                })
            }
            _ => Ok(()),
        }
    }

    /// Applies the action of one pending player; in a simultaneous choice, any pending player
    /// may commit in any order.
    pub fn apply_for(&self, st: &mut State, seat: u8, a: &Action) -> Result<(), RunError> {
        let mut buf = Vec::new();
        self.legal_for(st, seat, &mut buf)?;
        if !buf.contains(a) {
            return Err(RunError::illegal(format!(
                "that is not a legal action of {} now",
                player_name(seat)
            )));
        }
        if let Wait::Decision { choice, .. } = st.wait {
            st.wait = Wait::Decision {
                choice,
                actor: seat,
            };
        }
        self.apply_unchecked(st, a)
    }
}
