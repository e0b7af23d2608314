//! Loop-invariant calls, folds and groups computed once per fold: a function call or an
//! aggregate written in a fold's filter or body that reads none of the locals the fold binds
//! is computed where the reference computes it, the first time the loop reaches it, and
//! remembered in two scratch words (a flag, cleared before the loop, and the value) for the
//! later elements. A group that an aggregate there walks (`any(t in group(s in b, at where
//! c): ...)`), whose start and condition read none of those locals, is flooded the first
//! time and its set of members kept (a flag beside it) for the later elements. Nothing is
//! computed that the reference would not compute (a failure fails where it does there); the
//! state does not change while a function runs, so what is remembered is what the reference
//! computes again.

use super::*;
use crate::ir::Coll;

/// Where a remembered call or fold keeps its flag (a set of one bit) and its value.
#[derive(Clone, Copy)]
pub(super) struct Memo {
    flag: Area,
    value: Area,
}

impl Lower<'_> {
    /// Marks the loop-invariant calls, folds and groups of `a`'s filter and body to be
    /// remembered through its loop, their flags cleared in the current block (before the
    /// loop). Returns where the lists of them stood before, to cut them back to
    /// ([`Lower::unhoist`]) once the fold is lowered.
    pub(super) fn hoist(&mut self, a: &crate::ir::Agg) -> Result<(usize, usize), String> {
        let mark = (self.hoisted.len(), self.groups.len());
        let mut bound: Vec<u16> = a.binds.iter().map(|b| b.slot).collect();
        let parts: Vec<&Expr> = a.filter.iter().chain(&a.body).collect();
        for p in &parts {
            p.bound_slots(&mut |s| bound.push(s));
        }
        // Parents come first in a visit: the outermost candidates are kept, and what lies
        // inside them (by address) is passed over.
        let mut inside: Vec<usize> = vec![];
        let mut found: Vec<*const Expr> = vec![];
        let mut groups: Vec<*const Coll> = vec![];
        for p in &parts {
            p.visit(&mut |x| {
                let at = x as *const Expr as usize;
                if inside.contains(&at) {
                    return;
                }
                if matches!(x, Expr::CallDef(..) | Expr::Agg(..)) && invariant(x, &bound) {
                    x.visit(&mut |y| inside.push(y as *const Expr as usize));
                    found.push(x as *const Expr);
                    return;
                }
                if let Expr::Agg(inner, _) = x {
                    for b in &inner.binds {
                        if let Coll::Group {
                            slot, start, cond, ..
                        } = &b.coll
                        {
                            let mut own = vec![*slot];
                            let es: Vec<&Expr> = std::iter::once(start).chain(cond).collect();
                            es.iter().for_each(|e| e.bound_slots(&mut |s| own.push(s)));
                            if es.iter().all(|e| free_of(e, &own, &bound)) {
                                groups.push(&b.coll as *const Coll);
                            }
                        }
                    }
                }
            });
        }
        for c in groups {
            let flag = self.area(1)?;
            let dst = self.f.reg(Ty::Int);
            self.push(Inst::Clear { dst, area: flag });
            self.groups.push((c, flag, None));
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

    /// Forgets what was remembered through the loop of a fold now lowered.
    pub(super) fn unhoist(&mut self, mark: (usize, usize)) {
        self.hoisted.truncate(mark.0);
        self.groups.truncate(mark.1);
    }

    /// The members of a group ([`Lower::group_members`]); flooded only the first time the
    /// loop gets here when the group is remembered through its fold's loop.
    pub(super) fn group_once(
        &mut self,
        coll: &Coll,
        b: crate::ir::BoardId,
        slot: u16,
        start: &Expr,
        cond: Option<&Expr>,
    ) -> Result<Area, String> {
        let Some(at) = (self.groups.iter()).position(|(p, ..)| std::ptr::eq(*p, coll)) else {
            return self.group_members(b, slot, start, cond, None);
        };
        let (_, flag, into) = self.groups[at];
        let zero = self.konst(Ty::Player, 0);
        let known = self.f.reg(Ty::Bool);
        self.push(Inst::Marked {
            dst: known,
            area: flag,
            x: zero,
        });
        let (hit, miss) = (self.block(vec![]), self.block(vec![]));
        self.branch(known, (hit, vec![]), (miss, vec![]));
        self.cur = miss;
        let members = self.group_members(b, slot, start, cond, into)?;
        self.groups[at].2 = Some(members);
        let set = self.f.reg(Ty::Bool);
        self.push(Inst::Mark {
            dst: set,
            area: flag,
            x: zero,
        });
        self.goto(hit, vec![]);
        self.cur = hit;
        Ok(members)
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
    free_of(e, &own, bound)
}

/// Whether `e` reads no slot of `bound` but those of `own`, and no `after`.
fn free_of(e: &Expr, own: &[u16], bound: &[u16]) -> bool {
    let (mut free, mut after) = (true, false);
    e.visit(&mut |x| {
        after |= matches!(x, Expr::After(_));
    });
    e.reads(&mut |l| free &= own.contains(&l) || !bound.contains(&l));
    free && !after
}
