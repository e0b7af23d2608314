//! The reference evaluator: the oracle the engine is tested against.
//!
//! A plain tree walk over the IR ([`Expr`], [`Coll`], [`Agg`], the built-ins), small and
//! meant to be obviously right: no remembered answer, no fast form, no compiled code, and
//! no work budget but a generous bound ([`WORK_LIMIT`]) for rules that never end. It reads a [`State`] through its plain accessors (a zone's components, a
//! field, a variable slot, the constants, the waiting frame's locals) and follows the
//! language reference (`grammar/README.md`), not the engine's code. It is slow and is never
//! used on a hot path: `tests/oracle.rs` and `examples/oracle.rs` play random games and
//! compare, at every decision, the engine's legal list with [`options`] and each option the
//! engine lists with [`is_legal`], and at the end the outcome with [`scores`] and
//! [`winners`].
//!
//! The options of a decision are listed for the common case, a plain `choose` (its arms in
//! the order written: an action's parameters bound over their collections in declaration
//! order, the last varying fastest, each part of the guard tested as soon as the parameters
//! it needs are bound; an inline option; a value choice). Decisions it does not cover yet
//! are answered with [`Listing::Skipped`] and the reason, never agreed with silently.

mod agg;
mod chance;
mod coll;
pub mod diff;
mod expr;
pub mod lir;

pub use chance::chance_outcomes;

use crate::engine::{Action, RunError, State, Wait};
use crate::ir::*;
use std::cell::Cell;

/// The most units of work (elements listed, path steps, set members tried, function calls)
/// one question to the reference may take: past it, a [`RunError::Limit`]. A bound for
/// rules that never end (a mutant's), far above what the engine's budget lets a decision
/// do, so that it is never the reference that stops first on rules the engine runs.
pub const WORK_LIMIT: u64 = 200_000_000;

/// The evaluator over one game and one state. `depth` counts nested function calls; `work`
/// the units of work spent on the question asked.
#[derive(Clone, Copy)]
struct Ref<'a> {
    g: &'a Game,
    s: &'a State,
    depth: u16,
    work: &'a Cell<u64>,
}

impl<'a> Ref<'a> {
    fn new(g: &'a Game, s: &'a State, work: &'a Cell<u64>) -> Self {
        Ref {
            g,
            s,
            depth: 0,
            work,
        }
    }

    /// Spends `n` units of work; a limit error past [`WORK_LIMIT`].
    fn spend(&self, n: u64) -> Result<(), RunError> {
        let w = self.work.get().saturating_add(n);
        self.work.set(w);
        if w > WORK_LIMIT {
            return Err(limit("the reference did too much work for one question"));
        }
        Ok(())
    }
}

/// A rule error found by the reference (division by 0, a field of `none`, ...).
fn rule(msg: impl Into<String>) -> RunError {
    RunError::rule(msg, None)
}

/// A limit the reference stops at (a collection too long to list, a ray without end).
fn limit(msg: impl Into<String>) -> RunError {
    RunError::Limit {
        message: msg.into(),
        span: None,
    }
}

/// One legal option as the reference lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefOption {
    /// The arm of the waiting choice (an index into its arms).
    pub arm: u16,
    /// The values bound to the arm's parameters, in order.
    pub args: Vec<Value>,
    /// The canonical text: the label (an action's name, an inline option's label) then
    /// `name=value` for each bound name.
    pub text: String,
}

/// Why the reference does not list a decision's options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Skip {
    /// No decision waits (the game is over, or it is running).
    NoDecision,
    /// A chance event waits for its outcome (external chance).
    Chance,
    /// One arm is a `sequence action`, whose options are runs of its effect.
    Sequence,
    /// `choose each` whose chooser's name has no slot.
    Each,
    /// A seat's choice inside a `simultaneous` block without a private run to list it on.
    Simultaneous,
}

/// The reference's answer for the decision a state waits at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Listing {
    /// The legal options, in order.
    Options(Vec<RefOption>),
    /// A decision the reference does not cover yet.
    Skipped(Skip),
}

/// The value of an expression in a state, with `locals` the slots it reads and `me` the
/// acting player.
pub fn eval(
    g: &Game,
    st: &State,
    e: &Expr,
    locals: &mut [Value],
    me: u8,
) -> Result<Value, RunError> {
    Ref::new(g, st, &Cell::new(0)).eval(e, locals, me)
}

/// The elements of a collection in a state, in order.
pub fn elements(
    g: &Game,
    st: &State,
    c: &Coll,
    locals: &mut [Value],
    me: u8,
) -> Result<Vec<Value>, RunError> {
    Ref::new(g, st, &Cell::new(0)).elements(c, locals, me)
}

/// Whether some `end when` condition holds (each evaluated with `me` the current player,
/// or the first seat outside any turn).
pub fn ended(g: &Game, st: &State) -> Result<bool, RunError> {
    let me = st.current().unwrap_or(0);
    let work = Cell::new(0);
    for (cond, _) in &g.end_when {
        let mut locals = [Value::None; MAX_LOCALS];
        if Ref::new(g, st, &work).bool(cond, &mut locals, me)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// `score(p)` of every seat, in seat order (all 0 without a `score`).
pub fn scores(g: &Game, st: &State) -> Result<Vec<i64>, RunError> {
    (0..st.players)
        .map(|p| match &g.score {
            Some(e) => player_value(g, st, e, p),
            None => Ok(0),
        })
        .collect()
}

/// The winners by score of a game that ends normally (section 8.1): the seats of the
/// highest score, among them those highest on each `tiebreak` in turn; `None` for a draw
/// (several remain under `ties draw`).
pub fn winners(g: &Game, st: &State) -> Result<Option<Vec<u8>>, RunError> {
    let scores = scores(g, st)?;
    let mut keys = Vec::new();
    for p in 0..st.players {
        let mut k = vec![scores[p as usize]];
        for t in &g.tiebreaks {
            k.push(player_value(g, st, t, p)?);
        }
        keys.push(k);
    }
    let Some(best) = keys.iter().max() else {
        return Ok(Some(Vec::new()));
    };
    let top: Vec<u8> = (0..st.players)
        .filter(|p| &keys[*p as usize] == best)
        .collect();
    Ok((top.len() == 1 || g.ties_shared).then_some(top))
}

/// `score(p)`, a `tiebreak(p)`: `p` is local 0 and `me`.
fn player_value(g: &Game, st: &State, e: &Expr, p: u8) -> Result<i64, RunError> {
    let mut locals = [Value::None; MAX_LOCALS];
    locals[0] = Value::Player(p);
    Ref::new(g, st, &Cell::new(0)).int(e, &mut locals, p)
}

/// The decision a state waits at, as the reference covers it: the state it is listed on
/// (a seat's private run inside a simultaneous block), the choice, the chooser, and the
/// locals and acting player inline options are listed with.
struct Waiting<'g, 's> {
    st: &'s State,
    choice: &'g Choice,
    actor: u8,
    frame_locals: [Value; MAX_LOCALS],
    frame_me: u8,
}

/// The decision `st` waits at, or why the reference does not cover it. Inside a
/// simultaneous block the seat's options are those of its private run (4.1.2); in a
/// `choose each` the chooser's name and `me` are the seat asked (4.1.1); a window lists its
/// actions and `pass` like a choice (3.9.2). A choice with a sequence action is not
/// covered unless `sequences` (its options are runs of the effect; their first part, the
/// action and its parameters, can still be tested against the guard).
fn waiting<'g, 's>(g: &'g Game, st: &'s State, sequences: bool) -> Result<Waiting<'g, 's>, Skip> {
    let (choice, actor) = match st.wait {
        Wait::Decision { choice, actor } => (choice, actor),
        Wait::Chance => return Err(Skip::Chance),
        Wait::Over | Wait::Running => return Err(Skip::NoDecision),
    };
    let (st, choice, actor) = match st.block {
        Some(_) => {
            let run = g.block_run(st, Some(actor)).ok_or(Skip::Simultaneous)?;
            match run.wait {
                Wait::Decision { choice, actor } => (run, choice, actor),
                _ => return Err(Skip::Simultaneous),
            }
        }
        None => (st, choice, actor),
    };
    let ch = g.choices.get(choice).ok_or(Skip::NoDecision)?;
    let sequence = |a: &Arm| matches!(a, Arm::Action(ai) if g.actions[*ai].sequence);
    if !sequences && ch.arms.iter().any(sequence) {
        return Err(Skip::Sequence);
    }
    let frame = st.frames.last().ok_or(Skip::NoDecision)?;
    let mut frame_locals = [Value::None; MAX_LOCALS];
    let n = (g.procs[frame.proc].locals as usize).min(MAX_LOCALS);
    let base = frame.base as usize;
    if let Some(src) = st.locals.get(base..base + n) {
        frame_locals[..n].copy_from_slice(src);
    }
    let mut frame_me = frame.me;
    if let Some((bind, _)) = &ch.each {
        let slot = frame_locals.get_mut(bind.slot as usize).ok_or(Skip::Each)?;
        *slot = Value::Player(actor);
        frame_me = actor;
    }
    Ok(Waiting {
        st,
        choice: ch,
        actor,
        frame_locals,
        frame_me,
    })
}

/// An arm of a choice as the reference lists it: its label, bindings and guard parts, and
/// the locals and `me` it is listed with.
struct ArmParts<'g> {
    label: Option<&'g str>,
    binds: &'g [Bind],
    parts: &'g [(u16, Expr)],
    locals: [Value; MAX_LOCALS],
    me: u8,
}

/// Arm `arm` of the waiting choice: an action binds its parameters in fresh locals with
/// `me` the chooser; an inline option binds in the waiting frame's locals, `me` unchanged.
fn arm_parts<'g>(g: &'g Game, w: &Waiting<'g, '_>, arm: &'g Arm) -> ArmParts<'g> {
    match arm {
        Arm::Action(ai) => {
            let act = &g.actions[*ai];
            ArmParts {
                label: Some(&act.name),
                binds: &act.params,
                parts: &act.guard_parts,
                locals: [Value::None; MAX_LOCALS],
                me: w.actor,
            }
        }
        Arm::Inline {
            label,
            binds,
            guard_parts,
            ..
        } => ArmParts {
            label: label.as_deref(),
            binds,
            parts: guard_parts,
            locals: w.frame_locals,
            me: w.frame_me,
        },
    }
}

/// The legal options of the decision `st` waits at, in order (section 4.1): each arm in
/// the order written; within one, every combination of bound values in collection order
/// (the last binding fastest) that passes the guard, each part of the guard tested once
/// the bindings it needs are bound; of interchangeable components of a zone (4.1, 3.4.1)
/// only the lowest is offered.
pub fn options(g: &Game, st: &State) -> Result<Listing, RunError> {
    match waiting(g, st, false) {
        Ok(w) => listing(g, &w).map(Listing::Options),
        Err(skip) => Ok(Listing::Skipped(skip)),
    }
}

/// The options of the decision `w` (see [`options`]).
fn listing(g: &Game, w: &Waiting) -> Result<Vec<RefOption>, RunError> {
    let work = Cell::new(0);
    let r = Ref::new(g, w.st, &work);
    let mut out = Vec::new();
    for (ai, arm) in w.choice.arms.iter().enumerate() {
        let a = arm_parts(g, w, arm);
        let mut found = Vec::new();
        r.bind(&a, 0, &mut a.locals.clone(), w.actor, &mut found)?;
        for args in found {
            let text = r.text(a.label, a.binds, &args);
            out.push(RefOption {
                arm: ai as u16,
                args,
                text,
            });
        }
    }
    Ok(out)
}

/// At a window (3.9.2), the seat the reference asks: the first in seat order from the
/// current player (seat 0 when there is none) that has not passed since the last window
/// action and has a legal window action (only a `before turn` one, at a window before a
/// turn that follows an `anytime` window with no action since). `Ok(None)`: nobody (the
/// window should not wait), or no decision the reference covers; a decision that is no
/// window gives its chooser.
pub fn window_asks(g: &Game, st: &State) -> Result<Option<u8>, RunError> {
    let Ok(mut w) = waiting(g, st, false) else {
        return Ok(None);
    };
    let Wait::Decision { choice, actor } = st.wait else {
        return Ok(None);
    };
    let window = g.windows.is_some_and(|(a, b)| choice == a || choice == b);
    if st.block.is_some() || !window {
        return Ok(Some(actor));
    }
    let start = st.current().unwrap_or(0);
    for k in 0..st.players {
        let p = (start + k) % st.players;
        if st.window.passed & (1 << p) != 0 {
            continue;
        }
        w.actor = p;
        let acts = listing(g, &w)?.into_iter().any(|o| {
            matches!(w.choice.arms.get(o.arm as usize), Some(Arm::Action(ai))
                if !st.window.only_before || g.actions[*ai].window == Some(true))
        });
        if acts {
            return Ok(Some(p));
        }
    }
    Ok(None)
}

/// Whether an action is legal in the decision `st` waits at by the reference's reading of
/// it: an arm of the choice, each value among its collection's elements (with the values
/// before it bound) and every part of the guard true. For a sequence action, its first
/// part (the choices made inside it are not looked at). `None`: a decision not covered.
pub fn is_legal(g: &Game, st: &State, a: &Action) -> Result<Option<bool>, RunError> {
    let Ok(w) = waiting(g, st, true) else {
        return Ok(None);
    };
    let Some(arm) = w.choice.arms.get(a.arm as usize) else {
        return Ok(Some(false));
    };
    let work = Cell::new(0);
    let r = Ref::new(g, w.st, &work);
    let p = arm_parts(g, &w, arm);
    if a.args.iter().skip(p.binds.len()).any(|v| *v != Value::None) {
        return Ok(Some(false));
    }
    let mut l = p.locals;
    for k in 0..=p.binds.len() {
        if !r.parts_hold(p.parts, k, &mut l, p.me)? {
            return Ok(Some(false));
        }
        let Some(b) = p.binds.get(k) else { break };
        let v = a.args.get(k).copied().unwrap_or_default();
        if !r.elements(&b.coll, &mut l, p.me)?.contains(&v) {
            return Ok(Some(false));
        }
        set_local(&mut l, b.slot, v)?;
    }
    Ok(Some(true))
}

/// Writes a local slot.
fn set_local(l: &mut [Value], slot: u16, v: Value) -> Result<(), RunError> {
    match l.get_mut(slot as usize) {
        Some(x) => {
            *x = v;
            Ok(())
        }
        None => Err(rule(format!("local slot {slot} out of the frame"))),
    }
}

impl Ref<'_> {
    /// Every binding of `a.binds[k..]` whose guard parts hold, appended to `out` as the
    /// values of all the bindings; `seat` is the chooser, who tells components apart.
    fn bind(
        &self,
        a: &ArmParts,
        k: usize,
        l: &mut [Value],
        seat: u8,
        out: &mut Vec<Vec<Value>>,
    ) -> Result<(), RunError> {
        if !self.parts_hold(a.parts, k, l, a.me)? {
            return Ok(());
        }
        let Some(b) = a.binds.get(k) else {
            let args = (a.binds.iter())
                .map(|b| l.get(b.slot as usize).copied().unwrap_or_default())
                .collect();
            out.push(args);
            return Ok(());
        };
        let elems = self.elements(&b.coll, l, a.me)?;
        for (i, v) in elems.iter().enumerate() {
            let zone = matches!(b.coll, Coll::Zone(_));
            if zone
                && elems[..i]
                    .iter()
                    .any(|o| self.interchangeable(*o, *v, seat))
            {
                continue;
            }
            set_local(l, b.slot, *v)?;
            self.bind(a, k + 1, l, seat, out)?;
        }
        Ok(())
    }

    /// Whether the guard parts that need exactly `k` bindings hold, tested in order.
    fn parts_hold(
        &self,
        parts: &[(u16, Expr)],
        k: usize,
        l: &mut [Value],
        me: u8,
    ) -> Result<bool, RunError> {
        for (need, p) in parts {
            if *need as usize == k && !self.bool(p, l, me)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Two components look the same to `seat` (3.4.1, 4.1): same type, equal fields, and
    /// every secret field seen by the seat on both.
    fn interchangeable(&self, a: Value, b: Value, seat: u8) -> bool {
        let (Value::Comp(a), Value::Comp(b)) = (a, b) else {
            return false;
        };
        let (g, s) = (self.g, self.s);
        let ty = g.comps[a].ty;
        if ty != g.comps[b].ty {
            return false;
        }
        (g.types[ty].fields.iter().enumerate()).all(|(f, def)| {
            let f = f as u16;
            s.field(a, f, g) == s.field(b, f, g)
                && (def.seen_by.is_none()
                    || (crate::engine::field_visible(g, s, a, f, Some(seat))
                        && crate::engine::field_visible(g, s, b, f, Some(seat))))
        })
    }

    /// An option's canonical text (section 9).
    fn text(&self, label: Option<&str>, binds: &[Bind], args: &[Value]) -> String {
        let mut words: Vec<String> = label.map(str::to_string).into_iter().collect();
        for (b, v) in binds.iter().zip(args) {
            words.push(format!("{}={}", b.name, self.show(*v)));
        }
        words.join(" ")
    }
}
