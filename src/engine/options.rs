//! The options of a decision: listing them, testing one, applying one; chance outcomes;
//! simultaneous choices.
use super::vm::int_cmp;
use super::vm::{comp_field, with_machine, Eval, Machine};
use super::*;
use crate::ir::vm::{
    At, CBind, COptions, FastCmp, Narrow, Op, Part, Program, Same, SameRead, Scan, ScanDim, Step,
    Twin, ZoneAt,
};
use crate::ir::*;
use crate::ops::BinOp;
use std::cell::Cell;

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

    /// The legal actions of the actor now, read in place when they were listed as the game
    /// paused at its choice (kept in the state), without the copy [`Game::legal`] makes.
    /// `None`: they are listed on demand ([`Game::legal`]: a `choose each`, a chance event,
    /// a finished game).
    pub fn listed<'s>(&self, st: &'s State) -> Option<&'s [Action]> {
        match st.wait {
            Wait::Decision { choice, .. } if self.choices[choice].each.is_none() => {
                if self.program.check_caches {
                    self.check_listed(st);
                }
                Some(&st.cache)
            }
            _ => None,
        }
    }

    /// Check mode, for tests: every remembered answer the engine serves is computed again
    /// without it and must be equal, else it panics naming the cache
    /// ([`crate::ir::vm::Program::check_caches`]).
    pub fn set_check_caches(&mut self, on: bool) {
        self.program.check_caches = on;
    }

    /// Check mode: the options listed in the state when the game paused, listed again on a
    /// copy (a new lineage: no remembered function result or window answer of the state
    /// applies), with no fingerprint of the setup (no guard answer or list remembered per
    /// setup applies) and a fresh machine (nothing remembered at all).
    #[cold]
    #[inline(never)]
    fn check_listed(&self, st: &State) {
        let Wait::Decision { actor, .. } = st.wait else {
            return;
        };
        // While a simultaneous block waits, the options are those of the seat's private run
        // (`simul.rs`), mirrored in the game's state: listed again there.
        let on = match self.block_run(st, Some(actor)) {
            Some(run) => {
                if run.cache != st.cache || run.runs != st.runs {
                    super::vm::stale(
                        "the options mirrored from a simultaneous block's run (State::cache)",
                        format!("for p{}", actor + 1),
                    );
                }
                run
            }
            None => st,
        };
        let Wait::Decision { choice, actor } = on.wait else {
            return;
        };
        let mut fresh = on.clone();
        fresh.frozen = 0;
        let (mut runs, mut out) = (Vec::new(), Vec::new());
        let mut m = Machine::default();
        m.reset(st.fuel);
        m.native_off = true;
        if self
            .options_into(&mut m, &fresh, choice, actor, &mut runs, &mut out)
            .is_err()
        {
            out.clear();
            runs.clear();
        }
        if out != on.cache || runs != on.runs {
            let text = |a: &Action| self.action_text(on, a);
            let gone: Vec<String> = on
                .cache
                .iter()
                .filter(|a| !out.contains(a))
                .map(text)
                .collect();
            let new: Vec<String> = out
                .iter()
                .filter(|a| !on.cache.contains(a))
                .map(text)
                .collect();
            super::vm::stale(
                "the options listed in the state (State::cache)",
                format!(
                    "for p{}: {} listed, {} listed again; listed only before {gone:?}, only \
                     again {new:?} (else in another order, or their sequence runs differ)",
                    actor + 1,
                    on.cache.len(),
                    out.len()
                ),
            );
        }
    }

    /// Lists the legal actions of the actor into `out` (cleared first), in a stable order:
    /// a player's options, or the outcomes of a waiting chance event; nothing once the game
    /// is over.
    pub fn legal(&self, st: &State, out: &mut Vec<Action>) -> Result<(), RunError> {
        out.clear();
        if let Some(listed) = self.listed(st) {
            out.extend_from_slice(listed);
            return Ok(());
        }
        match st.wait {
            Wait::Decision { choice, actor } => with_machine(st.fuel, |m| {
                self.options_into(m, st, choice, actor, &mut Vec::new(), out)
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

    /// The options of the decision `st` waits at listed again the engine's way, not read from
    /// the state's list nor written by the compiled enumerators (for measures:
    /// `examples/lir_speed.rs` times it beside them; the machine's remembered answers still
    /// apply).
    pub fn list_again(&self, st: &State, out: &mut Vec<Action>) -> Result<(), RunError> {
        out.clear();
        match st.wait {
            Wait::Decision { choice, actor } => with_machine(st.fuel, |m| {
                m.native_off = true;
                let r = self.options_into(m, st, choice, actor, &mut Vec::new(), out);
                m.native_off = false;
                r
            }),
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
        let mut locals = frame_locals(self, st, frame);
        let mut vals: Vec<Value> = Vec::new();
        let step = self.program.procs[frame.proc].get(frame.pc as usize);
        with_machine(st.fuel, |m| -> Result<(), RunError> {
            match step {
                Some(Step::Roll { domain, span, .. }) => {
                    m.start(self, st, *domain, &mut locals, frame.me)
                        .blame(Some(*span))?;
                    while let Some(v) = m.next(self, st, Some(*span)).blame(Some(*span))? {
                        vals.push(v);
                    }
                }
                Some(Step::Shuffle { zone, span }) => {
                    let Value::Zone(z) = m
                        .eval(self, st, *zone, &mut locals, frame.me)
                        .blame(Some(*span))?
                    else {
                        return Ok(());
                    };
                    let items = st.zones.items(z);
                    let open = items.len() - st.chance_step as usize;
                    vals.extend(items[..open].iter().map(|&c| Value::Comp(c)));
                }
                _ => {}
            }
            Ok(())
        })?;
        let outcomes = merge_outcomes(self, st, &vals);
        let total = outcomes.iter().map(|v| v.1).sum();
        for (v, w) in outcomes {
            f(v, w);
        }
        Ok(total)
    }

    /// Lists the options of the waiting choice again into the state's cache, after a change
    /// they may depend on (as in [`Game::determinize`]); a rule error leaves it empty.
    pub(crate) fn relist_options(&self, st: &mut State) {
        let Wait::Decision { choice, actor } = st.wait else {
            return;
        };
        if self.choices[choice].each.is_some() {
            return;
        }
        let mut cache = std::mem::take(&mut st.cache);
        let mut runs = std::mem::take(&mut st.runs);
        cache.clear();
        runs.clear();
        let listed = with_machine(st.fuel, |m| {
            self.options_into(m, st, choice, actor, &mut runs, &mut cache)
        });
        if listed.is_err() {
            cache.clear();
            runs.clear();
        }
        st.cache = cache;
        st.runs = runs;
    }

    /// Calls `f` with every legal option of a choice for `actor`, until it returns false. The
    /// inner choices of a sequence action's options are recorded in `runs`.
    pub(crate) fn options(
        &self,
        m: &mut Machine,
        st: &State,
        choice: ChoiceId,
        actor: u8,
        runs: &mut Vec<(ChoiceId, Action)>,
        f: &mut dyn FnMut(Action) -> bool,
    ) -> Result<(), RunError> {
        self.options_to(m, st, choice, actor, runs, Sink::Each(f))
    }

    /// Appends every legal option of a choice for `actor` to `out`, in the order of
    /// [`Game::options`]: a plain action's options are written straight into the list, not
    /// passed through a callback.
    pub(crate) fn options_into(
        &self,
        m: &mut Machine,
        st: &State,
        choice: ChoiceId,
        actor: u8,
        runs: &mut Vec<(ChoiceId, Action)>,
        out: &mut Vec<Action>,
    ) -> Result<(), RunError> {
        self.options_to(m, st, choice, actor, runs, Sink::List(out))
    }

    /// [`Game::options`] and [`Game::options_into`]: function results are remembered while
    /// `st` is listed (it cannot change meanwhile).
    fn options_to(
        &self,
        m: &mut Machine,
        st: &State,
        choice: ChoiceId,
        actor: u8,
        runs: &mut Vec<(ChoiceId, Action)>,
        sink: Sink,
    ) -> Result<(), RunError> {
        // Components are told apart as the chooser sees them (4.1), whoever `me` is.
        let outer = std::mem::replace(&mut m.chooser, actor);
        let r = m.listing(self, st, |m| {
            self.options_listed(m, st, choice, actor, runs, sink)
        });
        m.chooser = outer;
        r
    }

    fn options_listed(
        &self,
        m: &mut Machine,
        st: &State,
        choice: ChoiceId,
        actor: u8,
        runs: &mut Vec<(ChoiceId, Action)>,
        mut sink: Sink,
    ) -> Result<(), RunError> {
        let ch = &self.choices[choice];
        let cch = &self.program.choices[choice];
        let Some(frame) = st.frames.last() else {
            return Ok(());
        };
        let skip = match m.skip_arms {
            Some((c, bits)) if c == choice => bits,
            _ => 0,
        };
        let skipped = |ai: usize| ai < 64 && skip >> ai & 1 != 0;
        // The frame's locals are copied only for inline options (an action binds its own).
        let inline = cch.each.is_some()
            || cch
                .arms
                .iter()
                .enumerate()
                .any(|(i, a)| a.is_some() && !skipped(i));
        let mut locals = if inline {
            frame_locals(self, st, frame)
        } else {
            [Value::None; MAX_LOCALS]
        };
        let inline_me = match cch.each {
            Some((_, slot)) => {
                locals[slot as usize] = Value::Player(actor);
                actor
            }
            None => frame.me,
        };
        for (ai, arm) in ch.arms.iter().enumerate() {
            if skipped(ai) {
                continue;
            }
            let mut go_on = true;
            match arm {
                Arm::Action(a) if self.actions[*a].sequence => {
                    let opts = &self.program.actions[*a];
                    let mut alocals = [Value::None; MAX_LOCALS];
                    let mut failed = None;
                    let mut push;
                    let f: &mut dyn FnMut(Action) -> bool = match &mut sink {
                        Sink::Each(f) => &mut **f,
                        Sink::List(out) => {
                            push = |a| {
                                out.push(a);
                                true
                            };
                            &mut push
                        }
                    };
                    let mut take = each(|m, l| {
                        let first = action_of(ai, l, &opts.binds);
                        match self.explore(m, st, choice, actor, first, runs, f) {
                            Ok(go) => go_on = go,
                            Err(e) => {
                                failed = Some(e);
                                go_on = false;
                            }
                        }
                        Ok(go_on)
                    });
                    self.bind(m, st, opts, 0, &mut alocals, actor, &mut take)
                        .blame(self.actions[*a].guard_span.or(Some(ch.span)))?;
                    if let Some(e) = failed {
                        return Err(e);
                    }
                }
                Arm::Action(a) if self.list_native(m, st, *a, ai, actor, &mut sink, &mut go_on) => {
                }
                Arm::Action(a) => {
                    let opts = &self.program.actions[*a];
                    // Without inline options `locals` holds nothing of the frame and serves
                    // the actions (each writes a local before it reads it): one array to
                    // clear per listing, not two.
                    let mut fresh;
                    let alocals: &mut [Value] = if inline {
                        fresh = [Value::None; MAX_LOCALS];
                        &mut fresh
                    } else {
                        &mut locals
                    };
                    self.bind_into(m, st, opts, alocals, actor, ai, &mut sink, &mut go_on)
                        .blame(self.actions[*a].guard_span.or(Some(ch.span)))?;
                }
                Arm::Inline { .. } => {
                    let opts = cch.arms[ai].as_ref().expect("an inline option is compiled");
                    self.bind_into(
                        m,
                        st,
                        opts,
                        &mut locals,
                        inline_me,
                        ai,
                        &mut sink,
                        &mut go_on,
                    )
                    .blame(Some(ch.span))?;
                }
            }
            if !go_on {
                break;
            }
        }
        Ok(())
    }

    /// Lists the options of arm `arm` (`opts`) into `sink`: pushed onto its list, or handed
    /// to its function, which sets `go_on` (false: stop listing).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn bind_into(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        locals: &mut [Value],
        me: u8,
        arm: usize,
        sink: &mut Sink,
        go_on: &mut bool,
    ) -> Eval<bool> {
        match sink {
            Sink::List(out) => {
                let mut push = Push {
                    out,
                    arm: arm as u16,
                    binds: &opts.binds,
                };
                self.bind(m, st, opts, 0, locals, me, &mut push)
            }
            Sink::Each(f) => {
                let mut take = each(|_, l| {
                    *go_on = f(action_of(arm, l, &opts.binds));
                    Ok(*go_on)
                });
                self.bind(m, st, opts, 0, locals, me, &mut take)
            }
        }
    }

    /// Enumerates every binding of `opts` from binding `k` on that passes its guard, testing
    /// each part of the guard as soon as the bindings it reads are bound.
    #[allow(clippy::too_many_arguments)]
    fn bind<F: Take>(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        locals: &mut [Value],
        me: u8,
        f: &mut F,
    ) -> Eval<bool> {
        self.bind_k(m, st, opts, k, None, locals, me, f)
    }

    /// [`Game::bind`]; `filtered`: binding `k - 1` came from a remembered list, so the parts
    /// it absorbed are known to hold, and these are the list's answers to the conditions of
    /// the parts it splits.
    #[allow(clippy::too_many_arguments)]
    fn bind_k<F: Take>(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        filtered: Option<u32>,
        locals: &mut [Value],
        me: u8,
        f: &mut F,
    ) -> Eval<bool> {
        if !self.parts_hold(m, st, opts, k, filtered, locals, me)? {
            return Ok(true);
        }
        self.bind_at(m, st, opts, k, locals, me, f)
    }

    /// [`Game::bind_k`] once the parts tested before binding `k` hold: binding `k` and on.
    #[allow(clippy::too_many_arguments)]
    fn bind_at<F: Take>(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        locals: &mut [Value],
        me: u8,
        f: &mut F,
    ) -> Eval<bool> {
        let Some(b) = opts.binds.get(k) else {
            return f.take(m, locals);
        };
        if let (true, Some(scan)) = (b.scan, &opts.scan) {
            if let Some(go) = self.bind_scan(m, st, opts, scan, locals, me, f)? {
                return Ok(go);
            }
        }
        // The last binding calls `f` from its loop instead of through one more level.
        let leaf = k + 1 == opts.binds.len();
        if let Some(n) = b.narrow {
            return self.bind_narrowed(m, st, opts, k, n, locals, me, f);
        }
        if let Some(fid) = b.filter {
            if let Some((start, len)) = self.filter_list(m, st, opts, k, fid, locals, me)? {
                if leaf {
                    let leaf = (b.slot as usize, self.leaf_parts(opts, k));
                    return self.bind_leaf_listed(m, st, leaf, fid, start, len, locals, me, f);
                }
                for i in start..start + len {
                    m.spend(None)?;
                    let e = m.filters[fid as usize].elems[i];
                    locals[b.slot as usize] = e.value;
                    let bits = Some(e.bits);
                    if !self.bind_k(m, st, opts, k + 1, bits, locals, me, f)? {
                        return Ok(false);
                    }
                }
                return Ok(true);
            }
        }
        self.bind_walk(m, st, opts, k, locals, me, f)
    }

    /// [`Game::bind_at`] for the bindings of `scan`, from its first on: their values are
    /// walked in order, nested, as the general way walks them, and the units of work it
    /// spends on them (one a value) are counted, but a value whose instance of the zone is
    /// empty (the first part tested, `not empty(zone[..])`, false: it reads nothing that can
    /// fail and spends no work) is passed over in place. Before the other parts are tested
    /// on a value, the units counted so far are spent, so that the work left when they run
    /// and the point where the budget runs out are as in the general way. `None`: a binding's
    /// remembered list is not listed yet (the general way lists it, spending its work).
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn bind_scan<F: Take>(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        scan: &Scan,
        locals: &mut [Value],
        me: u8,
        f: &mut F,
    ) -> Eval<Option<bool>> {
        let from = scan.from as usize;
        let binds = opts.binds.get(from..).unwrap_or(&[]);
        for b in binds {
            if let Some(fid) = b.filter {
                if st.frozen == 0 || m.listed(self, st, fid, 0).is_none() {
                    return Ok(None);
                }
            }
        }
        // The last instance walked lies within the state's (as it does for a zone whose
        // dimensions are these collections': else the general way tells what is wrong).
        let mut last = scan.base as u64;
        for &(dim, stride) in &scan.dims {
            let len = match dim {
                ScanDim::Enum(e) => self.enums[e].values.len() as u64,
                ScanDim::Players => st.players as u64,
                ScanDim::Board(bd) => self.boards[bd].len() as u64,
            };
            last += len.saturating_sub(1) * stride as u64;
        }
        if last >= st.zones.instances() as u64 {
            return Ok(None);
        }
        let n = opts.binds.len();
        let (Some(&first), Some(&end)) = (opts.starts.get(n), opts.starts.get(n + 1)) else {
            return Ok(None);
        };
        let mut walk = ScanWalk {
            rest: opts
                .parts
                .get(first as usize + 1..end as usize)
                .unwrap_or(&[]),
            counted: 0,
            spent: 0,
        };
        let go = self.scan_dim(m, st, scan, binds, 0, scan.base, &mut walk, locals, me, f)?;
        if go {
            walk.spend(m, walk.counted)?;
        }
        Ok(Some(go))
    }

    /// Dimension `d` of [`Game::bind_scan`]: the values of `binds[d]` from instance `inst`
    /// of the zone on.
    #[allow(clippy::too_many_arguments)]
    fn scan_dim<F: Take>(
        &self,
        m: &mut Machine,
        st: &State,
        scan: &Scan,
        binds: &[CBind],
        d: usize,
        inst: u32,
        walk: &mut ScanWalk,
        locals: &mut [Value],
        me: u8,
        f: &mut F,
    ) -> Eval<bool> {
        let (Some(&(dim, stride)), Some(b)) = (scan.dims.get(d), binds.get(d)) else {
            return Ok(true);
        };
        let (len, closing) = match dim {
            ScanDim::Enum(e) => (self.enums[e].values.len() as u32, false),
            ScanDim::Players => (st.players as u32, false),
            ScanDim::Board(bd) => (self.boards[bd].len(), self.boards[bd].closing(&st.consts)),
        };
        let last = d + 1 == scan.dims.len();
        for pos in 0..len {
            if let ScanDim::Board(bd) = dim {
                if self.boards[bd].is_closed(pos, closing) {
                    continue;
                }
            }
            walk.counted += 1;
            let at = inst + pos * stride;
            if last && st.zones.len(InstId(at)) == 0 {
                continue;
            }
            locals[b.slot as usize] = match dim {
                ScanDim::Enum(e) => Value::Enum(e, pos as u16),
                ScanDim::Players => Value::Player(pos as u8),
                ScanDim::Board(bd) => Value::Space(bd, pos),
            };
            if !last {
                if !self.scan_dim(m, st, scan, binds, d + 1, at, walk, locals, me, f)? {
                    return Ok(false);
                }
                continue;
            }
            walk.spend(m, walk.counted)?;
            let mut pass = true;
            for part in walk.rest {
                if !self.part_holds(m, st, part, None, locals, me)? {
                    pass = false;
                    break;
                }
            }
            if pass && !f.take(m, locals)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// [`Game::bind_at`] when binding `k` is neither narrowed nor read from a remembered
    /// list: its collection walked, each value tested.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn bind_walk<F: Take>(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        locals: &mut [Value],
        me: u8,
        f: &mut F,
    ) -> Eval<bool> {
        let b = &opts.binds[k];
        if let (true, Some(same)) = (b.same, &opts.same) {
            return self.bind_walk_same(m, st, opts, k, same, locals, me, f);
        }
        let leaf = k + 1 == opts.binds.len();
        m.start(self, st, b.coll, locals, me)?;
        while let Some(v) = m.next_param(self, st, None)? {
            if b.dedup && self.offered_before(st, v, m.chooser) {
                continue;
            }
            locals[b.slot as usize] = v;
            let go = if leaf {
                !self.parts_hold(m, st, opts, k + 1, None, locals, me)? || f.take(m, locals)?
            } else {
                self.bind_next(m, st, opts, k + 1, locals, me, f)?
            };
            if !go {
                m.stop();
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// [`Game::bind_walk`] for the binding of `same`: when the options are pushed onto a
    /// list, a value that reads the same as an earlier one there ([`Same::reads`]) is not
    /// walked further: the options the earlier one listed are copied with this value in its
    /// place, and the work they cost is spent again (the general way when the budget left
    /// is smaller, or when a remembered list was filled meanwhile, which costs work once).
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn bind_walk_same<F: Take>(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        same: &Same,
        locals: &mut [Value],
        me: u8,
        f: &mut F,
    ) -> Eval<bool> {
        let b = &opts.binds[k];
        let leaf = k + 1 == opts.binds.len();
        let mut seen = [SameSeen::default(); 4];
        let mut n = 0;
        m.start(self, st, b.coll, locals, me)?;
        while let Some(v) = m.next(self, st, None)? {
            if b.dedup && self.offered_before(st, v, m.chooser) {
                continue;
            }
            locals[b.slot as usize] = v;
            let key = match f.push() {
                Some(_) => self.same_key(m, st, same, locals, me, v),
                None => None,
            };
            let found = key.and_then(|key| seen[..n].iter().find(|r| r.key == key));
            if let (Some(r), Some((out, ..))) = (found, f.push()) {
                if m.fuel >= r.work && r.end <= out.len() {
                    m.fuel -= r.work;
                    let from = out.len();
                    out.extend_from_within(r.start..r.end);
                    for o in &mut out[from..] {
                        if let Some(a) = o.args.get_mut(k) {
                            *a = v;
                        }
                    }
                    continue;
                }
            }
            let start = f.push().map(|(out, ..)| out.len());
            let (fuel, fills) = (m.fuel, FILLS.with(Cell::get));
            let go = if leaf {
                !self.parts_hold(m, st, opts, k + 1, None, locals, me)? || f.take(m, locals)?
            } else {
                self.bind_next(m, st, opts, k + 1, locals, me, f)?
            };
            if !go {
                m.stop();
                return Ok(false);
            }
            if let (Some(key), Some(start)) = (key, start) {
                if n < seen.len()
                    && FILLS.with(Cell::get) == fills
                    && !seen[..n].iter().any(|r| r.key == key)
                {
                    let end = f.push().map_or(start, |(out, ..)| out.len());
                    seen[n] = SameSeen {
                        key,
                        start,
                        end,
                        work: fuel - m.fuel,
                    };
                    n += 1;
                }
            }
        }
        Ok(true)
    }

    /// What the rest of the listing reads of value `v` of a [`Same`] binding (bound in
    /// `locals`); `None` when a read fails (the general way meets the failure in order).
    fn same_key(
        &self,
        m: &mut Machine,
        st: &State,
        same: &Same,
        locals: &mut [Value],
        me: u8,
        v: Value,
    ) -> Option<[Value; Same::MAX_READS]> {
        let mut key = [Value::None; Same::MAX_READS];
        for (d, r) in key.iter_mut().zip(&same.reads) {
            *d = match *r {
                SameRead::Field(f) => {
                    let Value::Comp(c) = v else { return None };
                    *comp_field(self, st, c, f)?
                }
                SameRead::Cmp { i, pc } => Value::Bool(m.cmp(self, st, i, pc, locals, me).ok()?),
            };
        }
        Some(key)
    }

    /// [`Game::bind`] from binding `k` on (no earlier binding came from a remembered list).
    /// When `k` is the last binding and is read from a remembered list, its list is walked
    /// here, without one more call level per element of the binding before it.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn bind_next<F: Take>(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        locals: &mut [Value],
        me: u8,
        f: &mut F,
    ) -> Eval<bool> {
        match opts.binds.get(k) {
            Some(CBind {
                narrow: None,
                filter: Some(fid),
                scan: false,
                ..
            }) if k + 1 == opts.binds.len() => {
                if !self.parts_hold(m, st, opts, k, None, locals, me)? {
                    return Ok(true);
                }
                match self.filter_list(m, st, opts, k, *fid, locals, me)? {
                    Some((start, len)) => {
                        let leaf = (opts.binds[k].slot as usize, self.leaf_parts(opts, k));
                        self.bind_leaf_listed(m, st, leaf, *fid, start, len, locals, me, f)
                    }
                    // not listed (or its filling failed): walked plainly, not tried again
                    None => self.bind_walk(m, st, opts, k, locals, me, f),
                }
            }
            // All bound: the last parts, then the option.
            None => Ok(!self.parts_hold(m, st, opts, k, None, locals, me)? || f.take(m, locals)?),
            _ => self.bind_k(m, st, opts, k, None, locals, me, f),
        }
    }

    /// The parts tested once the last binding `k` is bound, when it is read from a remembered
    /// list: the parts the list absorbed lead their group and are passed over.
    fn leaf_parts<'o>(&self, opts: &'o COptions, k: usize) -> &'o [Part] {
        let parts = match (opts.starts.get(k + 1), opts.starts.get(k + 2)) {
            (Some(&a), Some(&b)) => opts.parts.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        };
        let lead = parts.iter().take_while(|p| p.absorbed).count();
        &parts[lead..]
    }

    /// The last binding, at `slot`, read from its remembered list (`start`, `len`) in table
    /// `fid`: each element that passes `parts` (its [`Game::leaf_parts`]) goes to `f`. Of the
    /// parts the list splits only the branch the element's answer chooses is tested.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn bind_leaf_listed<F: Take>(
        &self,
        m: &mut Machine,
        st: &State,
        (slot, parts): (usize, &[Part]),
        fid: u32,
        start: usize,
        len: usize,
        locals: &mut [Value],
        me: u8,
        f: &mut F,
    ) -> Eval<bool> {
        let end = start + len;
        let mut i = start;
        // Pushed at once from the first element on when that one's parts are resolved.
        let resolved = match m.filters[fid as usize].elems.get(start) {
            Some(e) => e.skip as usize == parts.len(),
            None => false,
        };
        if let (true, Some((out, arm, binds))) = (resolved, f.push()) {
            if let Some(mut p) = Pushing::new(arm, binds, slot, locals) {
                i = Self::push_listed::<false>(
                    m,
                    st,
                    parts.len(),
                    fid,
                    start..end,
                    me,
                    out,
                    &mut p,
                );
            }
        }
        // The parts after the first, for an element whose first part is resolved.
        let rest = parts.get(1..).unwrap_or(&[]);
        for i in i..end {
            m.spend(None)?;
            let e = m.filters[fid as usize].elems[i];
            // The first part, resolved when the list was filled, is one read of the state.
            let skip = match e.holds(st, me) {
                Some(false) => continue,
                Some(true) => e.skip != 0,
                None => false,
            };
            locals[slot] = e.value;
            let mut pass = true;
            for part in if skip { rest } else { parts } {
                if !self.part_holds(m, st, part, Some(e.bits), locals, me)? {
                    pass = false;
                    break;
                }
            }
            if pass && !f.take(m, locals)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// [`Game::bind_leaf_listed`] when each binding that passes is pushed as an option onto
    /// `out` (`p`: the option, its other parameters filled): the elements of `range` whose
    /// parts (`n` of them) are all answered by the part they resolved are tested and pushed
    /// here, without the general machinery, until one is not (or the work budget is spent:
    /// the general loop reports it). Returns where that loop takes over. `CALLER_TEMPLATE`:
    /// `p` lives in a caller's loop, and each option is copied from it into the list rather
    /// than pushed (which copies it to the stack first).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn push_listed<const CALLER_TEMPLATE: bool>(
        m: &mut Machine,
        st: &State,
        n: usize,
        fid: u32,
        range: std::ops::Range<usize>,
        me: u8,
        out: &mut Vec<Action>,
        p: &mut Pushing,
    ) -> usize {
        let mut i = range.start;
        let Machine { filters, fuel, .. } = m;
        let Some(elems) = filters.get(fid as usize).and_then(|t| t.elems.get(range)) else {
            return i;
        };
        for e in elems {
            if *fuel == 0 {
                break;
            }
            let pass = match e.holds(st, me) {
                Some(pass) if e.skip as usize == n => pass,
                _ => break,
            };
            *fuel -= 1;
            i += 1;
            if pass {
                if let Some(d) = p.option.args.get_mut(p.leaf) {
                    *d = e.value;
                }
                if CALLER_TEMPLATE {
                    // The caller's template copied straight into the list.
                    out.extend_from_slice(std::slice::from_ref(&p.option));
                } else {
                    out.push(p.option);
                }
            }
        }
        i
    }

    /// Whether the guard parts tested once binding `k - 1` is bound hold (`filtered`: the
    /// parts absorbed by its remembered list are known to hold and are skipped, and of the
    /// `if` parts it splits only the branch its answers choose is tested).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn parts_hold(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        filtered: Option<u32>,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<bool> {
        let (Some(&start), Some(&end)) = (opts.starts.get(k), opts.starts.get(k + 1)) else {
            return Ok(true);
        };
        for part in opts.parts.get(start as usize..end as usize).unwrap_or(&[]) {
            if !self.part_holds(m, st, part, filtered, locals, me)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether one guard part holds; `filtered`: the answers of the remembered list the
    /// value was read from (a part it absorbed holds, and of an `if` part it splits only
    /// the branch its answer chooses is tested).
    #[inline(always)]
    fn part_holds(
        &self,
        m: &mut Machine,
        st: &State,
        part: &Part,
        filtered: Option<u32>,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<bool> {
        match (filtered, part.split) {
            (Some(_), _) if part.absorbed => Ok(true),
            (Some(bits), Some(sp)) => {
                let code = if bits >> sp.bit & 1 != 0 {
                    sp.then
                } else {
                    sp.other
                };
                m.test(self, st, code, locals, me)
            }
            _ => m.part(self, st, part, locals, me),
        }
    }

    /// The remembered list of binding `k` for the key the earlier bindings and `me` make
    /// (listed now if it is not yet): the elements of its collection that pass the parts it
    /// absorbed, in the collection's order, as (start, length) in the machine's table.
    /// `None`: no list applies (setup is running, a key is out of its domain, or listing
    /// failed: the plain walk then meets the same elements and errors in order).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn filter_list(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        fid: u32,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<Option<(usize, usize)>> {
        if st.frozen == 0 {
            return Ok(None);
        }
        let def = &self.program.filters[fid as usize];
        let mut key: u32 = if def.key.me { me as u32 } else { 0 };
        for &(slot, size) in &def.key.keys {
            match locals
                .get(slot as usize)
                .copied()
                .and_then(Program::position)
            {
                Some(p) if p < size => key = key * size + p,
                _ => return Ok(None),
            }
        }
        if let Some(list) = m.listed(self, st, fid, key) {
            return Ok(Some(list));
        }
        self.fill_list(m, st, opts, k, fid, key, locals, me)
    }

    /// [`Game::filter_list`] for a list not yet listed: lists it.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn fill_list(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        fid: u32,
        key: u32,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<Option<(usize, usize)>> {
        let def = &self.program.filters[fid as usize];
        m.own(self, st);
        let fi = fid as usize;
        if m.filters.len() <= fi {
            m.filters.resize_with(fi + 1, Default::default);
        }
        let table = &mut m.filters[fi];
        if table.lists.is_empty() {
            table.lists.resize(def.key.entries as usize, (0, u32::MAX));
        }
        match table.lists.get(key as usize) {
            Some(&(start, len)) if len != u32::MAX => {
                return Ok(Some((start as usize, len as usize)))
            }
            Some(_) => {}
            None => return Ok(None),
        }
        FILLS.with(|n| n.set(n.get() + 1));
        let b = &opts.binds[k];
        // The last binding's elements resolve the first part tested on them.
        let leaf = if k + 1 == opts.binds.len() {
            self.leaf_parts(opts, k)
        } else {
            &[]
        };
        let start = table.elems.len();
        let (iters, stack) = (m.iters.len(), m.stack.len());
        let saved = locals[b.slot as usize];
        let mut walk = || -> Eval<()> {
            m.start(self, st, b.coll, locals, me)?;
            while let Some(v) = m.next(self, st, None)? {
                locals[b.slot as usize] = v;
                let mut pass = true;
                for code in &def.parts {
                    if !m.eval_bool(self, st, *code, locals, me)? {
                        pass = false;
                        break;
                    }
                }
                if pass {
                    let mut bits = 0u32;
                    for (j, code) in def.splits.iter().enumerate() {
                        if m.eval_bool(self, st, *code, locals, me)? {
                            bits |= 1 << j;
                        }
                    }
                    let e = self.listed_elem(st, leaf, b.slot, v, bits);
                    m.filters[fi].elems.push(e);
                }
            }
            Ok(())
        };
        let walked = walk();
        locals[b.slot as usize] = saved;
        let table = &mut m.filters[fi];
        if walked.is_err() {
            table.elems.truncate(start);
            while m.iters.len() > iters {
                m.stop();
            }
            m.stack.truncate(stack);
            return Ok(None);
        }
        let len = table.elems.len() - start;
        table.lists[key as usize] = (start as u32, len as u32);
        Ok(Some((start, len)))
    }

    /// The element `v` (with the answers `bits` to its list's split conditions) of a
    /// remembered list of the binding at `slot`, tested on `parts` once listed (its
    /// [`Game::leaf_parts`], none unless it is the last binding): the first of them resolved
    /// when it is a fast comparison of `var[slot]` against `me`, `none` or a number, or
    /// `count(zone[slot])` against a number (for a split part, of the branch `bits` choose),
    /// which reads the same slot for every state of the match.
    fn listed_elem(&self, st: &State, parts: &[Part], slot: u16, v: Value, bits: u32) -> Listed {
        let none = Listed {
            value: v,
            bits,
            at: 0,
            n: 0,
            test: Listed::PASS,
            op: BinOp::Eq,
            skip: 0,
        };
        let Some(part) = parts.first().filter(|p| !p.absorbed) else {
            return none;
        };
        let code = match part.split {
            Some(sp) if bits >> sp.bit & 1 != 0 => sp.then,
            Some(sp) => sp.other,
            None if part.memo.is_none() => part.code,
            None => return none,
        };
        let p = &self.program;
        let cmp = match p.ops.get(code.start as usize) {
            Some(Op::Cmp(i)) if code.end == code.start + 1 => p.fast.get(*i as usize),
            _ => None,
        };
        let (at, test, op, n) = match *cmp.unwrap_or(&FastCmp::Other) {
            FastCmp::AtMe { at, ne } => (at, Listed::IS_ME + ne as u8, BinOp::Eq, 0),
            FastCmp::AtNone { at, ne } => (at, Listed::IS_NONE + ne as u8, BinOp::Eq, 0),
            FastCmp::AtInt { at, n, op } => (at, Listed::INT, op, n),
            FastCmp::LenInt {
                z: ZoneAt::Local { base, size, slot },
                n,
                op,
            } => (At { base, size, slot }, Listed::LEN, op, n),
            _ => return none,
        };
        let Some(pos) = Program::position(v).filter(|&p| at.slot == slot && p < at.size as u32)
        else {
            return none;
        };
        let at = at.base + pos;
        let within = match test {
            Listed::LEN => (at as usize) < self.instances.len(),
            _ => (at as usize) < st.vars.len(),
        };
        if !within {
            return none;
        }
        Listed {
            at,
            n,
            test,
            op,
            skip: 1,
            ..none
        }
    }

    /// A binding narrowed by a value index: only the positions where the variable holds the
    /// value, in their order.
    #[allow(clippy::too_many_arguments)]
    fn bind_narrowed<F: Take>(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        n: Narrow,
        locals: &mut [Value],
        me: u8,
        f: &mut F,
    ) -> Eval<bool> {
        let b = &opts.binds[k];
        let want = match self.read_simple(n.value, locals, me) {
            Some(v) => v,
            None => m.eval(self, st, n.value, locals, me)?,
        };
        let ix = self.program.indexes[self.program.var_index[n.var].expect("indexed") as usize];
        let Some(code) = Program::value_code(want).filter(|c| *c < ix.codes) else {
            return Ok(true);
        };
        let dim = self.vars[n.var].dims[0];
        let size = self.vars[n.var].sizes[0];
        let limit = match dim {
            Dim::Player => st.players as u32,
            _ => size,
        };
        let first = (ix.base + code * ix.words) as usize;
        let closing = match dim {
            Dim::Board(bd) => self.boards[bd].closing(&st.consts),
            _ => false,
        };
        let next = self.next_listed(st, opts, k, locals, me);
        if let (Some(nx), Dim::Board(bd), Some((out, arm, binds))) = (&next, dim, f.push()) {
            let this = binds.iter().position(|c| c.slot == b.slot);
            let p = Pushing::new(arm, binds, nx.leaf.0, locals);
            if let (true, Some(this), Some(p)) = (nx.pre.is_empty(), this, p) {
                let mut push = Push { out, arm, binds };
                let walk = (first, ix.words as usize, limit, bd, closing);
                return self.narrowed_push(
                    m,
                    st,
                    opts,
                    k,
                    nx,
                    walk,
                    (this, p),
                    locals,
                    me,
                    &mut push,
                );
            }
        }
        for w in 0..ix.words as usize {
            let mut bits = st.index[first + w];
            while bits != 0 {
                let pos = (w * 64) as u32 + bits.trailing_zeros();
                bits &= bits - 1;
                if pos >= limit {
                    return Ok(true);
                }
                m.spend(None)?;
                if let Dim::Board(bd) = dim {
                    if self.boards[bd].is_closed(pos, closing) {
                        continue;
                    }
                }
                locals[b.slot as usize] = match dim {
                    Dim::Board(bd) => Value::Space(bd, pos),
                    Dim::Enum(e) => Value::Enum(e, pos as u16),
                    Dim::Player => Value::Player(pos as u8),
                    Dim::Range { lo, .. } => Value::Int(lo + pos as i64),
                };
                if let Some(nx) = &next {
                    if !self.bind_next_listed(m, st, opts, k + 1, nx, pos, locals, me, f)? {
                        return Ok(false);
                    }
                    continue;
                }
                if !self.bind_next(m, st, opts, k + 1, locals, me, f)? {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// [`Game::bind_narrowed`] over a board when the last binding `k + 1` is read from
    /// remembered lists, no part is tested between the two, and each option is pushed
    /// (`push`; `p`: the option, with this binding's parameter at `this`): per position the
    /// list is read and its elements whose parts their resolved part answers are pushed at
    /// once ([`Game::push_listed`]); the rest (a list not yet listed, an element to test in
    /// full) go the general way. `walk`: the value index's
    /// first word and word count, the positions' limit, the board and whether it has closed
    /// spaces.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn narrowed_push(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        nx: &NextListed,
        (first, words, limit, bd, closing): (usize, usize, u32, BoardId, bool),
        (this, mut p): (usize, Pushing),
        locals: &mut [Value],
        me: u8,
        push: &mut Push,
    ) -> Eval<bool> {
        let slot = opts.binds[k].slot;
        // Lists kept for another program or setup are dropped once, at the first position
        // that reads one (as the general way does: a listing that reads none keeps them).
        let mut owned = false;
        let board = &self.boards[bd];
        let n = nx.leaf.1.len();
        for w in 0..words {
            let mut bits = st.index.get(first + w).copied().unwrap_or(0);
            while bits != 0 {
                let pos = (w * 64) as u32 + bits.trailing_zeros();
                bits &= bits - 1;
                if pos >= limit {
                    return Ok(true);
                }
                m.spend(None)?;
                if board.is_closed(pos, closing) {
                    continue;
                }
                let v = Value::Space(bd, pos);
                let list = match pos < nx.bound {
                    true => {
                        if !owned {
                            m.own(self, st);
                            owned = true;
                        }
                        m.filters
                            .get(nx.fid as usize)
                            .and_then(|t| t.lists.get((nx.base + pos * nx.step) as usize))
                            .filter(|l| l.1 != u32::MAX)
                    }
                    false => None,
                };
                if let Some(&(start, len)) = list {
                    let (start, end) = (start as usize, (start + len) as usize);
                    if let Some(d) = p.option.args.get_mut(this) {
                        *d = v;
                    }
                    let out = &mut *push.out;
                    let i =
                        Self::push_listed::<true>(m, st, n, nx.fid, start..end, me, out, &mut p);
                    if i == end {
                        continue;
                    }
                    locals[slot as usize] = v;
                    if !self.narrowed_rest(
                        m,
                        st,
                        opts,
                        k,
                        nx,
                        pos,
                        Some(i..end),
                        locals,
                        me,
                        push,
                    )? {
                        return Ok(false);
                    }
                    continue;
                }
                locals[slot as usize] = v;
                if !self.narrowed_rest(m, st, opts, k, nx, pos, None, locals, me, push)? {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// [`Game::narrowed_push`] the general way for position `pos` (bound): the elements
    /// `rest` of its list, or its list read or listed and walked when `None`. Out of line, so
    /// that the loop that calls it stays small.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn narrowed_rest(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        nx: &NextListed,
        pos: u32,
        rest: Option<std::ops::Range<usize>>,
        locals: &mut [Value],
        me: u8,
        push: &mut Push,
    ) -> Eval<bool> {
        match rest {
            Some(r) => {
                let len = r.end - r.start;
                self.bind_leaf_listed(m, st, nx.leaf, nx.fid, r.start, len, locals, me, push)
            }
            None => self.bind_next_listed(m, st, opts, k + 1, nx, pos, locals, me, push),
        }
    }

    /// When binding `k + 1` is the last and is read from a remembered list, what binding `k`
    /// (narrowed) can find once for all its positions: the list's table, its key as
    /// `base + pos * step` for position `pos` of binding `k` (below `bound`), the parts
    /// tested once binding `k` is bound and the last binding's slot and parts.
    fn next_listed<'o>(
        &self,
        st: &State,
        opts: &'o COptions,
        k: usize,
        locals: &[Value],
        me: u8,
    ) -> Option<NextListed<'o>> {
        let next = opts.binds.get(k + 1)?;
        let fid = next.filter?;
        if next.narrow.is_some() || k + 2 != opts.binds.len() || st.frozen == 0 {
            return None;
        }
        let def = &self.program.filters[fid as usize];
        let this = opts.binds[k].slot;
        let (mut base, mut step, mut bound) = (if def.key.me { me as u32 } else { 0 }, 0, u32::MAX);
        for &(slot, size) in &def.key.keys {
            if slot == this {
                base *= size;
                step = step * size + 1;
                bound = bound.min(size);
            } else {
                let p = locals
                    .get(slot as usize)
                    .copied()
                    .and_then(Program::position)?;
                if p >= size {
                    return None;
                }
                base = base * size + p;
                step *= size;
            }
        }
        let pre = match (opts.starts.get(k + 1), opts.starts.get(k + 2)) {
            (Some(&a), Some(&b)) => opts.parts.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        };
        Some(NextListed {
            fid,
            base,
            step,
            bound,
            pre,
            leaf: (next.slot as usize, self.leaf_parts(opts, k + 1)),
        })
    }

    /// [`Game::bind_next`] for the last binding `k`, with what [`Game::next_listed`] found
    /// and the position `pos` of the binding before it.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn bind_next_listed<F: Take>(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        nx: &NextListed,
        pos: u32,
        locals: &mut [Value],
        me: u8,
        f: &mut F,
    ) -> Eval<bool> {
        for part in nx.pre {
            if !m.part(self, st, part, locals, me)? {
                return Ok(true);
            }
        }
        let list = if pos < nx.bound {
            let key = nx.base + pos * nx.step;
            match m.listed(self, st, nx.fid, key) {
                Some(l) => Some(l),
                None => self.fill_list(m, st, opts, k, nx.fid, key, locals, me)?,
            }
        } else {
            None
        };
        match list {
            Some((start, len)) => {
                self.bind_leaf_listed(m, st, nx.leaf, nx.fid, start, len, locals, me, f)
            }
            None => self.bind_walk(m, st, opts, k, locals, me, f),
        }
    }

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

/// The locals of the frame a choice waits in, copied (listing options never changes the
/// state).
pub(crate) fn frame_locals(g: &Game, st: &State, f: &Frame) -> [Value; MAX_LOCALS] {
    let mut out = [Value::None; MAX_LOCALS];
    let n = (g.procs[f.proc].locals as usize).min(MAX_LOCALS);
    let from = f.base as usize;
    if let Some(src) = st.locals.get(from..from + n) {
        out[..n].copy_from_slice(src);
    }
    out
}

/// Two components are interchangeable for `seat`: same type, equal fields, and every secret
/// field seen by the seat on both. A secret the seat cannot see makes them distinct whatever
/// its values: merging by the hidden values would tell the seat whether they are equal, and
/// merging by the visible fields alone would take away the choice between pieces that differ
/// (3.4.1: components that differ only in a secret field are not interchangeable).
pub(crate) fn same_for(g: &Game, s: &State, a: CompId, b: CompId, seat: u8) -> bool {
    let (ca, cb) = (&g.comps[a], &g.comps[b]);
    if ca.ty != cb.ty {
        return false;
    }
    let fields = &g.types[ca.ty].fields;
    fields.iter().enumerate().all(|(f, fd)| {
        let (x, y) = (
            s.fields[g.field_slot(a, f as u16)],
            s.fields[g.field_slot(b, f as u16)],
        );
        x == y
            && (fd.seen_by.is_none()
                || (field_visible(g, s, a, f as u16, Some(seat))
                    && field_visible(g, s, b, f as u16, Some(seat))))
    })
}

/// Two components are interchangeable when they have the same type and field values.
/// Equal outcomes merged into one with their count, in the order each first appears: two
/// components are the same outcome when they lie in the same place with the same type and
/// fields. Sorting keeps this O(n log n): a roll over 100,000 values or a shuffle of 10,000
/// cards lists its outcomes at once (a linear search per value took minutes).
fn merge_outcomes(g: &Game, st: &State, vals: &[Value]) -> Vec<(Value, u32)> {
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

/// One element of a remembered list ([`super::vm::FilterTable`]): its value, its answers to
/// the list's split conditions and, on the last binding's lists, the first part tested on
/// it resolved to one read of the state ([`Game::listed_elem`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Listed {
    pub(crate) value: Value,
    pub(crate) bits: u32,
    /// The variable slot the resolved part reads.
    at: u32,
    /// The number it is compared with ([`Listed::INT`], [`Listed::LEN`]).
    n: i32,
    /// What the resolved part asks of it ([`Listed::PASS`]: none resolved).
    test: u8,
    /// The comparison ([`Listed::INT`], [`Listed::LEN`]).
    op: BinOp,
    /// The parts the resolved one answers (0 or 1: the first of the element's parts): the
    /// rest are tested in full.
    skip: u8,
}

impl Listed {
    const PASS: u8 = 0;
    const IS_ME: u8 = 1;
    const NOT_ME: u8 = 2;
    const IS_NONE: u8 = 3;
    const NOT_NONE: u8 = 4;
    /// `var[slot] op n`, the variable at `at` (true only when it holds a number).
    const INT: u8 = 5;
    /// `count(zone[slot]) op n`, the zone instance `at`.
    const LEN: u8 = 6;

    /// The resolved part's answer (`Some(true)` when none is resolved; `None`: its slot is
    /// not in the state, left to the full test).
    #[inline(always)]
    fn holds(&self, st: &State, me: u8) -> Option<bool> {
        let var = || st.vars.get(self.at as usize);
        Some(match self.test {
            Listed::PASS => true,
            Listed::IS_ME => matches!(*var()?, Value::Player(p) if p == me),
            Listed::NOT_ME => !matches!(*var()?, Value::Player(p) if p == me),
            Listed::IS_NONE => matches!(*var()?, Value::None),
            Listed::NOT_NONE => !matches!(*var()?, Value::None),
            Listed::INT => match *var()? {
                Value::Int(x) => int_cmp(self.op, x, self.n as i64)?,
                _ => return None,
            },
            Listed::LEN => int_cmp(self.op, st.zones.len(InstId(self.at)) as i64, self.n as i64)?,
            _ => return None,
        })
    }
}

/// What a narrowed binding finds once about the last binding after it, read from a
/// remembered list ([`Game::next_listed`]).
struct NextListed<'o> {
    fid: u32,
    base: u32,
    step: u32,
    bound: u32,
    pre: &'o [Part],
    leaf: (usize, &'o [Part]),
}

/// Where a listing hands each binding that passes the guard (the bound locals): a callback
/// that returns whether to go on, or [`Push`].
trait Take {
    fn take(&mut self, m: &mut Machine, l: &[Value]) -> Eval<bool>;

    /// When each binding is only pushed as an option: the list, the arm and the
    /// parameters' bindings ([`Push`]).
    #[inline(always)]
    fn push(&mut self) -> Option<(&mut Vec<Action>, u16, &[CBind])> {
        None
    }
}

/// The option a listing into a [`Push`] builds for the elements of the last binding's
/// remembered lists ([`Game::push_listed`]): the other parameters filled.
#[derive(Clone, Copy)]
struct Pushing {
    option: Action,
    /// The parameter of the last binding.
    leaf: usize,
}

impl Pushing {
    /// The option of arm `arm` with parameters `binds` bound in `l`, the last binding's at
    /// `slot` (`None`: no parameter is bound there).
    fn new(arm: u16, binds: &[CBind], slot: usize, l: &[Value]) -> Option<Pushing> {
        let leaf = binds.iter().position(|b| b.slot as usize == slot)?;
        let mut option = Action {
            arm,
            args: [Value::None; MAX_ARGS],
            steps: Steps::NONE,
        };
        for (d, b) in option.args.iter_mut().zip(binds) {
            if let Some(v) = l.get(b.slot as usize) {
                *d = *v;
            }
        }
        Some(Pushing { option, leaf })
    }
}

/// A callback as a [`Take`].
struct Each<F>(F);

/// `f` as a [`Take`] (the bound gives the closure its signature).
fn each<F: FnMut(&mut Machine, &[Value]) -> Eval<bool>>(f: F) -> Each<F> {
    Each(f)
}

impl<F: FnMut(&mut Machine, &[Value]) -> Eval<bool>> Take for Each<F> {
    #[inline(always)]
    fn take(&mut self, m: &mut Machine, l: &[Value]) -> Eval<bool> {
        (self.0)(m, l)
    }
}

/// Each binding pushed onto `out` as an option of arm `arm` with parameters `binds`.
struct Push<'a> {
    out: &'a mut Vec<Action>,
    arm: u16,
    binds: &'a [CBind],
}

impl Take for Push<'_> {
    #[inline(always)]
    fn take(&mut self, _: &mut Machine, l: &[Value]) -> Eval<bool> {
        push_option(self.out, self.arm, l, self.binds);
        Ok(true)
    }

    #[inline(always)]
    fn push(&mut self) -> Option<(&mut Vec<Action>, u16, &[CBind])> {
        Some((self.out, self.arm, self.binds))
    }
}

/// Where listed options go: straight into a list, or to a callback that may stop the listing.
pub(crate) enum Sink<'a> {
    List(&'a mut Vec<Action>),
    Each(&'a mut dyn FnMut(Action) -> bool),
}

thread_local! {
    /// Remembered lists filled on this thread ([`Game::fill_list`]): filling one costs work
    /// that using it later does not, so [`Game::bind_walk_same`] does not copy the options
    /// of a value whose walk filled one.
    static FILLS: Cell<u64> = const { Cell::new(0) };
}

/// The options listed for a value of a [`Same`] binding: what it read, where its options
/// lie in the list, and the work they cost.
#[derive(Clone, Copy, Default)]
struct SameSeen {
    key: [Value; Same::MAX_READS],
    start: usize,
    end: usize,
    work: u64,
}

/// The walk of a [`Game::bind_scan`]: the parts tested on a value whose instance is not
/// empty, and the units of work of the values walked (`counted`) and spent so far.
struct ScanWalk<'p> {
    rest: &'p [Part],
    counted: u64,
    spent: u64,
}

impl ScanWalk<'_> {
    /// Spends the units counted up to `to` not spent yet: at once when the budget pays for
    /// them, else one by one (the error of the one it cannot pay for, as in the general
    /// way).
    #[inline(always)]
    fn spend(&mut self, m: &mut Machine, to: u64) -> Eval<()> {
        let k = to - self.spent;
        self.spent = to;
        if m.fuel >= k {
            m.fuel -= k;
            return Ok(());
        }
        for _ in 0..k {
            m.spend(None)?;
        }
        Ok(())
    }
}

/// The option of arm `arm` whose parameters are bound in `l` at the slots of `binds`.
fn action_of(arm: usize, l: &[Value], binds: &[CBind]) -> Action {
    let mut args = [Value::None; MAX_ARGS];
    for (i, b) in binds.iter().enumerate() {
        args[i] = l[b.slot as usize];
    }
    Action {
        arm: arm as u16,
        args,
        steps: Steps::NONE,
    }
}

/// Appends the option of arm `arm` whose parameters are bound in `l` at the slots of `binds`,
/// built in place in the list.
#[inline(always)]
fn push_option(out: &mut Vec<Action>, arm: u16, l: &[Value], binds: &[CBind]) {
    out.push(Action {
        arm,
        args: [Value::None; MAX_ARGS],
        steps: Steps::NONE,
    });
    if let Some(last) = out.last_mut() {
        for (d, b) in last.args.iter_mut().zip(binds) {
            // Copied whole when the slot is there (an `Option<Value>` in between is copied
            // field by field through the stack, which the processor cannot forward).
            if let Some(v) = l.get(b.slot as usize) {
                *d = *v;
            }
        }
    }
}
