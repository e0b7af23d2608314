//! The machine that runs compiled expressions and collections ([`crate::ir::vm`]): a value
//! stack, an iterator stack and scratch space, reused from one evaluation to the next so that
//! a running game allocates nothing per decision. It also keeps the work budget (fuel) of the
//! decision being computed.

use super::{RunError, State};
use crate::ir::vm::{Code, Op, Operand, Program};
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
    /// Neighbours `pos..end` in a board's adjacency (the one without closed spaces when
    /// `closing`).
    Adjacent {
        board: BoardId,
        pos: u32,
        end: u32,
        closing: bool,
    },
    /// The spaces after `at` in direction `dir`.
    Ray {
        board: BoardId,
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
    pub(crate) spares: Vec<super::State>,
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
}

/// The remembered lists of one binding: per key, where its list starts in `values` and
/// its length (`u32::MAX`: not listed yet).
#[derive(Debug, Default)]
pub(crate) struct FilterTable {
    pub(crate) lists: Vec<(u32, u32)>,
    pub(crate) values: Vec<Value>,
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

fn err(msg: impl Into<String>, span: Option<Span>) -> Box<RunError> {
    Box::new(RunError::rule(msg, span))
}

mod aggregates;
mod builtins;
use builtins::binary;

impl Machine {
    /// Empties every stack and sets the budget.
    pub(crate) fn reset(&mut self, fuel: u64) {
        self.stack.clear();
        self.iters.clear();
        self.buf.clear();
        self.fuel = fuel;
        self.budget = fuel;
        self.depth = 0;
        self.stop_depth = 0;
    }

    /// A guard part's answer: remembered when the part allows it and the match is past its
    /// setup, else evaluated.
    pub(crate) fn part(
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
            Some(1) => Ok(false),
            Some(2) => Ok(true),
            _ => {
                let v = self.eval_bool(g, s, part.code, locals, me)?;
                if let Some(slot) = self.memos[id as usize].get_mut(key as usize) {
                    *slot = 1 + v as u8;
                }
                Ok(v)
            }
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
                t.values.clear();
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
    pub(crate) fn eval(
        &mut self,
        g: &Game,
        s: &State,
        code: Code,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<Value> {
        self.run_code(g, s, code, locals, me)?;
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
        // A single comparison (most guard parts) is evaluated in place.
        if code.end == code.start + 1 {
            if let Op::Cmp(i) = g.program.ops[code.start as usize] {
                return self.cmp(g, s, i, code.start, locals, me);
            }
        }
        match self.eval(g, s, code, locals, me)? {
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
        match self.eval(g, s, code, locals, me)? {
            Value::Int(n) => Ok(n),
            other => Err(expected(g, s, "a number", other, None)),
        }
    }

    /// Starts walking a compiled collection: its iterator is on top of the iterator stack.
    pub(crate) fn start(
        &mut self,
        g: &Game,
        s: &State,
        coll: Code,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<()> {
        self.run_code(g, s, coll, locals, me)
    }

    /// Drops the top iterator.
    pub(crate) fn stop(&mut self) {
        if let Some(Iter::Buf { start, .. }) = self.iters.pop() {
            self.buf.truncate(start as usize);
        }
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
                at,
                dir,
                closing,
            } => g.boards[*board].step(*at, *dir, *closing).map(|t| {
                *at = t;
                Value::Space(*board, t)
            }),
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

    /// Runs ops `code.start..code.end` (the values they leave stay on the stack). The
    /// common ops are handled here, in a small loop; the others in [`Machine::slow_op`].
    pub(crate) fn run_code(
        &mut self,
        g: &Game,
        s: &State,
        code: Code,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<()> {
        let ops = &g.program.ops[..];
        let mut pc = code.start;
        while pc < code.end {
            let op = ops[pc as usize];
            pc += 1;
            match op {
                Op::Int(n) => self.stack.push(Value::Int(n as i64)),
                Op::Local(l) => self.stack.push(local(locals, l)),
                Op::Me => self.stack.push(Value::Player(me)),
                Op::Slot(n) => self.stack.push(s.vars[n as usize]),
                Op::LocalField(l, f) => {
                    let v = field(g, s, local(locals, l), f)?;
                    self.stack.push(v);
                }
                Op::Cmp(i) => {
                    let v = self.cmp(g, s, i, pc - 1, locals, me)?;
                    // A comparison followed by a branch on it (an `if`, `and`, `or`) branches
                    // at once: the flag never goes through the stack. Only the path falling
                    // through from the comparison is fused; a jump to the branch runs it.
                    match (pc < code.end).then(|| ops[pc as usize]) {
                        Some(Op::JumpIfNot(t)) => pc = if v { pc + 1 } else { t },
                        Some(Op::AndJump(t)) if !v => {
                            self.stack.push(Value::Bool(false));
                            pc = t;
                        }
                        Some(Op::OrJump(t)) if v => {
                            self.stack.push(Value::Bool(true));
                            pc = t;
                        }
                        Some(Op::AndJump(_) | Op::OrJump(_)) => pc += 1,
                        _ => self.stack.push(Value::Bool(v)),
                    }
                }
                Op::AndJump(t) | Op::OrJump(t) => {
                    let jump_on = matches!(op, Op::OrJump(_));
                    match self.stack.last().copied() {
                        Some(Value::Bool(b)) if b == jump_on => pc = t,
                        Some(Value::Bool(_)) => {
                            self.stack.pop();
                        }
                        _ => self.slow_op(g, s, op, &mut pc, locals, me)?,
                    }
                }
                Op::VarLocal(v, l) => {
                    let var = &g.vars[v];
                    let i = index_of(g, s, local(locals, l))?;
                    if i >= var.sizes[0] {
                        return Err(bad_index(&var.name));
                    }
                    self.stack.push(s.vars[(var.base + i) as usize]);
                }
                Op::Bin(op) => {
                    let b = self.pop();
                    let a = self.pop();
                    let v = match (op, a, b) {
                        (BinOp::Add, Value::Int(x), Value::Int(y))
                            if x.checked_add(y).is_some() =>
                        {
                            Value::Int(x + y)
                        }
                        (BinOp::Sub, Value::Int(x), Value::Int(y))
                            if x.checked_sub(y).is_some() =>
                        {
                            Value::Int(x - y)
                        }
                        (BinOp::Eq, a, b) => Value::Bool(a == b),
                        (BinOp::Ne, a, b) => Value::Bool(a != b),
                        (BinOp::Lt, Value::Int(x), Value::Int(y)) => Value::Bool(x < y),
                        (BinOp::Gt, Value::Int(x), Value::Int(y)) => Value::Bool(x > y),
                        (op, a, b) => binary(g, s, op, a, b)
                            .map_err(|e| with(e, g.program.span_at(pc - 1)))?,
                    };
                    self.stack.push(v);
                }
                Op::IsMe => {
                    let v = self.pop();
                    self.stack.push(Value::Bool(v == Value::Player(me)));
                }
                Op::IsNone => {
                    let v = self.pop();
                    self.stack.push(Value::Bool(v == Value::None));
                }
                Op::Jump(t) => pc = t,
                Op::JumpIfNot(t) => match self.stack.pop() {
                    Some(Value::Bool(true)) => {}
                    Some(Value::Bool(false)) => pc = t,
                    other => {
                        return Err(expected(
                            g,
                            s,
                            "true or false",
                            other.unwrap_or_default(),
                            None,
                        ))
                    }
                },
                Op::Lit(i) => self.stack.push(g.program.lits[i as usize]),
                Op::None => self.stack.push(Value::None),
                Op::Const(c) => self.stack.push(s.consts[c]),
                Op::Inst(i) => self.stack.push(Value::Zone(i)),
                Op::ZoneLocal(z, l) => {
                    let zone = &g.zones[z];
                    let i = index_of(g, s, local(locals, l))?;
                    if i >= zone.sizes[0] {
                        return Err(bad_index(&zone.name));
                    }
                    self.stack.push(Value::Zone(InstId(zone.base.0 + i)));
                }
                Op::Field(f) => {
                    let c = self.pop();
                    self.stack.push(field(g, s, c, f)?);
                }
                Op::Not => match self.pop() {
                    Value::Bool(b) => self.stack.push(Value::Bool(!b)),
                    other => return Err(expected(g, s, "true or false", other, None)),
                },
                Op::NotNone => {
                    let v = self.pop();
                    self.stack.push(Value::Bool(v != Value::None));
                }
                Op::Pop => {
                    self.stack.pop();
                }
                Op::Builtin(b) => {
                    let v = self
                        .builtin(g, s, b)
                        .map_err(|e| with(e, g.program.span_at(pc - 1)))?;
                    self.stack.push(v);
                }
                Op::Call(d) => self.call(g, s, d, me)?,
                Op::IterNext { slot, exit } => match self
                    .next(g, s, None)
                    .map_err(|e| with(e, g.program.span_at(pc - 1)))?
                {
                    Some(v) => {
                        if let Some(l) = locals.get_mut(slot as usize) {
                            *l = v;
                        }
                    }
                    None => pc = exit,
                },
                Op::AccCount => {
                    if let Value::Int(n) = self.top() {
                        *n += 1;
                    }
                }
                _ => self.slow_op(g, s, op, &mut pc, locals, me)?,
            }
        }
        Ok(())
    }

    /// A comparison of two simple operands.
    #[inline]
    pub(crate) fn cmp(
        &mut self,
        g: &Game,
        s: &State,
        i: u32,
        pc: u32,
        locals: &[Value],
        me: u8,
    ) -> Eval<bool> {
        // The common case, kept small: operands that read without failing, compared as
        // equal or unequal values or ordered numbers.
        let c = &g.program.cmps[i as usize];
        if let (Some(a), Some(b)) = (quick(g, s, c.a, locals, me), quick(g, s, c.b, locals, me)) {
            match (c.op, a, b) {
                (BinOp::Eq, a, b) => return Ok(a == b),
                (BinOp::Ne, a, b) => return Ok(a != b),
                (BinOp::Lt, Value::Int(x), Value::Int(y)) => return Ok(x < y),
                (BinOp::Le, Value::Int(x), Value::Int(y)) => return Ok(x <= y),
                (BinOp::Gt, Value::Int(x), Value::Int(y)) => return Ok(x > y),
                (BinOp::Ge, Value::Int(x), Value::Int(y)) => return Ok(x >= y),
                _ => {}
            }
        }
        self.cmp_full(g, s, i, pc, locals, me)
    }

    /// [`Machine::cmp`] for any operands, errors included.
    #[inline(never)]
    fn cmp_full(
        &mut self,
        g: &Game,
        s: &State,
        i: u32,
        pc: u32,
        locals: &[Value],
        me: u8,
    ) -> Eval<bool> {
        let p = &g.program;
        let c = p.cmps[i as usize];
        let a = operand(g, s, c.a, locals, me)?;
        let b = operand(g, s, c.b, locals, me)?;
        Ok(match (c.op, a, b) {
            (BinOp::Eq, a, b) => a == b,
            (BinOp::Ne, a, b) => a != b,
            (BinOp::Lt, Value::Int(x), Value::Int(y)) => x < y,
            (BinOp::Le, Value::Int(x), Value::Int(y)) => x <= y,
            (BinOp::Gt, Value::Int(x), Value::Int(y)) => x > y,
            (BinOp::Ge, Value::Int(x), Value::Int(y)) => x >= y,
            (op, a, b) => {
                binary(g, s, op, a, b).map_err(|e| with(e, p.span_at(pc)))? == Value::Bool(true)
            }
        })
    }

    /// Every op, the rare ones included (kept out of the small loop of [`Machine::run_code`]).
    #[inline(never)]
    fn slow_op(
        &mut self,
        g: &Game,
        s: &State,
        op: Op,
        pc: &mut u32,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<()> {
        let p = &g.program;
        match op {
            Op::Int(n) => self.stack.push(Value::Int(n as i64)),
            Op::Lit(i) => self.stack.push(p.lits[i as usize]),
            Op::None => self.stack.push(Value::None),
            Op::Local(l) => self.stack.push(local(locals, l)),
            Op::Me => self.stack.push(Value::Player(me)),
            Op::Current => self
                .stack
                .push(s.current.map_or(Value::None, Value::Player)),
            Op::PlayerCount => self.stack.push(Value::Int(s.players as i64)),
            Op::Const(c) => self.stack.push(s.consts[c]),
            Op::Slot(n) => self.stack.push(s.vars[n as usize]),
            Op::Var(v) => {
                let slot = self.var_slot(g, s, v)?;
                self.stack.push(s.vars[slot]);
            }
            Op::VarLocal(v, l) => {
                let var = &g.vars[v];
                let i = index_of(g, s, local(locals, l))?;
                if i >= var.sizes[0] {
                    return Err(bad_index(&var.name));
                }
                self.stack.push(s.vars[(var.base + i) as usize]);
            }
            Op::Inst(i) => self.stack.push(Value::Zone(i)),
            Op::Zone(z) => {
                let inst = self.zone_inst(g, s, z)?;
                self.stack.push(Value::Zone(inst));
            }
            Op::ZoneLocal(z, l) => {
                let zone = &g.zones[z];
                let i = index_of(g, s, local(locals, l))?;
                if i >= zone.sizes[0] {
                    return Err(bad_index(&zone.name));
                }
                self.stack.push(Value::Zone(InstId(zone.base.0 + i)));
            }
            Op::Field(f) => {
                let c = self.pop();
                self.stack.push(field(g, s, c, f)?);
            }
            Op::LocalField(l, f) => {
                let v = field(g, s, local(locals, l), f)?;
                self.stack.push(v);
            }
            Op::Not => {
                let v = self.pop();
                match v {
                    Value::Bool(b) => self.stack.push(Value::Bool(!b)),
                    other => return Err(expected(g, s, "true or false", other, None)),
                }
            }
            Op::Neg => match self.pop() {
                Value::Int(n) => match n.checked_neg() {
                    Some(m) => self.stack.push(Value::Int(m)),
                    None => return Err(err("arithmetic overflow in `-`", None)),
                },
                other => return Err(expected(g, s, "a number", other, None)),
            },
            Op::Bin(op) => {
                let b = self.pop();
                let a = self.pop();
                let v = binary(g, s, op, a, b).map_err(|e| with(e, p.span_at(*pc - 1)))?;
                self.stack.push(v);
            }
            Op::IsNone => {
                let v = self.pop();
                self.stack.push(Value::Bool(v == Value::None));
            }
            Op::NotNone => {
                let v = self.pop();
                self.stack.push(Value::Bool(v != Value::None));
            }
            Op::IsMe => {
                let v = self.pop();
                self.stack.push(Value::Bool(v == Value::Player(me)));
            }
            Op::Cmp(i) => {
                let v = self.cmp(g, s, i, *pc - 1, locals, me)?;
                self.stack.push(Value::Bool(v));
            }
            Op::Jump(t) => *pc = t,
            Op::JumpIfNot(t) => match self.pop() {
                Value::Bool(true) => {}
                Value::Bool(false) => *pc = t,
                other => return Err(expected(g, s, "true or false", other, None)),
            },
            Op::AndJump(t) | Op::OrJump(t) => {
                let jump_on = matches!(op, Op::OrJump(_));
                match *self.top() {
                    Value::Bool(b) if b == jump_on => *pc = t,
                    Value::Bool(_) => {
                        self.stack.pop();
                    }
                    other => {
                        return Err(expected(g, s, "true or false", other, p.span_at(*pc - 1)))
                    }
                }
            }
            Op::ElseJump(t) => {
                if *self.top() != Value::None {
                    *pc = t;
                } else {
                    self.stack.pop();
                }
            }
            Op::Pop => {
                self.stack.pop();
            }
            Op::Builtin(b) => {
                let v = self
                    .builtin(g, s, b)
                    .map_err(|e| with(e, p.span_at(*pc - 1)))?;
                self.stack.push(v);
            }
            Op::Call(d) => self.call(g, s, d, me)?,
            Op::IterZone => match self.pop() {
                Value::Zone(z) => self.iters.push(Iter::Zone {
                    next: s.zones.bottom(z),
                }),
                other => return Err(expected(g, s, "a zone", other, None)),
            },
            Op::IterRange => {
                let (b, a) = (self.pop(), self.pop());
                match (a, b) {
                    (Value::Int(a), Value::Int(b)) => self.iters.push(Iter::Numbers {
                        next: a,
                        last: b,
                        done: false,
                    }),
                    (Value::Int(_), other) | (other, _) => {
                        return Err(expected(g, s, "a number", other, None))
                    }
                }
            }
            Op::IterBoard(b) => self.iters.push(Iter::Spaces {
                board: b,
                next: 0,
                end: g.boards[b].len(),
                closing: g.boards[b].closing(&s.consts),
            }),
            Op::IterEnum(e) => self.iters.push(Iter::Values {
                e,
                next: 0,
                end: g.enums[e].values.len() as u16,
            }),
            Op::IterType(ty) => self.iters.push(Iter::Type { ty, pos: 0 }),
            Op::IterPlayers => self.iters.push(Iter::Seats {
                next: 0,
                end: s.players,
            }),
            Op::IterList(n) => {
                let from = self.stack.len().saturating_sub(n as usize);
                let start = self.buf.len() as u32;
                self.buf.extend(self.stack.drain(from..));
                self.iters.push(Iter::Buf {
                    start,
                    pos: start,
                    end: self.buf.len() as u32,
                });
            }
            Op::IterAdjacent => match self.pop() {
                Value::Space(b, sp) => {
                    let board = &g.boards[b];
                    let closing = board.closing(&s.consts);
                    let (starts, _) = board.adjacency(closing);
                    self.iters.push(Iter::Adjacent {
                        board: b,
                        pos: starts[sp as usize],
                        end: starts[sp as usize + 1],
                        closing,
                    })
                }
                Value::None => self.iters.push(Iter::Seats { next: 0, end: 0 }),
                other => return Err(expected(g, s, "a space", other, None)),
            },
            Op::IterRay => {
                let d = self.pop();
                match (self.pop(), d) {
                    (Value::Space(b, sp), Value::Enum(_, dir)) => {
                        let board = &g.boards[b];
                        self.iters.push(Iter::Ray {
                            board: b,
                            at: sp,
                            dir,
                            closing: board.closing(&s.consts),
                        })
                    }
                    (Value::None, _) | (_, Value::None) => {
                        self.iters.push(Iter::Seats { next: 0, end: 0 })
                    }
                    (Value::Space(..), other) => {
                        return Err(expected(g, s, "a direction", other, None))
                    }
                    (other, _) => return Err(expected(g, s, "a space", other, None)),
                }
            }
            Op::IterPaths(id) => {
                let steps = self.pop();
                let from = self.pop();
                self.paths(g, s, id, from, steps, locals, me)?;
            }
            Op::IterGroup(id) => {
                let start = self.pop();
                self.group(g, s, id, start, locals, me)?;
            }
            Op::IterGroups(id) => self.groups(g, s, id, locals, me)?,
            Op::IterNext { slot, exit } => match self.next(g, s, p.span_at(*pc - 1))? {
                Some(v) => {
                    if let Some(l) = locals.get_mut(slot as usize) {
                        *l = v;
                    }
                }
                None => *pc = exit,
            },
            Op::IterEnd => self.stop(),
            Op::AccCount => {
                if let Value::Int(n) = self.top() {
                    *n += 1;
                }
            }
            Op::AccSum => {
                let v = self.pop();
                let at = p.span_at(*pc - 1);
                let Value::Int(x) = v else {
                    return Err(err("`sum` needs numbers", at));
                };
                if let Value::Int(n) = self.top() {
                    *n = n
                        .checked_add(x)
                        .ok_or_else(|| err("arithmetic overflow in `sum`", at))?;
                }
            }
            Op::AccMax(max) => {
                let Value::Int(x) = self.pop() else {
                    return Err(err("`max`/`min` need numbers", p.span_at(*pc - 1)));
                };
                let top = self.top();
                *top = match *top {
                    Value::Int(m) if (max && m >= x) || (!max && m <= x) => Value::Int(m),
                    _ => Value::Int(x),
                };
            }
            Op::Line(id) => {
                let v = self.line(g, s, id, locals, me)?;
                self.stack.push(Value::Bool(v));
            }
            Op::BestSets(id) => {
                let v = self.best_sets(g, s, id, locals, me, p.span_at(*pc - 1))?;
                self.stack.push(Value::Int(v));
            }
            Op::Connected(id) => {
                let v = self
                    .connected(g, s, id, locals, me)
                    .map_err(|e| with(e, p.span_at(*pc - 1)))?;
                self.stack.push(Value::Bool(v));
            }
            Op::Majority(id) => {
                let v = self.majority(g, s, id, locals, me, p.span_at(*pc - 1))?;
                self.stack.push(Value::Int(v));
            }
        }
        Ok(())
    }

    #[inline(never)]
    fn var_slot(&mut self, g: &Game, s: &State, v: VarId) -> Eval<usize> {
        let var = &g.vars[v];
        let k = self.pop_index(g, s, &var.sizes[..var.dims.len()], &var.name)?;
        Ok((var.base + k) as usize)
    }

    #[inline(never)]
    fn zone_inst(&mut self, g: &Game, s: &State, z: ZoneId) -> Eval<InstId> {
        let zone = &g.zones[z];
        let k = self.pop_index(g, s, &zone.sizes[..zone.dims.len()], &zone.name)?;
        Ok(InstId(zone.base.0 + k))
    }

    /// Pops one index value per dimension (the last on top) and combines them into an offset
    /// within a variable's slots or a zone's instances; an index out of range is an error
    /// naming `name`.
    fn pop_index(&mut self, g: &Game, s: &State, sizes: &[u32], name: &str) -> Eval<u32> {
        let mut k = 0u32;
        let from = self.stack.len().saturating_sub(sizes.len());
        for (i, x) in self.stack.drain(from..).enumerate() {
            let idx = index_of(g, s, x)?;
            if idx >= sizes[i] {
                return Err(bad_index(name));
            }
            k = k * sizes[i] + idx;
        }
        Ok(k)
    }

    /// Pops the slot of a variable's indexes (the code of a [`Target::Var`]'s index).
    pub(crate) fn target_slot(&mut self, g: &Game, s: &State, v: VarId) -> Eval<usize> {
        self.var_slot(g, s, v)
    }

    #[inline(never)]
    fn call(&mut self, g: &Game, s: &State, d: DefId, me: u8) -> Eval<()> {
        let def = &g.program.defs[d];
        if self.depth >= MAX_CALL_DEPTH {
            return Err(err(
                format!(
                    "function `{}` calls functions more than {MAX_CALL_DEPTH} deep",
                    g.defs[d].name
                ),
                None,
            ));
        }
        let mut dl = [Value::None; DEF_LOCALS];
        let n = (def.params as usize).min(DEF_LOCALS);
        for i in (0..n).rev() {
            dl[i] = self.pop();
        }
        self.depth += 1;
        let r = self.run_code(g, s, def.body, &mut dl[..], me);
        self.depth -= 1;
        r
    }
}

/// The value of a comparison's operand when it reads without failing (`None`: read it with
/// [`operand`], which tells why it fails).
#[inline(always)]
fn quick(g: &Game, s: &State, o: Operand, locals: &[Value], me: u8) -> Option<Value> {
    match o {
        Operand::Lit(i) => g.program.lits.get(i as usize).copied(),
        Operand::Const(c) => Some(s.consts[c]),
        Operand::LocalField(l, f) => match locals.get(l as usize)? {
            Value::Comp(c) => {
                let comp = &g.comps[*c];
                if (f as usize) < comp.fields.len() {
                    s.fields.get(comp.field_base as usize + f as usize).copied()
                } else {
                    None
                }
            }
            _ => None,
        },
        Operand::Local(l) => locals.get(l as usize).copied(),
        Operand::Me => Some(Value::Player(me)),
        Operand::None => Some(Value::None),
        Operand::Int(n) => Some(Value::Int(n as i64)),
        Operand::Slot(n) => s.vars.get(n as usize).copied(),
        Operand::VarAt { base, size, slot } => {
            let i = match locals.get(slot as usize)? {
                Value::Space(_, i) => *i,
                Value::Player(p) => *p as u32,
                Value::Enum(_, i) => *i as u32,
                _ => return None,
            };
            if i >= size as u32 {
                return None;
            }
            s.vars.get((base + i) as usize).copied()
        }
    }
}

/// The value of a comparison's operand.
#[inline(always)]
fn operand(g: &Game, s: &State, o: Operand, locals: &[Value], me: u8) -> Eval<Value> {
    Ok(match o {
        Operand::Local(l) => local(locals, l),
        Operand::Me => Value::Player(me),
        Operand::None => Value::None,
        Operand::Int(n) => Value::Int(n as i64),
        Operand::Lit(i) => g.program.lits[i as usize],
        Operand::Const(c) => s.consts[c],
        Operand::Slot(n) => s.vars[n as usize],
        Operand::VarAt { base, size, slot } => {
            let i = match local(locals, slot) {
                Value::Space(_, i) => i,
                Value::Player(p) => p as u32,
                Value::Enum(_, i) => i as u32,
                other => return Err(index_error(g, s, other)),
            };
            if i >= size as u32 {
                return Err(err("an index is out of its range", None));
            }
            s.vars[(base + i) as usize]
        }
        Operand::LocalField(l, f) => field(g, s, local(locals, l), f)?,
    })
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
    match v {
        Value::Player(p) => Ok(p as u32),
        Value::Enum(_, i) => Ok(i as u32),
        Value::Space(_, sp) => Ok(sp),
        other => Err(err(
            format!("cannot index by {}", super::show_value(g, s, other)),
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
