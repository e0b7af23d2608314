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
