//! Expressions and collections to stack-machine code.

use super::Compiler;
use crate::ir::vm::*;
use crate::ir::*;

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

    /// The body of a small function with its parameters replaced by simple arguments, when
    /// calling it is better done inline.
    fn inlined(&self, d: DefId, args: &[Expr]) -> Option<Expr> {
        if self.inlining >= MAX_INLINE_DEPTH {
            return None;
        }
        let simple = |a: &Expr| {
            matches!(
                a,
                Expr::Local(_)
                    | Expr::Lit(_)
                    | Expr::Me
                    | Expr::Current
                    | Expr::Const(_)
                    | Expr::PlayerCount
            )
        };
        let def = &self.g.defs[d];
        if !args.iter().all(simple) || def.locals > def.params {
            return None;
        }
        let mut nodes = 0;
        if !body_safe(&def.body, false, &mut nodes)
            || nodes > MAX_INLINE_NODES
            || !self.spend_inline(nodes)
        {
            return None;
        }
        Some(substitute(&def.body, args))
    }

    /// Emits a call of a function whose body walks zones (its aggregates are folds of one
    /// binding over a zone) as its body in place, when the frame has room
    /// ([`Compiler::scratch`]): its bindings take fresh locals past the frame's own, an
    /// argument that is a local, a literal, a constant or `me` is read where the body reads
    /// the parameter, and any other is evaluated once, in order, into a fresh local
    /// ([`Op::SetLocal`]). False (nothing emitted) when not inlined.
    fn inline_walk(&mut self, d: DefId, args: &[Expr]) -> bool {
        let Some((next, cap)) = self.scratch else {
            return false;
        };
        let def = &self.g.defs[d];
        if self.inlining >= MAX_INLINE_DEPTH
            || def.locals <= def.params
            || self.looping.get(d.0 as usize).is_none_or(|l| *l)
        {
            return false;
        }
        let mut nodes = 0;
        if !body_safe(&def.body, true, &mut nodes) || nodes > MAX_INLINE_NODES {
            return false;
        }
        // A call whose arguments read no local gets the same answer at every use while one
        // decision's options are listed: it stays a call, answered from the remembered table
        // at no cost in work, where its body in place would walk (and spend) at each use.
        let mut reads = false;
        args.iter().for_each(|a| a.reads(&mut |_| reads = true));
        if !reads {
            return false;
        }
        let plain =
            |a: &Expr| matches!(a, Expr::Local(_) | Expr::Lit(_) | Expr::Const(_) | Expr::Me);
        let bound = args.iter().filter(|a| !plain(a)).count() as u16;
        let need = bound + (def.locals - def.params);
        if next as usize + need as usize > cap as usize {
            return false;
        }
        if !self.spend_inline(nodes) {
            return false;
        }
        // What each parameter reads: the argument itself, or the local it is bound to.
        let mut params = Vec::with_capacity(args.len());
        let mut k = next;
        for a in args {
            if plain(a) {
                params.push(a.clone());
            } else {
                params.push(Expr::Local(k));
                k += 1;
            }
        }
        let Some(body) = remap(&def.body, &params, def.params, next + bound) else {
            return false;
        };
        self.scratch = Some((next + need, cap));
        for (a, p) in args.iter().zip(&params) {
            if let (false, Expr::Local(l)) = (plain(a), p) {
                self.emit_expr(a);
                self.emit(Op::SetLocal(*l));
            }
        }
        self.inlining += 1;
        self.emit_expr(&body);
        self.inlining -= 1;
        self.scratch = Some((next, cap));
        true
    }

    /// Counts `nodes` more inlined into the expression being compiled; false (nothing
    /// counted) when that would pass [`super::MAX_INLINED_NODES`].
    fn spend_inline(&self, nodes: usize) -> bool {
        let total = self.inlined_nodes.get() + nodes;
        if total > super::MAX_INLINED_NODES {
            return false;
        }
        self.inlined_nodes.set(total);
        true
    }

    fn aggregate(&mut self, a: &Agg, span: Span) {
        match a.kind {
            AggKind::Line => {
                let (Some(bind), Some(n)) = (a.binds.first(), a.args.first()) else {
                    self.lit(Value::Bool(false));
                    return;
                };
                let Coll::Board(board) = bind.coll else {
                    self.lit(Value::Bool(false));
                    return;
                };
                self.emit_expr(n);
                let through = match a.args.get(1) {
                    Some(at) => {
                        self.emit_expr(at);
                        true
                    }
                    None => false,
                };
                let cond = self.out_of_line(a.filter.as_ref());
                self.p.lines.push(LineOp {
                    board,
                    slot: bind.slot,
                    cond,
                    through,
                });
                let id = self.p.lines.len() as u32 - 1;
                self.emit_at(Op::Line(id), span);
            }
            AggKind::Connected => {
                let (Some(bind), [from, to]) = (a.binds.first(), a.args.as_slice()) else {
                    self.lit(Value::Bool(false));
                    return;
                };
                let Coll::Board(board) = bind.coll else {
                    self.lit(Value::Bool(false));
                    return;
                };
                // `s == e` with `e` free of `s`: the flood starts at `e` alone.
                let seed = match from {
                    Expr::Bin(BinOp::Eq, l, r, _) => {
                        let free = |e: &Expr| {
                            let mut reads = false;
                            e.reads(&mut |x| reads |= x == bind.slot);
                            !reads
                        };
                        match (&**l, &**r) {
                            (Expr::Local(x), e) | (e, Expr::Local(x))
                                if *x == bind.slot && free(e) =>
                            {
                                Some(e)
                            }
                            _ => None,
                        }
                    }
                    _ => None,
                };
                let seed = self.out_of_line(seed);
                let from = self.out_of_line(Some(from)).unwrap_or_default();
                let to = self.out_of_line(Some(to)).unwrap_or_default();
                let cond = self.out_of_line(a.filter.as_ref());
                self.p.connects.push(ConnectOp {
                    board,
                    slot: bind.slot,
                    from,
                    seed,
                    to,
                    cond,
                });
                let id = self.p.connects.len() as u32 - 1;
                self.emit_at(Op::Connected(id), span);
            }
            AggKind::BestSets => {
                let bind = &a.binds[0];
                self.emit_coll(&bind.coll);
                let filter = self.out_of_line(a.filter.as_ref());
                self.p.best_sets.push(BestSetsOp {
                    sets: a.sets.clone(),
                    slot: bind.slot,
                    filter,
                });
                let id = self.p.best_sets.len() as u32 - 1;
                self.emit_at(Op::BestSets(id), span);
            }
            AggKind::Majority => self.majority(a, span),
            _ => self.fold(a, span),
        }
    }

    /// `majority(q in C, points, p: value)`: the points and the player on the stack, the
    /// players' iterator on top of the iterators; the value (and the filter) run out of line.
    fn majority(&mut self, a: &Agg, span: Span) {
        let (Some(bind), [points, p], Some(body)) = (a.binds.first(), a.args.as_slice(), &a.body)
        else {
            self.lit(Value::Int(0));
            return;
        };
        self.emit_expr(points);
        self.emit_expr(p);
        self.emit_coll(&bind.coll);
        let filter = self.out_of_line(a.filter.as_ref());
        let value = self.out_of_line(Some(body)).unwrap_or_default();
        self.p.majorities.push(MajorityOp {
            slot: bind.slot,
            filter,
            value,
        });
        let id = self.p.majorities.len() as u32 - 1;
        self.emit_at(Op::Majority(id), span);
    }

    /// Code that is jumped over where it stands and run on its own (a condition tested per
    /// space by `paths`, `group` or `line`).
    fn out_of_line(&mut self, e: Option<&Expr>) -> Option<Code> {
        let e = e?;
        let skip = self.emit(Op::Jump(0));
        let code = self.expr(e);
        let here = self.here();
        self.patch(skip, here);
        Some(code)
    }

    /// A board walk's condition split at `and` when some of its parts do not read the space
    /// in `slot` ([`PathsOp::parts`]); empty when none (or only one part) would be fixed.
    fn split_cond(&mut self, cond: Option<&Expr>, slot: u16) -> Vec<(Code, bool)> {
        fn conjuncts<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
            match e {
                Expr::Bin(BinOp::And, a, b, _) => {
                    conjuncts(a, out);
                    conjuncts(b, out);
                }
                _ => out.push(e),
            }
        }
        let Some(c) = cond else {
            return Vec::new();
        };
        let mut parts = Vec::new();
        conjuncts(c, &mut parts);
        let fixed: Vec<bool> = parts
            .iter()
            .map(|p| {
                let mut reads = false;
                p.reads(&mut |x| reads |= x == slot);
                !reads
            })
            .collect();
        if parts.len() > 64 || !fixed.contains(&true) {
            return Vec::new();
        }
        parts
            .into_iter()
            .zip(fixed)
            .map(|(p, f)| (self.out_of_line(Some(p)).unwrap_or_default(), f))
            .collect()
    }

    /// `count`, `sum`, `max`, `min`, `any`, `all`, `first`: nested loops over the bindings
    /// around the filter and the body, with the result accumulated on the stack.
    fn fold(&mut self, a: &Agg, span: Span) {
        let k = a.kind;
        match k {
            AggKind::Count | AggKind::Sum => self.lit(Value::Int(0)),
            AggKind::Any => self.lit(Value::Bool(false)),
            AggKind::All => self.lit(Value::Bool(true)),
            _ => self.lit(Value::None),
        }
        // Loop heads and the IterNext of each binding, outermost first.
        let mut levels: Vec<(u32, u32)> = Vec::new();
        let indexed = self.indexed_bind(a);
        for b in &a.binds {
            match &indexed {
                Some((i, v)) => {
                    let i = *i;
                    self.emit_expr(v);
                    self.emit(Op::IterIndexed(i));
                }
                None => self.emit_coll(&b.coll),
            }
            let head = self.here();
            let next = self.emit(Op::IterNext {
                slot: b.slot,
                exit: 0,
            });
            levels.push((head, next));
        }
        let Some(&(inner, _)) = levels.last() else {
            return;
        };
        let element = || match a.binds.first() {
            Some(b) => Expr::Local(b.slot),
            None => Expr::Lit(Value::None),
        };
        // Jumps to the code that leaves every loop with a new result on top.
        let mut breaks = Vec::new();
        let all_plain = k == AggKind::All && a.body.is_none();
        if let Some(f) = &a.filter {
            self.emit_expr(f);
            if all_plain {
                // `all(x in C where c)`: an element that fails `c` makes it false.
                let keep_going = self.emit(Op::JumpIfNot(0));
                self.emit(Op::Jump(inner));
                let here = self.here();
                self.patch(keep_going, here);
                self.emit(Op::Pop);
                self.lit(Value::Bool(false));
                breaks.push(self.emit(Op::Jump(0)));
            } else {
                self.emit(Op::JumpIfNot(inner));
            }
        }
        match k {
            AggKind::Count => {
                self.emit(Op::AccCount);
                self.emit(Op::Jump(inner));
            }
            AggKind::Sum | AggKind::Max | AggKind::Min => {
                match &a.body {
                    Some(b) => self.emit_expr(b),
                    None => self.emit_expr(&element()),
                }
                let op = match k {
                    AggKind::Sum => Op::AccSum,
                    AggKind::Max => Op::AccMax(true),
                    _ => Op::AccMax(false),
                };
                self.emit_at(op, span);
                self.emit(Op::Jump(inner));
            }
            AggKind::Any => {
                if let Some(b) = &a.body {
                    self.emit_expr(b);
                    self.emit(Op::JumpIfNot(inner));
                }
                self.emit(Op::Pop);
                self.lit(Value::Bool(true));
                breaks.push(self.emit(Op::Jump(0)));
            }
            AggKind::All => {
                if let Some(b) = &a.body {
                    self.emit_expr(b);
                    let fails = self.emit(Op::JumpIfNot(0));
                    self.emit(Op::Jump(inner));
                    let here = self.here();
                    self.patch(fails, here);
                    self.emit(Op::Pop);
                    self.lit(Value::Bool(false));
                    breaks.push(self.emit(Op::Jump(0)));
                } else if a.filter.is_none() {
                    self.emit(Op::Jump(inner));
                }
            }
            AggKind::First => {
                self.emit(Op::Pop);
                match &a.body {
                    Some(b) => self.emit_expr(b),
                    None => self.emit_expr(&element()),
                }
                breaks.push(self.emit(Op::Jump(0)));
            }
            AggKind::Line | AggKind::BestSets | AggKind::Connected | AggKind::Majority => {}
        }
        // Leaving every loop early: drop each iterator.
        let mut leave_jump = None;
        if !breaks.is_empty() {
            let leave = self.here();
            for b in breaks {
                self.patch(b, leave);
            }
            for _ in &levels {
                self.emit(Op::IterEnd);
            }
            leave_jump = Some(self.emit(Op::Jump(0)));
        }
        // A binding that runs out continues the binding around it; the outermost ends.
        for (i, &(_, next)) in levels.iter().enumerate().rev() {
            let to = if i == 0 { self.here() } else { levels[i - 1].0 };
            self.patch(next, to);
        }
        let end = self.here();
        if let Some(j) = leave_jump {
            self.patch(j, end);
        }
        if let (AggKind::Max | AggKind::Min | AggKind::First, Some(o)) = (k, &a.otherwise) {
            let skip = self.emit(Op::ElseJump(0));
            self.emit_expr(o);
            let here = self.here();
            self.patch(skip, here);
        }
    }

    /// A field index that narrows an aggregate's only binding: the binding walks the
    /// components of a type and a conjunct of the filter is `x.f == v` (or `v == x.f`) where
    /// `v` reads neither `x` nor anything that can fail. The index and `v`; the filter is still
    /// tested on every component the index lists (the index only skips those that fail it).
    fn indexed_bind(&mut self, a: &Agg) -> Option<(u32, Expr)> {
        let [b] = &a.binds[..] else {
            return None;
        };
        let Coll::Type(t) = b.coll else {
            return None;
        };
        let (f, v) = self.field_eq(a.filter.as_ref()?, t, b.slot, 0)?;
        let i = self.index_field(t, f)?;
        Some((i, v))
    }

    /// A conjunct of `cond` (joined by `and`, looking into functions small enough to be
    /// inlined) that `x` (of type `t`, in slot `slot`) meets only when its field `f` holds
    /// `v`: `x.f == v`, `v == x.f`, or `x.f` alone for a flag (`v` is `true`), where `v` reads
    /// neither `x` nor anything that can fail. The field and `v`.
    fn field_eq(&mut self, cond: &Expr, t: TypeId, slot: u16, depth: u32) -> Option<(u16, Expr)> {
        let plain = |v: &Expr| match v {
            Expr::Lit(_) | Expr::Const(_) | Expr::Me | Expr::Current | Expr::PlayerCount => true,
            Expr::Local(l) => *l != slot,
            Expr::Var(_, ix) => ix.is_empty(),
            _ => false,
        };
        let is_x = |x: &Expr| matches!(x, Expr::Local(s) if *s == slot);
        match cond {
            Expr::Bin(BinOp::And, l, r, _) => self
                .field_eq(l, t, slot, depth)
                .or_else(|| self.field_eq(r, t, slot, depth)),
            Expr::Bin(BinOp::Eq, l, r, _) => match (&**l, &**r) {
                (Expr::Field(x, f), v) | (v, Expr::Field(x, f)) if is_x(x) && plain(v) => {
                    Some((*f, v.clone()))
                }
                _ => None,
            },
            Expr::Field(x, f)
                if is_x(x)
                    && self.g.types[t].fields.get(*f as usize).map(|d| d.ty)
                        == Some(Type::Bool) =>
            {
                Some((*f, Expr::Lit(Value::Bool(true))))
            }
            Expr::CallDef(d, args) if depth < MAX_INLINE_DEPTH => {
                let body = self.inlined(*d, args)?;
                self.field_eq(&body, t, slot, depth + 1)
            }
            _ => None,
        }
    }

    /// Keeps a value index for field `f` of type `t`; `None` when its values cannot be indexed
    /// cheaply.
    fn index_field(&mut self, t: TypeId, f: u16) -> Option<u32> {
        if let Some(i) = self
            .p
            .field_indexes
            .iter()
            .position(|ix| ix.ty == t && ix.field == f)
        {
            return Some(i as u32);
        }
        let codes = match self.g.types[t].fields.get(f as usize)?.ty {
            Type::Player => self.g.max_players as u64 + 1,
            Type::Enum(e) => self.g.enums[e].values.len() as u64 + 1,
            Type::Bool => 3,
            _ => return None,
        };
        let comps = &self.p.type_comps[t];
        let fits = comps
            .iter()
            .all(|&c| (f as usize) < self.g.comps[c].fields.len());
        let words = (comps.len() as u64).div_ceil(64);
        if !fits || words == 0 || codes * words * 64 > MAX_FIELD_INDEX_BITS {
            return None;
        }
        if self.p.comp_pos.is_empty() {
            self.p.comp_pos = vec![(TypeId(0), 0); self.g.comps.len()];
            for (ty, list) in self.p.type_comps.enumerate() {
                for (pos, &c) in list.iter().enumerate() {
                    self.p.comp_pos[c.0 as usize] = (ty, pos as u32);
                }
            }
        }
        self.p.field_indexes.push(FieldIndex {
            ty: t,
            field: f,
            base: self.p.index_words,
            words: words as u32,
            codes: codes as u32,
        });
        self.p.index_words += (codes * words) as u32;
        Some(self.p.field_indexes.len() as u32 - 1)
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

/// A field index may hold at most this many bits (values times components).
const MAX_FIELD_INDEX_BITS: u64 = 1 << 16;

/// A function body with its parameters (locals `0..args.len()`) replaced by the arguments.
fn substitute(e: &Expr, args: &[Expr]) -> Expr {
    let sub = |x: &Expr| substitute(x, args);
    let subs = |xs: &[Expr]| xs.iter().map(|x| substitute(x, args)).collect();
    match e {
        Expr::Local(l) => args
            .get(*l as usize)
            .cloned()
            .unwrap_or(Expr::Lit(Value::None)),
        Expr::Lit(_) | Expr::Const(_) | Expr::Me | Expr::Current | Expr::PlayerCount => e.clone(),
        Expr::Var(v, ix) => Expr::Var(*v, subs(ix)),
        Expr::Zone(z, ix) => Expr::Zone(*z, subs(ix)),
        Expr::Builtin(b, ix, s) => Expr::Builtin(*b, subs(ix), *s),
        Expr::CallDef(d, ix) => Expr::CallDef(*d, subs(ix)),
        Expr::Field(x, f) => Expr::Field(Box::new(sub(x)), *f),
        Expr::Not(x) => Expr::Not(Box::new(sub(x))),
        Expr::Neg(x) => Expr::Neg(Box::new(sub(x))),
        Expr::Bin(op, a, b, s) => Expr::Bin(*op, Box::new(sub(a)), Box::new(sub(b)), *s),
        Expr::If(a, b, c) => Expr::If(Box::new(sub(a)), Box::new(sub(b)), Box::new(sub(c))),
        // Bodies with these are not inlined ([`body_safe`]).
        Expr::Agg(..) | Expr::After(_) => e.clone(),
    }
}

/// Whether a function body can be inlined, counting its nodes: without aggregates, or
/// (`walks`) with its bindings given fresh locals when its aggregates are folds (`count`,
/// `sum`, `max`, `min`, `any`, `all`, `first`) over zones (walked in place,
/// [`Op::ZoneWalk`], and often empty: cheaper than a remembered call's look-up).
fn body_safe(e: &Expr, walks: bool, nodes: &mut usize) -> bool {
    *nodes += 1;
    let safe = |x: &Expr, nodes: &mut usize| body_safe(x, walks, nodes);
    match e {
        Expr::Agg(a, _) => {
            let fold = matches!(
                a.kind,
                AggKind::Count
                    | AggKind::Sum
                    | AggKind::Max
                    | AggKind::Min
                    | AggKind::Any
                    | AggKind::All
                    | AggKind::First
            );
            walks
                && fold
                && a.sets.is_empty()
                && a.args.is_empty()
                && a.binds.iter().all(|b| match &b.coll {
                    Coll::Zone(x) => safe(x, nodes),
                    _ => false,
                })
                && [&a.filter, &a.body, &a.otherwise]
                    .into_iter()
                    .flatten()
                    .all(|x| safe(x, nodes))
        }
        Expr::Lit(_)
        | Expr::Const(_)
        | Expr::Local(_)
        | Expr::Me
        | Expr::Current
        | Expr::PlayerCount => true,
        Expr::Var(_, ix) | Expr::Zone(_, ix) | Expr::Builtin(_, ix, _) | Expr::CallDef(_, ix) => {
            ix.iter().all(|x| safe(x, nodes))
        }
        Expr::Field(x, _) | Expr::Not(x) | Expr::Neg(x) => safe(x, nodes),
        Expr::Bin(_, a, b, _) => safe(a, nodes) && safe(b, nodes),
        Expr::If(a, b, c) => safe(a, nodes) && safe(b, nodes) && safe(c, nodes),
        Expr::After(_) => false,
    }
}

/// A body accepted by [`body_safe`] with its parameters (locals `0..n`) read as `params`
/// and its other locals moved to `base` and above; `None` for a shape it does not handle.
fn remap(e: &Expr, params: &[Expr], n: u16, base: u16) -> Option<Expr> {
    let slot = |l: u16| base.checked_add(l.checked_sub(n)?);
    let re = |x: &Expr| remap(x, params, n, base);
    let sub = |x: &Expr| re(x).map(Box::new);
    let subs = |xs: &[Expr]| -> Option<Vec<Expr>> { xs.iter().map(re).collect() };
    let opt = |x: &Option<Expr>| -> Option<Option<Expr>> {
        match x {
            Some(x) => re(x).map(Some),
            None => Some(None),
        }
    };
    Some(match e {
        Expr::Local(l) if *l < n => params.get(*l as usize)?.clone(),
        Expr::Local(l) => Expr::Local(slot(*l)?),
        Expr::Lit(_) | Expr::Const(_) | Expr::Me | Expr::Current | Expr::PlayerCount => e.clone(),
        Expr::Var(v, ix) => Expr::Var(*v, subs(ix)?),
        Expr::Zone(z, ix) => Expr::Zone(*z, subs(ix)?),
        Expr::Builtin(b, ix, s) => Expr::Builtin(*b, subs(ix)?, *s),
        Expr::CallDef(d, ix) => Expr::CallDef(*d, subs(ix)?),
        Expr::Field(x, f) => Expr::Field(sub(x)?, *f),
        Expr::Not(x) => Expr::Not(sub(x)?),
        Expr::Neg(x) => Expr::Neg(sub(x)?),
        Expr::Bin(op, a, b, s) => Expr::Bin(*op, sub(a)?, sub(b)?, *s),
        Expr::If(a, b, c) => Expr::If(sub(a)?, sub(b)?, sub(c)?),
        Expr::After(_) => return None,
        Expr::Agg(a, s) => {
            let mut binds = Vec::with_capacity(a.binds.len());
            for b in &a.binds {
                let coll = match &b.coll {
                    Coll::Zone(x) => Coll::Zone(re(x)?),
                    Coll::Adjacent(x) => Coll::Adjacent(re(x)?),
                    Coll::Range(x, y) => Coll::Range(re(x)?, re(y)?),
                    Coll::Ray(x, y) => Coll::Ray(re(x)?, re(y)?),
                    Coll::List(xs) => Coll::List(subs(xs)?),
                    c @ (Coll::Board(_) | Coll::Enum(_) | Coll::Type(_) | Coll::Players) => {
                        c.clone()
                    }
                    Coll::Rays(_)
                    | Coll::Paths { .. }
                    | Coll::Group { .. }
                    | Coll::Groups { .. } => return None,
                };
                binds.push(Bind {
                    slot: slot(b.slot)?,
                    coll,
                    ..b.clone()
                });
            }
            Expr::Agg(
                Box::new(Agg {
                    kind: a.kind,
                    sets: Vec::new(),
                    binds,
                    args: Vec::new(),
                    filter: opt(&a.filter)?,
                    body: opt(&a.body)?,
                    otherwise: opt(&a.otherwise)?,
                }),
                *s,
            )
        }
    })
}

/// Per function: whether it may call itself (directly or through others), or calls one that
/// may. Functions calling none that may are peeled off until none is left to peel.
pub(super) fn looping(g: &Game) -> Vec<bool> {
    let n = g.defs.len();
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut callees = vec![0usize; n];
    for (id, d) in g.defs.enumerate() {
        let i = id.0 as usize;
        d.body.visit(&mut |x| {
            if let Expr::CallDef(c, _) = x {
                if let Some(list) = callers.get_mut(c.0 as usize) {
                    list.push(i);
                    callees[i] += 1;
                }
            }
        });
    }
    let mut out = vec![true; n];
    let mut ready: Vec<usize> = (0..n).filter(|&i| callees[i] == 0).collect();
    while let Some(i) = ready.pop() {
        out[i] = false;
        for &c in &callers[i] {
            callees[c] -= 1;
            if callees[c] == 0 {
                ready.push(c);
            }
        }
    }
    out
}
