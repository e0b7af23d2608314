//! Expressions and collections to stack-machine code.

use super::Compiler;
use crate::ir::vm::*;
use crate::ir::*;

mod fold;
mod inline;
pub(super) use inline::looping;

/// Functions are inlined into each other at most this deep.
const MAX_INLINE_DEPTH: u32 = 4;
/// A function body of at most this many nodes may be inlined.
const MAX_INLINE_NODES: usize = 48;

impl Compiler<'_> {
    fn lit(&mut self, v: Value) {
        match v {
            Value::Int(n) if i32::try_from(n).is_ok() => {
                self.emit(Op::Int(n as i32));
            }
            Value::None => {
                self.emit(Op::None);
            }
            other => {
                let i = self.pool(other);
                self.emit(Op::Lit(i));
            }
        }
    }

    /// The row-major position of constant indexes in a table of dimensions `sizes`.
    fn const_index(&self, ix: &[Expr], sizes: &[u32]) -> Option<u32> {
        let mut k = 0u32;
        for (x, size) in ix.iter().zip(sizes) {
            let n = match x {
                Expr::Lit(Value::Player(p)) => *p as u32,
                Expr::Lit(Value::Enum(_, i)) => *i as u32,
                Expr::Lit(Value::Space(_, s)) => *s,
                _ => return None,
            };
            if n >= *size {
                return None;
            }
            k = k.checked_mul(*size)?.checked_add(n)?;
        }
        Some(k)
    }

    pub(crate) fn emit_expr(&mut self, e: &Expr) {
        match e {
            Expr::Lit(v) => self.lit(*v),
            Expr::Const(c) => {
                self.emit(Op::Const(*c));
            }
            Expr::Local(l) => {
                self.emit(Op::Local(*l));
            }
            Expr::Me => {
                self.emit(Op::Me);
            }
            Expr::Current => {
                self.emit(Op::Current);
            }
            Expr::PlayerCount => {
                self.emit(Op::PlayerCount);
            }
            Expr::Var(v, ix) => {
                let var = &self.g.vars[*v];
                if let Some(k) = self.const_index(ix, &var.sizes) {
                    self.emit(Op::Slot(var.base + k));
                } else if let [Expr::Local(l)] = ix.as_slice() {
                    self.emit(Op::VarLocal(*v, *l));
                } else if let [Expr::Me] = ix.as_slice() {
                    self.emit(Op::VarMe(*v));
                } else if let Some(i) = self.var2(*v, ix) {
                    self.emit(Op::Var2(i));
                } else {
                    for x in ix {
                        self.emit_expr(x);
                    }
                    self.emit(Op::Var(*v));
                }
            }
            Expr::Zone(z, ix) => {
                let zone = &self.g.zones[*z];
                if let Some(k) = self.const_index(ix, &zone.sizes) {
                    self.emit(Op::Inst(InstId(zone.base.0 + k)));
                } else if let [Expr::Local(l)] = ix.as_slice() {
                    self.emit(Op::ZoneLocal(*z, *l));
                } else if let [Expr::Me] = ix.as_slice() {
                    self.emit(Op::ZoneMe(*z));
                } else if let [Expr::Me, Expr::Local(l)] = ix.as_slice() {
                    self.emit(Op::ZoneMeLocal(*z, *l));
                } else if let Some(ZoneAt::Local2(i)) = self.zone_at(e) {
                    self.emit(Op::Zone2(i));
                } else {
                    for x in ix {
                        self.emit_expr(x);
                    }
                    self.emit(Op::Zone(*z));
                }
            }
            Expr::Field(x, f) => {
                if let Expr::Local(l) = **x {
                    self.emit(Op::LocalField(l, *f));
                } else {
                    self.emit_expr(x);
                    self.emit(Op::Field(*f));
                }
            }
            Expr::Not(x) => {
                if !self.empty_cmp(x, true) {
                    self.emit_expr(x);
                    self.emit(Op::Not);
                }
            }
            Expr::Neg(x) => match **x {
                Expr::Lit(Value::Int(n)) if n.checked_neg().is_some() => self.lit(Value::Int(-n)),
                _ => {
                    self.emit_expr(x);
                    self.emit(Op::Neg);
                }
            },
            Expr::Bin(op, a, b, span) => self.binary(*op, a, b, *span),
            Expr::If(c, a, b) => {
                self.emit_expr(c);
                let jf = self.emit(Op::JumpIfNot(0));
                self.emit_expr(a);
                let j = self.emit(Op::Jump(0));
                let here = self.here();
                self.patch(jf, here);
                self.emit_expr(b);
                let here = self.here();
                self.patch(j, here);
            }
            // `seat(k)` for a seat every match has is known now.
            Expr::Builtin(Builtin::Seat, args, _)
                if matches!(args.as_slice(), [Expr::Lit(Value::Int(k))]
                    if *k >= 0 && *k < self.g.min_players as i64) =>
            {
                let Expr::Lit(Value::Int(k)) = args[0] else {
                    unreachable!("matched above")
                };
                self.lit(Value::Player(k as u8));
            }
            Expr::Builtin(Builtin::Empty, ..) if self.empty_cmp(e, false) => {}
            Expr::Builtin(b, args, span) => {
                for a in args {
                    self.emit_expr(a);
                }
                self.emit_at(Op::Builtin(*b), *span);
            }
            Expr::After(a) => {
                for x in a.args.iter().chain([&a.me]) {
                    self.emit_expr(x);
                }
                let i = self.p.afters.len() as u32;
                self.p.afters.push(CAfter {
                    action: a.action,
                    argc: a.args.len() as u8,
                    body: Code { start: 0, end: 0 },
                });
                self.emit_at(Op::After(i), a.span);
                let start = self.here();
                self.emit_expr(&a.body);
                let end = self.here();
                self.p.afters[i as usize].body = Code { start, end };
            }
            Expr::CallDef(d, args) => match self.inlined(*d, args) {
                Some(body) => {
                    self.inlining += 1;
                    self.emit_expr(&body);
                    self.inlining -= 1;
                }
                None => {
                    if self.inline_walk(*d, args) {
                        return;
                    }
                    for a in args {
                        self.emit_expr(a);
                    }
                    self.emit(Op::Call(*d));
                }
            },
            Expr::Agg(a, span) => self.aggregate(a, *span),
        }
    }

    /// An expression simple enough to be read in place by a comparison.
    fn operand(&mut self, e: &Expr) -> Option<Operand> {
        Some(match e {
            Expr::Local(l) => Operand::Local(*l),
            Expr::Me => Operand::Me,
            Expr::Lit(Value::None) => Operand::None,
            Expr::Lit(Value::Int(n)) if i32::try_from(*n).is_ok() => Operand::Int(*n as i32),
            Expr::Lit(v) => Operand::Lit(self.pool(*v)),
            Expr::Const(c) => Operand::Const(*c),
            Expr::Var(v, ix) => {
                let var = &self.g.vars[*v];
                if let Some(k) = self.const_index(ix, &var.sizes) {
                    Operand::Slot(var.base + k)
                } else if let ([Expr::Local(l)], Ok(size)) = (
                    ix.as_slice(),
                    u16::try_from(var.sizes.first().copied().unwrap_or(0)),
                ) {
                    Operand::VarAt {
                        base: var.base,
                        size,
                        slot: *l,
                    }
                } else if let Some(i) = self.var2(*v, ix) {
                    Operand::Var2(i)
                } else {
                    return None;
                }
            }
            Expr::Field(x, f) => match **x {
                Expr::Local(l) => Operand::LocalField(l, *f),
                _ => return None,
            },
            Expr::Builtin(Builtin::Count, args, _) => match args.as_slice() {
                [z] => Operand::ZoneLen(self.zone_at(z)?),
                _ => return None,
            },
            // `if empty(z) then none else top(z).f`: the top's field, or none.
            Expr::If(c, a, b) => match (&**c, &**a, &**b) {
                (
                    Expr::Builtin(Builtin::Empty, za, _),
                    Expr::Lit(Value::None),
                    Expr::Field(top, f),
                ) => match (za.as_slice(), &**top) {
                    ([za], Expr::Builtin(Builtin::Top, zb, _)) => match zb.as_slice() {
                        [zb] => {
                            let z = self.zone_at(za)?;
                            if self.zone_at(zb)? != z {
                                return None;
                            }
                            Operand::TopField(z, *f)
                        }
                        _ => return None,
                    },
                    _ => return None,
                },
                _ => return None,
            },
            // A small function whose body is such an operand once inlined.
            Expr::CallDef(d, args) => {
                let body = self.inlined(*d, args)?;
                self.inlining += 1;
                let o = self.operand(&body);
                self.inlining -= 1;
                return o;
            }
            _ => return None,
        })
    }

    /// `var[a, b]` with two locals as indexes, as an entry of [`Program::var2s`].
    fn var2(&mut self, v: VarId, ix: &[Expr]) -> Option<u32> {
        let var = &self.g.vars[v];
        let ([Expr::Local(a), Expr::Local(b)], [s0, s1]) = (ix, var.sizes.as_slice()) else {
            return None;
        };
        let r = Var2 {
            var: v,
            base: var.base,
            sizes: [*s0, *s1],
            slots: [*a, *b],
        };
        Some(match self.p.var2s.iter().position(|x| *x == r) {
            Some(i) => i as u32,
            None => {
                self.p.var2s.push(r);
                self.p.var2s.len() as u32 - 1
            }
        })
    }

    /// A zone instance a comparison can read in place.
    fn zone_at(&mut self, e: &Expr) -> Option<ZoneAt> {
        let Expr::Zone(z, ix) = e else {
            return None;
        };
        let zone = &self.g.zones[*z];
        if let Some(k) = self.const_index(ix, &zone.sizes) {
            return Some(ZoneAt::Inst(InstId(zone.base.0 + k)));
        }
        match ix.as_slice() {
            [Expr::Local(l)] if zone.sizes.len() == 1 => Some(ZoneAt::Local {
                base: zone.base.0,
                size: u16::try_from(zone.sizes[0]).ok()?,
                slot: *l,
            }),
            [Expr::Local(a), Expr::Local(b)] if zone.sizes.len() == 2 => {
                let r = Zone2 {
                    zone: *z,
                    base: zone.base.0,
                    sizes: [zone.sizes[0], zone.sizes[1]],
                    slots: [*a, *b],
                };
                Some(ZoneAt::Local2(
                    match self.p.zone2s.iter().position(|x| *x == r) {
                        Some(i) => i as u32,
                        None => {
                            self.p.zone2s.push(r);
                            self.p.zone2s.len() as u32 - 1
                        }
                    },
                ))
            }
            _ => None,
        }
    }

    /// `empty(z)` (or, when `negate`, `not empty(z)`) as a comparison read in place, when `z`
    /// allows it.
    fn empty_cmp(&mut self, e: &Expr, negate: bool) -> bool {
        let Expr::Builtin(Builtin::Empty, args, span) = e else {
            return false;
        };
        let Some(z) = (match args.as_slice() {
            [z] => self.zone_at(z),
            _ => None,
        }) else {
            return false;
        };
        let op = if negate { BinOp::Ne } else { BinOp::Eq };
        self.p.cmps.push(Cmp {
            op,
            a: Operand::ZoneLen(z),
            b: Operand::Int(0),
        });
        let id = self.p.cmps.len() as u32 - 1;
        self.emit_at(Op::Cmp(id), *span);
        true
    }

    fn pool(&mut self, v: Value) -> u32 {
        match self.p.lits.iter().position(|l| *l == v) {
            Some(i) => i as u32,
            None => {
                self.p.lits.push(v);
                self.p.lits.len() as u32 - 1
            }
        }
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, span: Span) {
        let comparison = matches!(
            op,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        );
        if comparison {
            if let (Some(x), Some(y)) = (self.operand(a), self.operand(b)) {
                self.p.cmps.push(Cmp { op, a: x, b: y });
                let id = self.p.cmps.len() as u32 - 1;
                self.emit_at(Op::Cmp(id), span);
                return;
            }
        }
        match (op, a, b) {
            (BinOp::And | BinOp::Or, _, _) => {
                self.emit_expr(a);
                let j = if op == BinOp::And {
                    self.emit_at(Op::AndJump(0), span)
                } else {
                    self.emit_at(Op::OrJump(0), span)
                };
                self.emit_expr(b);
                let here = self.here();
                self.patch(j, here);
            }
            (BinOp::Eq | BinOp::Ne, x, Expr::Lit(Value::None))
            | (BinOp::Eq | BinOp::Ne, Expr::Lit(Value::None), x) => {
                self.emit_expr(x);
                self.emit(if op == BinOp::Eq {
                    Op::IsNone
                } else {
                    Op::NotNone
                });
            }
            (BinOp::Eq | BinOp::Ne, x, Expr::Me) | (BinOp::Eq | BinOp::Ne, Expr::Me, x) => {
                self.emit_expr(x);
                self.emit(Op::IsMe);
                if op == BinOp::Ne {
                    self.emit(Op::Not);
                }
            }
            _ => {
                self.emit_expr(a);
                self.emit_expr(b);
                self.emit_at(Op::Bin(op), span);
            }
        }
    }

    pub(crate) fn emit_coll(&mut self, c: &Coll) {
        match c {
            Coll::Zone(e) => {
                self.emit_expr(e);
                self.emit(Op::IterZone);
            }
            Coll::Board(b) => {
                self.emit(Op::IterBoard(*b));
            }
            Coll::Enum(e) => {
                self.emit(Op::IterEnum(*e));
            }
            Coll::Type(t) => {
                self.emit(Op::IterType(*t));
            }
            Coll::Players => {
                self.emit(Op::IterPlayers);
            }
            Coll::Range(a, b) => {
                self.emit_expr(a);
                self.emit_expr(b);
                self.emit(Op::IterRange);
            }
            Coll::List(xs) => {
                for x in xs {
                    self.emit_expr(x);
                }
                self.emit(Op::IterList(xs.len() as u16));
            }
            Coll::Adjacent(x) => {
                self.emit_expr(x);
                self.emit(Op::IterAdjacent);
            }
            Coll::Ray(x, d) => {
                self.emit_expr(x);
                self.emit_expr(d);
                self.emit(Op::IterRay);
            }
            Coll::Rays(r) => {
                self.emit_expr(&r.from);
                for d in &r.dirs {
                    self.emit_expr(d);
                }
                let stop = r.stop.as_ref();
                let cond = self.out_of_line(stop.map(|x| &x.cond));
                self.p.rays.push(RaysOp {
                    dirs: r.dirs.len() as u16,
                    slot: stop.map_or(0, |x| x.slot),
                    cond,
                    until: stop.is_some_and(|x| x.until),
                });
                self.emit(Op::IterRays(self.p.rays.len() as u32 - 1));
            }
            Coll::Paths {
                board,
                slot,
                from,
                steps,
                cond,
            } => {
                self.emit_expr(from);
                self.emit_expr(steps);
                let parts = self.split_cond(cond.as_ref(), *slot);
                let cond = self.out_of_line(cond.as_ref());
                self.p.paths.push(PathsOp {
                    board: *board,
                    slot: *slot,
                    cond,
                    parts,
                    reads: Vec::new(),
                });
                self.emit(Op::IterPaths(self.p.paths.len() as u32 - 1));
            }
            Coll::Group {
                board,
                slot,
                start,
                cond,
            } => {
                self.emit_expr(start);
                let parts = self.split_cond(cond.as_ref(), *slot);
                let mut reads = Vec::new();
                if let Some(c) = cond {
                    c.reads(&mut |l| {
                        if l != *slot && !reads.contains(&l) {
                            reads.push(l);
                        }
                    });
                }
                let cond = self.out_of_line(cond.as_ref());
                self.p.groups.push(PathsOp {
                    board: *board,
                    slot: *slot,
                    cond,
                    parts,
                    reads,
                });
                self.emit(Op::IterGroup(self.p.groups.len() as u32 - 1));
            }
            Coll::Groups { board, slot, cond } => {
                let parts = self.split_cond(cond.as_ref(), *slot);
                let cond = self.out_of_line(cond.as_ref());
                self.p.groups.push(PathsOp {
                    board: *board,
                    slot: *slot,
                    cond,
                    parts,
                    reads: Vec::new(),
                });
                self.emit(Op::IterGroups(self.p.groups.len() as u32 - 1));
            }
        }
    }
}
