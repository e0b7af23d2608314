//! A walk's condition resolved once per walk (`WalkFast`): parts comparing the count of
//! `zone[s]` with a number, fixed parts once known, and conditions read through one value
//! (`OneRead`) answered once per value.

use super::*;

/// A walk's condition part that compares the number of components in `zone[s]` with a number
/// (`empty(cell[s])`, `count(cell[s]) < 2`), `s` the walked space `v`: answered from the zone's
/// length without the comparison machinery (`None`: another shape, or `v` out of the zone).
#[inline(always)]
pub(super) fn count_test(g: &Game, s: &State, code: Code, slot: u16, v: Value) -> Option<bool> {
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

/// The most parts of a split walk condition resolved by a [`WalkFast`].
pub(super) const FAST_PARTS: usize = 6;

/// A part of a split walk condition ([`crate::ir::vm::PathsOp::parts`]) as a [`WalkFast`]
/// tests it.
#[derive(Clone, Copy, Debug)]
pub(super) enum PartFast {
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
pub(super) struct WalkFast {
    pub(super) parts: [PartFast; FAST_PARTS],
    pub(super) n: usize,
    pub(super) one: Option<OneRead>,
}

impl WalkFast {
    /// The resolved condition of `op` (`None`: nothing in it is resolved).
    pub(super) fn of(g: &Game, op: &crate::ir::vm::PathsOp) -> Option<WalkFast> {
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
    pub(super) fn lens(&self, memo: (u64, u64)) -> Option<LenTests> {
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
    pub(super) fn test(&mut self, g: &Game, s: &State, memo: (u64, u64), sp: u32) -> Option<bool> {
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
pub(super) trait SpaceTest {
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
pub(super) enum LenPart {
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
pub(super) struct LenTests {
    pub(super) parts: [LenPart; FAST_PARTS],
    pub(super) n: usize,
}

impl LenTests {
    /// The condition at every space at once when each part asks only whether `zone[s]` is
    /// empty (the answer for a count of 0 and one answer for every count from 1): the
    /// spaces it answers and those of them that meet it, read from the zones' bit set of
    /// the instances that hold something ([`crate::engine::zones::Zones::held`]).
    #[inline(always)]
    pub(super) fn passing(&self, s: &State) -> Option<Known> {
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
    pub(super) fn test_set(&self, s: &State, set: u64) -> Option<u64> {
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
    pub(super) fn test(&self, s: &State, sp: u32) -> Option<bool> {
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
pub(super) fn emptiness(op: BinOp, n: i64) -> Option<(bool, bool)> {
    let empty = super::compare::int_cmp(op, 0, n)?;
    let one = super::compare::int_cmp(op, 1, n)?;
    let same = match op {
        BinOp::Eq | BinOp::Ne => n < 1,
        // monotone in the count: the same answer at 1 and at the most a zone can hold
        _ => super::compare::int_cmp(op, u32::MAX as i64, n)? == one,
    };
    same.then_some((empty, one))
}

/// What a [`OneRead`] condition reads of the walked space `s`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum SpaceRead {
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
    pub(super) fn at(self, g: &Game, s: &State, sp: u32) -> Option<Value> {
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
pub(super) const ONE_READ_KEPT: usize = 8;
/// How many sets of kept answers a [`OneRead`] keeps, each for its compared values (a flow
/// loop's `for f in Face` walks the same condition with each `f`).
pub(super) const ONE_READ_SETS: usize = 5;
/// The most ops and comparisons of a [`OneRead`] condition.
pub(super) const ONE_READ_OPS: usize = 16;
pub(super) const ONE_READ_CMPS: usize = 8;

/// A board walk's condition that reads the walked space only through one value (flag code
/// whose every comparison is `==` or `!=` between the same `face(s)`, the top component's
/// field of `zone[s]`, or the same `var[s]`, and a value fixed for the walk: a local other
/// than `s`, a literal, a constant, a small number, `none` or `me`): its answer depends only
/// on that value and the values it is compared with, so it is computed once per value read
/// and read back for the other spaces showing it, in this walk and the next walks of the
/// same condition while the compared values are the same (`matches(x, f)`,
/// `face(x) == f or face(x) == wild`).
#[derive(Clone, Copy, Debug)]
pub(super) struct OneRead {
    pub(super) read: SpaceRead,
    pub(super) code: Code,
    /// Per op of the code, the position of its comparison in `cmps` and `rhs`.
    pub(super) at: [u8; ONE_READ_OPS],
    /// Per comparison: its index in the program's comparisons.
    pub(super) cmps: [u32; ONE_READ_CMPS],
    pub(super) ncmps: usize,
    /// Whether every compared value read at the start of this walk.
    pub(super) ready: bool,
    /// Answers kept per value read, each set for its compared values: (per comparison the
    /// value it compares with, the answers, how many); the current set, the next to replace.
    pub(super) sets: [OneReadKept; ONE_READ_SETS],
    pub(super) cur: usize,
    pub(super) next: usize,
}

/// A [`OneRead`]'s answers kept for one set of compared values.
pub(super) type OneReadKept = (
    [Value; ONE_READ_CMPS],
    [(Value, bool); ONE_READ_KEPT],
    usize,
);

impl OneRead {
    /// The condition `code` on the space in `slot`, when it has this shape.
    pub(super) fn of(g: &Game, code: Option<Code>, slot: u16) -> Option<OneRead> {
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
    pub(super) fn refresh(&mut self, g: &Game, s: &State, locals: &[Value], me: u8) {
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
    pub(super) fn keep_for(&mut self, rhs: [Value; ONE_READ_CMPS], n: usize) {
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
    pub(super) fn test(&mut self, g: &Game, s: &State, sp: u32) -> Option<bool> {
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
    pub(super) fn answer(&self, g: &Game, v: Value) -> Option<bool> {
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
pub(super) fn walk_quick(
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
pub(super) fn best_from(
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
