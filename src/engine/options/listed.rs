//! The guard's last parts tested per option as they are listed (`bind_leaf_listed`), and
//! remembered lists of a binding's elements with their answers (`Listed`, filled and filtered).

use super::*;

impl Game {
    /// The parts tested once the last binding `k` is bound, when it is read from a remembered
    /// list: the parts the list absorbed lead their group and are passed over.
    pub(super) fn leaf_parts<'o>(&self, opts: &'o COptions, k: usize) -> &'o [Part] {
        let parts = match (opts.starts.get(k + 1), opts.starts.get(k + 2)) {
            (Some(&a), Some(&b)) => opts.parts.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        };
        let lead = parts.iter().take_while(|p| p.absorbed).count();
        &parts[lead..]
    }

    /// The last binding, at `slot`, read from its remembered list (`start`, `len`) in table
    /// `fid`: each element that passes `parts` (its [`Game::leaf_parts`]) goes to `f`. Of the
    /// parts the list splits only the branch the element's answer chooses is tested.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn bind_leaf_listed<F: Take>(
        &self,
        m: &mut Machine,
        st: &State,
        (slot, parts): (usize, &[Part]),
        fid: u32,
        start: usize,
        len: usize,
        locals: &mut [Value],
        me: u8,
        f: &mut F,
    ) -> Eval<bool> {
        let end = start + len;
        let mut i = start;
        // Pushed at once from the first element on when that one's parts are resolved.
        let resolved = match m.filters[fid as usize].elems.get(start) {
            Some(e) => e.skip as usize == parts.len(),
            None => false,
        };
        if let (true, Some((out, arm, binds))) = (resolved, f.push()) {
            if let Some(mut p) = Pushing::new(arm, binds, slot, locals) {
                i = Self::push_listed::<false>(
                    m,
                    st,
                    parts.len(),
                    fid,
                    start..end,
                    me,
                    out,
                    &mut p,
                );
            }
        }
        // The parts after the first, for an element whose first part is resolved.
        let rest = parts.get(1..).unwrap_or(&[]);
        for i in i..end {
            m.spend(None)?;
            let e = m.filters[fid as usize].elems[i];
            // The first part, resolved when the list was filled, is one read of the state.
            let skip = match e.holds(st, me) {
                Some(false) => continue,
                Some(true) => e.skip != 0,
                None => false,
            };
            locals[slot] = e.value;
            let mut pass = true;
            for part in if skip { rest } else { parts } {
                if !self.part_holds(m, st, part, Some(e.bits), locals, me)? {
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

    /// [`Game::bind_leaf_listed`] when each binding that passes is pushed as an option onto
    /// `out` (`p`: the option, its other parameters filled): the elements of `range` whose
    /// parts (`n` of them) are all answered by the part they resolved are tested and pushed
    /// here, without the general machinery, until one is not (or the work budget is spent:
    /// the general loop reports it). Returns where that loop takes over. `CALLER_TEMPLATE`:
    /// `p` lives in a caller's loop, and each option is copied from it into the list rather
    /// than pushed (which copies it to the stack first).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn push_listed<const CALLER_TEMPLATE: bool>(
        m: &mut Machine,
        st: &State,
        n: usize,
        fid: u32,
        range: std::ops::Range<usize>,
        me: u8,
        out: &mut Vec<Action>,
        p: &mut Pushing,
    ) -> usize {
        let mut i = range.start;
        let Machine { filters, fuel, .. } = m;
        let Some(elems) = filters.get(fid as usize).and_then(|t| t.elems.get(range)) else {
            return i;
        };
        for e in elems {
            if *fuel == 0 {
                break;
            }
            let pass = match e.holds(st, me) {
                Some(pass) if e.skip as usize == n => pass,
                _ => break,
            };
            *fuel -= 1;
            i += 1;
            if pass {
                if let Some(d) = p.option.args.get_mut(p.leaf) {
                    *d = e.value;
                }
                if CALLER_TEMPLATE {
                    // The caller's template copied straight into the list.
                    out.extend_from_slice(std::slice::from_ref(&p.option));
                } else {
                    out.push(p.option);
                }
            }
        }
        i
    }

    /// Whether the guard parts tested once binding `k - 1` is bound hold (`filtered`: the
    /// parts absorbed by its remembered list are known to hold and are skipped, and of the
    /// `if` parts it splits only the branch its answers choose is tested).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn parts_hold(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        filtered: Option<u32>,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<bool> {
        let (Some(&start), Some(&end)) = (opts.starts.get(k), opts.starts.get(k + 1)) else {
            return Ok(true);
        };
        for part in opts.parts.get(start as usize..end as usize).unwrap_or(&[]) {
            if !self.part_holds(m, st, part, filtered, locals, me)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether one guard part holds; `filtered`: the answers of the remembered list the
    /// value was read from (a part it absorbed holds, and of an `if` part it splits only
    /// the branch its answer chooses is tested).
    #[inline(always)]
    pub(super) fn part_holds(
        &self,
        m: &mut Machine,
        st: &State,
        part: &Part,
        filtered: Option<u32>,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<bool> {
        match (filtered, part.split) {
            (Some(_), _) if part.absorbed => Ok(true),
            (Some(bits), Some(sp)) => {
                let code = if bits >> sp.bit & 1 != 0 {
                    sp.then
                } else {
                    sp.other
                };
                m.test(self, st, code, locals, me)
            }
            _ => m.part(self, st, part, locals, me),
        }
    }

    /// The remembered list of binding `k` for the key the earlier bindings and `me` make
    /// (listed now if it is not yet): the elements of its collection that pass the parts it
    /// absorbed, in the collection's order, as (start, length) in the machine's table.
    /// `None`: no list applies (setup is running, a key is out of its domain, or listing
    /// failed: the plain walk then meets the same elements and errors in order).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn filter_list(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        fid: u32,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<Option<(usize, usize)>> {
        if st.frozen == 0 {
            return Ok(None);
        }
        let def = &self.program.filters[fid as usize];
        let mut key: u32 = if def.key.me { me as u32 } else { 0 };
        for &(slot, size) in &def.key.keys {
            match locals
                .get(slot as usize)
                .copied()
                .and_then(Program::position)
            {
                Some(p) if p < size => key = key * size + p,
                _ => return Ok(None),
            }
        }
        if let Some(list) = m.listed(self, st, fid, key) {
            return Ok(Some(list));
        }
        self.fill_list(m, st, opts, k, fid, key, locals, me)
    }

    /// [`Game::filter_list`] for a list not yet listed: lists it.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(super) fn fill_list(
        &self,
        m: &mut Machine,
        st: &State,
        opts: &COptions,
        k: usize,
        fid: u32,
        key: u32,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<Option<(usize, usize)>> {
        let def = &self.program.filters[fid as usize];
        m.own(self, st);
        let fi = fid as usize;
        if m.filters.len() <= fi {
            m.filters.resize_with(fi + 1, Default::default);
        }
        let table = &mut m.filters[fi];
        if table.lists.is_empty() {
            table.lists.resize(def.key.entries as usize, (0, u32::MAX));
        }
        match table.lists.get(key as usize) {
            Some(&(start, len)) if len != u32::MAX => {
                return Ok(Some((start as usize, len as usize)))
            }
            Some(_) => {}
            None => return Ok(None),
        }
        FILLS.with(|n| n.set(n.get() + 1));
        let b = &opts.binds[k];
        // The last binding's elements resolve the first part tested on them.
        let leaf = if k + 1 == opts.binds.len() {
            self.leaf_parts(opts, k)
        } else {
            &[]
        };
        let start = table.elems.len();
        let (iters, stack) = (m.iters.len(), m.stack.len());
        let saved = locals[b.slot as usize];
        let mut walk = || -> Eval<()> {
            m.start(self, st, b.coll, locals, me)?;
            while let Some(v) = m.next(self, st, None)? {
                locals[b.slot as usize] = v;
                let mut pass = true;
                for code in &def.parts {
                    if !m.eval_bool(self, st, *code, locals, me)? {
                        pass = false;
                        break;
                    }
                }
                if pass {
                    let mut bits = 0u32;
                    for (j, code) in def.splits.iter().enumerate() {
                        if m.eval_bool(self, st, *code, locals, me)? {
                            bits |= 1 << j;
                        }
                    }
                    let e = self.listed_elem(st, leaf, b.slot, v, bits);
                    m.filters[fi].elems.push(e);
                }
            }
            Ok(())
        };
        let walked = walk();
        locals[b.slot as usize] = saved;
        let table = &mut m.filters[fi];
        if walked.is_err() {
            table.elems.truncate(start);
            while m.iters.len() > iters {
                m.stop();
            }
            m.stack.truncate(stack);
            return Ok(None);
        }
        let len = table.elems.len() - start;
        table.lists[key as usize] = (start as u32, len as u32);
        Ok(Some((start, len)))
    }

    /// The element `v` (with the answers `bits` to its list's split conditions) of a
    /// remembered list of the binding at `slot`, tested on `parts` once listed (its
    /// [`Game::leaf_parts`], none unless it is the last binding): the first of them resolved
    /// when it is a fast comparison of `var[slot]` against `me`, `none` or a number, or
    /// `count(zone[slot])` against a number (for a split part, of the branch `bits` choose),
    /// which reads the same slot for every state of the match.
    pub(super) fn listed_elem(
        &self,
        st: &State,
        parts: &[Part],
        slot: u16,
        v: Value,
        bits: u32,
    ) -> Listed {
        let none = Listed {
            value: v,
            bits,
            at: 0,
            n: 0,
            test: Listed::PASS,
            op: BinOp::Eq,
            skip: 0,
        };
        let Some(part) = parts.first().filter(|p| !p.absorbed) else {
            return none;
        };
        let code = match part.split {
            Some(sp) if bits >> sp.bit & 1 != 0 => sp.then,
            Some(sp) => sp.other,
            None if part.memo.is_none() => part.code,
            None => return none,
        };
        let p = &self.program;
        let cmp = match p.ops.get(code.start as usize) {
            Some(Op::Cmp(i)) if code.end == code.start + 1 => p.fast.get(*i as usize),
            _ => None,
        };
        let (at, test, op, n) = match *cmp.unwrap_or(&FastCmp::Other) {
            FastCmp::AtMe { at, ne } => (at, Listed::IS_ME + ne as u8, BinOp::Eq, 0),
            FastCmp::AtNone { at, ne } => (at, Listed::IS_NONE + ne as u8, BinOp::Eq, 0),
            FastCmp::AtInt { at, n, op } => (at, Listed::INT, op, n),
            FastCmp::LenInt {
                z: ZoneAt::Local { base, size, slot },
                n,
                op,
            } => (At { base, size, slot }, Listed::LEN, op, n),
            _ => return none,
        };
        let Some(pos) = Program::position(v).filter(|&p| at.slot == slot && p < at.size as u32)
        else {
            return none;
        };
        let at = at.base + pos;
        let within = match test {
            Listed::LEN => (at as usize) < self.instances.len(),
            _ => (at as usize) < st.vars.len(),
        };
        if !within {
            return none;
        }
        Listed {
            at,
            n,
            test,
            op,
            skip: 1,
            ..none
        }
    }
}

/// One element of a remembered list ([`crate::engine::vm::FilterTable`]): its value, its answers to
/// the list's split conditions and, on the last binding's lists, the first part tested on
/// it resolved to one read of the state ([`Game::listed_elem`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Listed {
    pub(crate) value: Value,
    pub(crate) bits: u32,
    /// The variable slot the resolved part reads.
    at: u32,
    /// The number it is compared with ([`Listed::INT`], [`Listed::LEN`]).
    n: i32,
    /// What the resolved part asks of it ([`Listed::PASS`]: none resolved).
    test: u8,
    /// The comparison ([`Listed::INT`], [`Listed::LEN`]).
    op: BinOp,
    /// The parts the resolved one answers (0 or 1: the first of the element's parts): the
    /// rest are tested in full.
    skip: u8,
}

impl Listed {
    pub(super) const PASS: u8 = 0;
    pub(super) const IS_ME: u8 = 1;
    pub(super) const NOT_ME: u8 = 2;
    pub(super) const IS_NONE: u8 = 3;
    pub(super) const NOT_NONE: u8 = 4;
    /// `var[slot] op n`, the variable at `at` (true only when it holds a number).
    pub(super) const INT: u8 = 5;
    /// `count(zone[slot]) op n`, the zone instance `at`.
    pub(super) const LEN: u8 = 6;

    /// The resolved part's answer (`Some(true)` when none is resolved; `None`: its slot is
    /// not in the state, left to the full test).
    #[inline(always)]
    pub(super) fn holds(&self, st: &State, me: u8) -> Option<bool> {
        let var = || st.vars.get(self.at as usize);
        Some(match self.test {
            Listed::PASS => true,
            Listed::IS_ME => matches!(*var()?, Value::Player(p) if p == me),
            Listed::NOT_ME => !matches!(*var()?, Value::Player(p) if p == me),
            Listed::IS_NONE => matches!(*var()?, Value::None),
            Listed::NOT_NONE => !matches!(*var()?, Value::None),
            Listed::INT => match *var()? {
                Value::Int(x) => int_cmp(self.op, x, self.n as i64)?,
                _ => return None,
            },
            Listed::LEN => int_cmp(self.op, st.zones.len(InstId(self.at)) as i64, self.n as i64)?,
            _ => return None,
        })
    }
}
