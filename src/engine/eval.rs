//! Expression evaluation and collection iteration, on resolved indices only.

use super::{RunError, State};
use crate::ir::*;

/// Where an expression is evaluated: the locals of its procedure and the acting player.
pub struct Env<'l> {
    /// The local slots, indexed by the slot numbers in [`Expr::Local`] and bindings.
    pub locals: &'l mut [Value],
    /// The seat that `me` denotes.
    pub me: u8,
    /// Nesting depth of function (`def`) calls, stopped at 64 to catch runaway recursion.
    pub depth: u16,
}

/// Read-only access to a game and one of its states.
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    /// The checked game.
    pub g: &'a Game,
    /// The state expressions read.
    pub s: &'a State,
}

/// The result of evaluating: the error is boxed so that the success path stays small.
pub type Eval<T> = Result<T, Box<RunError>>;

fn err(msg: impl Into<String>, span: Option<Span>) -> Box<RunError> {
    Box::new(RunError::rule(msg, span))
}

impl<'a> Ctx<'a> {
    /// Evaluates an expression. The common shapes are handled here in a small frame; the
    /// rest (functions, aggregates, built-ins) in `Ctx::eval_rest`.
    #[inline]
    pub fn eval(&self, e: &Expr, env: &mut Env) -> Eval<Value> {
        match e {
            Expr::Lit(v) => Ok(*v),
            Expr::Local(l) => Ok(env.locals[*l as usize]),
            Expr::Me => Ok(Value::Player(env.me)),
            Expr::Var(v, ix) => {
                let slot = self.var_slot(*v, ix, env)?;
                Ok(self.s.vars[slot])
            }
            Expr::Bin(op, a, b, span) => self.binary(*op, a, b, *span, env),
            _ => self.eval_rest(e, env),
        }
    }

    #[inline(never)]
    fn eval_rest(&self, e: &Expr, env: &mut Env) -> Eval<Value> {
        Ok(match e {
            Expr::Lit(v) => *v,
            Expr::Const(c) => self.s.consts[*c],
            Expr::Local(l) => env.locals[*l as usize],
            Expr::Me => Value::Player(env.me),
            Expr::Current => self.s.current.map_or(Value::None, Value::Player),
            Expr::PlayerCount => Value::Int(self.s.players as i64),
            Expr::Var(v, ix) => {
                let slot = self.var_slot(*v, ix, env)?;
                self.s.vars[slot]
            }
            Expr::Zone(z, ix) => Value::Zone(self.zone_inst(*z, ix, env)?),
            Expr::Field(c, f) => match self.eval(c, env)? {
                Value::Comp(c) => self.s.fields[self.g.field_slot(c, *f)],
                Value::None => {
                    return Err(err("a field of `none` was read (no component here)", None))
                }
                other => return Err(err(format!("a field of {other:?} was read"), None)),
            },
            Expr::Not(x) => Value::Bool(!self.bool(x, env)?),
            Expr::Neg(x) => Value::Int(-self.int(x, env)?),
            Expr::Bin(op, a, b, span) => self.binary(*op, a, b, *span, env)?,
            Expr::If(c, a, b) => {
                if self.bool(c, env)? {
                    self.eval(a, env)?
                } else {
                    self.eval(b, env)?
                }
            }
            Expr::Builtin(b, args, span) => self.builtin(*b, args, *span, env)?,
            Expr::CallDef(d, args) => {
                let def = &self.g.defs[*d];
                if env.depth >= MAX_CALL_DEPTH {
                    return Err(err(
                        format!("function `{}` calls itself too deeply", def.name),
                        None,
                    ));
                }
                let mut locals = [Value::None; DEF_LOCALS];
                for (i, a) in args.iter().enumerate() {
                    locals[i] = self.eval(a, env)?;
                }
                let mut inner = Env {
                    locals: &mut locals[..],
                    me: env.me,
                    depth: env.depth + 1,
                };
                self.eval(&def.body, &mut inner)?
            }
            Expr::Agg(a, span) => self.aggregate(a, *span, env)?,
        })
    }

    #[cold]
    fn expected(&self, what: &str, got: Value) -> Box<RunError> {
        err(
            format!(
                "expected {what}, got {}",
                super::show_value(self.g, self.s, got)
            ),
            None,
        )
    }

    /// Evaluates an expression that must give a boolean; any other value is an error.
    pub fn bool(&self, e: &Expr, env: &mut Env) -> Eval<bool> {
        match self.eval(e, env)? {
            Value::Bool(b) => Ok(b),
            other => Err(self.expected("true or false", other)),
        }
    }

    /// Evaluates an expression that must give a number; any other value is an error.
    pub fn int(&self, e: &Expr, env: &mut Env) -> Eval<i64> {
        match self.eval(e, env)? {
            Value::Int(n) => Ok(n),
            other => Err(self.expected("a number", other)),
        }
    }

    #[inline(never)]
    fn binary(&self, op: BinOp, a: &Expr, b: &Expr, span: Span, env: &mut Env) -> Eval<Value> {
        match op {
            BinOp::And => return Ok(Value::Bool(self.bool(a, env)? && self.bool(b, env)?)),
            BinOp::Or => return Ok(Value::Bool(self.bool(a, env)? || self.bool(b, env)?)),
            BinOp::Eq => return Ok(Value::Bool(self.eval(a, env)? == self.eval(b, env)?)),
            BinOp::Ne => return Ok(Value::Bool(self.eval(a, env)? != self.eval(b, env)?)),
            _ => {}
        }
        let x = match self.eval(a, env)? {
            Value::Int(n) => n,
            other => {
                return Err(err(
                    format!(
                        "`{}` needs numbers, got {}",
                        op.symbol(),
                        super::show_value(self.g, self.s, other)
                    ),
                    Some(span),
                ))
            }
        };
        let y = match self.eval(b, env)? {
            Value::Int(n) => n,
            other => {
                return Err(err(
                    format!(
                        "`{}` needs numbers, got {}",
                        op.symbol(),
                        super::show_value(self.g, self.s, other)
                    ),
                    Some(span),
                ))
            }
        };
        let overflow = || err("arithmetic overflow", Some(span));
        Ok(match op {
            BinOp::Add => Value::Int(x.checked_add(y).ok_or_else(overflow)?),
            BinOp::Sub => Value::Int(x.checked_sub(y).ok_or_else(overflow)?),
            BinOp::Mul => Value::Int(x.checked_mul(y).ok_or_else(overflow)?),
            BinOp::Div | BinOp::Mod if y == 0 => return Err(err("division by zero", Some(span))),
            BinOp::Div => Value::Int(x.div_euclid(y)),
            BinOp::Mod => Value::Int(x.rem_euclid(y)),
            BinOp::Lt => Value::Bool(x < y),
            BinOp::Le => Value::Bool(x <= y),
            BinOp::Gt => Value::Bool(x > y),
            BinOp::Ge => Value::Bool(x >= y),
            _ => unreachable!("handled above"),
        })
    }

    #[inline(always)]
    fn index_of(&self, v: Value) -> Eval<u32> {
        match v {
            Value::Player(p) => Ok(p as u32),
            Value::Enum(_, i) => Ok(i as u32),
            Value::Space(_, s) => Ok(s),
            other => Err(err(
                format!(
                    "cannot index by {}",
                    super::show_value(self.g, self.s, other)
                ),
                None,
            )),
        }
    }

    /// The slot in [`State::var`] of variable `v` at the indexes `ix` (row-major over its
    /// dimensions; players, enum values and spaces index by their number).
    pub fn var_slot(&self, v: VarId, ix: &[Expr], env: &mut Env) -> Eval<usize> {
        let var = &self.g.vars[v];
        if let [x] = ix {
            let n = self.index_of(self.eval(x, env)?)?;
            return Ok((var.base + n) as usize);
        }
        let mut k = 0u32;
        for (i, x) in ix.iter().enumerate() {
            let n = self.index_of(self.eval(x, env)?)?;
            k = k * var.sizes[i] + n;
        }
        Ok((var.base + k) as usize)
    }

    /// The zone instance of zone declaration `z` at the indexes `ix` (row-major, from the
    /// zone's [`base`](crate::ir::ZoneDef::base)).
    pub fn zone_inst(&self, z: ZoneId, ix: &[Expr], env: &mut Env) -> Eval<InstId> {
        let zone = &self.g.zones[z];
        let mut k = 0u32;
        for (i, x) in ix.iter().enumerate() {
            let n = self.index_of(self.eval(x, env)?)?;
            k = k * zone.sizes[i] + n;
        }
        Ok(InstId(zone.base.0 + k))
    }

    /// Evaluates an expression that must give a zone instance; any other value is an error.
    pub fn zone(&self, e: &Expr, env: &mut Env) -> Eval<InstId> {
        match self.eval(e, env)? {
            Value::Zone(z) => Ok(z),
            other => Err(self.expected("a zone", other)),
        }
    }

    /// Evaluates an expression that must give a component; any other value (`none` too) is an
    /// error.
    pub fn comp(&self, e: &Expr, env: &mut Env) -> Eval<CompId> {
        match self.eval(e, env)? {
            Value::Comp(c) => Ok(c),
            other => Err(self.expected("a component", other)),
        }
    }

    fn builtin(&self, b: Builtin, args: &[Expr], span: Span, env: &mut Env) -> Eval<Value> {
        let s = self.s;
        Ok(match b {
            Builtin::Count => Value::Int(s.zones[self.zone(&args[0], env)?].len() as i64),
            Builtin::Top => s.zones[self.zone(&args[0], env)?]
                .last()
                .map_or(Value::None, |c| Value::Comp(*c)),
            Builtin::Bottom => s.zones[self.zone(&args[0], env)?]
                .first()
                .map_or(Value::None, |c| Value::Comp(*c)),
            Builtin::Empty => Value::Bool(s.zones[self.zone(&args[0], env)?].is_empty()),
            Builtin::Next | Builtin::Prev => match self.eval(&args[0], env)? {
                Value::Player(p) => {
                    let n = s.players;
                    Value::Player(if b == Builtin::Next {
                        (p + 1) % n
                    } else {
                        (p + n - 1) % n
                    })
                }
                other => {
                    return Err(err(
                        format!(
                            "expected a player, got {}",
                            super::show_value(self.g, s, other)
                        ),
                        Some(span),
                    ))
                }
            },
            Builtin::Owner => match self.eval(&args[0], env)? {
                Value::Comp(c) => self.g.instances[s.loc[c]]
                    .owner
                    .map_or(Value::None, Value::Player),
                _ => Value::None,
            },
            Builtin::SpaceOf => match self.eval(&args[0], env)? {
                Value::Comp(c) => self.g.instances[s.loc[c]]
                    .space
                    .map_or(Value::None, |(b, i)| Value::Space(b, i)),
                _ => Value::None,
            },
            Builtin::ZoneOf => match self.eval(&args[0], env)? {
                Value::Comp(c) => Value::Zone(s.loc[c]),
                _ => Value::None,
            },
            Builtin::Seat => {
                let n = self.int(&args[0], env)?;
                if n < 0 || n >= s.players as i64 {
                    return Err(err(
                        format!("there is no seat {n} with {} players", s.players),
                        Some(span),
                    ));
                }
                Value::Player(n as u8)
            }
            Builtin::Abs => Value::Int(self.int(&args[0], env)?.abs()),
            Builtin::Max2 => Value::Int(self.int(&args[0], env)?.max(self.int(&args[1], env)?)),
            Builtin::Min2 => Value::Int(self.int(&args[0], env)?.min(self.int(&args[1], env)?)),
        })
    }

    /// Calls `f` with each element of a collection until it returns `false`.
    /// Components of one zone with equal fields are offered once when `dedup` is set.
    pub fn each(
        &self,
        c: &Coll,
        env: &mut Env,
        dedup: bool,
        f: &mut dyn FnMut(Value, &mut Env) -> Eval<bool>,
    ) -> Eval<()> {
        match c {
            Coll::Zone(z) => {
                let z = self.zone(z, env)?;
                let items = &self.s.zones[z];
                for (i, &comp) in items.iter().enumerate() {
                    if dedup && items[..i].iter().any(|&o| self.same_for(o, comp, env.me)) {
                        continue;
                    }
                    if !f(Value::Comp(comp), env)? {
                        break;
                    }
                }
            }
            Coll::Board(b) => {
                for sp in 0..self.g.boards[*b].len() {
                    if !f(Value::Space(*b, sp), env)? {
                        break;
                    }
                }
            }
            Coll::Enum(e) => {
                for v in 0..self.g.enums[*e].values.len() as u16 {
                    if !f(Value::Enum(*e, v), env)? {
                        break;
                    }
                }
            }
            Coll::Type(t) => {
                for (i, comp) in self.g.comps.enumerate() {
                    if comp.ty == *t && !f(Value::Comp(i), env)? {
                        break;
                    }
                }
            }
            Coll::Players => {
                for p in 0..self.s.players {
                    if !f(Value::Player(p), env)? {
                        break;
                    }
                }
            }
            Coll::Range(a, b) => {
                let (a, b) = (self.int(a, env)?, self.int(b, env)?);
                for n in a..=b {
                    if !f(Value::Int(n), env)? {
                        break;
                    }
                }
            }
            Coll::List(items) => {
                for x in items {
                    let v = self.eval(x, env)?;
                    if !f(v, env)? {
                        break;
                    }
                }
            }
            Coll::Paths {
                board,
                slot,
                from,
                steps,
                cond,
            } => {
                let Value::Space(_, start) = self.eval(from, env)? else {
                    return Ok(());
                };
                let n = self.int(steps, env)?.max(0) as usize;
                let b = &self.g.boards[*board];
                let mut visited = vec![false; b.len() as usize];
                let mut reached = vec![false; b.len() as usize];
                let mut ok = vec![None; b.len() as usize];
                visited[start as usize] = true;
                self.walk(
                    *board,
                    *slot,
                    cond.as_ref(),
                    start,
                    n,
                    &mut visited,
                    &mut reached,
                    &mut ok,
                    env,
                )?;
                for (sp, r) in reached.iter().enumerate() {
                    if *r && !f(Value::Space(*board, sp as u32), env)? {
                        break;
                    }
                }
            }
            Coll::Group {
                board,
                slot,
                start,
                cond,
            } => {
                let Value::Space(_, start) = self.eval(start, env)? else {
                    return Ok(());
                };
                let b = &self.g.boards[*board];
                let mut member = vec![false; b.len() as usize];
                let mut seen = vec![false; b.len() as usize];
                let mut stack = vec![start];
                seen[start as usize] = true;
                while let Some(sp) = stack.pop() {
                    if !self.space_ok(*board, *slot, cond.as_ref(), sp, env)? {
                        continue;
                    }
                    member[sp as usize] = true;
                    for &nb in b.neighbours(sp) {
                        if !seen[nb as usize] {
                            seen[nb as usize] = true;
                            stack.push(nb);
                        }
                    }
                }
                for (sp, m) in member.iter().enumerate() {
                    if *m && !f(Value::Space(*board, sp as u32), env)? {
                        break;
                    }
                }
            }
            Coll::Adjacent(x) => match self.eval(x, env)? {
                Value::Space(b, sp) => {
                    for &n in self.g.boards[b].neighbours(sp) {
                        if !f(Value::Space(b, n), env)? {
                            break;
                        }
                    }
                }
                Value::None => {}
                other => {
                    return Err(err(
                        format!(
                            "`adjacent` needs a space, got {}",
                            super::show_value(self.g, self.s, other)
                        ),
                        None,
                    ))
                }
            },
        }
        Ok(())
    }

    /// Does a space meet a `where` condition (with the space bound to `slot`)?
    fn space_ok(
        &self,
        board: BoardId,
        slot: u16,
        cond: Option<&Expr>,
        sp: u32,
        env: &mut Env,
    ) -> Eval<bool> {
        let Some(c) = cond else { return Ok(true) };
        let saved = env.locals[slot as usize];
        env.locals[slot as usize] = Value::Space(board, sp);
        let r = self.bool(c, env);
        env.locals[slot as usize] = saved;
        r
    }

    /// Depth-first walk of simple paths: marks the spaces reached after exactly `left` more steps.
    #[allow(clippy::too_many_arguments)]
    fn walk(
        &self,
        board: BoardId,
        slot: u16,
        cond: Option<&Expr>,
        at: u32,
        left: usize,
        visited: &mut [bool],
        reached: &mut [bool],
        ok: &mut [Option<bool>],
        env: &mut Env,
    ) -> Eval<()> {
        if left == 0 {
            reached[at as usize] = true;
            return Ok(());
        }
        for &nb in self.g.boards[board].neighbours(at) {
            if visited[nb as usize] {
                continue;
            }
            let passes = match ok[nb as usize] {
                Some(v) => v,
                None => {
                    let v = self.space_ok(board, slot, cond, nb, env)?;
                    ok[nb as usize] = Some(v);
                    v
                }
            };
            if passes {
                visited[nb as usize] = true;
                self.walk(board, slot, cond, nb, left - 1, visited, reached, ok, env)?;
                visited[nb as usize] = false;
            }
        }
        Ok(())
    }

    /// Two components look the same to `seat`: same type, and equal in every field the seat
    /// may see (so that a choice never reveals a secret by offering two options).
    pub fn same_for(&self, a: CompId, b: CompId, seat: u8) -> bool {
        let (ca, cb) = (&self.g.comps[a], &self.g.comps[b]);
        if ca.ty != cb.ty {
            return false;
        }
        let fields = &self.g.types[ca.ty].fields;
        fields.iter().enumerate().all(|(f, fd)| {
            let (x, y) = (
                self.s.fields[(ca.field_base + f as u32) as usize],
                self.s.fields[(cb.field_base + f as u32) as usize],
            );
            x == y
                || (fd.seen_by.is_some()
                    && !super::field_visible(self.g, self.s, a, f as u16, Some(seat))
                    && !super::field_visible(self.g, self.s, b, f as u16, Some(seat)))
        })
    }

    /// Two components are interchangeable when they have the same type and field values.
    pub fn same_fields(&self, a: CompId, b: CompId) -> bool {
        let (ca, cb) = (&self.g.comps[a], &self.g.comps[b]);
        if ca.ty != cb.ty {
            return false;
        }
        let n = ca.fields.len() as u32;
        let fa = &self.s.fields[ca.field_base as usize..(ca.field_base + n) as usize];
        let fb = &self.s.fields[cb.field_base as usize..(cb.field_base + n) as usize];
        fa == fb
    }

    fn aggregate(&self, a: &crate::ir::Agg, span: Span, env: &mut Env) -> Eval<Value> {
        if a.kind == AggKind::BestSets {
            return self.best_sets(a, span, env);
        }
        if a.kind == AggKind::Line {
            return self.line(a, env);
        }
        let mut count = 0i64;
        let mut acc: Option<Value> = None;
        let mut sum = 0i64;
        let mut done = false;
        self.agg_rec(a, 0, env, &mut |ctx, env| {
            if let Some(f) = &a.filter {
                if !ctx.bool(f, env)? {
                    // `all(x in C where c)` with no `: value`: every element must pass `c`.
                    if a.kind == AggKind::All && a.body.is_none() {
                        done = true;
                        return Ok(false);
                    }
                    return Ok(true);
                }
            }
            let v = match &a.body {
                Some(b) => ctx.eval(b, env)?,
                None => env.locals[a.binds[0].slot as usize],
            };
            count += 1;
            match a.kind {
                AggKind::Count => {}
                AggKind::Sum => match v {
                    Value::Int(n) => {
                        sum = sum
                            .checked_add(n)
                            .ok_or_else(|| err("arithmetic overflow in `sum`", Some(span)))?
                    }
                    _ => return Err(err("`sum` needs numbers", Some(span))),
                },
                AggKind::Max | AggKind::Min => {
                    let n = match v {
                        Value::Int(n) => n,
                        _ => return Err(err("`max`/`min` need numbers", Some(span))),
                    };
                    acc = Some(match acc {
                        Some(Value::Int(m))
                            if (a.kind == AggKind::Max && m >= n)
                                || (a.kind == AggKind::Min && m <= n) =>
                        {
                            Value::Int(m)
                        }
                        _ => Value::Int(n),
                    });
                }
                AggKind::Any => {
                    if a.body.is_none() || v == Value::Bool(true) {
                        done = true;
                        return Ok(false);
                    }
                }
                AggKind::All => {
                    if a.body.is_some() && v != Value::Bool(true) {
                        done = true;
                        return Ok(false);
                    }
                }
                AggKind::First => {
                    acc = Some(v);
                    return Ok(false);
                }
                AggKind::Line | AggKind::BestSets => {}
            }
            Ok(true)
        })?;
        Ok(match a.kind {
            AggKind::Count => Value::Int(count),
            AggKind::Sum => Value::Int(sum),
            AggKind::Any => Value::Bool(done),
            AggKind::All => Value::Bool(!done),
            AggKind::Max | AggKind::Min | AggKind::First => match acc {
                Some(v) => v,
                None => match &a.otherwise {
                    Some(o) => self.eval(o, env)?,
                    None => Value::None,
                },
            },
            AggKind::Line | AggKind::BestSets => Value::None,
        })
    }

    fn agg_rec(
        &self,
        a: &crate::ir::Agg,
        k: usize,
        env: &mut Env,
        f: &mut dyn FnMut(&Self, &mut Env) -> Eval<bool>,
    ) -> Eval<bool> {
        if k == a.binds.len() {
            return f(self, env);
        }
        let b = &a.binds[k];
        let mut go_on = true;
        self.each(&b.coll, env, false, &mut |v, env| {
            env.locals[b.slot as usize] = v;
            go_on = self.agg_rec(a, k + 1, env, f)?;
            Ok(go_on)
        })?;
        Ok(go_on)
    }

    /// `best_sets(c in C, kinds...)`: the most points a player gets by forming disjoint sets
    /// of the kinds from C, every member serving one set at most.
    fn best_sets(&self, a: &crate::ir::Agg, span: Span, env: &mut Env) -> Eval<Value> {
        let mut pool = Vec::new();
        let slot = a.binds[0].slot as usize;
        self.each(&a.binds[0].coll, env, false, &mut |v, env| {
            env.locals[slot] = v;
            if a.filter.as_ref().map_or(Ok(true), |f| self.bool(f, env))? {
                pool.push(v);
            }
            Ok(true)
        })?;
        if pool.len() > 64 {
            return Err(err(
                format!("`best_sets` takes at most 64 members, got {}", pool.len()),
                Some(span),
            ));
        }
        // Every way to form each kind of set, as (members mask, points); the best per mask.
        let mut found: Vec<(u64, i64)> = Vec::new();
        for &s in &a.sets {
            let set = &self.g.sets[s];
            let mut locals = [Value::None; DEF_LOCALS];
            let mut inner = Env {
                locals: &mut locals[..],
                me: env.me,
                depth: env.depth + 1,
            };
            self.form(set, &pool, 0, 0, &mut inner, &mut found)?;
        }
        found.sort_unstable();
        found.dedup_by(|x, y| {
            if x.0 == y.0 {
                y.1 = y.1.max(x.1);
                true
            } else {
                false
            }
        });
        let useful = found.iter().fold(0u64, |m, f| m | f.0);
        let mut memo = std::collections::HashMap::new();
        Ok(Value::Int(best_from(!useful, &found, &mut memo)))
    }

    /// Chooses members for `set` one parameter at a time, pruning with the conditions whose
    /// parameters are all chosen.
    fn form(
        &self,
        set: &crate::ir::SetDef,
        pool: &[Value],
        k: u16,
        used: u64,
        env: &mut Env,
        out: &mut Vec<(u64, i64)>,
    ) -> Eval<()> {
        if k == set.params {
            let pts = self.int(&set.points, env)?;
            if pts > 0 {
                out.push((used, pts));
            }
            return Ok(());
        }
        'member: for (i, &v) in pool.iter().enumerate() {
            if used & (1 << i) != 0 {
                continue;
            }
            env.locals[k as usize] = v;
            for (need, c) in &set.conds {
                if *need == k && !self.bool(c, env)? {
                    continue 'member;
                }
            }
            self.form(set, pool, k + 1, used | (1 << i), env, out)?;
        }
        Ok(())
    }

    /// `line(s in board, n where cond)`: n consecutive spaces in a straight line all meet cond.
    fn line(&self, a: &crate::ir::Agg, env: &mut Env) -> Eval<Value> {
        let (Some(bind), Some(n)) = (a.binds.first(), a.args.first()) else {
            return Ok(Value::Bool(false));
        };
        let Coll::Board(bi) = bind.coll else {
            return Ok(Value::Bool(false));
        };
        let n = self.int(n, env)?.max(1);
        // With a third argument, only the lines through that space are looked at.
        let through = match a.args.get(1) {
            Some(x) => match self.eval(x, env)? {
                Value::Space(_, s) => Some(s as i64),
                _ => return Ok(Value::Bool(false)),
            },
            None => None,
        };
        let board = &self.g.boards[bi];
        let slot = bind.slot as usize;
        let test = |sp: u32, env: &mut Env| -> Eval<bool> {
            env.locals[slot] = Value::Space(bi, sp);
            match &a.filter {
                Some(f) => self.bool(f, env),
                None => Ok(true),
            }
        };
        match board.shape {
            crate::ir::BoardShape::Grid { width, height, .. } => {
                let (w, h) = (width as i64, height as i64);
                if let Some(t) = through {
                    let (tx, ty) = (t % w, t / w);
                    for (dx, dy) in [(1i64, 0i64), (0, 1), (1, 1), (-1, 1)] {
                        // Count matching spaces on both sides of `t` along this direction.
                        let mut run = 1;
                        for sign in [1i64, -1] {
                            let mut k = 1;
                            loop {
                                let (x, y) = (tx + sign * dx * k, ty + sign * dy * k);
                                if x < 0
                                    || y < 0
                                    || x >= w
                                    || y >= h
                                    || run >= n
                                    || !test((y * w + x) as u32, env)?
                                {
                                    break;
                                }
                                run += 1;
                                k += 1;
                            }
                        }
                        if run >= n && test(t as u32, env)? {
                            return Ok(Value::Bool(true));
                        }
                    }
                    return Ok(Value::Bool(false));
                }
                for y in 0..h {
                    for x in 0..w {
                        'dir: for (dx, dy) in [(1i64, 0i64), (0, 1), (1, 1), (-1, 1)] {
                            let (ex, ey) = (x + dx * (n - 1), y + dy * (n - 1));
                            if ex < 0 || ex >= w || ey >= h {
                                continue;
                            }
                            for k in 0..n {
                                if !test(((y + dy * k) * w + x + dx * k) as u32, env)? {
                                    continue 'dir;
                                }
                            }
                            return Ok(Value::Bool(true));
                        }
                    }
                }
            }
            crate::ir::BoardShape::Ring { size } => {
                let size = size as i64;
                let starts: Vec<i64> = match through {
                    Some(t) => (0..n.min(size)).map(|k| (t - k).rem_euclid(size)).collect(),
                    None => (0..size).collect(),
                };
                'start: for s0 in starts {
                    for k in 0..n.min(size) {
                        if !test(((s0 + k) % size) as u32, env)? {
                            continue 'start;
                        }
                    }
                    return Ok(Value::Bool(true));
                }
            }
        }
        Ok(Value::Bool(false))
    }
}

/// The best total from sets not touching `used`: the lowest free member either stays out,
/// or joins one of the sets that contain it.
fn best_from(
    used: u64,
    sets: &[(u64, i64)],
    memo: &mut std::collections::HashMap<u64, i64>,
) -> i64 {
    if used == u64::MAX {
        return 0;
    }
    if let Some(v) = memo.get(&used) {
        return *v;
    }
    let i = (!used).trailing_zeros();
    let bit = 1u64 << i;
    let mut best = best_from(used | bit, sets, memo);
    for &(mask, pts) in sets {
        if mask & bit != 0 && mask & used == 0 {
            best = best.max(pts + best_from(used | mask, sets, memo));
        }
    }
    memo.insert(used, best);
    best
}
