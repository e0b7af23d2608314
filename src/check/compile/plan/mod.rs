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
            });
        }
        // The source of each part kept, for the `if` parts a remembered list may split.
        let mut exprs = Vec::with_capacity(parts.len());
        // Grouped by the bindings they need (a stable sort: the guard's order within a
        // group, which is the order they are tested in).
        let mut order: Vec<usize> = (0..parts.len()).collect();
        order.sort_by_key(|&i| parts[i].0);
        for i in order {
            let (need, part) = &parts[i];
            if !narrowed[i] {
                if let Some(code) = self.nonempty(binds, part) {
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
        out
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
            free_in: None,
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

    /// The steps of a procedure's code; `types`, what the procedure gives its locals
    /// ([`natives::slot_types`]; empty: nothing known), lets the expressions that walk
    /// collections run as native code.
    pub(crate) fn proc(&mut self, code: &[Instr], types: &[super::natives::SlotType]) -> Vec<Step> {
        code.iter()
            .map(|i| match i {
                Instr::Let(slot, e, span) => Step::Let(*slot, self.proc_expr(e, types), *span),
                Instr::Assign {
                    target,
                    op,
                    value,
                    span,
                } => Step::Assign {
                    target: self.target(target),
                    op: *op,
                    value: self.proc_expr(value, types),
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
                Instr::JumpIfNot(c, t, span) => {
                    Step::JumpIfNot(self.proc_expr(c, types), *t, *span)
                }
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
