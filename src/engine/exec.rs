//! Running the rules: start a match, list legal actions, apply one, run to the next decision.

use super::eval::{Ctx, Env};
use super::{
    show_value, Action, Actor, ChanceMode, Config, Frame, Outcome, OutcomeKind, Phase, RunError,
    State, Wait,
};
use crate::ir::{Arm, Bind, Coll, Game, Instr, LValue, Type, Value, MAX_ARGS};
use crate::syntax::ast::{AssignOp, EndKind, Span};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Instructions the rules may run between two decisions before they are stopped.
pub const STEP_LIMIT: u64 = 2_000_000;
/// The most locals one procedure may use while its options are listed.
pub(crate) const MAX_LOCALS: usize = 64;

fn err(msg: impl Into<String>, span: Option<Span>) -> RunError {
    RunError {
        message: msg.into(),
        span,
    }
}

impl Game {
    /// Starts a match: checks the configuration, runs the setup, and stops at the first decision.
    pub fn start(&self, cfg: &Config) -> Result<State, RunError> {
        if cfg.players < self.min_players || cfg.players > self.max_players {
            let range = if self.min_players == self.max_players {
                format!("{}", self.min_players)
            } else {
                format!("{} to {}", self.min_players, self.max_players)
            };
            return Err(err(
                format!(
                    "{} is played by {range} players, not {}",
                    self.name, cfg.players
                ),
                None,
            ));
        }
        let mut consts: Vec<Value> = self.consts.iter().map(|c| c.value).collect();
        let variant = match &cfg.variant {
            None => None,
            Some(name) => {
                let Some(i) = self.variants.iter().position(|v| &v.name == name) else {
                    let known: Vec<&str> = self.variants.iter().map(|v| v.name.as_str()).collect();
                    return Err(err(
                        format!(
                            "unknown variant `{name}`; this game has: {}",
                            if known.is_empty() {
                                "none".into()
                            } else {
                                known.join(", ")
                            }
                        ),
                        None,
                    ));
                };
                for (c, v) in &self.variants[i].sets {
                    consts[*c as usize] = *v;
                }
                Some(i as u16)
            }
        };
        let mut fields = Vec::new();
        for c in &self.comps {
            fields.extend_from_slice(&c.fields);
        }
        // Each zone gets room for the components that could ever be in it (up to 64), so that
        // moving components during play does not allocate.
        let mut per_type = vec![0usize; self.types.len()];
        for c in &self.comps {
            per_type[c.ty as usize] += 1;
        }
        let mut zones: Vec<Vec<u32>> = self
            .instances
            .iter()
            .map(|i| Vec::with_capacity(per_type[self.zones[i.zone as usize].ty as usize].min(64)))
            .collect();
        let mut loc = Vec::with_capacity(self.comps.len());
        for (i, c) in self.comps.iter().enumerate() {
            zones[c.zone as usize].push(i as u32);
            loc.push(c.zone);
        }
        let mut st = State {
            players: cfg.players,
            variant,
            consts,
            vars: vec![Value::None; self.var_slots as usize],
            revealed: vec![false; fields.len()],
            fields,
            zones,
            loc,
            frames: vec![],
            locals: vec![],
            iters: vec![],
            current: None,
            wait: Wait::Running,
            phase: Phase::Setup,
            rng: ChaCha8Rng::seed_from_u64(cfg.seed),
            chance: cfg.chance,
            chance_step: 0,
            commits: vec![],
            cache: vec![],
            decisions: 0,
            outcome: None,
        };
        for v in &self.vars {
            let init = match &v.init {
                Some(e) => {
                    let mut locals = [Value::None; MAX_LOCALS];
                    let ctx = Ctx { g: self, s: &st };
                    ctx.eval(
                        e,
                        &mut Env {
                            locals: &mut locals,
                            me: 0,
                            depth: 0,
                        },
                    )
                    .map_err(|e| RunError {
                        span: e.span.or(Some(v.span)),
                        ..*e
                    })?
                }
                None => match v.ty {
                    Type::Int => Value::Int(v.range.map_or(0, |(lo, hi)| 0.clamp(lo, hi))),
                    Type::Bool => Value::Bool(false),
                    _ => Value::None,
                },
            };
            for k in 0..v.count {
                st.vars[(v.base + k) as usize] = init;
            }
        }
        let first = self.setup.unwrap_or(self.flow);
        if self.setup.is_none() {
            st.phase = Phase::Flow;
        }
        self.push_frame(&mut st, first, 0, &[]);
        self.run(&mut st)?;
        Ok(st)
    }

    pub(crate) fn push_frame(&self, st: &mut State, proc: u32, me: u8, args: &[Value]) {
        let base = st.locals.len() as u32;
        let n = self.procs[proc as usize].locals as usize;
        st.locals
            .resize(base as usize + n.max(args.len()), Value::None);
        st.locals[base as usize..base as usize + args.len()].copy_from_slice(args);
        st.frames.push(Frame {
            proc,
            pc: 0,
            base,
            me,
        });
    }

    /// The index in [`Game::choices`] of the choice a player must make now, if any.
    pub fn waiting_choice(&self, st: &State) -> Option<u32> {
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
            Wait::Decision { choice, .. } if self.choices[choice as usize].each.is_none() => {
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
        let n = self.procs[frame.proc as usize].locals as usize;
        locals[..n].copy_from_slice(&st.locals[frame.base as usize..frame.base as usize + n]);
        let mut env = Env {
            locals: &mut locals[..],
            me: frame.me,
            depth: 0,
        };
        let mut vals: Vec<(Value, u32)> = Vec::new();
        match &self.procs[frame.proc as usize].code[frame.pc as usize] {
            Instr::Roll { domain, .. } => {
                ctx.each(domain, &mut env, false, &mut |v, _| {
                    let same = |x: &Value| match (*x, v) {
                        (Value::Comp(a), Value::Comp(b)) => {
                            a == b
                                || (st.loc[a as usize] == st.loc[b as usize]
                                    && ctx.same_fields(a, b))
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
                let items = &st.zones[z as usize];
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
    fn options(
        &self,
        st: &State,
        choice: u32,
        actor: u8,
        f: &mut dyn FnMut(Action) -> bool,
    ) -> Result<(), RunError> {
        let ch = &self.choices[choice as usize];
        let frame = st.frames.last().expect("a waiting choice has a frame");
        let ctx = Ctx { g: self, s: st };
        let mut locals = [Value::None; MAX_LOCALS];
        let n = self.procs[frame.proc as usize].locals as usize;
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
                    let act = &self.actions[*a as usize];
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
    fn bind_rec(
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

    fn has_option(&self, st: &State, choice: u32, actor: u8) -> Result<bool, RunError> {
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
            Wait::Decision { choice, .. } if self.choices[choice as usize].each.is_none() => {
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
        if !self.is_legal(st, a)? {
            return Err(err(
                format!("`{}` is not legal now", self.action_text(st, a)),
                None,
            ));
        }
        self.apply_unchecked(st, a)
    }

    /// Applies an action known to be legal (one that [`Game::legal`] listed for this state).
    pub fn apply_unchecked(&self, st: &mut State, a: &Action) -> Result<(), RunError> {
        st.decisions += 1;
        if let Wait::Decision { choice, actor } = st.wait {
            if self.choices[choice as usize].each.is_some() {
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
                let ch = &self.choices[choice as usize];
                let fi = st.frames.len() - 1;
                match &ch.arms[a.arm as usize] {
                    Arm::Action(ai) => {
                        st.frames[fi].pc = ch.end_pc;
                        let act = &self.actions[*ai as usize];
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
            _ => return Err(err("the game is over", None)),
        }
        st.wait = Wait::Running;
        self.run(st)
    }

    fn apply_chance(&self, st: &mut State, v: Value) -> Result<(), RunError> {
        let fi = st.frames.len() - 1;
        let frame = st.frames[fi];
        match &self.procs[frame.proc as usize].code[frame.pc as usize] {
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
                )? as usize;
                let Value::Comp(c) = v else {
                    return Err(err("a shuffle outcome must be a component", None));
                };
                let len = st.zones[z].len();
                let pos = len - 1 - st.chance_step as usize;
                let Some(i) = st.zones[z][..=pos].iter().position(|&x| x == c) else {
                    return Err(err("that component is not among the shuffled ones", None));
                };
                st.zones[z].swap(i, pos);
                st.chance_step += 1;
                if st.chance_step as usize + 1 >= len {
                    st.chance_step = 0;
                    st.frames[fi].pc += 1;
                }
            }
            _ => return Err(err("no chance event is waiting", None)),
        }
        Ok(())
    }

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
                            base as usize + self.procs[self.flow as usize].locals as usize,
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
            let code = &self.procs[frame.proc as usize].code;
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
                    let n = n.min(st.zones[f as usize].len());
                    for _ in 0..n {
                        let c = *st.zones[f as usize].last().expect("counted");
                        self.move_comp(st, c, t, *bottom, *span)?;
                    }
                }
                Instr::Shuffle { zone, span } => {
                    let z = ctx
                        .zone(zone, &mut env)
                        .map_err(|e| with_span(e, Some(*span)))?
                        as usize;
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
                Instr::Choose(cid) if self.choices[*cid as usize].each.is_some() => {
                    let ch = &self.choices[*cid as usize];
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
                    let ch = &self.choices[*cid as usize];
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
                                    let act = &self.actions[*ai as usize];
                                    st.frames[fi].pc = frame.pc;
                                    let nb = locals.len();
                                    locals.resize(
                                        nb + self.procs[act.proc as usize].locals as usize,
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
                    let ch = &self.choices[*cid as usize];
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
                    let act = &self.actions[*action as usize];
                    let mut vals = [Value::None; MAX_ARGS];
                    for (i, a) in args.iter().enumerate().take(MAX_ARGS) {
                        vals[i] = ctx
                            .eval(a, &mut env)
                            .map_err(|e| with_span(e, Some(*span)))?;
                    }
                    st.frames[fi].pc = next;
                    let nb = locals.len();
                    locals.resize(
                        nb + self.procs[act.proc as usize].locals as usize,
                        Value::None,
                    );
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
                    st.revealed[(self.comps[c as usize].field_base + *field as u32) as usize] = *on;
                }
            }
            st.frames[fi].pc = next;
        }
    }

    /// Before waiting on chance: end conditions still apply.
    fn pause_checks(&self, st: &mut State, locals: &mut Vec<Value>) -> Result<(), RunError> {
        st.locals = std::mem::take(locals);
        let r = self.check_end(st);
        *locals = std::mem::take(&mut st.locals);
        r.map(|_| ())
    }

    #[allow(clippy::too_many_arguments)]
    fn assign(
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
            Var(usize, u32),
            Field(usize, u32, u16),
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
                let cd = &self.comps[c as usize];
                Where::Field((cd.field_base + *field as u32) as usize, c, *field)
            }
        };
        let name = |at: &Where| -> String {
            match at {
                Where::Local(_) => "a local".into(),
                Where::Var(_, var) => format!("`{}`", self.vars[*var as usize].name),
                Where::Field(_, c, f) => format!(
                    "field `{}`",
                    self.types[self.comps[*c as usize].ty as usize].fields[*f as usize].name
                ),
            }
        };
        let (slot_ref, range): (&mut Value, Option<(i64, i64)>) = match at {
            Where::Local(i) => (&mut locals[i], None),
            Where::Var(i, var) => (&mut st.vars[i], self.vars[var as usize].range),
            Where::Field(i, c, f) => (
                &mut st.fields[i],
                self.types[self.comps[c as usize].ty as usize].fields[f as usize].range,
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

    fn move_comp(
        &self,
        st: &mut State,
        c: u32,
        to: u32,
        bottom: bool,
        span: Span,
    ) -> Result<(), RunError> {
        let want = self.zones[self.instances[to as usize].zone as usize].ty;
        let ty = self.comps[c as usize].ty;
        if want != ty {
            return Err(err(
                format!(
                    "{} cannot go to {}: that zone holds {}",
                    show_value(self, st, Value::Comp(c)),
                    self.zone_instance_name(to),
                    self.types[want as usize].name
                ),
                Some(span),
            ));
        }
        let from = st.loc[c as usize] as usize;
        if let Some(i) = st.zones[from].iter().rposition(|&x| x == c) {
            st.zones[from].remove(i);
        }
        if bottom {
            st.zones[to as usize].insert(0, c);
        } else {
            st.zones[to as usize].push(c);
        }
        st.loc[c as usize] = to;
        Ok(())
    }

    /// Evaluates `end when` conditions; ends the game when one holds.
    fn check_end(&self, st: &mut State) -> Result<bool, RunError> {
        for (cond, span) in &self.end_when {
            let ctx = Ctx { g: self, s: st };
            let mut locals = [Value::None; MAX_LOCALS];
            let mut env = Env {
                locals: &mut locals,
                me: st.current.unwrap_or(0),
                depth: 0,
            };
            if ctx
                .bool(cond, &mut env)
                .map_err(|e| with_span(e, Some(*span)))?
            {
                self.finish(st, EndKind::Score, None)?;
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Every seat's `score` evaluated on this state, in seat order (all 0 when the game
    /// declares no `score`).
    pub fn scores(&self, st: &State) -> Result<Vec<i64>, RunError> {
        let Some(score) = &self.score else {
            return Ok(vec![0; st.players as usize]);
        };
        (0..st.players)
            .map(|p| self.player_value(st, score, p))
            .collect()
    }

    fn player_value(&self, st: &State, e: &crate::ir::Expr, p: u8) -> Result<i64, RunError> {
        let ctx = Ctx { g: self, s: st };
        let mut locals = vec![Value::None; self.score_locals.max(1) as usize];
        locals[0] = Value::Player(p);
        ctx.int(
            e,
            &mut Env {
                locals: &mut locals,
                me: p,
                depth: 0,
            },
        )
        .map_err(RunError::from)
    }

    fn finish(&self, st: &mut State, kind: EndKind, winner: Option<Value>) -> Result<(), RunError> {
        let scores = self.scores(st)?;
        let (winners, kind) = match (kind, winner) {
            (_, Some(Value::Player(p))) => (vec![p], OutcomeKind::Won),
            (_, Some(_)) => ((0..st.players).collect(), OutcomeKind::Won),
            (EndKind::Draw, _) => (vec![], OutcomeKind::Draw),
            (EndKind::Lose, _) => (vec![], OutcomeKind::Lost),
            (EndKind::Score, None) => {
                let mut keys: Vec<(u8, Vec<i64>)> = Vec::new();
                for p in 0..st.players {
                    let mut k = vec![scores[p as usize]];
                    for t in &self.tiebreaks {
                        k.push(self.player_value(st, t, p)?);
                    }
                    keys.push((p, k));
                }
                let best = keys.iter().map(|k| k.1.clone()).max().unwrap_or_default();
                let top: Vec<u8> = keys.iter().filter(|k| k.1 == best).map(|k| k.0).collect();
                if top.len() > 1 && !self.ties_shared {
                    (vec![], OutcomeKind::Draw)
                } else {
                    (top, OutcomeKind::Scored)
                }
            }
        };
        st.outcome = Some(Outcome {
            scores,
            winners,
            kind,
        });
        st.wait = Wait::Over;
        st.phase = Phase::Over;
        st.frames.clear();
        st.locals.clear();
        st.iters.clear();
        Ok(())
    }

    /// The canonical text of an action: `play card=red-7`, `pass`, `n=row2`, `chance 4`.
    pub fn action_text(&self, st: &State, a: &Action) -> String {
        if a.arm == Action::CHANCE {
            return format!("chance {}", show_value(self, st, a.args[0]));
        }
        let Wait::Decision { choice, .. } = st.wait else {
            return "?".into();
        };
        let mut s = String::new();
        let binds: &[Bind] = match &self.choices[choice as usize].arms.get(a.arm as usize) {
            Some(Arm::Action(ai)) => {
                s.push_str(&self.actions[*ai as usize].name);
                &self.actions[*ai as usize].params
            }
            Some(Arm::Inline { label, binds, .. }) => {
                if let Some(l) = label {
                    s.push_str(l);
                }
                binds
            }
            None => return "?".into(),
        };
        for (i, b) in binds.iter().enumerate() {
            if !s.is_empty() {
                s.push(' ');
            }
            s.push_str(&b.name);
            s.push('=');
            s.push_str(&show_value(self, st, a.args[i]));
        }
        s
    }

    /// Finds the legal action with this canonical text.
    pub fn parse_action(&self, st: &State, text: &str) -> Result<Action, RunError> {
        let mut buf = Vec::new();
        self.legal(st, &mut buf)?;
        let want = normalize(text);
        buf.into_iter()
            .find(|a| normalize(&self.action_text(st, a)) == want)
            .ok_or_else(|| {
                let mut names = Vec::new();
                let _ = self.legal(st, &mut names);
                let list: Vec<String> = names
                    .iter()
                    .take(12)
                    .map(|a| self.action_text(st, a))
                    .collect();
                err(
                    format!(
                        "`{text}` is not a legal action now; legal: {}{}",
                        list.join(", "),
                        if names.len() > 12 { ", ..." } else { "" }
                    ),
                    None,
                )
            })
    }
}

fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn with_span(e: impl Into<RunError>, span: Option<Span>) -> RunError {
    let mut e = e.into();
    if e.span.is_none() {
        e.span = span;
    }
    e
}

/// Why an action is or is not legal now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WhyNot {
    /// Whether the action is legal now.
    pub legal: bool,
    /// The explanation, in words (`it is legal now` when it is).
    pub reason: String,
    /// The guard, collection or choice in the rules file that decides it.
    pub span: Option<Span>,
}

impl Game {
    /// Explains whether the action with this canonical text is legal now, naming the choice,
    /// parameter collection or guard that rules it out, with its span in the rules file.
    ///
    /// ```
    /// use rulebook::Config;
    /// let text = std::fs::read_to_string("rules/classic/tic_tac_toe.rules").unwrap();
    /// let game = rulebook::load("tic_tac_toe.rules", &text).game.expect("valid rules");
    /// let mut st = game.start(&Config { players: 2, ..Default::default() }).unwrap();
    /// let a = game.parse_action(&st, "place cell=b2").unwrap();
    /// game.apply(&mut st, &a).unwrap();
    ///
    /// // b2 is marked now: the guard of `place` rules it out, and the span points at it.
    /// let why = game.why_not(&st, "place cell=b2").unwrap();
    /// assert!(!why.legal);
    /// assert_eq!(why.reason, "its condition does not hold now");
    /// let span = why.span.unwrap();
    /// assert_eq!(&game.source[span.start..span.end], "mark[cell] == none");
    ///
    /// // A value the parameter cannot take is blamed on the parameter's collection.
    /// let why = game.why_not(&st, "place cell=z9").unwrap();
    /// assert_eq!(why.reason, "`cell=z9` is not one of the values `cell` can take now");
    /// assert!(game.why_not(&st, "place cell=a1").unwrap().legal);
    /// ```
    pub fn why_not(&self, st: &State, text: &str) -> Result<WhyNot, RunError> {
        let no = |reason: String, span: Option<Span>| {
            Ok(WhyNot {
                legal: false,
                reason,
                span,
            })
        };
        let (choice, actor) = match st.wait {
            Wait::Decision { choice, actor } => (choice, actor),
            Wait::Chance => return no("chance must act now, not a player".into(), None),
            _ => return no("the game is over".into(), None),
        };
        let ch = &self.choices[choice as usize];
        let mut words = text.split_whitespace().peekable();
        let label = match words.peek() {
            Some(w) if !w.contains('=') => words.next().map(str::to_string),
            _ => None,
        };
        let pairs: Vec<(&str, &str)> = words.filter_map(|w| w.split_once('=')).collect();
        let offered: Vec<String> = ch
            .arms
            .iter()
            .map(|a| match a {
                Arm::Action(ai) => self.actions[*ai as usize].name.clone(),
                Arm::Inline { label: Some(l), .. } => l.clone(),
                Arm::Inline { binds, .. } => binds
                    .iter()
                    .map(|b| format!("{}=...", b.name))
                    .collect::<Vec<_>>()
                    .join(" "),
            })
            .collect();
        let found = ch.arms.iter().find(|a| match (a, &label) {
            (Arm::Action(ai), Some(l)) => &self.actions[*ai as usize].name == l,
            (Arm::Inline { label: Some(x), .. }, Some(l)) => x == l,
            (
                Arm::Inline {
                    label: None, binds, ..
                },
                None,
            ) => binds
                .iter()
                .all(|b| pairs.iter().any(|(k, _)| *k == b.name)),
            _ => false,
        });
        let Some(arm) = found else {
            let what = label.clone().unwrap_or_else(|| text.to_string());
            return if label
                .as_ref()
                .is_some_and(|l| self.actions.iter().any(|a| &a.name == l))
            {
                no(
                    format!(
                        "`{what}` is not offered by the choice waiting now, which offers: {}",
                        offered.join(", ")
                    ),
                    Some(ch.span),
                )
            } else {
                no(
                    format!(
                        "nothing called `{what}` can be chosen now; the choice offers: {}",
                        offered.join(", ")
                    ),
                    Some(ch.span),
                )
            };
        };
        let frame = st.frames.last().expect("a waiting choice has a frame");
        let ctx = Ctx { g: self, s: st };
        let mut locals = [Value::None; MAX_LOCALS];
        let (binds, guard, guard_span, me) = match arm {
            Arm::Action(ai) => {
                let a = &self.actions[*ai as usize];
                (&a.params, a.guard.as_ref(), a.guard_span, actor)
            }
            Arm::Inline {
                binds,
                guard,
                guard_span,
                ..
            } => {
                let n = self.procs[frame.proc as usize].locals as usize;
                locals[..n]
                    .copy_from_slice(&st.locals[frame.base as usize..frame.base as usize + n]);
                (binds, guard.as_ref(), *guard_span, frame.me)
            }
        };
        let mut env = Env {
            locals: &mut locals[..],
            me,
            depth: 0,
        };
        for b in binds {
            let Some((_, want)) = pairs.iter().find(|(k, _)| *k == b.name) else {
                return no(
                    format!("`{}` needs a value: write `{}=...`", b.name, b.name),
                    Some(b.span),
                );
            };
            let mut hit = None;
            ctx.each(&b.coll, &mut env, false, &mut |v, _| {
                if show_value(self, st, v) == *want {
                    hit = Some(v);
                    return Ok(false);
                }
                Ok(true)
            })?;
            match hit {
                Some(v) => env.locals[b.slot as usize] = v,
                None => {
                    return no(
                        format!(
                            "`{}={want}` is not one of the values `{}` can take now",
                            b.name, b.name
                        ),
                        Some(b.span),
                    )
                }
            }
        }
        if let Some(g) = guard {
            if !ctx.bool(g, &mut env)? {
                return no("its condition does not hold now".into(), guard_span);
            }
        }
        Ok(WhyNot {
            legal: true,
            reason: "it is legal now".into(),
            span: None,
        })
    }
}

impl Game {
    /// The players who must still choose: one, or several when a `choose each` waits for
    /// simultaneous choices (each sees only its own options; commitments stay hidden).
    pub fn pending(&self, st: &State) -> Vec<u8> {
        match st.wait {
            Wait::Decision { choice, actor } if self.choices[choice as usize].each.is_some() => {
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
            return Err(err(
                format!("that is not a legal action of p{} now", seat + 1),
                None,
            ));
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
