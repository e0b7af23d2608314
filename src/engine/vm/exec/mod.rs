//! Running compiled code: the small loop of the common ops and every other op.

use super::*;
use crate::ir::vm::{Code, Op, WalkKind};

mod slow;

impl Machine {
    /// Runs ops `code.start..code.end` (the values they leave stay on the stack). Code of
    /// one op that only reads a value (most of the flow's expressions: `me`, a local, a
    /// zone) is read here, without the set-up of the op loop ([`Machine::run_ops`]), which
    /// costs more than such an op itself.
    #[inline(always)]
    pub(crate) fn run_code(
        &mut self,
        g: &Game,
        s: &State,
        code: Code,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<()> {
        if code.end == code.start + 1 {
            if let Some(v) = read_op(g, s, code, locals, me) {
                self.stack.push(v?);
                return Ok(());
            }
        }
        self.run_ops(g, s, code, locals, me)
    }

    /// The op loop of [`Machine::run_code`]: the common ops are handled here, the others in
    /// [`Machine::slow_op`].
    #[inline(never)]
    pub(super) fn run_ops(
        &mut self,
        g: &Game,
        s: &State,
        code: Code,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<()> {
        // `g` and `s` pass a barrier on entry, so that the compiler leaves each table's
        // address to the ops that read it (not twenty loaded before the first op); the ops
        // up to the code's end: one test per op both ends the code and keeps the read in
        // bounds.
        let (g, s) = (std::hint::black_box(g), std::hint::black_box(s));
        debug_assert!(
            code.end as usize <= g.program.ops.len(),
            "code past the ops"
        );
        let ops = g.program.ops.get(..code.end as usize).unwrap_or_default();
        let mut pc = code.start;
        while let Some(&op) = ops.get(pc as usize) {
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
                Op::Cmp(i) => pc = self.cmp_op(g, s, i, ops, pc, locals, me)?,
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
                    let x = var_local(g, s, v, local(locals, l))?;
                    self.stack.push(x);
                }
                Op::Bin(op) => self.bin_op(g, s, op, pc)?,
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
                    other => return Err(not_bool(g, s, other.unwrap_or_default())),
                },
                Op::Lit(i) => self.stack.push(g.program.lits[i as usize]),
                Op::None => self.stack.push(Value::None),
                Op::Const(c) => self.stack.push(s.consts[c]),
                Op::Inst(i) => self.stack.push(Value::Zone(i)),
                Op::ZoneLocal(z, l) => {
                    let inst = zone_local(g, s, z, local(locals, l))?;
                    self.stack.push(Value::Zone(inst));
                }
                Op::ZoneMe(z) => self.stack.push(Value::Zone(zone_me(g, z, me)?)),
                Op::Zone2(_) | Op::ZoneMeLocal(..) | Op::VarMe(_) | Op::Var2(_) => {
                    let v = self.indexed_op(g, s, op, locals, me)?;
                    self.stack.push(v);
                }
                Op::IterZone | Op::ZoneWalk(_) => {
                    pc = self.zone_loop_op(g, s, op, ops, pc, locals, me)?
                }
                Op::Field(f) => {
                    let c = self.pop();
                    self.stack.push(field(g, s, c, f)?);
                }
                Op::Not => match self.pop() {
                    Value::Bool(b) => self.stack.push(Value::Bool(!b)),
                    other => return Err(not_bool(g, s, other)),
                },
                Op::NotNone => {
                    let v = self.pop();
                    self.stack.push(Value::Bool(v != Value::None));
                }
                Op::Pop => {
                    self.stack.pop();
                }
                Op::SetLocal(l) => {
                    let v = self.pop();
                    if let Some(x) = locals.get_mut(l as usize) {
                        *x = v;
                    }
                }
                Op::Builtin(b) => {
                    let v = self
                        .builtin(g, s, b)
                        .map_err(|e| with(e, g.program.span_at(pc - 1)))?;
                    self.stack.push(v);
                }
                Op::Call(d) => self.call(g, s, d, me)?,
                Op::IterNext { slot, exit } => {
                    if !self.iter_next_op(g, s, slot, pc, locals)? {
                        pc = exit;
                    }
                }
                Op::AccCount => {
                    if let Value::Int(n) = self.top() {
                        *n += 1;
                    }
                }
                Op::Line(id) => {
                    let v = self.line(g, s, id, locals, me)?;
                    self.stack.push(Value::Bool(v));
                }
                Op::IterEnd => self.stop(),
                Op::Var(_)
                | Op::Zone(_)
                | Op::ElseJump(_)
                | Op::IterRange
                | Op::IterEnum(_)
                | Op::IterType(_)
                | Op::IterPlayers
                | Op::AccSum
                | Op::AccMax(_) => self.mid_op(g, s, op, &mut pc)?,
                // Every op named (no catch-all), so that the dispatch needs no range test.
                Op::Current
                | Op::PlayerCount
                | Op::Neg
                | Op::IterBoard(_)
                | Op::IterList(_)
                | Op::IterAdjacent
                | Op::IterRay
                | Op::IterRays(_)
                | Op::IterPaths(_)
                | Op::IterGroup(_)
                | Op::IterGroups(_)
                | Op::BestSets(_)
                | Op::Connected(_)
                | Op::Majority(_)
                | Op::After(_)
                | Op::IterIndexed(_)
                | Op::Native(_) => self.slow_op(g, s, op, &mut pc, locals, me)?,
            }
        }
        Ok(())
    }

    /// `Op::Cmp(i)` at `pc - 1`: the comparison, and where the loop goes on. Followed by a
    /// branch on it (an `if`, `and`, `or`), it branches at once: the flag never goes through
    /// the stack. Only the path falling through from the comparison is fused; a jump to the
    /// branch runs it.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn cmp_op(
        &mut self,
        g: &Game,
        s: &State,
        i: u32,
        ops: &[Op],
        pc: u32,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<u32> {
        let v = self.cmp_inline(g, s, i, pc - 1, locals, me)?;
        Ok(match ops.get(pc as usize) {
            Some(&Op::JumpIfNot(t)) => {
                if v {
                    pc + 1
                } else {
                    t
                }
            }
            Some(&Op::AndJump(t)) if !v => {
                self.stack.push(Value::Bool(false));
                t
            }
            Some(&Op::OrJump(t)) if v => {
                self.stack.push(Value::Bool(true));
                t
            }
            Some(Op::AndJump(_) | Op::OrJump(_)) => pc + 1,
            _ => {
                self.stack.push(Value::Bool(v));
                pc
            }
        })
    }

    /// `Op::Bin(op)` at `pc - 1` on the two values on top of the stack: the common cases of
    /// numbers and equality here, the others by [`binary`].
    #[inline(always)]
    fn bin_op(&mut self, g: &Game, s: &State, op: BinOp, pc: u32) -> Eval<()> {
        let b = self.pop();
        let a = self.pop();
        let v = match (op, a, b) {
            (BinOp::Add, Value::Int(x), Value::Int(y)) if x.checked_add(y).is_some() => {
                Value::Int(x + y)
            }
            (BinOp::Sub, Value::Int(x), Value::Int(y)) if x.checked_sub(y).is_some() => {
                Value::Int(x - y)
            }
            (BinOp::Eq, a, b) => Value::Bool(a == b),
            (BinOp::Ne, a, b) => Value::Bool(a != b),
            (BinOp::Lt, Value::Int(x), Value::Int(y)) => Value::Bool(x < y),
            (BinOp::Gt, Value::Int(x), Value::Int(y)) => Value::Bool(x > y),
            (op, a, b) => binary(g, s, op, a, b).map_err(|e| with(e, g.program.span_at(pc - 1)))?,
        };
        self.stack.push(v);
        Ok(())
    }

    /// `Op::IterNext` at `pc - 1`: the loop's next element written to local `slot` (true),
    /// or the loop is over (false).
    #[inline(always)]
    fn iter_next_op(
        &mut self,
        g: &Game,
        s: &State,
        slot: u16,
        pc: u32,
        locals: &mut [Value],
    ) -> Eval<bool> {
        // The walks of a zone and of the players step here; the others (and
        // running out of work, with its error) in `next`.
        let quick = match self.iters.last_mut() {
            Some(Iter::Zone { next }) if self.fuel > 0 => Some(next.map(|c| {
                *next = s.zones.above(c);
                Value::Comp(c)
            })),
            Some(Iter::Seats { next, end }) if self.fuel > 0 => Some((*next < *end).then(|| {
                *next += 1;
                Value::Player(*next - 1)
            })),
            _ => None,
        };
        let v = match quick {
            Some(Some(v)) => {
                self.fuel -= 1;
                Some(v)
            }
            Some(None) => {
                self.stop();
                None
            }
            None => self
                .next(g, s, None)
                .map_err(|e| with(e, g.program.span_at(pc - 1)))?,
        };
        match v {
            Some(v) => {
                if let Some(l) = locals.get_mut(slot as usize) {
                    *l = v;
                }
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The reads of an indexed zone instance or variable: `zone[a, b]`, `zone[me, l]`,
    /// `var[me]`, `var[a, b]`.
    #[inline(always)]
    fn indexed_op(
        &mut self,
        g: &Game,
        s: &State,
        op: Op,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<Value> {
        Ok(match op {
            Op::Zone2(i) => Value::Zone(zone2(g, s, i, locals)?),
            Op::ZoneMeLocal(z, l) => Value::Zone(zone_me_local(g, s, z, me, locals, l)?),
            Op::VarMe(v) => var_me(g, s, v, me)?,
            Op::Var2(i) => self.var2(g, s, i, locals)?,
            _ => Value::None,
        })
    }

    /// The start of a loop over a zone's components (`IterZone`), or the loop walked in
    /// place (`ZoneWalk`, an empty zone leaving the loop at once, as its `IterNext` would):
    /// where the op loop goes on.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn zone_loop_op(
        &mut self,
        g: &Game,
        s: &State,
        op: Op,
        ops: &[Op],
        pc: u32,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<u32> {
        let z = match self.pop() {
            Value::Zone(z) => z,
            other => return Err(not_zone(g, s, other)),
        };
        Ok(match op {
            Op::ZoneWalk(w) => match (s.zones.bottom(z), ops.get(pc as usize)) {
                (None, Some(&Op::IterNext { exit, .. })) => exit,
                (next, _) => self.zone_walk(g, s, w, next, pc, locals, me)?,
            },
            _ => {
                self.iters.push(Iter::Zone {
                    next: s.zones.bottom(z),
                });
                pc
            }
        })
    }

    /// The ops of middling frequency (walks of zones, boards, players; sums; indexed
    /// variables and zones): a function smaller than [`Machine::slow_op`], so cheaper to
    /// enter from the op loop.
    #[inline(never)]
    fn mid_op(&mut self, g: &Game, s: &State, op: Op, pc: &mut u32) -> Eval<()> {
        let p = &g.program;
        match op {
            Op::Var(v) => {
                let slot = self.var_slot(g, s, v)?;
                self.stack.push(s.vars[slot]);
            }
            Op::Zone(z) => {
                let inst = self.zone_inst(g, s, z)?;
                self.stack.push(Value::Zone(inst));
            }
            Op::ElseJump(t) => match self.stack.last() {
                Some(Value::None) => {
                    self.stack.pop();
                }
                Some(_) => *pc = t,
                // `none` taken from an empty stack: nothing to keep or to pop.
                None => {}
            },
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
            Op::AccSum => {
                let v = self.pop();
                let Value::Int(x) = v else {
                    return Err(err("`sum` needs numbers", p.span_at(*pc - 1)));
                };
                if let Value::Int(n) = self.top() {
                    *n = n
                        .checked_add(x)
                        .ok_or_else(|| err("arithmetic overflow in `sum`", p.span_at(*pc - 1)))?;
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
            // the two dispatch lists that call this one name exactly the ops above
            _ => {
                return Err(err(
                    "internal error: an op reached the wrong part of the machine",
                    p.span_at(*pc - 1),
                ))
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
        for (i, &size) in sizes.iter().enumerate() {
            let x = self.stack.get(from + i).copied().unwrap_or_default();
            let idx = index_of(g, s, x)?;
            if idx >= size {
                return Err(bad_index(name));
            }
            k = k * size + idx;
        }
        self.stack.truncate(from);
        Ok(k)
    }

    /// Pops the slot of a variable's indexes (the code of a [`Target::Var`]'s index).
    pub(crate) fn target_slot(&mut self, g: &Game, s: &State, v: VarId) -> Eval<usize> {
        self.var_slot(g, s, v)
    }

    #[inline(never)]
    fn call(&mut self, g: &Game, s: &State, d: DefId, me: u8) -> Eval<()> {
        let def = &g.program.defs[d];
        if def.remember && (def.params as usize) <= calls::CALL_ARGS {
            return self.call_remembered(g, s, d, me);
        }
        self.call_body(g, s, d, me)
    }

    /// Runs function `d`'s body on the arguments on top of the stack (popped); its result
    /// is left on the stack.
    pub(super) fn call_body(&mut self, g: &Game, s: &State, d: DefId, me: u8) -> Eval<()> {
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

/// `var[x]` of a variable of one dimension (`Op::VarLocal`), the index checked.
#[inline(always)]
fn var_local(g: &Game, s: &State, v: VarId, x: Value) -> Eval<Value> {
    let var = &g.vars[v];
    let i = index_of(g, s, x)?;
    if i >= var.sizes[0] {
        return Err(bad_index(&var.name));
    }
    Ok(s.vars[(var.base + i) as usize])
}

/// `zone[x]` of a zone of one dimension (`Op::ZoneLocal`), the index checked.
#[inline(always)]
fn zone_local(g: &Game, s: &State, z: ZoneId, x: Value) -> Eval<InstId> {
    let zone = &g.zones[z];
    let i = index_of(g, s, x)?;
    if i >= zone.sizes[0] {
        return Err(bad_index(&zone.name));
    }
    Ok(InstId(zone.base.0 + i))
}

/// The error of a value that should be true or false.
#[cold]
#[inline(never)]
fn not_bool(g: &Game, s: &State, v: Value) -> Box<RunError> {
    expected(g, s, "true or false", v, None)
}

/// The error of a value that should be a zone.
#[cold]
#[inline(never)]
fn not_zone(g: &Game, s: &State, v: Value) -> Box<RunError> {
    expected(g, s, "a zone", v, None)
}

/// The value of code made of one op that only reads (a number, `none`, `me`, a local, a
/// variable slot, a constant, a zone, `var[local]`, `var[me]`, a local's field), as the op
/// loop would push it (errors included); `None` for any other code.
#[inline(always)]
pub(super) fn read_op(
    g: &Game,
    s: &State,
    code: Code,
    locals: &[Value],
    me: u8,
) -> Option<Eval<Value>> {
    let op = *g.program.ops.get(code.start as usize)?;
    Some(Ok(match op {
        Op::Int(n) => Value::Int(n as i64),
        Op::Lit(i) => g.program.lits[i as usize],
        Op::None => Value::None,
        Op::Local(l) => local(locals, l),
        Op::Me => Value::Player(me),
        Op::Current => s.current.map_or(Value::None, Value::Player),
        Op::Slot(n) => s.vars[n as usize],
        Op::Const(c) => s.consts[c],
        Op::Inst(i) => Value::Zone(i),
        Op::LocalField(l, f) => return Some(field(g, s, local(locals, l), f)),
        Op::ZoneMe(z) => return Some(zone_me(g, z, me).map(Value::Zone)),
        Op::Zone2(i) => return Some(zone2(g, s, i, locals).map(Value::Zone)),
        Op::ZoneMeLocal(z, l) => {
            return Some(zone_me_local(g, s, z, me, locals, l).map(Value::Zone))
        }
        Op::VarMe(v) => return Some(var_me(g, s, v, me)),
        Op::VarLocal(v, l) => {
            let var = &g.vars[v];
            let i = match index_of(g, s, local(locals, l)) {
                Ok(i) => i,
                Err(e) => return Some(Err(e)),
            };
            if i >= var.sizes[0] {
                return Some(Err(bad_index(&var.name)));
            }
            s.vars[(var.base + i) as usize]
        }
        _ => return None,
    }))
}

/// `zone[me]` of a zone of one dimension ([`Op::ZoneMe`]), failing as [`Op::Zone`] would.
#[inline(always)]
fn zone_me(g: &Game, z: ZoneId, me: u8) -> Eval<InstId> {
    let zone = &g.zones[z];
    if me as u32 >= zone.sizes.first().copied().unwrap_or(0) {
        return Err(bad_index(&zone.name));
    }
    Ok(InstId(zone.base.0 + me as u32))
}

/// The iterator of a collection of one of the common shapes of a parameter, read without
/// the op loop: a zone without index or indexed by `me` or a local, an enum's values, the
/// seats, a board's spaces (`None`: another shape, or an index that does not read: the op loop runs the code
/// and tells why).
#[inline(always)]
pub(super) fn quick_iter(
    g: &Game,
    s: &State,
    code: Code,
    locals: &[Value],
    me: u8,
) -> Option<Iter> {
    let ops = g.program.ops.get(code.start as usize..code.end as usize)?;
    let inst = match *ops {
        [Op::IterEnum(e)] => {
            return Some(Iter::Values {
                e,
                next: 0,
                end: g.enums.get(e)?.values.len() as u16,
            })
        }
        [Op::IterPlayers] => {
            return Some(Iter::Seats {
                next: 0,
                end: s.players,
            })
        }
        [Op::IterBoard(b)] => {
            let board = g.boards.get(b)?;
            return Some(Iter::Spaces {
                board: b,
                next: 0,
                end: board.len(),
                closing: board.closing(&s.consts),
            });
        }
        [Op::Inst(i), Op::IterZone] => i,
        [Op::ZoneMe(z), Op::IterZone] => {
            let zone = g.zones.get(z)?;
            if me as u32 >= zone.sizes.first().copied()? {
                return None;
            }
            InstId(zone.base.0 + me as u32)
        }
        [Op::ZoneLocal(z, l), Op::IterZone] => {
            let zone = g.zones.get(z)?;
            let i = locals.get(l as usize)?.index_pos()?;
            if i >= zone.sizes.first().copied()? {
                return None;
            }
            InstId(zone.base.0 + i)
        }
        _ => return None,
    };
    Some(Iter::Zone {
        next: s.zones.bottom(inst),
    })
}

/// `var[me]` of a variable of one dimension ([`Op::VarMe`]), failing as [`Op::Var`] would.
#[inline(always)]
fn var_me(g: &Game, s: &State, v: VarId, me: u8) -> Eval<Value> {
    let var = &g.vars[v];
    if me as u32 >= var.sizes.first().copied().unwrap_or(0) {
        return Err(bad_index(&var.name));
    }
    Ok(s.vars[(var.base + me as u32) as usize])
}

/// `zone[me, l]` of a zone of two dimensions ([`Op::ZoneMeLocal`]), failing as [`Op::Zone`]
/// would (each index in turn: a value that is no index, then one out of range).
#[inline(always)]
fn zone_me_local(g: &Game, s: &State, z: ZoneId, me: u8, locals: &[Value], l: u16) -> Eval<InstId> {
    let zone = &g.zones[z];
    let (Some(&s0), Some(&s1)) = (zone.sizes.first(), zone.sizes.get(1)) else {
        return Err(bad_index(&zone.name));
    };
    if me as u32 >= s0 {
        return Err(bad_index(&zone.name));
    }
    let idx = index_of(g, s, local(locals, l))?;
    if idx >= s1 {
        return Err(bad_index(&zone.name));
    }
    Ok(InstId(zone.base.0 + me as u32 * s1 + idx))
}

/// `zone[a, b]` from two locals ([`Op::Zone2`]), failing as [`Op::Zone`] would (each index
/// in turn: a value that is no index, then one out of range).
#[inline(always)]
fn zone2(g: &Game, s: &State, i: u32, locals: &[Value]) -> Eval<InstId> {
    let z = &g.program.zone2s[i as usize];
    let mut k = 0u32;
    for (size, slot) in z.sizes.into_iter().zip(z.slots) {
        let idx = index_of(g, s, local(locals, slot))?;
        if idx >= size {
            return Err(bad_index(&g.zones[z.zone].name));
        }
        k = k * size + idx;
    }
    Ok(InstId(z.base + k))
}
