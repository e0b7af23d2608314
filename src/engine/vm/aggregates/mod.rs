//! The machine's aggregates that walk a board or search: exact-length paths, groups, lines,
//! connection, majorities and the best allocation of sets. Each spends the work budget per
//! step and reuses the machine's scratch buffers.

use super::*;
use crate::ir::vm::{FastCmp, ZoneAt};

mod board;
mod fast;
mod groups;
mod lines;
mod paths;
use fast::*;
use lines::*;
use paths::*;

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
}
