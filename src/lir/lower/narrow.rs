//! Narrowing a binding by a variable's value: an action's binding `x` over a board, an enum
//! or the players, with a guard part `v[x] == e` (or `e == v[x]`) where `v` has a value
//! index, is a loop over the positions holding `e` ([`Inst::Seek`]: the empty cells of a
//! placement game, the seat's pieces of a race game) instead of every position, the part
//! itself known true. The options and their order are the same: positions come in order,
//! and the parts before it at that binding are tested on the positions visited as before.
//!
//! What the reference would do differently is fail: it evaluates `e` and the parts before
//! `v[x] == e` on every position. So `e` must be a value that cannot fail to read (a
//! literal, a constant, `me`, a binding), and so must the parts before it (equalities of such
//! values and of variables at bindings of their own dimension); otherwise the loop visits
//! every position.

use super::fold::Nest;
use super::*;
use crate::ir::{Bind, Coll, Dim, VarId};

impl Lower<'_> {
    /// For binding `k` of an action's options: the variable and the value its loop is
    /// narrowed by (the value lowered now, before the loop), the part's position noted in
    /// `narrowed` so that it is not tested; `None` when it is not narrowed.
    pub(super) fn narrowing(&mut self, a: &Nest, k: usize) -> Result<Option<(VarId, Reg)>, String> {
        let Nest::Options { binds, parts } = a else {
            return Ok(None);
        };
        let bind = &binds[k];
        for (i, (need, part)) in parts.iter().enumerate() {
            if *need as usize != k + 1 {
                continue;
            }
            if let Some((var, value)) = self.narrow_part(bind, part) {
                let Some(ty) = Ty::of(self.g.vars[var].ty).filter(|_| plain(value)) else {
                    return Ok(None);
                };
                let r = match value {
                    Expr::Lit(Value::None) => self.konst(ty, ty.none()),
                    _ => self.expr(value)?,
                };
                if self.f.ty(r) != ty {
                    return Ok(None);
                }
                self.narrowed.push(i);
                return Ok(Some((var, r)));
            }
            if !self.never_fails(binds, part) {
                return Ok(None);
            }
        }
        Ok(None)
    }

    /// `v[x] == e` or `e == v[x]` for binding `x` over exactly the positions of `v`, `v`
    /// indexed by value and `e` not reading `x`: `v` and `e`.
    fn narrow_part<'e>(&self, b: &Bind, part: &'e Expr) -> Option<(VarId, &'e Expr)> {
        let Expr::Bin(crate::ops::BinOp::Eq, l, r, _) = part else {
            return None;
        };
        let (var, value) = match (self.at_own(b, l), self.at_own(b, r)) {
            (Some(v), _) => (v, &**r),
            (_, Some(v)) => (v, &**l),
            _ => return None,
        };
        if matches!(value, Expr::Local(s) if *s == b.slot) {
            return None;
        }
        self.g.program.var_index[var].map(|_| (var, value))
    }

    /// `v[x]`, `x` binding `b` over exactly the positions of `v`: `v`.
    fn at_own(&self, b: &Bind, e: &Expr) -> Option<VarId> {
        let Expr::Var(v, ix) = e else {
            return None;
        };
        let [Expr::Local(s)] = ix.as_slice() else {
            return None;
        };
        let fits = match (&self.g.vars[*v].dims[..], &b.coll) {
            ([Dim::Board(x)], Coll::Board(y)) => x == y,
            ([Dim::Enum(x)], Coll::Enum(y)) => x == y,
            ([Dim::Player], Coll::Players) => true,
            _ => false,
        };
        (*s == b.slot && fits).then_some(*v)
    }

    /// Whether a guard part surely never fails: an equality of plain values and of
    /// variables at a binding of their own dimension.
    fn never_fails(&self, binds: &[Bind], part: &Expr) -> bool {
        let Expr::Bin(crate::ops::BinOp::Eq | crate::ops::BinOp::Ne, l, r, _) = part else {
            return false;
        };
        let read = |e: &Expr| plain(e) || binds.iter().any(|b| self.at_own(b, e).is_some());
        read(l) && read(r)
    }
}

/// A value that reads without failing: a literal, a constant, `me`, the current player, the
/// number of seats, a binding.
fn plain(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Lit(_)
            | Expr::Const(_)
            | Expr::Me
            | Expr::Current
            | Expr::PlayerCount
            | Expr::Local(_)
    )
}
