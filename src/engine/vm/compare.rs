//! Comparisons of two simple operands ([`crate::ir::vm::Cmp`]), read without the stack.

use super::*;
use crate::ir::vm::{At, Code, FastCmp, FlagNode, Op, Operand, Var2, ZoneAt};

impl Machine {
    /// Runs flag code ([`Program::is_flag_code`]); a single comparison (the most common
    /// condition) is tested at once, without the set-up of [`Machine::flags`].
    #[inline]
    pub(crate) fn flag_code(
        &mut self,
        g: &Game,
        s: &State,
        code: Code,
        locals: &[Value],
        me: u8,
    ) -> Eval<bool> {
        if code.end == code.start + 1 {
            if let Some(Op::Cmp(i)) = g.program.ops.get(code.start as usize) {
                return self.cmp(g, s, *i, code.start, locals, me);
            }
        }
        self.flags(g, s, code, locals, me)
    }

    /// Runs flag code ([`Program::is_flag_code`]): one flag, kept in a register.
    #[inline]
    pub(crate) fn flags(
        &mut self,
        g: &Game,
        s: &State,
        code: Code,
        locals: &[Value],
        me: u8,
    ) -> Eval<bool> {
        run_flags(&g.program.ops, code, |i, pc| {
            self.cmp(g, s, i, pc, locals, me)
        })
    }

    /// Runs a flag graph from node `at` ([`FlagNode`]): the same comparisons, in the same
    /// order, as its flag code.
    #[inline(never)]
    fn graph(&mut self, g: &Game, s: &State, mut at: u32, locals: &[Value], me: u8) -> Eval<bool> {
        let nodes = &g.program.flag_nodes[..];
        while let Some(n) = nodes.get(at as usize) {
            at = if self.cmp(g, s, n.cmp, n.pc, locals, me)? {
                n.then
            } else {
                n.other
            };
        }
        Ok(at == FlagNode::TRUE)
    }

    /// A comparison of two simple operands: the common shapes in place, the others in
    /// [`Machine::cmp_slow`].
    #[inline(always)]
    pub(crate) fn cmp(
        &mut self,
        g: &Game,
        s: &State,
        i: u32,
        pc: u32,
        locals: &[Value],
        me: u8,
    ) -> Eval<bool> {
        match fast_cmp(g, s, i, locals, me) {
            Some(v) => Ok(v),
            None => self.cmp_slow(g, s, i, pc, locals, me),
        }
    }

    /// [`Machine::cmp`] with the most common shapes in place ([`fast_cmp_core`]), for the
    /// op loop (which holds the general code: its comparisons are often of other shapes,
    /// and a larger dispatch inlined there costs every op).
    #[inline(always)]
    pub(crate) fn cmp_inline(
        &mut self,
        g: &Game,
        s: &State,
        i: u32,
        pc: u32,
        locals: &[Value],
        me: u8,
    ) -> Eval<bool> {
        if let Some(v) = fast_cmp_core(g, s, i, locals, me) {
            return Ok(v);
        }
        self.cmp_quick(g, s, i, pc, locals, me)
    }

    /// [`Machine::cmp`] for a comparison without a fast form (or whose operand does not
    /// read).
    #[inline(never)]
    fn cmp_slow(
        &mut self,
        g: &Game,
        s: &State,
        i: u32,
        pc: u32,
        locals: &[Value],
        me: u8,
    ) -> Eval<bool> {
        self.cmp_quick(g, s, i, pc, locals, me)
    }

    /// A comparison read through its general operands: the small path, else
    /// [`Machine::cmp_full`] (errors included).
    #[inline(always)]
    fn cmp_quick(
        &mut self,
        g: &Game,
        s: &State,
        i: u32,
        pc: u32,
        locals: &[Value],
        me: u8,
    ) -> Eval<bool> {
        match quick_cmp(g, s, i, locals, me) {
            Some(v) => Ok(v),
            None => self.cmp_full(g, s, i, pc, locals, me),
        }
    }

    /// A flag from code: a single comparison and flag code ([`Program::is_flag_code`]) are
    /// run in place, anything else through the value stack ([`Machine::eval_value_bool`]).
    #[inline(always)]
    pub(crate) fn test(
        &mut self,
        g: &Game,
        s: &State,
        code: Code,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<bool> {
        if code.end == code.start + 1 {
            if let Some(Op::Cmp(i)) = g.program.ops.get(code.start as usize) {
                return self.cmp(g, s, *i, code.start, locals, me);
            }
        }
        if g.program.is_flag_code(code) {
            return match g.program.flag_graphs.get(code.start as usize) {
                Some(&(end, root)) if end == code.end => self.graph(g, s, root, locals, me),
                _ => self.flags(g, s, code, locals, me),
            };
        }
        if let Some(v) = empty_test(g, s, code, locals) {
            return Ok(v);
        }
        self.eval_value_bool(g, s, code, locals, me)
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
}

/// The loop of flag code ([`Program::is_flag_code`]): one flag, kept in a register, set by
/// each `Cmp` through `cmp` (given the comparison's index and its position), the jumps taken
/// on it. Shared by [`Machine::flags`] and the board walks that answer a comparison their
/// own way, so that all of them make the same comparisons in the same order.
#[inline(always)]
pub(super) fn run_flags<E>(
    ops: &[Op],
    code: Code,
    mut cmp: impl FnMut(u32, u32) -> Result<bool, E>,
) -> Result<bool, E> {
    let mut pc = code.start;
    let mut flag = false;
    while pc < code.end {
        match ops[pc as usize] {
            Op::Cmp(i) => flag = cmp(i, pc)?,
            Op::JumpIfNot(t) | Op::AndJump(t) if !flag => {
                pc = t;
                continue;
            }
            Op::OrJump(t) if flag => {
                pc = t;
                continue;
            }
            Op::Jump(t) => {
                pc = t;
                continue;
            }
            Op::Not => flag = !flag,
            _ => {}
        }
        pc += 1;
    }
    Ok(flag)
}

/// A comparison of a common shape ([`FastCmp`]) that reads without failing (`None`:
/// another shape, or an operand that does not read: left to [`quick_cmp`]).
#[inline(always)]
pub(super) fn fast_cmp(g: &Game, s: &State, i: u32, locals: &[Value], me: u8) -> Option<bool> {
    Some(match *g.program.fast.get(i as usize)? {
        FastCmp::AtMe { at, ne } => {
            ne ^ matches!(*read_at(s, at, locals)?, Value::Player(p) if p == me)
        }
        FastCmp::AtNone { at, ne } => ne ^ matches!(*read_at(s, at, locals)?, Value::None),
        FastCmp::AtAt { a, b, ne } => ne ^ (*read_at(s, a, locals)? == *read_at(s, b, locals)?),
        FastCmp::AtInt { at, n, op } => match *read_at(s, at, locals)? {
            Value::Int(x) => int_cmp(op, x, n as i64)?,
            _ => return None,
        },
        FastCmp::LenInt { z, n, op } => len_cmp(s, z, n, op, locals)?,
        FastCmp::TopLocal { z, f, l, ne } => {
            ne ^ (top_field(g, s, z, f, locals)? == *locals.get(l as usize)?)
        }
        FastCmp::TopLit { z, f, lit, ne } => {
            ne ^ (top_field(g, s, z, f, locals)? == *g.program.lits.get(lit as usize)?)
        }
        FastCmp::TopSlot { z, f, slot, ne } => {
            ne ^ (top_field(g, s, z, f, locals)? == *s.vars.get(slot as usize)?)
        }
        FastCmp::SlotLit { slot, lit, ne } => {
            ne ^ (*s.vars.get(slot as usize)? == *g.program.lits.get(lit as usize)?)
        }
        FastCmp::FieldLit { l, f, lit, ne } => {
            ne ^ (*local_field(g, s, l, f, locals)? == *g.program.lits.get(lit as usize)?)
        }
        FastCmp::FieldInt { l, f, n, op } => match *local_field(g, s, l, f, locals)? {
            Value::Int(x) => int_cmp(op, x, n as i64)?,
            _ => return None,
        },
        FastCmp::LocalLit { l, lit, ne } => {
            ne ^ (*locals.get(l as usize)? == *g.program.lits.get(lit as usize)?)
        }
        FastCmp::LocalInt { l, n, op } => match *locals.get(l as usize)? {
            Value::Int(x) => int_cmp(op, x, n as i64)?,
            _ => return None,
        },
        FastCmp::Other => return None,
    })
}

/// Where field `f` of the component in local `l` lies (`None`: the local holds no component,
/// or one without that field: left to the general path, which tells why).
#[inline(always)]
fn local_field<'a>(g: &Game, s: &'a State, l: u16, f: u16, locals: &[Value]) -> Option<&'a Value> {
    let Value::Comp(c) = *locals.get(l as usize)? else {
        return None;
    };
    comp_field(g, s, c, f)
}

/// Where field `f` (its index in its type's fields) of component `c` lies in the state, read
/// in place (`None`: a component or a field it does not have, left to the general path, which
/// tells why). The one reading of a field in place for the fast forms, the quick operands,
/// the zone walks and the listing's comparison of components.
#[inline(always)]
pub(crate) fn comp_field<'a>(g: &Game, s: &'a State, c: CompId, f: u16) -> Option<&'a Value> {
    let comp = g.comps.get(c)?;
    if (f as usize) < comp.fields.len() {
        s.fields.get(comp.field_base as usize + f as usize)
    } else {
        None
    }
}

/// [`Operand::TopField`] read in place: field `f` of the top component of the zone
/// instance (`none` when it is empty; `None`: an index out of range or a field the
/// component does not have, left to the general path, which tells why).
#[inline(always)]
fn top_field(g: &Game, s: &State, z: ZoneAt, f: u16, locals: &[Value]) -> Option<Value> {
    let inst = match z {
        ZoneAt::Inst(i) => i,
        ZoneAt::Local { base, size, slot } => {
            let i = quick_pos(locals.get(slot as usize))?;
            if i >= size as u32 {
                return None;
            }
            InstId(base + i)
        }
        ZoneAt::Local2(_) => return None,
    };
    top_field_at(g, s, inst, f)
}

/// Field `f` of the top component of zone instance `inst`, read in place (`none` when it is
/// empty; `None`: a field the component does not have, left to the general path, which tells
/// why). The one reading of a top field for the fast forms, the quick operands and the board
/// walks.
#[inline(always)]
pub(super) fn top_field_at(g: &Game, s: &State, inst: InstId, f: u16) -> Option<Value> {
    match s.zones.top(inst) {
        None => Some(Value::None),
        Some(c) => comp_field(g, s, c, f).copied(),
    }
}

/// [`fast_cmp`] for the shapes of one variable read (`var[local]` against `me`, `none`,
/// another `var[local]` or a number, a zone's length against a number); the others are
/// left to the general path (`None`).
#[inline(always)]
fn fast_cmp_core(g: &Game, s: &State, i: u32, locals: &[Value], me: u8) -> Option<bool> {
    Some(match *g.program.fast.get(i as usize)? {
        FastCmp::AtMe { at, ne } => {
            ne ^ matches!(*read_at(s, at, locals)?, Value::Player(p) if p == me)
        }
        FastCmp::AtNone { at, ne } => ne ^ matches!(*read_at(s, at, locals)?, Value::None),
        FastCmp::AtAt { a, b, ne } => ne ^ (*read_at(s, a, locals)? == *read_at(s, b, locals)?),
        FastCmp::AtInt { at, n, op } => match *read_at(s, at, locals)? {
            Value::Int(x) => int_cmp(op, x, n as i64)?,
            _ => return None,
        },
        FastCmp::LenInt { z, n, op } => len_cmp(s, z, n, op, locals)?,
        _ => return None,
    })
}

/// The answer of code that is one comparison with a fast form that reads no local (`end when
/// empty(deck)`), read in place (`None`: code of another shape, or a comparison that does not
/// read without failing: evaluate it).
#[inline(always)]
pub(crate) fn fixed_test(g: &Game, s: &State, code: Code, me: u8) -> Option<bool> {
    match g.program.ops.get(code.start as usize..code.end as usize)? {
        [Op::Cmp(i)] => fast_cmp(g, s, *i, &[], me),
        _ => None,
    }
}

/// `x op y` for a comparison operator (`None`: not a comparison).
#[inline(always)]
pub(crate) fn int_cmp(op: BinOp, x: i64, y: i64) -> Option<bool> {
    Some(match op {
        BinOp::Eq => x == y,
        BinOp::Ne => x != y,
        BinOp::Lt => x < y,
        BinOp::Le => x <= y,
        BinOp::Gt => x > y,
        BinOp::Ge => x >= y,
        _ => return None,
    })
}

/// [`FastCmp::LenInt`]: the zone's length in place (`None`: an index not in range).
#[inline(always)]
fn len_cmp(s: &State, z: ZoneAt, n: i32, op: BinOp, locals: &[Value]) -> Option<bool> {
    let inst = match z {
        ZoneAt::Inst(i) => i,
        ZoneAt::Local { base, size, slot } => {
            let i = quick_pos(locals.get(slot as usize))?;
            if i >= size as u32 {
                return None;
            }
            InstId(base + i)
        }
        ZoneAt::Local2(_) => return None,
    };
    int_cmp(op, s.zones.len(inst) as i64, n as i64)
}

/// `empty(zone)` or `not empty(zone)` of a zone without index or indexed by a local, read
/// in place (`None`: code of another shape, or an index that does not read: left to
/// [`Machine::eval_bool`], which tells why).
#[inline(always)]
fn empty_test(g: &Game, s: &State, code: Code, locals: &[Value]) -> Option<bool> {
    let ops = g.program.ops.get(code.start as usize..code.end as usize)?;
    let (zone, not) = match *ops {
        [z, Op::Builtin(Builtin::Empty)] => (z, false),
        [z, Op::Builtin(Builtin::Empty), Op::Not] => (z, true),
        _ => return None,
    };
    let inst = match zone {
        Op::Inst(i) => i,
        Op::ZoneLocal(z, l) => {
            let zone = &g.zones[z];
            let i = locals.get(l as usize)?.index_pos()?;
            if i >= zone.sizes[0] {
                return None;
            }
            InstId(zone.base.0 + i)
        }
        _ => return None,
    };
    Some(not ^ (s.zones.len(inst) == 0))
}

/// Where `var[local]` lies (`None`: the local is not an index in range).
#[inline(always)]
fn read_at<'a>(s: &'a State, at: At, locals: &[Value]) -> Option<&'a Value> {
    let i = locals.get(at.slot as usize)?.index_pos()?;
    if i >= at.size as u32 {
        return None;
    }
    s.vars.get((at.base + i) as usize)
}

/// The common case of a comparison, kept small: operands that read without failing,
/// compared as equal or unequal values or ordered numbers (`None`: anything else, left to
/// [`Machine::cmp_full`]).
#[inline(always)]
fn quick_cmp(g: &Game, s: &State, i: u32, locals: &[Value], me: u8) -> Option<bool> {
    let c = g.program.cmps.get(i as usize)?;
    match c.op {
        BinOp::Eq => quick_eq(g, s, c.a, c.b, locals, me),
        BinOp::Ne => quick_eq(g, s, c.a, c.b, locals, me).map(|x| !x),
        op => match (quick(g, s, c.a, locals, me)?, quick(g, s, c.b, locals, me)?) {
            (Value::Int(x), Value::Int(y)) => int_cmp(op, x, y),
            _ => None,
        },
    }
}

/// Whether two operands are equal, read in place: a stored left side (a variable, a local, a
/// field) is compared without being copied, against `me`, `none` or a small number directly
/// (the common guard shapes `pawn[from] == me`, `cell[c] == none`, `file[to] == file[from]`).
#[inline(always)]
fn quick_eq(g: &Game, s: &State, a: Operand, b: Operand, locals: &[Value], me: u8) -> Option<bool> {
    let Some(x) = stored(g, s, a, locals) else {
        return Some(quick(g, s, a, locals, me)? == quick(g, s, b, locals, me)?);
    };
    let x = x?;
    Some(match b {
        Operand::Me => matches!(*x, Value::Player(p) if p == me),
        Operand::None => matches!(*x, Value::None),
        Operand::Int(n) => matches!(*x, Value::Int(v) if v == n as i64),
        _ => match stored(g, s, b, locals) {
            Some(y) => *x == *y?,
            None => *x == quick(g, s, b, locals, me)?,
        },
    })
}

/// Where a stored operand's value lies (`None`: the operand is not stored; `Some(None)`: it
/// does not read without failing).
#[inline(always)]
fn stored<'a>(
    g: &'a Game,
    s: &'a State,
    o: Operand,
    locals: &'a [Value],
) -> Option<Option<&'a Value>> {
    Some(match o {
        Operand::VarAt { base, size, slot } => {
            let i = match locals.get(slot as usize) {
                Some(Value::Space(_, i)) => *i,
                Some(Value::Player(p)) => *p as u32,
                Some(Value::Enum(_, i)) => *i as u32,
                _ => return Some(None),
            };
            if i >= size as u32 {
                return Some(None);
            }
            s.vars.get((base + i) as usize)
        }
        Operand::Local(l) => locals.get(l as usize),
        Operand::Slot(n) => s.vars.get(n as usize),
        Operand::Const(c) => Some(&s.consts[c]),
        Operand::Lit(i) => g.program.lits.get(i as usize),
        _ => return None,
    })
}

/// The value of a comparison's operand when it reads without failing (`None`: read it with
/// [`operand`], which tells why it fails).
#[inline(always)]
fn quick(g: &Game, s: &State, o: Operand, locals: &[Value], me: u8) -> Option<Value> {
    match o {
        Operand::Lit(i) => g.program.lits.get(i as usize).copied(),
        Operand::Const(c) => Some(s.consts[c]),
        Operand::LocalField(l, f) => local_field(g, s, l, f, locals).copied(),
        Operand::Local(l) => locals.get(l as usize).copied(),
        Operand::Me => Some(Value::Player(me)),
        Operand::None => Some(Value::None),
        Operand::Int(n) => Some(Value::Int(n as i64)),
        Operand::Slot(n) => s.vars.get(n as usize).copied(),
        Operand::VarAt { base, size, slot } => {
            let i = locals.get(slot as usize)?.index_pos()?;
            if i >= size as u32 {
                return None;
            }
            s.vars.get((base + i) as usize).copied()
        }
        Operand::ZoneLen(..) | Operand::TopField(..) | Operand::Var2(..) => {
            quick_more(g, s, o, locals)
        }
    }
}

/// [`quick`] for the operands that read zones or two indexes, kept out of line so that the
/// common operands, inlined into every loop that compares, stay small.
#[inline(never)]
fn quick_more(g: &Game, s: &State, o: Operand, locals: &[Value]) -> Option<Value> {
    match o {
        Operand::ZoneLen(z) => Some(Value::Int(s.zones.len(quick_zone(g, z, locals)?) as i64)),
        Operand::TopField(z, f) => top_field_at(g, s, quick_zone(g, z, locals)?, f),
        Operand::Var2(i) => {
            let v = g.program.var2s.get(i as usize)?;
            let k = quick_index2(v.base, v.sizes, v.slots, locals)?;
            s.vars.get(k as usize).copied()
        }
        _ => None,
    }
}

/// The position of a value among the values of its kind, as an index.
#[inline(always)]
fn quick_pos(v: Option<&Value>) -> Option<u32> {
    v?.index_pos()
}

/// `base + a * sizes[1] + b` for the indexes in two locals, when both are in range.
#[inline(always)]
fn quick_index2(base: u32, sizes: [u32; 2], slots: [u16; 2], locals: &[Value]) -> Option<u32> {
    let a = quick_pos(locals.get(slots[0] as usize))?;
    let b = quick_pos(locals.get(slots[1] as usize))?;
    (a < sizes[0] && b < sizes[1]).then(|| base + a * sizes[1] + b)
}

/// [`quick_index2`], with the error that tells why it fails.
fn index2(
    g: &Game,
    s: &State,
    base: u32,
    sizes: [u32; 2],
    slots: [u16; 2],
    locals: &[Value],
    name: impl Fn() -> String,
) -> Eval<u32> {
    let a = index_of(g, s, local(locals, slots[0]))?;
    let b = index_of(g, s, local(locals, slots[1]))?;
    if a >= sizes[0] || b >= sizes[1] {
        return Err(bad_index(&name()));
    }
    Ok(base + a * sizes[1] + b)
}

impl Machine {
    /// `var[a, b]` ([`crate::ir::vm::Op::Var2`]).
    #[inline(always)]
    pub(super) fn var2(&self, g: &Game, s: &State, i: u32, locals: &[Value]) -> Eval<Value> {
        let v: &Var2 = &g.program.var2s[i as usize];
        if let Some(k) = quick_index2(v.base, v.sizes, v.slots, locals) {
            if let Some(x) = s.vars.get(k as usize) {
                return Ok(*x);
            }
        }
        let k = index2(g, s, v.base, v.sizes, v.slots, locals, || {
            g.vars[v.var].name.clone()
        })?;
        Ok(s.vars[k as usize])
    }
}

/// The instance a [`ZoneAt`] names when its index reads without failing.
#[inline(always)]
fn quick_zone(g: &Game, z: ZoneAt, locals: &[Value]) -> Option<InstId> {
    match z {
        ZoneAt::Inst(i) => Some(i),
        ZoneAt::Local { base, size, slot } => {
            let i = quick_pos(locals.get(slot as usize))?;
            (i < size as u32).then_some(InstId(base + i))
        }
        ZoneAt::Local2(i) => {
            let z = g.program.zone2s.get(i as usize)?;
            quick_index2(z.base, z.sizes, z.slots, locals).map(InstId)
        }
    }
}

/// The instance a [`ZoneAt`] names.
fn zone_at(g: &Game, s: &State, z: ZoneAt, locals: &[Value]) -> Eval<InstId> {
    match z {
        ZoneAt::Inst(i) => Ok(i),
        ZoneAt::Local { base, size, slot } => {
            let i = index_of(g, s, local(locals, slot))?;
            if i >= size as u32 {
                return Err(bad_index(&zone_name(g, base)));
            }
            Ok(InstId(base + i))
        }
        ZoneAt::Local2(i) => {
            let z = g.program.zone2s[i as usize];
            Ok(InstId(index2(
                g,
                s,
                z.base,
                z.sizes,
                z.slots,
                locals,
                || zone_name(g, z.base),
            )?))
        }
    }
}

/// The name of the zone whose first instance is `base`.
#[cold]
fn zone_name(g: &Game, base: u32) -> String {
    match g.zones.iter().find(|z| z.base.0 == base) {
        Some(z) => z.name.clone(),
        None => "a zone".to_string(),
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
            let i = match local(locals, slot).index_pos() {
                Some(i) => i,
                None => return Err(index_error(g, s, local(locals, slot))),
            };
            if i >= size as u32 {
                return Err(err("an index is out of its range", None));
            }
            s.vars[(base + i) as usize]
        }
        Operand::LocalField(l, f) => field(g, s, local(locals, l), f)?,
        Operand::ZoneLen(z) => Value::Int(s.zones.len(zone_at(g, s, z, locals)?) as i64),
        Operand::TopField(z, f) => match s.zones.top(zone_at(g, s, z, locals)?) {
            None => Value::None,
            Some(c) => field(g, s, Value::Comp(c), f)?,
        },
        Operand::Var2(i) => {
            let v = g.program.var2s[i as usize];
            let k = index2(g, s, v.base, v.sizes, v.slots, locals, || {
                g.vars[v.var].name.clone()
            })?;
            s.vars[k as usize]
        }
    })
}
