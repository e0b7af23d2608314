//! Floods over a board's neighbours: `group(s in board, start where c)` as a collection
//! (its members found first, then listed in board order) and `connected(s in board, A, B
//! where c)`, lowered to loops over a stack of spaces still to visit and a set of those
//! looked at, both held in the function's scratch words ([`Area`]). Spaces are looked at in
//! the order the reference looks at them (the last pushed first, each neighbour tested when
//! it is first reached), so that a condition failing on some space fails here too, and
//! `connected` stops where the reference stops.

use super::*;
use crate::ir::{BoardId, Coll};

/// The areas of one flood over a board.
struct Flood {
    /// The spaces looked at.
    looked: Area,
    /// The spaces still to visit.
    todo: Area,
}

impl Lower<'_> {
    /// A set and a stack for a flood over board `b`, cleared in the current block.
    fn flood_areas(&mut self, b: BoardId) -> Result<Flood, String> {
        let len = self.g.boards[b].len();
        let looked = self.set_area(b)?;
        let todo = self.area(len + 1)?;
        for area in [looked, todo] {
            let dst = self.f.reg(Ty::Int);
            self.push(Inst::Clear { dst, area });
        }
        Ok(Flood { looked, todo })
    }

    /// An area holding one bit per space of board `b` (not cleared).
    fn set_area(&mut self, b: BoardId) -> Result<Area, String> {
        self.area(self.g.boards[b].len().div_ceil(64).max(1))
    }

    fn mark(&mut self, area: Area, x: Reg) -> Reg {
        let dst = self.f.reg(Ty::Bool);
        self.push(Inst::Mark { dst, area, x })
    }

    fn push_space(&mut self, area: Area, x: Reg) {
        let dst = self.f.reg(Ty::Int);
        self.push(Inst::Push { dst, area, x });
    }

    /// `c` with the walk's local bound to space `s`, as a truth value (`None`: true).
    fn meets(&mut self, slot: u16, c: Option<&Expr>, s: Reg) -> Result<Option<Reg>, String> {
        let Some(c) = c else { return Ok(None) };
        let r = self.with_local(slot, s, |l| l.expr(c))?;
        if self.f.ty(r) != Ty::Bool {
            return Err("a walk's condition that is not a truth value".into());
        }
        Ok(Some(r))
    }

    /// Goes on in a new block where `c` holds (everywhere for `None`); the block where it
    /// does not goes to `no`.
    fn when(&mut self, c: Option<Reg>, no: usize) {
        if let Some(c) = c {
            let go = self.block(vec![]);
            self.branch(c, (go, vec![]), (no, vec![]));
            self.cur = go;
        }
    }

    /// Ends the current block in `exit` when register `x` is none, else goes on.
    fn unless_none(&mut self, x: Reg, exit: usize) {
        let none = self.konst(self.f.ty(x), self.f.ty(x).none());
        let is = self.f.reg(Ty::Bool);
        self.push(Inst::Cmp {
            dst: is,
            op: Cmp::Eq,
            a: x,
            b: none,
        });
        let go = self.block(vec![]);
        self.branch(is, (exit, vec![]), (go, vec![]));
        self.cur = go;
    }

    /// Ends the current block in `exit` when space `s` is closed in this match (on a board
    /// that may close spaces), else goes on.
    fn unless_closed(&mut self, b: BoardId, s: Reg, exit: usize) {
        if !self.g.boards[b].geo.closed.iter().any(|&c| c) {
            return;
        }
        let dst = self.f.reg(Ty::Bool);
        self.push(Inst::Closed { dst, space: s });
        let go = self.block(vec![]);
        self.branch(dst, (exit, vec![]), (go, vec![]));
        self.cur = go;
    }

    /// The loop taking spaces off the stack until it is empty (then on to `empty`): each
    /// space taken goes to `visit` (which may end the block elsewhere), then each of its
    /// neighbours not looked at yet is marked and, if it meets `cond`, goes to `found` (which
    /// pushes it) — the reference's depth-first order.
    fn flood_loop(
        &mut self,
        (b, slot, cond): (BoardId, u16, Option<&Expr>),
        fl: &Flood,
        empty: usize,
        visit: &mut dyn FnMut(&mut Self, Reg) -> Result<(), String>,
        found: &mut dyn FnMut(&mut Self, Reg) -> Result<(), String>,
    ) -> Result<(), String> {
        let head = self.block(vec![]);
        self.goto(head, vec![]);
        self.cur = head;
        let sp = self.f.reg(Ty::Space(b));
        self.push(Inst::Pop {
            dst: sp,
            area: fl.todo,
        });
        self.unless_none(sp, empty);
        visit(self, sp)?;
        // The neighbours: k from 0 until none.
        let zero = self.konst(Ty::Int, 0);
        let k = self.f.reg(Ty::Int);
        let near = self.block(vec![k]);
        self.goto(near, vec![zero]);
        self.cur = near;
        let one = self.konst(Ty::Int, 1);
        let k1 = self.f.reg(Ty::Int);
        self.push(Inst::Arith {
            dst: k1,
            op: Arith::Add,
            a: k,
            b: one,
        });
        let next = self.block(vec![]);
        let nb = self.f.reg(Ty::Space(b));
        self.push(Inst::Near {
            dst: nb,
            space: sp,
            k,
        });
        self.unless_none(nb, head);
        let was = self.mark(fl.looked, nb);
        let fresh = self.block(vec![]);
        self.branch(was, (next, vec![]), (fresh, vec![]));
        self.cur = fresh;
        let ok = self.meets(slot, cond, nb)?;
        self.when(ok, next);
        found(self, nb)?;
        self.goto(next, vec![]);
        self.cur = next;
        self.goto(near, vec![k1]);
        Ok(())
    }

    /// The members of `group(s in b, start where cond)` as a set (an area of one bit per
    /// space: `into`, else a new one), found in the current block, which the lowering goes
    /// on after.
    pub(super) fn group_members(
        &mut self,
        b: BoardId,
        slot: u16,
        start: &Expr,
        cond: Option<&Expr>,
        into: Option<Area>,
    ) -> Result<Area, String> {
        let st = self.expr(start)?;
        if self.f.ty(st) != Ty::Space(b) {
            return Err("a group from something that is not a space of its board".into());
        }
        let fl = self.flood_areas(b)?;
        let members = match into {
            Some(a) => a,
            None => self.set_area(b)?,
        };
        let dst = self.f.reg(Ty::Int);
        self.push(Inst::Clear { dst, area: members });
        let done = self.block(vec![]);
        // The start: none, closed or not meeting the condition makes an empty group.
        self.unless_none(st, done);
        self.unless_closed(b, st, done);
        let ok = self.meets(slot, cond, st)?;
        self.when(ok, done);
        self.mark(fl.looked, st);
        self.mark(members, st);
        self.push_space(fl.todo, st);
        let mut visit = |_: &mut Self, _: Reg| Ok(());
        let mut found = |l: &mut Self, nb: Reg| {
            l.mark(members, nb);
            l.push_space(fl.todo, nb);
            Ok(())
        };
        self.flood_loop((b, slot, cond), &fl, done, &mut visit, &mut found)?;
        self.cur = done;
        Ok(members)
    }

    /// `connected(s in board, from, to where cond)`: whether a space meeting `from` and
    /// `cond` is joined to one meeting `to` through neighbours meeting `cond`.
    pub(super) fn connected(&mut self, a: &crate::ir::Agg) -> Result<Reg, String> {
        let (Some(bind), [from, to]) = (a.binds.first(), a.args.as_slice()) else {
            return Err("a `connected` of another shape".into());
        };
        let Coll::Board(b) = bind.coll else {
            return Err("a `connected` over something that is not a board".into());
        };
        let (slot, cond) = (bind.slot, a.filter.as_ref());
        let fl = self.flood_areas(b)?;
        let out = self.f.reg(Ty::Bool);
        let join = self.block(vec![out]);
        let (no, yes) = (self.block(vec![]), self.block(vec![]));
        let t = self.konst(Ty::Bool, 1);
        let f = self.konst(Ty::Bool, 0);
        let flooded = self.block(vec![]);
        match from.seed_of(slot) {
            // `s == e`, `e` free of `s`: the flood starts at `e` alone.
            Some(e) => {
                let st = self.expr(e)?;
                if self.f.ty(st) == Ty::Space(b) {
                    self.unless_none(st, flooded);
                    self.unless_closed(b, st, flooded);
                    let ok = self.meets(slot, cond, st)?;
                    self.when(ok, flooded);
                    self.mark(fl.looked, st);
                    self.push_space(fl.todo, st);
                } else if !matches!(self.f.ty(st), Ty::Space(_)) {
                    return Err("a `connected` from something that is not a space".into());
                }
                self.goto(flooded, vec![]);
            }
            // Every space of the board in play meeting `from` and `cond`, in board order.
            None => {
                self.board_loop(b, &mut |l, s| {
                    let next = l.block(vec![]);
                    l.unless_closed(b, s, next);
                    let ok = l.meets(slot, Some(from), s)?;
                    l.when(ok, next);
                    let ok = l.meets(slot, cond, s)?;
                    l.when(ok, next);
                    l.mark(fl.looked, s);
                    l.push_space(fl.todo, s);
                    l.goto(next, vec![]);
                    l.cur = next;
                    Ok(())
                })?;
                self.goto(flooded, vec![]);
            }
        }
        self.cur = flooded;
        // Each space taken off the stack: the flood ends where one meets `to`.
        let mut visit = |l: &mut Self, sp: Reg| {
            let Some(hit) = l.meets(slot, Some(to), sp)? else {
                return Err("a `connected` without its end".into());
            };
            let go = l.block(vec![]);
            l.branch(hit, (yes, vec![]), (go, vec![]));
            l.cur = go;
            Ok(())
        };
        let mut found = |l: &mut Self, nb: Reg| {
            l.push_space(fl.todo, nb);
            Ok(())
        };
        self.flood_loop((b, slot, cond), &fl, no, &mut visit, &mut found)?;
        self.cur = yes;
        self.goto(join, vec![t]);
        self.cur = no;
        self.goto(join, vec![f]);
        self.cur = join;
        Ok(out)
    }
}

impl Lower<'_> {
    /// A loop over the spaces of board `b` in board order, `body` lowered for each (it goes
    /// on in the block it leaves current); the lowering goes on after the loop.
    fn board_loop(
        &mut self,
        b: BoardId,
        body: &mut dyn FnMut(&mut Self, Reg) -> Result<(), String>,
    ) -> Result<(), String> {
        let len = self.konst(Ty::Int, self.g.boards[b].len() as i64);
        let zero = self.konst(Ty::Int, 0);
        let i = self.f.reg(Ty::Int);
        let head = self.block(vec![i]);
        self.goto(head, vec![zero]);
        self.cur = head;
        let more = self.f.reg(Ty::Bool);
        self.push(Inst::Cmp {
            dst: more,
            op: Cmp::Lt,
            a: i,
            b: len,
        });
        let (inside, done) = (self.block(vec![]), self.block(vec![]));
        self.branch(more, (inside, vec![]), (done, vec![]));
        self.cur = inside;
        let s = self.f.reg(Ty::Space(b));
        self.push(Inst::Cast { dst: s, a: i });
        body(self, s)?;
        let one = self.konst(Ty::Int, 1);
        let i2 = self.f.reg(Ty::Int);
        self.push(Inst::Arith {
            dst: i2,
            op: Arith::Add,
            a: i,
            b: one,
        });
        self.goto(head, vec![i2]);
        self.cur = done;
        Ok(())
    }
}
