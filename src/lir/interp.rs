//! A register interpreter of the low-level IR.

use super::*;
use crate::ir::{CompId, Game};
use rt::Rt;

/// What a function reads of a match and a moment.
pub trait Env {
    /// A variable's slot (the variable's base plus the flat index).
    fn var(&self, slot: u32) -> Value;
    /// Every variable's slots, for native code to read in place (empty: read each through
    /// [`Env::var`]).
    fn vars(&self) -> &[Value] {
        &[]
    }
    /// A component's field.
    fn field(&self, comp: CompId, field: u16) -> Value;
    /// Every field slot ([`Game::field_slot`]), for native code to read in place (empty:
    /// read each through [`Env::field`]).
    fn fields(&self) -> &[Value] {
        &[]
    }
    /// The zones' arrays, for native code to read in place (`None`: through the methods).
    fn zones(&self) -> Option<ZoneArrays<'_>> {
        None
    }
    /// The acting seat.
    fn me(&self) -> u8;
    /// The current player.
    fn current(&self) -> Option<u8>;
    /// The number of seats.
    fn players(&self) -> u8;
    /// A constant's value in this match.
    fn constant(&self, c: ConstId) -> Value;
    /// Every constant's value, for native code to read in place (empty: read each through
    /// [`Env::constant`]).
    fn consts(&self) -> &[Value] {
        &[]
    }
    /// The value index bits of the state ([`crate::ir::vm::ValueIndex`]: per indexed
    /// variable and value, a bit per position holding it), for native code to read in place
    /// (shorter than the game's: computed from the variables before a call).
    fn index_bits(&self) -> &[u64] {
        &[]
    }
    /// The number of components a zone instance holds.
    fn zone_len(&self, z: crate::ir::InstId) -> u32;
    /// The top (or bottom) component of a zone instance, if any.
    fn zone_end(&self, z: crate::ir::InstId, top: bool) -> Option<CompId>;
    /// The zone instance a component lies in.
    fn place(&self, c: CompId) -> crate::ir::InstId;
    /// The `k`-th component of a zone instance from the bottom.
    fn zone_at(&self, z: crate::ir::InstId, k: u32) -> Option<CompId>;
    /// Whether a component looks the same to the acting seat as one below it in its zone
    /// ([`Inst::Twin`]).
    fn twin_below(&self, c: CompId) -> bool;
}

/// Where components are, as flat arrays (a zone instance is a list of its components, bottom
/// to top; `u32::MAX` ends a list and stands for no component or no instance).
#[derive(Clone, Copy)]
pub struct ZoneArrays<'a> {
    /// Per instance: how many components it holds.
    pub len: &'a [u32],
    /// Per instance: its bottom component.
    pub head: &'a [u32],
    /// Per instance: its top component.
    pub tail: &'a [u32],
    /// Per component: the one above it.
    pub next: &'a [u32],
    /// Per component: the instance holding it.
    pub loc: &'a [u32],
}

/// Runs `f` on `args` (one number per parameter), spending one unit of `fuel` per
/// instruction and block end; the result as a value.
pub fn run(f: &Func, g: &Game, env: &dyn Env, args: &[i64], fuel: &mut u64) -> Result<Value, Fail> {
    run_into(f, g, env, args, fuel, &mut vec![])
}

/// [`run`], the values `f` writes ([`Inst::Out`]) appended to `out`.
pub fn run_into(
    f: &Func,
    g: &Game,
    env: &dyn Env,
    args: &[i64],
    fuel: &mut u64,
    out: &mut Vec<Value>,
) -> Result<Value, Fail> {
    let mut rt = Rt::new(g, env, 0);
    rt.out = std::mem::take(out);
    rt.take_scratch(f.scratch);
    let r = body(f, g, &mut rt, args, fuel);
    rt.give_back_scratch();
    *out = std::mem::take(&mut rt.out);
    r
}

fn body(f: &Func, g: &Game, rt: &mut Rt, args: &[i64], fuel: &mut u64) -> Result<Value, Fail> {
    let mut regs = vec![0i64; f.regs.len()];
    for (p, a) in f.params.iter().zip(args) {
        regs[p.0 as usize] = *a;
    }
    let mut at = 0usize;
    loop {
        let b = &f.blocks[at];
        for inst in &b.insts {
            spend(fuel)?;
            let v = step(f, g, rt, &regs, inst)?;
            regs[inst.dst().0 as usize] = v;
        }
        spend(fuel)?;
        let target = match &b.term {
            Term::Return(r) => return Ok(f.ty(*r).decode(regs[r.0 as usize])),
            Term::Fail(e) => return Err(*e),
            Term::Jump(t) => t,
            Term::Branch { cond, yes, no } => match regs[cond.0 as usize] {
                0 => no,
                1 => yes,
                _ => return Err(Fail::NoneValue),
            },
        };
        let to = &f.blocks[target.block.0 as usize];
        // Arguments are read before any parameter is written (a block may pass its own
        // parameters on in another order).
        let vals: Vec<i64> = target.args.iter().map(|a| regs[a.0 as usize]).collect();
        for (p, v) in to.params.iter().zip(vals) {
            regs[p.0 as usize] = v;
        }
        at = target.block.0 as usize;
    }
}

fn spend(fuel: &mut u64) -> Result<(), Fail> {
    *fuel = fuel.checked_sub(1).ok_or(Fail::Fuel)?;
    Ok(())
}

fn num(n: i64) -> Result<i64, Fail> {
    if n == INT_NONE {
        Err(Fail::NoneValue)
    } else {
        Ok(n)
    }
}

/// One instruction's result.
pub(crate) fn step(
    f: &Func,
    g: &Game,
    rt: &mut Rt,
    regs: &[i64],
    inst: &Inst,
) -> Result<i64, Fail> {
    let r = |x: Reg| regs[x.0 as usize];
    let ty = |x: Reg| f.ty(x);
    Ok(match *inst {
        Inst::Const { value, .. } => value,
        Inst::Read { dst, what } => match what {
            Read::Me => rt.me,
            Read::Current => rt.current,
            Read::PlayerCount => rt.players,
            Read::Const(c) => rt.constant(c.0 as u32, ty(dst))?,
        },
        Inst::Var { dst, var, index } => {
            let def = &g.vars[var];
            let k = rt::below(index.map_or(0, r), def.count as u64)?;
            rt.var(def.base as i64 + k, ty(dst))?
        }
        Inst::SetVar { var, index, a, .. } => rt.set_var(var.0, index.map_or(0, r), r(a))?,
        Inst::Index { acc, x, size, .. } => {
            let pos = r(x);
            if pos == ty(x).none() {
                return Err(Fail::Index);
            }
            let pos = rt::below(pos, size as u64)?;
            match acc {
                Some(a) => r(a) * size as i64 + pos,
                None => pos,
            }
        }
        Inst::Field { dst, comp, field } => rt.field(r(comp), field, ty(dst))?,
        Inst::Arith { op, a, b, .. } => rt::arith(op, r(a), r(b))?,
        Inst::Neg { a, .. } => rt::arith(Arith::Sub, 0, r(a))?,
        Inst::Cmp { op, a, b, .. } => match op {
            Cmp::Eq | Cmp::Ne => {
                let same = if rt::raw_equal(ty(a), ty(b)) {
                    r(a) == r(b)
                } else {
                    r(a) == ty(a).none() && r(b) == ty(b).none()
                };
                (same == (op == Cmp::Eq)) as i64
            }
            _ => rt::order(op, r(a), r(b))?,
        },
        Inst::Not { a, .. } => rt::not(r(a))?,
        Inst::Unary { op, a, .. } => rt.unary(op, ty(a), r(a))?,
        Inst::Cast { a, .. } => r(a),
        Inst::Closed { space, .. } => match ty(space) {
            Ty::Space(b) => rt.closed(b.0 as u32, r(space)),
            _ => return Err(Fail::Type),
        },
        Inst::ZoneAt { zone, k, .. } => rt.zone_at(r(zone), r(k))?,
        Inst::Twin { comp, .. } => rt.twin(r(comp)),
        Inst::Class { comp, .. } => rt.class(r(comp))?,
        Inst::Near { space, k, .. } => match ty(space) {
            Ty::Space(b) => rt.near(b.0 as u32, r(space), r(k)),
            _ => return Err(Fail::Type),
        },
        Inst::Seek {
            var, value, from, ..
        } => rt.seek(var.0, r(value), r(from)),
        Inst::Step { space, dir, .. } => match ty(space) {
            Ty::Space(b) => rt.step(b.0 as u32, r(space), r(dir)),
            _ => return Err(Fail::Type),
        },
        Inst::Zone { zone, index, .. } => {
            let def = &g.zones[zone];
            def.base.0 as i64 + rt::below(index.map_or(0, r), def.count as u64)?
        }
        Inst::Held { what, zone, .. } => rt.held(what, r(zone))?,
        Inst::Place { what, comp, .. } => rt.place(what, r(comp)),
        Inst::Out { a, .. } => rt.out(ty(a), r(a)),
        Inst::Clear { area, .. } => rt.clear(area),
        Inst::Mark { area, x, .. } => rt.mark(area, r(x), true)?,
        Inst::Marked { area, x, .. } => rt.mark(area, r(x), false)?,
        Inst::NextMarked { area, from, .. } => rt.next_marked(area, r(from)),
        Inst::Push { area, x, .. } => rt.push(area, r(x))?,
        Inst::Pop { area, .. } => rt.pop(area),
        Inst::Store { area, x, .. } => rt.store(area, r(x)),
        Inst::Load { area, .. } => rt.load(area),
    })
}

/// A built-in function of one operand.
pub(crate) fn unary(g: &Game, env: &dyn Env, op: Unary, t: Ty, a: i64) -> Result<i64, Fail> {
    let players = env.players() as i64;
    Ok(match op {
        Unary::Abs => num(a)?.checked_abs().ok_or(Fail::Arithmetic)?,
        Unary::Next | Unary::Prev => {
            if a == ID_NONE || a >= players {
                return Err(Fail::NoneValue);
            }
            if op == Unary::Next {
                (a + 1) % players
            } else {
                (a + players - 1) % players
            }
        }
        Unary::Seat => {
            let n = num(a)?;
            if n < 0 || n >= players {
                return Err(Fail::Index);
            }
            n
        }
        Unary::Ord => {
            if a == t.none() {
                return Err(Fail::NoneValue);
            }
            a
        }
        Unary::Col | Unary::Row => {
            let Ty::Space(b) = t else {
                return Err(Fail::Type);
            };
            if a == ID_NONE {
                return Ok(INT_NONE);
            }
            match g.boards[b].coord(a as u32) {
                Some((c, r)) => (if op == Unary::Col { c } else { r }) as i64,
                None => INT_NONE,
            }
        }
        Unary::Opposite => {
            if a == ID_NONE {
                ID_NONE
            } else {
                crate::ir::opposite(a as u16) as i64
            }
        }
    })
}

/// The space one step from `from` in direction `dir`: none off the board, onto a space
/// closed in this match, or in a direction the board does not have.
pub(crate) fn step_space(
    g: &Game,
    env: &dyn Env,
    b: crate::ir::BoardId,
    from: u32,
    dir: u16,
) -> Option<u32> {
    let board = &g.boards[b];
    if dir as usize >= crate::ir::DIRECTION_COUNT {
        return None;
    }
    let at = (from as usize).checked_mul(crate::ir::DIRECTION_COUNT)? + dir as usize;
    let t = *board.geo.steps.get(at)?;
    if t == crate::ir::NO_SPACE {
        return None;
    }
    (!closed(g, env, b, t)).then_some(t)
}

/// Whether a space is closed in this match (its board's `closed [...] when FLAG`).
pub(crate) fn closed(g: &Game, env: &dyn Env, b: crate::ir::BoardId, s: u32) -> bool {
    closing(g, env, b)
        && g.boards[b]
            .geo
            .closed
            .get(s as usize)
            .copied()
            .unwrap_or(false)
}

/// Whether the board's closed spaces are closed in this match.
fn closing(g: &Game, env: &dyn Env, b: crate::ir::BoardId) -> bool {
    let board = &g.boards[b];
    !board.geo.closed.is_empty()
        && match board.geo.closed_when {
            None => true,
            Some((c, want)) => env.constant(c) == Value::Bool(want),
        }
}

/// The `k`-th neighbour of space `s` in the adjacency in force in this match, if it has
/// more than `k`.
pub(crate) fn near_space(
    g: &Game,
    env: &dyn Env,
    b: crate::ir::BoardId,
    s: u32,
    k: u64,
) -> Option<u32> {
    let (starts, adj) = g.boards[b].adjacency(closing(g, env, b));
    let lo = *starts.get(s as usize)? as u64;
    let hi = *starts.get(s as usize + 1)? as u64;
    let at = lo.checked_add(k).filter(|&at| at < hi)?;
    adj.get(at as usize).copied()
}
