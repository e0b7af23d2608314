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
mod natives;
mod pauses;
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
    c.p.id = fresh_id();
    c.p.defs = g
        .defs
        .iter()
        .map(|d| CDef {
            params: d.params,
            locals: d.locals,
            body: Code::default(),
            remember: false,
            reads_me: false,
            reads: 0,
        })
        .collect();
    let (families, defs, actions, triggers) = def_reads(g, &c.p.frozen);
    c.p.families = families;
    for (id, (me, reads)) in g.defs.ids().zip(defs) {
        c.p.defs[id].reads_me = me;
        c.p.defs[id].reads = reads;
    }
    c.p.action_reads = actions.iter().map(|a| a.0).collect();
    c.p.action_first = actions.iter().map(|a| a.1).collect();
    c.p.action_sure = g
        .actions
        .iter()
        .map(|a| match a.guard_parts.first() {
            Some((0, e)) if !a.sequence => sure_test(g, e, 0),
            _ => None,
        })
        .collect();
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
    c.p.families.on = c.p.remember || g.windows.is_some() || !g.triggers.is_empty();
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
        .zip(triggers)
        .map(|(t, reads)| CTrigger {
            test: c.expr(&t.test),
            each: t.each,
            proc: t.proc,
            span: t.span,
            reads,
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
    let mut regions = vec![];
    let procs: Vec<Vec<Step>> = (g.procs.ids())
        .map(|p| {
            let types = natives::slot_types(g, p);
            let mut steps = fuse_loops(c.proc(&g.procs[p].code, &types));
            natives::regions(g, p, &mut steps, &types, &mut regions);
            steps
        })
        .collect();
    c.p.regions = regions;
    let free = pauses::pause_free(&procs, g.actions.as_slice());
    let homes = pauses::choice_homes(&procs, g.choices.len());
    for ((ch, cc), home) in g.choices.iter().zip(c.p.choices.iter_mut()).zip(homes) {
        cc.free_in = home.filter(|p| pauses::choice_free(ch, &free[p.0 as usize]));
    }
    c.p.pause_free = free.into();
    c.p.procs = procs.into();
    c.p.finish();
    c.p
}

/// A part of the state an expression reads (it has a family bit, [`Family`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Var(VarId),
    Zone(ZoneId),
    /// The contents of a zone not named where it is read: any zone's.
    AnyZone,
    Field(u16),
    Where,
    Current,
    /// Every part of the state (what an `after` effect may read or change).
    All,
}

/// What expressions read: `me`, parts of the state, and the functions they call.
#[derive(Clone, Default)]
struct Reads {
    me: bool,
    parts: Vec<Part>,
    calls: Vec<DefId>,
}

impl Reads {
    /// Adds what `e` reads itself (not what the functions it calls read).
    fn expr(&mut self, e: &Expr) {
        e.visit(&mut |x| self.node(x));
    }

    /// Adds what collection `c` reads itself.
    fn coll(&mut self, c: &Coll) {
        self.walked(c);
        c.visit(&mut |x| self.node(x));
    }

    /// The contents of a zone: of that zone when it is named, else of any zone.
    fn zone(&mut self, z: &Expr) {
        self.parts.push(match z {
            Expr::Zone(z, _) => Part::Zone(*z),
            _ => Part::AnyZone,
        });
    }

    /// What walking collection `c` reads besides its expressions.
    fn walked(&mut self, c: &Coll) {
        match c {
            Coll::Zone(z) => self.zone(z),
            // Fixed for a match: boards, their geometry, enums, types, seats, values.
            Coll::Board(_)
            | Coll::Enum(_)
            | Coll::Type(_)
            | Coll::Players
            | Coll::Range(..)
            | Coll::List(_)
            | Coll::Adjacent(_)
            | Coll::Ray(..)
            | Coll::Rays(_)
            | Coll::Paths { .. }
            | Coll::Group { .. }
            | Coll::Groups { .. } => {}
        }
    }

    /// One node of an expression (its children are visited on their own). Every kind of
    /// expression is named: a new one must say what it reads.
    fn node(&mut self, x: &Expr) {
        match x {
            Expr::Me => self.me = true,
            Expr::Current => self.parts.push(Part::Current),
            Expr::Var(v, _) => self.parts.push(Part::Var(*v)),
            Expr::Zone(z, _) => self.parts.push(Part::Zone(*z)),
            Expr::Field(_, f) => self.parts.push(Part::Field(*f)),
            Expr::Builtin(b, args, _) => match b {
                Builtin::Count | Builtin::Top | Builtin::Bottom | Builtin::Empty => {
                    match args.first() {
                        Some(z) => self.zone(z),
                        None => self.parts.push(Part::AnyZone),
                    }
                }
                Builtin::Owner | Builtin::SpaceOf | Builtin::ZoneOf => self.parts.push(Part::Where),
                // The memory itself, stamped as `WHERE` by `remember` and `forget` (its
                // parts are the arguments, visited on their own).
                Builtin::Repeated => self.parts.push(Part::Where),
                Builtin::Next
                | Builtin::Prev
                | Builtin::Seat
                | Builtin::Abs
                | Builtin::Max2
                | Builtin::Min2
                | Builtin::Step
                | Builtin::Col
                | Builtin::Row
                | Builtin::Opposite
                | Builtin::Ord => {}
            },
            Expr::CallDef(d, _) => self.calls.push(*d),
            // An effect may read and write anything, and the body reads what it leaves.
            Expr::After(_) => self.parts.push(Part::All),
            Expr::Agg(a, _) => {
                for b in &a.binds {
                    self.walked(&b.coll);
                }
            }
            // Fixed for a match (constants are set before it starts), or read by the nodes
            // below.
            Expr::Lit(_)
            | Expr::Const(_)
            | Expr::Local(_)
            | Expr::PlayerCount
            | Expr::Not(_)
            | Expr::Neg(_)
            | Expr::Bin(..)
            | Expr::If(..) => {}
        }
    }

    /// What `e` reads itself and through the set kinds its aggregates score.
    fn of(e: &Expr, sets: &[Reads]) -> Reads {
        let mut r = Reads::default();
        r.expr(e);
        r.sets(e, sets);
        r
    }

    /// Adds what the set kinds scored by `e`'s aggregates read.
    fn sets(&mut self, e: &Expr, sets: &[Reads]) {
        e.visit(&mut |x| {
            if let Expr::Agg(a, _) = x {
                for k in &a.sets {
                    if let Some(r) = sets.get(k.0 as usize) {
                        self.me |= r.me;
                        self.parts.extend(&r.parts);
                        self.calls.extend(&r.calls);
                    }
                }
            }
        });
    }

    /// The family bits of what it reads itself.
    fn bits(&self, fam: &Families) -> u64 {
        self.parts.iter().fold(0, |m, p| {
            m | match *p {
                Part::Var(v) => 1 << fam.var(v),
                Part::Zone(z) => 1 << fam.zone(z),
                Part::AnyZone => fam.all_zones,
                Part::Field(f) => 1 << fam.field(f),
                Part::Where => 1 << Family::WHERE,
                Part::Current => 1 << Family::CURRENT,
                Part::All => u64::MAX,
            }
        })
    }

    /// `(me, bits)` with what the functions called read (`defs`: theirs, closed).
    fn closed(&self, own: (bool, u64), defs: &[(bool, u64)]) -> (bool, u64) {
        self.calls.iter().fold(own, |(me, bits), d| {
            (me | defs[d.0 as usize].0, bits | defs[d.0 as usize].1)
        })
    }
}

/// The family bits ([`Families`]) and, per function, whether its value may depend on `me`
/// ([`CDef::reads_me`]) and the families of the state it may read ([`CDef::reads`]): what its
/// body reads, and what the functions and set kinds it uses read. Per action: the families
/// its parameters' collections and its guard read ([`Program::action_reads`]; all of them for
/// a sequence action, whose options depend on the choices its effect reaches). Per trigger:
/// the families its test reads ([`CTrigger::reads`]).
#[allow(clippy::type_complexity)]
fn def_reads(
    g: &Game,
    frozen: &[VarId],
) -> (
    Families,
    Vec<(bool, u64)>,
    Vec<(u64, Option<FirstZone>)>,
    Vec<u64>,
) {
    let sets: Vec<Reads> = g
        .sets
        .iter()
        .map(|k| {
            let mut r = Reads::default();
            for e in k.conds.iter().map(|(_, e)| e).chain([&k.points]) {
                r.expr(e);
            }
            r
        })
        .collect();
    let defs: Vec<Reads> = g.defs.iter().map(|d| Reads::of(&d.body, &sets)).collect();
    let actions: Vec<Option<Reads>> = g
        .actions
        .iter()
        .map(|a| {
            // A sequence action's options depend on the runs its effect explores (the
            // generator included, which has no stamp): its window answers are never reused
            // unless nothing at all was written (`u64::MAX` below).
            if a.sequence {
                return None;
            }
            let mut r = a
                .guard
                .as_ref()
                .map_or_else(Reads::default, |e| Reads::of(e, &sets));
            for b in &a.params {
                r.coll(&b.coll);
            }
            Some(r)
        })
        .collect();
    let triggers: Vec<Reads> = g
        .triggers
        .iter()
        .map(|t| Reads::of(&t.test, &sets))
        .collect();
    let read = defs.iter().chain(actions.iter().flatten()).chain(&triggers);
    let fam = families(g, frozen, read.flat_map(|r| &r.parts));
    // A function reads what the functions it calls read (until nothing changes: at most
    // one round per function).
    let own: Vec<(bool, u64)> = defs.iter().map(|r| (r.me, r.bits(&fam))).collect();
    let mut out = own.clone();
    loop {
        let mut changed = false;
        for (i, r) in defs.iter().enumerate() {
            let now = r.closed(own[i], &out);
            if now != out[i] {
                out[i] = now;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let actions = actions
        .iter()
        .zip(&g.actions)
        .map(|(r, a)| match r {
            Some(r) => (
                r.closed((r.me, r.bits(&fam)), &out).1,
                first_zone(g, a, &sets),
            ),
            None => (u64::MAX, None),
        })
        .map(|(reads, first)| {
            let first = first.map(|(inst, me, r)| FirstZone {
                inst,
                me,
                reads: r.closed((r.me, r.bits(&fam)), &out).1,
            });
            (reads, first)
        })
        .collect();
    let triggers = triggers
        .iter()
        .map(|r| r.closed((r.me, r.bits(&fam)), &out).1)
        .collect();
    (fam, out, actions, triggers)
}

/// The [`FirstZone`] of action `a` (without its families): its first parameter walks
/// `zone` or `zone[me]`, one instance for a seat, and what that and the guard's parts tested
/// before it read (but for those that cannot fail).
fn first_zone(g: &Game, a: &ActionDef, sets: &[Reads]) -> Option<(InstId, bool, Reads)> {
    let b = a.params.first()?;
    let Coll::Zone(Expr::Zone(z, ix)) = &b.coll else {
        return None;
    };
    let def = &g.zones[*z];
    let me = match (ix.as_slice(), def.dims.as_slice()) {
        ([], []) => false,
        ([Expr::Me], [Dim::Player]) => true,
        _ => return None,
    };
    let mut r = Reads::default();
    r.coll(&b.coll);
    // A part that cannot fail is left out: over an empty zone, what it answers changes
    // nothing (a part that can fail must fail again where it would).
    for (need, e) in &a.guard_parts {
        if *need == 0 && sure_test(g, e, 0).is_none() {
            r.expr(e);
            r.sets(e, sets);
        }
    }
    Some((def.base, me, r))
}

/// `e` as a test that cannot fail: `a == b` or `a != b` of variables without indexes,
/// literals, constants, `me` or the player count, and `and`, `or`, `not` of such tests or
/// calls of functions without parameters whose body is one (`depth`: calls followed).
fn sure_test(g: &Game, e: &Expr, depth: u32) -> Option<Sure> {
    let value = |x: &Expr| match x {
        Expr::Var(v, ix) if ix.is_empty() => Some(SureValue::Slot(g.vars[*v].base)),
        Expr::Lit(v) => Some(SureValue::Value(*v)),
        Expr::Const(c) => Some(SureValue::Const(*c)),
        Expr::Me => Some(SureValue::Me),
        Expr::PlayerCount => Some(SureValue::PlayerCount),
        _ => None,
    };
    let sure = |x: &Expr| sure_test(g, x, depth).map(Box::new);
    Some(match e {
        Expr::Bin(op @ (BinOp::Eq | BinOp::Ne), a, b, _) => {
            Sure::Cmp(value(a)?, value(b)?, *op == BinOp::Ne)
        }
        Expr::Bin(BinOp::And, a, b, _) => Sure::And(sure(a)?, sure(b)?),
        Expr::Bin(BinOp::Or, a, b, _) => Sure::Or(sure(a)?, sure(b)?),
        Expr::Not(a) => Sure::Not(sure(a)?),
        Expr::CallDef(d, args) if args.is_empty() && depth < 4 => {
            let def = &g.defs[*d];
            if def.params != 0 {
                return None;
            }
            sure_test(g, &def.body, depth + 1)?
        }
        _ => return None,
    })
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

/// A program id never handed out before: given at compilation and again whenever a program
/// is changed in place ([`compile_procs`], [`extend`]), so that what a machine remembers of
/// the program as it was (resolved walk conditions, function results) is not served to it.
fn fresh_id() -> u64 {
    NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// The family bits ([`Families`]): each part of the state some function, action guard or
/// trigger reads (`read`) has a bit of its own, shared past [`Family::ROOM`]: variables
/// written after setup, zones (all of them when one is read unnamed) and field numbers. The
/// variables only setup writes share one bit, parts nothing reads another. Every write stamps,
/// whoever writes (procedures compiled later, such as a scenario's `setup { }`, included).
fn families<'r>(g: &Game, frozen: &[VarId], read: impl Iterator<Item = &'r Part>) -> Families {
    let (mut vars, mut zones, mut fields) = (
        vec![false; g.vars.len()],
        vec![false; g.zones.len()],
        vec![false; g.types.iter().map(|t| t.fields.len()).max().unwrap_or(0)],
    );
    for p in read {
        match *p {
            Part::Var(v) => vars[v.0 as usize] = true,
            Part::Zone(z) => zones[z.0 as usize] = true,
            Part::AnyZone => zones.iter_mut().for_each(|z| *z = true),
            Part::Field(f) => fields[f as usize] = true,
            Part::Where | Part::Current | Part::All => {}
        }
    }
    let mut next = 0u32;
    let mut bit = |read: bool| {
        if !read {
            return Family::UNREAD as u8;
        }
        let b = next % Family::ROOM;
        next += 1;
        b as u8
    };
    let var = g
        .vars
        .ids()
        .map(|v| {
            if frozen.contains(&v) {
                Family::SETUP as u8
            } else {
                bit(vars[v.0 as usize])
            }
        })
        .collect();
    let zone: Vec<u8> = zones.iter().map(|&r| bit(r)).collect();
    let field = fields.iter().map(|&r| bit(r)).collect();
    let all_zones = zone.iter().fold(0, |m, &b| m | 1u64 << b);
    Families {
        var,
        inst: g
            .instances
            .iter()
            .map(|i| zone[i.zone.0 as usize])
            .collect(),
        zone,
        field,
        all_zones,
        on: false,
    }
}

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
fn twins(g: &Game) -> Vec<Twin> {
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
    let mut out = vec![Twin::Fields; g.comps.len()];
    let mut class = 0;
    for (k, &id) in order.iter().enumerate() {
        if fixed(&g.comps[id]) {
            if k == 0 || !same(order[k - 1], id) {
                class = id.0;
            }
            let twin =
                (k > 0 && same(order[k - 1], id)) || order.get(k + 1).is_some_and(|&n| same(n, id));
            out[id.0 as usize] = if twin { Twin::Class(class) } else { Twin::No };
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
        let steps = fuse_loops(c.proc(&proc.code, &[]));
        c.p.procs.push(steps);
    }
    c.p.twins = twins(game);
    c.p.finish();
    // Changed in place: caches kept outside a state for the program before must not serve it.
    c.p.id = fresh_id();
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
    c.p.id = fresh_id();
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
