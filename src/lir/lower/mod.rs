//! Lowering of the IR's expressions to a function of the low-level IR.
//!
//! Built so far: literals, constants, `me`, `current`, `player_count`, the function's
//! parameters, variables (their indexes checked), fields, `not`, `-`, arithmetic, comparisons
//! (with `none` on either side), `and` / `or` (the right side read only when needed, in
//! blocks of their own), `if`, calls of functions, written out in place (at most
//! [`MAX_INLINE`] deep), zones and the built-in functions of one value (`abs`, `next`, `prev`,
//! `seat`, `ord`, `col`, `row`, `opposite`, `max`, `min`, `step`, `count`, `empty`, `top`,
//! `bottom`, `owner`, `space_of`, `zone_of`), and folds (of any number of bindings) over a range, the
//! players, an enum, a board (its closed spaces passed over), the components of a type, a zone
//! or a list (`fold.rs`), a space's neighbours or rays (`walk.rs`), a group (`flood.rs`: its
//! members found by a flood over a stack and a set in the function's scratch words, then
//! listed in board order), `connected` (`flood.rs`), and `line` on a grid or a graph, its
//! length written as a number (`line.rs`: the runs in the reference's order); an action's
//! options as an enumerator ([`lower_options`], the same loops, over the parameters, writing
//! each option out). Anything else is refused with the reason (the engine keeps running it its
//! own way): `repeated`, folds over paths and `groups`, `line` on a ring, a hex board or a
//! board with closed spaces, `majority`, `best_sets`, `after`, rays in several directions on
//! a ring.

use super::*;
use crate::ir::{Expr, Game};
use crate::ops::BinOp;

mod flood;
mod fold;
mod hoist;
mod line;
mod narrow;
mod stmts;
mod walk;
pub use stmts::{lower_region, Elems, RegionFunc, RegionLoop, MAX_RANGE};

/// Lowers `e` to a function whose parameters are the locals `0..params.len()`, of those
/// types. `Err` says what is not built yet.
pub fn lower_expr(g: &Game, name: &str, e: &Expr, params: &[Type]) -> Result<Func, String> {
    let at: Vec<(u16, Type)> = (params.iter().enumerate())
        .map(|(i, t)| (i as u16, *t))
        .collect();
    lower_expr_at(g, name, e, &at)
}

/// Lowers `e` to a function whose parameters are the locals of these slots, of these types,
/// in order (the locals an expression of a procedure reads).
pub fn lower_expr_at(
    g: &Game,
    name: &str,
    e: &Expr,
    params: &[(u16, Type)],
) -> Result<Func, String> {
    let mut l = Lower::new(g, name.to_string(), Ty::Bool);
    for &(slot, t) in params {
        let ty = Ty::of(t).ok_or("a parameter without an unboxed type")?;
        let r = l.f.reg(ty);
        l.f.params.push(r);
        let slot = slot as usize;
        if l.locals.len() <= slot {
            l.locals.resize(slot + 1, None);
        }
        l.locals[slot] = Some(r);
    }
    l.cur = l.block(vec![]);
    let r = l.expr(e)?;
    l.f.ret = l.f.ty(r);
    l.end(Term::Return(r));
    Ok(l.f)
}

/// Lowers an action's options to an enumerator: a function of no parameters that writes
/// each option's values ([`Inst::Out`], one per parameter) in the order the reference lists
/// them (4.1: the last binding fastest, each guard part tested once the bindings it needs are
/// bound) and returns their number. `Err` says what is not built yet.
pub fn lower_options(g: &Game, a: &crate::ir::ActionDef) -> Result<Func, String> {
    let mut l = Lower::new(g, format!("options of {}", a.name), Ty::Int);
    l.cur = l.block(vec![]);
    let zero = l.konst(Ty::Int, 0);
    let nest = fold::Nest::Options {
        binds: &a.params,
        parts: &a.guard_parts,
    };
    let mut fold = fold::Fold {
        exits: vec![],
        exit_ty: None,
    };
    let n = l.fold_deeper(&nest, &mut fold, 0, zero)?;
    l.end(Term::Return(n));
    Ok(l.f)
}

struct Lower<'g> {
    g: &'g Game,
    f: Func,
    /// The block instructions go to.
    cur: usize,
    /// The registers of the locals the expression being lowered reads: the function's
    /// parameters, or a called function's arguments while its body is lowered in place.
    locals: Vec<Option<Reg>>,
    /// Calls being lowered in place.
    depth: u32,
    /// Instructions written so far.
    insts: usize,
    /// The options' guard parts known true where they are tested (a binding narrowed by
    /// them), by position: not tested.
    narrowed: Vec<usize>,
    /// The values of the match read so far, each once, in the entry block ([`Lower::read`]).
    reads: Vec<(Read, Reg)>,
    /// Calls and folds remembered through the loop of the fold being lowered
    /// ([`Lower::hoist`]), by the address of their expression: the areas of their flag and
    /// value.
    hoisted: Vec<(*const Expr, hoist::Memo)>,
    /// Groups remembered through the loop of the fold being lowered ([`Lower::hoist`]), by
    /// the address of their collection: the area of their flag, and of their members once
    /// lowered (where every lowering of the same group floods into).
    groups: Vec<(*const crate::ir::Coll, Area, Option<Area>)>,
}

/// Calls written out in place, one inside another, at most (a function that calls itself
/// deeper is not lowered).
const MAX_INLINE: u32 = 8;

/// Instructions a function may hold before another call is written out in place (calls
/// written out inside each other multiply: a function of eleven calls of a function of eleven
/// calls... is refused here, before it is built, and the engine runs it as before).
pub const MAX_INSTS: usize = 20_000;

impl<'g> Lower<'g> {
    /// An empty function named `name`, of result type `ret`, to lower into.
    fn new(g: &'g Game, name: String, ret: Ty) -> Lower<'g> {
        Lower {
            g,
            f: Func {
                name,
                params: vec![],
                regs: vec![],
                blocks: vec![],
                ret,
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
        }
    }
}

impl Lower<'_> {
    fn block(&mut self, params: Vec<Reg>) -> usize {
        self.f.blocks.push(Block {
            params,
            insts: vec![],
            term: Term::Return(Reg(u32::MAX)),
        });
        self.f.blocks.len() - 1
    }

    /// A value of the match or the moment, read once per call: in the entry block (which
    /// every block comes after), the first time it is asked for.
    fn read(&mut self, what: Read, ty: Ty) -> Reg {
        if let Some(&(_, r)) = self
            .reads
            .iter()
            .find(|(w, r)| *w == what && self.f.ty(*r) == ty)
        {
            return r;
        }
        let dst = self.f.reg(ty);
        self.f.blocks[0].insts.push(Inst::Read { dst, what });
        self.insts += 1;
        self.reads.push((what, dst));
        dst
    }

    /// A new area of `words` scratch words; `Err` past [`MAX_SCRATCH`].
    fn area(&mut self, words: u32) -> Result<Area, String> {
        let at = self.f.scratch;
        let end = at
            .checked_add(words)
            .filter(|&e| e <= MAX_SCRATCH)
            .ok_or("walks needing more scratch words than a function may use")?;
        self.f.scratch = end;
        Ok(Area { at, words })
    }

    fn push(&mut self, inst: Inst) -> Reg {
        let dst = inst.dst();
        self.f.blocks[self.cur].insts.push(inst);
        self.insts += 1;
        dst
    }

    fn end(&mut self, t: Term) {
        self.f.blocks[self.cur].term = t;
    }

    /// Ends the current block with a jump to block `to`, with these arguments.
    fn goto(&mut self, to: usize, args: Vec<Reg>) {
        self.end(Term::Jump(target(to, args)));
    }

    /// Ends the current block with a branch on `cond`: true to `yes`, false to `no`.
    fn branch(&mut self, cond: Reg, yes: (usize, Vec<Reg>), no: (usize, Vec<Reg>)) {
        self.end(Term::Branch {
            cond,
            yes: target(yes.0, yes.1),
            no: target(no.0, no.1),
        });
    }

    fn konst(&mut self, ty: Ty, value: i64) -> Reg {
        let dst = self.f.reg(ty);
        self.push(Inst::Const { dst, value })
    }

    /// The register type of a literal; `None` for `none` (its type comes from elsewhere).
    fn lit_ty(&self, v: Value) -> Option<Ty> {
        Some(match v {
            Value::None => return None,
            Value::Int(_) => Ty::Int,
            Value::Bool(_) => Ty::Bool,
            Value::Player(_) => Ty::Player,
            Value::Enum(e, _) => Ty::Enum(e),
            Value::Comp(c) => Ty::Comp(self.g.comps[c].ty),
            Value::Space(b, _) => Ty::Space(b),
            Value::Zone(z) => {
                let zone = self.g.instances[z].zone;
                Ty::Zone(self.g.zones[zone].ty)
            }
            Value::Action(_) => return None,
        })
    }

    fn lit(&mut self, v: Value) -> Result<Reg, String> {
        let ty = self.lit_ty(v).ok_or("`none` or an action as a value")?;
        let n = ty.encode(v).ok_or("a literal that does not fit its type")?;
        Ok(self.konst(ty, n))
    }

    fn expr(&mut self, e: &Expr) -> Result<Reg, String> {
        match self.hoisted(e) {
            Some(memo) => self.remembered(e, memo),
            None => self.expr_here(e),
        }
    }

    /// [`Lower::expr`] computed where it stands.
    fn expr_here(&mut self, e: &Expr) -> Result<Reg, String> {
        Ok(match e {
            Expr::Lit(v) => self.lit(*v)?,
            Expr::Const(c) => {
                let v = self.g.consts.get(*c).ok_or("no such constant")?.value;
                let ty = self.lit_ty(v).ok_or("a constant without a type")?;
                self.read(Read::Const(*c), ty)
            }
            Expr::Local(i) => self
                .locals
                .get(*i as usize)
                .copied()
                .flatten()
                .ok_or("a local that is not a parameter")?,
            Expr::Me | Expr::Current | Expr::PlayerCount => {
                let (what, ty) = match e {
                    Expr::Me => (Read::Me, Ty::Player),
                    Expr::Current => (Read::Current, Ty::Player),
                    _ => (Read::PlayerCount, Ty::Int),
                };
                self.read(what, ty)
            }
            Expr::Var(v, ix) => {
                let def = self.g.vars.get(*v).ok_or("no such variable")?;
                let ty = Ty::of(def.ty).ok_or("a variable without an unboxed type")?;
                let sizes = def.sizes.clone();
                let acc = self.flat(ix, &sizes)?;
                let dst = self.f.reg(ty);
                self.push(Inst::Var {
                    dst,
                    var: *v,
                    index: acc,
                })
            }
            Expr::Field(c, field) => {
                let comp = self.expr(c)?;
                let Ty::Comp(t) = self.f.ty(comp) else {
                    return Err("a field of something that is not a component".into());
                };
                let fd = self.g.types[t]
                    .fields
                    .get(*field as usize)
                    .ok_or("no such field")?;
                let ty = Ty::of(fd.ty).ok_or("a field without an unboxed type")?;
                let dst = self.f.reg(ty);
                self.push(Inst::Field {
                    dst,
                    comp,
                    field: *field,
                })
            }
            Expr::Not(x) => {
                let a = self.expr(x)?;
                let dst = self.f.reg(Ty::Bool);
                self.push(Inst::Not { dst, a })
            }
            Expr::Neg(x) => {
                let a = self.expr(x)?;
                let dst = self.f.reg(Ty::Int);
                self.push(Inst::Neg { dst, a })
            }
            Expr::Bin(op, a, b, _) => self.binary(*op, a, b)?,
            Expr::If(c, a, b) => {
                let cond = self.expr(c)?;
                self.join(cond, a, b)?
            }
            Expr::Builtin(b, args, _) => self.builtin(*b, args)?,
            Expr::CallDef(d, args) => {
                // Written out in place: the arguments computed here, the body reading them as
                // its parameters (and `me` the caller's, as a call does).
                if self.depth >= MAX_INLINE {
                    return Err("a function calling itself".into());
                }
                if self.insts > MAX_INSTS {
                    return Err("calls written out in place too large".into());
                }
                let def = self.g.defs.get(*d).ok_or("no such function")?;
                if args.len() != def.params as usize {
                    return Err("a call with the wrong number of arguments".into());
                }
                let mut regs = Vec::with_capacity(args.len());
                for a in args {
                    regs.push(self.expr(a)?);
                }
                let regs = regs.into_iter().map(Some).collect();
                let saved = std::mem::replace(&mut self.locals, regs);
                self.depth += 1;
                let r = self.expr(&def.body);
                self.depth -= 1;
                self.locals = saved;
                r?
            }
            Expr::Agg(a, _) => self.aggregate(a)?,
            Expr::Zone(z, ix) => {
                let def = self.g.zones.get(*z).ok_or("no such zone")?;
                let (ty, sizes) = (Ty::Zone(def.ty), def.sizes.clone());
                let index = self.flat(ix, &sizes)?;
                let dst = self.f.reg(ty);
                self.push(Inst::Zone {
                    dst,
                    zone: *z,
                    index,
                })
            }
            Expr::After(..) => return Err("`after`".into()),
        })
    }

    /// The flat position of indexes `ix` of dimensions `sizes` (none without indexes).
    fn flat(&mut self, ix: &[Expr], sizes: &[u32]) -> Result<Option<Reg>, String> {
        if ix.len() != sizes.len() {
            return Err("indexes that do not fit their declaration".into());
        }
        let mut acc = None;
        for (x, &size) in ix.iter().zip(sizes) {
            let x = self.expr(x)?;
            let dst = self.f.reg(Ty::Int);
            acc = Some(self.push(Inst::Index { dst, acc, x, size }));
        }
        Ok(acc)
    }

    /// A built-in function (section 7 of the reference); `repeated` is not built.
    fn builtin(&mut self, b: crate::ir::Builtin, args: &[Expr]) -> Result<Reg, String> {
        use crate::ir::Builtin as B;
        let arg = |i: usize| {
            args.get(i)
                .ok_or("a built-in function without its argument")
        };
        let unary = match b {
            B::Abs => Some(Unary::Abs),
            B::Next => Some(Unary::Next),
            B::Prev => Some(Unary::Prev),
            B::Seat => Some(Unary::Seat),
            B::Ord => Some(Unary::Ord),
            B::Col => Some(Unary::Col),
            B::Row => Some(Unary::Row),
            B::Opposite => Some(Unary::Opposite),
            _ => None,
        };
        if let Some(op) = unary {
            let a = self.expr(arg(0)?)?;
            let ty = match op {
                Unary::Abs | Unary::Ord | Unary::Col | Unary::Row => Ty::Int,
                Unary::Next | Unary::Prev | Unary::Seat => Ty::Player,
                Unary::Opposite => self.f.ty(a),
            };
            let dst = self.f.reg(ty);
            return Ok(self.push(Inst::Unary { dst, op, a }));
        }
        Ok(match b {
            B::Max2 | B::Min2 => {
                let (x, y) = (self.expr(arg(0)?)?, self.expr(arg(1)?)?);
                let op = if b == B::Max2 { Arith::Max } else { Arith::Min };
                let dst = self.f.reg(Ty::Int);
                self.push(Inst::Arith {
                    dst,
                    op,
                    a: x,
                    b: y,
                })
            }
            B::Step => {
                let (space, dir) = (self.expr(arg(0)?)?, self.expr(arg(1)?)?);
                let dst = self.f.reg(self.f.ty(space));
                self.push(Inst::Step { dst, space, dir })
            }
            B::Count | B::Empty | B::Top | B::Bottom => {
                let zone = self.expr(arg(0)?)?;
                let Ty::Zone(ct) = self.f.ty(zone) else {
                    return Err("the contents of something that is not a zone".into());
                };
                let (what, ty) = match b {
                    B::Count => (Held::Count, Ty::Int),
                    B::Empty => (Held::Empty, Ty::Bool),
                    B::Top => (Held::Top, Ty::Comp(ct)),
                    _ => (Held::Bottom, Ty::Comp(ct)),
                };
                let dst = self.f.reg(ty);
                self.push(Inst::Held { dst, what, zone })
            }
            B::Owner | B::SpaceOf | B::ZoneOf => {
                let comp = self.expr(arg(0)?)?;
                let Ty::Comp(ct) = self.f.ty(comp) else {
                    return Err("the place of something that is not a component".into());
                };
                let (what, ty) = match b {
                    B::Owner => (Place::Owner, Ty::Player),
                    B::ZoneOf => (Place::Zone, Ty::Zone(ct)),
                    // The board of `space_of` is known when the game has one board.
                    _ => match self.g.boards.len() {
                        1 => (Place::Space, Ty::Space(crate::ir::BoardId(0))),
                        _ => return Err("`space_of` with several boards".into()),
                    },
                };
                let dst = self.f.reg(ty);
                self.push(Inst::Place { dst, what, comp })
            }
            _ => return Err("a built-in function".into()),
        })
    }

    /// `if cond then a else b`: each side in a block of its own, joined by a block whose
    /// parameter is the result. A side that is `none` takes the other side's type.
    fn join(&mut self, cond: Reg, a: &Expr, b: &Expr) -> Result<Reg, String> {
        let yes = self.block(vec![]);
        let no = self.block(vec![]);
        self.branch(cond, (yes, vec![]), (no, vec![]));
        let mut results: [Option<(usize, Reg)>; 2] = [None, None];
        for (k, (blk, x)) in [(yes, a), (no, b)].into_iter().enumerate() {
            if matches!(x, Expr::Lit(Value::None)) {
                continue;
            }
            self.cur = blk;
            let r = self.expr(x)?;
            results[k] = Some((self.cur, r));
        }
        let ty = match results {
            [Some((_, r)), _] | [None, Some((_, r))] => self.f.ty(r),
            [None, None] => return Err("`none` on both sides".into()),
        };
        for (k, blk) in [yes, no].into_iter().enumerate() {
            if results[k].is_none() {
                self.cur = blk;
                let r = self.konst(ty, ty.none());
                results[k] = Some((blk, r));
            }
        }
        let out = self.f.reg(ty);
        let join = self.block(vec![out]);
        for (end, r) in results.into_iter().flatten() {
            if self.f.ty(r) != ty {
                return Err("sides of another type".into());
            }
            self.cur = end;
            self.goto(join, vec![r]);
        }
        self.cur = join;
        Ok(out)
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr) -> Result<Reg, String> {
        match op {
            BinOp::And | BinOp::Or => {
                let x = self.expr(a)?;
                // `a and b` is `if a then b else false`; `a or b` is `if a then true else b`.
                let short = Expr::Lit(Value::Bool(op == BinOp::Or));
                let (yes, no) = if op == BinOp::And {
                    (b, &short)
                } else {
                    (&short, b)
                };
                let r = self.join(x, yes, no)?;
                if self.f.ty(r) != Ty::Bool {
                    return Err("`and` / `or` of something that is not a truth value".into());
                }
                Ok(r)
            }
            BinOp::Eq | BinOp::Ne => {
                let cmp = if op == BinOp::Eq { Cmp::Eq } else { Cmp::Ne };
                let (x, y) = match (a, b) {
                    (Expr::Lit(Value::None), Expr::Lit(Value::None)) => {
                        return Ok(self.konst(Ty::Bool, (op == BinOp::Eq) as i64))
                    }
                    (Expr::Lit(Value::None), other) | (other, Expr::Lit(Value::None)) => {
                        let x = self.expr(other)?;
                        let t = self.f.ty(x);
                        (x, self.konst(t, t.none()))
                    }
                    _ => (self.expr(a)?, self.expr(b)?),
                };
                let dst = self.f.reg(Ty::Bool);
                Ok(self.push(Inst::Cmp {
                    dst,
                    op: cmp,
                    a: x,
                    b: y,
                }))
            }
            _ => {
                let x = self.expr(a)?;
                let y = self.expr(b)?;
                if self.f.ty(x) != Ty::Int || self.f.ty(y) != Ty::Int {
                    return Err("arithmetic on something that is not a number".into());
                }
                let cmp = match op {
                    BinOp::Lt => Some(Cmp::Lt),
                    BinOp::Le => Some(Cmp::Le),
                    BinOp::Gt => Some(Cmp::Gt),
                    BinOp::Ge => Some(Cmp::Ge),
                    _ => None,
                };
                if let Some(op) = cmp {
                    let dst = self.f.reg(Ty::Bool);
                    return Ok(self.push(Inst::Cmp {
                        dst,
                        op,
                        a: x,
                        b: y,
                    }));
                }
                let op = match op {
                    BinOp::Add => Arith::Add,
                    BinOp::Sub => Arith::Sub,
                    BinOp::Mul => Arith::Mul,
                    BinOp::Div => Arith::Div,
                    BinOp::Mod => Arith::Mod,
                    BinOp::Pow => Arith::Pow,
                    _ => return Err(format!("the operator `{}`", op.symbol())),
                };
                let dst = self.f.reg(Ty::Int);
                Ok(self.push(Inst::Arith {
                    dst,
                    op,
                    a: x,
                    b: y,
                }))
            }
        }
    }
}

/// A block of the function being built, with its arguments.
fn target(block: usize, args: Vec<Reg>) -> Target {
    Target {
        block: BlockId(block as u32),
        args,
    }
}
