//! Built-in functions and binary operators on values, with checked arithmetic: an overflow,
//! a division by zero or a value of the wrong kind is a rule error, never a wrap or a panic.

use super::*;

impl Machine {
    #[inline(never)]
    pub(super) fn builtin(&mut self, g: &Game, s: &State, b: Builtin) -> Eval<Value> {
        let zone = |m: &mut Machine| match m.pop() {
            Value::Zone(z) => Ok(z),
            other => Err(expected(g, s, "a zone", other, None)),
        };
        Ok(match b {
            Builtin::Count => Value::Int(s.zones.len(zone(self)?) as i64),
            Builtin::Top => s.zones.top(zone(self)?).map_or(Value::None, Value::Comp),
            Builtin::Bottom => s.zones.bottom(zone(self)?).map_or(Value::None, Value::Comp),
            Builtin::Empty => Value::Bool(s.zones.len(zone(self)?) == 0),
            Builtin::Next | Builtin::Prev => match self.pop() {
                Value::Player(p) if p < s.players => {
                    let n = s.players;
                    Value::Player(if b == Builtin::Next {
                        (p + 1) % n
                    } else {
                        (p + n - 1) % n
                    })
                }
                other => return Err(expected(g, s, "a player", other, None)),
            },
            Builtin::Owner => match self.pop() {
                Value::Comp(c) => g.instances[s.zones.loc(c)]
                    .owner
                    .map_or(Value::None, Value::Player),
                _ => Value::None,
            },
            Builtin::SpaceOf => match self.pop() {
                Value::Comp(c) => g.instances[s.zones.loc(c)]
                    .space
                    .map_or(Value::None, |(b, i)| Value::Space(b, i)),
                _ => Value::None,
            },
            Builtin::ZoneOf => match self.pop() {
                Value::Comp(c) => Value::Zone(s.zones.loc(c)),
                _ => Value::None,
            },
            Builtin::Seat => match self.pop() {
                Value::Int(n) if n >= 0 && n < s.players as i64 => Value::Player(n as u8),
                Value::Int(n) => {
                    return Err(err(
                        format!("there is no seat {n} with {} players", s.players),
                        None,
                    ))
                }
                other => return Err(expected(g, s, "a number", other, None)),
            },
            Builtin::Abs => match self.pop() {
                Value::Int(n) => Value::Int(
                    n.checked_abs()
                        .ok_or_else(|| err("arithmetic overflow in `abs`", None))?,
                ),
                other => return Err(expected(g, s, "a number", other, None)),
            },
            Builtin::Step => {
                let d = self.pop();
                match (self.pop(), d) {
                    (Value::Space(b, sp), Value::Enum(_, dir)) => {
                        let board = &g.boards[b];
                        board
                            .step(sp, dir, board.closing(&s.consts))
                            .map_or(Value::None, |t| Value::Space(b, t))
                    }
                    (Value::None, _) | (_, Value::None) => Value::None,
                    (Value::Space(..), other) => {
                        return Err(expected(g, s, "a direction", other, None))
                    }
                    (other, _) => return Err(expected(g, s, "a space", other, None)),
                }
            }
            Builtin::Col | Builtin::Row => match self.pop() {
                Value::Space(bd, sp) => match g.boards[bd].coord(sp) {
                    Some((c, r)) => Value::Int(if b == Builtin::Col { c } else { r } as i64),
                    None => Value::None,
                },
                Value::None => Value::None,
                other => return Err(expected(g, s, "a space", other, None)),
            },
            Builtin::Opposite => match self.pop() {
                Value::Enum(e, d) => Value::Enum(e, crate::ir::opposite(d)),
                Value::None => Value::None,
                other => return Err(expected(g, s, "a direction", other, None)),
            },
            Builtin::Ord => match self.pop() {
                Value::Enum(_, i) => Value::Int(i as i64),
                Value::Player(p) => Value::Int(p as i64),
                other => return Err(expected(g, s, "an enum value or a seat", other, None)),
            },
            Builtin::Repeated => {
                let m = match self.pop() {
                    Value::Int(m) => m as usize,
                    other => return Err(expected(g, s, "a memory", other, None)),
                };
                let width = g.memories.get(m).map_or(0, |d| d.parts.len());
                let from = self.stack.len().saturating_sub(width);
                let n = s.times_remembered(m, &self.stack[from..]);
                self.stack.truncate(from);
                Value::Int(n as i64)
            }
            Builtin::Max2 | Builtin::Min2 => {
                let (y, x) = (self.pop(), self.pop());
                match (x, y) {
                    (Value::Int(x), Value::Int(y)) => Value::Int(if b == Builtin::Max2 {
                        x.max(y)
                    } else {
                        x.min(y)
                    }),
                    (Value::Int(_), other) | (other, _) => {
                        return Err(expected(g, s, "a number", other, None))
                    }
                }
            }
        })
    }
}

/// A binary operator on two values.
pub(super) fn binary(g: &Game, s: &State, op: BinOp, a: Value, b: Value) -> Eval<Value> {
    match op {
        BinOp::Eq => return Ok(Value::Bool(a == b)),
        BinOp::Ne => return Ok(Value::Bool(a != b)),
        BinOp::And | BinOp::Or => {
            return match (a, b) {
                (Value::Bool(x), Value::Bool(y)) => {
                    Ok(Value::Bool(if op == BinOp::And { x && y } else { x || y }))
                }
                (Value::Bool(_), other) | (other, _) => {
                    Err(expected(g, s, "true or false", other, None))
                }
            }
        }
        _ => {}
    }
    let (x, y) = match (a, b) {
        (Value::Int(x), Value::Int(y)) => (x, y),
        (Value::Int(_), other) | (other, _) => {
            return Err(err(
                format!(
                    "`{}` needs numbers, got {}",
                    op.symbol(),
                    crate::engine::show_value(g, s, other)
                ),
                None,
            ))
        }
    };
    let overflow = || err(format!("arithmetic overflow in `{}`", op.symbol()), None);
    Ok(match op {
        BinOp::Add => Value::Int(x.checked_add(y).ok_or_else(overflow)?),
        BinOp::Sub => Value::Int(x.checked_sub(y).ok_or_else(overflow)?),
        BinOp::Mul => Value::Int(x.checked_mul(y).ok_or_else(overflow)?),
        BinOp::Pow if y < 0 => return Err(err("a negative power", None)),
        BinOp::Pow => Value::Int(
            u32::try_from(y)
                .ok()
                .and_then(|y| x.checked_pow(y))
                .ok_or_else(overflow)?,
        ),
        BinOp::Div | BinOp::Mod if y == 0 => return Err(err("division by zero", None)),
        BinOp::Div => Value::Int(x.checked_div_euclid(y).ok_or_else(overflow)?),
        BinOp::Mod => Value::Int(x.checked_rem_euclid(y).ok_or_else(overflow)?),
        BinOp::Lt => Value::Bool(x < y),
        BinOp::Le => Value::Bool(x <= y),
        BinOp::Gt => Value::Bool(x > y),
        BinOp::Ge => Value::Bool(x >= y),
        BinOp::Eq | BinOp::Ne | BinOp::And | BinOp::Or => Value::None,
    })
}
