//! Testing and applying one option: legality, `apply`, entering a choice, chance outcomes
//! merged with their weights, and simultaneous choices (`pending`, `legal_for`, `apply_for`).

use super::*;

impl Game {
    /// Whether a component of a zone looks the same to `seat` as one below it (interchangeable
    /// components are offered once: the lowest).
    pub(crate) fn offered_before(&self, st: &State, v: Value, seat: u8) -> bool {
        let Value::Comp(c) = v else { return false };
        match self.program.twins.get(c.0 as usize) {
            Some(Twin::No) => return false,
            Some(&Twin::Class(class)) => {
                let mut below = st.zones.below(c);
                while let Some(o) = below {
                    if self.program.twins.get(o.0 as usize) == Some(&Twin::Class(class)) {
                        return true;
                    }
                    below = st.zones.below(o);
                }
                return false;
            }
            _ => {}
        }
        let comp = &self.comps[c];
        let secret = self.types[comp.ty]
            .fields
            .iter()
            .any(|f| f.seen_by.is_some());
        let n = comp.fields.len();
        let mine = &st.fields[comp.field_base as usize..comp.field_base as usize + n];
        let mut below = st.zones.below(c);
        while let Some(o) = below {
            let same = if secret {
                same_for(self, st, o, c, seat)
            } else {
                let other = &self.comps[o];
                other.ty == comp.ty
                    && &st.fields[other.field_base as usize..other.field_base as usize + n] == mine
            };
            if same {
                return true;
            }
            below = st.zones.below(o);
        }
        false
    }

    pub(crate) fn has_option(
        &self,
        m: &mut Machine,
        st: &State,
        choice: ChoiceId,
        actor: u8,
    ) -> Result<bool, RunError> {
        let mut any = false;
        self.options(m, st, choice, actor, &mut Vec::new(), &mut |_| {
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
                if self.program.check_caches {
                    self.check_listed(st);
                }
                found = st.cache.contains(a)
            }
            Wait::Decision { choice, actor } => with_machine(st.fuel, |m| {
                self.options(m, st, choice, actor, &mut Vec::new(), &mut |x| {
                    found = x == *a;
                    !found
                })
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
        if st.block.is_some() {
            return self.simul_apply(st, a);
        }
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
        if self.apply_window(st, a)? {
            return self.run(st);
        }
        match st.wait {
            Wait::Decision { .. } => {
                let sequence = self.is_sequence(st, a);
                self.enter(st, a)?;
                if sequence {
                    return self.replay(st, a.steps);
                }
            }
            Wait::Chance => self.apply_chance(st, a.args[0])?,
            _ => return Err(RunError::Finished),
        }
        st.wait = Wait::Running;
        self.run(st)
    }

    /// Takes an option of the waiting (plain) choice: the chosen action's frame is pushed with
    /// its parameters, or the inline option's values bound; the game is then ready to run.
    pub(crate) fn enter(&self, st: &mut State, a: &Action) -> Result<(), RunError> {
        let Wait::Decision { choice, actor } = st.wait else {
            return Err(RunError::Finished);
        };
        let ch = &self.choices[choice];
        let fi = st.frames.len() - 1;
        match ch.arms.get(a.arm as usize) {
            Some(Arm::Action(ai)) => {
                st.frames[fi].pc = ch.end_pc;
                let act = &self.actions[*ai];
                let n = act.params.len();
                let base = st.locals.len();
                self.push_frame(st, act.proc, actor, &[])?;
                // A chosen effect: no window opens until it is done.
                let top = st.frames.len() - 1;
                st.frames[top].inside = true;
                for (i, b) in act.params.iter().enumerate().take(n) {
                    st.locals[base + b.slot as usize] = a.args[i];
                }
            }
            Some(Arm::Inline { binds, body_pc, .. }) => {
                let base = st.frames[fi].base as usize;
                for (i, b) in binds.iter().enumerate() {
                    st.locals[base + b.slot as usize] = a.args[i];
                }
                st.frames[fi].pc = *body_pc;
            }
            None => return Err(RunError::illegal("no such option")),
        }
        st.wait = Wait::Running;
        Ok(())
    }

    pub(crate) fn apply_chance(&self, st: &mut State, v: Value) -> Result<(), RunError> {
        let fi = st.frames.len() - 1;
        let frame = st.frames[fi];
        let step = self.program.procs[frame.proc].get(frame.pc as usize);
        with_machine(st.fuel, |m| -> Result<(), RunError> {
            match step {
                Some(Step::Roll { target, span, .. }) => {
                    let mut locals = std::mem::take(&mut st.locals);
                    let base = frame.base as usize;
                    let r = self.assign(
                        m,
                        st,
                        &mut locals[base..],
                        frame.me,
                        target,
                        AssignOp::Set,
                        v,
                        *span,
                    );
                    st.locals = locals;
                    r?;
                    st.frames[fi].pc += 1;
                }
                Some(Step::Shuffle { zone, span }) => {
                    let mut locals = frame_locals(self, st, &frame);
                    let Value::Zone(z) = m
                        .eval(self, st, *zone, &mut locals, frame.me)
                        .blame(Some(*span))?
                    else {
                        return Err(RunError::illegal("no zone is being shuffled"));
                    };
                    let Value::Comp(c) = v else {
                        return Err(RunError::illegal("a shuffle outcome must be a component"));
                    };
                    let mut items = st.zones.items(z);
                    let len = items.len();
                    let pos = len - 1 - st.chance_step as usize;
                    let Some(i) = items[..=pos].iter().position(|&x| x == c) else {
                        return Err(RunError::illegal(
                            "that component is not among the shuffled ones",
                        ));
                    };
                    items.swap(i, pos);
                    st.zones.set_items(z, &items);
                    st.wrote(&self.program.families, self.program.families.inst(z));
                    st.chance_step += 1;
                    if st.chance_step as usize + 1 >= len {
                        st.chance_step = 0;
                        st.frames[fi].pc += 1;
                    }
                }
                _ => return Err(RunError::illegal("no chance event is waiting")),
            }
            Ok(())
        })
    }
}

/// Equal outcomes merged into one with their count, in the order each first appears: two
/// components are the same outcome when they lie in the same place with the same type and
/// fields. Sorting keeps this O(n log n): a roll over 100,000 values or a shuffle of 10,000
/// cards lists its outcomes at once (a linear search per value took minutes).
pub(super) fn merge_outcomes(g: &Game, st: &State, vals: &[Value]) -> Vec<(Value, u32)> {
    let key = |v: &Value| match *v {
        Value::Comp(c) => Err((g.comps[c].ty, st.zones.loc(c).0)),
        other => Ok(other),
    };
    let fields = |c: CompId| {
        let comp = &g.comps[c];
        let base = comp.field_base as usize;
        &st.fields[base..base + comp.fields.len()]
    };
    let order = |a: &usize, b: &usize| {
        let (va, vb) = (&vals[*a], &vals[*b]);
        key(va).cmp(&key(vb)).then_with(|| match (*va, *vb) {
            (Value::Comp(x), Value::Comp(y)) => fields(x).cmp(fields(y)),
            _ => std::cmp::Ordering::Equal,
        })
    };
    let mut idx: Vec<usize> = (0..vals.len()).collect();
    // Stable: within a run of equal outcomes the first to appear comes first.
    idx.sort_by(order);
    let mut groups: Vec<(usize, u32)> = Vec::new();
    for (k, &i) in idx.iter().enumerate() {
        match groups.last_mut() {
            Some(last) if k > 0 && order(&idx[k - 1], &i).is_eq() => last.1 += 1,
            _ => groups.push((i, 1)),
        }
    }
    groups.sort_unstable_by_key(|g| g.0);
    groups.into_iter().map(|(i, n)| (vals[i], n)).collect()
}

impl Game {
    /// The players who must still choose: one, or several when a `choose each` waits for
    /// simultaneous choices (each sees only its own options; commitments stay hidden).
    pub fn pending(&self, st: &State) -> Vec<u8> {
        if st.block.is_some() {
            return self.simul_pending(st);
        }
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
        if st.block.is_some() {
            self.simul_legal_for(st, seat, out);
            return Ok(());
        }
        out.clear();
        match st.wait {
            Wait::Decision { choice, .. } if self.pending(st).contains(&seat) => {
                with_machine(st.fuel, |m| {
                    self.options_into(m, st, choice, seat, &mut Vec::new(), out)
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
        self.apply_for_unchecked(st, seat, a)
    }

    /// Applies an action of one pending player known to be legal (one that
    /// [`Game::legal_for`] listed for this state).
    pub(crate) fn apply_for_unchecked(
        &self,
        st: &mut State,
        seat: u8,
        a: &Action,
    ) -> Result<(), RunError> {
        if let Wait::Decision { choice, .. } = st.wait {
            st.wait = Wait::Decision {
                choice,
                actor: seat,
            };
        }
        self.apply_unchecked(st, a)
    }
}
