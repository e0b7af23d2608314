//! Binding an action's parameters one at a time: the general loop over a collection, a
//! binding whose values are scanned from an index (`bind_scan`), walked over a zone, and
//! bindings of interchangeable values (`Same`) offered once.

use super::*;

impl Game {
    /// Lists the options of arm `arm` (`opts`) into `sink`: pushed onto its list, or handed
    /// to its function, which sets `go_on` (false: stop listing).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn bind_into(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        locals: &mut [Value],
        me: u8,
        arm: usize,
        sink: &mut Sink,
        go_on: &mut bool,
    ) -> Eval<bool> {
        match sink {
            Sink::List(out) => {
                let mut push = Push {
                    out,
                    arm: arm as u16,
                    binds: &opts.binds,
                };
                self.bind(m, st, opts, 0, locals, me, &mut push)
            }
            Sink::Each(f) => {
                let mut take = each(|_, l| {
                    *go_on = f(action_of(arm, l, &opts.binds));
                    Ok(*go_on)
                });
                self.bind(m, st, opts, 0, locals, me, &mut take)
            }
        }
    }

    /// Enumerates every binding of `opts` from binding `k` on that passes its guard, testing
    /// each part of the guard as soon as the bindings it reads are bound.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn bind<F: Take>(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        locals: &mut [Value],
        me: u8,
        f: &mut F,
    ) -> Eval<bool> {
        self.bind_k(m, st, opts, k, None, locals, me, f)
    }

    /// [`Game::bind`]; `filtered`: binding `k - 1` came from a remembered list, so the parts
    /// it absorbed are known to hold, and these are the list's answers to the conditions of
    /// the parts it splits.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn bind_k<F: Take>(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        filtered: Option<u32>,
        locals: &mut [Value],
        me: u8,
        f: &mut F,
    ) -> Eval<bool> {
        if !self.parts_hold(m, st, opts, k, filtered, locals, me)? {
            return Ok(true);
        }
        self.bind_at(m, st, opts, k, locals, me, f)
    }

    /// [`Game::bind_k`] once the parts tested before binding `k` hold: binding `k` and on.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn bind_at<F: Take>(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        locals: &mut [Value],
        me: u8,
        f: &mut F,
    ) -> Eval<bool> {
        let Some(b) = opts.binds.get(k) else {
            return f.take(m, locals);
        };
        if let (true, Some(scan)) = (b.scan, &opts.scan) {
            if let Some(go) = self.bind_scan(m, st, opts, scan, locals, me, f)? {
                return Ok(go);
            }
        }
        // The last binding calls `f` from its loop instead of through one more level.
        let leaf = k + 1 == opts.binds.len();
        if let Some(n) = b.narrow {
            return self.bind_narrowed(m, st, opts, k, n, locals, me, f);
        }
        if let Some(fid) = b.filter {
            if let Some((start, len)) = self.filter_list(m, st, opts, k, fid, locals, me)? {
                if leaf {
                    let leaf = (b.slot as usize, self.leaf_parts(opts, k));
                    return self.bind_leaf_listed(m, st, leaf, fid, start, len, locals, me, f);
                }
                for i in start..start + len {
                    m.spend(None)?;
                    let e = m.filters[fid as usize].elems[i];
                    locals[b.slot as usize] = e.value;
                    let bits = Some(e.bits);
                    if !self.bind_k(m, st, opts, k + 1, bits, locals, me, f)? {
                        return Ok(false);
                    }
                }
                return Ok(true);
            }
        }
        self.bind_walk(m, st, opts, k, locals, me, f)
    }

    /// [`Game::bind_at`] for the bindings of `scan`, from its first on: their values are
    /// walked in order, nested, as the general way walks them, and the units of work it
    /// spends on them (one a value) are counted, but a value whose instance of the zone is
    /// empty (the first part tested, `not empty(zone[..])`, false: it reads nothing that can
    /// fail and spends no work) is passed over in place. Before the other parts are tested
    /// on a value, the units counted so far are spent, so that the work left when they run
    /// and the point where the budget runs out are as in the general way. `None`: a binding's
    /// remembered list is not listed yet (the general way lists it, spending its work).
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(super) fn bind_scan<F: Take>(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        scan: &Scan,
        locals: &mut [Value],
        me: u8,
        f: &mut F,
    ) -> Eval<Option<bool>> {
        let from = scan.from as usize;
        let binds = opts.binds.get(from..).unwrap_or(&[]);
        for b in binds {
            if let Some(fid) = b.filter {
                if st.frozen == 0 || m.listed(self, st, fid, 0).is_none() {
                    return Ok(None);
                }
            }
        }
        // The last instance walked lies within the state's (as it does for a zone whose
        // dimensions are these collections': else the general way tells what is wrong).
        let mut last = scan.base as u64;
        for &(dim, stride) in &scan.dims {
            let len = match dim {
                ScanDim::Enum(e) => self.enums[e].values.len() as u64,
                ScanDim::Players => st.players as u64,
                ScanDim::Board(bd) => self.boards[bd].len() as u64,
            };
            last += len.saturating_sub(1) * stride as u64;
        }
        if last >= st.zones.instances() as u64 {
            return Ok(None);
        }
        let n = opts.binds.len();
        let (Some(&first), Some(&end)) = (opts.starts.get(n), opts.starts.get(n + 1)) else {
            return Ok(None);
        };
        let mut walk = ScanWalk {
            rest: opts
                .parts
                .get(first as usize + 1..end as usize)
                .unwrap_or(&[]),
            counted: 0,
            spent: 0,
        };
        let go = self.scan_dim(m, st, scan, binds, 0, scan.base, &mut walk, locals, me, f)?;
        if go {
            walk.spend(m, walk.counted)?;
        }
        Ok(Some(go))
    }

    /// Dimension `d` of [`Game::bind_scan`]: the values of `binds[d]` from instance `inst`
    /// of the zone on.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn scan_dim<F: Take>(
        &self,
        m: &mut Machine,
        st: &State,
        scan: &Scan,
        binds: &[CBind],
        d: usize,
        inst: u32,
        walk: &mut ScanWalk,
        locals: &mut [Value],
        me: u8,
        f: &mut F,
    ) -> Eval<bool> {
        let (Some(&(dim, stride)), Some(b)) = (scan.dims.get(d), binds.get(d)) else {
            return Ok(true);
        };
        let (len, closing) = match dim {
            ScanDim::Enum(e) => (self.enums[e].values.len() as u32, false),
            ScanDim::Players => (st.players as u32, false),
            ScanDim::Board(bd) => (self.boards[bd].len(), self.boards[bd].closing(&st.consts)),
        };
        let last = d + 1 == scan.dims.len();
        for pos in 0..len {
            if let ScanDim::Board(bd) = dim {
                if self.boards[bd].is_closed(pos, closing) {
                    continue;
                }
            }
            walk.counted += 1;
            let at = inst + pos * stride;
            if last && st.zones.len(InstId(at)) == 0 {
                continue;
            }
            locals[b.slot as usize] = match dim {
                ScanDim::Enum(e) => Value::Enum(e, pos as u16),
                ScanDim::Players => Value::Player(pos as u8),
                ScanDim::Board(bd) => Value::Space(bd, pos),
            };
            if !last {
                if !self.scan_dim(m, st, scan, binds, d + 1, at, walk, locals, me, f)? {
                    return Ok(false);
                }
                continue;
            }
            walk.spend(m, walk.counted)?;
            let mut pass = true;
            for part in walk.rest {
                if !self.part_holds(m, st, part, None, locals, me)? {
                    pass = false;
                    break;
                }
            }
            if pass && !f.take(m, locals)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// [`Game::bind_at`] when binding `k` is neither narrowed nor read from a remembered
    /// list: its collection walked, each value tested.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn bind_walk<F: Take>(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        locals: &mut [Value],
        me: u8,
        f: &mut F,
    ) -> Eval<bool> {
        let b = &opts.binds[k];
        if let (true, Some(same)) = (b.same, &opts.same) {
            return self.bind_walk_same(m, st, opts, k, same, locals, me, f);
        }
        let leaf = k + 1 == opts.binds.len();
        m.start(self, st, b.coll, locals, me)?;
        while let Some(v) = m.next_param(self, st, None)? {
            if b.dedup && self.offered_before(st, v, m.chooser) {
                continue;
            }
            locals[b.slot as usize] = v;
            let go = if leaf {
                !self.parts_hold(m, st, opts, k + 1, None, locals, me)? || f.take(m, locals)?
            } else {
                self.bind_next(m, st, opts, k + 1, locals, me, f)?
            };
            if !go {
                m.stop();
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// [`Game::bind_walk`] for the binding of `same`: when the options are pushed onto a
    /// list, a value that reads the same as an earlier one there ([`Same::reads`]) is not
    /// walked further: the options the earlier one listed are copied with this value in its
    /// place, and the work they cost is spent again (the general way when the budget left
    /// is smaller, or when a remembered list was filled meanwhile, which costs work once).
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(super) fn bind_walk_same<F: Take>(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        same: &Same,
        locals: &mut [Value],
        me: u8,
        f: &mut F,
    ) -> Eval<bool> {
        let b = &opts.binds[k];
        let leaf = k + 1 == opts.binds.len();
        let mut seen = [SameSeen::default(); 4];
        let mut n = 0;
        m.start(self, st, b.coll, locals, me)?;
        while let Some(v) = m.next(self, st, None)? {
            if b.dedup && self.offered_before(st, v, m.chooser) {
                continue;
            }
            locals[b.slot as usize] = v;
            let key = match f.push() {
                Some(_) => self.same_key(m, st, same, locals, me, v),
                None => None,
            };
            let found = key.and_then(|key| seen[..n].iter().find(|r| r.key == key));
            if let (Some(r), Some((out, ..))) = (found, f.push()) {
                if m.fuel >= r.work && r.end <= out.len() {
                    m.fuel -= r.work;
                    let from = out.len();
                    out.extend_from_within(r.start..r.end);
                    for o in &mut out[from..] {
                        if let Some(a) = o.args.get_mut(k) {
                            *a = v;
                        }
                    }
                    continue;
                }
            }
            let start = f.push().map(|(out, ..)| out.len());
            let (fuel, fills) = (m.fuel, FILLS.with(Cell::get));
            let go = if leaf {
                !self.parts_hold(m, st, opts, k + 1, None, locals, me)? || f.take(m, locals)?
            } else {
                self.bind_next(m, st, opts, k + 1, locals, me, f)?
            };
            if !go {
                m.stop();
                return Ok(false);
            }
            if let (Some(key), Some(start)) = (key, start) {
                if n < seen.len()
                    && FILLS.with(Cell::get) == fills
                    && !seen[..n].iter().any(|r| r.key == key)
                {
                    let end = f.push().map_or(start, |(out, ..)| out.len());
                    seen[n] = SameSeen {
                        key,
                        start,
                        end,
                        work: fuel - m.fuel,
                    };
                    n += 1;
                }
            }
        }
        Ok(true)
    }

    /// What the rest of the listing reads of value `v` of a [`Same`] binding (bound in
    /// `locals`); `None` when a read fails (the general way meets the failure in order).
    pub(super) fn same_key(
        &self,
        m: &mut Machine,
        st: &State,
        same: &Same,
        locals: &mut [Value],
        me: u8,
        v: Value,
    ) -> Option<[Value; Same::MAX_READS]> {
        let mut key = [Value::None; Same::MAX_READS];
        for (d, r) in key.iter_mut().zip(&same.reads) {
            *d = match *r {
                SameRead::Field(f) => {
                    let Value::Comp(c) = v else { return None };
                    *comp_field(self, st, c, f)?
                }
                SameRead::Cmp { i, pc } => Value::Bool(m.cmp(self, st, i, pc, locals, me).ok()?),
            };
        }
        Some(key)
    }

    /// [`Game::bind`] from binding `k` on (no earlier binding came from a remembered list).
    /// When `k` is the last binding and is read from a remembered list, its list is walked
    /// here, without one more call level per element of the binding before it.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn bind_next<F: Take>(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        locals: &mut [Value],
        me: u8,
        f: &mut F,
    ) -> Eval<bool> {
        match opts.binds.get(k) {
            Some(CBind {
                narrow: None,
                filter: Some(fid),
                scan: false,
                ..
            }) if k + 1 == opts.binds.len() => {
                if !self.parts_hold(m, st, opts, k, None, locals, me)? {
                    return Ok(true);
                }
                match self.filter_list(m, st, opts, k, *fid, locals, me)? {
                    Some((start, len)) => {
                        let leaf = (opts.binds[k].slot as usize, self.leaf_parts(opts, k));
                        self.bind_leaf_listed(m, st, leaf, *fid, start, len, locals, me, f)
                    }
                    // not listed (or its filling failed): walked plainly, not tried again
                    None => self.bind_walk(m, st, opts, k, locals, me, f),
                }
            }
            // All bound: the last parts, then the option.
            None => Ok(!self.parts_hold(m, st, opts, k, None, locals, me)? || f.take(m, locals)?),
            _ => self.bind_k(m, st, opts, k, None, locals, me, f),
        }
    }
}

/// The walk of a [`Game::bind_scan`]: the parts tested on a value whose instance is not
/// empty, and the units of work of the values walked (`counted`) and spent so far.
pub(super) struct ScanWalk<'p> {
    pub(super) rest: &'p [Part],
    pub(super) counted: u64,
    pub(super) spent: u64,
}

impl ScanWalk<'_> {
    /// Spends the units counted up to `to` not spent yet: at once when the budget pays for
    /// them, else one by one (the error of the one it cannot pay for, as in the general
    /// way).
    #[inline(always)]
    pub(super) fn spend(&mut self, m: &mut Machine, to: u64) -> Eval<()> {
        let k = to - self.spent;
        self.spent = to;
        if m.fuel >= k {
            m.fuel -= k;
            return Ok(());
        }
        for _ in 0..k {
            m.spend(None)?;
        }
        Ok(())
    }
}
