//! Bindings narrowed by an index of the values they may take (`bind_narrowed`), and the
//! last binding after them found once (`NextListed`).

use super::*;

impl Game {
    /// A binding narrowed by a value index: only the positions where the variable holds the
    /// value, in their order.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn bind_narrowed<F: Take>(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        n: Narrow,
        locals: &mut [Value],
        me: u8,
        f: &mut F,
    ) -> Eval<bool> {
        let b = &opts.binds[k];
        let want = match self.read_simple(n.value, locals, me) {
            Some(v) => v,
            None => m.eval(self, st, n.value, locals, me)?,
        };
        let ix = self.program.indexes[self.program.var_index[n.var].expect("indexed") as usize];
        let Some(code) = Program::value_code(want).filter(|c| *c < ix.codes) else {
            return Ok(true);
        };
        let dim = self.vars[n.var].dims[0];
        let size = self.vars[n.var].sizes[0];
        let limit = match dim {
            Dim::Player => st.players as u32,
            _ => size,
        };
        let first = (ix.base + code * ix.words) as usize;
        let closing = match dim {
            Dim::Board(bd) => self.boards[bd].closing(&st.consts),
            _ => false,
        };
        let next = self.next_listed(st, opts, k, locals, me);
        if let (Some(nx), Dim::Board(bd), Some((out, arm, binds))) = (&next, dim, f.push()) {
            let this = binds.iter().position(|c| c.slot == b.slot);
            let p = Pushing::new(arm, binds, nx.leaf.0, locals);
            if let (true, Some(this), Some(p)) = (nx.pre.is_empty(), this, p) {
                let mut push = Push { out, arm, binds };
                let walk = (first, ix.words as usize, limit, bd, closing);
                return self.narrowed_push(
                    m,
                    st,
                    opts,
                    k,
                    nx,
                    walk,
                    (this, p),
                    locals,
                    me,
                    &mut push,
                );
            }
        }
        for w in 0..ix.words as usize {
            let mut bits = st.index[first + w];
            while bits != 0 {
                let pos = (w * 64) as u32 + bits.trailing_zeros();
                bits &= bits - 1;
                if pos >= limit {
                    return Ok(true);
                }
                m.spend(None)?;
                if let Dim::Board(bd) = dim {
                    if self.boards[bd].is_closed(pos, closing) {
                        continue;
                    }
                }
                locals[b.slot as usize] = match dim {
                    Dim::Board(bd) => Value::Space(bd, pos),
                    Dim::Enum(e) => Value::Enum(e, pos as u16),
                    Dim::Player => Value::Player(pos as u8),
                    Dim::Range { lo, .. } => Value::Int(lo + pos as i64),
                };
                if let Some(nx) = &next {
                    if !self.bind_next_listed(m, st, opts, k + 1, nx, pos, locals, me, f)? {
                        return Ok(false);
                    }
                    continue;
                }
                if !self.bind_next(m, st, opts, k + 1, locals, me, f)? {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// [`Game::bind_narrowed`] over a board when the last binding `k + 1` is read from
    /// remembered lists, no part is tested between the two, and each option is pushed
    /// (`push`; `p`: the option, with this binding's parameter at `this`): per position the
    /// list is read and its elements whose parts their resolved part answers are pushed at
    /// once ([`Game::push_listed`]); the rest (a list not yet listed, an element to test in
    /// full) go the general way. `walk`: the value index's
    /// first word and word count, the positions' limit, the board and whether it has closed
    /// spaces.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(super) fn narrowed_push(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        nx: &NextListed,
        (first, words, limit, bd, closing): (usize, usize, u32, BoardId, bool),
        (this, mut p): (usize, Pushing),
        locals: &mut [Value],
        me: u8,
        push: &mut Push,
    ) -> Eval<bool> {
        let slot = opts.binds[k].slot;
        // Lists kept for another program or setup are dropped once, at the first position
        // that reads one (as the general way does: a listing that reads none keeps them).
        let mut owned = false;
        let board = &self.boards[bd];
        let n = nx.leaf.1.len();
        for w in 0..words {
            let mut bits = st.index.get(first + w).copied().unwrap_or(0);
            while bits != 0 {
                let pos = (w * 64) as u32 + bits.trailing_zeros();
                bits &= bits - 1;
                if pos >= limit {
                    return Ok(true);
                }
                m.spend(None)?;
                if board.is_closed(pos, closing) {
                    continue;
                }
                let v = Value::Space(bd, pos);
                let list = match pos < nx.bound {
                    true => {
                        if !owned {
                            m.own(self, st);
                            owned = true;
                        }
                        m.filters
                            .get(nx.fid as usize)
                            .and_then(|t| t.lists.get((nx.base + pos * nx.step) as usize))
                            .filter(|l| l.1 != u32::MAX)
                    }
                    false => None,
                };
                if let Some(&(start, len)) = list {
                    let (start, end) = (start as usize, (start + len) as usize);
                    if let Some(d) = p.option.args.get_mut(this) {
                        *d = v;
                    }
                    let out = &mut *push.out;
                    let i =
                        Self::push_listed::<true>(m, st, n, nx.fid, start..end, me, out, &mut p);
                    if i == end {
                        continue;
                    }
                    locals[slot as usize] = v;
                    if !self.narrowed_rest(
                        m,
                        st,
                        opts,
                        k,
                        nx,
                        pos,
                        Some(i..end),
                        locals,
                        me,
                        push,
                    )? {
                        return Ok(false);
                    }
                    continue;
                }
                locals[slot as usize] = v;
                if !self.narrowed_rest(m, st, opts, k, nx, pos, None, locals, me, push)? {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// [`Game::narrowed_push`] the general way for position `pos` (bound): the elements
    /// `rest` of its list, or its list read or listed and walked when `None`. Out of line, so
    /// that the loop that calls it stays small.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(super) fn narrowed_rest(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        nx: &NextListed,
        pos: u32,
        rest: Option<std::ops::Range<usize>>,
        locals: &mut [Value],
        me: u8,
        push: &mut Push,
    ) -> Eval<bool> {
        match rest {
            Some(r) => {
                let len = r.end - r.start;
                self.bind_leaf_listed(m, st, nx.leaf, nx.fid, r.start, len, locals, me, push)
            }
            None => self.bind_next_listed(m, st, opts, k + 1, nx, pos, locals, me, push),
        }
    }

    /// When binding `k + 1` is the last and is read from a remembered list, what binding `k`
    /// (narrowed) can find once for all its positions: the list's table, its key as
    /// `base + pos * step` for position `pos` of binding `k` (below `bound`), the parts
    /// tested once binding `k` is bound and the last binding's slot and parts.
    pub(super) fn next_listed<'o>(
        &self,
        st: &State,
        opts: &'o COptions,
        k: usize,
        locals: &[Value],
        me: u8,
    ) -> Option<NextListed<'o>> {
        let next = opts.binds.get(k + 1)?;
        let fid = next.filter?;
        if next.narrow.is_some() || k + 2 != opts.binds.len() || st.frozen == 0 {
            return None;
        }
        let def = &self.program.filters[fid as usize];
        let this = opts.binds[k].slot;
        let (mut base, mut step, mut bound) = (if def.key.me { me as u32 } else { 0 }, 0, u32::MAX);
        for &(slot, size) in &def.key.keys {
            if slot == this {
                base *= size;
                step = step * size + 1;
                bound = bound.min(size);
            } else {
                let p = locals
                    .get(slot as usize)
                    .copied()
                    .and_then(Program::position)?;
                if p >= size {
                    return None;
                }
                base = base * size + p;
                step *= size;
            }
        }
        let pre = match (opts.starts.get(k + 1), opts.starts.get(k + 2)) {
            (Some(&a), Some(&b)) => opts.parts.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        };
        Some(NextListed {
            fid,
            base,
            step,
            bound,
            pre,
            leaf: (next.slot as usize, self.leaf_parts(opts, k + 1)),
        })
    }

    /// [`Game::bind_next`] for the last binding `k`, with what [`Game::next_listed`] found
    /// and the position `pos` of the binding before it.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn bind_next_listed<F: Take>(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        nx: &NextListed,
        pos: u32,
        locals: &mut [Value],
        me: u8,
        f: &mut F,
    ) -> Eval<bool> {
        for part in nx.pre {
            if !m.part(self, st, part, locals, me)? {
                return Ok(true);
            }
        }
        let list = if pos < nx.bound {
            let key = nx.base + pos * nx.step;
            match m.listed(self, st, nx.fid, key) {
                Some(l) => Some(l),
                None => self.fill_list(m, st, opts, k, nx.fid, key, locals, me)?,
            }
        } else {
            None
        };
        match list {
            Some((start, len)) => {
                self.bind_leaf_listed(m, st, nx.leaf, nx.fid, start, len, locals, me, f)
            }
            None => self.bind_walk(m, st, opts, k, locals, me, f),
        }
    }
}

/// What a narrowed binding finds once about the last binding after it, read from a
/// remembered list ([`Game::next_listed`]).
pub(super) struct NextListed<'o> {
    pub(super) fid: u32,
    pub(super) base: u32,
    pub(super) step: u32,
    pub(super) bound: u32,
    pub(super) pre: &'o [Part],
    pub(super) leaf: (usize, &'o [Part]),
}
