//! Aggregates over a board or a pool without a walk: majorities, the loops of `all`, `any`
//! and `count` over a board walked in place (`board_iter`), and the best allocation of sets.

use super::*;

impl Machine {
    /// `majority(...)`: the share of the player on top of the stack (the points below it):
    /// among the players of the top iterator with a value of at least 1, those with the
    /// highest value split the points evenly, rounded down.
    #[inline(never)]
    pub(in crate::engine::vm) fn majority(
        &mut self,
        g: &Game,
        s: &State,
        id: u32,
        locals: &mut [Value],
        me: u8,
        span: Option<Span>,
    ) -> Eval<i64> {
        let op = &g.program.majorities[id as usize];
        let who = self.pop();
        let points = match self.pop() {
            Value::Int(n) => n,
            other => return Err(expected(g, s, "a number", other, span)),
        };
        let (mut best, mut tied, mut mine) = (0i64, 0i64, 0i64);
        while let Some(q) = self.next(g, s, span)? {
            let saved = local(locals, op.slot);
            if let Some(l) = locals.get_mut(op.slot as usize) {
                *l = q;
            }
            let takes_part = match op.filter {
                Some(f) => self.eval_bool(g, s, f, locals, me),
                None => Ok(true),
            };
            let value = match takes_part {
                Ok(true) => self.eval_int(g, s, op.value, locals, me).map(Some),
                Ok(false) => Ok(None),
                Err(e) => Err(e),
            };
            if let Some(l) = locals.get_mut(op.slot as usize) {
                *l = saved;
            }
            let value = match value {
                Ok(v) => v,
                Err(e) => {
                    self.stop();
                    return Err(e);
                }
            };
            let Some(v) = value else { continue };
            if q == who {
                mine = v;
            }
            if v >= 1 && v > best {
                (best, tied) = (v, 1);
            } else if v >= 1 && v == best {
                tied += 1;
            }
        }
        Ok(if mine >= 1 && mine == best {
            points.div_euclid(tied)
        } else {
            0
        })
    }

    /// `IterBoard(b)` (the op before `pc`): pushes the walk of the board's spaces and gives
    /// the position the op loop goes on at (`pc`, unless the walk below ran). When the
    /// loop it starts tests each space with one comparison of `var[s]` with `me`, `none` or
    /// a number and branches on it (`IterNext` into `s`, `Cmp`, `JumpIfNot`: the loops of
    /// `all`, `any` and `count` over a board with such a condition), the spaces are walked
    /// here, reading the variable's slots in place, for as long as each answer leads back to
    /// the loop's head (at once, through a `Jump` to it, or through `AccCount` and such a
    /// jump); at the first that leads elsewhere the walk stands where `IterNext` would have
    /// left it (the space in `s`, the iterator past it) and the op loop goes on there. Each
    /// space costs its unit of work, as through `IterNext`.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(in crate::engine::vm) fn board_iter(
        &mut self,
        g: &Game,
        s: &State,
        b: BoardId,
        pc: u32,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<u32> {
        let board = &g.boards[b];
        let closing = board.closing(&s.consts);
        let len = board.len();
        self.iters.push(Iter::Spaces {
            board: b,
            next: 0,
            end: len,
            closing,
        });
        let ops = &g.program.ops[..];
        let head = pc;
        let (Some(&Op::IterNext { slot, exit }), Some(&Op::Cmp(i)), Some(&Op::JumpIfNot(t))) = (
            ops.get(head as usize),
            ops.get(head as usize + 1),
            ops.get(head as usize + 2),
        ) else {
            return Ok(pc);
        };
        // The loop's ops lie between its head and its exit (a loop's head, `IterNext`,
        // follows the op that pushes its iterator in the same code).
        if exit <= head + 3 || t > exit {
            return Ok(pc);
        }
        let Some(d) = SpaceCmp::of_cmp(g, i, slot, me, locals) else {
            return Ok(pc);
        };
        // Where an answer leads: back to the head (0), back after counting (1), elsewhere (2).
        let lead = |x: u32| match (ops.get(x as usize), ops.get(x as usize + 1)) {
            _ if x == head => 0u8,
            (Some(&Op::Jump(h)), _) if h == head => 0,
            (Some(&Op::AccCount), Some(&Op::Jump(h))) if h == head => 1,
            _ => 2,
        };
        let (on_true, on_false) = (lead(head + 3), lead(t));
        if on_true == 2 && on_false == 2 {
            return Ok(pc);
        }
        let mut sp = 0u32;
        let mut last = None;
        let mut counted = 0i64;
        let to = loop {
            while sp < len && board.is_closed(sp, closing) {
                sp += 1;
            }
            if sp >= len {
                break None;
            }
            if let Err(e) = self.spend(None) {
                self.scan_left(b, Some(sp + 1), last, counted, slot, locals);
                return Err(with(e, g.program.span_at(head)));
            }
            last = Some(sp);
            let Some(v) = d.at(&s.vars, sp) else {
                break Some(head + 1);
            };
            match if v { on_true } else { on_false } {
                0 => {}
                1 => counted += 1,
                _ => break Some(if v { head + 3 } else { t }),
            }
            sp += 1;
        };
        match to {
            Some(to) => {
                self.scan_left(b, Some(sp + 1), last, counted, slot, locals);
                Ok(to)
            }
            None => {
                self.stop();
                self.scan_left(b, None, last, counted, slot, locals);
                Ok(exit)
            }
        }
    }

    /// A board scan of [`Machine::board_iter`] stops: the iterator on top past `next` (when
    /// it goes on), the last space walked in the loop's variable, the spaces counted added
    /// to the count on top of the stack.
    #[inline(always)]
    pub(super) fn scan_left(
        &mut self,
        b: BoardId,
        next: Option<u32>,
        last: Option<u32>,
        counted: i64,
        slot: u16,
        locals: &mut [Value],
    ) {
        if let (Some(next), Some(Iter::Spaces { next: n, .. })) = (next, self.iters.last_mut()) {
            *n = next;
        }
        if let (Some(sp), Some(l)) = (last, locals.get_mut(slot as usize)) {
            *l = Value::Space(b, sp);
        }
        if counted > 0 {
            if let Value::Int(n) = self.top() {
                *n = n.wrapping_add(counted);
            }
        }
    }

    /// `best_sets(...)`: the most points from disjoint sets of the kinds, formed from the
    /// elements of the top iterator that pass the filter.
    #[inline(never)]
    pub(in crate::engine::vm) fn best_sets(
        &mut self,
        g: &Game,
        s: &State,
        id: u32,
        locals: &mut [Value],
        me: u8,
        span: Option<Span>,
    ) -> Eval<i64> {
        let op = &g.program.best_sets[id as usize];
        let mut pool: Vec<Value> = Vec::new();
        while let Some(v) = self.next(g, s, span)? {
            if let Some(l) = locals.get_mut(op.slot as usize) {
                *l = v;
            }
            let keep = match op.filter {
                Some(f) => self.eval_bool(g, s, f, locals, me)?,
                None => true,
            };
            if keep {
                pool.push(v);
            }
        }
        if pool.len() > 64 {
            return Err(err(
                format!("`best_sets` takes at most 64 members, got {}", pool.len()),
                span,
            ));
        }
        // Every way to form each kind of set, as (members mask, points); the best per mask.
        let mut found: Vec<(u64, i64)> = Vec::new();
        for &set in &op.sets {
            let mut dl = [Value::None; DEF_LOCALS];
            self.depth += 1;
            let r = self.form(g, s, set, &pool, 0, 0, &mut dl, me, &mut found, span);
            self.depth -= 1;
            r?;
        }
        found.sort_unstable();
        found.dedup_by(|x, y| {
            if x.0 == y.0 {
                y.1 = y.1.max(x.1);
                true
            } else {
                false
            }
        });
        let useful = found.iter().fold(0u64, |m, f| m | f.0);
        // The sets holding each member: an allocation tries those of its lowest free member.
        let mut holding: Vec<Vec<u32>> = vec![Vec::new(); pool.len()];
        for (k, &(mask, _)) in found.iter().enumerate() {
            let mut left = mask;
            while left != 0 {
                if let Some(h) = holding.get_mut(left.trailing_zeros() as usize) {
                    h.push(k as u32);
                }
                left &= left - 1;
            }
        }
        let mut memo = std::collections::HashMap::new();
        let sets = (found.as_slice(), holding.as_slice());
        best_from(!useful, sets, &mut memo, &mut |n| {
            if self.fuel < n {
                self.fuel = 0;
                return Err(self.out_of_fuel(span));
            }
            self.fuel -= n;
            Ok(())
        })
    }

    /// Chooses members for a set kind one at a time, pruning with the conditions whose
    /// members are all chosen.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::engine::vm) fn form(
        &mut self,
        g: &Game,
        s: &State,
        set: SetId,
        pool: &[Value],
        k: u16,
        used: u64,
        locals: &mut [Value],
        me: u8,
        out: &mut Vec<(u64, i64)>,
        span: Option<Span>,
    ) -> Eval<()> {
        let cs = &g.program.sets[set];
        if k == cs.params {
            let pts = self.eval_int(g, s, cs.points, locals, me)?;
            if pts > 0 {
                out.push((used, pts));
            }
            return Ok(());
        }
        'member: for (i, &v) in pool.iter().enumerate() {
            if used & (1 << i) != 0 {
                continue;
            }
            self.spend(span)?;
            locals[k as usize] = v;
            for (need, c) in &cs.conds {
                if *need == k && !self.eval_bool(g, s, *c, locals, me)? {
                    continue 'member;
                }
            }
            self.form(
                g,
                s,
                set,
                pool,
                k + 1,
                used | (1 << i),
                locals,
                me,
                out,
                span,
            )?;
        }
        Ok(())
    }
}
