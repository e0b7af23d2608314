//! The options of a decision: listing them, testing one, applying one; chance outcomes;
//! simultaneous choices.
use super::vm::int_cmp;
use super::vm::{with_machine, Eval, Machine};
use super::*;
use crate::ir::vm::{At, CBind, COptions, FastCmp, Narrow, Op, Part, Program, Step, Twin, ZoneAt};
use crate::ir::*;
use crate::ops::BinOp;
use std::cell::Cell;

mod apply;
mod bind;
mod listed;
mod narrowed;
use apply::merge_outcomes;
pub(crate) use listed::Listed;

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
