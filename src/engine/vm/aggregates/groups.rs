//! Groups of connected spaces meeting a condition (`group`, `groups`), connection between
//! spaces and flood fills.

use super::*;

impl Machine {
    /// `group(...)` (the op before `pc`): the connected spaces meeting the condition around
    /// `start`, in board order, pushed as a buffer iterator, or counted at once by the
    /// `count` loop that follows ([`Machine::count_walked`]); the position the op loop goes
    /// on at.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(in crate::engine::vm) fn group(
        &mut self,
        g: &Game,
        s: &State,
        id: u32,
        start: Value,
        pc: u32,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<u32> {
        let op = &g.program.groups[id as usize];
        let start_buf = self.buf.len() as u32;
        let Value::Space(_, first) = start else {
            self.iters.push(Iter::Buf {
                start: start_buf,
                pos: start_buf,
                end: start_buf,
            });
            return Ok(self.count_walked(g, pc, locals));
        };
        let board = &g.boards[op.board];
        let closing = board.closing(&s.consts);
        let (starts, adj) = board.adjacency(closing);
        if board.is_closed(first, closing) {
            self.iters.push(Iter::Buf {
                start: start_buf,
                pos: start_buf,
                end: start_buf,
            });
            return Ok(self.count_walked(g, pc, locals));
        }
        let kept = self.walk_answers(s, id, op, locals, me, board.len() as usize);
        if board.len() <= 64 && first < board.len() {
            // Not kept: known for this flood only (it reaches each space once).
            let mut bits = if kept { self.walks.bits } else { (0, 0) };
            self.fast_ready(g, s, 1, id, op, locals, me);
            let r = self.group_small(g, s, id, first, (starts, adj), &mut bits, locals, me);
            if kept {
                self.walks.bits = bits;
                self.walks.busy = false;
            }
            // Flooded over bit sets: counted at once when a `count` loop follows, without
            // listing the spaces.
            let members = r?;
            if let Some(lp) = Self::count_loop(g, pc) {
                let last = Value::Space(op.board, 63u32.saturating_sub(members.leading_zeros()));
                if let Some(exit) = self.count_at_once(lp, members.count_ones(), last, locals) {
                    return Ok(exit);
                }
            }
            self.push_spaces(op.board, members);
            return Ok(pc);
        }
        let mut answers = if kept {
            std::mem::take(&mut self.walks.answers)
        } else {
            Vec::new()
        };
        let mut marks = std::mem::take(&mut self.marks);
        let mut walk = std::mem::take(&mut self.walk);
        marks.clear();
        marks.resize(board.len() as usize, 0);
        walk.clear();
        walk.push((first, 0, 0));
        marks[first as usize] |= SEEN;
        let mut result = Ok(());
        let mut memo = (0, 0);
        self.fast_ready(g, s, 1, id, op, locals, me);
        while let Some((sp, _, _)) = walk.pop() {
            if let Err(e) = self.spend(None) {
                result = Err(e);
                break;
            }
            let known = answers.get(sp as usize).copied().unwrap_or(0);
            let ok = if known != 0 {
                Ok(known == 2)
            } else {
                let r = match self.fast_test(g, s, 1, id, memo, sp) {
                    Some(b) => Ok(b),
                    None => {
                        self.walk_ok(g, s, op, &mut memo, Value::Space(op.board, sp), locals, me)
                    }
                };
                if let (Ok(b), Some(a)) = (&r, answers.get_mut(sp as usize)) {
                    *a = 1 + *b as u8;
                }
                r
            };
            match ok {
                Ok(false) => continue,
                Ok(true) => {}
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
            marks[sp as usize] |= ITEM;
            self.buf.push(Value::Space(op.board, sp));
            for &nb in &adj[starts[sp as usize] as usize..starts[sp as usize + 1] as usize] {
                if marks[nb as usize] & SEEN == 0 {
                    marks[nb as usize] |= SEEN;
                    walk.push((nb, 0, 0));
                }
            }
        }
        if kept {
            self.walks.answers = answers;
            self.walks.busy = false;
        }
        self.push_listed(marks, walk, start_buf, result)?;
        Ok(self.count_walked(g, pc, locals))
    }

    /// [`Machine::group`] from `first` on a board of at most 64 spaces: the group as a set.
    /// Flooded over the neighbours' sets when every space is answered without the general
    /// test ([`Machine::group_flood`]), its units of work spent after it; otherwise the
    /// same flood as on a larger board (the same spaces tested in the same order, one unit
    /// of work per space taken from the stack, the answers kept in `answers` when it holds
    /// one per space), its marks held in bit sets.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn group_small(
        &mut self,
        g: &Game,
        s: &State,
        id: u32,
        first: u32,
        (starts, adj): (&[u32], &[u32]),
        bits: &mut (u64, u64),
        locals: &mut [Value],
        me: u8,
    ) -> Eval<u64> {
        let op = &g.program.groups[id as usize];
        let mut memo = (0, 0);
        // A flood whose every space the answers kept or the resolved condition answer reads
        // the game and nothing else: flooded without its units of work, spent together
        // after it (the same number: one per space reached, the same error when they run
        // out).
        let near = g.boards[op.board].near(g.boards[op.board].closing(&s.consts));
        if near.len() + 1 == starts.len() {
            let test = (g, s, (1, id), memo);
            if let Some((members, reached)) = self.group_flood(first, near, bits, test) {
                self.spend_n(reached as u64)?;
                return Ok(members);
            }
        }
        let mut stack = std::mem::take(&mut self.walk);
        stack.clear();
        stack.push((first, 0, 0));
        let (mut seen, mut members) = (1u64 << first, 0u64);
        let mut result = Ok(());
        while let Some((sp, _, _)) = stack.pop() {
            if let Err(e) = self.spend(None) {
                result = Err(e);
                break;
            }
            let bit = 1u64 << sp;
            let pass = if bits.0 & bit != 0 {
                bits.1 & bit != 0
            } else {
                let b = match self.fast_test(g, s, 1, id, memo, sp) {
                    Some(b) => b,
                    None => {
                        let v = Value::Space(op.board, sp);
                        match self.walk_ok(g, s, op, &mut memo, v, locals, me) {
                            Ok(b) => b,
                            Err(e) => {
                                result = Err(e);
                                break;
                            }
                        }
                    }
                };
                bits.0 |= bit;
                bits.1 |= if b { bit } else { 0 };
                b
            };
            if !pass {
                continue;
            }
            members |= 1u64 << sp;
            for &nb in &adj[starts[sp as usize] as usize..starts[sp as usize + 1] as usize] {
                if seen & (1u64 << nb) == 0 {
                    seen |= 1u64 << nb;
                    stack.push((nb, 0, 0));
                }
            }
        }
        self.walk = stack;
        result?;
        Ok(members)
    }

    /// The group around `first` on a board of at most 64 spaces whose neighbours are the sets
    /// `near` ([`Board::near`]), each space answered from `bits` (the spaces known, those of
    /// them true) or by `test`, whose answers it keeps there:
    /// (the group, the number of spaces reached: the group and the spaces next to it, or
    /// `first` alone). `None`: a space `test` does not answer.
    #[inline(always)]
    pub(super) fn group_flood(
        &mut self,
        first: u32,
        near: &[u64],
        bits: &mut (u64, u64),
        mut test: impl SpaceTest,
    ) -> Option<(u64, u32)> {
        let (mut seen, mut todo, mut members) = (1u64 << first, 1u64 << first, 0u64);
        while todo != 0 {
            let sp = todo.trailing_zeros();
            todo &= todo - 1;
            let bit = 1u64 << sp;
            if bits.0 & bit == 0 {
                let b = test.test(self, sp)?;
                bits.0 |= bit;
                bits.1 |= if b { bit } else { 0 };
            }
            if bits.1 & bit == 0 {
                continue;
            }
            members |= bit;
            let next = *near.get(sp as usize)?;
            todo |= next & !seen;
            seen |= next;
        }
        Some((members, seen.count_ones()))
    }

    /// `groups(...)`: the first space of every maximal connected group of spaces meeting the
    /// condition, in board order, pushed as a buffer iterator. Each space is tested once and
    /// costs one unit of work, as does each step of a flood.
    #[inline(never)]
    pub(in crate::engine::vm) fn groups(
        &mut self,
        g: &Game,
        s: &State,
        id: u32,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<()> {
        let op = &g.program.groups[id as usize];
        let start_buf = self.buf.len() as u32;
        let board = &g.boards[op.board];
        let closing = board.closing(&s.consts);
        let (starts, adj) = board.adjacency(closing);
        let mut marks = std::mem::take(&mut self.marks);
        let mut walk = std::mem::take(&mut self.walk);
        marks.clear();
        marks.resize(board.len() as usize, 0);
        walk.clear();
        let mut result = Ok(());
        let mut memo = (0, 0);
        self.fast_ready(g, s, 2, id, op, locals, me);
        let mut ok = |m: &mut Self, sp: u32, locals: &mut [Value]| -> Eval<bool> {
            m.spend(None)?;
            if let Some(b) = m.fast_test(g, s, 2, id, memo, sp) {
                return Ok(b);
            }
            m.walk_ok(g, s, op, &mut memo, Value::Space(op.board, sp), locals, me)
        };
        'spaces: for first in 0..board.len() {
            if marks[first as usize] & SEEN != 0 || board.is_closed(first, closing) {
                continue;
            }
            marks[first as usize] |= SEEN;
            match ok(self, first, locals) {
                Ok(true) => {}
                Ok(false) => continue,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
            self.buf.push(Value::Space(op.board, first));
            walk.push((first, 0, 0));
            while let Some((sp, _, _)) = walk.pop() {
                for &nb in &adj[starts[sp as usize] as usize..starts[sp as usize + 1] as usize] {
                    if marks[nb as usize] & SEEN != 0 {
                        continue;
                    }
                    marks[nb as usize] |= SEEN;
                    match ok(self, nb, locals) {
                        Ok(true) => walk.push((nb, 0, 0)),
                        Ok(false) => {}
                        Err(e) => {
                            result = Err(e);
                            break 'spaces;
                        }
                    }
                }
            }
        }
        self.marks = marks;
        self.walk = walk;
        if let Err(e) = result {
            self.buf.truncate(start_buf as usize);
            return Err(e);
        }
        self.iters.push(Iter::Buf {
            start: start_buf,
            pos: start_buf,
            end: self.buf.len() as u32,
        });
        Ok(())
    }

    /// `connected(s in board, A, B where cond)`: a flood from the spaces meeting `A` and
    /// `cond`, over neighbours meeting `cond`, until a space meeting `B`. One unit of work per
    /// space looked at. (The condition is any expression of the state, so an incremental
    /// structure kept between decisions could not know when it changes; the flood uses the
    /// machine's scratch flags and allocates nothing.)
    #[inline(never)]
    pub(in crate::engine::vm) fn connected(
        &mut self,
        g: &Game,
        s: &State,
        id: u32,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<bool> {
        let mut marks = std::mem::take(&mut self.marks);
        let mut walk = std::mem::take(&mut self.walk);
        let r = self.flood(g, s, id, locals, me, &mut marks, &mut walk);
        self.marks = marks;
        self.walk = walk;
        r
    }

    #[allow(clippy::too_many_arguments)]
    pub(in crate::engine::vm) fn flood(
        &mut self,
        g: &Game,
        s: &State,
        id: u32,
        locals: &mut [Value],
        me: u8,
        marks: &mut Vec<u8>,
        walk: &mut Vec<(u32, u32, u32)>,
    ) -> Eval<bool> {
        let op = &g.program.connects[id as usize];
        let board = &g.boards[op.board];
        let closing = board.closing(&s.consts);
        let (starts, adj) = board.adjacency(closing);
        let n = board.len();
        marks.clear();
        marks.resize(n as usize, 0);
        walk.clear();
        let (bid, slot) = (op.board, op.slot);
        let seed = match op.seed {
            Some(code) => Some(self.eval(g, s, code, locals, me)?),
            None => None,
        };
        let mut meets = |m: &mut Machine, code: Option<Code>, sp: u32| {
            m.space_ok(g, s, code, slot, Value::Space(bid, sp), locals, me)
        };
        if let Some(v) = seed {
            if let Value::Space(b, sp) = v {
                if b == bid && sp < n && !board.is_closed(sp, closing) && meets(self, op.cond, sp)?
                {
                    marks[sp as usize] |= SEEN;
                    walk.push((sp, 0, 0));
                }
            }
        } else {
            for sp in 0..n {
                self.spend(None)?;
                if !board.is_closed(sp, closing)
                    && meets(self, Some(op.from), sp)?
                    && meets(self, op.cond, sp)?
                {
                    marks[sp as usize] |= SEEN;
                    walk.push((sp, 0, 0));
                }
            }
        }
        while let Some((sp, _, _)) = walk.pop() {
            self.spend(None)?;
            if meets(self, Some(op.to), sp)? {
                return Ok(true);
            }
            for &nb in &adj[starts[sp as usize] as usize..starts[sp as usize + 1] as usize] {
                if marks[nb as usize] & SEEN == 0 {
                    marks[nb as usize] |= SEEN;
                    if meets(self, op.cond, nb)? {
                        walk.push((nb, 0, 0));
                    }
                }
            }
        }
        Ok(false)
    }
}
