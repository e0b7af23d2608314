//! Aggregates (`count`, `sum`, `all`, `any`, `max`, `min`, majorities) compiled as folds
//! over collections, and the indexes of a field's values a fold may read instead of walking.

use super::*;

impl Compiler<'_> {
    pub(super) fn aggregate(&mut self, a: &Agg, span: Span) {
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
                let seed = from.seed_of(bind.slot);
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
    pub(super) fn majority(&mut self, a: &Agg, span: Span) {
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
    pub(super) fn out_of_line(&mut self, e: Option<&Expr>) -> Option<Code> {
        let e = e?;
        let skip = self.emit(Op::Jump(0));
        let code = self.expr(e);
        let here = self.here();
        self.patch(skip, here);
        Some(code)
    }

    /// A board walk's condition split at `and` when some of its parts do not read the space
    /// in `slot` ([`PathsOp::parts`]); empty when none (or only one part) would be fixed.
    pub(super) fn split_cond(&mut self, cond: Option<&Expr>, slot: u16) -> Vec<(Code, bool)> {
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
    pub(super) fn fold(&mut self, a: &Agg, span: Span) {
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
    pub(super) fn indexed_bind(&mut self, a: &Agg) -> Option<(u32, Expr)> {
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
    pub(super) fn field_eq(
        &mut self,
        cond: &Expr,
        t: TypeId,
        slot: u16,
        depth: u32,
    ) -> Option<(u16, Expr)> {
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
    pub(super) fn index_field(&mut self, t: TypeId, f: u16) -> Option<u32> {
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
}

/// A field index may hold at most this many bits (values times components).
pub(super) const MAX_FIELD_INDEX_BITS: u64 = 1 << 16;
