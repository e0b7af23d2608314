//! Expressions of procedures that may run as native code ([`Op::Native`]): a condition, a
//! value assigned or let, that walks a collection (an aggregate), whose every local read
//! from outside it has a type the procedure gives it (an action's parameter, a loop's
//! element, a `let` of a simple value). The native code is built with the game's other
//! native code (`lir::listing`); each call checks its arguments against these types (an
//! argument of another type runs the ops instead), so a type guessed wrong here costs speed,
//! never a wrong answer.

use super::*;
use crate::ops::BinOp;

/// What a procedure tells of a local slot.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum SlotType {
    /// Nothing written to it.
    Unset,
    /// Every write to it is of this type.
    Known(Type),
    /// A write of a type not known, or writes of two types.
    Unknown,
}

/// The types the procedure `p` gives its local slots (`Unknown` for a slot written with
/// values of different types).
pub(crate) fn slot_types(g: &Game, p: ProcId) -> Vec<SlotType> {
    let proc = &g.procs[p];
    let mut t = vec![SlotType::Unset; proc.locals as usize];
    let set = |t: &mut Vec<SlotType>, slot: u16, ty: Option<Type>| {
        let Some(x) = t.get_mut(slot as usize) else {
            return;
        };
        *x = match (*x, ty) {
            (SlotType::Unset, Some(ty)) => SlotType::Known(ty),
            (SlotType::Known(a), Some(b)) if a == b => SlotType::Known(a),
            _ => SlotType::Unknown,
        };
    };
    for a in g.actions.iter().filter(|a| a.proc == p) {
        for b in &a.params {
            set(&mut t, b.slot, Some(b.ty));
        }
    }
    // The choices of this procedure (the others' bindings are other procedures' locals).
    let here: Vec<ChoiceId> = (proc.code.iter())
        .filter_map(|i| match i {
            Instr::Choose(c) => Some(*c),
            _ => None,
        })
        .collect();
    for ch in here.iter().map(|c| &g.choices[*c]) {
        for arm in &ch.arms {
            if let crate::ir::Arm::Inline { binds, .. } = arm {
                for b in binds {
                    set(&mut t, b.slot, Some(b.ty));
                }
            }
        }
        if let Some((b, _)) = &ch.each {
            set(&mut t, b.slot, Some(b.ty));
        }
    }
    // A loop's element: the type of its collection's elements, found at its `ForInit`.
    let mut loops: Vec<(u16, Option<Type>)> = vec![];
    for i in &proc.code {
        match i {
            Instr::ForInit { coll, slot, .. } => loops.push((*slot, elem_type(coll))),
            Instr::ForNext { slot, var, .. } => {
                let ty = loops
                    .iter()
                    .rev()
                    .find(|(s, _)| s == slot)
                    .and_then(|l| l.1);
                set(&mut t, *var, ty);
            }
            Instr::Let(slot, e, _) => {
                let ty = simple_type(g, e, &t);
                set(&mut t, *slot, ty);
            }
            Instr::Simul { slot, .. } => set(&mut t, *slot, Some(Type::Player)),
            Instr::Roll {
                target: crate::ir::LValue::Local(l),
                ..
            } => set(&mut t, *l, None),
            Instr::Assign {
                target: crate::ir::LValue::Local(l),
                value,
                ..
            } => {
                let ty = simple_type(g, value, &t);
                set(&mut t, *l, ty);
            }
            _ => {}
        }
    }
    t
}

/// The type of a collection's elements, when it is plain.
fn elem_type(c: &Coll) -> Option<Type> {
    Some(match c {
        Coll::Board(b) => Type::Space(*b),
        Coll::Players => Type::Player,
        Coll::Enum(e) => Type::Enum(*e),
        Coll::Range(..) => Type::Int,
        Coll::Type(t) => Type::Comp(*t),
        _ => return None,
    })
}

/// The type of a simple expression (a literal, a variable, a local of a known type,
/// arithmetic, a comparison), else `None`.
fn simple_type(g: &Game, e: &Expr, t: &[SlotType]) -> Option<Type> {
    Some(match e {
        Expr::Lit(v) => match *v {
            Value::Int(_) => Type::Int,
            Value::Bool(_) => Type::Bool,
            Value::Player(_) => Type::Player,
            Value::Space(b, _) => Type::Space(b),
            Value::Enum(en, _) => Type::Enum(en),
            _ => return None,
        },
        Expr::Me | Expr::Current => Type::Player,
        Expr::PlayerCount => Type::Int,
        Expr::Var(v, _) => g.vars[*v].ty,
        Expr::Local(l) => match t.get(*l as usize) {
            Some(SlotType::Known(ty)) => *ty,
            _ => return None,
        },
        Expr::Neg(_) => Type::Int,
        Expr::Not(_) => Type::Bool,
        Expr::Bin(op, ..) => match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod | BinOp::Pow => {
                Type::Int
            }
            _ => Type::Bool,
        },
        _ => return None,
    })
}

/// Fewer elements than this in a walk's collection, and the engine's own ways of walking
/// it cost less than a call into native code (an `all` over nine spaces ran 12% slower
/// called natively: docs/benchmarks.md).
const WORTH: u32 = 32;

/// Whether `a` is a `line` whose condition compares the walked space's entry of a variable
/// with `me`, a literal or another local: the engine reads the variable in place along the
/// line (`engine::vm::aggregates::lines`), for less than a call into native code costs
/// (Gomoku's line through the stone just placed ran at 0.87x called natively).
fn in_place(a: &crate::ir::Agg) -> bool {
    let (AggKind::Line, [b], Some(Expr::Bin(_, x, y, _))) = (a.kind, a.binds.as_slice(), &a.filter)
    else {
        return false;
    };
    let at_space = |e: &Expr| matches!(e, Expr::Var(_, ix) if matches!(ix.as_slice(), [Expr::Local(l)] if *l == b.slot));
    let fixed = |e: &Expr| {
        matches!(e, Expr::Me | Expr::Lit(_)) || matches!(e, Expr::Local(l) if *l != b.slot)
    };
    (at_space(x) && fixed(y)) || (at_space(y) && fixed(x))
}

/// The locals `e` reads that it does not bind, each with its type, when `e` walks a
/// collection worth a call into native code ([`WORTH`]: `connected`, paths, a board or a type
/// of many; not a `line` the engine reads in place ([`in_place`]), nor a group), reads no
/// `after`, and every such local has a known type.
pub(crate) fn native_params(g: &Game, e: &Expr, t: &[SlotType]) -> Option<Vec<(u16, Type)>> {
    let (mut walks, mut after) = (false, false);
    let mut bound: Vec<u16> = vec![];
    e.visit(&mut |x| match x {
        Expr::Agg(a, _) => {
            walks |= a.kind == AggKind::Connected;
            if in_place(a) {
                return;
            }
            for b in &a.binds {
                walks |= match &b.coll {
                    Coll::Board(bd) => g.boards[*bd].len() >= WORTH,
                    Coll::Type(ty) => {
                        g.comps.iter().filter(|c| c.ty == *ty).count() >= WORTH as usize
                    }
                    // Not a group: the engine keeps a group condition's answers from one
                    // group to the next on one state, which scoring a group per piece of a
                    // colour reuses (0.71x called natively: docs/benchmarks.md).
                    Coll::Paths { .. } => true,
                    _ => false,
                };
            }
        }
        Expr::After(_) => after = true,
        _ => {}
    });
    if !walks || after {
        return None;
    }
    e.bound_slots(&mut |s| bound.push(s));
    let mut params: Vec<(u16, Type)> = vec![];
    let mut ok = true;
    e.reads(&mut |l| {
        if bound.contains(&l) || params.iter().any(|(s, _)| *s == l) {
            return;
        }
        match t.get(l as usize) {
            Some(SlotType::Known(ty)) => params.push((l, *ty)),
            _ => ok = false,
        }
    });
    (ok && params.len() <= crate::ir::MAX_ARGS).then_some(params)
}

impl Compiler<'_> {
    /// An expression of a procedure: preceded by [`Op::Native`] when it may run as native
    /// code ([`native_params`]).
    pub(crate) fn proc_expr(&mut self, e: &Expr, types: &[SlotType]) -> Code {
        let Some(params) = native_params(self.g, e, types) else {
            return self.expr(e);
        };
        let start = self.here();
        let id = self.p.natives.len() as u32;
        self.emit(Op::Native(id));
        let code = self.expr(e);
        self.p.natives.push(NativeExpr {
            expr: e.clone(),
            params,
            len: code.end - code.start,
        });
        Code {
            start,
            end: code.end,
        }
    }
}

/// Per step of `code`, whether a region of native code may hold it ([`Region`]): lets,
/// assignments to locals and variables, conditions, jumps and loops' back edges, and `for`
/// loops over a range, the players, an enum or a board without closed spaces (their heads
/// and ends with them).
fn in_region(g: &Game, code: &[Instr]) -> Vec<bool> {
    use crate::ir::LValue;
    let mut ok: Vec<bool> = Vec::with_capacity(code.len());
    for (pc, i) in code.iter().enumerate() {
        let yes = match i {
            Instr::Let(..)
            | Instr::Assign {
                target: LValue::Local(_) | LValue::Var { .. },
                ..
            }
            | Instr::Jump(_)
            | Instr::JumpIfNot(..)
            | Instr::LoopGuard { .. } => true,
            Instr::ForInit { coll, .. } => match coll {
                Coll::Range(..) | Coll::Players | Coll::Enum(_) => true,
                Coll::Board(b) => g.boards[*b].geo.closed.iter().all(|c| !c),
                _ => false,
            },
            // With the loop's start.
            Instr::ForNext { slot, .. } | Instr::ForDone { slot } => (0..pc)
                .rev()
                .find(|&k| matches!(code[k], Instr::ForInit { slot: s, .. } if s == *slot))
                .is_some_and(|k| ok[k]),
            _ => false,
        };
        ok.push(yes);
    }
    ok
}

/// The `ForInit` of the loop whose head or end is `code[pc]`, if it is one.
fn loop_start(code: &[Instr], pc: usize) -> Option<usize> {
    let (Instr::ForNext { slot, .. } | Instr::ForDone { slot }) = code[pc] else {
        return None;
    };
    (0..pc)
        .rev()
        .find(|&k| matches!(code[k], Instr::ForInit { slot: s, .. } if s == slot))
}

/// The regions of procedure `p` that may run as native code ([`Region`]): each longest run
/// of its steps that [`in_region`] allows that holds a loop (worth a call), its first step
/// replaced by a [`Step::Native`] standing in for it.
pub(crate) fn regions(
    g: &Game,
    p: ProcId,
    steps: &mut [Step],
    types: &[SlotType],
    out: &mut Vec<Region>,
) {
    let code = &g.procs[p].code;
    let ok = in_region(g, code);
    let mut pc = 0;
    while pc < code.len() {
        // A region starts with a statement (its first step may run as the steps do).
        if !ok[pc]
            || matches!(
                code[pc],
                Instr::Jump(_)
                    | Instr::LoopGuard { .. }
                    | Instr::ForNext { .. }
                    | Instr::ForDone { .. }
            )
        {
            pc += 1;
            continue;
        }
        let start = pc;
        // To the first step it may not hold, or the head or end of a loop started before it.
        while pc < code.len() && ok[pc] && loop_start(code, pc).is_none_or(|k| k >= start) {
            pc += 1;
        }
        // Before the first loop that does not end in it.
        let unended = (start..pc).find(|&k| {
            matches!(code[k], Instr::ForInit { .. })
                && !(k + 1..pc).any(|d| {
                    matches!(code[d], Instr::ForDone { .. }) && loop_start(code, d) == Some(k)
                })
        });
        if let Some(k) = unended {
            pc = k.max(start + 1);
            if k == start {
                continue;
            }
        }
        let run = &code[start..pc];
        let looped = run.iter().enumerate().any(|(k, i)| match i {
            Instr::Jump(t) | Instr::JumpIfNot(_, t, _) => {
                (*t as usize) <= start + k && (*t as usize) >= start
            }
            Instr::ForInit { .. } => true,
            _ => false,
        });
        // Without a loop, a call into native code costs more than the steps (a flow's ten
        // statements between two decisions ran 0.90x called natively: docs/benchmarks.md).
        if !looped {
            continue;
        }
        let mut known: Vec<(u16, Type)> = vec![];
        let mut note = |l: u16| {
            if let Some(SlotType::Known(t)) = types.get(l as usize) {
                if !known.iter().any(|(s, _)| *s == l) {
                    known.push((l, *t));
                }
            }
        };
        for i in run {
            match i {
                Instr::Let(slot, e, _) => {
                    note(*slot);
                    e.reads(&mut note);
                }
                Instr::Assign { target, value, .. } => {
                    match target {
                        crate::ir::LValue::Local(l) => note(*l),
                        crate::ir::LValue::Var { index, .. } => {
                            index.iter().for_each(|x| x.reads(&mut note))
                        }
                        crate::ir::LValue::Field { .. } => {}
                    }
                    value.reads(&mut note);
                }
                Instr::JumpIfNot(c, _, _) => c.reads(&mut note),
                Instr::ForInit {
                    coll: Coll::Range(a, b),
                    ..
                } => {
                    a.reads(&mut note);
                    b.reads(&mut note);
                }
                _ => {}
            }
        }
        let region = out.len() as u32;
        out.push(Region {
            proc: p,
            start: start as u32,
            end: pc as u32,
            known,
        });
        let first = std::mem::replace(&mut steps[start], Step::Jump(0));
        steps[start] = Step::Native {
            region,
            first: Box::new(first),
        };
    }
}
