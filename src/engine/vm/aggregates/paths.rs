//! Exact-length paths over a board: the general depth-first walk, the walk over the
//! neighbours' bit sets on boards of at most 64 spaces (`BitWalk`), and paths whose condition
//! is known at every space (`paths_known`); `count(t in walk)` counted at once.

use super::*;

impl Machine {
    /// `paths(...)`: the ends of the simple paths of exactly `steps` steps from `from`, each
    /// entered space meeting the condition; pushed as a buffer iterator, in board order.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(in crate::engine::vm) fn paths(
        &mut self,
        g: &Game,
        s: &State,
        id: u32,
        from: Value,
        steps: Value,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<()> {
        let op = &g.program.paths[id as usize];
        let start_buf = self.buf.len() as u32;
        let n = match steps {
            Value::Int(n) => n.max(0) as u64,
            other => return Err(expected(g, s, "a number", other, None)),
        };
        let Value::Space(_, start) = from else {
            self.iters.push(Iter::Buf {
                start: start_buf,
                pos: start_buf,
                end: start_buf,
            });
            return Ok(());
        };
        let board = &g.boards[op.board];
        let closing = board.closing(&s.consts);
        let (starts, adj) = board.adjacency(closing);
        let len = board.len() as usize;
        let n = n.min(len as u64) as u32;
        let mut memo = (0, 0);
        self.fast_ready(g, s, 0, id, op, locals, me);
        // Fixed parts made of comparisons only are answered before the walk: they read no
        // space, spend no work and change nothing, so answering one early gives the walk the
        // same answer (one that fails to read is left to the walk, which tells why when a
        // space reaches it).
        for (i, &(code, fixed)) in op.parts.iter().enumerate().take(64) {
            if fixed && g.program.is_flag_code(code) {
                if let Ok(b) = self.test(g, s, code, locals, me) {
                    memo.0 |= 1 << i;
                    memo.1 |= (b as u64) << i;
                }
            }
        }
        if n > 0 && len <= 64 && (start as usize) < len {
            let near = board.near(closing);
            let graph = (starts, adj, near);
            return self.paths_small(g, s, id, (start, n), graph, memo, locals, me);
        }
        let mut marks = std::mem::take(&mut self.marks);
        let mut walk = std::mem::take(&mut self.walk);
        marks.clear();
        marks.resize(len, 0);
        walk.clear();
        marks[start as usize] |= SEEN;
        walk.push((start, starts[start as usize], n));
        let mut result = Ok(());
        if n == 0 {
            marks[start as usize] |= ITEM;
            self.buf.push(Value::Space(op.board, start));
            walk.clear();
        }
        while let Some(&mut (at, ref mut pos, left)) = walk.last_mut() {
            if *pos >= starts[at as usize + 1] {
                marks[at as usize] &= !SEEN;
                walk.pop();
                continue;
            }
            let nb = adj[*pos as usize];
            *pos += 1;
            if let Err(e) = self.spend(None) {
                result = Err(e);
                break;
            }
            if marks[nb as usize] & SEEN != 0 {
                continue;
            }
            if marks[nb as usize] & CHECKED == 0 {
                let quick = self.fast_test(g, s, 0, id, memo, nb);
                let r = match quick {
                    Some(b) => Ok(b),
                    None => {
                        self.walk_ok(g, s, op, &mut memo, Value::Space(op.board, nb), locals, me)
                    }
                };
                match r {
                    Ok(ok) => marks[nb as usize] |= CHECKED | if ok { OK } else { 0 },
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            }
            if marks[nb as usize] & OK == 0 {
                continue;
            }
            if left == 1 {
                if marks[nb as usize] & ITEM == 0 {
                    marks[nb as usize] |= ITEM;
                    self.buf.push(Value::Space(op.board, nb));
                }
            } else {
                marks[nb as usize] |= SEEN;
                walk.push((nb, starts[nb as usize], left - 1));
            }
        }
        self.push_listed(marks, walk, start_buf, result)
    }

    /// [`Machine::paths`] of `n >= 1` steps from `start` on a board of at most 64 spaces: the
    /// same walk (the same spaces tested in the same order, one unit of work per step), its
    /// marks held in bit sets and its stack in a fixed array, and the ends pushed in board
    /// order from their set, without sorting the buffer.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn paths_small(
        &mut self,
        g: &Game,
        s: &State,
        id: u32,
        (start, n): (u32, u32),
        (starts, adj, near): (&[u32], &[u32], &[u64]),
        mut memo: (u64, u64),
        locals: &mut [Value],
        me: u8,
    ) -> Eval<()> {
        let op = &g.program.paths[id as usize];
        // A walk whose every space the resolved condition answers reads the game and
        // nothing else: walked without its units of work, spent together after it (the
        // same number: one per step, the same error when they run out).
        if near.len() + 1 == starts.len() {
            let mut walk = BitWalk {
                near,
                starts,
                known: 0,
                ok: 0,
                found: 0,
                steps: 0,
            };
            let lens = match &self.walks.fast[0] {
                Some((i, Some(f))) if *i == id => f.lens(memo),
                _ => None,
            };
            // Parts that only ask whether `zone[s]` is empty are answered for every space
            // at once from the zones' bit set of the instances that hold something.
            let done = match lens.map(|l| (l.passing(s), l)) {
                Some((Some(known), _)) => {
                    match paths_known(&mut walk, start, n, known, self.fuel) {
                        Some(()) => Some(()),
                        None => self.paths_dfs(&mut walk, start, n, known),
                    }
                }
                Some((None, lens)) => self.paths_dfs(&mut walk, start, n, (lens, s)),
                None => self.paths_dfs(&mut walk, start, n, (g, s, (0, id), memo)),
            };
            if done.is_some() {
                self.spend_n(walk.steps)?;
                self.push_spaces(op.board, walk.found);
                return Ok(());
            }
        }
        let mut stack = std::mem::take(&mut self.walk);
        stack.clear();
        stack.push((start, starts[start as usize], n));
        let (mut seen, mut checked, mut ok, mut ends) = (1u64 << start, 0u64, 0u64, 0u64);
        let mut result = Ok(());
        while let Some(&mut (at, ref mut pos, left)) = stack.last_mut() {
            if *pos >= starts[at as usize + 1] {
                seen &= !(1u64 << at);
                stack.pop();
                continue;
            }
            let nb = adj[*pos as usize];
            *pos += 1;
            if let Err(e) = self.spend(None) {
                result = Err(e);
                break;
            }
            let bit = 1u64 << nb;
            if seen & bit != 0 {
                continue;
            }
            if checked & bit == 0 {
                let pass = match self.fast_test(g, s, 0, id, memo, nb) {
                    Some(b) => b,
                    None => {
                        let v = Value::Space(op.board, nb);
                        match self.walk_ok(g, s, op, &mut memo, v, locals, me) {
                            Ok(b) => b,
                            Err(e) => {
                                result = Err(e);
                                break;
                            }
                        }
                    }
                };
                checked |= bit;
                ok |= if pass { bit } else { 0 };
            }
            if ok & bit == 0 {
                continue;
            }
            if left == 1 {
                ends |= bit;
            } else {
                seen |= bit;
                stack.push((nb, starts[nb as usize], left - 1));
            }
        }
        self.walk = stack;
        result?;
        self.push_spaces(op.board, ends);
        Ok(())
    }

    /// The loop of a `count` without filter or body starting at `pc` (`IterNext` into a
    /// local, `AccCount`, a `Jump` back to the `IterNext`): the local and the loop's exit.
    #[inline(always)]
    pub(super) fn count_loop(g: &Game, pc: u32) -> Option<(u16, u32)> {
        let ops = g.program.ops.get(pc as usize..pc as usize + 3)?;
        match *ops {
            [Op::IterNext { slot, exit }, Op::AccCount, Op::Jump(head)]
                if head == pc && exit == pc + 3 =>
            {
                Some((slot, exit))
            }
            _ => None,
        }
    }

    /// `n` elements, the last `last`, counted at once by a `count` loop (`count_loop`, the
    /// count on top of the stack), each costing its unit of work as through `IterNext`, the
    /// loop's local left holding the last one: the loop's exit. `None` (nothing done) when
    /// the work left does not cover them (the loop then runs and stops where it runs out)
    /// or the count is not a number that takes them.
    #[inline(always)]
    pub(super) fn count_at_once(
        &mut self,
        (slot, exit): (u16, u32),
        n: u32,
        last: Value,
        locals: &mut [Value],
    ) -> Option<u32> {
        let Some(Value::Int(count)) = self.stack.last_mut() else {
            return None;
        };
        let sum = count.checked_add(n as i64)?;
        if self.fuel < n as u64 {
            return None;
        }
        *count = sum;
        self.fuel -= n as u64;
        if let (true, Some(l)) = (n > 0, locals.get_mut(slot as usize)) {
            *l = last;
        }
        Some(exit)
    }

    /// After a board walk pushed its buffer iterator (the op before `pc`): when a `count`
    /// loop follows (`count_loop`), its elements are counted at once (`count_at_once`) and
    /// the iterator dropped; the position the op loop goes on at.
    pub(in crate::engine::vm) fn count_walked(
        &mut self,
        g: &Game,
        pc: u32,
        locals: &mut [Value],
    ) -> u32 {
        let Some(lp) = Self::count_loop(g, pc) else {
            return pc;
        };
        let Some(&Iter::Buf { pos, end, .. }) = self.iters.last() else {
            return pc;
        };
        let n = end.saturating_sub(pos);
        let last = match end.checked_sub(1).map(|i| self.buf.get(i as usize)) {
            Some(Some(&v)) => v,
            _ => Value::None,
        };
        match self.count_at_once(lp, n, last, locals) {
            Some(exit) => {
                self.stop();
                exit
            }
            None => pc,
        }
    }

    /// Pushes a buffer iterator over the spaces of `set` (of a board of at most 64 spaces),
    /// in board order.
    pub(super) fn push_spaces(&mut self, board: BoardId, mut set: u64) {
        let start = self.buf.len() as u32;
        while set != 0 {
            self.buf.push(Value::Space(board, set.trailing_zeros()));
            set &= set - 1;
        }
        self.iters.push(Iter::Buf {
            start,
            pos: start,
            end: self.buf.len() as u32,
        });
    }

    /// The ends of the paths of `n` steps from `start` (`1 <= n <= 64`, a board of at most 64
    /// spaces) added to `walk.found` and their steps to `walk.steps`, each space answered by
    /// the resolved condition of paths walk `id` (`None`: a space it does not answer; the
    /// walk is then run again the general way). The same walk as [`Machine::paths`]: a space
    /// is tested when a path first reaches it.
    #[inline(always)]
    pub(super) fn paths_dfs(
        &mut self,
        walk: &mut BitWalk,
        start: u32,
        n: u32,
        mut test: impl SpaceTest,
    ) -> Option<()> {
        let (sets, starts) = (walk.near, walk.starts);
        // A space's neighbours as a set, and how many they are.
        let near = |sp: u32| -> Option<(u64, u64)> {
            let (a, b) = (*starts.get(sp as usize)?, *starts.get(sp as usize + 1)?);
            Some((*sets.get(sp as usize)?, b.wrapping_sub(a) as u64))
        };
        // Per depth: the neighbours not yet walked to (as two halves), the space. A path of
        // one step less than `n` ends at the neighbours of its last space at once.
        let mut stack = std::mem::take(&mut self.walk);
        stack.clear();
        let mut r = Some(());
        let mut seen = 1u64 << start;
        let (near_start, deg) = near(start)?;
        walk.steps += deg;
        if n == 1 {
            let ends = near_start & !seen;
            if !walk.learn(self, &mut test, ends) {
                return None;
            }
            walk.found |= ends & walk.ok;
            return Some(());
        }
        let push = |stack: &mut Vec<(u32, u32, u32)>, set: u64, at: u32| {
            stack.push((set as u32, (set >> 32) as u32, at))
        };
        push(&mut stack, near_start & !seen, start);
        while let Some(&mut (ref mut lo, ref mut hi, at)) = stack.last_mut() {
            let mut left = *lo as u64 | (*hi as u64) << 32;
            if left == 0 {
                seen &= !(1u64 << at);
                stack.pop();
                continue;
            }
            let nb = left.trailing_zeros();
            left &= left - 1;
            (*lo, *hi) = (left as u32, (left >> 32) as u32);
            let bit = 1u64 << nb;
            if !walk.learn(self, &mut test, bit) {
                r = None;
                break;
            }
            if walk.ok & bit == 0 {
                continue;
            }
            let Some((next, deg)) = near(nb) else {
                r = None;
                break;
            };
            walk.steps += deg;
            // The steps are spent after the walk, but a walk past the budget stops here:
            // spending them then fails as spending them one by one would have.
            if walk.steps > self.fuel {
                break;
            }
            // The path to `nb` has as many steps as the stack holds spaces.
            if stack.len() as u32 + 1 == n {
                let ends = next & !seen & !bit;
                if !walk.learn(self, &mut test, ends) {
                    r = None;
                    break;
                }
                walk.found |= ends & walk.ok;
                continue;
            }
            seen |= bit;
            push(&mut stack, next & !seen, nb);
        }
        self.walk = stack;
        r
    }
}

/// A board walk over at most 64 spaces held in bit sets ([`Machine::paths_dfs`]).
pub(super) struct BitWalk<'a> {
    /// The neighbours of each space as sets, in the adjacency in force ([`Board::near`]),
    /// and the starts of its rows (how many neighbours each space has).
    pub(super) near: &'a [u64],
    pub(super) starts: &'a [u32],
    /// The spaces whose condition is known, and those of them that meet it.
    pub(super) known: u64,
    pub(super) ok: u64,
    /// The spaces found (the ends of the paths).
    pub(super) found: u64,
    /// The steps taken: the units of work of the walk.
    pub(super) steps: u64,
}

impl BitWalk<'_> {
    /// Tests the spaces of `set` not known yet; false when `test` does not answer one.
    #[inline(always)]
    pub(super) fn learn(&mut self, m: &mut Machine, test: &mut impl SpaceTest, set: u64) -> bool {
        let unknown = set & !self.known;
        if unknown == 0 {
            return true;
        }
        let Some(ok) = test.test_set(m, unknown) else {
            return false;
        };
        self.known |= unknown;
        self.ok |= ok;
        true
    }
}

/// The most steps of a path walked by [`paths_known`].
pub(super) const KNOWN_STEPS: usize = 8;

/// [`Machine::paths_dfs`] when the condition is known at every space of the board (`known`
/// answers them all): the same paths, the same ends and the same steps counted (each space
/// a path reaches with steps left adds its number of neighbours), without asking the
/// condition on the way, the stack in a small array. `None` (nothing counted): a space
/// `known` does not answer, or a path of more than [`KNOWN_STEPS`] steps. A walk whose steps
/// pass `budget` stops there, its steps counted so far (more than the budget).
#[inline(always)]
pub(super) fn paths_known(
    walk: &mut BitWalk,
    start: u32,
    n: u32,
    known: Known,
    budget: u64,
) -> Option<()> {
    let (sets, starts) = (walk.near, walk.starts);
    let board = match sets.len() {
        64 => u64::MAX,
        k => (1u64 << k) - 1,
    };
    if board & !known.valid != 0 || n as usize > KNOWN_STEPS || n == 0 {
        return None;
    }
    let deg = |sp: u32| -> Option<u64> {
        let (a, b) = (*starts.get(sp as usize)?, *starts.get(sp as usize + 1)?);
        Some(b.wrapping_sub(a) as u64)
    };
    let ok = known.pass;
    let mut seen = 1u64 << start;
    let first = *sets.get(start as usize)?;
    let mut steps = deg(start)?;
    let mut found = 0u64;
    if n == 1 {
        found = first & !seen & ok;
    } else {
        // Per depth: the spaces (meeting the condition) not yet walked to from `at[d]`.
        let mut left = [0u64; KNOWN_STEPS];
        let mut at = [0u32; KNOWN_STEPS];
        let mut d = 0usize;
        (left[0], at[0]) = (first & !seen & ok, start);
        loop {
            let l = left[d];
            if l == 0 {
                if d == 0 {
                    break;
                }
                seen &= !(1u64 << at[d]);
                d -= 1;
                continue;
            }
            let nb = l.trailing_zeros();
            left[d] = l & (l - 1);
            let bit = 1u64 << nb;
            let next = *sets.get(nb as usize)?;
            steps += deg(nb)?;
            if steps > budget {
                break;
            }
            // The path to `nb` has d + 1 steps: one step less than `n` ends at its
            // neighbours at once.
            if d as u32 + 2 == n {
                found |= next & !seen & !bit & ok;
                continue;
            }
            d += 1;
            seen |= bit;
            (left[d], at[d]) = (next & !seen & ok, nb);
        }
    }
    walk.steps += steps;
    walk.found |= found;
    walk.known = board;
    walk.ok = ok & board;
    Some(())
}

/// A walk condition known at every space ([`LenTests::passing`]): the spaces it answers
/// (others are left to the general test) and those of them that meet it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Known {
    pub(super) valid: u64,
    pub(super) pass: u64,
}

impl SpaceTest for Known {
    #[inline(always)]
    fn test(&mut self, _: &mut Machine, sp: u32) -> Option<bool> {
        let bit = 1u64.checked_shl(sp)?;
        (self.valid & bit != 0).then_some(self.pass & bit != 0)
    }

    #[inline(always)]
    fn test_set(&mut self, _: &mut Machine, set: u64) -> Option<u64> {
        (set & !self.valid == 0).then_some(set & self.pass)
    }
}
