//! Guard parts planned for listing: a collection known non-empty, remembered filters of
//! setup-only values (tables), remembered answers (`memo`), what is frozen after setup, and
//! the bindings a variable's value index narrows.

use super::*;

/// A value index may take at most this many bits (values x positions).
pub(super) const MAX_INDEX_BITS: u64 = 1 << 16;
/// A remembered guard part may keep at most this many answers.
pub(super) const MAX_MEMO: u64 = 1 << 16;

impl Compiler<'_> {
    /// For a guard part `any(x in zone where c)` (or `any(x in zone: c)`), false when the
    /// zone is empty, a part tested just before it: `not empty(zone)`, one comparison read in
    /// place, where the part's loop runs through the op loop (a zone of a board's space or of
    /// a player is mostly empty: `any(a in on[p, t] where mine(a))` over every `p`, `t`). Only
    /// when the zone reads nothing that can fail (no index, or `me` or bindings over an enum,
    /// a board or the players as its indexes), so that both make the same errors; the loop
    /// spends no work on an empty zone, so both spend the same.
    pub(super) fn nonempty(&mut self, binds: &[Bind], part: &Expr) -> Option<Code> {
        let Expr::Agg(agg, span) = part else {
            return None;
        };
        let [Bind {
            coll: Coll::Zone(zone),
            ..
        }] = agg.binds.as_slice()
        else {
            return None;
        };
        if agg.kind != AggKind::Any {
            return None;
        }
        let Expr::Zone(_, ix) = zone else {
            return None;
        };
        let sure = ix.iter().all(|e| match e {
            Expr::Lit(_) | Expr::Const(_) | Expr::Me => true,
            Expr::Local(l) => binds.iter().any(|b| {
                b.slot == *l && matches!(b.coll, Coll::Enum(_) | Coll::Board(_) | Coll::Players)
            }),
            _ => false,
        });
        if !sure {
            return None;
        }
        let test = Expr::Not(Box::new(Expr::Builtin(
            Builtin::Empty,
            vec![zone.clone()],
            *span,
        )));
        let code = self.expr(&test);
        // Kept only as one comparison: anything else costs more than the loop it spares.
        match self.p.ops.get(code.start as usize..code.end as usize) {
            Some([Op::Cmp(_)]) => Some(code),
            _ => None,
        }
    }

    /// Remembered lists for binding `k`: when its collection is fixed for the match, its
    /// elements are listed once per key (the earlier bindings it reads, and `me`) and read
    /// from the list; when the first parts tested once it is bound are remembered ones (see
    /// [`Compiler::memo`]), those parts are absorbed into the lists: only the elements that
    /// pass them are kept.
    /// Only a leading run of such parts is absorbed, so that the parts left are tested on
    /// the same elements, in the same order, as without the lists. A later part `if c then
    /// a else b` tested at the same binding, whose condition `c` is fixed for the match
    /// like them, is split: the list keeps `c`'s answer for each element, and only `a` or
    /// `b` is tested (`if file[to] == file[from] then pawn[to] == none else pawn[to] != me`).
    pub(super) fn filter(
        &mut self,
        binds: &[Bind],
        k: usize,
        parts: &mut [Part],
        exprs: &[&Expr],
    ) -> Option<u32> {
        let b = &binds[k];
        if matches!(b.coll, Coll::Zone(_)) {
            return None;
        }
        let mut reads = Vec::new();
        let mut me = false;
        if !self.frozen_coll(&b.coll, &mut reads, &mut me) {
            return None;
        }
        let need = k as u16 + 1;
        let absorbed: Vec<usize> = parts
            .iter()
            .enumerate()
            .filter(|(_, p)| p.need == need)
            .take_while(|(_, p)| p.memo.is_some())
            .map(|(i, _)| i)
            .collect();
        for &i in &absorbed {
            let def = &self.p.memos[parts[i].memo.expect("a remembered part") as usize];
            me |= def.me;
            for &(slot, _) in &def.keys {
                if slot != b.slot && !reads.contains(&slot) {
                    reads.push(slot);
                }
            }
        }
        // The `if` parts whose condition the list can answer: fixed for the match, reading
        // only this binding and the ones the list is keyed by already.
        let mut splits: Vec<(usize, &Expr)> = Vec::new();
        for (i, p) in parts.iter().enumerate() {
            if p.need != need || p.memo.is_some() || splits.len() >= FilterDef::MAX_SPLITS {
                continue;
            }
            let Some(Expr::If(c, _, _)) = exprs.get(i) else {
                continue;
            };
            let (mut r, mut cme) = (Vec::new(), false);
            if self.frozen_expr(c, &mut r, &mut cme, 0)
                && (me || !cme || absorbed.is_empty())
                && r.iter().all(|l| {
                    *l == b.slot
                        || reads.contains(l)
                        || (absorbed.is_empty() && binds[..k].iter().any(|e| e.slot == *l))
                })
            {
                me |= cme;
                for l in r {
                    if l != b.slot && !reads.contains(&l) {
                        reads.push(l);
                    }
                }
                splits.push((i, c));
            }
        }
        let mut keys = Vec::new();
        let mut entries: u64 = if me { self.g.max_players as u64 } else { 1 };
        for e in &binds[..k] {
            if !reads.contains(&e.slot) {
                continue;
            }
            let size = match e.ty {
                Type::Space(bd) => self.g.boards[bd].len() as u64,
                Type::Enum(x) => self.g.enums[x].values.len() as u64,
                Type::Player => self.g.max_players as u64,
                _ => return None,
            };
            entries *= size.max(1);
            keys.push((e.slot, size as u32));
        }
        // The collection reads a local that is not an earlier binding: not a function of the key.
        if reads
            .iter()
            .any(|l| !binds[..k].iter().any(|e| e.slot == *l))
            || entries > MAX_MEMO
        {
            return None;
        }
        for &i in &absorbed {
            parts[i].absorbed = true;
        }
        let mut conds = Vec::with_capacity(splits.len());
        for (bit, (i, c)) in splits.into_iter().enumerate() {
            let Some(Expr::If(_, then, other)) = exprs.get(i) else {
                continue;
            };
            conds.push(self.expr(c));
            parts[i].split = Some(Split {
                bit: bit as u8,
                then: self.expr(then),
                other: self.expr(other),
            });
        }
        self.p.filters.push(FilterDef {
            key: MemoDef {
                keys,
                me,
                entries: entries as u32,
            },
            parts: absorbed.iter().map(|&i| parts[i].code).collect(),
            splits: conds,
        });
        Some(self.p.filters.len() as u32 - 1)
    }

    /// Whether a collection's elements are fixed for the match: they depend only on locals
    /// (collected), `me`, constants and variables only `setup` writes.
    pub(super) fn frozen_coll(&self, c: &Coll, reads: &mut Vec<u16>, me: &mut bool) -> bool {
        match c {
            Coll::Board(_) | Coll::Enum(_) | Coll::Type(_) | Coll::Players => true,
            Coll::Adjacent(e) => self.frozen_expr(e, reads, me, 0),
            Coll::Range(a, b) | Coll::Ray(a, b) => {
                self.frozen_expr(a, reads, me, 0) && self.frozen_expr(b, reads, me, 0)
            }
            Coll::List(xs) => xs.iter().all(|x| self.frozen_expr(x, reads, me, 0)),
            Coll::Rays(r) => {
                r.stop.is_none()
                    && self.frozen_expr(&r.from, reads, me, 0)
                    && r.dirs.iter().all(|x| self.frozen_expr(x, reads, me, 0))
            }
            Coll::Zone(_) | Coll::Paths { .. } | Coll::Group { .. } | Coll::Groups { .. } => false,
        }
    }

    /// A memo for a guard part that reads only bindings of small domains, `me`, constants and
    /// variables only `setup` writes: its answers can be remembered for the rest of a match
    /// (and for any match whose setup left those variables the same).
    pub(super) fn memo(&mut self, binds: &[Bind], part: &Expr) -> Option<u32> {
        let mut reads = Vec::new();
        let mut me = false;
        if !self.frozen_expr(part, &mut reads, &mut me, 0) {
            return None;
        }
        let mut keys = Vec::new();
        let mut entries: u64 = if me { self.g.max_players as u64 } else { 1 };
        for b in binds {
            if !reads.contains(&b.slot) {
                continue;
            }
            let size = match b.ty {
                Type::Space(bd) => self.g.boards[bd].len() as u64,
                Type::Enum(e) => self.g.enums[e].values.len() as u64,
                Type::Player => self.g.max_players as u64,
                _ => return None,
            };
            entries *= size.max(1);
            keys.push((b.slot, size as u32));
        }
        // Reads a local that is not one of the bindings: not a function of the key.
        if reads.iter().any(|l| !binds.iter().any(|b| b.slot == *l)) || entries > MAX_MEMO {
            return None;
        }
        if keys.is_empty() && !me {
            return None;
        }
        self.p.memos.push(MemoDef {
            keys,
            me,
            entries: entries as u32,
        });
        Some(self.p.memos.len() as u32 - 1)
    }

    /// Whether an expression reads only locals (collected), `me`, constants and frozen
    /// variables, through functions of the same kind.
    pub(super) fn frozen_expr(
        &self,
        e: &Expr,
        reads: &mut Vec<u16>,
        me: &mut bool,
        depth: u32,
    ) -> bool {
        if depth > 8 {
            return false;
        }
        let all = |xs: &[Expr], reads: &mut Vec<u16>, me: &mut bool| {
            xs.iter().all(|x| self.frozen_expr(x, reads, me, depth))
        };
        match e {
            Expr::Lit(_) | Expr::Const(_) | Expr::PlayerCount => true,
            Expr::Me => {
                *me = true;
                true
            }
            Expr::Local(l) => {
                if !reads.contains(l) {
                    reads.push(*l);
                }
                true
            }
            Expr::Var(v, ix) => self.p.frozen.contains(v) && all(ix, reads, me),
            Expr::Not(x) | Expr::Neg(x) => self.frozen_expr(x, reads, me, depth),
            Expr::Bin(_, a, b, _) => {
                self.frozen_expr(a, reads, me, depth) && self.frozen_expr(b, reads, me, depth)
            }
            Expr::If(a, b, c) => {
                self.frozen_expr(a, reads, me, depth)
                    && self.frozen_expr(b, reads, me, depth)
                    && self.frozen_expr(c, reads, me, depth)
            }
            Expr::Builtin(
                Builtin::Seat
                | Builtin::Abs
                | Builtin::Max2
                | Builtin::Min2
                | Builtin::Next
                | Builtin::Prev
                // the board's geometry: fixed, its closed spaces by constants (fingerprinted)
                | Builtin::Step
                | Builtin::Col
                | Builtin::Row
                | Builtin::Opposite
                | Builtin::Ord,
                args,
                _,
            ) => all(args, reads, me),
            Expr::CallDef(d, args) => {
                if !all(args, reads, me) {
                    return false;
                }
                // The body reads its parameters, which are the arguments above.
                let mut inner = Vec::new();
                self.frozen_expr(&self.g.defs[*d].body, &mut inner, me, depth + 1)
                    && inner.iter().all(|l| (*l as usize) < args.len())
            }
            _ => false,
        }
    }

    /// A guard part `v[x] == e` (or `e == v[x]`) for a binding `x` over exactly the index of
    /// `v`, where `e` reads only earlier bindings: the variable (now indexed) and `e`.
    pub(super) fn narrowing<'e>(&mut self, b: &Bind, part: &'e Expr) -> Option<(VarId, &'e Expr)> {
        let Expr::Bin(BinOp::Eq, l, r, _) = part else {
            return None;
        };
        let pinned = |x: &Expr| match x {
            Expr::Var(v, ix) if matches!(ix.as_slice(), [Expr::Local(s)] if *s == b.slot) => {
                Some(*v)
            }
            _ => None,
        };
        let (var, value) = match (pinned(l), pinned(r)) {
            (Some(v), _) => (v, &**r),
            (_, Some(v)) => (v, &**l),
            _ => return None,
        };
        let def = &self.g.vars[var];
        let dim_fits = matches!(
            (&def.dims[..], &b.coll),
            ([Dim::Board(x)], Coll::Board(y)) if x == y
        ) || matches!(
            (&def.dims[..], &b.coll),
            ([Dim::Enum(x)], Coll::Enum(y)) if x == y
        ) || matches!((&def.dims[..], &b.coll), ([Dim::Player], Coll::Players));
        if !dim_fits {
            return None;
        }
        // The value may read earlier bindings (the guard part's tag says no later one), but
        // not this binding.
        let mut reads_self = false;
        value.reads(&mut |l| reads_self |= l == b.slot);
        if reads_self {
            return None;
        }
        self.index_var(var).then_some((var, value))
    }

    /// Keeps a value index for a variable; false when its values cannot be indexed cheaply.
    pub(super) fn index_var(&mut self, var: VarId) -> bool {
        if self.p.var_index[var].is_some() {
            return true;
        }
        let def = &self.g.vars[var];
        let codes = match def.ty {
            Type::Player => self.g.max_players as u64 + 1,
            Type::Enum(e) => self.g.enums[e].values.len() as u64 + 1,
            Type::Bool => 3,
            Type::Space(b) => self.g.boards[b].len() as u64 + 1,
            _ => return false,
        };
        let size = def.count as u64;
        let words = size.div_ceil(64);
        if codes * words * 64 > MAX_INDEX_BITS {
            return false;
        }
        let index = ValueIndex {
            var,
            base: self.p.index_words,
            words: words as u32,
            codes: codes as u32,
        };
        self.p.index_words += (codes * words) as u32;
        self.p.indexes.push(index);
        self.p.var_index[var] = Some(self.p.indexes.len() as u32 - 1);
        true
    }
}
