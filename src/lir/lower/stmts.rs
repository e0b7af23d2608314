//! A region of a procedure's statements ([`crate::ir::vm::Region`]: lets, assignments to
//! locals and variables, conditions, jumps, loops) lowered to one function.
//!
//! Every local the region reads or writes is a parameter, and a parameter of every block
//! that starts a statement others jump to. Before each statement, the function stores the
//! statement's pc (plus one) and the locals' numbers in its first scratch words (each only
//! when it changed since the last store of its block), and so they hold, when it stops,
//! where the steps go on: the region's exit, or the statement that failed or ran out of
//! work, which has written nothing yet (a variable is written last, by [`Inst::SetVar`]).
//! The steps then run that statement again and fail, or go on, as they would have.

use super::*;
use crate::ir::{AssignOp, Instr, LValue};

/// A region lowered: its function, and its locals (slot and register type) in the order of
/// the function's parameters and of the scratch words after the first.
pub struct RegionFunc {
    /// The function.
    pub func: Func,
    /// The locals.
    pub locals: Vec<(u16, Ty)>,
}

/// The IR type of a register type.
fn ir_type(t: Ty) -> Type {
    match t {
        Ty::Int => Type::Int,
        Ty::Bool => Type::Bool,
        Ty::Player => Type::Player,
        Ty::Enum(e) => Type::Enum(e),
        Ty::Comp(c) => Type::Comp(c),
        Ty::Space(b) => Type::Space(b),
        Ty::Zone(c) => Type::Zone(c),
    }
}

/// The expressions of a statement of a region, and the local it writes.
fn parts(i: &Instr) -> (Vec<&Expr>, Option<u16>) {
    match i {
        Instr::Let(slot, e, _) => (vec![e], Some(*slot)),
        Instr::Assign { target, value, .. } => match target {
            LValue::Local(l) => (vec![value], Some(*l)),
            LValue::Var { index, .. } => (index.iter().chain([value]).collect(), None),
            LValue::Field { comp, .. } => (vec![comp, value], None),
        },
        Instr::JumpIfNot(c, _, _) => (vec![c], None),
        _ => (vec![], None),
    }
}

/// The locals a region reads or writes (not those its aggregates bind), in order of slot.
fn region_locals(code: &[Instr]) -> Vec<u16> {
    let mut all: Vec<u16> = vec![];
    for i in code {
        let (es, slot) = parts(i);
        let mut bound = vec![];
        es.iter()
            .for_each(|e| e.bound_slots(&mut |s| bound.push(s)));
        for e in es {
            e.reads(&mut |l| {
                if !bound.contains(&l) {
                    all.push(l)
                }
            });
        }
        all.extend(slot);
    }
    all.sort_unstable();
    all.dedup();
    all
}

/// The register type of every local of a region: the types the procedure gives them
/// (`known`), then those of the values written to the others, grown to a fixed point. `Err`
/// when a local is given two types, or one is read whose type nothing tells.
fn local_types(
    g: &Game,
    code: &[Instr],
    slots: &[u16],
    known: &[(u16, Type)],
) -> Result<Vec<Ty>, String> {
    let mut tys: Vec<Option<Ty>> = (slots.iter())
        .map(|s| {
            known
                .iter()
                .find(|(k, _)| k == s)
                .and_then(|(_, t)| Ty::of(*t))
        })
        .collect();
    loop {
        let mut changed = false;
        for i in code {
            let (value, slot) = match i {
                Instr::Let(slot, e, _) => (e, *slot),
                Instr::Assign {
                    target: LValue::Local(l),
                    value,
                    op,
                    ..
                } => {
                    if *op != AssignOp::Set {
                        continue;
                    }
                    (value, *l)
                }
                _ => continue,
            };
            let k = slots
                .iter()
                .position(|s| *s == slot)
                .ok_or("a local lost")?;
            if matches!(value, Expr::Lit(Value::None)) {
                continue;
            }
            let params: Vec<(u16, Type)> = (slots.iter().zip(&tys))
                .filter_map(|(s, t)| t.map(|t| (*s, ir_type(t))))
                .collect();
            let Ok(f) = lower_expr_at(g, "a local's type", value, &params) else {
                continue;
            };
            match tys[k] {
                Some(t) if t != f.ret => return Err("a local given values of two types".into()),
                Some(_) => {}
                None => {
                    tys[k] = Some(f.ret);
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    tys.into_iter()
        .map(|t| t.ok_or_else(|| "a local whose type is not known".to_string()))
        .collect()
}

/// Lowers the statements `start..end` of a procedure's `code`, `known` the types the
/// procedure gives the locals. `Err` says what is not built.
pub fn lower_region(
    g: &Game,
    code: &[Instr],
    start: u32,
    end: u32,
    known: &[(u16, Type)],
) -> Result<RegionFunc, String> {
    let run = code
        .get(start as usize..end as usize)
        .ok_or("a region outside its procedure")?;
    let slots = region_locals(run);
    let tys = local_types(g, run, &slots, known)?;
    let mut l = Lower {
        g,
        f: Func {
            name: format!("statements {start}..{end}"),
            params: vec![],
            regs: vec![],
            blocks: vec![],
            ret: Ty::Int,
            scratch: 0,
        },
        cur: 0,
        locals: vec![],
        depth: 0,
        insts: 0,
        narrowed: vec![],
        reads: vec![],
        hoisted: vec![],
        groups: vec![],
    };
    let mut r = Region {
        start,
        end,
        slots: &slots,
        tys: &tys,
        blocks: vec![],
        exits: vec![],
        stored: vec![None; slots.len()],
        save: l.area(1 + slots.len() as u32)?,
    };
    l.cur = l.block(vec![]);
    let params: Vec<Reg> = tys.iter().map(|t| l.f.reg(*t)).collect();
    l.f.params = params.clone();
    // A block per statement that a jump reaches or that follows a jump.
    let mut leaders = vec![start];
    for (k, i) in run.iter().enumerate() {
        let pc = start + k as u32;
        if let Instr::Jump(t) | Instr::JumpIfNot(_, t, _) = i {
            leaders.extend([*t, pc + 1]);
        }
    }
    leaders.retain(|&p| p >= start && p < end);
    leaders.sort_unstable();
    leaders.dedup();
    for pc in leaders {
        let ps: Vec<Reg> = tys.iter().map(|t| l.f.reg(*t)).collect();
        let b = l.block(ps);
        r.blocks.push((pc, b));
    }
    let first = r.block_of(start).ok_or("a region without its start")?;
    l.goto(first, params);
    let mut open = false;
    for (k, i) in run.iter().enumerate() {
        let pc = start + k as u32;
        if let Some(b) = r.block_of(pc) {
            if open {
                let args = r.regs(&l)?;
                l.goto(b, args);
            }
            l.cur = b;
            for (s, p) in slots.iter().zip(l.f.blocks[b].params.clone()) {
                l.set_local(*s, p);
            }
            r.stored.iter_mut().for_each(|x| *x = None);
            open = true;
        }
        if !open {
            // After a jump, before the next block: never reached.
            continue;
        }
        match i {
            Instr::LoopGuard { .. } => {}
            Instr::Jump(t) => {
                let to = r.target(&mut l, *t)?;
                let args = r.regs(&l)?;
                l.goto(to, args);
                open = false;
            }
            _ => {
                r.sync(&mut l, pc)?;
                open = r.statement(&mut l, i, pc)?;
            }
        }
    }
    if open {
        let to = r.target(&mut l, end)?;
        let args = r.regs(&l)?;
        l.goto(to, args);
    }
    Ok(RegionFunc {
        func: l.f,
        locals: slots.into_iter().zip(tys).collect(),
    })
}

/// A region being lowered.
struct Region<'a> {
    start: u32,
    end: u32,
    slots: &'a [u16],
    tys: &'a [Ty],
    /// The block of each statement that starts one.
    blocks: Vec<(u32, usize)>,
    /// The block that leaves the region for each pc after it reached.
    exits: Vec<(u32, usize)>,
    /// Per local, the register last stored in the current block.
    stored: Vec<Option<Reg>>,
    /// The pc (plus one) and the locals, where the steps go on.
    save: Area,
}

impl Region<'_> {
    fn block_of(&self, pc: u32) -> Option<usize> {
        self.blocks.iter().find(|(p, _)| *p == pc).map(|(_, b)| *b)
    }

    /// The registers of the locals now (each block binds them all first).
    fn regs(&self, l: &Lower) -> Result<Vec<Reg>, String> {
        (self.slots.iter())
            .map(|s| l.locals.get(*s as usize).copied().flatten())
            .collect::<Option<Vec<Reg>>>()
            .ok_or_else(|| "a local without its register".to_string())
    }

    fn word(&self, k: u32) -> Area {
        Area {
            at: self.save.at + k,
            words: 1,
        }
    }

    /// Stores the pc (plus one) and the locals that changed since the last store.
    fn sync(&mut self, l: &mut Lower, pc: u32) -> Result<(), String> {
        let at = l.konst(Ty::Int, pc as i64 + 1);
        let dst = l.f.reg(Ty::Int);
        l.push(Inst::Store {
            dst,
            area: self.word(0),
            x: at,
        });
        let regs = self.regs(l)?;
        for (k, r) in regs.into_iter().enumerate() {
            if self.stored[k] != Some(r) {
                let dst = l.f.reg(Ty::Int);
                l.push(Inst::Store {
                    dst,
                    area: self.word(1 + k as u32),
                    x: r,
                });
                self.stored[k] = Some(r);
            }
        }
        Ok(())
    }

    /// The block a jump to `pc` goes to: a statement's, or one that leaves the region there.
    fn target(&mut self, l: &mut Lower, pc: u32) -> Result<usize, String> {
        if pc >= self.start && pc < self.end {
            if let Some(b) = self.block_of(pc) {
                return Ok(b);
            }
        }
        if let Some(&(_, b)) = self.exits.iter().find(|(p, _)| *p == pc) {
            return Ok(b);
        }
        let here = (l.cur, std::mem::take(&mut self.stored), l.locals.clone());
        let ps: Vec<Reg> = self.tys.iter().map(|t| l.f.reg(*t)).collect();
        let b = l.block(ps.clone());
        l.cur = b;
        self.stored = vec![None; self.slots.len()];
        for (s, p) in self.slots.iter().zip(ps) {
            l.set_local(*s, p);
        }
        self.sync(l, pc)?;
        let zero = l.konst(Ty::Int, 0);
        l.end(Term::Return(zero));
        (l.cur, self.stored, l.locals) = here;
        self.exits.push((pc, b));
        Ok(b)
    }

    /// Lowers one statement (not a jump); false when it ends its block.
    fn statement(&mut self, l: &mut Lower, i: &Instr, pc: u32) -> Result<bool, String> {
        match i {
            Instr::Let(slot, e, _) => {
                let r = self.value(l, *slot, e)?;
                l.set_local(*slot, r);
            }
            Instr::Assign {
                target: LValue::Local(slot),
                op,
                value,
                ..
            } => {
                let r = match op {
                    AssignOp::Set => self.value(l, *slot, value)?,
                    _ => {
                        let old = l.locals[*slot as usize].ok_or("a local lost")?;
                        let v = l.expr(value)?;
                        arith(l, *op, old, v)
                    }
                };
                if l.f.ty(r) != l.f.ty(l.locals[*slot as usize].ok_or("a local lost")?) {
                    return Err("a local given values of two types".into());
                }
                l.set_local(*slot, r);
            }
            Instr::Assign {
                target: LValue::Var { var, index },
                op,
                value,
                ..
            } => {
                let def = l.g.vars.get(*var).ok_or("no such variable")?;
                let ty = Ty::of(def.ty).ok_or("a variable without an unboxed type")?;
                let (sizes, range, clamp) = (def.sizes.clone(), def.range, def.clamp);
                let v = match value {
                    Expr::Lit(Value::None) => l.konst(ty, ty.none()),
                    e => l.expr(e)?,
                };
                let acc = l.flat(index, &sizes)?;
                let mut new = match op {
                    AssignOp::Set => v,
                    _ => {
                        let dst = l.f.reg(ty);
                        let old = l.push(Inst::Var {
                            dst,
                            var: *var,
                            index: acc,
                        });
                        arith(l, *op, old, v)
                    }
                };
                if l.f.ty(new) != ty {
                    return Err("a value of another type written to a variable".into());
                }
                if let (Some((lo, hi)), true) = (range, clamp) {
                    for (op, bound) in [(Arith::Max, lo), (Arith::Min, hi)] {
                        let b = l.konst(Ty::Int, bound);
                        let dst = l.f.reg(Ty::Int);
                        new = l.push(Inst::Arith { dst, op, a: new, b });
                    }
                }
                let dst = l.f.reg(Ty::Int);
                l.push(Inst::SetVar {
                    dst,
                    var: *var,
                    index: acc,
                    a: new,
                });
            }
            Instr::JumpIfNot(c, t, _) => {
                let cond = l.expr(c)?;
                if l.f.ty(cond) != Ty::Bool {
                    return Err("a condition that is not a truth value".into());
                }
                let yes = self.target(l, pc + 1)?;
                let no = self.target(l, *t)?;
                let args = self.regs(l)?;
                l.branch(cond, (yes, args.clone()), (no, args));
                return Ok(false);
            }
            _ => return Err("a statement a region does not hold".into()),
        }
        Ok(true)
    }

    /// The value of `e` for local `slot`, of the local's type.
    fn value(&self, l: &mut Lower, slot: u16, e: &Expr) -> Result<Reg, String> {
        let k = (self.slots.iter().position(|s| *s == slot)).ok_or("a local lost")?;
        let ty = self.tys[k];
        let r = match e {
            Expr::Lit(Value::None) => l.konst(ty, ty.none()),
            e => l.expr(e)?,
        };
        if l.f.ty(r) != ty {
            return Err("a local given values of two types".into());
        }
        Ok(r)
    }
}

/// `old + v` or `old - v`.
fn arith(l: &mut Lower, op: AssignOp, old: Reg, v: Reg) -> Reg {
    let op = if op == AssignOp::Add {
        Arith::Add
    } else {
        Arith::Sub
    };
    let dst = l.f.reg(Ty::Int);
    l.push(Inst::Arith {
        dst,
        op,
        a: old,
        b: v,
    })
}

impl Lower<'_> {
    /// Binds local `slot` to register `r`.
    fn set_local(&mut self, slot: u16, r: Reg) {
        let slot = slot as usize;
        if self.locals.len() <= slot {
            self.locals.resize(slot + 1, None);
        }
        self.locals[slot] = Some(r);
    }
}
