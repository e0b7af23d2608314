//! The machine that runs compiled expressions and collections ([`crate::ir::vm`]): a value
//! stack, an iterator stack and scratch space, reused from one evaluation to the next so that
//! a running game allocates nothing per decision. It also keeps the work budget (fuel) of the
//! decision being computed.

use super::{RunError, State};
use crate::ir::vm::{Code, Op, Program};
use crate::ir::*;
use std::cell::RefCell;

/// Work the rules may do between two decisions, by default: statements run, elements of
/// collections visited, path steps, parameter combinations tried and set allocations searched
/// each cost one unit.
pub const DEFAULT_FUEL: u64 = 10_000_000;

/// The result of an evaluation; the error is boxed so that the success path stays small.
pub(crate) type Eval<T> = Result<T, Box<RunError>>;

/// One collection being walked.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Iter {
    /// Spaces `next..end` of a board (skipping closed ones when `closing`).
    Spaces {
        board: BoardId,
        next: u32,
        end: u32,
        closing: bool,
    },
    /// Values `next..end` of an enum.
    Values { e: EnumId, next: u16, end: u16 },
    /// Seats `next..end`.
    Seats { next: u8, end: u8 },
    /// Numbers `next..=last`; `done` once past the last.
    Numbers { next: i64, last: i64, done: bool },
    /// The components of a zone from `next` up.
    Zone { next: Option<CompId> },
    /// The components of a type, from position `pos` of the program's list.
    Type { ty: TypeId, pos: u32 },
    /// The components of a type whose bits are set in the state's index words from `base`,
    /// from position `pos` up to `end` ([`crate::ir::vm::FieldIndex`]).
    Indexed {
        ty: TypeId,
        base: u32,
        pos: u32,
        end: u32,
    },
    /// Neighbours `pos..end` in a board's adjacency (the one without closed spaces when
    /// `closing`).
    Adjacent {
        board: BoardId,
        pos: u32,
        end: u32,
        closing: bool,
    },
    /// The spaces after `at` in direction `dir`, until the edge or back at `from` (a ring).
    Ray {
        board: BoardId,
        from: u32,
        at: u32,
        dir: u16,
        closing: bool,
    },
    /// Elements `pos..end` of the scratch buffer, from `start` (dropped with the iterator).
    Buf { start: u32, pos: u32, end: u32 },
}

/// The machine.
#[derive(Debug, Default)]
pub(crate) struct Machine {
    pub(crate) stack: Vec<Value>,
    pub(crate) iters: Vec<Iter>,
    pub(crate) buf: Vec<Value>,
    /// Scratch flags for paths and groups.
    marks: Vec<u8>,
    /// Scratch for path walks: (space, next neighbour position, steps left).
    walk: Vec<(u32, u32, u32)>,
    /// Work left in this decision.
    pub(crate) fuel: u64,
    /// The budget a decision starts with.
    pub(crate) budget: u64,
    /// Nesting of function calls.
    depth: u16,
    /// While a sequence action is explored: the run stops when fewer frames than this remain
    /// (0: never).
    pub(crate) stop_depth: usize,
    /// Spare states for exploring sequence actions (their room is reused).
    // Boxed on purpose: a spare is taken and given back once per run explored, and a box
    // moves a pointer where a state would move its kilobyte (its generator, its stamps).
    #[allow(clippy::vec_box)]
    pub(crate) spares: Vec<Box<super::State>>,
    /// The choices made so far on the run being explored.
    pub(crate) path: Vec<(ChoiceId, super::Action)>,
    /// The recorded choices of the sequence action being applied.
    pub(crate) replay: Vec<(ChoiceId, super::Action)>,
    /// Remembered guard answers: per memo, 0 (not known), 1 (false) or 2 (true), valid for the
    /// program and setup fingerprint in `memo_owner`.
    memos: Vec<Vec<u8>>,
    memo_owner: (u64, u64),
    /// Remembered lists of bindings ([`crate::ir::vm::FilterDef`]), valid with the memos.
    pub(crate) filters: Vec<FilterTable>,
    /// Function results remembered while one state's options are listed.
    calls: calls::CallCache,
    /// A choice and the options of it (one bit per arm) that listing it skips: a window
    /// asking whether a seat has a window action does not list `pass`.
    pub(crate) skip_arms: Option<(ChoiceId, u64)>,
    /// The seat choosing among the options being listed: interchangeable components are
    /// those that look the same to it (`me` may be another seat: `choose by p`).
    pub(crate) chooser: u8,
    /// Answers of `group` conditions, per space, kept from one group to the next.
    walks: aggregates::WalkMemo,
    /// Per window choice (anytime, before turn), arm (the first 64) and seat: the state
    /// ([`super::state::Stamps`]'s lineage) and clock at which the seat had no option of that
    /// arm's action: while none of the families its guard reads is written since, the window
    /// does not list it for that seat again.
    pub(crate) windows: Vec<(u64, u64)>,
    /// Per trigger: the state's lineage, clock and player (`me`) at which its test last
    /// did not hold: while none of the families it reads is written since, it is not tested
    /// again for that player.
    pub(crate) triggers: Vec<(u64, u64, u8)>,
    /// How many `after` effects this machine runs inside (0: the real game): chance events
    /// are refused there.
    pub(crate) hypothetical: u8,
    /// The machine `after` effects run on (kept for its room).
    inner: Option<Box<Machine>>,
    /// List every option the engine's way, not with the compiled enumerators (check mode's
    /// second listing, the oracle of the first).
    pub(crate) native_off: bool,
    /// A region of statements ran out of work natively in this run: the rest of the run
    /// goes as steps (a loop that keeps coming back to a region then spends the budget at
    /// most twice, once natively, once as steps).
    pub(crate) regions_off: bool,
    /// The values the compiled enumerators write (kept for its room).
    pub(crate) native_out: Vec<Value>,
}

/// The remembered lists of one binding: per key, where its list starts in `elems` and
/// its length (`u32::MAX`: not listed yet).
#[derive(Debug, Default)]
pub(crate) struct FilterTable {
    pub(crate) lists: Vec<(u32, u32)>,
    /// The listed elements ([`super::options::Listed`]).
    pub(crate) elems: Vec<super::options::Listed>,
}

thread_local! {
    static MACHINE: RefCell<Machine> = RefCell::new(Machine::default());
}

/// Runs `f` with this thread's machine, emptied and given a fresh budget of `fuel` (a nested
/// use, from a callback, gets a machine of its own).
pub(crate) fn with_machine<T>(fuel: u64, f: impl FnOnce(&mut Machine) -> T) -> T {
    MACHINE.with(|cell| match cell.try_borrow_mut() {
        Ok(mut m) => {
            m.reset(fuel);
            f(&mut m)
        }
        Err(_) => {
            let mut m = Machine::default();
            m.reset(fuel);
            f(&mut m)
        }
    })
}

const ITEM: u8 = 1;
const SEEN: u8 = 2;
const OK: u8 = 4;
const CHECKED: u8 = 8;

/// Check mode ([`crate::ir::vm::Program::check_caches`]): a remembered answer differs from the
/// answer computed again without it. Only check mode gets here.
#[cold]
#[inline(never)]
pub(crate) fn stale(cache: &str, detail: String) -> ! {
    panic!("check-caches: {cache} served a stale answer: {detail}")
}

fn err(msg: impl Into<String>, span: Option<Span>) -> Box<RunError> {
    Box::new(RunError::rule(msg, span))
}

mod after;
mod aggregates;
mod builtins;
mod calls;
mod compare;
mod rays;
pub(crate) use compare::{comp_field, fixed_test, int_cmp};
mod exec;
use builtins::binary;

impl Machine {
    /// Empties every stack and sets the budget.
    pub(crate) fn reset(&mut self, fuel: u64) {
        self.stack.clear();
        self.iters.clear();
        self.buf.clear();
        self.fuel = fuel;
        self.budget = fuel;
        self.regions_off = false;
        self.depth = 0;
        self.stop_depth = 0;
        self.hypothetical = 0;
        self.end_listing();
        self.walks_leave(0);
    }

    /// A guard part's answer: remembered when the part allows it and the match is past its
    /// setup, else evaluated.
    #[inline(always)]
    pub(crate) fn part(
        &mut self,
        g: &Game,
        s: &State,
        part: &crate::ir::vm::Part,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<bool> {
        match part.memo {
            Some(_) if s.frozen != 0 => self.memo_part(g, s, part, locals, me),
            _ => self.test(g, s, part.code, locals, me),
        }
    }

    /// [`Machine::part`] for a part whose answers are remembered.
    #[inline(never)]
    fn memo_part(
        &mut self,
        g: &Game,
        s: &State,
        part: &crate::ir::vm::Part,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<bool> {
        let Some(id) = part.memo.filter(|_| s.frozen != 0) else {
            return self.eval_bool(g, s, part.code, locals, me);
        };
        let def = &g.program.memos[id as usize];
        let mut key: u32 = if def.me { me as u32 } else { 0 };
        for &(slot, size) in &def.keys {
            match Program::position(local(locals, slot)) {
                Some(p) if p < size => key = key * size + p,
                _ => return self.eval_bool(g, s, part.code, locals, me),
            }
        }
        self.own(g, s);
        if self.memos.len() <= id as usize {
            self.memos.resize(id as usize + 1, Vec::new());
        }
        let table = &mut self.memos[id as usize];
        if table.is_empty() {
            table.resize(def.entries as usize, 0);
        }
        match table.get(key as usize).copied() {
            Some(c @ (1 | 2)) => {
                let v = c == 2;
                if g.program.check_caches {
                    self.check_part(g, s, part.code, locals, me, v)?;
                }
                Ok(v)
            }
            _ => {
                let v = self.eval_bool(g, s, part.code, locals, me)?;
                if let Some(slot) = self.memos[id as usize].get_mut(key as usize) {
                    *slot = 1 + v as u8;
                }
                Ok(v)
            }
        }
    }

    /// Check mode: a guard part's answer remembered for the state's setup (`v`), computed
    /// again; the work it costs is given back.
    #[cold]
    #[inline(never)]
    fn check_part(
        &mut self,
        g: &Game,
        s: &State,
        code: Code,
        locals: &mut [Value],
        me: u8,
        v: bool,
    ) -> Eval<()> {
        let fuel = self.fuel;
        let fresh = self.eval_bool(g, s, code, locals, me)?;
        self.fuel = fuel;
        if fresh != v {
            stale(
                "a guard part's answer remembered per setup (Machine::memos)",
                format!(
                    "remembered {v}, computed again {fresh} (me = p{}, locals {:?})",
                    me + 1,
                    locals
                ),
            );
        }
        Ok(())
    }

    /// The remembered list `fid` of key `key` as (start, length), when it is listed for
    /// this program and setup.
    #[inline(always)]
    pub(crate) fn listed(&self, g: &Game, s: &State, fid: u32, key: u32) -> Option<(usize, usize)> {
        if self.memo_owner != (g.program.id, s.frozen) {
            return None;
        }
        match self.filters.get(fid as usize)?.lists.get(key as usize) {
            Some(&(start, len)) if len != u32::MAX => Some((start as usize, len as usize)),
            _ => None,
        }
    }

    /// Forgets the remembered answers and lists when they were kept for another program or
    /// another setup.
    pub(crate) fn own(&mut self, g: &Game, s: &State) {
        let owner = (g.program.id, s.frozen);
        if self.memo_owner != owner {
            self.memos.iter_mut().for_each(Vec::clear);
            for t in &mut self.filters {
                t.lists.clear();
                t.elems.clear();
            }
            self.memo_owner = owner;
        }
    }

    /// Spends one unit of work; running out is a limit error (blamed on `span` when given).
    #[inline(always)]
    pub(crate) fn spend(&mut self, span: Option<Span>) -> Eval<()> {
        if self.fuel == 0 {
            return Err(self.out_of_fuel(span));
        }
        self.fuel -= 1;
        Ok(())
    }

    #[cold]
    fn out_of_fuel(&self, span: Option<Span>) -> Box<RunError> {
        Box::new(RunError::Limit {
            message: format!(
                "the rules did more than {} units of work without reaching a decision \
                 (a loop that never ends, or a search too large?)",
                self.budget
            ),
            span,
        })
    }

    /// Evaluates compiled code to one value.
    #[inline(never)]
    pub(crate) fn eval(
        &mut self,
        g: &Game,
        s: &State,
        code: Code,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<Value> {
        self.eval_here(g, s, code, locals, me)
    }

    /// [`Machine::eval`] in its caller (those that test the value's kind at once, so that
    /// the value is not passed through one more call).
    #[inline(always)]
    fn eval_here(
        &mut self,
        g: &Game,
        s: &State,
        code: Code,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<Value> {
        if code.end == code.start + 1 {
            if let Some(v) = exec::read_op(g, s, code, locals, me) {
                return v;
            }
        }
        self.run_ops(g, s, code, locals, me)?;
        Ok(self.stack.pop().unwrap_or_default())
    }

    /// Evaluates code that must give a flag.
    pub(crate) fn eval_bool(
        &mut self,
        g: &Game,
        s: &State,
        code: Code,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<bool> {
        // A single comparison (most guard parts) is evaluated in place, and so are
        // comparisons joined by `and`, `or`, `not` and `if`: the flag never goes through the
        // stack.
        if code.end == code.start + 1 {
            if let Some(Op::Cmp(i)) = g.program.ops.get(code.start as usize) {
                return self.cmp(g, s, *i, code.start, locals, me);
            }
        }
        if g.program.is_flag_code(code) {
            return self.flags(g, s, code, locals, me);
        }
        self.eval_value_bool(g, s, code, locals, me)
    }

    /// Evaluates code that must give a flag through the value stack (no short cut tried).
    pub(crate) fn eval_value_bool(
        &mut self,
        g: &Game,
        s: &State,
        code: Code,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<bool> {
        match self.eval_here(g, s, code, locals, me)? {
            Value::Bool(b) => Ok(b),
            other => Err(expected(g, s, "true or false", other, None)),
        }
    }

    /// Evaluates code that must give a number.
    pub(crate) fn eval_int(
        &mut self,
        g: &Game,
        s: &State,
        code: Code,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<i64> {
        match self.eval_here(g, s, code, locals, me)? {
            Value::Int(n) => Ok(n),
            other => Err(expected(g, s, "a number", other, None)),
        }
    }

    /// Starts walking a compiled collection: its iterator is on top of the iterator stack.
    /// The common collections of a parameter (a zone without index or indexed by `me` or a
    /// local, an enum, the players, a board) are started here, without the op loop.
    pub(crate) fn start(
        &mut self,
        g: &Game,
        s: &State,
        coll: Code,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<()> {
        if let Some(it) = exec::quick_iter(g, s, coll, locals, me) {
            self.iters.push(it);
            return Ok(());
        }
        self.run_code(g, s, coll, locals, me)
    }

    /// Drops the top iterator.
    pub(crate) fn stop(&mut self) {
        if let Some(Iter::Buf { start, .. }) = self.iters.pop() {
            self.buf.truncate(start as usize);
        }
    }

    /// [`Machine::next`] for a parameter's walk: a zone's components step here, in the
    /// caller, the other walks (and running out of work, with its error) in
    /// [`Machine::next`].
    #[inline(always)]
    pub(crate) fn next_param(
        &mut self,
        g: &Game,
        s: &State,
        span: Option<Span>,
    ) -> Eval<Option<Value>> {
        if let (Some(Iter::Zone { next }), true) = (self.iters.last_mut(), self.fuel > 0) {
            return Ok(match *next {
                Some(c) => {
                    *next = s.zones.above(c);
                    self.fuel -= 1;
                    Some(Value::Comp(c))
                }
                None => {
                    self.iters.pop();
                    None
                }
            });
        }
        self.next(g, s, span)
    }

    /// The next element of the top iterator, or `None` (and the iterator dropped) when it is
    /// done. Each element costs a unit of work.
    pub(crate) fn next(&mut self, g: &Game, s: &State, span: Option<Span>) -> Eval<Option<Value>> {
        let Some(it) = self.iters.last_mut() else {
            return Ok(None);
        };
        let v = match it {
            Iter::Spaces {
                board,
                next,
                end,
                closing,
            } => {
                let b = &g.boards[*board];
                while *next < *end && b.is_closed(*next, *closing) {
                    *next += 1;
                }
                (*next < *end).then(|| {
                    *next += 1;
                    Value::Space(*board, *next - 1)
                })
            }
            Iter::Values { e, next, end } => (*next < *end).then(|| {
                *next += 1;
                Value::Enum(*e, *next - 1)
            }),
            Iter::Seats { next, end } => (*next < *end).then(|| {
                *next += 1;
                Value::Player(*next - 1)
            }),
            Iter::Numbers { next, last, done } => {
                if *done || *next > *last {
                    None
                } else {
                    let v = *next;
                    match next.checked_add(1) {
                        Some(n) => *next = n,
                        None => *done = true,
                    }
                    Some(Value::Int(v))
                }
            }
            Iter::Zone { next } => next.map(|c| {
                *next = s.zones.above(c);
                Value::Comp(c)
            }),
            Iter::Type { ty, pos } => {
                let list = &g.program.type_comps[*ty];
                list.get(*pos as usize).map(|c| {
                    *pos += 1;
                    Value::Comp(*c)
                })
            }
            Iter::Indexed { ty, base, pos, end } => {
                let mut found = None;
                while *pos < *end {
                    let word = s.index.get((*base + *pos / 64) as usize).copied();
                    let w = word.unwrap_or(0) >> (*pos % 64);
                    if w == 0 {
                        *pos = (*pos / 64 + 1) * 64;
                        continue;
                    }
                    let at = *pos + w.trailing_zeros();
                    if at >= *end {
                        *pos = *end;
                        break;
                    }
                    *pos = at + 1;
                    found = g.program.type_comps[*ty]
                        .get(at as usize)
                        .map(|&c| Value::Comp(c));
                    break;
                }
                found
            }
            Iter::Adjacent {
                board,
                pos,
                end,
                closing,
            } => (*pos < *end).then(|| {
                *pos += 1;
                let (_, adj) = g.boards[*board].adjacency(*closing);
                Value::Space(*board, adj[*pos as usize - 1])
            }),
            Iter::Ray {
                board,
                from,
                at,
                dir,
                closing,
            } => match g.boards[*board].step(*at, *dir, *closing) {
                Some(t) if t != *from => {
                    *at = t;
                    Some(Value::Space(*board, t))
                }
                _ => None,
            },
            Iter::Buf { pos, end, .. } => (*pos < *end).then(|| {
                *pos += 1;
                self.buf[*pos as usize - 1]
            }),
        };
        match v {
            Some(v) => {
                self.spend(span)?;
                Ok(Some(v))
            }
            None => {
                self.stop();
                Ok(None)
            }
        }
    }

    fn pop(&mut self) -> Value {
        self.stack.pop().unwrap_or_default()
    }

    fn top(&mut self) -> &mut Value {
        if self.stack.is_empty() {
            self.stack.push(Value::None);
        }
        let n = self.stack.len();
        &mut self.stack[n - 1]
    }
}

#[inline(always)]
fn local(locals: &[Value], l: u16) -> Value {
    locals.get(l as usize).copied().unwrap_or_default()
}

fn with(mut e: Box<RunError>, span: Option<Span>) -> Box<RunError> {
    *e = (*e).clone().or_span(span);
    e
}

#[cold]
fn bad_index(name: &str) -> Box<RunError> {
    err(format!("an index of `{name}` is out of its range"), None)
}

#[cold]
fn expected(g: &Game, s: &State, what: &str, got: Value, span: Option<Span>) -> Box<RunError> {
    err(
        format!("expected {what}, got {}", super::show_value(g, s, got)),
        span,
    )
}

#[cold]
fn index_error(g: &Game, s: &State, v: Value) -> Box<RunError> {
    err(
        format!("cannot index by {}", super::show_value(g, s, v)),
        None,
    )
}

/// The number a player, enum value or space indexes by.
#[inline(always)]
fn index_of(g: &Game, s: &State, v: Value) -> Eval<u32> {
    match v.index_pos() {
        Some(i) => Ok(i),
        // a number below the range: out of range, as one above it is
        None if matches!(v, Value::Int(_)) => Ok(u32::MAX),
        None => Err(err(
            format!("cannot index by {}", super::show_value(g, s, v)),
            None,
        )),
    }
}

#[inline(always)]
fn field(g: &Game, s: &State, c: Value, f: u16) -> Eval<Value> {
    match c {
        Value::Comp(c) if (f as usize) < g.comps[c].fields.len() => {
            Ok(s.fields[g.field_slot(c, f)])
        }
        Value::None => Err(err("a field of `none` was read (no component here)", None)),
        other => Err(err(
            format!("a field of {} was read", super::show_value(g, s, other)),
            None,
        )),
    }
}
