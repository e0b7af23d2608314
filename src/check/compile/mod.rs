//! The last step of checking: the IR's expression trees and procedures compiled to the flat
//! program the engine runs ([`ir::vm::Program`]). Compiling is done once per game; it never
//! fails (the checker has reported every problem before).
//!
//! Besides translating, it plans the work of listing options: small functions without
//! bindings are inlined, common shapes become single ops (`pawn[from]`, `hand[me]`,
//! `played[p, s]`, `x == none`, `card.rank`), functions that do not read `me` are marked so
//! that their remembered results serve every player, and a binding pinned by its guard to
//! where an indexed variable holds a value (`from in field where pawn[from] == me`) lists
//! only those places.

mod expr;
mod plan;

use crate::ir::vm::*;
use crate::ir::*;

/// Compiles a checked game's trees into its program.
pub(crate) fn compile(g: &Game) -> Program {
    let mut c = Compiler {
        g,
        p: Program::default(),
        inlining: 0,
        inlined_nodes: Default::default(),
        scratch: None,
        looping: expr::looping(g),
    };
    c.p.type_comps = g.types.iter().map(|_| Vec::new()).collect();
    for (id, comp) in g.comps.enumerate() {
        c.p.type_comps[comp.ty].push(id);
    }
    c.p.var_index = g.vars.iter().map(|_| None).collect();
    c.p.frozen = frozen_vars(g);
    c.p.twins = twins(g);
    c.p.id = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    c.p.defs = g
        .defs
        .iter()
        .map(|d| CDef {
            params: d.params,
            locals: d.locals,
            body: Code::default(),
            remember: false,
            reads_me: false,
        })
        .collect();
    for (id, reads) in g.defs.ids().zip(reads_me(g)) {
        c.p.defs[id].reads_me = reads;
    }
    for (id, d) in g.defs.enumerate() {
        // A body runs on an array of `DEF_LOCALS` locals (`Machine::call_body`).
        c.scratch = Some((d.locals, DEF_LOCALS as u16));
        let body = c.expr(&d.body);
        c.scratch = None;
        c.p.defs[id].body = body;
        c.p.defs[id].remember = c.p.ops[body.start as usize..body.end as usize]
            .iter()
            .any(|op| op.walks());
        c.p.remember |= c.p.defs[id].remember;
    }
    c.p.sets = g
        .sets
        .iter()
        .map(|s| CSet {
            params: s.params,
            locals: s.locals,
            conds: vec![],
            points: Code::default(),
        })
        .collect();
    for (id, s) in g.sets.enumerate() {
        let conds = s.conds.iter().map(|(n, e)| (*n, c.expr(e))).collect();
        let points = c.expr(&s.points);
        c.p.sets[id].conds = conds;
        c.p.sets[id].points = points;
    }
    let inits: Vec<Option<Code>> = g
        .vars
        .iter()
        .map(|v| v.init.as_ref().map(|e| c.expr(e)))
        .collect();
    c.p.var_inits = inits.into();
    c.p.end_when = g.end_when.iter().map(|(e, s)| (c.expr(e), *s)).collect();
    c.p.triggers = g
        .triggers
        .iter()
        .map(|t| CTrigger {
            test: c.expr(&t.test),
            each: t.each,
            proc: t.proc,
            span: t.span,
        })
        .collect();
    c.p.score = g.score.as_ref().map(|e| c.expr(e));
    c.p.tiebreaks = g.tiebreaks.iter().map(|e| c.expr(e)).collect();
    c.p.heuristic = g.heuristic.as_ref().map(|e| c.expr(e));
    let actions: Vec<COptions> = g
        .actions
        .iter()
        .map(|a| {
            // Guards are tested on arrays of `MAX_LOCALS` locals (options.rs, why.rs).
            c.scratch = Some((g.procs[a.proc].locals, MAX_LOCALS as u16));
            let o = c.options(&a.params, &a.guard_parts, a.guard.as_ref());
            c.scratch = None;
            o
        })
        .collect();
    c.p.actions = actions.into();
    let choices: Vec<CChoice> = g.choices.iter().map(|ch| c.choice(ch)).collect();
    c.p.choices = choices.into();
    let procs: Vec<Vec<Step>> = g
        .procs
        .iter()
        .map(|p| fuse_loops(c.proc(&p.code)))
        .collect();
    c.p.procs = procs.into();
    c.p.finish();
    c.p
}

/// Per function: whether its value may depend on `me` ([`CDef::reads_me`]): its body reads
/// `me`, or calls a function or scores a set kind that may.
fn reads_me(g: &Game) -> Vec<bool> {
    // What each function reads directly, and the functions it calls.
    let mut direct = vec![false; g.defs.len()];
    let mut calls: Vec<Vec<DefId>> = vec![Vec::new(); g.defs.len()];
    let set_me: Vec<(bool, Vec<DefId>)> = g
        .sets
        .iter()
        .map(|k| {
            let (mut me, mut called) = (false, Vec::new());
            for e in k.conds.iter().map(|(_, e)| e).chain([&k.points]) {
                e.visit(&mut |x| match x {
                    Expr::Me => me = true,
                    Expr::CallDef(d, _) => called.push(*d),
                    _ => {}
                });
            }
            (me, called)
        })
        .collect();
    for (id, d) in g.defs.enumerate() {
        let i = id.0 as usize;
        d.body.visit(&mut |x| match x {
            Expr::Me => direct[i] = true,
            Expr::CallDef(d, _) => calls[i].push(*d),
            Expr::Agg(a, _) => {
                for k in &a.sets {
                    if let Some((me, called)) = set_me.get(k.0 as usize) {
                        direct[i] |= *me;
                        calls[i].extend(called);
                    }
                }
            }
            _ => {}
        });
    }
    // A function reads `me` when one it calls does (until nothing changes: at most one
    // round per function).
    let mut out = direct;
    loop {
        let mut changed = false;
        for i in 0..out.len() {
            if !out[i] && calls[i].iter().any(|d| out[d.0 as usize]) {
                out[i] = true;
                changed = true;
            }
        }
        if !changed {
            return out;
        }
    }
}

/// Fuses each filtered loop's head, `for x in C { if cond { .. } }` whose body is one `if`
/// without `else`, into a [`Step::ForNextIf`] that skips the elements failing the condition
/// in one step. Found on the steps' shape: a `ForNext` followed by a `JumpIfNot` to the
/// loop's `LoopGuard`, followed by the `Jump` back to the `ForNext`, itself followed by the
/// loop's exit. The `JumpIfNot` stays in place (a `while` that opens the body jumps back to
/// it), so every jump target keeps its step.
fn fuse_loops(mut steps: Vec<Step>) -> Vec<Step> {
    for top in 0..steps.len() {
        let (Some(&Step::ForNext { slot, var, exit }), Some(&Step::JumpIfNot(cond, to, span))) =
            (steps.get(top), steps.get(top + 1))
        else {
            continue;
        };
        let (Some(&Step::LoopGuard { span: guard }), Some(&Step::Jump(back))) =
            (steps.get(to as usize), steps.get(to as usize + 1))
        else {
            continue;
        };
        if back as usize == top && exit == to + 2 {
            steps[top] = Step::ForNextIf {
                slot,
                var,
                exit,
                cond,
                span,
                guard,
            };
        }
    }
    steps
}

/// Tells compiled programs apart (for caches kept outside a state).
static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// Variables that no procedure but `setup` writes (assigned or rolled).
fn frozen_vars(g: &Game) -> Vec<VarId> {
    let mut written = vec![false; g.vars.len()];
    for (id, proc) in g.procs.enumerate() {
        if Some(id) == g.setup {
            continue;
        }
        for i in &proc.code {
            let target = match i {
                Instr::Assign { target, .. } | Instr::Roll { target, .. } => target,
                _ => continue,
            };
            if let LValue::Var { var, .. } = target {
                written[var.0 as usize] = true;
            }
        }
    }
    g.vars.ids().filter(|v| !written[v.0 as usize]).collect()
}

/// Per component: whether it can ever look the same as another component of its type, so that
/// the two are interchangeable and only one of them is offered. A component of a type with a
/// secret field, or with a field some procedure writes (setup and scenarios included), may;
/// otherwise its fields never change and it may only if another component of its type starts
/// with the same values.
fn twins(g: &Game) -> Vec<bool> {
    let mut written = vec![false; g.types.len()];
    for proc in g.procs.iter() {
        for i in &proc.code {
            if let Instr::Assign { target, .. } | Instr::Roll { target, .. } = i {
                if let LValue::Field { ty, .. } = target {
                    written[ty.0 as usize] = true;
                }
            }
        }
    }
    let fixed = |c: &crate::ir::Comp| {
        !written[c.ty.0 as usize] && g.types[c.ty].fields.iter().all(|f| f.seen_by.is_none())
    };
    // Sorted by type and starting values, equal components are neighbours.
    let mut order: Vec<CompId> = g.comps.ids().collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&g.comps[a], &g.comps[b]);
        (a.ty.0, &a.fields).cmp(&(b.ty.0, &b.fields))
    });
    let same = |a: CompId, b: CompId| {
        let (a, b) = (&g.comps[a], &g.comps[b]);
        a.ty == b.ty && a.fields == b.fields
    };
    let mut out = vec![true; g.comps.len()];
    for (k, &id) in order.iter().enumerate() {
        if fixed(&g.comps[id]) {
            out[id.0 as usize] =
                (k > 0 && same(order[k - 1], id)) || order.get(k + 1).is_some_and(|&n| same(n, id));
        }
    }
    out
}

/// Compiles the procedures added to a game after it was first compiled (scenario setups).
pub(crate) fn compile_procs(g: &mut Game) {
    let mut p = std::mem::take(&mut g.program);
    let done = p.procs.len();
    let game: &Game = g;
    let mut c = Compiler {
        g: game,
        p,
        inlining: 0,
        inlined_nodes: Default::default(),
        scratch: None,
        looping: Vec::new(),
    };
    for proc in game.procs.iter().skip(done) {
        let steps = fuse_loops(c.proc(&proc.code));
        c.p.procs.push(steps);
    }
    c.p.twins = twins(game);
    c.p.finish();
    p = c.p;
    g.program = p;
}

/// Compiles more code into a game's program (the expressions of a scenario's steps).
pub(crate) fn extend<T>(g: &mut Game, f: impl FnOnce(&mut Compiler) -> T) -> T {
    let p = std::mem::take(&mut g.program);
    let game: &Game = g;
    let mut c = Compiler {
        g: game,
        p,
        inlining: 0,
        inlined_nodes: Default::default(),
        scratch: None,
        looping: Vec::new(),
    };
    let out = f(&mut c);
    c.p.finish();
    let p = c.p;
    g.program = p;
    out
}

/// The compiler's state: the game read, the program written.
pub(crate) struct Compiler<'g> {
    pub(crate) g: &'g Game,
    pub(crate) p: Program,
    /// How many function bodies are being inlined into each other right now.
    pub(crate) inlining: u32,
    /// The locals free for the bindings of functions inlined into the code being compiled
    /// (the first free slot, the end of the frame's array): `None` where the frame is no
    /// larger than its declared locals (the flow's), so functions with bindings stay calls.
    pub(crate) scratch: Option<(u16, u16)>,
    /// Per function: whether it may call itself, through others or not (never compiled in
    /// place of a call, so that the limit of calls deep counts its every level); empty: all.
    pub(crate) looping: Vec<bool>,
    /// The nodes of function bodies inlined into the expression being compiled (from its
    /// outermost [`Compiler::expr`] or [`Compiler::coll`]), kept under
    /// [`MAX_INLINED_NODES`] so that calls nested in inlined bodies cannot multiply the
    /// code a small file compiles to.
    pub(crate) inlined_nodes: std::cell::Cell<usize>,
}

/// The most nodes of function bodies inlined into one expression (a guard, a function's
/// body, a statement's value); further calls in it stay calls.
pub(crate) const MAX_INLINED_NODES: usize = 4096;

impl Compiler<'_> {
    pub(crate) fn here(&self) -> u32 {
        self.p.ops.len() as u32
    }

    pub(crate) fn emit(&mut self, op: Op) -> u32 {
        self.p.ops.push(op);
        self.p.ops.len() as u32 - 1
    }

    /// Emits an op that can fail, recording the span blamed when it does.
    pub(crate) fn emit_at(&mut self, op: Op, span: Span) -> u32 {
        let at = self.emit(op);
        self.p.spans.push((at, span));
        at
    }

    /// Points the jump at `at` to `to`.
    pub(crate) fn patch(&mut self, at: u32, to: u32) {
        match &mut self.p.ops[at as usize] {
            Op::Jump(t)
            | Op::JumpIfNot(t)
            | Op::AndJump(t)
            | Op::OrJump(t)
            | Op::ElseJump(t)
            | Op::IterNext { exit: t, .. } => *t = to,
            _ => {}
        }
    }

    /// A compiled expression: one value on the stack.
    pub(crate) fn expr(&mut self, e: &Expr) -> Code {
        if self.inlining == 0 {
            self.inlined_nodes.set(0);
        }
        let start = self.here();
        self.emit_expr(e);
        Code {
            start,
            end: self.here(),
        }
    }

    /// A compiled collection: one iterator on the iterator stack.
    pub(crate) fn coll(&mut self, c: &Coll) -> Code {
        if self.inlining == 0 {
            self.inlined_nodes.set(0);
        }
        let start = self.here();
        self.emit_coll(c);
        Code {
            start,
            end: self.here(),
        }
    }

    /// Compiled code that pushes the values of several expressions (a variable's indexes).
    pub(crate) fn exprs(&mut self, es: &[Expr]) -> Code {
        let start = self.here();
        for e in es {
            self.emit_expr(e);
        }
        Code {
            start,
            end: self.here(),
        }
    }
}
