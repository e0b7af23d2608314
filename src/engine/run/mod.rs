//! The step loop: runs the rules' compiled procedures until the next decision, chance event
//! or end. Every step costs a unit of the decision's work budget.

use super::react::WindowStep;
use super::simul::Go;
use super::vm::{with_machine, Iter, Machine};
use super::*;
use crate::ir::vm::{Code, Family, Op, Step, Target};
use crate::ir::*;
use rand::Rng;

mod flow;
mod loops;
mod write;

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
            let frame = match self.top_frame(m, st, locals)? {
                Ok(frame) => frame,
                Err(Go::Jumped) => continue,
                Err(_) => return Ok(()),
            };
            let fi = st.frames.len() - 1;
            let code = &self.program.procs[frame.proc];
            let base = frame.base as usize;
            let mut pc = frame.pc;
            // The steps of this frame, one after the other, without reading the frame
            // again, while they are steps that leave the frames as they are (each still
            // spends its unit of work).
            loop {
                let me = st.frames[fi].me;
                let mut next = pc + 1;
                // Where an extracted step says to go on (`Go`): on at a pc of this frame,
                // out of the loop, into a fired trigger's body, or on in the frames it set.
                macro_rules! go {
                    ($go:expr) => {
                        match $go {
                            Go::Next(pc) => next = pc,
                            Go::Wait => return Ok(()),
                            Go::Again(sp) => {
                                last_loop = Some(sp);
                                continue 'frame;
                            }
                            Go::Jumped => continue 'frame,
                        }
                    };
                }
                // A step that may change the frames: the loop reads the frame again after it.
                macro_rules! leave {
                    ($go:expr) => {{
                        go!($go);
                        st.frames[fi].pc = next;
                        continue 'frame;
                    }};
                }
                let step = &code[pc as usize];
                match step {
                    Step::Let(slot, e, span) => {
                        let v = self.value_in(m, st, *e, &mut locals[base..], me, *span)?;
                        locals[base + *slot as usize] = v;
                    }
                    Step::Assign { .. } => {
                        self.assign_step(m, st, &mut locals[base..], me, step)?
                    }
                    Step::Move { .. } => self.move_step(m, st, &mut locals[base..], me, step)?,
                    Step::Shuffle { .. } | Step::Roll { .. } => {
                        go!(self.chance_step(m, st, locals, (base, me), step, next)?)
                    }
                    Step::Jump(t) => next = *t,
                    Step::JumpIfNot(c, t, span) => {
                        if !self.holds_in(m, st, *c, &mut locals[base..], me, *span)? {
                            next = *t;
                        }
                    }
                    Step::ForInit { coll, slot, span } => {
                        let l = &mut locals[base..];
                        self.for_init(m, st, l, iters, me, (*coll, *slot, *span))?
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
                    Step::ForNextIf { exit, .. } => {
                        let l = &mut locals[base..];
                        let found = self.for_next_if(m, st, l, iters, me, &mut last_loop, step)?;
                        next = if found { pc + 2 } else { *exit };
                    }
                    Step::ForDone { slot } => {
                        if let Value::Int(start) = locals[base + *slot as usize + 2] {
                            iters.truncate(start as usize);
                        }
                    }
                    Step::Choose(cid) if st.block.is_some() => {
                        leave!(self.simul_choose(m, st, locals, *cid)?)
                    }
                    Step::Simul { .. } => leave!(self.simul_step(m, st, locals, step)?),
                    Step::SimulEnd => leave!(self.simul_end(st, locals)?),
                    Step::Choose(cid) if self.program.choices[*cid].each.is_some() => {
                        leave!(self.choose_each(m, st, locals, (base, me), *cid)?)
                    }
                    Step::SimNext(cid) => {
                        leave!(self.sim_next(st, locals, (base, me), (fi, pc), *cid)?)
                    }
                    Step::Choose(cid) => leave!(self.choose(m, st, locals, (base, me), *cid)?),
                    Step::DoField { target, args, span } => {
                        let what = (*target, &args[..], *span);
                        leave!(self.do_field(m, st, locals, (base, me), (fi, next), what)?)
                    }
                    Step::Do { action, args, span } => {
                        self.do_action(m, st, locals, base, me, (fi, next), *action, args, *span)?;
                        continue 'frame;
                    }
                    Step::TurnStart { .. } | Step::TurnEnd { .. } => {
                        self.turn_step(m, st, &mut locals[base..], (fi, me), step)?
                    }
                    Step::End(_) | Step::Win { .. } => {
                        return self.end_step(m, st, locals, (base, me), step)
                    }
                    Step::LoopGuard { span } => last_loop = Some(*span),
                    Step::Window(before) => leave!(self.window_go(m, st, locals, *before, next)?),
                    Step::Deal { .. }
                    | Step::Reveal { .. }
                    | Step::RevealZone { .. }
                    | Step::Remember { .. }
                    | Step::Forget { .. }
                    | Step::RevealTo { .. } => {
                        self.effect_step(m, st, &mut locals[base..], me, step)?
                    }
                    Step::Native { region, first } => {
                        let l = &mut locals[base..];
                        next = match self.native_region(m, st, l, iters, me, *region) {
                            Some(to) if to != pc => to,
                            _ => self.region_first(m, st, l, iters, me, (first, pc))?,
                        }
                    }
                }
                // Only the steps that leave the frames as they are get here.
                st.frames[fi].pc = next;
                if next as usize >= code.len() {
                    continue 'frame;
                }
                step_spend(m, &last_loop)?;
                pc = next;
            }
        }
    }
}

impl Game {
    /// `t = e`, `+=`, `-=` (any other step does nothing).
    #[inline(always)]
    fn assign_step(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut [Value],
        me: u8,
        step: &Step,
    ) -> Result<(), RunError> {
        if let Step::Assign {
            target,
            op,
            value,
            span,
        } = step
        {
            let v = self.read_in(m, st, *value, locals, me, *span)?;
            if !self.set_local_var(st, locals, target, *op, v) {
                self.assign(m, st, locals, me, target, *op, v, *span)?;
            }
        }
        Ok(())
    }

    /// The first step of a region that did not run natively ([`Step::Native`]), run as the
    /// step loop runs it: where the steps go on. A region starts with a `let`, an assignment,
    /// a condition or a loop's start.
    #[inline(never)]
    fn region_first(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut [Value],
        iters: &mut Vec<Value>,
        me: u8,
        (step, pc): (&Step, u32),
    ) -> Result<u32, RunError> {
        Ok(match step {
            Step::Let(slot, e, span) => {
                locals[*slot as usize] = self.value_in(m, st, *e, locals, me, *span)?;
                pc + 1
            }
            Step::Assign { .. } => {
                self.assign_step(m, st, locals, me, step)?;
                pc + 1
            }
            Step::JumpIfNot(c, t, span) => {
                if self.holds_in(m, st, *c, locals, me, *span)? {
                    pc + 1
                } else {
                    *t
                }
            }
            Step::ForInit { coll, slot, span } => {
                self.for_init(m, st, locals, iters, me, (*coll, *slot, *span))?;
                pc + 1
            }
            _ => {
                return Err(err(
                    "internal: a region that starts with another step",
                    None,
                ))
            }
        })
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
