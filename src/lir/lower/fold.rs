//! Folds (`count`, `sum`, `max`, `min`, `any`, `all`, `first`), lowered to loops whose
//! counter and accumulator are the parameters of their head block, one inside another for
//! several bindings (the last varying fastest), or, over a list, to its elements folded one
//! after another.

use super::*;

impl Lower<'_> {
    /// A fold of one binding (`count`, `sum`, `max`, `min`, `any`, `all`, `first`) over a
    /// range, the players, an enum, a zone or a list: a loop whose counter and accumulator
    /// are the parameters of its head block; a list's elements are all computed first (as
    /// the reference lists a collection before folding it), then folded one after another.
    pub(super) fn aggregate(&mut self, a: &crate::ir::Agg) -> Result<Reg, String> {
        use crate::ir::AggKind as K;
        if a.kind == K::Connected {
            return self.connected(a);
        }
        if a.kind == K::Line {
            return self.line(a);
        }
        if !matches!(
            a.kind,
            K::Count | K::Sum | K::Max | K::Min | K::Any | K::All | K::First
        ) {
            return Err("an aggregate".into());
        }
        if a.binds.is_empty() {
            return Err("an aggregate without a binding".into());
        }
        let acc_ty = match a.kind {
            K::Count | K::Sum | K::Max | K::Min => Ty::Int,
            _ => Ty::Bool,
        };
        let init = match a.kind {
            K::Max | K::Min => INT_NONE,
            _ => 0,
        };
        // The value a `first` gives: its body's type, found by lowering nothing yet; the
        // exit block's parameter is made when the first exit is met.
        let mut fold = Fold {
            exits: vec![],
            exit_ty: None,
        };
        let acc0 = self.konst(acc_ty, init);
        let mark = self.hoist(a)?;
        let acc = self.fold_binding(&Nest::Fold(a), &mut fold, 0, acc0)?;
        let r = self.finish_fold(a, fold, acc);
        self.unhoist(mark);
        r
    }

    /// The loop (or, over a list, the sequence) of binding `k` of a fold, from accumulator
    /// `acc0`; each element goes to the next binding's loop, or, for the last, to
    /// [`Lower::fold_one`]. Returns the accumulator after it, in the block that goes on.
    pub(super) fn fold_binding(
        &mut self,
        a: &Nest,
        fold: &mut Fold,
        k: usize,
        acc0: Reg,
    ) -> Result<Reg, String> {
        use crate::ir::Coll;
        if let Some(acc) = self.walk_binding(a, fold, k, acc0)? {
            return Ok(acc);
        }
        let bind = &a.binds()[k];
        let elem_ty = Ty::of(bind.ty).ok_or("a binding without an unboxed type")?;
        let acc_ty = self.f.ty(acc0);
        Ok(match &bind.coll {
            Coll::List(xs) => {
                let mut elems = Vec::with_capacity(xs.len());
                for x in xs {
                    elems.push(self.expr(x)?);
                }
                let mut acc = acc0;
                for e in elems {
                    if self.f.ty(e) != elem_ty {
                        return Err("a list of another type".into());
                    }
                    acc = self.fold_elem(a, fold, k, e, acc)?;
                }
                acc
            }
            coll => {
                // A group's members, found first (as the reference lists a collection
                // before folding it), then listed in board order.
                let members = match coll {
                    Coll::Group {
                        board,
                        slot,
                        start,
                        cond,
                    } => Some(self.group_once(coll, *board, *slot, start, cond.as_ref())?),
                    _ => None,
                };
                // The number of elements, and how the i-th is read.
                let (n, read) = self.elements(coll, elem_ty)?;
                // Narrowed by a variable's value: the next position holding it.
                let narrow = match coll {
                    Coll::Board(_) | Coll::Enum(_) | Coll::Players => self.narrowing(a, k)?,
                    _ => None,
                };
                // A board's closed spaces are passed over (they may close by a variant).
                let skip_closed = match coll {
                    Coll::Board(b) => self.g.boards[*b].geo.closed.iter().any(|&c| c),
                    _ => false,
                };
                // Of interchangeable components of a zone, a choice offers the lowest (4.1).
                // When every such component of the type is one of a class, the classes seen
                // lower in the zone are a set, cleared before the loop: the loop goes up
                // from the bottom, so a component whose class is in it has a twin below.
                let twins = match (coll, elem_ty) {
                    (Coll::Zone(_), Ty::Comp(t)) => {
                        matches!(a, Nest::Options { .. }) && self.may_twin(t)
                    }
                    _ => false,
                };
                let classes = match elem_ty {
                    Ty::Comp(t) if twins && self.by_class(t) => {
                        let area = self.area((self.g.comps.len() as u32).div_ceil(64).max(1))?;
                        let dst = self.f.reg(Ty::Int);
                        self.push(Inst::Clear { dst, area });
                        Some(area)
                    }
                    _ => None,
                };
                // head(i, acc): i < n ? body : done(acc)
                let zero = self.konst(Ty::Int, 0);
                let i = self.f.reg(Ty::Int);
                let acc_in = self.f.reg(acc_ty);
                let head = self.block(vec![i, acc_in]);
                self.goto(head, vec![zero, acc0]);
                self.cur = head;
                let i = match (narrow, members) {
                    (Some((var, value)), _) => {
                        let dst = self.f.reg(Ty::Int);
                        self.push(Inst::Seek {
                            dst,
                            var,
                            value,
                            from: i,
                        })
                    }
                    // A group's members: the next space in its set.
                    (None, Some(area)) => {
                        let dst = self.f.reg(Ty::Int);
                        self.push(Inst::NextMarked { dst, area, from: i })
                    }
                    (None, None) => i,
                };
                let more = self.f.reg(Ty::Bool);
                self.push(Inst::Cmp {
                    dst: more,
                    op: Cmp::Lt,
                    a: i,
                    b: n,
                });
                let body = self.block(vec![]);
                let acc_out = self.f.reg(acc_ty);
                let done = self.block(vec![acc_out]);
                self.branch(more, (body, vec![]), (done, vec![acc_in]));
                self.cur = body;
                let e = self.read_elem(read, i);
                // next(acc): i + 1, back to the head.
                let acc_next = self.f.reg(acc_ty);
                let next_blk = self.block(vec![acc_next]);
                // Tested unless no component of the type ever looks like another.
                if let Some(area) = classes {
                    let class = self.f.reg(elem_ty);
                    self.push(Inst::Class {
                        dst: class,
                        comp: e,
                    });
                    let c = self.f.reg(Ty::Bool);
                    self.push(Inst::Mark {
                        dst: c,
                        area,
                        x: class,
                    });
                    let fresh = self.block(vec![]);
                    self.branch(c, (next_blk, vec![acc_in]), (fresh, vec![]));
                    self.cur = fresh;
                } else if twins {
                    let c = self.f.reg(Ty::Bool);
                    self.push(Inst::Twin { dst: c, comp: e });
                    let fresh = self.block(vec![]);
                    self.branch(c, (next_blk, vec![acc_in]), (fresh, vec![]));
                    self.cur = fresh;
                }
                if skip_closed {
                    let c = self.f.reg(Ty::Bool);
                    self.push(Inst::Closed { dst: c, space: e });
                    let open = self.block(vec![]);
                    self.branch(c, (next_blk, vec![acc_in]), (open, vec![]));
                    self.cur = open;
                }
                let acc2 = self.fold_elem(a, fold, k, e, acc_in)?;
                self.goto(next_blk, vec![acc2]);
                self.cur = next_blk;
                let one = self.konst(Ty::Int, 1);
                let next = self.f.reg(Ty::Int);
                self.push(Inst::Arith {
                    dst: next,
                    op: Arith::Add,
                    a: i,
                    b: one,
                });
                self.goto(head, vec![next, acc_next]);
                self.cur = done;
                acc_out
            }
        })
    }

    /// The number of elements of collection `coll` (of elements of type `elem_ty`), and how
    /// the i-th is read; `Err` for a collection not lowered yet.
    fn elements(&mut self, coll: &crate::ir::Coll, elem_ty: Ty) -> Result<(Reg, ReadElem), String> {
        use crate::ir::Coll;
        Ok(match coll {
            Coll::Range(lo, hi) => {
                let (lo, hi) = (self.expr(lo)?, self.expr(hi)?);
                if self.f.ty(lo) != Ty::Int || self.f.ty(hi) != Ty::Int {
                    return Err("a range of something that is not a number".into());
                }
                // hi - lo + 1 elements (none when hi < lo); too long fails.
                let one = self.konst(Ty::Int, 1);
                let span = self.f.reg(Ty::Int);
                self.push(Inst::Arith {
                    dst: span,
                    op: Arith::Sub,
                    a: hi,
                    b: lo,
                });
                let limit = self.konst(Ty::Int, 10_000_000);
                let long = self.f.reg(Ty::Bool);
                self.push(Inst::Cmp {
                    dst: long,
                    op: Cmp::Ge,
                    a: span,
                    b: limit,
                });
                let fail = self.block(vec![]);
                let fine = self.block(vec![]);
                self.branch(long, (fail, vec![]), (fine, vec![]));
                self.cur = fail;
                self.end(Term::Fail(Fail::Limit));
                self.cur = fine;
                let n = self.f.reg(Ty::Int);
                self.push(Inst::Arith {
                    dst: n,
                    op: Arith::Add,
                    a: span,
                    b: one,
                });
                let zero = self.konst(Ty::Int, 0);
                let n2 = self.f.reg(Ty::Int);
                self.push(Inst::Arith {
                    dst: n2,
                    op: Arith::Max,
                    a: n,
                    b: zero,
                });
                (n2, ReadElem::Offset(lo))
            }
            Coll::Players | Coll::Enum(_) => {
                let n = match coll {
                    Coll::Players => self.read(Read::PlayerCount, Ty::Int),
                    Coll::Enum(e) => {
                        let n = self.g.enums[*e].values.len() as i64;
                        self.konst(Ty::Int, n)
                    }
                    _ => unreachable!("matched above"),
                };
                (n, ReadElem::Cast(elem_ty))
            }
            Coll::Zone(z) => {
                let zone = self.expr(z)?;
                if !matches!(self.f.ty(zone), Ty::Zone(_)) {
                    return Err("the components of something that is not a zone".into());
                }
                let n = self.f.reg(Ty::Int);
                self.push(Inst::Held {
                    dst: n,
                    what: Held::Count,
                    zone,
                });
                (n, ReadElem::ZoneAt(zone, elem_ty))
            }
            Coll::Board(b) | Coll::Group { board: b, .. } => {
                if matches!(coll, Coll::Group { .. }) && elem_ty != Ty::Space(*b) {
                    return Err("a group's spaces bound as another type".into());
                }
                let n = self.konst(Ty::Int, self.g.boards[*b].len() as i64);
                (n, ReadElem::Cast(elem_ty))
            }
            Coll::Type(t) => {
                // Every component of the type, in table order: a loop when their ids
                // follow one another.
                let ids: Vec<u32> = (self.g.comps.ids())
                    .filter(|c| self.g.comps[*c].ty == *t)
                    .map(|c| c.0)
                    .collect();
                let lo = ids.first().copied().unwrap_or(0);
                if ids.iter().enumerate().any(|(k, &c)| c != lo + k as u32) {
                    return Err("components of a type whose ids do not follow".into());
                }
                let n = self.konst(Ty::Int, ids.len() as i64);
                let lo = self.konst(Ty::Int, lo as i64);
                (n, ReadElem::OffsetCast(lo, elem_ty))
            }
            _ => return Err("an aggregate over this kind of collection".into()),
        })
    }

    /// The i-th element, read as `read` says.
    fn read_elem(&mut self, read: ReadElem, i: Reg) -> Reg {
        match read {
            ReadElem::Offset(lo) => {
                let dst = self.f.reg(Ty::Int);
                self.push(Inst::Arith {
                    dst,
                    op: Arith::Add,
                    a: lo,
                    b: i,
                })
            }
            ReadElem::Cast(t) => {
                let dst = self.f.reg(t);
                self.push(Inst::Cast { dst, a: i })
            }
            ReadElem::ZoneAt(zone, t) => {
                let dst = self.f.reg(t);
                self.push(Inst::ZoneAt { dst, zone, k: i })
            }
            ReadElem::OffsetCast(lo, t) => {
                let at = self.f.reg(Ty::Int);
                self.push(Inst::Arith {
                    dst: at,
                    op: Arith::Add,
                    a: lo,
                    b: i,
                });
                let dst = self.f.reg(t);
                self.push(Inst::Cast { dst, a: at })
            }
        }
    }

    /// Whether a component of type `t` may look the same as another (the engine's
    /// [`crate::ir::vm::Twin`] of each).
    fn may_twin(&self, t: crate::ir::TypeId) -> bool {
        (self.g.comps.ids())
            .filter(|c| self.g.comps[*c].ty == t)
            .any(|c| self.g.program.twins.get(c.0 as usize) != Some(&crate::ir::vm::Twin::No))
    }

    /// Whether every component of type `t` looks like another only as one of a class
    /// ([`crate::ir::vm::Twin::Class`]: never through fields that change or are secret).
    fn by_class(&self, t: crate::ir::TypeId) -> bool {
        use crate::ir::vm::Twin;
        (self.g.comps.ids())
            .filter(|c| self.g.comps[*c].ty == t)
            .all(|c| {
                matches!(
                    self.g.program.twins.get(c.0 as usize),
                    Some(Twin::No | Twin::Class(_))
                )
            })
    }

    /// One element of binding `k`: bound to its local, then folded by the next binding, or,
    /// for the last, by [`Lower::fold_one`].
    pub(super) fn fold_elem(
        &mut self,
        a: &Nest,
        fold: &mut Fold,
        k: usize,
        elem: Reg,
        acc: Reg,
    ) -> Result<Reg, String> {
        let slot = a.binds()[k].slot;
        self.with_local(slot, elem, |l| l.fold_deeper(a, fold, k + 1, acc))
    }

    /// With `k` bindings bound: for options, the guard's parts that need exactly them (a
    /// false one goes on with the accumulator as it is); then the next binding's loop, or the
    /// combination itself.
    pub(super) fn fold_deeper(
        &mut self,
        a: &Nest,
        fold: &mut Fold,
        k: usize,
        acc: Reg,
    ) -> Result<Reg, String> {
        let mut skips = vec![];
        if let Nest::Options { parts, .. } = a {
            for (i, (need, p)) in parts.iter().enumerate() {
                if *need as usize != k || self.narrowed.contains(&i) {
                    continue;
                }
                skips.push(self.test(p, "a guard that is not a truth value")?);
            }
        }
        let out = if k < a.binds().len() {
            self.fold_binding(a, fold, k, acc)?
        } else {
            match a {
                Nest::Fold(agg) => self.fold_one(agg, fold, acc)?,
                Nest::Options { binds, .. } => {
                    for b in binds.iter() {
                        let Some(Some(r)) = self.locals.get(b.slot as usize).copied() else {
                            return Err("a parameter without a register".into());
                        };
                        let dst = self.f.reg(Ty::Int);
                        self.push(Inst::Out { dst, a: r });
                    }
                    let one = self.konst(Ty::Int, 1);
                    let dst = self.f.reg(Ty::Int);
                    self.push(Inst::Arith {
                        dst,
                        op: Arith::Add,
                        a: acc,
                        b: one,
                    })
                }
            }
        };
        if skips.is_empty() {
            return Ok(out);
        }
        let joined = self.f.reg(Ty::Int);
        let join = self.block(vec![joined]);
        self.goto(join, vec![out]);
        for skip in skips {
            self.cur = skip;
            self.goto(join, vec![acc]);
        }
        self.cur = join;
        Ok(joined)
    }

    /// One combination of a fold's bindings (bound to their locals): its filter, then what
    /// the kind does with it. Returns the accumulator the fold goes on with, in the block it goes on
    /// from; early results (`any`, `all`, `first`) jump to the fold's exit.
    fn fold_one(&mut self, a: &crate::ir::Agg, fold: &mut Fold, acc: Reg) -> Result<Reg, String> {
        use crate::ir::AggKind as K;
        // Without `: value`, the value is the first binding's element.
        let elem = match a
            .binds
            .first()
            .and_then(|b| self.locals.get(b.slot as usize))
        {
            Some(Some(r)) => *r,
            _ => return Err("a fold's element without a register".into()),
        };
        let acc_ty = self.f.ty(acc);
        let out = self.f.reg(acc_ty);
        let cont = self.block(vec![out]);
        if let Some(filter) = &a.filter {
            let skip = self.test(filter, "a filter that is not a truth value")?;
            let pass = self.cur;
            self.cur = skip;
            if a.kind == K::All && a.body.is_none() {
                let f = self.konst(Ty::Bool, 0);
                self.exit(fold, f)?;
            } else {
                self.goto(cont, vec![acc]);
            }
            self.cur = pass;
        }
        let value = |l: &mut Self| -> Result<Reg, String> {
            match &a.body {
                Some(b) => l.expr(b),
                None => Ok(elem),
            }
        };
        match a.kind {
            K::Count | K::Sum => {
                let v = match a.kind {
                    K::Count => self.konst(Ty::Int, 1),
                    _ => value(self)?,
                };
                if self.f.ty(v) != Ty::Int {
                    return Err("`sum` of something that is not a number".into());
                }
                let dst = self.f.reg(Ty::Int);
                self.push(Inst::Arith {
                    dst,
                    op: Arith::Add,
                    a: acc,
                    b: v,
                });
                self.goto(cont, vec![dst]);
            }
            K::Max | K::Min => {
                let v = value(self)?;
                if self.f.ty(v) != Ty::Int {
                    return Err("`max` / `min` of something that is not a number".into());
                }
                // `v + 0` fails on none, as the reference does; the first value is taken as
                // it is, the later ones compared.
                let zero = self.konst(Ty::Int, 0);
                let checked = self.f.reg(Ty::Int);
                self.push(Inst::Arith {
                    dst: checked,
                    op: Arith::Add,
                    a: v,
                    b: zero,
                });
                let op = if a.kind == K::Max {
                    Arith::Max
                } else {
                    Arith::Min
                };
                let none = self.konst(Ty::Int, INT_NONE);
                let first = self.f.reg(Ty::Bool);
                self.push(Inst::Cmp {
                    dst: first,
                    op: Cmp::Eq,
                    a: acc,
                    b: none,
                });
                let take = self.block(vec![]);
                let best = self.block(vec![]);
                self.branch(first, (take, vec![]), (best, vec![]));
                self.cur = take;
                self.goto(cont, vec![checked]);
                self.cur = best;
                let dst = self.f.reg(Ty::Int);
                self.push(Inst::Arith {
                    dst,
                    op,
                    a: acc,
                    b: checked,
                });
                self.goto(cont, vec![dst]);
            }
            K::Any | K::All => {
                let stop_on = a.kind == K::Any;
                match &a.body {
                    None if stop_on => {
                        let t = self.konst(Ty::Bool, 1);
                        self.exit(fold, t)?;
                    }
                    None => {
                        self.goto(cont, vec![acc]);
                    }
                    Some(_) => {
                        let v = value(self)?;
                        if self.f.ty(v) != Ty::Bool {
                            return Err(
                                "`any` / `all` of something that is not a truth value".into()
                            );
                        }
                        let stop = self.block(vec![]);
                        let (go, to_stop) = ((cont, vec![acc]), (stop, vec![]));
                        let (yes, no) = if stop_on {
                            (to_stop, go)
                        } else {
                            (go, to_stop)
                        };
                        self.branch(v, yes, no);
                        self.cur = stop;
                        let r = self.konst(Ty::Bool, stop_on as i64);
                        self.exit(fold, r)?;
                    }
                }
            }
            _ => {
                // `first`: the value of the first element that passes.
                let v = value(self)?;
                self.exit(fold, v)?;
            }
        }
        self.cur = cont;
        Ok(out)
    }

    /// Lowers a condition and branches on it: the lowering goes on where it holds; the block
    /// where it does not is returned (`not_bool` the refusal when it is no truth value).
    pub(super) fn test(&mut self, c: &Expr, not_bool: &str) -> Result<usize, String> {
        let c = self.expr(c)?;
        if self.f.ty(c) != Ty::Bool {
            return Err(not_bool.into());
        }
        let pass = self.block(vec![]);
        let skip = self.block(vec![]);
        self.branch(c, (pass, vec![]), (skip, vec![]));
        self.cur = pass;
        Ok(skip)
    }

    /// Ends the current block with a jump to the fold's exit, with `r` as its result.
    fn exit(&mut self, fold: &mut Fold, r: Reg) -> Result<(), String> {
        let t = self.f.ty(r);
        match fold.exit_ty {
            None => fold.exit_ty = Some(t),
            Some(e) if e != t => return Err("results of another type".into()),
            Some(_) => {}
        }
        fold.exits.push((self.cur, r));
        Ok(())
    }

    /// The fold's result: from the accumulator when every element was seen, from an exit when
    /// one stopped it; `max`, `min` and `first` take their `else` (or none) without a value.
    fn finish_fold(&mut self, a: &crate::ir::Agg, fold: Fold, acc: Reg) -> Result<Reg, String> {
        use crate::ir::AggKind as K;
        // What the fold gives when it ran to the end, in the current block.
        let end_value: Option<Reg> = match a.kind {
            K::Count | K::Sum => Some(acc),
            K::Any => Some(self.konst(Ty::Bool, 0)),
            K::All => Some(self.konst(Ty::Bool, 1)),
            K::Max | K::Min => {
                // none: the `else`, or none.
                let none = self.konst(Ty::Int, INT_NONE);
                let empty = self.f.reg(Ty::Bool);
                self.push(Inst::Cmp {
                    dst: empty,
                    op: Cmp::Eq,
                    a: acc,
                    b: none,
                });
                let other = match &a.otherwise {
                    Some(o) => o.clone(),
                    None => Expr::Lit(Value::None),
                };
                // `if empty then else-value else acc`, acc read through a local-free path.
                let yes = self.block(vec![]);
                let no = self.block(vec![]);
                self.branch(empty, (yes, vec![]), (no, vec![]));
                let out = self.f.reg(Ty::Int);
                let join = self.block(vec![out]);
                self.cur = yes;
                let o = if matches!(other, Expr::Lit(Value::None)) {
                    self.konst(Ty::Int, INT_NONE)
                } else {
                    self.expr(&other)?
                };
                if self.f.ty(o) != Ty::Int {
                    return Err("an `else` of another type".into());
                }
                self.goto(join, vec![o]);
                self.cur = no;
                self.goto(join, vec![acc]);
                self.cur = join;
                Some(out)
            }
            _ => None,
        };
        let ty = match (end_value, fold.exit_ty) {
            (Some(v), _) => self.f.ty(v),
            (None, Some(t)) => t,
            (None, None) => match Ty::of(a.binds[0].ty) {
                Some(t) if a.body.is_none() => t,
                _ => return Err("a `first` whose type is unknown".into()),
            },
        };
        let end_value = match end_value {
            Some(v) => v,
            // `first` that found nothing: its `else`, or none.
            None => match &a.otherwise {
                Some(o) if !matches!(o, Expr::Lit(Value::None)) => self.expr(o)?,
                _ => self.konst(ty, ty.none()),
            },
        };
        if self.f.ty(end_value) != ty || fold.exit_ty.is_some_and(|t| t != ty) {
            return Err("results of another type".into());
        }
        let out = self.f.reg(ty);
        let join = self.block(vec![out]);
        self.goto(join, vec![end_value]);
        for (blk, r) in fold.exits {
            self.cur = blk;
            self.goto(join, vec![r]);
        }
        self.cur = join;
        Ok(out)
    }
}

/// How a loop reads its element from its counter `i`.
#[derive(Clone, Copy)]
enum ReadElem {
    /// `lo + i` (a range).
    Offset(Reg),
    /// `i` itself, as a seat or an enum value.
    Cast(Ty),
    /// The `i`-th component of a zone instance.
    ZoneAt(Reg, Ty),
    /// `lo + i`, as a component.
    OffsetCast(Reg, Ty),
}

/// What nested loops over bindings build.
pub(super) enum Nest<'a> {
    /// A fold.
    Fold(&'a crate::ir::Agg),
    /// An action's options: each combination of its parameters that passes every part of
    /// its guard (each tested once the bindings it needs are bound) written out.
    Options {
        binds: &'a [crate::ir::Bind],
        parts: &'a [(u16, Expr)],
    },
}

impl Nest<'_> {
    pub(super) fn binds(&self) -> &[crate::ir::Bind] {
        match self {
            Nest::Fold(a) => &a.binds,
            Nest::Options { binds, .. } => binds,
        }
    }
}

/// A fold being lowered: where its element is bound and the early exits met so far.
pub(super) struct Fold {
    /// Blocks that end the fold early, each with its result (their ends are set last).
    pub(super) exits: Vec<(usize, Reg)>,
    pub(super) exit_ty: Option<Ty>,
}
