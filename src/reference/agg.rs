//! Aggregates (section 8 of the reference): folds over every combination of the bindings,
//! and `line`, `connected`, `best_sets` and `majority`.

use super::{rule, Ref};
use crate::engine::RunError;
use crate::ir::*;
use std::collections::HashMap;

/// How a fold goes on after one element.
enum Go {
    /// To the next element.
    On,
    /// Stop: the result is known.
    Stop,
}

/// What a fold has gathered so far.
struct Fold {
    count: i64,
    sum: i64,
    best: Option<i64>,
    /// `any`: an element passed; `all`: an element failed; `first`: its value.
    found: Option<Value>,
}

impl Ref<'_> {
    /// The value of an aggregate.
    pub(super) fn aggregate(&self, a: &Agg, l: &mut [Value], me: u8) -> Result<Value, RunError> {
        match a.kind {
            AggKind::Line => return self.line(a, l, me).map(Value::Bool),
            AggKind::Connected => return self.connected(a, l, me).map(Value::Bool),
            AggKind::BestSets => return self.best_sets(a, l, me).map(Value::Int),
            AggKind::Majority => return self.majority(a, l, me).map(Value::Int),
            AggKind::Count
            | AggKind::Sum
            | AggKind::Max
            | AggKind::Min
            | AggKind::Any
            | AggKind::All
            | AggKind::First => {}
        }
        let mut acc = Fold {
            count: 0,
            sum: 0,
            best: None,
            found: None,
        };
        self.fold(a, 0, &mut acc, l, me)?;
        Ok(match a.kind {
            AggKind::Count => Value::Int(acc.count),
            AggKind::Sum => Value::Int(acc.sum),
            AggKind::Any => Value::Bool(acc.found.is_some()),
            AggKind::All => Value::Bool(acc.found.is_none()),
            AggKind::Max | AggKind::Min | AggKind::First => {
                let found = match a.kind {
                    AggKind::First => acc.found,
                    _ => acc.best.map(Value::Int),
                };
                match (found, &a.otherwise) {
                    (Some(v), _) => v,
                    (None, Some(o)) => self.eval(o, l, me)?,
                    (None, None) => Value::None,
                }
            }
            AggKind::Line | AggKind::Connected | AggKind::BestSets | AggKind::Majority => {
                Value::None
            }
        })
    }

    /// Binds `a.binds[k..]` to every combination of their elements (the last varies
    /// fastest) and folds each; `Stop` when the result is known.
    fn fold(
        &self,
        a: &Agg,
        k: usize,
        acc: &mut Fold,
        l: &mut [Value],
        me: u8,
    ) -> Result<Go, RunError> {
        let Some(b) = a.binds.get(k) else {
            return self.fold_one(a, acc, l, me);
        };
        for v in self.elements(&b.coll, l, me)? {
            match l.get_mut(b.slot as usize) {
                Some(x) => *x = v,
                None => return Err(rule(format!("local slot {} out of the frame", b.slot))),
            }
            if let Go::Stop = self.fold(a, k + 1, acc, l, me)? {
                return Ok(Go::Stop);
            }
        }
        Ok(Go::On)
    }

    /// One combination of a fold's bindings.
    fn fold_one(&self, a: &Agg, acc: &mut Fold, l: &mut [Value], me: u8) -> Result<Go, RunError> {
        let passes = match &a.filter {
            Some(f) => self.bool(f, l, me)?,
            None => true,
        };
        if !passes {
            // `all(x in C where c)` without `: value`: every element must meet `c`.
            if a.kind == AggKind::All && a.body.is_none() {
                acc.found = Some(Value::Bool(false));
                return Ok(Go::Stop);
            }
            return Ok(Go::On);
        }
        acc.count += 1;
        let value = |l: &mut [Value]| match &a.body {
            Some(b) => self.eval(b, l, me),
            None => Ok(a
                .binds
                .first()
                .and_then(|b| l.get(b.slot as usize).copied())
                .unwrap_or_default()),
        };
        match a.kind {
            AggKind::Count => {}
            AggKind::Sum => match value(l)? {
                Value::Int(n) => {
                    acc.sum = (acc.sum.checked_add(n))
                        .ok_or_else(|| rule("arithmetic overflow in `sum`"))?
                }
                _ => return Err(rule("`sum` needs numbers")),
            },
            AggKind::Max | AggKind::Min => {
                let Value::Int(n) = value(l)? else {
                    return Err(rule("`max`/`min` need numbers"));
                };
                acc.best = Some(match acc.best {
                    Some(m) if a.kind == AggKind::Max => m.max(n),
                    Some(m) => m.min(n),
                    None => n,
                });
            }
            AggKind::Any => {
                if a.body.is_none() || self.bool_of(value(l)?)? {
                    acc.found = Some(Value::Bool(true));
                    return Ok(Go::Stop);
                }
            }
            AggKind::All => {
                if a.body.is_some() && !self.bool_of(value(l)?)? {
                    acc.found = Some(Value::Bool(false));
                    return Ok(Go::Stop);
                }
            }
            AggKind::First => {
                acc.found = Some(value(l)?);
                return Ok(Go::Stop);
            }
            AggKind::Line | AggKind::Connected | AggKind::BestSets | AggKind::Majority => {}
        }
        Ok(Go::On)
    }

    /// A value that must be `true` or `false`.
    fn bool_of(&self, v: Value) -> Result<bool, RunError> {
        match v {
            Value::Bool(b) => Ok(b),
            other => Err(rule(format!(
                "expected true or false, got {}",
                self.show(other)
            ))),
        }
    }

    /// `line(s in board, n [, at] where c)`: some `n` consecutive spaces of one line of the
    /// board (a grid's rows, columns and diagonals; a hex board's three axes; a ring going
    /// round; a graph's declared lines) all in play and meeting `c`, through `at` if given.
    fn line(&self, a: &Agg, l: &mut [Value], me: u8) -> Result<bool, RunError> {
        let (Some(bind), Some(n)) = (a.binds.first(), a.args.first()) else {
            return Ok(false);
        };
        let Coll::Board(bd) = bind.coll else {
            return Ok(false);
        };
        // A line past the board's spaces is never found (on a ring, the spaces repeat):
        // cut to one more, so that no run is built longer than that.
        let n = (self.int(n, l, me)?).clamp(1, self.g.boards[bd].len() as i64 + 1);
        let at = match a.args.get(1) {
            Some(x) => match self.eval(x, l, me)? {
                Value::Space(_, s) => Some(s),
                _ => return Ok(false),
            },
            None => None,
        };
        let walk = (bd, bind.slot, a.filter.as_ref());
        let mut known: HashMap<u32, bool> = HashMap::new();
        for run in self.runs(bd, n) {
            if at.is_some_and(|t| !run.contains(&t)) {
                continue;
            }
            let mut all = true;
            for s in run {
                let ok = match known.get(&s) {
                    Some(b) => *b,
                    None => {
                        let b = !self.closed(bd, s) && self.meets(walk, s, l, me)?;
                        known.insert(s, b);
                        b
                    }
                };
                if !ok {
                    all = false;
                    break;
                }
            }
            if all {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Every run of `n` consecutive spaces along a line of the board (closed spaces
    /// included; `line` fails them).
    fn runs(&self, bd: BoardId, n: i64) -> Vec<Vec<u32>> {
        let board = &self.g.boards[bd];
        let len = board.len();
        let mut out = Vec::new();
        let along = |s: u32, d: u16| -> Option<Vec<u32>> {
            let mut run = vec![s];
            let mut at = s;
            while (run.len() as i64) < n {
                let t = *board
                    .geo
                    .steps
                    .get(at as usize * DIRECTION_COUNT + d as usize)?;
                if t == NO_SPACE {
                    return None;
                }
                run.push(t);
                at = t;
            }
            Some(run)
        };
        // The axes: north, northeast, east, northwest on a grid; east, northeast, northwest
        // on a hex board (positions in DIRECTION_NAMES).
        let axes: &[u16] = match board.shape {
            BoardShape::Grid { .. } => &[0, 1, 2, 7],
            BoardShape::Hex { .. } => &[2, 1, 7],
            BoardShape::Ring { .. } | BoardShape::Graph => &[],
        };
        match board.shape {
            BoardShape::Grid { .. } | BoardShape::Hex { .. } => {
                for s in 0..len {
                    out.extend(axes.iter().filter_map(|d| along(s, *d)));
                }
            }
            BoardShape::Ring { size } => {
                for s in 0..size as i64 {
                    out.push((0..n).map(|k| ((s + k) % size as i64) as u32).collect());
                }
            }
            BoardShape::Graph => {
                for line in &board.geo.lines {
                    if n as usize <= line.len() {
                        out.extend(line.windows(n as usize).map(|w| w.to_vec()));
                    }
                }
            }
        }
        out
    }

    /// `connected(s in board, A, B where c)`: a space in play meeting `A` and `c` is joined
    /// to one meeting `B` and `c` through neighbours all meeting `c`.
    fn connected(&self, a: &Agg, l: &mut [Value], me: u8) -> Result<bool, RunError> {
        let (Some(bind), [from, to]) = (a.binds.first(), a.args.as_slice()) else {
            return Ok(false);
        };
        let Coll::Board(bd) = bind.coll else {
            return Ok(false);
        };
        let cond = (bd, bind.slot, a.filter.as_ref());
        let (from, to) = ((bd, bind.slot, Some(from)), (bd, bind.slot, Some(to)));
        let len = self.g.boards[bd].len() as usize;
        let mut seen = vec![false; len];
        let mut todo = Vec::new();
        for s in self.open_spaces(bd).collect::<Vec<_>>() {
            if self.meets(from, s, l, me)? && self.meets(cond, s, l, me)? {
                seen[s as usize] = true;
                todo.push(s);
            }
        }
        while let Some(s) = todo.pop() {
            if self.meets(to, s, l, me)? {
                return Ok(true);
            }
            for t in self.neighbours(bd, s) {
                if !seen[t as usize] {
                    seen[t as usize] = true;
                    if self.meets(cond, t, l, me)? {
                        todo.push(t);
                    }
                }
            }
        }
        Ok(false)
    }

    /// `majority(q in C, points, p: value)`: `p`'s share of `points`, split evenly (rounded
    /// down) among the players of `C` (passing `where`) of highest value, if at least 1.
    fn majority(&self, a: &Agg, l: &mut [Value], me: u8) -> Result<i64, RunError> {
        let (Some(bind), [points, who], Some(body)) = (a.binds.first(), a.args.as_slice(), &a.body)
        else {
            return Ok(0);
        };
        let points = self.int(points, l, me)?;
        let who = self.eval(who, l, me)?;
        let mut values = Vec::new();
        for q in self.elements(&bind.coll, l, me)? {
            let saved = l.get(bind.slot as usize).copied();
            if let Some(x) = l.get_mut(bind.slot as usize) {
                *x = q;
            }
            let takes_part = match &a.filter {
                Some(f) => self.bool(f, l, me),
                None => Ok(true),
            };
            let v = match takes_part {
                Ok(true) => self.int(body, l, me).map(Some),
                Ok(false) => Ok(None),
                Err(e) => Err(e),
            };
            if let (Some(x), Some(old)) = (l.get_mut(bind.slot as usize), saved) {
                *x = old;
            }
            if let Some(v) = v? {
                values.push((q, v));
            }
        }
        let best = values.iter().map(|x| x.1).max().unwrap_or(0);
        let tied = values.iter().filter(|x| x.1 == best).count() as i64;
        let mine = values.iter().rev().find(|x| x.0 == who).map_or(0, |x| x.1);
        Ok(if best >= 1 && mine == best {
            points.div_euclid(tied)
        } else {
            0
        })
    }

    /// `best_sets(c in C, kinds...)`: the most points from disjoint sets of the kinds formed
    /// from the elements of `C` (those passing `where`, reference 8.2), each element in one
    /// set at most.
    fn best_sets(&self, a: &Agg, l: &mut [Value], me: u8) -> Result<i64, RunError> {
        let Some(bind) = a.binds.first() else {
            return Ok(0);
        };
        let mut pool = Vec::new();
        for v in self.elements(&bind.coll, l, me)? {
            if let Some(x) = l.get_mut(bind.slot as usize) {
                *x = v;
            }
            if a.filter
                .as_ref()
                .map_or(Ok(true), |f| self.bool(f, l, me))?
            {
                pool.push(v);
            }
        }
        if pool.len() > 64 {
            let msg = format!("`best_sets` takes at most 64 members, got {}", pool.len());
            return Err(rule(msg));
        }
        // Every set that can be formed: (its members as bits, its points).
        let mut sets: Vec<(u64, i64)> = Vec::new();
        for &kind in &a.sets {
            let def = &self.g.sets[kind];
            let inner = self.deeper(&def.name)?;
            let mut members = [Value::None; DEF_LOCALS];
            inner.form(def, &pool, 0, 0, &mut members, me, &mut sets)?;
        }
        let mut memo = HashMap::new();
        Ok(best_from(0, pool.len(), &sets, &mut memo))
    }

    /// Chooses the members of a set kind from `k` on, testing each condition once the
    /// members it needs are chosen; every complete set worth more than 0 goes to `out`.
    #[allow(clippy::too_many_arguments)]
    fn form(
        &self,
        def: &SetDef,
        pool: &[Value],
        k: u16,
        used: u64,
        l: &mut [Value],
        me: u8,
        out: &mut Vec<(u64, i64)>,
    ) -> Result<(), RunError> {
        if k == def.params {
            let points = self.int(&def.points, l, me)?;
            if points > 0 {
                out.push((used, points));
            }
            return Ok(());
        }
        'member: for (i, v) in pool.iter().enumerate() {
            if used & (1 << i) != 0 {
                continue;
            }
            self.spend(1)?;
            match l.get_mut(k as usize) {
                Some(x) => *x = *v,
                None => return Err(rule(format!("set `{}` has too many members", def.name))),
            }
            for (need, c) in &def.conds {
                if *need == k && !self.bool(c, l, me)? {
                    continue 'member;
                }
            }
            self.form(def, pool, k + 1, used | (1 << i), l, me, out)?;
        }
        Ok(())
    }
}

/// The most points from sets none of whose members is in `used`: the first free member
/// either stays out of every set, or joins one of the sets holding it.
fn best_from(used: u64, n: usize, sets: &[(u64, i64)], memo: &mut HashMap<u64, i64>) -> i64 {
    let Some(first) = (0..n).find(|i| used & (1 << i) == 0) else {
        return 0;
    };
    if let Some(v) = memo.get(&used) {
        return *v;
    }
    let bit = 1u64 << first;
    let mut best = best_from(used | bit, n, sets, memo);
    for &(mask, points) in sets {
        if mask & bit != 0 && mask & used == 0 {
            best = best.max(points + best_from(used | mask, n, sets, memo));
        }
    }
    memo.insert(used, best);
    best
}
