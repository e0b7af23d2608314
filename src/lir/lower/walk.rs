//! Bindings over a board's neighbours and rays (`adjacent(s)`, `ray(s, d)`, `ray(s, [d,
//! ...])`, `ray(t in board, s, d where c)`, `ray(t in board, s, d until c)`), lowered to loops
//! whose cursor (a counter, or the space last stepped onto) and accumulator are the
//! parameters of their head block: each element is computed from the cursor, and the loop
//! ends at the first that is none (the end of the row, the edge, a closed space), at the
//! start again (a ring), or where the ray's condition stops it.

use super::fold::{Fold, Nest};
use super::*;
use crate::ir::{Coll, RayStop};

/// How a walk finds its next element.
#[derive(Clone, Copy)]
enum Next {
    /// The `i`-th neighbour of a space (the cursor `i` counts from 0).
    Near(Reg),
    /// The space one step from the cursor in a direction; the walk ends back at `start`.
    Step { start: Reg, dir: Reg },
}

/// What one walk does with its elements.
#[derive(Clone, Copy)]
enum Body {
    /// Binds them and goes on with binding `k` of the nest.
    Bind(usize),
    /// Nothing: only the ray's condition is tested (errors found where the reference, which
    /// lists a ray whole before folding it, finds them).
    Dry,
}

impl Lower<'_> {
    /// Binding `k` of a nest over `adjacent(s)`, a ray or rays; `None` for another
    /// collection.
    pub(super) fn walk_binding(
        &mut self,
        a: &Nest,
        fold: &mut Fold,
        k: usize,
        acc0: Reg,
    ) -> Result<Option<Reg>, String> {
        let bind = &a.binds()[k];
        let elem_ty = Ty::of(bind.ty).ok_or("a binding without an unboxed type")?;
        Ok(Some(match &bind.coll {
            Coll::Adjacent(x) => {
                let s = self.space(x, elem_ty)?;
                let zero = self.konst(Ty::Int, 0);
                self.walk(a, fold, (zero, Next::Near(s)), None, Body::Bind(k), acc0)?
            }
            Coll::Ray(x, d) => {
                let start = self.space(x, elem_ty)?;
                let dir = self.direction(d)?;
                let next = Next::Step { start, dir };
                self.walk(a, fold, (start, next), None, Body::Bind(k), acc0)?
            }
            Coll::Rays(r) => {
                let start = self.space(&r.from, elem_ty)?;
                let Ty::Space(b) = elem_ty else {
                    unreachable!("checked by `space`")
                };
                if r.dirs.len() > 1
                    && matches!(self.g.boards[b].shape, crate::ir::BoardShape::Ring { .. })
                {
                    // The two ways round a ring meet; a space is listed once there.
                    return Err("rays in several directions on a ring".into());
                }
                // The reference lists a ray whole, its condition tested on every space, before
                // a fold looks at its elements: a fold that may stop early walks the rays once
                // first, so that a condition failing further on fails here too.
                let early = matches!(a, Nest::Fold(agg) if matches!(
                    agg.kind,
                    crate::ir::AggKind::Any | crate::ir::AggKind::All | crate::ir::AggKind::First
                ));
                let mut dirs = Vec::with_capacity(r.dirs.len());
                let mut acc = acc0;
                for d in &r.dirs {
                    let dir = self.direction(d)?;
                    dirs.push(dir);
                    if early && r.stop.is_some() {
                        let next = Next::Step { start, dir };
                        acc = self.walk(a, fold, (start, next), r.stop.as_ref(), Body::Dry, acc)?;
                    }
                }
                for dir in dirs {
                    let next = Next::Step { start, dir };
                    acc = self.walk(a, fold, (start, next), r.stop.as_ref(), Body::Bind(k), acc)?;
                }
                acc
            }
            _ => return Ok(None),
        }))
    }

    /// A space of the binding's type.
    fn space(&mut self, x: &Expr, elem_ty: Ty) -> Result<Reg, String> {
        let s = self.expr(x)?;
        if !matches!(elem_ty, Ty::Space(_)) || self.f.ty(s) != elem_ty {
            return Err("neighbours or a ray of something that is not a space".into());
        }
        Ok(s)
    }

    /// A direction.
    fn direction(&mut self, d: &Expr) -> Result<Reg, String> {
        let d = self.expr(d)?;
        if !matches!(self.f.ty(d), Ty::Enum(_)) {
            return Err("a ray in something that is not a direction".into());
        }
        Ok(d)
    }

    /// One loop: head(cursor, acc) computes the element, ends at none (or back at the
    /// start), tests the ray's condition, and hands the element to the body; the accumulator
    /// after the loop is returned, in the block that goes on.
    fn walk(
        &mut self,
        a: &Nest,
        fold: &mut Fold,
        (cur0, next): (Reg, Next),
        stop: Option<&RayStop>,
        body: Body,
        acc0: Reg,
    ) -> Result<Reg, String> {
        let acc_ty = self.f.ty(acc0);
        let cur = self.f.reg(self.f.ty(cur0));
        let acc_in = self.f.reg(acc_ty);
        let head = self.block(vec![cur, acc_in]);
        self.goto(head, vec![cur0, acc0]);
        self.cur = head;
        let acc_out = self.f.reg(acc_ty);
        let done = self.block(vec![acc_out]);
        let (elem, cur2) = match next {
            Next::Near(s) => {
                let elem = self.f.reg(self.f.ty(s));
                self.push(Inst::Near {
                    dst: elem,
                    space: s,
                    k: cur,
                });
                let one = self.konst(Ty::Int, 1);
                let i2 = self.f.reg(Ty::Int);
                self.push(Inst::Arith {
                    dst: i2,
                    op: Arith::Add,
                    a: cur,
                    b: one,
                });
                (elem, i2)
            }
            Next::Step { dir, .. } => {
                let elem = self.f.reg(self.f.ty(cur));
                self.push(Inst::Step {
                    dst: elem,
                    space: cur,
                    dir,
                });
                (elem, elem)
            }
        };
        let elem_ty = self.f.ty(elem);
        self.end_if(Cmp::Eq, elem, elem_ty.none(), (done, acc_in));
        if let Next::Step { start, .. } = next {
            let back = self.f.reg(Ty::Bool);
            self.push(Inst::Cmp {
                dst: back,
                op: Cmp::Eq,
                a: elem,
                b: start,
            });
            let go = self.block(vec![]);
            self.branch(back, (done, vec![acc_in]), (go, vec![]));
            self.cur = go;
        }
        // The ray's condition, with its slot bound to the element: `where` ends the ray
        // before the first space failing it, `until` after the first meeting it.
        let mut last = None;
        if let Some(stop) = stop {
            let met = self.with_local(stop.slot, elem, |l| l.expr(&stop.cond))?;
            if self.f.ty(met) != Ty::Bool {
                return Err("a ray's condition that is not a truth value".into());
            }
            if stop.until {
                last = Some(met);
            } else {
                let go = self.block(vec![]);
                self.branch(met, (go, vec![]), (done, vec![acc_in]));
                self.cur = go;
            }
        }
        let acc2 = match body {
            Body::Bind(k) => self.fold_elem(a, fold, k, elem, acc_in)?,
            Body::Dry => acc_in,
        };
        match last {
            Some(met) => self.branch(met, (done, vec![acc2]), (head, vec![cur2, acc2])),
            None => self.goto(head, vec![cur2, acc2]),
        }
        self.cur = done;
        Ok(acc_out)
    }

    /// Ends the loop (to `done` with `acc`) when `x op value`; goes on in a new block.
    fn end_if(&mut self, op: Cmp, x: Reg, value: i64, (done, acc): (usize, Reg)) {
        let c = self.konst(self.f.ty(x), value);
        let hit = self.f.reg(Ty::Bool);
        self.push(Inst::Cmp {
            dst: hit,
            op,
            a: x,
            b: c,
        });
        let go = self.block(vec![]);
        self.branch(hit, (done, vec![acc]), (go, vec![]));
        self.cur = go;
    }

    /// Lowers `f` with local `slot` bound to register `r` (restored after).
    pub(super) fn with_local<T>(
        &mut self,
        slot: u16,
        r: Reg,
        f: impl FnOnce(&mut Self) -> Result<T, String>,
    ) -> Result<T, String> {
        let slot = slot as usize;
        if self.locals.len() <= slot {
            self.locals.resize(slot + 1, None);
        }
        let saved = self.locals[slot].replace(r);
        let out = f(self);
        self.locals[slot] = saved;
        out
    }
}
