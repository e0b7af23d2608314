//! Procedures to steps, and the plans for listing options: bindings, guard parts, and the
//! bindings a variable's value index can narrow.

use super::Compiler;
use crate::ir::vm::*;
use crate::ir::*;

mod filters;

impl Compiler<'_> {
    /// The bindings and guard of an action or of an inline option.
    pub(crate) fn options(
        &mut self,
        binds: &[Bind],
        parts: &[(u16, Expr)],
        guard: Option<&Expr>,
    ) -> COptions {
        let mut out = COptions {
            binds: Vec::with_capacity(binds.len()),
            parts: Vec::with_capacity(parts.len()),
            starts: Vec::with_capacity(binds.len() + 2),
            guard: guard.map(|g| self.expr(g)),
            scan: None,
            same: None,
        };
        let mut narrowed = vec![false; parts.len()];
        for (k, b) in binds.iter().enumerate() {
            let coll = self.coll(&b.coll);
            let mut narrow = None;
            for (i, (need, part)) in parts.iter().enumerate() {
                if narrow.is_none() && !narrowed[i] && *need as usize == k + 1 {
                    if let Some((var, value)) = self.narrowing(b, part) {
                        let value = self.expr(value);
                        narrow = Some(Narrow { var, value });
                        narrowed[i] = true;
                    }
                }
            }
            out.binds.push(CBind {
                slot: b.slot,
                coll,
                dedup: matches!(b.coll, Coll::Zone(_)),
                narrow,
                filter: None,
                scan: false,
                same: false,
            });
        }
        // The source of each part kept, for the `if` parts a remembered list may split.
        let mut exprs = Vec::with_capacity(parts.len());
        // The parts `not empty(zone)` led in by [`Compiler::nonempty`], and their zones.
        let mut leads = Vec::new();
        // Grouped by the bindings they need (a stable sort: the guard's order within a
        // group, which is the order they are tested in).
        let mut order: Vec<usize> = (0..parts.len()).collect();
        order.sort_by_key(|&i| parts[i].0);
        for i in order {
            let (need, part) = &parts[i];
            if !narrowed[i] {
                if let Some((code, zone)) = self.nonempty(binds, part) {
                    leads.push((out.parts.len(), zone));
                    out.parts.push(Part {
                        need: *need,
                        code,
                        memo: None,
                        absorbed: false,
                        split: None,
                    });
                    exprs.push(part);
                }
                let code = self.expr(part);
                let memo = self.memo(binds, part);
                out.parts.push(Part {
                    need: *need,
                    code,
                    memo,
                    absorbed: false,
                    split: None,
                });
                exprs.push(part);
            }
        }
        for k in 0..binds.len() {
            if out.binds[k].narrow.is_none() {
                out.binds[k].filter = self.filter(binds, k, &mut out.parts, &exprs);
            }
        }
        for k in 0..=binds.len() + 1 {
            let start = out
                .parts
                .iter()
                .take_while(|p| (p.need as usize) < k)
                .count();
            out.starts.push(start as u32);
        }
        let last = out.starts.get(binds.len()).copied();
        if let Some(&(at, zone)) = leads.iter().find(|(at, _)| Some(*at as u32) == last) {
            out.scan = self.scan(binds, &out, at, zone);
            if let Some(first) = out
                .scan
                .as_ref()
                .and_then(|s| out.binds.get_mut(s.from as usize))
            {
                first.scan = true;
            }
        }
        out.same = self.same(binds, &out);
        if let Some(b) = out
            .same
            .as_ref()
            .and_then(|s| out.binds.get_mut(s.bind as usize))
        {
            b.same = true;
        }
        out
    }

    /// The [`Same`] of the first binding over a zone that the code run once it is bound
    /// reads only through fields and comparisons reading no other local. Not the last
    /// binding: the few parts tested on a value of the last cost about what finding that it
    /// reads the same as an earlier one costs.
    fn same(&self, binds: &[Bind], out: &COptions) -> Option<Same> {
        for (k, b) in binds.iter().enumerate().take(binds.len().saturating_sub(1)) {
            if !matches!(b.coll, Coll::Zone(_)) {
                continue;
            }
            // The parts tested once it is bound, the later bindings and their lists.
            let first = *out.starts.get(k + 1)? as usize;
            let mut codes = Vec::new();
            for part in out.parts.get(first..)? {
                codes.push(part.code);
                if let Some(sp) = part.split {
                    codes.extend([sp.then, sp.other]);
                }
            }
            for cb in out.binds.get(k + 1..)? {
                codes.push(cb.coll);
                if let Some(n) = cb.narrow {
                    codes.push(n.value);
                }
                if let Some(f) = cb.filter.and_then(|f| self.p.filters.get(f as usize)) {
                    codes.extend(f.parts.iter().chain(&f.splits).copied());
                }
            }
            if let Some(reads) = self.same_reads(b.slot, &codes) {
                return Some(Same {
                    bind: k as u16,
                    reads,
                });
            }
        }
        None
    }

    /// What `codes` read of local `slot`: its component's fields, and comparisons that
    /// read no other local. `None`: they read it otherwise (whole, as an index), write it,
    /// or call a function or walk a board (answers remembered from one use to the next,
    /// so that the work would not be the same).
    fn same_reads(&self, slot: u16, codes: &[Code]) -> Option<Vec<SameRead>> {
        let p = &self.p;
        let mut reads = Vec::new();
        let mut add = |r: SameRead| {
            if !reads.contains(&r) {
                reads.push(r);
            }
        };
        let pair = |slots: Option<[u16; 2]>| slots.is_none_or(|s| s.contains(&slot));
        for code in codes {
            for pc in code.start..code.end {
                match *p.ops.get(pc as usize)? {
                    Op::Local(l)
                    | Op::VarLocal(_, l)
                    | Op::ZoneLocal(_, l)
                    | Op::ZoneMeLocal(_, l)
                    | Op::SetLocal(l)
                    | Op::IterNext { slot: l, .. }
                        if l == slot =>
                    {
                        return None
                    }
                    Op::Var2(i) if pair(p.var2s.get(i as usize).map(|v| v.slots)) => return None,
                    Op::Zone2(i) if pair(p.zone2s.get(i as usize).map(|z| z.slots)) => return None,
                    Op::LocalField(l, f) if l == slot => add(SameRead::Field(f)),
                    Op::Cmp(i) => {
                        let c = p.cmps.get(i as usize)?;
                        let (mut mine, mut other) = (false, false);
                        for o in [c.a, c.b] {
                            operand_locals(p, o, &mut |l| {
                                if l == slot {
                                    mine = true
                                } else {
                                    other = true
                                }
                            })?;
                        }
                        if mine && !other {
                            add(SameRead::Cmp { i, pc });
                        } else if mine {
                            for o in [c.a, c.b] {
                                let mut reads = false;
                                operand_locals(p, o, &mut |l| reads |= l == slot)?;
                                match o {
                                    Operand::LocalField(l, f) if l == slot => {
                                        add(SameRead::Field(f))
                                    }
                                    _ if reads => return None,
                                    _ => {}
                                }
                            }
                        }
                    }
                    Op::Call(_)
                    | Op::IterPaths(_)
                    | Op::IterGroup(_)
                    | Op::IterGroups(_)
                    | Op::Line(_)
                    | Op::BestSets(_)
                    | Op::Connected(_)
                    | Op::Majority(_) => return None,
                    _ => {}
                }
            }
        }
        (reads.len() <= Same::MAX_READS).then_some(reads)
    }

    /// The [`Scan`] of the last bindings when part `at` is `not empty(zone)` (from
    /// [`Compiler::nonempty`]), the first part tested once all are bound, and the zone's
    /// indexes are those bindings, in order, each over an enum, the players or a board
    /// (walked whole: no value index, no remembered list that drops or answers anything),
    /// with no part tested between them.
    fn scan(&self, binds: &[Bind], out: &COptions, at: usize, zone: &Expr) -> Option<Scan> {
        let Expr::Zone(z, ix) = zone else {
            return None;
        };
        let n = binds.len();
        let from = n.checked_sub(ix.len())?;
        let part = out.parts.get(at)?;
        if ix.is_empty()
            || part.need as usize != n
            || out.starts.get(n).copied() != Some(at as u32)
            || out.starts.get(from + 1).copied() != Some(at as u32)
            || part.memo.is_some()
            || part.absorbed
            || part.split.is_some()
        {
            return None;
        }
        let def = &self.g.zones[*z];
        let mut dims = Vec::with_capacity(ix.len());
        for (i, (x, b)) in ix.iter().zip(&binds[from..]).enumerate() {
            let cb = &out.binds[from + i];
            if !matches!(x, Expr::Local(l) if *l == b.slot) || cb.narrow.is_some() {
                return None;
            }
            if let Some(fid) = cb.filter {
                let f = &self.p.filters[fid as usize];
                if !f.parts.is_empty() || !f.splits.is_empty() || !f.key.keys.is_empty() {
                    return None;
                }
            }
            let dim = match (&b.coll, def.dims.get(i)?) {
                (Coll::Enum(e), Dim::Enum(d)) if e == d => ScanDim::Enum(*e),
                (Coll::Players, Dim::Player) => ScanDim::Players,
                (Coll::Board(b), Dim::Board(d)) if b == d => ScanDim::Board(*b),
                _ => return None,
            };
            let stride = def
                .sizes
                .get(i + 1..)?
                .iter()
                .try_fold(1u32, |a, s| a.checked_mul(*s))?;
            dims.push((dim, stride));
        }
        Some(Scan {
            from: from as u16,
            base: def.base.0,
            dims,
        })
    }

    pub(crate) fn choice(&mut self, ch: &Choice) -> CChoice {
        CChoice {
            by: ch.by.as_ref().map(|e| self.expr(e)),
            each: ch.each.as_ref().map(|(b, _)| (self.coll(&b.coll), b.slot)),
            arms: ch
                .arms
                .iter()
                .map(|a| match a {
                    Arm::Action(_) => None,
                    Arm::Inline {
                        binds,
                        guard,
                        guard_parts,
                        ..
                    } => Some(self.options(binds, guard_parts, guard.as_ref())),
                })
                .collect(),
        }
    }

    fn target(&mut self, t: &LValue) -> Target {
        match t {
            LValue::Local(l) => Target::Local(*l),
            LValue::Var { var, index } => Target::Var {
                var: *var,
                index: self.exprs(index),
            },
            LValue::Field { comp, field, .. } => Target::Field {
                comp: self.expr(comp),
                field: *field,
            },
        }
    }

    pub(crate) fn proc(&mut self, code: &[Instr]) -> Vec<Step> {
        code.iter()
            .map(|i| match i {
                Instr::Let(slot, e, span) => Step::Let(*slot, self.expr(e), *span),
                Instr::Assign {
                    target,
                    op,
                    value,
                    span,
                } => Step::Assign {
                    target: self.target(target),
                    op: *op,
                    value: self.expr(value),
                    span: *span,
                },
                Instr::Move {
                    what,
                    to,
                    bottom,
                    span,
                } => Step::Move {
                    what: self.expr(what),
                    to: self.expr(to),
                    bottom: *bottom,
                    span: *span,
                },
                Instr::Deal {
                    count,
                    from,
                    to,
                    bottom,
                    span,
                } => Step::Deal {
                    count: count.as_ref().map(|c| self.expr(c)),
                    from: self.expr(from),
                    to: self.expr(to),
                    bottom: *bottom,
                    span: *span,
                },
                Instr::Shuffle { zone, span } => Step::Shuffle {
                    zone: self.expr(zone),
                    span: *span,
                },
                Instr::Roll {
                    target,
                    domain,
                    span,
                } => Step::Roll {
                    target: self.target(target),
                    domain: self.coll(domain),
                    span: *span,
                },
                Instr::Jump(t) => Step::Jump(*t),
                Instr::JumpIfNot(c, t, span) => Step::JumpIfNot(self.expr(c), *t, *span),
                Instr::ForInit { coll, slot, span } => Step::ForInit {
                    coll: self.coll(coll),
                    slot: *slot,
                    span: *span,
                },
                Instr::ForNext { slot, var, exit } => Step::ForNext {
                    slot: *slot,
                    var: *var,
                    exit: *exit,
                },
                Instr::ForDone { slot } => Step::ForDone { slot: *slot },
                Instr::Choose(c) => Step::Choose(*c),
                Instr::SimNext(c) => Step::SimNext(*c),
                Instr::Simul {
                    coll,
                    slot,
                    end,
                    span,
                } => Step::Simul {
                    coll: self.coll(coll),
                    slot: *slot,
                    end: *end,
                    span: *span,
                },
                Instr::SimulEnd => Step::SimulEnd,
                Instr::Do { action, args, span } => Step::Do {
                    action: *action,
                    args: args.iter().map(|a| self.expr(a)).collect(),
                    span: *span,
                },
                Instr::DoField { target, args, span } => Step::DoField {
                    target: self.expr(target),
                    args: args.iter().map(|a| self.expr(a)).collect(),
                    span: *span,
                },
                Instr::TurnStart { player, save, span } => Step::TurnStart {
                    player: self.expr(player),
                    save: *save,
                    span: *span,
                },
                Instr::TurnEnd { save } => Step::TurnEnd { save: *save },
                Instr::End(k) => Step::End(*k),
                Instr::Win { who, span } => Step::Win {
                    who: self.expr(who),
                    span: *span,
                },
                Instr::Reveal {
                    comp,
                    field,
                    on,
                    span,
                } => Step::Reveal {
                    comp: self.expr(comp),
                    field: *field,
                    on: *on,
                    span: *span,
                },
                Instr::RevealZone { zone, on, span } => Step::RevealZone {
                    zone: self.expr(zone),
                    on: *on,
                    span: *span,
                },
                Instr::Remember {
                    memory,
                    parts,
                    span,
                } => Step::Remember {
                    memory: *memory,
                    parts: parts.iter().map(|x| self.expr(x)).collect(),
                    span: *span,
                },
                Instr::Forget { memory } => Step::Forget { memory: *memory },
                Instr::RevealTo {
                    comp,
                    field,
                    to,
                    span,
                } => Step::RevealTo {
                    comp: self.expr(comp),
                    field: *field,
                    to: self.expr(to),
                    span: *span,
                },
                Instr::LoopGuard { span } => Step::LoopGuard { span: *span },
                Instr::Window(before) => Step::Window(*before),
            })
            .collect()
    }
}

/// Calls `f` with each local an operand reads (`None`: an operand this does not know).
fn operand_locals(p: &Program, o: Operand, f: &mut impl FnMut(u16)) -> Option<()> {
    let slots: &[u16] = match o {
        Operand::Local(l)
        | Operand::LocalField(l, _)
        | Operand::VarAt { slot: l, .. }
        | Operand::ZoneLen(ZoneAt::Local { slot: l, .. })
        | Operand::TopField(ZoneAt::Local { slot: l, .. }, _) => {
            f(l);
            return Some(());
        }
        Operand::ZoneLen(ZoneAt::Local2(i)) | Operand::TopField(ZoneAt::Local2(i), _) => {
            &p.zone2s.get(i as usize)?.slots
        }
        Operand::Var2(i) => &p.var2s.get(i as usize)?.slots,
        Operand::ZoneLen(ZoneAt::Inst(_))
        | Operand::TopField(ZoneAt::Inst(_), _)
        | Operand::Me
        | Operand::None
        | Operand::Int(_)
        | Operand::Lit(_)
        | Operand::Const(_)
        | Operand::Slot(_) => &[],
    };
    slots.iter().for_each(|l| f(*l));
    Some(())
}
