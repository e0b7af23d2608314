//! Reactions the interpreter runs by itself: `when` triggers, tested at every pause.

use super::vm::Machine;
use super::*;
use crate::ir::vm::{Sure, SureValue};
use crate::ir::*;
use crate::source::Span;

impl Game {
    /// Tests the triggers in declaration order (a trigger whose body is running is skipped,
    /// and so is one whose test did not hold for the same player with nothing it reads
    /// written since);
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
        if m.triggers.len() < self.program.triggers.len() {
            m.triggers.resize(self.program.triggers.len(), (0, 0, 0));
        }
        for (i, t) in self.program.triggers.iter().enumerate() {
            if st.frames.iter().any(|f| f.proc == t.proc) {
                continue;
            }
            // A test that did not hold is not run again while nothing it reads changed.
            let (lineage, at, who) = m.triggers[i];
            if lineage == st.stamps.lineage && who == me && st.stamps.unchanged(t.reads, at) {
                continue;
            }
            let mut scratch = [Value::None; MAX_LOCALS];
            let v = m
                .eval(self, st, t.test, &mut scratch, me)
                .blame(Some(t.span))?;
            let elem = match (t.each, v) {
                (None, Value::Bool(true)) => None,
                (None, _) | (Some(_), Value::None) => {
                    m.triggers[i] = (st.stamps.lineage, st.stamps.clock, me);
                    continue;
                }
                (Some(slot), v) => Some((slot, v)),
            };
            super::run::push(self, &mut st.frames, locals, t.proc, me, &[], Some(t.span))?;
            let top = st.frames.len() - 1;
            st.frames[top].inside = true;
            if let Some((slot, v)) = elem {
                let base = st.frames[st.frames.len() - 1].base as usize;
                locals[base + slot as usize] = v;
            }
            return Ok(Some(t.span));
        }
        Ok(None)
    }
}

/// What a test that cannot fail ([`Sure`]) answers on `st` for seat `me`.
fn sure(st: &State, t: &Sure, me: u8) -> bool {
    let value = |v: SureValue| match v {
        SureValue::Slot(s) => st.var(s as usize),
        SureValue::Value(v) => v,
        SureValue::Const(c) => st.consts.get(c).copied().unwrap_or_default(),
        SureValue::Me => Value::Player(me),
        SureValue::PlayerCount => Value::Int(st.players as i64),
    };
    match t {
        Sure::Cmp(a, b, ne) => (value(*a) == value(*b)) != *ne,
        Sure::And(a, b) => sure(st, a, me) && sure(st, b, me),
        Sure::Or(a, b) => sure(st, a, me) || sure(st, b, me),
        Sure::Not(a) => !sure(st, a, me),
    }
}

/// What a window point did.
pub(super) enum WindowStep {
    /// No window (or it closed): go on past the point.
    Closed,
    /// A player is asked (or the game ended): the game waits.
    Waits,
    /// A trigger fired first: run its body, then come back to the point.
    Fired(Span),
}

impl Game {
    /// Check mode: the first arm of window `cid` with an option for seat `p`, listed with no
    /// arm passed over, must be `found` (found passing over the arms the remembered "no
    /// option" answers named); the work it costs is given back.
    #[cold]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn check_window(
        &self,
        m: &mut Machine,
        st: &State,
        cid: ChoiceId,
        p: u8,
        pass_arm: usize,
        only_before: bool,
        found: usize,
    ) {
        let arms = &self.choices[cid].arms;
        let fuel = m.fuel;
        let mut fresh = arms.len();
        let mut runs = Vec::new();
        let r = self.options(m, st, cid, p, &mut runs, &mut |a| {
            let any = a.arm as usize != pass_arm
                && (!only_before
                    || matches!(arms[a.arm as usize],
                        Arm::Action(ai) if self.actions[ai].window == Some(true)));
            if any {
                fresh = a.arm as usize;
            }
            !any
        });
        m.fuel = fuel;
        if r.is_ok() && fresh != found {
            let name = |i: usize| match arms.get(i) {
                Some(Arm::Action(a)) => self.actions[*a].name.clone(),
                Some(_) => format!("arm {i}"),
                None => "none".to_string(),
            };
            super::vm::stale(
                "a window's \"no option\" answers (Machine::windows)",
                format!(
                    "for p{}: the first action with an option was {}, listed again {}",
                    p + 1,
                    name(found),
                    name(fresh)
                ),
            );
        }
    }

    /// A window point of the flow. A window opens unless the game has no window actions, the
    /// setup runs, an effect a player chose (or a trigger's body) is running, or a window
    /// closed here with no decision since. The players who have a legal window action and
    /// have not passed since the last window action are asked, in seat order from the
    /// current player (or seat 0); when none is left, the window closes.
    pub(super) fn window_step(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut Vec<Value>,
        before: bool,
    ) -> Result<WindowStep, RunError> {
        let Some((anytime, before_turn)) = self.windows else {
            return Ok(WindowStep::Closed);
        };
        if st.phase != Phase::Flow || st.frames.iter().any(|f| f.inside) {
            return Ok(WindowStep::Closed);
        }
        if !st.window.open {
            let quiet = st.window.quiet.filter(|(d, _)| *d == st.events());
            if quiet.is_some_and(|(_, b)| b || !before) {
                return Ok(WindowStep::Closed);
            }
            st.window.open = true;
            st.window.passed = 0;
            st.window.only_before = quiet.is_some();
        }
        if self.ended(m, st, locals)? {
            return Ok(WindowStep::Waits);
        }
        if let Some(sp) = self.fire_trigger(m, st, locals)? {
            return Ok(WindowStep::Fired(sp));
        }
        let cid = if before { before_turn } else { anytime };
        let pass_arm = self.choices[cid].arms.len() - 1;
        let start = st.current.unwrap_or(0);
        st.locals = std::mem::take(locals);
        let mut asked = Ok(None);
        // The players' options are listed from one unchanged state: function results are
        // shared between them (the loop changes only the cached options and runs).
        let at = &*st as *const State as usize;
        let arms = &self.choices[cid].arms;
        // The window's actions (the first 64 arms; `None`: `pass`, or not remembered) and
        // where their entries start in the machine's table.
        let mut actions = [None; 64];
        for (slot, arm) in actions.iter_mut().zip(arms) {
            if let Arm::Action(a) = arm {
                *slot = Some(*a);
            }
        }
        let actions = &actions[..arms.len().min(64)];
        // Three entries per action and seat: the answer with all the guard reads, the answer
        // while the first parameter's zone is empty (`FirstZone`), the answer while the first
        // part tested, which cannot fail, is false (`Sure`).
        let memo = if before { 64 * 8 * 3 } else { 0 };
        if m.windows.is_empty() {
            m.windows.resize(2 * 64 * 8 * 3, (0, 0));
        }
        m.listing_at(self, at, |m| {
            for k in 0..st.players {
                let p = (start + k) % st.players;
                if st.window.passed & (1 << p) != 0 {
                    continue;
                }
                let mut any = false;
                let mut found = arms.len();
                let only_before = st.window.only_before;
                let mut runs = std::mem::take(&mut st.runs);
                runs.clear();
                // `pass` is never what makes a seat worth asking: it is not listed here; nor
                // is an action the seat had no option of while nothing its guard reads changed.
                let pass_bit = if pass_arm < 64 { 1u64 << pass_arm } else { 0 };
                let (skip, held) = self.window_skips(m, st, actions, memo, p, pass_bit);
                m.skip_arms = Some((cid, skip));
                let r = self.options(m, st, cid, p, &mut runs, &mut |a| {
                    any = a.arm as usize != pass_arm
                        && (!only_before
                            || matches!(arms[a.arm as usize],
                            Arm::Action(ai) if self.actions[ai].window == Some(true)));
                    if any {
                        found = a.arm as usize;
                    }
                    !any
                });
                m.skip_arms = None;
                st.runs = runs;
                // Check mode: the actions passed over above (answers remembered, or a first
                // part found false) listed too: the first with an option must be the same.
                if self.program.check_caches && r.is_ok() && skip & !pass_bit != 0 {
                    self.check_window(m, st, cid, p, pass_arm, only_before, found);
                }
                if let Err(e) = r {
                    asked = Err(e);
                    break;
                }
                // The actions listed before the one found (all, when none was) had no option.
                if !only_before {
                    self.window_remember(m, st, actions, memo, p, (found, skip, held));
                }
                if any {
                    let mut cache = std::mem::take(&mut st.cache);
                    let mut runs = std::mem::take(&mut st.runs);
                    cache.clear();
                    runs.clear();
                    let r = self.options_into(m, st, cid, p, &mut runs, &mut cache);
                    st.cache = cache;
                    st.runs = runs;
                    asked = r.map(|_| Some(p));
                    break;
                }
            }
        });
        *locals = std::mem::take(&mut st.locals);
        match asked? {
            Some(p) => {
                st.wait = Wait::Decision {
                    choice: cid,
                    actor: p,
                };
                Ok(WindowStep::Waits)
            }
            None => {
                st.window = WindowState {
                    quiet: Some((st.events(), before)),
                    changes: st.window.changes,
                    ..WindowState::default()
                };
                Ok(WindowStep::Closed)
            }
        }
    }

    /// The window's actions seat `p` need not be listed for (`skip`, one bit per arm, `pass`
    /// among them): no option while nothing their guard reads changed, while their first
    /// parameter's zone stays empty, or while their first part, which cannot fail, is false;
    /// and those whose first part was found true here (`held`).
    fn window_skips(
        &self,
        m: &Machine,
        st: &State,
        actions: &[Option<ActionId>],
        memo: usize,
        p: u8,
        pass_bit: u64,
    ) -> (u64, u64) {
        let first = &self.program.action_first;
        let sures = &self.program.action_sure;
        let mut skip = pass_bit;
        // The actions whose first part, which cannot fail, was found true here: no
        // answer to keep for it below, and no need to test it again there.
        let mut held = 0u64;
        for (ai, a) in actions.iter().enumerate() {
            let at = memo + (ai * 8 + p as usize) * 3;
            let (e, empty, off) = (m.windows[at], m.windows[at + 1], m.windows[at + 2]);
            if let Some(a) = a {
                let stamps = &st.stamps;
                if (e.0 == stamps.lineage
                    && stamps.unchanged(self.program.action_reads[a.0 as usize], e.1))
                    || (empty.0 == stamps.lineage
                        && first[a.0 as usize].is_some_and(|f| stamps.unchanged(f.reads, empty.1)))
                    || (off.0 == stamps.lineage
                        && sures[a.0 as usize].as_ref().is_some_and(|t| {
                            let holds = sure(st, t, p);
                            held |= (holds as u64) << ai;
                            !holds
                        }))
                {
                    skip |= 1 << ai;
                }
            }
        }
        (skip, held)
    }

    /// Remembers, for seat `p`, that the window's actions listed before the one `found` (all,
    /// when none was) had no option, with the answers that hold while their first zone stays
    /// empty or their first part stays false.
    fn window_remember(
        &self,
        m: &mut Machine,
        st: &State,
        actions: &[Option<ActionId>],
        memo: usize,
        p: u8,
        (found, skip, held): (usize, u64, u64),
    ) {
        let first = &self.program.action_first;
        let sures = &self.program.action_sure;
        let at = (st.stamps.lineage, st.stamps.clock);
        for ai in (0..found.min(actions.len())).filter(|ai| skip >> ai & 1 == 0) {
            if let Some(a) = actions[ai] {
                let e = memo + (ai * 8 + p as usize) * 3;
                m.windows[e] = at;
                // Its first part, which cannot fail, is false for this seat: the
                // answer holds while it stays false.
                if held >> ai & 1 == 0
                    && sures[a.0 as usize]
                        .as_ref()
                        .is_some_and(|t| !sure(st, t, p))
                {
                    m.windows[e + 2] = at;
                }
                // The first parameter's zone is empty for this seat: the answer
                // holds while that and the parts before it are unchanged.
                if let Some(f) = first[a.0 as usize] {
                    let inst = InstId(f.inst.0 + if f.me { p as u32 } else { 0 });
                    if (inst.0 as usize) < st.zones.instances() && st.zones.len(inst) == 0 {
                        m.windows[e + 1] = at;
                    }
                }
            }
        }
    }

    /// Applies a decision of a window, if one waits: `pass` (the seat is not asked again
    /// until someone acts) or a window action (its effect runs; everyone may answer it).
    /// The flow stays at its window point. `false`: no window waits.
    pub(super) fn apply_window(&self, st: &mut State, a: &Action) -> Result<bool, RunError> {
        let Wait::Decision { choice, actor } = st.wait else {
            return Ok(false);
        };
        if !self.is_window(choice) {
            return Ok(false);
        }
        match &self.choices[choice].arms[a.arm as usize] {
            Arm::Action(ai) => {
                st.window.passed = 0;
                st.window.only_before = false;
                let act = &self.actions[*ai];
                let base = st.locals.len();
                self.push_frame(st, act.proc, actor, &[])?;
                let top = st.frames.len() - 1;
                st.frames[top].inside = true;
                for (i, b) in act.params.iter().enumerate() {
                    st.locals[base + b.slot as usize] = a.args[i];
                }
            }
            Arm::Inline { .. } => st.window.passed |= 1 << actor,
        }
        st.wait = Wait::Running;
        Ok(true)
    }

    /// Whether this choice is one a window offers.
    pub(crate) fn is_window(&self, choice: ChoiceId) -> bool {
        self.windows
            .is_some_and(|(a, b)| choice == a || choice == b)
    }

    /// Whether a window waits for a player's answer (scenarios pass it implicitly).
    pub fn window_waits(&self, st: &State) -> bool {
        matches!(st.wait, Wait::Decision { choice, .. } if self.is_window(choice))
    }
}
