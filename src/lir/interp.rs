//! A register interpreter of the low-level IR.

use super::*;
use crate::ir::{CompId, Game};

/// What a function reads of a match and a moment.
pub trait Env {
    /// A variable's slot (the variable's base plus the flat index).
    fn var(&self, slot: u32) -> Value;
    /// A component's field.
    fn field(&self, comp: CompId, field: u16) -> Value;
    /// The acting seat.
    fn me(&self) -> u8;
    /// The current player.
    fn current(&self) -> Option<u8>;
    /// The number of seats.
    fn players(&self) -> u8;
    /// A constant's value in this match.
    fn constant(&self, c: ConstId) -> Value;
    /// The number of components a zone instance holds.
    fn zone_len(&self, z: crate::ir::InstId) -> u32;
    /// The top (or bottom) component of a zone instance, if any.
    fn zone_end(&self, z: crate::ir::InstId, top: bool) -> Option<CompId>;
    /// The zone instance a component lies in.
    fn place(&self, c: CompId) -> crate::ir::InstId;
    /// The `k`-th component of a zone instance from the bottom.
    fn zone_at(&self, z: crate::ir::InstId, k: u32) -> Option<CompId>;
}

/// Runs `f` on `args` (one number per parameter), spending one unit of `fuel` per
/// instruction and block end; the result as a value.
pub fn run(f: &Func, g: &Game, env: &dyn Env, args: &[i64], fuel: &mut u64) -> Result<Value, Fail> {
    let mut regs = vec![0i64; f.regs.len()];
    for (p, a) in f.params.iter().zip(args) {
        regs[p.0 as usize] = *a;
    }
    let mut at = 0usize;
    loop {
        let b = &f.blocks[at];
        for inst in &b.insts {
            spend(fuel)?;
            let v = step(f, g, env, &regs, inst)?;
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
    env: &dyn Env,
    regs: &[i64],
    inst: &Inst,
) -> Result<i64, Fail> {
    let r = |x: Reg| regs[x.0 as usize];
    let ty = |x: Reg| f.ty(x);
    Ok(match *inst {
        Inst::Const { value, .. } => value,
        Inst::Read { dst, what } => match what {
            Read::Me => env.me() as i64,
            Read::Current => env.current().map_or(ID_NONE, |p| p as i64),
            Read::PlayerCount => env.players() as i64,
            Read::Const(c) => ty(dst).encode(env.constant(c)).ok_or(Fail::Type)?,
        },
        Inst::Var { dst, var, index } => {
            let def = &g.vars[var];
            let k = match index {
                Some(i) => r(i),
                None => 0,
            };
            if k < 0 || k >= def.count as i64 {
                return Err(Fail::Index);
            }
            ty(dst)
                .encode(env.var(def.base + k as u32))
                .ok_or(Fail::Type)?
        }
        Inst::Index { acc, x, size, .. } => {
            let pos = r(x);
            if pos == ty(x).none() || pos < 0 || pos >= size as i64 {
                return Err(Fail::Index);
            }
            match acc {
                Some(a) => r(a) * size as i64 + pos,
                None => pos,
            }
        }
        Inst::Field { dst, comp, field } => {
            let c = r(comp);
            if c == ID_NONE || c < 0 || c as usize >= g.comps.len() {
                return Err(Fail::Field);
            }
            let c = CompId(c as u32);
            if field as usize >= g.comps[c].fields.len() {
                return Err(Fail::Field);
            }
            ty(dst).encode(env.field(c, field)).ok_or(Fail::Type)?
        }
        Inst::Arith { op, a, b, .. } => {
            let (x, y) = (num(r(a))?, num(r(b))?);
            let v = match op {
                Arith::Add => x.checked_add(y),
                Arith::Sub => x.checked_sub(y),
                Arith::Mul => x.checked_mul(y),
                Arith::Div | Arith::Mod if y == 0 => None,
                Arith::Div => x.checked_div_euclid(y),
                Arith::Mod => x.checked_rem_euclid(y),
                Arith::Pow => u32::try_from(y).ok().and_then(|y| x.checked_pow(y)),
                Arith::Max => Some(x.max(y)),
                Arith::Min => Some(x.min(y)),
            };
            // The result must not be the number that stands for none.
            v.filter(|&v| v != INT_NONE).ok_or(Fail::Arithmetic)?
        }
        Inst::Neg { a, .. } => num(r(a))?.checked_neg().ok_or(Fail::Arithmetic)?,
        Inst::Cmp { op, a, b, .. } => {
            let (x, y) = (r(a), r(b));
            let out = match op {
                Cmp::Eq | Cmp::Ne => {
                    let same = if ty(a) == ty(b) {
                        x == y
                    } else {
                        ty(a).decode(x) == ty(b).decode(y)
                    };
                    same == (op == Cmp::Eq)
                }
                _ => {
                    let (x, y) = (num(x)?, num(y)?);
                    match op {
                        Cmp::Lt => x < y,
                        Cmp::Le => x <= y,
                        Cmp::Gt => x > y,
                        _ => x >= y,
                    }
                }
            };
            out as i64
        }
        Inst::Not { a, .. } => match r(a) {
            0 => 1,
            1 => 0,
            _ => return Err(Fail::NoneValue),
        },
        Inst::Unary { op, a, .. } => unary(g, env, op, ty(a), r(a))?,
        Inst::Cast { a, .. } => r(a),
        Inst::Closed { space, .. } => {
            let (Ty::Space(b), s) = (ty(space), r(space)) else {
                return Err(Fail::Type);
            };
            (s != ID_NONE && closed(g, env, b, s as u32)) as i64
        }
        Inst::ZoneAt { zone, k, .. } => {
            let (z, k) = (r(zone), r(k));
            if z == ID_NONE || k < 0 {
                return Err(Fail::Index);
            }
            env.zone_at(crate::ir::InstId(z as u32), k as u32)
                .map_or(ID_NONE, |c| c.0 as i64)
        }
        Inst::Step { space, dir, .. } => {
            let (Ty::Space(b), s, d) = (ty(space), r(space), r(dir)) else {
                return Err(Fail::Type);
            };
            if s == ID_NONE || d == ID_NONE {
                return Ok(ID_NONE);
            }
            step_space(g, env, b, s as u32, d as u16).map_or(ID_NONE, |t| t as i64)
        }
        Inst::Zone { zone, index, .. } => {
            let def = &g.zones[zone];
            let k = index.map_or(0, r);
            if k < 0 || k >= def.count as i64 {
                return Err(Fail::Index);
            }
            def.base.0 as i64 + k
        }
        Inst::Held { what, zone, .. } => {
            let z = r(zone);
            if z == ID_NONE {
                return Err(Fail::NoneValue);
            }
            let z = crate::ir::InstId(z as u32);
            match what {
                Held::Count => env.zone_len(z) as i64,
                Held::Empty => (env.zone_len(z) == 0) as i64,
                Held::Top | Held::Bottom => env
                    .zone_end(z, what == Held::Top)
                    .map_or(ID_NONE, |c| c.0 as i64),
            }
        }
        Inst::Place { what, comp, .. } => {
            let c = r(comp);
            if c == ID_NONE {
                return Ok(ID_NONE);
            }
            let inst = env.place(CompId(c as u32));
            let at = &g.instances[inst];
            match what {
                Place::Zone => inst.0 as i64,
                Place::Owner => at.owner.map_or(ID_NONE, |p| p as i64),
                Place::Space => at.space.map_or(ID_NONE, |(_, s)| s as i64),
            }
        }
    })
}

/// A built-in function of one operand.
fn unary(g: &Game, env: &dyn Env, op: Unary, t: Ty, a: i64) -> Result<i64, Fail> {
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
fn step_space(g: &Game, env: &dyn Env, b: crate::ir::BoardId, from: u32, dir: u16) -> Option<u32> {
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
fn closed(g: &Game, env: &dyn Env, b: crate::ir::BoardId, s: u32) -> bool {
    let board = &g.boards[b];
    let on = match board.geo.closed_when {
        None => true,
        Some((c, want)) => env.constant(c) == Value::Bool(want),
    };
    on && board.geo.closed.get(s as usize).copied().unwrap_or(false)
}
