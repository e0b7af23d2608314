//! Functions compiled in place of their calls: when a body may be inlined (small, not
//! recursive, safe), its parameters replaced by the arguments, and the scratch locals it
//! binds.

use super::*;

impl Compiler<'_> {
    /// The body of a small function with its parameters replaced by simple arguments, when
    /// calling it is better done inline.
    pub(super) fn inlined(&self, d: DefId, args: &[Expr]) -> Option<Expr> {
        if self.inlining >= MAX_INLINE_DEPTH {
            return None;
        }
        let simple = |a: &Expr| {
            matches!(
                a,
                Expr::Local(_)
                    | Expr::Lit(_)
                    | Expr::Me
                    | Expr::Current
                    | Expr::Const(_)
                    | Expr::PlayerCount
            )
        };
        let def = &self.g.defs[d];
        if !args.iter().all(simple) || def.locals > def.params {
            return None;
        }
        let mut nodes = 0;
        if !body_safe(&def.body, false, &mut nodes)
            || nodes > MAX_INLINE_NODES
            || !self.spend_inline(nodes)
        {
            return None;
        }
        Some(substitute(&def.body, args))
    }

    /// Emits a call of a function whose body walks zones (its aggregates are folds of one
    /// binding over a zone) as its body in place, when the frame has room
    /// ([`Compiler::scratch`]): its bindings take fresh locals past the frame's own, an
    /// argument that is a local, a literal, a constant or `me` is read where the body reads
    /// the parameter, and any other is evaluated once, in order, into a fresh local
    /// ([`Op::SetLocal`]). False (nothing emitted) when not inlined.
    pub(super) fn inline_walk(&mut self, d: DefId, args: &[Expr]) -> bool {
        let Some((next, cap)) = self.scratch else {
            return false;
        };
        let def = &self.g.defs[d];
        if self.inlining >= MAX_INLINE_DEPTH
            || def.locals <= def.params
            || self.looping.get(d.0 as usize).is_none_or(|l| *l)
        {
            return false;
        }
        let mut nodes = 0;
        if !body_safe(&def.body, true, &mut nodes) || nodes > MAX_INLINE_NODES {
            return false;
        }
        // A call whose arguments read no local gets the same answer at every use while one
        // decision's options are listed: it stays a call, answered from the remembered table
        // at no cost in work, where its body in place would walk (and spend) at each use.
        let mut reads = false;
        args.iter().for_each(|a| a.reads(&mut |_| reads = true));
        if !reads {
            return false;
        }
        let plain =
            |a: &Expr| matches!(a, Expr::Local(_) | Expr::Lit(_) | Expr::Const(_) | Expr::Me);
        let bound = args.iter().filter(|a| !plain(a)).count() as u16;
        let need = bound + (def.locals - def.params);
        if next as usize + need as usize > cap as usize {
            return false;
        }
        if !self.spend_inline(nodes) {
            return false;
        }
        // What each parameter reads: the argument itself, or the local it is bound to.
        let mut params = Vec::with_capacity(args.len());
        let mut k = next;
        for a in args {
            if plain(a) {
                params.push(a.clone());
            } else {
                params.push(Expr::Local(k));
                k += 1;
            }
        }
        let Some(body) = remap(&def.body, &params, def.params, next + bound) else {
            return false;
        };
        self.scratch = Some((next + need, cap));
        for (a, p) in args.iter().zip(&params) {
            if let (false, Expr::Local(l)) = (plain(a), p) {
                self.emit_expr(a);
                self.emit(Op::SetLocal(*l));
            }
        }
        self.inlining += 1;
        self.emit_expr(&body);
        self.inlining -= 1;
        self.scratch = Some((next, cap));
        true
    }

    /// Counts `nodes` more inlined into the expression being compiled; false (nothing
    /// counted) when that would pass [`super::super::MAX_INLINED_NODES`].
    pub(super) fn spend_inline(&self, nodes: usize) -> bool {
        let total = self.inlined_nodes.get() + nodes;
        if total > super::super::MAX_INLINED_NODES {
            return false;
        }
        self.inlined_nodes.set(total);
        true
    }
}

/// A function body with its parameters (locals `0..args.len()`) replaced by the arguments.
pub(super) fn substitute(e: &Expr, args: &[Expr]) -> Expr {
    let sub = |x: &Expr| substitute(x, args);
    let subs = |xs: &[Expr]| xs.iter().map(|x| substitute(x, args)).collect();
    match e {
        Expr::Local(l) => args
            .get(*l as usize)
            .cloned()
            .unwrap_or(Expr::Lit(Value::None)),
        Expr::Lit(_) | Expr::Const(_) | Expr::Me | Expr::Current | Expr::PlayerCount => e.clone(),
        Expr::Var(v, ix) => Expr::Var(*v, subs(ix)),
        Expr::Zone(z, ix) => Expr::Zone(*z, subs(ix)),
        Expr::Builtin(b, ix, s) => Expr::Builtin(*b, subs(ix), *s),
        Expr::CallDef(d, ix) => Expr::CallDef(*d, subs(ix)),
        Expr::Field(x, f) => Expr::Field(Box::new(sub(x)), *f),
        Expr::Not(x) => Expr::Not(Box::new(sub(x))),
        Expr::Neg(x) => Expr::Neg(Box::new(sub(x))),
        Expr::Bin(op, a, b, s) => Expr::Bin(*op, Box::new(sub(a)), Box::new(sub(b)), *s),
        Expr::If(a, b, c) => Expr::If(Box::new(sub(a)), Box::new(sub(b)), Box::new(sub(c))),
        // Bodies with these are not inlined ([`body_safe`]).
        Expr::Agg(..) | Expr::After(_) => e.clone(),
    }
}

/// Whether a function body can be inlined, counting its nodes: without aggregates, or
/// (`walks`) with its bindings given fresh locals when its aggregates are folds (`count`,
/// `sum`, `max`, `min`, `any`, `all`, `first`) over zones (walked in place,
/// [`Op::ZoneWalk`], and often empty: cheaper than a remembered call's look-up).
pub(super) fn body_safe(e: &Expr, walks: bool, nodes: &mut usize) -> bool {
    *nodes += 1;
    let safe = |x: &Expr, nodes: &mut usize| body_safe(x, walks, nodes);
    match e {
        Expr::Agg(a, _) => {
            let fold = matches!(
                a.kind,
                AggKind::Count
                    | AggKind::Sum
                    | AggKind::Max
                    | AggKind::Min
                    | AggKind::Any
                    | AggKind::All
                    | AggKind::First
            );
            walks
                && fold
                && a.sets.is_empty()
                && a.args.is_empty()
                && a.binds.iter().all(|b| match &b.coll {
                    Coll::Zone(x) => safe(x, nodes),
                    _ => false,
                })
                && [&a.filter, &a.body, &a.otherwise]
                    .into_iter()
                    .flatten()
                    .all(|x| safe(x, nodes))
        }
        Expr::Lit(_)
        | Expr::Const(_)
        | Expr::Local(_)
        | Expr::Me
        | Expr::Current
        | Expr::PlayerCount => true,
        Expr::Var(_, ix) | Expr::Zone(_, ix) | Expr::Builtin(_, ix, _) | Expr::CallDef(_, ix) => {
            ix.iter().all(|x| safe(x, nodes))
        }
        Expr::Field(x, _) | Expr::Not(x) | Expr::Neg(x) => safe(x, nodes),
        Expr::Bin(_, a, b, _) => safe(a, nodes) && safe(b, nodes),
        Expr::If(a, b, c) => safe(a, nodes) && safe(b, nodes) && safe(c, nodes),
        Expr::After(_) => false,
    }
}

/// A body accepted by [`body_safe`] with its parameters (locals `0..n`) read as `params`
/// and its other locals moved to `base` and above; `None` for a shape it does not handle.
pub(super) fn remap(e: &Expr, params: &[Expr], n: u16, base: u16) -> Option<Expr> {
    let slot = |l: u16| base.checked_add(l.checked_sub(n)?);
    let re = |x: &Expr| remap(x, params, n, base);
    let sub = |x: &Expr| re(x).map(Box::new);
    let subs = |xs: &[Expr]| -> Option<Vec<Expr>> { xs.iter().map(re).collect() };
    let opt = |x: &Option<Expr>| -> Option<Option<Expr>> {
        match x {
            Some(x) => re(x).map(Some),
            None => Some(None),
        }
    };
    Some(match e {
        Expr::Local(l) if *l < n => params.get(*l as usize)?.clone(),
        Expr::Local(l) => Expr::Local(slot(*l)?),
        Expr::Lit(_) | Expr::Const(_) | Expr::Me | Expr::Current | Expr::PlayerCount => e.clone(),
        Expr::Var(v, ix) => Expr::Var(*v, subs(ix)?),
        Expr::Zone(z, ix) => Expr::Zone(*z, subs(ix)?),
        Expr::Builtin(b, ix, s) => Expr::Builtin(*b, subs(ix)?, *s),
        Expr::CallDef(d, ix) => Expr::CallDef(*d, subs(ix)?),
        Expr::Field(x, f) => Expr::Field(sub(x)?, *f),
        Expr::Not(x) => Expr::Not(sub(x)?),
        Expr::Neg(x) => Expr::Neg(sub(x)?),
        Expr::Bin(op, a, b, s) => Expr::Bin(*op, sub(a)?, sub(b)?, *s),
        Expr::If(a, b, c) => Expr::If(sub(a)?, sub(b)?, sub(c)?),
        Expr::After(_) => return None,
        Expr::Agg(a, s) => {
            let mut binds = Vec::with_capacity(a.binds.len());
            for b in &a.binds {
                let coll = match &b.coll {
                    Coll::Zone(x) => Coll::Zone(re(x)?),
                    Coll::Adjacent(x) => Coll::Adjacent(re(x)?),
                    Coll::Range(x, y) => Coll::Range(re(x)?, re(y)?),
                    Coll::Ray(x, y) => Coll::Ray(re(x)?, re(y)?),
                    Coll::List(xs) => Coll::List(subs(xs)?),
                    c @ (Coll::Board(_) | Coll::Enum(_) | Coll::Type(_) | Coll::Players) => {
                        c.clone()
                    }
                    Coll::Rays(_)
                    | Coll::Paths { .. }
                    | Coll::Group { .. }
                    | Coll::Groups { .. } => return None,
                };
                binds.push(Bind {
                    slot: slot(b.slot)?,
                    coll,
                    ..b.clone()
                });
            }
            Expr::Agg(
                Box::new(Agg {
                    kind: a.kind,
                    sets: Vec::new(),
                    binds,
                    args: Vec::new(),
                    filter: opt(&a.filter)?,
                    body: opt(&a.body)?,
                    otherwise: opt(&a.otherwise)?,
                }),
                *s,
            )
        }
    })
}

/// Per function: whether it may call itself (directly or through others), or calls one that
/// may. Functions calling none that may are peeled off until none is left to peel.
pub(in crate::check::compile) fn looping(g: &Game) -> Vec<bool> {
    let n = g.defs.len();
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut callees = vec![0usize; n];
    for (id, d) in g.defs.enumerate() {
        let i = id.0 as usize;
        d.body.visit(&mut |x| {
            if let Expr::CallDef(c, _) = x {
                if let Some(list) = callers.get_mut(c.0 as usize) {
                    list.push(i);
                    callees[i] += 1;
                }
            }
        });
    }
    let mut out = vec![true; n];
    let mut ready: Vec<usize> = (0..n).filter(|&i| callees[i] == 0).collect();
    while let Some(i) = ready.pop() {
        out[i] = false;
        for &c in &callers[i] {
            callees[c] -= 1;
            if callees[c] == 0 {
                ready.push(c);
            }
        }
    }
    out
}
