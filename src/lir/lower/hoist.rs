//! Loop-invariant calls and folds computed once per fold: a function call or an aggregate
//! written in a fold's filter or body that reads none of the locals the fold binds is
//! computed where the reference computes it, the first time the loop reaches it, and
//! remembered in two scratch words (a flag, cleared before the loop, and the value) for the
//! later elements. Nothing is computed that the reference would not compute (a failure
//! fails where it does there); the state does not change while a function runs, so the
//! value remembered is the one the reference computes again.

use super::*;

/// Where a remembered call or fold keeps its flag (a set of one bit) and its value.
#[derive(Clone, Copy)]
pub(super) struct Memo {
    flag: Area,
    value: Area,
}

impl Lower<'_> {
    /// Marks the loop-invariant calls and folds of `a`'s filter and body to be remembered
    /// through its loop, their flags cleared in the current block (before the loop). Returns
    /// where the list of them stood before, to cut it back to once the fold is lowered.
    pub(super) fn hoist(&mut self, a: &crate::ir::Agg) -> Result<usize, String> {
        let mark = self.hoisted.len();
        let mut bound: Vec<u16> = a.binds.iter().map(|b| b.slot).collect();
        let parts: Vec<&Expr> = a.filter.iter().chain(&a.body).collect();
        for p in &parts {
            p.bound_slots(&mut |s| bound.push(s));
        }
        // Parents come first in a visit: the outermost candidates are kept, and what lies
        // inside them (by address) is passed over.
        let mut inside: Vec<usize> = vec![];
        let mut found: Vec<*const Expr> = vec![];
        for p in &parts {
            p.visit(&mut |x| {
                let at = x as *const Expr as usize;
                if inside.contains(&at)
                    || !matches!(x, Expr::CallDef(..) | Expr::Agg(..))
                    || !invariant(x, &bound)
                {
                    return;
                }
                x.visit(&mut |y| inside.push(y as *const Expr as usize));
                found.push(x as *const Expr);
            });
        }
        for e in found {
            let memo = Memo {
                flag: self.area(1)?,
                value: self.area(1)?,
            };
            let dst = self.f.reg(Ty::Int);
            self.push(Inst::Clear {
                dst,
                area: memo.flag,
            });
            self.hoisted.push((e, memo));
        }
        Ok(mark)
    }

    /// Where an expression is remembered through its fold's loop, if it is.
    pub(super) fn hoisted(&self, e: &Expr) -> Option<Memo> {
        (self.hoisted.iter())
            .find(|(p, _)| std::ptr::eq(*p, e))
            .map(|(_, m)| *m)
    }

    /// A remembered expression: its value from the scratch words when its flag is set, else
    /// computed here, then written there and flagged.
    pub(super) fn remembered(&mut self, e: &Expr, m: Memo) -> Result<Reg, String> {
        let zero = self.konst(Ty::Player, 0);
        let known = self.f.reg(Ty::Bool);
        self.push(Inst::Marked {
            dst: known,
            area: m.flag,
            x: zero,
        });
        let (hit, miss) = (self.block(vec![]), self.block(vec![]));
        self.branch(known, (hit, vec![]), (miss, vec![]));
        self.cur = miss;
        let v = self.expr_here(e)?;
        let ty = self.f.ty(v);
        let dst = self.f.reg(Ty::Int);
        self.push(Inst::Store {
            dst,
            area: m.value,
            x: v,
        });
        let set = self.f.reg(Ty::Bool);
        self.push(Inst::Mark {
            dst: set,
            area: m.flag,
            x: zero,
        });
        let out = self.f.reg(ty);
        let join = self.block(vec![out]);
        self.goto(join, vec![v]);
        self.cur = hit;
        let l = self.f.reg(ty);
        self.push(Inst::Load {
            dst: l,
            area: m.value,
        });
        self.goto(join, vec![l]);
        self.cur = join;
        Ok(out)
    }
}

/// Whether `e` reads no slot of `bound` (slots it binds itself aside), and no `after`.
fn invariant(e: &Expr, bound: &[u16]) -> bool {
    let mut own = vec![];
    e.bound_slots(&mut |s| own.push(s));
    let (mut free, mut after) = (true, false);
    e.visit(&mut |x| {
        after |= matches!(x, Expr::After(_));
    });
    e.reads(&mut |l| free &= own.contains(&l) || !bound.contains(&l));
    free && !after
}
