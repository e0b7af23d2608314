//! The ops the loop of common ops leaves to a function of their own: the rare ones
//! (`slow_op`) and a zone's loop walked in place (`zone_walk`).

use super::*;

impl Machine {
    /// Every op, the rare ones included (kept out of the small loop of [`Machine::run_code`]).
    #[inline(never)]
    pub(super) fn slow_op(
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
            Op::SetLocal(l) => {
                let v = self.pop();
                if let Some(x) = locals.get_mut(l as usize) {
                    *x = v;
                }
            }
            Op::Me => self.stack.push(Value::Player(me)),
            Op::Current => self
                .stack
                .push(s.current.map_or(Value::None, Value::Player)),
            Op::PlayerCount => self.stack.push(Value::Int(s.players as i64)),
            Op::ZoneMe(z) => self.stack.push(Value::Zone(zone_me(g, z, me)?)),
            Op::Zone2(i) => {
                let inst = zone2(g, s, i, locals)?;
                self.stack.push(Value::Zone(inst));
            }
            Op::ZoneMeLocal(z, l) => {
                let inst = zone_me_local(g, s, z, me, locals, l)?;
                self.stack.push(Value::Zone(inst));
            }
            Op::VarMe(v) => self.stack.push(var_me(g, s, v, me)?),
            Op::Const(c) => self.stack.push(s.consts[c]),
            Op::Slot(n) => self.stack.push(s.vars[n as usize]),
            Op::VarLocal(v, l) => {
                let var = &g.vars[v];
                let i = index_of(g, s, local(locals, l))?;
                if i >= var.sizes[0] {
                    return Err(bad_index(&var.name));
                }
                self.stack.push(s.vars[(var.base + i) as usize]);
            }
            Op::Var2(i) => {
                let v = self.var2(g, s, i, locals)?;
                self.stack.push(v);
            }
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
            Op::LocalField(l, f) => {
                let v = field(g, s, local(locals, l), f)?;
                self.stack.push(v);
            }
            Op::Not | Op::Neg | Op::Bin(_) | Op::IsNone | Op::NotNone | Op::IsMe | Op::Cmp(_) => {
                self.value_op(g, s, op, *pc, locals, me)?
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
            Op::After(i) => self
                .after(g, s, i, pc, locals, me)
                .map_err(|e| with(e, p.span_at(*pc - 1)))?,
            Op::IterIndexed(_) | Op::IterList(_) | Op::IterAdjacent | Op::IterRay => {
                self.start_iter(g, s, op)?
            }
            Op::IterRays(_)
            | Op::IterPaths(_)
            | Op::IterGroup(_)
            | Op::IterGroups(_)
            | Op::IterBoard(_)
            | Op::ZoneWalk(_)
            | Op::Line(_)
            | Op::BestSets(_)
            | Op::Connected(_)
            | Op::Majority(_)
            | Op::Native(_) => self.walk_op(g, s, op, pc, locals, me)?,
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
            Op::Var(_)
            | Op::Zone(_)
            | Op::ElseJump(_)
            | Op::IterZone
            | Op::IterRange
            | Op::IterEnum(_)
            | Op::IterType(_)
            | Op::IterPlayers
            | Op::AccSum
            | Op::AccMax(_) => self.mid_op(g, s, op, pc)?,
        }
        Ok(())
    }

    /// The ops that compute a value from values: `not`, `-`, binary operators, the tests of
    /// none and `me`, comparisons (`pc`: the position after the op).
    fn value_op(
        &mut self,
        g: &Game,
        s: &State,
        op: Op,
        pc: u32,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<()> {
        let p = &g.program;
        match op {
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
                let v = binary(g, s, op, a, b).map_err(|e| with(e, p.span_at(pc - 1)))?;
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
                let v = self.cmp(g, s, i, pc - 1, locals, me)?;
                self.stack.push(Value::Bool(v));
            }
            _ => {}
        }
        Ok(())
    }

    /// The start of a loop over indexed components, a list, a space's neighbours or a ray.
    fn start_iter(&mut self, g: &Game, s: &State, op: Op) -> Eval<()> {
        let p = &g.program;
        match op {
            Op::IterIndexed(i) => {
                let v = self.pop();
                let ix = p.field_indexes[i as usize];
                match Program::value_code(v).filter(|c| *c < ix.codes) {
                    Some(c) => self.iters.push(Iter::Indexed {
                        ty: ix.ty,
                        base: ix.base + c * ix.words,
                        pos: 0,
                        end: p.type_comps[ix.ty].len() as u32,
                    }),
                    None => self.iters.push(Iter::Type { ty: ix.ty, pos: 0 }),
                }
            }
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
                            from: sp,
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
            _ => {}
        }
        Ok(())
    }

    /// The walks and aggregates that run outside the op loop: rays, paths, groups, a board's
    /// or a zone's loop walked in place, lines, best sets, connection, majorities.
    fn walk_op(
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
            Op::IterRays(id) => self.rays(g, s, id, locals, me, p.span_at(*pc - 1))?,
            Op::IterPaths(id) => {
                let steps = self.pop();
                let from = self.pop();
                self.paths(g, s, id, from, steps, locals, me)?;
                *pc = self.count_walked(g, *pc, locals);
            }
            Op::IterGroup(id) => {
                let start = self.pop();
                *pc = self.group(g, s, id, start, *pc, locals, me)?;
            }
            Op::IterGroups(id) => {
                self.groups(g, s, id, locals, me)?;
                *pc = self.count_walked(g, *pc, locals);
            }
            // The loops of `all`, `any` and `count` over a board may walk it in place.
            Op::IterBoard(b) => *pc = self.board_iter(g, s, b, *pc, locals, me)?,
            Op::ZoneWalk(w) => match self.pop() {
                Value::Zone(z) => {
                    let next = s.zones.bottom(z);
                    *pc = self.zone_walk(g, s, w, next, *pc, locals, me)?;
                }
                other => return Err(expected(g, s, "a zone", other, None)),
            },
            Op::Native(id) => self.native_op(g, s, id, pc, locals, me)?,
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
            _ => {}
        }
        Ok(())
    }

    /// `ZoneWalk(w)` (the op before `head`, its loop's head) on the zone's components from
    /// `at` up: walks them here as the loop would ([`crate::ir::vm::WalkKind`]): each
    /// component written to the loop's local and costing its unit of work, the comparison or
    /// the field read in place, the count or the fold kept on top of the stack. Gives the
    /// position the op loop goes on at: the loop's exit when the zone is walked to its end,
    /// else the op an answer leads to with the walk, past the component, pushed as
    /// [`Op::IterZone`] pushes it. A component the walk does not finish (a value that is no
    /// number, a sum that overflows) goes back to the loop's ops after its head, and running
    /// out of work back to the head, whose `IterNext` fails as before; errors of the
    /// comparison are those of the loop.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(super) fn zone_walk(
        &mut self,
        g: &Game,
        s: &State,
        w: u32,
        mut at: Option<CompId>,
        head: u32,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<u32> {
        // As in the op loop: no tables loaded before they are needed.
        let g = std::hint::black_box(g);
        let s = std::hint::black_box(s);
        let Some(&walk) = g.program.zone_walks.get(w as usize) else {
            self.iters.push(Iter::Zone { next: at });
            return Ok(head);
        };
        let slot = walk.slot as usize;
        // Where the walk stopped (`None`: at its end) and where the ops go on.
        let (left, to) = match walk.kind {
            WalkKind::Fold { field: f, max } => {
                // The fold's value kept in a register, written back once.
                if at.is_some() && self.stack.is_empty() {
                    self.stack.push(Value::None);
                }
                let mut acc = self.stack.last().copied().unwrap_or_default();
                let stop = loop {
                    let Some(c) = at else {
                        break (None, walk.exit);
                    };
                    if self.fuel == 0 {
                        break (Some(at), head);
                    }
                    self.fuel -= 1;
                    if let Some(l) = locals.get_mut(slot) {
                        *l = Value::Comp(c);
                    }
                    let after = s.zones.above(c);
                    let Some(&Value::Int(x)) = comp_field(g, s, c, f) else {
                        break (Some(after), head + 1);
                    };
                    match (max, acc) {
                        (None, Value::Int(n)) => match n.checked_add(x) {
                            Some(sum) => acc = Value::Int(sum),
                            None => break (Some(after), head + 1),
                        },
                        (None, _) => {}
                        (Some(max), Value::Int(m)) if (max && m >= x) || (!max && m <= x) => {}
                        (Some(_), _) => acc = Value::Int(x),
                    }
                    at = after;
                };
                if let Some(top) = self.stack.last_mut() {
                    *top = acc;
                }
                (stop.0, Ok(stop.1))
            }
            WalkKind::Branch {
                cmp,
                other,
                on_true,
                on_false,
            } => {
                let mut counted = 0i64;
                let stop = loop {
                    let Some(c) = at else {
                        break (None, Ok(walk.exit));
                    };
                    if self.fuel == 0 {
                        break (Some(at), Ok(head));
                    }
                    self.fuel -= 1;
                    if let Some(l) = locals.get_mut(slot) {
                        *l = Value::Comp(c);
                    }
                    let after = s.zones.above(c);
                    let v = match self.cmp_inline(g, s, cmp, head + 1, locals, me) {
                        Ok(v) => v,
                        Err(e) => break (Some(after), Err(e)),
                    };
                    match if v { on_true } else { on_false } {
                        0 => {}
                        1 => counted += 1,
                        _ => break (Some(after), Ok(if v { head + 3 } else { other })),
                    }
                    at = after;
                };
                if counted > 0 {
                    if let Value::Int(n) = self.top() {
                        *n += counted;
                    }
                }
                stop
            }
        };
        if let Some(next) = left {
            self.iters.push(Iter::Zone { next });
        }
        to
    }
}
