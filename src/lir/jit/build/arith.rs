//! Arithmetic and comparisons in native code: checked `+`, `-` and `*`, `/` and `%`
//! rounding down, `max` and `min` inline, powers through a helper; `==` and `!=` of any two
//! values, the orders of numbers.

use super::*;

impl Lower<'_, '_> {
    /// Checked arithmetic: overflow and none fail; powers through a helper.
    pub(super) fn arith(&mut self, op: Arith, a: Reg, b: Reg) -> CValue {
        let (x, y) = (self.use_(a), self.use_(b));
        match op {
            Arith::Pow => self.call_v(h_pow, x, x, y),
            Arith::Div | Arith::Mod => self.div_mod(op, a, b),
            Arith::Max | Arith::Min => {
                let (x, y) = (self.number(a), self.number(b));
                let cc = if op == Arith::Max {
                    IntCC::SignedGreaterThan
                } else {
                    IntCC::SignedLessThan
                };
                let c = self.b.ins().icmp(cc, x, y);
                self.b.ins().select(c, x, y)
            }
            _ => {
                let (x, y) = (self.number(a), self.number(b));
                let (v, over) = match op {
                    Arith::Add => self.b.ins().sadd_overflow(x, y),
                    Arith::Sub => self.b.ins().ssub_overflow(x, y),
                    _ => self.b.ins().smul_overflow(x, y),
                };
                self.fail_if(over, Fail::Arithmetic);
                let c = self.b.ins().icmp_imm_s(IntCC::Equal, v, INT_NONE);
                self.fail_if(c, Fail::Arithmetic);
                v
            }
        }
    }

    /// `/` and `%` rounding down (Euclid's: the remainder is never negative), as
    /// [`rt::arith`]: none fails, then a zero divisor. The dividend is never `i64::MIN` (that
    /// is none), so the machine's division cannot overflow.
    fn div_mod(&mut self, op: Arith, a: Reg, b: Reg) -> CValue {
        let (x, y) = (self.number(a), self.number(b));
        let zero = self.b.ins().icmp_imm_s(IntCC::Equal, y, 0);
        self.fail_if(zero, Fail::Arithmetic);
        let r = self.b.ins().srem(x, y);
        let neg = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, r, 0);
        if op == Arith::Mod {
            let ay = self.b.ins().iabs(y);
            let up = self.b.ins().iadd(r, ay);
            return self.b.ins().select(neg, up, r);
        }
        let q = self.b.ins().sdiv(x, y);
        let up = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, y, 0);
        let one = self.iconst(1);
        let minus = self.iconst(-1);
        let step = self.b.ins().select(up, one, minus);
        let down = self.b.ins().isub(q, step);
        self.b.ins().select(neg, down, q)
    }

    /// A comparison as 0 or 1: `==` and `!=` of any two values (none equal only to none),
    /// the orders of numbers.
    pub(super) fn compare(&mut self, dst: Reg, op: Cmp, a: Reg, b: Reg) -> CValue {
        let f = self.f;
        let ty = |r: Reg| f.ty(r);
        self.sure[dst.0 as usize] = true;
        let (x, y) = (self.use_(a), self.use_(b));
        let c = match op {
            Cmp::Eq | Cmp::Ne => {
                let same = if rt::raw_equal(ty(a), ty(b)) {
                    self.b.ins().icmp(IntCC::Equal, x, y)
                } else {
                    let p = self.b.ins().icmp_imm_s(IntCC::Equal, x, ty(a).none());
                    let q = self.b.ins().icmp_imm_s(IntCC::Equal, y, ty(b).none());
                    self.b.ins().band(p, q)
                };
                if op == Cmp::Eq {
                    same
                } else {
                    self.b.ins().bxor_imm_s(same, 1)
                }
            }
            _ => {
                let (x, y) = (self.number(a), self.number(b));
                let cc = match op {
                    Cmp::Lt => IntCC::SignedLessThan,
                    Cmp::Le => IntCC::SignedLessThanOrEqual,
                    Cmp::Gt => IntCC::SignedGreaterThan,
                    _ => IntCC::SignedGreaterThanOrEqual,
                };
                self.b.ins().icmp(cc, x, y)
            }
        };
        self.b.ins().uextend(types::I64, c)
    }
}
