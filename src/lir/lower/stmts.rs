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
    /// Its `for` loops.
    pub loops: Vec<RegionLoop>,
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
        Instr::ForInit {
            coll: crate::ir::Coll::Range(a, b),
            ..
        } => (vec![a, b], None),
        Instr::ForNext { var, .. } => (vec![], Some(*var)),
        _ => (vec![], None),
    }
}

/// What a `for` loop of a region walks: its elements are known from a count (and a first
/// number), so that the steps' iteration stack can be rebuilt where the region stops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Elems {
    /// `a..b`: the numbers from the first, as many as the count.
    Range,
    /// A board without closed spaces: its spaces.
    Board(crate::ir::BoardId),
    /// The seats in play.
    Players,
    /// An enum's values.
    Enum(crate::ir::EnumId),
}

impl Elems {
    fn of(g: &Game, c: &crate::ir::Coll) -> Option<Elems> {
        use crate::ir::Coll;
        Some(match c {
            Coll::Range(..) => Elems::Range,
            Coll::Board(b) if g.boards[*b].geo.closed.iter().all(|c| !c) => Elems::Board(*b),
            Coll::Players => Elems::Players,
            Coll::Enum(e) => Elems::Enum(*e),
            _ => return None,
        })
    }

    /// The register type of an element.
    fn ty(self) -> Ty {
        match self {
            Elems::Range => Ty::Int,
            Elems::Board(b) => Ty::Space(b),
            Elems::Players => Ty::Player,
            Elems::Enum(e) => Ty::Enum(e),
        }
    }

    /// The most elements it has: the count the native code stores is never more.
    pub fn most(self, g: &Game) -> i64 {
        match self {
            Elems::Range => MAX_RANGE,
            Elems::Board(b) => g.boards[b].len() as i64,
            Elems::Players => crate::ir::MAX_PLAYERS as i64,
            Elems::Enum(e) => g.enums[e].values.len() as i64,
        }
    }

    /// Its `k`-th element, from `first` for a range.
    pub fn value(self, first: i64, k: i64) -> Value {
        match self {
            Elems::Range => Value::Int(first + k),
            Elems::Board(b) => Value::Space(b, k as u32),
            Elems::Players => Value::Player(k as u8),
            Elems::Enum(e) => Value::Enum(e, k as u16),
        }
    }
}

/// A `for` loop of a region: the pcs of its `ForInit` and of its `ForDone`, its first local
/// (the steps keep their place in the iteration stack there), what it walks, and the first
/// of its three scratch words after the locals' (the next element's position, the first
/// number, the count).
#[derive(Clone, Copy, Debug)]
pub struct RegionLoop {
    /// Its `ForInit`.
    pub init: u32,
    /// Its `ForDone`.
    pub done: u32,
    /// Its first local.
    pub slot: u16,
    /// What it walks.
    pub elems: Elems,
    /// Its first word after the locals'.
    pub word: usize,
}

/// A range of more numbers than this is not walked natively (the steps list it, and so
/// rebuild at most this many elements where a region stops).
pub const MAX_RANGE: i64 = 4096;

/// The `for` loops of a region, each wholly inside it, and no jump out of the region from
/// inside one (`Err` otherwise); with the type of each loop's name (its local's slot).
type Loops = (Vec<RegionLoop>, Vec<(u16, Ty)>);

fn region_loops(g: &Game, code: &[Instr], start: u32, end: u32) -> Result<Loops, String> {
    let mut names: Vec<(u16, Ty)> = vec![];
    let mut loops: Vec<RegionLoop> = vec![];
    let mut open: Vec<usize> = vec![];
    for (k, i) in code.iter().enumerate() {
        let pc = start + k as u32;
        match i {
            Instr::ForInit { coll, slot, .. } => {
                let elems = Elems::of(g, coll).ok_or("a loop over a collection not walked here")?;
                open.push(loops.len());
                loops.push(RegionLoop {
                    init: pc,
                    done: u32::MAX,
                    slot: *slot,
                    elems,
                    word: 0,
                });
            }
            Instr::ForNext { slot, var, exit } => {
                let top = open.last().map(|&o| &loops[o]);
                match top {
                    Some(l) if l.slot == *slot && *exit > pc && *exit < end => {
                        names.push((*var, l.elems.ty()))
                    }
                    _ => return Err("a loop that does not nest in the region".into()),
                }
            }
            Instr::ForDone { slot } => match open.pop() {
                Some(o) if loops[o].slot == *slot => loops[o].done = pc,
                _ => return Err("a loop that does not nest in the region".into()),
            },
            _ => {}
        }
        if let Instr::Jump(t) | Instr::JumpIfNot(_, t, _) = i {
            if (*t < start || *t >= end) && !open.is_empty() {
                return Err("a jump out of the region from inside a loop".into());
            }
        }
    }
    if !open.is_empty() {
        return Err("a loop that does not end in the region".into());
    }
    Ok((loops, names))
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
    names: &[(u16, Ty)],
) -> Result<Vec<Ty>, String> {
    let mut tys: Vec<Option<Ty>> = (slots.iter())
        .map(|s| {
            known
                .iter()
                .find(|(k, _)| k == s)
                .and_then(|(_, t)| Ty::of(*t))
        })
        .collect();
    // A loop's name: the type of its elements.
    for (var, ty) in names {
        let k = slots.iter().position(|s| s == var).ok_or("a local lost")?;
        match tys[k] {
            Some(t) if t != *ty => return Err("a local given values of two types".into()),
            _ => tys[k] = Some(*ty),
        }
    }
    let mut why: Vec<Option<String>> = vec![None; slots.len()];
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
            let f = match lower_expr_at(g, "a local's type", value, &params) {
                Ok(f) => f,
                Err(e) => {
                    why[k] = Some(e);
                    continue;
                }
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
    (tys.into_iter().zip(why).zip(slots))
        .map(|((t, why), slot)| {
            t.ok_or_else(|| match why {
                Some(e) => format!("local {slot}, whose value is not lowered: {e}"),
                None => format!("local {slot}, whose type is not known"),
            })
        })
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
    let (mut loops, names) = region_loops(g, run, start, end)?;
    let slots = region_locals(run);
    let mut tys = local_types(g, run, &slots, known, &names)?;
    // Each loop's three words: the next element's position, the first number, the count.
    for (k, lp) in loops.iter_mut().enumerate() {
        lp.word = slots.len() + 3 * k;
    }
    let locals = slots.len();
    tys.extend(std::iter::repeat_n(Ty::Int, 3 * loops.len()));
    let mut l = Lower::new(g, format!("statements {start}..{end}"), Ty::Int);
    let mut r = Region {
        start,
        end,
        slots: &slots,
        tys: &tys,
        loops: &loops,
        words: vec![],
        blocks: vec![],
        exits: vec![],
        stored: vec![None; tys.len()],
        save: l.area(1 + tys.len() as u32)?,
    };
    l.cur = l.block(vec![]);
    let params: Vec<Reg> = tys[..locals].iter().map(|t| l.f.reg(*t)).collect();
    l.f.params = params.clone();
    let mut args = params;
    for _ in locals..tys.len() {
        args.push(l.konst(Ty::Int, 0));
    }
    // A block per statement that a jump reaches or that follows a jump.
    let mut leaders = vec![start];
    for (k, i) in run.iter().enumerate() {
        let pc = start + k as u32;
        match i {
            Instr::Jump(t) | Instr::JumpIfNot(_, t, _) | Instr::ForNext { exit: t, .. } => {
                leaders.extend([*t, pc + 1])
            }
            _ => {}
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
    l.goto(first, args);
    let mut open = false;
    for (k, i) in run.iter().enumerate() {
        let pc = start + k as u32;
        if let Some(b) = r.block_of(pc) {
            if open {
                let args = r.regs(&l)?;
                l.goto(b, args);
            }
            l.cur = b;
            let ps = l.f.blocks[b].params.clone();
            r.bind(&mut l, ps);
            r.stored.iter_mut().for_each(|x| *x = None);
            open = true;
        }
        if !open {
            // After a jump, before the next block: never reached.
            continue;
        }
        match i {
            Instr::LoopGuard { .. } | Instr::ForDone { .. } => {}
            Instr::Jump(t) => {
                let to = r.target(&mut l, *t)?;
                let args = r.regs(&l)?;
                l.goto(to, args);
                open = false;
            }
            Instr::ForNext { slot, var, exit } => {
                r.next(&mut l, (pc, *slot, *var, *exit))?;
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
        loops,
    })
}

/// A region being lowered.
struct Region<'a> {
    start: u32,
    end: u32,
    slots: &'a [u16],
    /// The types of its words: the locals', then three numbers per loop.
    tys: &'a [Ty],
    loops: &'a [RegionLoop],
    /// The registers of the loops' words now.
    words: Vec<Reg>,
    /// The block of each statement that starts one.
    blocks: Vec<(u32, usize)>,
    /// The block that leaves the region for each pc after it reached.
    exits: Vec<(u32, usize)>,
    /// Per word, the register last stored in the current block.
    stored: Vec<Option<Reg>>,
    /// The pc (plus one), the locals and the loops' words, where the steps go on.
    save: Area,
}

impl Region<'_> {
    fn block_of(&self, pc: u32) -> Option<usize> {
        self.blocks.iter().find(|(p, _)| *p == pc).map(|(_, b)| *b)
    }

    /// The registers of the words now (each block binds them all first).
    fn regs(&self, l: &Lower) -> Result<Vec<Reg>, String> {
        let mut regs = (self.slots.iter())
            .map(|s| l.locals.get(*s as usize).copied().flatten())
            .collect::<Option<Vec<Reg>>>()
            .ok_or_else(|| "a local without its register".to_string())?;
        regs.extend(&self.words);
        Ok(regs)
    }

    /// Binds the words to `regs` (a block's parameters).
    fn bind(&mut self, l: &mut Lower, regs: Vec<Reg>) {
        let n = self.slots.len();
        for (s, p) in self.slots.iter().zip(&regs) {
            l.set_local(*s, *p);
        }
        self.words = regs[n..].to_vec();
    }

    fn word(&self, k: u32) -> Area {
        Area {
            at: self.save.at + k,
            words: 1,
        }
    }

    /// Stores the pc (plus one) and the words that changed since the last store.
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
        let here = (
            l.cur,
            std::mem::take(&mut self.stored),
            l.locals.clone(),
            self.words.clone(),
        );
        let ps: Vec<Reg> = self.tys.iter().map(|t| l.f.reg(*t)).collect();
        let b = l.block(ps.clone());
        l.cur = b;
        self.stored = vec![None; self.tys.len()];
        self.bind(l, ps);
        self.sync(l, pc)?;
        let zero = l.konst(Ty::Int, 0);
        l.end(Term::Return(zero));
        (l.cur, self.stored, l.locals, self.words) = here;
        self.exits.push((pc, b));
        Ok(b)
    }

    /// The loop whose `ForInit` is at `pc`, or whose first local is `slot` around `pc`.
    fn loop_at(&self, pc: u32, slot: Option<u16>) -> Result<usize, String> {
        (self.loops.iter())
            .position(|lp| match slot {
                None => lp.init == pc,
                Some(s) => lp.slot == s && lp.init < pc && pc < lp.done,
            })
            .ok_or_else(|| "a loop lost".to_string())
    }

    /// A loop's start (`ForInit`): its first number and its count, its position 0.
    fn init(&mut self, l: &mut Lower, pc: u32, coll: &crate::ir::Coll) -> Result<(), String> {
        let k = self.loop_at(pc, None)?;
        let (first, count) = match (self.loops[k].elems, coll) {
            (Elems::Range, crate::ir::Coll::Range(a, b)) => {
                let (a, b) = (l.expr(a)?, l.expr(b)?);
                if l.f.ty(a) != Ty::Int || l.f.ty(b) != Ty::Int {
                    return Err("a range of something that is not a number".into());
                }
                let one = l.konst(Ty::Int, 1);
                let zero = l.konst(Ty::Int, 0);
                let mut n = b;
                for (op, x) in [(Arith::Sub, a), (Arith::Add, one), (Arith::Max, zero)] {
                    n = l.num(op, n, x);
                }
                // Too many numbers: the steps list them (and fail as they do).
                let most = l.konst(Ty::Int, MAX_RANGE);
                let over = l.cmp(Cmp::Gt, n, most);
                let fail = l.block(vec![]);
                let go = l.block(vec![]);
                l.branch(over, (fail, vec![]), (go, vec![]));
                l.cur = fail;
                l.end(Term::Fail(Fail::Limit));
                l.cur = go;
                (a, n)
            }
            (Elems::Board(b), _) => {
                let n = l.g.boards[b].len() as i64;
                (l.konst(Ty::Int, 0), l.konst(Ty::Int, n))
            }
            (Elems::Players, _) => (l.konst(Ty::Int, 0), l.read(Read::PlayerCount, Ty::Int)),
            (Elems::Enum(e), _) => {
                let n = l.g.enums[e].values.len() as i64;
                (l.konst(Ty::Int, 0), l.konst(Ty::Int, n))
            }
            _ => return Err("a loop over another collection".into()),
        };
        let zero = l.konst(Ty::Int, 0);
        self.words[3 * k] = zero;
        self.words[3 * k + 1] = first;
        self.words[3 * k + 2] = count;
        Ok(())
    }

    /// A loop's head (`ForNext`): the next element bound to its name, or out to `exit`.
    fn next(
        &mut self,
        l: &mut Lower,
        (pc, slot, var, exit): (u32, u16, u16, u32),
    ) -> Result<(), String> {
        let k = self.loop_at(pc, Some(slot))?;
        let (pos, first, count) = (
            self.words[3 * k],
            self.words[3 * k + 1],
            self.words[3 * k + 2],
        );
        let more = l.cmp(Cmp::Lt, pos, count);
        let bind = l.block(vec![]);
        let out = self.target(l, exit)?;
        let args = self.regs(l)?;
        l.branch(more, (bind, vec![]), (out, args));
        l.cur = bind;
        let ty = self.loops[k].elems.ty();
        let elem = if ty == Ty::Int {
            l.num(Arith::Add, first, pos)
        } else {
            let dst = l.f.reg(ty);
            l.push(Inst::Cast { dst, a: pos })
        };
        l.set_local(var, elem);
        let one = l.konst(Ty::Int, 1);
        self.words[3 * k] = l.num(Arith::Add, pos, one);
        let to = self.target(l, pc + 1)?;
        let args = self.regs(l)?;
        l.goto(to, args);
        Ok(())
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
                        new = l.num(op, new, b);
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
            Instr::ForInit { coll, .. } => self.init(l, pc, coll)?,
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
    l.num(op, old, v)
}

impl Lower<'_> {
    /// A comparison of two numbers.
    pub(super) fn cmp(&mut self, op: Cmp, a: Reg, b: Reg) -> Reg {
        let dst = self.f.reg(Ty::Bool);
        self.push(Inst::Cmp { dst, op, a, b })
    }

    /// Checked arithmetic on two numbers.
    pub(super) fn num(&mut self, op: Arith, a: Reg, b: Reg) -> Reg {
        let dst = self.f.reg(Ty::Int);
        self.push(Inst::Arith { dst, op, a, b })
    }

    /// Binds local `slot` to register `r`.
    fn set_local(&mut self, slot: u16, r: Reg) {
        let slot = slot as usize;
        if self.locals.len() <= slot {
            self.locals.resize(slot + 1, None);
        }
        self.locals[slot] = Some(r);
    }
}
