//! Expressions and built-in functions, walked as a tree.

use super::{rule, Ref};
use crate::engine::{show_value, RunError};
use crate::ir::*;

impl Ref<'_> {
    /// The value of an expression, with `locals` holding the slots it reads and `me` the
    /// acting player.
    pub(super) fn eval(&self, e: &Expr, l: &mut [Value], me: u8) -> Result<Value, RunError> {
        Ok(match e {
            Expr::Lit(v) => *v,
            Expr::Const(c) => self.s.consts.get(*c).copied().unwrap_or_default(),
            Expr::Local(i) => match l.get(*i as usize) {
                Some(v) => *v,
                None => return Err(rule(format!("local slot {i} out of the frame"))),
            },
            Expr::Me => Value::Player(me),
            Expr::Current => self.s.current().map_or(Value::None, Value::Player),
            Expr::PlayerCount => Value::Int(self.s.players as i64),
            Expr::Var(v, ix) => {
                let def = &self.g.vars[*v];
                let k = self.flat_index(&def.name, &def.sizes, ix, l, me)?;
                self.s.var(def.base as usize + k as usize)
            }
            Expr::Zone(z, ix) => {
                let def = &self.g.zones[*z];
                let k = self.flat_index(&def.name, &def.sizes, ix, l, me)?;
                Value::Zone(InstId(def.base.0 + k))
            }
            Expr::Field(c, f) => match self.eval(c, l, me)? {
                Value::Comp(c) if (*f as usize) < self.g.comps[c].fields.len() => {
                    self.s.field(c, *f, self.g)
                }
                Value::None => return Err(rule("a field of `none` was read (no component here)")),
                other => return Err(rule(format!("a field of {} was read", self.show(other)))),
            },
            Expr::Not(x) => Value::Bool(!self.bool(x, l, me)?),
            Expr::Neg(x) => match self.int(x, l, me)?.checked_neg() {
                Some(n) => Value::Int(n),
                None => return Err(rule("arithmetic overflow in `-`")),
            },
            Expr::Bin(op, a, b, _) => self.binary(*op, a, b, l, me)?,
            Expr::If(c, a, b) => {
                if self.bool(c, l, me)? {
                    self.eval(a, l, me)?
                } else {
                    self.eval(b, l, me)?
                }
            }
            Expr::Builtin(b, args, _) => self.builtin(*b, args, l, me)?,
            Expr::CallDef(d, args) => self.call(*d, args, l, me)?,
            Expr::Agg(a, _) => self.aggregate(a, l, me)?,
            // The effect is run by the engine (what a statement does is not the reference's
            // to say); the body is read here, in the state it leaves.
            Expr::After(a) => {
                let mut args = Vec::with_capacity(a.args.len());
                for x in &a.args {
                    args.push(self.eval(x, l, me)?);
                }
                let who = match self.eval(&a.me, l, me)? {
                    Value::Player(p) if p < self.s.players => p,
                    other => return Err(rule(format!("`after` for {}", self.show(other)))),
                };
                self.spend(1)?;
                let node = self.g.after_state(self.s, a.action, &args, who)?;
                let r = super::Ref {
                    s: &node,
                    depth: self.depth + 1,
                    ..*self
                };
                r.eval(&a.body, l, me)?
            }
        })
    }

    /// A value as the rules show it (for messages).
    pub(super) fn show(&self, v: Value) -> String {
        show_value(self.g, self.s, v)
    }

    /// An expression that must give `true` or `false`.
    pub(super) fn bool(&self, e: &Expr, l: &mut [Value], me: u8) -> Result<bool, RunError> {
        match self.eval(e, l, me)? {
            Value::Bool(b) => Ok(b),
            other => Err(rule(format!(
                "expected true or false, got {}",
                self.show(other)
            ))),
        }
    }

    /// An expression that must give a number.
    pub(super) fn int(&self, e: &Expr, l: &mut [Value], me: u8) -> Result<i64, RunError> {
        match self.eval(e, l, me)? {
            Value::Int(n) => Ok(n),
            other => Err(rule(format!("expected a number, got {}", self.show(other)))),
        }
    }

    /// An expression that must give a zone instance.
    pub(super) fn zone(&self, e: &Expr, l: &mut [Value], me: u8) -> Result<InstId, RunError> {
        match self.eval(e, l, me)? {
            Value::Zone(z) if (z.0 as usize) < self.g.instances.len() => Ok(z),
            other => Err(rule(format!("expected a zone, got {}", self.show(other)))),
        }
    }

    /// The row-major position of the indexes `ix` in dimensions of `sizes`: a player, an
    /// enum value or a space indexes by its number, which must lie within its dimension.
    fn flat_index(
        &self,
        name: &str,
        sizes: &[u32],
        ix: &[Expr],
        l: &mut [Value],
        me: u8,
    ) -> Result<u32, RunError> {
        let mut k: u64 = 0;
        for (i, x) in ix.iter().enumerate() {
            let n = match self.eval(x, l, me)? {
                Value::Player(p) => p as u32,
                Value::Enum(_, v) => v as u32,
                Value::Space(_, s) => s,
                // a range index, its low end already subtracted by the checker
                Value::Int(n) => u32::try_from(n).unwrap_or(u32::MAX),
                other => return Err(rule(format!("cannot index by {}", self.show(other)))),
            };
            let size = sizes.get(i).copied().unwrap_or(0);
            if n >= size {
                return Err(rule(format!("an index of `{name}` is out of its range")));
            }
            k = k * size as u64 + n as u64;
        }
        Ok(k as u32)
    }

    /// `a op b`: `and` and `or` evaluate their right side only when needed.
    fn binary(
        &self,
        op: BinOp,
        a: &Expr,
        b: &Expr,
        l: &mut [Value],
        me: u8,
    ) -> Result<Value, RunError> {
        match op {
            BinOp::And => return Ok(Value::Bool(self.bool(a, l, me)? && self.bool(b, l, me)?)),
            BinOp::Or => return Ok(Value::Bool(self.bool(a, l, me)? || self.bool(b, l, me)?)),
            BinOp::Eq => return Ok(Value::Bool(self.eval(a, l, me)? == self.eval(b, l, me)?)),
            BinOp::Ne => return Ok(Value::Bool(self.eval(a, l, me)? != self.eval(b, l, me)?)),
            _ => {}
        }
        let (x, y) = match (self.eval(a, l, me)?, self.eval(b, l, me)?) {
            (Value::Int(x), Value::Int(y)) => (x, y),
            (Value::Int(_), other) | (other, _) => {
                let msg = format!("`{}` needs numbers, got {}", op.symbol(), self.show(other));
                return Err(rule(msg));
            }
        };
        let overflow = || rule(format!("arithmetic overflow in `{}`", op.symbol()));
        Ok(match op {
            BinOp::Add => Value::Int(x.checked_add(y).ok_or_else(overflow)?),
            BinOp::Sub => Value::Int(x.checked_sub(y).ok_or_else(overflow)?),
            BinOp::Mul => Value::Int(x.checked_mul(y).ok_or_else(overflow)?),
            BinOp::Pow => match u32::try_from(y) {
                Ok(y) => Value::Int(x.checked_pow(y).ok_or_else(overflow)?),
                Err(_) if y < 0 => return Err(rule("a negative power")),
                Err(_) => return Err(overflow()),
            },
            BinOp::Div | BinOp::Mod if y == 0 => return Err(rule("division by zero")),
            BinOp::Div => Value::Int(x.checked_div_euclid(y).ok_or_else(overflow)?),
            BinOp::Mod => Value::Int(x.checked_rem_euclid(y).ok_or_else(overflow)?),
            BinOp::Lt => Value::Bool(x < y),
            BinOp::Le => Value::Bool(x <= y),
            BinOp::Gt => Value::Bool(x > y),
            BinOp::Ge => Value::Bool(x >= y),
            BinOp::And | BinOp::Or | BinOp::Eq | BinOp::Ne => Value::None,
        })
    }

    /// A call of a function: its arguments in fresh locals, `me` the caller's.
    fn call(&self, d: DefId, args: &[Expr], l: &mut [Value], me: u8) -> Result<Value, RunError> {
        let def = &self.g.defs[d];
        let mut inner = [Value::None; DEF_LOCALS];
        for (i, a) in args.iter().enumerate() {
            let v = self.eval(a, l, me)?;
            match inner.get_mut(i) {
                Some(slot) => *slot = v,
                None => return Err(rule(format!("too many arguments to `{}`", def.name))),
            }
        }
        self.spend(1)?;
        let deeper = self.deeper(&def.name)?;
        deeper.eval(&def.body, &mut inner, me)
    }

    /// The same evaluator one call deeper; an error past [`MAX_CALL_DEPTH`].
    pub(super) fn deeper(&self, name: &str) -> Result<Self, RunError> {
        if self.depth >= MAX_CALL_DEPTH {
            return Err(rule(format!("function `{name}` calls itself too deeply")));
        }
        Ok(Ref {
            depth: self.depth + 1,
            ..*self
        })
    }

    /// A built-in function (section 7 of the reference).
    fn builtin(
        &self,
        b: Builtin,
        args: &[Expr],
        l: &mut [Value],
        me: u8,
    ) -> Result<Value, RunError> {
        let arg = |i: usize| {
            args.get(i)
                .ok_or_else(|| rule(format!("`{b:?}` is missing an argument")))
        };
        let s = self.s;
        let players = s.players;
        Ok(match b {
            Builtin::Repeated => {
                let Some((Expr::Lit(Value::Int(m)), parts)) = args.split_last() else {
                    return Err(rule("`repeated` without its memory"));
                };
                let mut position = Vec::with_capacity(parts.len());
                for x in parts {
                    position.push(self.eval(x, l, me)?);
                }
                Value::Int(s.times_remembered(*m as usize, &position) as i64)
            }
            Builtin::Count => Value::Int(s.zone(self.zone(arg(0)?, l, me)?).len() as i64),
            Builtin::Top => {
                (s.zone(self.zone(arg(0)?, l, me)?).last()).map_or(Value::None, |c| Value::Comp(*c))
            }
            Builtin::Bottom => (s.zone(self.zone(arg(0)?, l, me)?).first())
                .map_or(Value::None, |c| Value::Comp(*c)),
            Builtin::Empty => Value::Bool(s.zone(self.zone(arg(0)?, l, me)?).is_empty()),
            Builtin::Next | Builtin::Prev => match self.eval(arg(0)?, l, me)? {
                Value::Player(p) if p < players => Value::Player(if b == Builtin::Next {
                    (p + 1) % players
                } else {
                    (p + players - 1) % players
                }),
                other => return Err(rule(format!("expected a player, got {}", self.show(other)))),
            },
            Builtin::Owner | Builtin::SpaceOf | Builtin::ZoneOf => {
                let Value::Comp(c) = self.eval(arg(0)?, l, me)? else {
                    return Ok(Value::None);
                };
                let inst = self.place_of(c);
                let at = &self.g.instances[inst];
                match b {
                    Builtin::Owner => at.owner.map_or(Value::None, Value::Player),
                    Builtin::SpaceOf => at.space.map_or(Value::None, |(b, i)| Value::Space(b, i)),
                    _ => Value::Zone(inst),
                }
            }
            Builtin::Seat => match self.eval(arg(0)?, l, me)? {
                Value::Int(n) if n >= 0 && n < players as i64 => Value::Player(n as u8),
                Value::Int(n) => {
                    return Err(rule(format!("there is no seat {n} with {players} players")))
                }
                other => return Err(rule(format!("expected a number, got {}", self.show(other)))),
            },
            Builtin::Abs => match self.int(arg(0)?, l, me)?.checked_abs() {
                Some(n) => Value::Int(n),
                None => return Err(rule("arithmetic overflow in `abs`")),
            },
            Builtin::Max2 | Builtin::Min2 => {
                let (x, y) = (self.int(arg(0)?, l, me)?, self.int(arg(1)?, l, me)?);
                Value::Int(if b == Builtin::Max2 {
                    x.max(y)
                } else {
                    x.min(y)
                })
            }
            Builtin::Step => {
                let (sp, d) = (self.eval(arg(0)?, l, me)?, self.eval(arg(1)?, l, me)?);
                match (sp, d) {
                    (Value::Space(bd, from), Value::Enum(_, dir)) => self
                        .step(bd, from, dir)
                        .map_or(Value::None, |t| Value::Space(bd, t)),
                    (Value::None, _) | (_, Value::None) => Value::None,
                    (Value::Space(..), other) => {
                        return Err(rule(format!(
                            "expected a direction, got {}",
                            self.show(other)
                        )))
                    }
                    (other, _) => {
                        return Err(rule(format!("expected a space, got {}", self.show(other))))
                    }
                }
            }
            Builtin::Col | Builtin::Row => match self.eval(arg(0)?, l, me)? {
                Value::Space(bd, sp) => match self.g.boards[bd].coord(sp) {
                    Some((c, r)) => Value::Int(if b == Builtin::Col { c } else { r } as i64),
                    None => Value::None,
                },
                Value::None => Value::None,
                other => return Err(rule(format!("expected a space, got {}", self.show(other)))),
            },
            Builtin::Opposite => match self.eval(arg(0)?, l, me)? {
                Value::Enum(e, d) => Value::Enum(e, opposite(d)),
                Value::None => Value::None,
                other => {
                    return Err(rule(format!(
                        "expected a direction, got {}",
                        self.show(other)
                    )))
                }
            },
            Builtin::Ord => match self.eval(arg(0)?, l, me)? {
                Value::Enum(_, i) => Value::Int(i as i64),
                Value::Player(p) => Value::Int(p as i64),
                other => {
                    return Err(rule(format!(
                        "expected an enum value, got {}",
                        self.show(other)
                    )))
                }
            },
        })
    }

    /// The zone instance a component lies in.
    pub(super) fn place_of(&self, c: CompId) -> InstId {
        self.s.zones.loc(c)
    }

    /// The space one step from `from` in direction `dir` (a position in
    /// [`DIRECTION_NAMES`]): `None` off the board, onto a closed space, or in a direction
    /// the board does not have.
    pub(super) fn step(&self, bd: BoardId, from: u32, dir: u16) -> Option<u32> {
        let board = &self.g.boards[bd];
        if dir as usize >= DIRECTION_COUNT {
            return None;
        }
        let at = (from as usize).checked_mul(DIRECTION_COUNT)? + dir as usize;
        let t = *board.geo.steps.get(at)?;
        (t != NO_SPACE && !self.closed(bd, t)).then_some(t)
    }

    /// Whether a space is out of play in this match (section 3.5.3).
    pub(super) fn closed(&self, bd: BoardId, sp: u32) -> bool {
        let board = &self.g.boards[bd];
        let on = match board.geo.closed_when {
            None => true,
            Some((c, want)) => self.s.consts.get(c) == Some(&Value::Bool(want)),
        };
        on && board.geo.closed.get(sp as usize).copied().unwrap_or(false)
    }
}
