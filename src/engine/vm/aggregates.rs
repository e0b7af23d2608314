//! The machine's aggregates that walk a board or search: exact-length paths, groups, lines,
//! connection, majorities and the best allocation of sets. Each spends the work budget per
//! step and reuses the machine's scratch buffers.

use super::*;
use crate::ir::vm::{FastCmp, ZoneAt};

/// The most other locals a `group` condition may read for its answers to be kept.
const WALK_KEYS: usize = 4;

/// What a `group` condition's answers are kept for: the walk, the game's changes and
/// decisions ([`State::events`]), the current player, `me` and the other locals it reads.
type WalkCtx = (u32, u64, u64, Option<u8>, u8, [Value; WALK_KEYS]);

/// Whether the locals `reads` hold the values `keys` (at most [`WALK_KEYS`] of them).
#[inline(always)]
fn same_keys(reads: &[u16], keys: &[Value; WALK_KEYS], locals: &[Value]) -> bool {
    let mut k = 0;
    while k < reads.len() && k < WALK_KEYS {
        if local(locals, reads[k]) != keys[k] {
            return false;
        }
        k += 1;
    }
    true
}

/// Answers of a `group` condition per space, kept from one group to the next while the
/// flow runs on one state ([`Machine::walks_enter`]) and nothing it reads changed: the
/// flow's `for s in board { ... group(x in board, s where c) ... }` then tests each space
/// once per scan instead of once per group that reaches it.
#[derive(Debug, Default)]
pub(crate) struct WalkMemo {
    /// The address of the state the flow runs on (0: none, nothing is kept).
    scope: usize,
    ctx: Option<WalkCtx>,
    /// Per space: 0 (not known), 1 (false) or 2 (true); on a board of at most 64 spaces
    /// `bits` instead: the spaces known and those of them found true.
    answers: Vec<u8>,
    bits: (u64, u64),
    /// A group walk holds `answers`: a group flooded inside its condition keeps none (it
    /// would take the other's answers or leave its own context on them).
    busy: bool,
    /// The group walk under way has the context of the last one ([`Machine::walk_answers`]):
    /// the same walk, with the same locals its condition reads and the same `me`.
    again: bool,
    /// The last resolved condition of a `paths`, a `group` and a `groups` walk, by the
    /// walk's id ([`WalkFast`]: what it holds depends on the program and the values it
    /// reads at the start of each walk, not on the state walked), kept from one run to the
    /// next for the program `fast_owner` ([`crate::ir::vm::Program::id`]).
    fast: [Option<(u32, Option<WalkFast>)>; 3],
    fast_owner: u64,
}

impl Machine {
    /// A flow's filtered loop ([`crate::ir::vm::Step::ForNextIf`]) passing over the elements
    /// `iters[pos..end]` whose condition, the comparison `cmp` in a fast form
    /// ([`crate::ir::vm::FastCmp`]) reading the loop's local `var`, is false: gives the position of
    /// the first element whose condition holds or has no fast answer (the step tests it the
    /// general way), or `end`. `locals[var]` is left holding the last element tested. Spends no
    /// work: the step charges the elements passed over.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn skip_failing(
        g: &Game,
        s: &State,
        cmp: u32,
        iters: &[Value],
        (pos, end): (usize, usize),
        locals: &mut [Value],
        var: u16,
        me: u8,
    ) -> usize {
        let (Some(elements), true) = (iters.get(pos..end), (var as usize) < locals.len()) else {
            return pos;
        };
        // `face(s) == f`: a zone indexed by the loop's local, its top component's field
        // against another local, which the loop does not change; read without the dispatch.
        if let Some(&FastCmp::TopLocal {
            z: ZoneAt::Local { base, size, slot },
            f,
            l,
            ne,
        }) = g.program.fast.get(cmp as usize)
        {
            if let (true, Some(&want)) = (slot == var && l != var, locals.get(l as usize)) {
                let mut at = end;
                for (k, &e) in elements.iter().enumerate() {
                    let fails = match e {
                        Value::Space(_, i) if i < size as u32 => {
                            compare::top_field_at(g, s, InstId(base + i), f)
                                .is_some_and(|v| (v == want) == ne)
                        }
                        _ => false,
                    };
                    if !fails {
                        at = pos + k;
                        break;
                    }
                }
                let tested = if at < end {
                    elements.get(at - pos)
                } else {
                    elements.last()
                };
                if let Some(&e) = tested {
                    locals[var as usize] = e;
                }
                return at;
            }
        }
        for (k, &e) in elements.iter().enumerate() {
            locals[var as usize] = e;
            if compare::fast_cmp(g, s, cmp, locals, me) != Some(false) {
                return pos + k;
            }
        }
        end
    }

    /// The flow starts running on `st`: answers kept from now on belong to it (every change
    /// it makes to the game is counted in its events, which the answers are kept for). Gives
    /// the scope to restore with [`Machine::walks_leave`] (a run nested in another one, on
    /// a copy, has its own).
    pub(crate) fn walks_enter(&mut self, st: &State) -> usize {
        self.walks.ctx = None;
        std::mem::replace(&mut self.walks.scope, st as *const State as usize)
    }

    /// The run started with [`Machine::walks_enter`] is over.
    pub(crate) fn walks_leave(&mut self, outer: usize) {
        self.walks.ctx = None;
        self.walks.scope = outer;
        if outer == 0 {
            self.walks.busy = false;
        }
    }

    /// Whether group walk `id`'s answers may be kept and read now; they are forgotten when
    /// they were kept for another walk, state or context.
    fn walk_answers(
        &mut self,
        s: &State,
        id: u32,
        op: &crate::ir::vm::PathsOp,
        locals: &[Value],
        me: u8,
        len: usize,
    ) -> bool {
        let w = &mut self.walks;
        w.again = false;
        if w.busy
            || w.scope == 0
            || w.scope != s as *const State as usize
            || op.reads.len() > WALK_KEYS
        {
            return false;
        }
        // The same walk reads the same locals: only they are compared (the other keys are
        // `none` both times).
        w.again = matches!(&w.ctx, Some((i, changes, decisions, current, m, keys))
            if *i == id
                && *changes == s.window.changes
                && *decisions == s.decisions
                && *current == s.current
                && *m == me
                && same_keys(&op.reads, keys, locals));
        if !w.again {
            let mut keys = [Value::None; WALK_KEYS];
            for (k, &l) in keys.iter_mut().zip(&op.reads) {
                *k = local(locals, l);
            }
            w.ctx = Some((id, s.window.changes, s.decisions, s.current, me, keys));
            w.bits = (0, 0);
            if len > 64 {
                w.answers.clear();
                w.answers.resize(len, 0);
            }
        }
        w.busy = true;
        true
    }

    /// Makes ready the resolved condition of walk `id` of `kind` (0 `paths`, 1 `group`, 2
    /// `groups`) for a walk from `locals`: kept from its last walk, or resolved now. It stays
    /// in `walks.fast[kind]`, read in place by [`Machine::fast_test`]; a walk nested in the
    /// walk's condition (through the general test) may replace it, and the walk's next spaces
    /// then go the general way.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn fast_ready(
        &mut self,
        g: &Game,
        s: &State,
        kind: usize,
        id: u32,
        op: &crate::ir::vm::PathsOp,
        locals: &[Value],
        me: u8,
    ) {
        // the machine may run another game, whose walks have the same ids
        if self.walks.fast_owner != g.program.id {
            self.walks.fast = [None; 3];
            self.walks.fast_owner = g.program.id;
        }
        let slot = &mut self.walks.fast[kind];
        let kept = matches!(slot, Some((i, _)) if *i == id);
        if !kept {
            *slot = Some((id, WalkFast::of(g, op)));
        }
        // A group walk with the context of the last one, whose resolved condition is still
        // the one kept: the values it compares with are the same (its locals and `me` are in
        // the context, the rest are literals and constants), nothing to read again.
        if kept && kind == 1 && self.walks.again {
            return;
        }
        if let Some((_, Some(WalkFast { one: Some(one), .. }))) = slot {
            one.refresh(g, s, locals, me);
        }
    }

    /// The condition of walk `id` of `kind` at space `sp` through its resolved form (`None`:
    /// left to [`Machine::walk_ok`]).
    #[inline(always)]
    fn fast_test(
        &mut self,
        g: &Game,
        s: &State,
        kind: usize,
        id: u32,
        memo: (u64, u64),
        sp: u32,
    ) -> Option<bool> {
        match &mut self.walks.fast[kind] {
            Some((i, Some(f))) if *i == id => f.test(g, s, memo, sp),
            _ => None,
        }
    }

    /// Ends a board walk: gives back the scratch buffers, and unless the walk failed pushes
    /// the spaces it listed in the buffer from `start_buf` (each once), sorted into board
    /// order, as a buffer iterator.
    fn push_listed(
        &mut self,
        marks: Vec<u8>,
        walk: Vec<(u32, u32, u32)>,
        start_buf: u32,
        result: Eval<()>,
    ) -> Eval<()> {
        self.marks = marks;
        self.walk = walk;
        if let Err(e) = result {
            self.buf.truncate(start_buf as usize);
            return Err(e);
        }
        if let Some(listed) = self.buf.get_mut(start_buf as usize..) {
            listed.sort_unstable_by_key(|v| match v {
                Value::Space(_, sp) => *sp,
                _ => u32::MAX,
            });
        }
        self.iters.push(Iter::Buf {
            start: start_buf,
            pos: start_buf,
            end: self.buf.len() as u32,
        });
        Ok(())
    }

    /// `majority(...)`: the share of the player on top of the stack (the points below it):
    /// among the players of the top iterator with a value of at least 1, those with the
    /// highest value split the points evenly, rounded down.
    #[inline(never)]
    pub(super) fn majority(
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

    /// Evaluates a condition on a space bound to `slot` (true without a condition).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn space_ok(
        &mut self,
        g: &Game,
        s: &State,
        cond: Option<Code>,
        slot: u16,
        v: Value,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<bool> {
        let Some(c) = cond else { return Ok(true) };
        let saved = local(locals, slot);
        if let Some(l) = locals.get_mut(slot as usize) {
            *l = v;
        }
        let r = self.walk_test(g, s, c, slot, v, locals, me);
        if let Some(l) = locals.get_mut(slot as usize) {
            *l = saved;
        }
        r
    }

    /// A walk's condition (or condition part) on the space `v`, already bound to `slot`: flag
    /// code is run here with [`Machine::walk_cmp`], which reads `zone[s]` from the space
    /// without going through the general operands; other code goes to [`Machine::test`].
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn walk_test(
        &mut self,
        g: &Game,
        s: &State,
        code: Code,
        slot: u16,
        v: Value,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<bool> {
        let Value::Space(_, sp) = v else {
            return self.test(g, s, code, locals, me);
        };
        if !g.program.is_flag_code(code) {
            return self.test(g, s, code, locals, me);
        }
        super::compare::run_flags(&g.program.ops, code, |i, pc| {
            self.walk_cmp(g, s, i, pc, slot, sp, locals, me)
        })
    }

    /// A comparison in a walk's condition: when its left side is the count or the top
    /// component's field of `zone[s]` (`s` the walked space `sp`, in `slot`) and its right
    /// side a simple value, read directly; anything else (and anything that does not read
    /// without failing) through [`Machine::cmp`].
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn walk_cmp(
        &mut self,
        g: &Game,
        s: &State,
        i: u32,
        pc: u32,
        slot: u16,
        sp: u32,
        locals: &[Value],
        me: u8,
    ) -> Eval<bool> {
        match walk_quick(g, s, i, slot, sp, locals, me) {
            Some(b) => Ok(b),
            None => self.cmp(g, s, i, pc, locals, me),
        }
    }

    /// A space's test against a board walk's condition; when it is split
    /// ([`crate::ir::vm::PathsOp::parts`]) its parts are tested in order and a fixed part's
    /// answer is kept in `memo` (bits known, bits true) for the rest of the walk.
    #[allow(clippy::too_many_arguments)]
    fn walk_ok(
        &mut self,
        g: &Game,
        s: &State,
        op: &crate::ir::vm::PathsOp,
        memo: &mut (u64, u64),
        v: Value,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<bool> {
        if op.parts.is_empty() {
            return self.space_ok(g, s, op.cond, op.slot, v, locals, me);
        }
        let saved = local(locals, op.slot);
        if let Some(l) = locals.get_mut(op.slot as usize) {
            *l = v;
        }
        let mut r = Ok(true);
        for (i, &(code, fixed)) in op.parts.iter().enumerate() {
            let bit = 1u64 << i;
            let x = if fixed && memo.0 & bit != 0 {
                Ok(memo.1 & bit != 0)
            } else if let (false, Some(b)) = (fixed, count_test(g, s, code, op.slot, v)) {
                Ok(b)
            } else {
                let x = if fixed {
                    self.test(g, s, code, locals, me)
                } else {
                    self.walk_test(g, s, code, op.slot, v, locals, me)
                };
                if let (true, Ok(b)) = (fixed, &x) {
                    memo.0 |= bit;
                    if *b {
                        memo.1 |= bit;
                    }
                }
                x
            };
            if !matches!(x, Ok(true)) {
                r = x;
                break;
            }
        }
        if let Some(l) = locals.get_mut(op.slot as usize) {
            *l = saved;
        }
        r
    }

    /// `paths(...)`: the ends of the simple paths of exactly `steps` steps from `from`, each
    /// entered space meeting the condition; pushed as a buffer iterator, in board order.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(super) fn paths(
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
    fn paths_small(
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
    fn count_loop(g: &Game, pc: u32) -> Option<(u16, u32)> {
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
    fn count_at_once(
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
    pub(super) fn count_walked(&mut self, g: &Game, pc: u32, locals: &mut [Value]) -> u32 {
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
    fn push_spaces(&mut self, board: BoardId, mut set: u64) {
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
    fn paths_dfs(
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

    /// `group(...)` (the op before `pc`): the connected spaces meeting the condition around
    /// `start`, in board order, pushed as a buffer iterator, or counted at once by the
    /// `count` loop that follows ([`Machine::count_walked`]); the position the op loop goes
    /// on at.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(super) fn group(
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
    fn group_small(
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
    fn group_flood(
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
    pub(super) fn groups(
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

    /// `line(s in board, n [, at] where cond)`: `n` consecutive spaces in a straight line all
    /// meet the condition (through `at` when given).
    #[inline(never)]
    pub(super) fn line(
        &mut self,
        g: &Game,
        s: &State,
        id: u32,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<bool> {
        // The condition's variable is bound to each space tested and given back its value
        // once, at the end.
        let slot = g.program.lines[id as usize].slot;
        let saved = local(locals, slot);
        let r = self.line_walk(g, s, id, locals, me);
        if let Some(l) = locals.get_mut(slot as usize) {
            *l = saved;
        }
        r
    }

    /// [`Machine::line`], leaving the condition's variable bound to the last space tested.
    #[inline(always)]
    fn line_walk(
        &mut self,
        g: &Game,
        s: &State,
        id: u32,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<bool> {
        let op = &g.program.lines[id as usize];
        let through = if op.through {
            match self.pop() {
                Value::Space(_, sp) => Some(sp as i64),
                _ => {
                    self.pop();
                    return Ok(false);
                }
            }
        } else {
            None
        };
        let n = match self.pop() {
            Value::Int(n) => n.max(1),
            other => return Err(expected(g, s, "a number", other, None)),
        };
        let board = &g.boards[op.board];
        let (cond, slot) = (op.cond, op.slot);
        let closing = board.closing(&s.consts);
        // A condition that is one comparison of `var[s]` with `me`, `none` or a number is
        // resolved once and read at each space in place; each space still costs its unit
        // of work, charged together when the walk is over or before the condition goes
        // through the machine (the walk itself only reads, so the budget runs out on the
        // same walks as when it was charged space by space).
        let d = cond.and_then(|c| SpaceCmp::of(g, c, slot, me));
        // On an open board whose every space the comparison reads and always decides, the
        // walk reads the variable's slots and nothing else.
        let len = board.len();
        if let Some(SpaceCmp { base, size, pred }) = d {
            let cells = s.vars.get(base as usize..(base + len) as usize);
            let fits = size >= len && !closing && through.is_none_or(|t| (t as u64) < len as u64);
            let walked = match (cells, pred) {
                (Some(cells), SpacePred::Player(p, ne)) if fits => {
                    Some(cells_walk(board, through, n, cells, move |v: &Value| {
                        ne ^ matches!(*v, Value::Player(q) if q == p)
                    }))
                }
                (Some(cells), SpacePred::None(ne)) if fits => {
                    Some(cells_walk(board, through, n, cells, move |v: &Value| {
                        ne ^ matches!(*v, Value::None)
                    }))
                }
                _ => None,
            };
            if let Some((r, count)) = walked {
                self.spend_n(count)?;
                return r;
            }
        }
        let mut walk = LineWalk {
            d,
            m: self,
            g,
            s,
            id,
            locals,
            me,
            board,
            closing,
            pending: 0,
        };
        let r = line_shape(board, through, n, &mut walk);
        let pending = walk.pending;
        self.spend_n(pending)?;
        r
    }

    /// A space of a line whose condition did not read in place: the work charged so far,
    /// then the condition through the machine.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn line_slow(
        &mut self,
        g: &Game,
        s: &State,
        id: u32,
        sp: i64,
        locals: &mut [Value],
        me: u8,
        pending: &mut u64,
    ) -> Eval<bool> {
        self.spend_n(std::mem::take(pending))?;
        let op = &g.program.lines[id as usize];
        let Some(c) = op.cond else { return Ok(true) };
        if let Some(l) = locals.get_mut(op.slot as usize) {
            *l = Value::Space(op.board, sp as u32);
        }
        self.test(g, s, c, locals, me)
    }

    /// Spends `k` units of work at once: the error of [`Machine::spend`] when fewer are
    /// left (the budget then empty, as `k` single spends would have left it).
    #[inline(always)]
    fn spend_n(&mut self, k: u64) -> Eval<()> {
        if self.fuel < k {
            self.fuel = 0;
            return Err(self.out_of_fuel(None));
        }
        self.fuel -= k;
        Ok(())
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
    pub(super) fn board_iter(
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
        let Some(d) = SpaceCmp::of_cmp(g, i, slot, me) else {
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
    fn scan_left(
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

    /// `connected(s in board, A, B where cond)`: a flood from the spaces meeting `A` and
    /// `cond`, over neighbours meeting `cond`, until a space meeting `B`. One unit of work per
    /// space looked at. (The condition is any expression of the state, so an incremental
    /// structure kept between decisions could not know when it changes; the flood uses the
    /// machine's scratch flags and allocates nothing.)
    #[inline(never)]
    pub(super) fn connected(
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
    pub(super) fn flood(
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

    /// `best_sets(...)`: the most points from disjoint sets of the kinds, formed from the
    /// elements of the top iterator that pass the filter.
    #[inline(never)]
    pub(super) fn best_sets(
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
    pub(super) fn form(
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

/// The best total from sets not touching `used`: the lowest free member either stays out, or
/// joins one of the sets that contain it.
/// A walk's condition part that compares the number of components in `zone[s]` with a number
/// (`empty(cell[s])`, `count(cell[s]) < 2`), `s` the walked space `v`: answered from the zone's
/// length without the comparison machinery (`None`: another shape, or `v` out of the zone).
#[inline(always)]
fn count_test(g: &Game, s: &State, code: Code, slot: u16, v: Value) -> Option<bool> {
    use crate::ir::vm::{Operand, ZoneAt};
    if code.end != code.start + 1 {
        return None;
    }
    let Some(Op::Cmp(i)) = g.program.ops.get(code.start as usize) else {
        return None;
    };
    let c = g.program.cmps.get(*i as usize)?;
    let (
        Operand::ZoneLen(ZoneAt::Local {
            base,
            size,
            slot: at,
        }),
        Operand::Int(n),
    ) = (c.a, c.b)
    else {
        return None;
    };
    let Value::Space(_, sp) = v else { return None };
    if at != slot || sp >= size as u32 {
        return None;
    }
    let len = s.zones.len(crate::ir::InstId(base + sp)) as i64;
    super::compare::int_cmp(c.op, len, n as i64)
}

/// A comparison of `var[s]` (`s` a walked space, the variable of one dimension) with a value
/// fixed for the walk, resolved once: the variable's slots and what they are compared with.
#[derive(Clone, Copy, Debug)]
struct SpaceCmp {
    /// The variable's first slot.
    base: u32,
    /// The size of its dimension.
    size: u32,
    pred: SpacePred,
}

/// What a [`SpaceCmp`] asks of a variable's value.
#[derive(Clone, Copy, Debug)]
enum SpacePred {
    /// Holds this seat (does not, when the flag is set).
    Player(u8, bool),
    /// Holds `none` (does not, when the flag is set).
    None(bool),
    /// Holds a number that compares so with this one (undecided when not a number).
    Int(i64, BinOp),
}

impl SpacePred {
    #[inline(always)]
    fn on(self, v: &Value) -> Option<bool> {
        match self {
            SpacePred::Player(p, ne) => Some(ne ^ matches!(*v, Value::Player(q) if q == p)),
            SpacePred::None(ne) => Some(ne ^ matches!(*v, Value::None)),
            SpacePred::Int(n, op) => match *v {
                Value::Int(x) => super::compare::int_cmp(op, x, n),
                _ => None,
            },
        }
    }
}

impl SpaceCmp {
    /// The fast form of `code` when it is one comparison of `var[slot]` with `me`, `none`
    /// or a small number ([`crate::ir::vm::FastCmp`]), `me` being the seat it runs for.
    #[inline]
    fn of(g: &Game, code: Code, slot: u16, me: u8) -> Option<SpaceCmp> {
        let Some(&[Op::Cmp(i)]) = g.program.ops.get(code.start as usize..code.end as usize) else {
            return None;
        };
        SpaceCmp::of_cmp(g, i, slot, me)
    }

    /// The fast form of comparison `i` when it compares `var[slot]` with `me`, `none` or a
    /// small number.
    #[inline]
    fn of_cmp(g: &Game, i: u32, slot: u16, me: u8) -> Option<SpaceCmp> {
        use crate::ir::vm::FastCmp;
        let (at, pred) = match *g.program.fast.get(i as usize)? {
            FastCmp::AtMe { at, ne } => (at, SpacePred::Player(me, ne)),
            FastCmp::AtNone { at, ne } => (at, SpacePred::None(ne)),
            FastCmp::AtInt { at, n, op } => (at, SpacePred::Int(n as i64, op)),
            _ => return None,
        };
        (at.slot == slot).then_some(SpaceCmp {
            base: at.base,
            size: at.size as u32,
            pred,
        })
    }

    /// The comparison at space `sp` (`None`: a space past the variable, or a slot that is
    /// not a number for a comparison of numbers: left to the general comparison).
    #[inline(always)]
    fn at(&self, vars: &[Value], sp: u32) -> Option<bool> {
        if sp >= self.size {
            return None;
        }
        self.pred.on(vars.get((self.base + sp) as usize)?)
    }
}

/// How a `line` walk tests a space (inlined into each walk).
trait LineTest {
    fn test(&mut self, sp: i64) -> Eval<bool>;
}

/// The test of a line whose condition always reads in place on an open board: the
/// variable's slots for the board's spaces, the question asked of each, and the count of
/// spaces tested (the units of work the caller charges).
struct CellsTest<'a, F> {
    cells: &'a [Value],
    f: F,
    count: u64,
}

impl<F: Fn(&Value) -> bool> LineTest for CellsTest<'_, F> {
    #[inline(always)]
    fn test(&mut self, sp: i64) -> Eval<bool> {
        self.count += 1;
        Ok(self.cells.get(sp as usize).is_some_and(&self.f))
    }
}

/// A `line` walk's test of a space: its fast form read in place when it has one, else the
/// condition through the machine; the units of work of the spaces tested are counted in
/// `pending` and charged by the caller.
struct LineWalk<'a> {
    d: Option<SpaceCmp>,
    m: &'a mut Machine,
    g: &'a Game,
    s: &'a State,
    id: u32,
    locals: &'a mut [Value],
    me: u8,
    board: &'a crate::ir::Board,
    closing: bool,
    pending: u64,
}

impl LineTest for LineWalk<'_> {
    #[inline(always)]
    fn test(&mut self, sp: i64) -> Eval<bool> {
        self.pending += 1;
        if self.board.is_closed(sp as u32, self.closing) {
            return Ok(false);
        }
        if let Some(b) = self.d.and_then(|d| d.at(&self.s.vars, sp as u32)) {
            return Ok(b);
        }
        let (g, s, id, me) = (self.g, self.s, self.id, self.me);
        self.m
            .line_slow(g, s, id, sp, self.locals, me, &mut self.pending)
    }
}

/// A line walk over `cells` (a variable's slots for every space of the board) asking `f`
/// of each space: the answer and the number of spaces tested.
#[inline(always)]
fn cells_walk(
    board: &crate::ir::Board,
    through: Option<i64>,
    n: i64,
    cells: &[Value],
    f: impl Fn(&Value) -> bool,
) -> (Eval<bool>, u64) {
    let mut t = CellsTest { cells, f, count: 0 };
    let r = line_shape(board, through, n, &mut t);
    (r, t.count)
}

/// The walk of `line(s in board, n [, through] where ...)` over the board's shape, `test`
/// telling whether a space (on the board) meets the condition.
#[inline(always)]
fn line_shape(
    board: &crate::ir::Board,
    through: Option<i64>,
    n: i64,
    walk: &mut impl LineTest,
) -> Eval<bool> {
    match board.shape {
        BoardShape::Hex { .. } => {
            // The three axes of a hex board: east, northeast, northwest.
            const AXES: [u16; 3] = [2, 1, 7];
            let starts: &mut dyn Iterator<Item = u32> = match through {
                Some(t) => &mut std::iter::once(t as u32),
                None => &mut (0..board.len()),
            };
            for t in starts {
                if !walk.test(t as i64)? {
                    continue;
                }
                for d in AXES {
                    let mut run = 1;
                    // Through `t`: both ways; otherwise lines starting at `t`.
                    let ways: &[u16] = if through.is_some() {
                        &[d, crate::ir::opposite(d)]
                    } else {
                        &[d]
                    };
                    for &way in ways {
                        let mut at = t;
                        while run < n {
                            match board.step(at, way, false) {
                                Some(next) if walk.test(next as i64)? => {
                                    run += 1;
                                    at = next;
                                }
                                _ => break,
                            }
                        }
                    }
                    if run >= n {
                        return Ok(true);
                    }
                }
            }
            Ok(false)
        }
        BoardShape::Graph => {
            for line in &board.geo.lines {
                match through {
                    Some(t) => {
                        let Some(i) = line.iter().position(|&x| x as i64 == t) else {
                            continue;
                        };
                        if !walk.test(t)? {
                            return Ok(false);
                        }
                        let mut run = 1;
                        let mut k = i;
                        while run < n && k + 1 < line.len() && walk.test(line[k + 1] as i64)? {
                            run += 1;
                            k += 1;
                        }
                        let mut k = i;
                        while run < n && k > 0 && walk.test(line[k - 1] as i64)? {
                            run += 1;
                            k -= 1;
                        }
                        if run >= n {
                            return Ok(true);
                        }
                    }
                    None => {
                        let mut run = 0;
                        for &x in line {
                            run = if walk.test(x as i64)? { run + 1 } else { 0 };
                            if run >= n {
                                return Ok(true);
                            }
                        }
                    }
                }
            }
            Ok(false)
        }
        BoardShape::Grid { width, height, .. } => {
            let (w, h) = (width as i64, height as i64);
            const DIRS: [(i64, i64); 4] = [(1, 0), (0, 1), (1, 1), (-1, 1)];
            if let Some(t) = through {
                let (tx, ty) = (t % w, t / w);
                if !walk.test(t)? {
                    return Ok(false);
                }
                for (dx, dy) in DIRS {
                    let mut run = 1;
                    for sign in [1i64, -1] {
                        let mut k = 1;
                        while run < n {
                            let (x, y) = (tx + sign * dx * k, ty + sign * dy * k);
                            if x < 0 || y < 0 || x >= w || y >= h || !walk.test(y * w + x)? {
                                break;
                            }
                            run += 1;
                            k += 1;
                        }
                    }
                    if run >= n {
                        return Ok(true);
                    }
                }
                return Ok(false);
            }
            for y in 0..h {
                for x in 0..w {
                    'dir: for (dx, dy) in DIRS {
                        let (ex, ey) = (x + dx * (n - 1), y + dy * (n - 1));
                        if ex < 0 || ex >= w || ey >= h {
                            continue;
                        }
                        for k in 0..n {
                            if !walk.test((y + dy * k) * w + x + dx * k)? {
                                continue 'dir;
                            }
                        }
                        return Ok(true);
                    }
                }
            }
            Ok(false)
        }
        BoardShape::Ring { size } => {
            let size = size as i64;
            let len = n.min(size);
            // Through `t`: the runs that start at t, t - 1, ..., t - n + 1.
            let count = if through.is_some() { len } else { size };
            'start: for i in 0..count {
                let s0 = match through {
                    Some(t) => (t - i).rem_euclid(size),
                    None => i,
                };
                for k in 0..len {
                    if !walk.test((s0 + k) % size)? {
                        continue 'start;
                    }
                }
                return Ok(true);
            }
            Ok(false)
        }
    }
}

/// A board walk over at most 64 spaces held in bit sets ([`Machine::paths_dfs`]).
struct BitWalk<'a> {
    /// The neighbours of each space as sets, in the adjacency in force ([`Board::near`]),
    /// and the starts of its rows (how many neighbours each space has).
    near: &'a [u64],
    starts: &'a [u32],
    /// The spaces whose condition is known, and those of them that meet it.
    known: u64,
    ok: u64,
    /// The spaces found (the ends of the paths).
    found: u64,
    /// The steps taken: the units of work of the walk.
    steps: u64,
}

impl BitWalk<'_> {
    /// Tests the spaces of `set` not known yet; false when `test` does not answer one.
    #[inline(always)]
    fn learn(&mut self, m: &mut Machine, test: &mut impl SpaceTest, set: u64) -> bool {
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

/// The most parts of a split walk condition resolved by a [`WalkFast`].
const FAST_PARTS: usize = 6;

/// A part of a split walk condition ([`crate::ir::vm::PathsOp::parts`]) as a [`WalkFast`]
/// tests it.
#[derive(Clone, Copy, Debug)]
enum PartFast {
    /// A fixed part: its answer kept in the walk's memo once it was tested.
    Fixed,
    /// `count(zone[s]) op n` (`empty(zone[s])`): the zone's first instance and the size of
    /// its dimension.
    Len {
        base: u32,
        size: u32,
        n: i32,
        op: BinOp,
    },
    /// Anything else.
    Other,
}

/// A board walk's condition resolved once per walk, so that a space is tested without
/// decoding the condition again: a split condition's parts that compare the count of
/// `zone[s]` with a number and its fixed parts (once known), or a whole condition read
/// through one value ([`OneRead`]). A space it cannot answer so goes to
/// [`Machine::walk_ok`], which tests it whole (parts already answered here are reads of the
/// game, tested again with the same answer; fixed parts are not tested twice: the memo is
/// shared).
#[derive(Clone, Copy, Debug)]
struct WalkFast {
    parts: [PartFast; FAST_PARTS],
    n: usize,
    one: Option<OneRead>,
}

impl WalkFast {
    /// The resolved condition of `op` (`None`: nothing in it is resolved).
    fn of(g: &Game, op: &crate::ir::vm::PathsOp) -> Option<WalkFast> {
        use crate::ir::vm::{Operand, ZoneAt};
        if op.parts.is_empty() {
            return OneRead::of(g, op.cond, op.slot).map(|one| WalkFast {
                parts: [PartFast::Other; FAST_PARTS],
                n: 0,
                one: Some(one),
            });
        }
        if op.parts.len() > FAST_PARTS {
            return None;
        }
        let mut parts = [PartFast::Other; FAST_PARTS];
        for (p, &(code, fixed)) in parts.iter_mut().zip(&op.parts) {
            *p = if fixed {
                PartFast::Fixed
            } else if code.end != code.start + 1 {
                PartFast::Other
            } else {
                let cmp = match g.program.ops.get(code.start as usize) {
                    Some(Op::Cmp(i)) => g.program.cmps.get(*i as usize),
                    _ => None,
                };
                match cmp {
                    Some(&crate::ir::vm::Cmp {
                        op: cop,
                        a:
                            Operand::ZoneLen(ZoneAt::Local {
                                base,
                                size,
                                slot: at,
                            }),
                        b: Operand::Int(n),
                    }) if at == op.slot => PartFast::Len {
                        base,
                        size: size as u32,
                        n,
                        op: cop,
                    },
                    _ => PartFast::Other,
                }
            };
        }
        if parts.iter().all(|p| matches!(p, PartFast::Other)) {
            return None;
        }
        Some(WalkFast {
            parts,
            n: op.parts.len(),
            one: None,
        })
    }

    /// The condition with the fixed parts' answers in `memo`, when it is made of parts that
    /// compare the count of `zone[s]` with a number and fixed parts all answered.
    fn lens(&self, memo: (u64, u64)) -> Option<LenTests> {
        if self.one.is_some() {
            return None;
        }
        let mut t = LenTests {
            parts: [LenPart::False; FAST_PARTS],
            n: 0,
        };
        for (i, p) in self.parts[..self.n].iter().enumerate() {
            let part = match *p {
                PartFast::Fixed if memo.0 & (1 << i) == 0 => return None,
                PartFast::Fixed if memo.1 & (1 << i) != 0 => continue,
                PartFast::Fixed => LenPart::False,
                PartFast::Len { base, size, n, op } => LenPart::Len {
                    base,
                    size,
                    n: n as i64,
                    op,
                },
                PartFast::Other => return None,
            };
            t.parts[t.n] = part;
            t.n += 1;
            if matches!(part, LenPart::False) {
                break;
            }
        }
        Some(t)
    }

    /// The condition at space `sp` (`None`: left to [`Machine::walk_ok`]).
    #[inline(always)]
    fn test(&mut self, g: &Game, s: &State, memo: (u64, u64), sp: u32) -> Option<bool> {
        if let Some(one) = &mut self.one {
            return one.test(g, s, sp);
        }
        for (i, p) in self.parts[..self.n].iter().enumerate() {
            let ok = match *p {
                PartFast::Fixed if memo.0 & (1 << i) != 0 => memo.1 & (1 << i) != 0,
                PartFast::Len { base, size, n, op } if sp < size => {
                    let len = s.zones.len(crate::ir::InstId(base + sp)) as i64;
                    super::compare::int_cmp(op, len, n as i64)?
                }
                _ => return None,
            };
            if !ok {
                return Some(false);
            }
        }
        Some(true)
    }
}

/// A board walk's condition at a space, answered without the general test (`None`: a
/// space it does not answer).
trait SpaceTest {
    fn test(&mut self, m: &mut Machine, sp: u32) -> Option<bool>;

    /// The spaces of `set` that meet the condition (`None`: one it does not answer).
    #[inline(always)]
    fn test_set(&mut self, m: &mut Machine, set: u64) -> Option<u64> {
        let (mut left, mut ok) = (set, 0u64);
        while left != 0 {
            let sp = left.trailing_zeros();
            left &= left - 1;
            ok |= (self.test(m, sp)? as u64) << sp;
        }
        Some(ok)
    }
}

/// Through the walk's [`WalkFast`] kept in the machine ([`Machine::fast_test`]): a paths
/// walk's id and fixed parts' answers.
impl SpaceTest for (&Game, &State, (usize, u32), (u64, u64)) {
    #[inline(always)]
    fn test(&mut self, m: &mut Machine, sp: u32) -> Option<bool> {
        let (g, s, (kind, id), memo) = *self;
        m.fast_test(g, s, kind, id, memo, sp)
    }
}

impl SpaceTest for (LenTests, &State) {
    #[inline(always)]
    fn test(&mut self, _: &mut Machine, sp: u32) -> Option<bool> {
        self.0.test(self.1, sp)
    }

    #[inline(always)]
    fn test_set(&mut self, _: &mut Machine, set: u64) -> Option<u64> {
        self.0.test_set(self.1, set)
    }
}

/// A part of [`LenTests`].
#[derive(Clone, Copy, Debug)]
enum LenPart {
    /// `count(zone[s]) op n`: the zone's first instance and the size of its dimension.
    Len {
        base: u32,
        size: u32,
        n: i64,
        op: BinOp,
    },
    /// A fixed part known to be false.
    False,
}

/// A [`WalkFast`] of parts that compare the count of `zone[s]` with a number and fixed parts
/// already answered, with those answers in place ([`WalkFast::lens`]): the fixed parts found
/// true are left out, the first found false ends the parts.
#[derive(Clone, Copy, Debug)]
struct LenTests {
    parts: [LenPart; FAST_PARTS],
    n: usize,
}

impl LenTests {
    /// The condition at every space at once when each part asks only whether `zone[s]` is
    /// empty (the answer for a count of 0 and one answer for every count from 1): the
    /// spaces it answers and those of them that meet it, read from the zones' bit set of
    /// the instances that hold something ([`crate::engine::zones::Zones::held`]).
    #[inline(always)]
    fn passing(&self, s: &State) -> Option<Known> {
        let (mut valid, mut pass) = (u64::MAX, u64::MAX);
        for p in &self.parts[..self.n] {
            let LenPart::Len { base, size, n, op } = *p else {
                return Some(Known { valid, pass: 0 });
            };
            let (empty, held) = emptiness(op, n)?;
            let full = s.zones.held(base, size.min(64))?;
            let size_mask = match size {
                64.. => u64::MAX,
                _ => (1u64 << size) - 1,
            };
            valid &= size_mask;
            let part = (if empty { !full } else { 0 }) | (if held { full } else { 0 });
            pass &= part & size_mask;
        }
        Some(Known { valid, pass })
    }

    /// [`LenTests::test`] at each space of `set`: those that meet the condition (each part
    /// read at the spaces that passed the parts before it).
    #[inline(never)]
    fn test_set(&self, s: &State, set: u64) -> Option<u64> {
        let mut ok = set;
        for p in &self.parts[..self.n] {
            let LenPart::Len { base, size, n, op } = *p else {
                return Some(0);
            };
            let mut left = ok;
            while left != 0 {
                let sp = left.trailing_zeros();
                left &= left - 1;
                if sp >= size {
                    return None;
                }
                let len = s.zones.len(crate::ir::InstId(base + sp)) as i64;
                if !super::compare::int_cmp(op, len, n)? {
                    ok &= !(1u64 << sp);
                }
            }
        }
        Some(ok)
    }

    /// [`WalkFast::test`] at space `sp`.
    #[inline(always)]
    fn test(&self, s: &State, sp: u32) -> Option<bool> {
        for p in &self.parts[..self.n] {
            match *p {
                LenPart::Len { base, size, n, op } => {
                    if sp >= size {
                        return None;
                    }
                    let len = s.zones.len(crate::ir::InstId(base + sp)) as i64;
                    if !super::compare::int_cmp(op, len, n)? {
                        return Some(false);
                    }
                }
                LenPart::False => return Some(false),
            }
        }
        Some(true)
    }
}

/// `count(zone[s]) op n` as a question of emptiness: its answers for an empty zone and for
/// every zone holding one component or more (`None`: the answer depends on how many).
#[inline(always)]
fn emptiness(op: BinOp, n: i64) -> Option<(bool, bool)> {
    let empty = super::compare::int_cmp(op, 0, n)?;
    let one = super::compare::int_cmp(op, 1, n)?;
    let same = match op {
        BinOp::Eq | BinOp::Ne => n < 1,
        // monotone in the count: the same answer at 1 and at the most a zone can hold
        _ => super::compare::int_cmp(op, u32::MAX as i64, n)? == one,
    };
    same.then_some((empty, one))
}

/// The most steps of a path walked by [`paths_known`].
const KNOWN_STEPS: usize = 8;

/// [`Machine::paths_dfs`] when the condition is known at every space of the board (`known`
/// answers them all): the same paths, the same ends and the same steps counted (each space
/// a path reaches with steps left adds its number of neighbours), without asking the
/// condition on the way, the stack in a small array. `None` (nothing counted): a space
/// `known` does not answer, or a path of more than [`KNOWN_STEPS`] steps. A walk whose steps
/// pass `budget` stops there, its steps counted so far (more than the budget).
#[inline(always)]
fn paths_known(walk: &mut BitWalk, start: u32, n: u32, known: Known, budget: u64) -> Option<()> {
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
struct Known {
    valid: u64,
    pass: u64,
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

/// What a [`OneRead`] condition reads of the walked space `s`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum SpaceRead {
    /// Field `f` of the top component of `zone[s]` (`none` when it is empty): the
    /// zone's first instance and the size of its dimension.
    Top { base: u32, size: u32, f: u16 },
    /// `var[s]`: the variable's first slot and the size of its dimension.
    Var { base: u32, size: u32 },
}

impl SpaceRead {
    /// The value read at space `sp` (`None`: past the zone or variable, or a field the
    /// component does not have).
    #[inline(always)]
    fn at(self, g: &Game, s: &State, sp: u32) -> Option<Value> {
        match self {
            SpaceRead::Top { base, size, f } => {
                if sp >= size {
                    return None;
                }
                super::compare::top_field_at(g, s, crate::ir::InstId(base + sp), f)
            }
            SpaceRead::Var { base, size } => {
                if sp >= size {
                    return None;
                }
                s.vars.get((base + sp) as usize).copied()
            }
        }
    }
}

/// How many answers a [`OneRead`] keeps (the distinct values read).
const ONE_READ_KEPT: usize = 8;
/// How many sets of kept answers a [`OneRead`] keeps, each for its compared values (a flow
/// loop's `for f in Face` walks the same condition with each `f`).
const ONE_READ_SETS: usize = 5;
/// The most ops and comparisons of a [`OneRead`] condition.
const ONE_READ_OPS: usize = 16;
const ONE_READ_CMPS: usize = 8;

/// A board walk's condition that reads the walked space only through one value (flag code
/// whose every comparison is `==` or `!=` between the same `face(s)`, the top component's
/// field of `zone[s]`, or the same `var[s]`, and a value fixed for the walk: a local other
/// than `s`, a literal, a constant, a small number, `none` or `me`): its answer depends only
/// on that value and the values it is compared with, so it is computed once per value read
/// and read back for the other spaces showing it, in this walk and the next walks of the
/// same condition while the compared values are the same (`matches(x, f)`,
/// `face(x) == f or face(x) == wild`).
#[derive(Clone, Copy, Debug)]
struct OneRead {
    read: SpaceRead,
    code: Code,
    /// Per op of the code, the position of its comparison in `cmps` and `rhs`.
    at: [u8; ONE_READ_OPS],
    /// Per comparison: its index in the program's comparisons.
    cmps: [u32; ONE_READ_CMPS],
    ncmps: usize,
    /// Whether every compared value read at the start of this walk.
    ready: bool,
    /// Answers kept per value read, each set for its compared values: (per comparison the
    /// value it compares with, the answers, how many); the current set, the next to replace.
    sets: [OneReadKept; ONE_READ_SETS],
    cur: usize,
    next: usize,
}

/// A [`OneRead`]'s answers kept for one set of compared values.
type OneReadKept = (
    [Value; ONE_READ_CMPS],
    [(Value, bool); ONE_READ_KEPT],
    usize,
);

impl OneRead {
    /// The condition `code` on the space in `slot`, when it has this shape.
    fn of(g: &Game, code: Option<Code>, slot: u16) -> Option<OneRead> {
        use crate::ir::vm::{Operand, ZoneAt};
        let code = code?;
        let p = &g.program;
        if !p.is_flag_code(code) || (code.end - code.start) as usize > ONE_READ_OPS {
            return None;
        }
        let mut read = None;
        let mut at = [0u8; ONE_READ_OPS];
        let mut cmps = [0u32; ONE_READ_CMPS];
        let mut ncmps = 0;
        for (k, op) in p
            .ops
            .get(code.start as usize..code.end as usize)?
            .iter()
            .enumerate()
        {
            let i = match *op {
                Op::Cmp(i) => i,
                Op::JumpIfNot(_) | Op::AndJump(_) | Op::OrJump(_) | Op::Jump(_) | Op::Not => {
                    continue
                }
                _ => return None,
            };
            let c = p.cmps.get(i as usize)?;
            if !matches!(c.op, BinOp::Eq | BinOp::Ne) || ncmps == ONE_READ_CMPS {
                return None;
            }
            let r = match c.a {
                Operand::TopField(
                    ZoneAt::Local {
                        base,
                        size,
                        slot: at,
                    },
                    f,
                ) if at == slot => SpaceRead::Top {
                    base,
                    size: size as u32,
                    f,
                },
                Operand::VarAt {
                    base,
                    size,
                    slot: at,
                } if at == slot => SpaceRead::Var {
                    base,
                    size: size as u32,
                },
                _ => return None,
            };
            if read.is_some_and(|x| x != r) {
                return None;
            }
            read = Some(r);
            match c.b {
                Operand::Local(l) if l != slot => {}
                Operand::Lit(_) | Operand::Const(_) | Operand::Int(_) | Operand::None => {}
                Operand::Me => {}
                _ => return None,
            }
            at[k] = ncmps as u8;
            cmps[ncmps] = i;
            ncmps += 1;
        }
        Some(OneRead {
            read: read?,
            code,
            at,
            cmps,
            ncmps,
            ready: false,
            sets: [(
                [Value::None; ONE_READ_CMPS],
                [(Value::None, false); ONE_READ_KEPT],
                0,
            ); ONE_READ_SETS],
            cur: 0,
            next: 1,
        })
    }

    /// A walk starts: reads the values compared with, and when one of them changed since
    /// the last walk takes the answers kept for the new values, if any, or else a set of
    /// its own for them (not ready when one does not read: every space then goes the
    /// general way, which tells why).
    fn refresh(&mut self, g: &Game, s: &State, locals: &[Value], me: u8) {
        use crate::ir::vm::Operand;
        let p = &g.program;
        self.ready = false;
        let mut rhs = [Value::None; ONE_READ_CMPS];
        let n = self.ncmps.min(ONE_READ_CMPS);
        for (r, &i) in rhs.iter_mut().zip(&self.cmps[..n]) {
            let Some(c) = p.cmps.get(i as usize) else {
                return;
            };
            let b = match c.b {
                Operand::Local(l) => locals.get(l as usize).copied(),
                Operand::Lit(l) => p.lits.get(l as usize).copied(),
                Operand::Const(k) => Some(s.consts[k]),
                Operand::Int(n) => Some(Value::Int(n as i64)),
                Operand::None => Some(Value::None),
                Operand::Me => Some(Value::Player(me)),
                _ => None,
            };
            let Some(b) = b else { return };
            *r = b;
        }
        // (the values past the comparisons are `none` in every set)
        if self
            .sets
            .get(self.cur)
            .is_some_and(|e| e.0[..n] != rhs[..n])
        {
            self.keep_for(rhs, n);
        }
        self.ready = true;
    }

    /// The compared values become `rhs`: the set kept for them becomes the current one, or
    /// else the next set in turn (never the current one) is emptied for them.
    #[inline(never)]
    fn keep_for(&mut self, rhs: [Value; ONE_READ_CMPS], n: usize) {
        if let Some(at) = self.sets.iter().position(|e| e.0[..n] == rhs[..n]) {
            self.cur = at;
            return;
        }
        let mut at = self.next % ONE_READ_SETS;
        if at == self.cur {
            at = (at + 1) % ONE_READ_SETS;
        }
        self.next = (at + 1) % ONE_READ_SETS;
        self.sets[at].0 = rhs;
        self.sets[at].2 = 0;
        self.cur = at;
    }

    /// The condition at space `sp` (`None`: a space it does not read in place, or a
    /// compared value that does not read: left to the general test, which gives the same
    /// answer or the error).
    #[inline(always)]
    fn test(&mut self, g: &Game, s: &State, sp: u32) -> Option<bool> {
        if !self.ready {
            return None;
        }
        let v = self.read.at(g, s, sp)?;
        let (_, kept, n) = self.sets.get(self.cur)?;
        let n = (*n).min(ONE_READ_KEPT);
        if let Some(&(_, b)) = kept[..n].iter().find(|(x, _)| *x == v) {
            return Some(b);
        }
        let b = self.answer(g, v)?;
        if let Some((_, kept, n)) = self.sets.get_mut(self.cur) {
            if *n < ONE_READ_KEPT {
                kept[*n] = (v, b);
                *n += 1;
            }
        }
        Some(b)
    }

    /// The condition's flag code run with `v` as the value read (the loop of
    /// [`Machine::flags`]: the same comparisons in the same order).
    #[inline(never)]
    fn answer(&self, g: &Game, v: Value) -> Option<bool> {
        let p = &g.program;
        let cmp = |_, pc: u32| {
            let k = *self.at.get((pc - self.code.start) as usize)? as usize;
            let c = p.cmps.get(*self.cmps.get(k)? as usize)?;
            Some((v == *self.sets.get(self.cur)?.0.get(k)?) ^ (c.op == BinOp::Ne))
        };
        super::compare::run_flags(&p.ops, self.code, |i, pc| cmp(i, pc).ok_or(())).ok()
    }
}

/// [`Machine::walk_cmp`]'s direct reading (`None`: another shape, or a value that does not
/// read: left to the general comparison, which gives the same answer or the error).
#[inline(always)]
fn walk_quick(
    g: &Game,
    s: &State,
    i: u32,
    slot: u16,
    sp: u32,
    locals: &[Value],
    me: u8,
) -> Option<bool> {
    use crate::ir::vm::{Operand, ZoneAt};
    let c = g.program.cmps.get(i as usize)?;
    let a = match c.a {
        Operand::TopField(
            ZoneAt::Local {
                base,
                size,
                slot: at,
            },
            f,
        ) if at == slot && sp < size as u32 => {
            super::compare::top_field_at(g, s, crate::ir::InstId(base + sp), f)?
        }
        Operand::ZoneLen(ZoneAt::Local {
            base,
            size,
            slot: at,
        }) if at == slot && sp < size as u32 => {
            Value::Int(s.zones.len(crate::ir::InstId(base + sp)) as i64)
        }
        _ => return None,
    };
    let b = match c.b {
        Operand::Local(l) => *locals.get(l as usize)?,
        Operand::Lit(l) => *g.program.lits.get(l as usize)?,
        Operand::Const(k) => s.consts[k],
        Operand::Int(n) => Value::Int(n as i64),
        Operand::None => Value::None,
        Operand::Me => Value::Player(me),
        _ => return None,
    };
    Some(match (c.op, a, b) {
        (BinOp::Eq, a, b) => a == b,
        (BinOp::Ne, a, b) => a != b,
        (BinOp::Lt, Value::Int(x), Value::Int(y)) => x < y,
        (BinOp::Le, Value::Int(x), Value::Int(y)) => x <= y,
        (BinOp::Gt, Value::Int(x), Value::Int(y)) => x > y,
        (BinOp::Ge, Value::Int(x), Value::Int(y)) => x >= y,
        _ => return None,
    })
}

/// Each allocation searched costs one unit of work, and so does each set tried for its lowest
/// free member (`holding[i]`: the sets holding member `i`), so that a search over thousands
/// of sets stops at the budget as it goes.
fn best_from(
    used: u64,
    (sets, holding): (&[(u64, i64)], &[Vec<u32>]),
    memo: &mut std::collections::HashMap<u64, i64>,
    spend: &mut dyn FnMut(u64) -> Eval<()>,
) -> Eval<i64> {
    if used == u64::MAX {
        return Ok(0);
    }
    if let Some(v) = memo.get(&used) {
        return Ok(*v);
    }
    let i = (!used).trailing_zeros();
    let bit = 1u64 << i;
    let tried = holding.get(i as usize).map_or(&[][..], Vec::as_slice);
    spend(1 + tried.len() as u64)?;
    let mut best = best_from(used | bit, (sets, holding), memo, spend)?;
    for &k in tried {
        let Some(&(mask, pts)) = sets.get(k as usize) else {
            continue;
        };
        if mask & used == 0 {
            let rest = best_from(used | mask, (sets, holding), memo, spend)?;
            best = best.max(pts.saturating_add(rest));
        }
    }
    memo.insert(used, best);
    Ok(best)
}
