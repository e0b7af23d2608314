//! The native code's reads of the state and of the game's tables: variables and fields in
//! place (every slot of the game is in the context's arrays), zones in the arrays the
//! environment lends (each index checked against its array's length first), else through a
//! helper; and the built-in functions and steps computed from the game's tables.

use super::*;

impl Lower<'_, '_> {
    /// A variable's slot as a number of type `t`, read in place.
    pub(super) fn read_var(&mut self, slot: CValue, t: Ty, dst: Reg) -> CValue {
        // `slot` is below the game's slots, and the context's array holds them all.
        let join = self.b.create_block();
        self.read_value(VARS, slot, t, dst, join);
        self.b.switch_to_block(join);
        self.b.use_var(var(dst))
    }

    /// A component's field as a number of type `t`: its slot from the game's table, read in
    /// place (a component the game does not have goes through the helper, which fails).
    pub(super) fn read_field(&mut self, comp: Reg, field: u16, t: Ty, dst: Reg) -> CValue {
        let c = self.use_(comp);
        let (slow, join) = (self.b.create_block(), self.b.create_block());
        self.below_or(c, COMPS, slow);
        let flags = MemFlagsData::trusted();
        let tab = self.b.ins().load(self.ptr, flags, self.ctx, FIELD_TAB);
        let off = self.b.ins().imul_imm_s(c, 8);
        let addr = self.b.ins().iadd(tab, off);
        let base = self.b.ins().uload32(flags, addr, 0);
        let count = self.b.ins().uload32(flags, addr, 4);
        let absent = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, count, field as i64);
        self.fail_if(absent, Fail::Field);
        // Below the game's field slots, all in the context's array.
        let slot = self.b.ins().iadd_imm_s(base, field as i64);
        self.read_value(FIELDS, slot, t, dst, join);
        self.b.switch_to_block(slow);
        let fl = self.iconst(field as i64);
        let tv = self.iconst(pack(t));
        let v = self.call_v(h_field as Helper, c, fl, tv);
        self.joined(v, dst, join)
    }

    /// What a zone instance holds, read in the zones' arrays ([`Env::zones`]), else through
    /// the helper.
    pub(super) fn held(&mut self, what: Held, zone: Reg, dst: Reg) -> CValue {
        let z = self.use_(zone);
        let none = self.b.ins().icmp_imm_s(IntCC::Equal, z, ID_NONE);
        self.fail_if(none, Fail::NoneValue);
        let (slow, join) = (self.b.create_block(), self.b.create_block());
        self.below_or(z, INSTS, slow);
        let v = match what {
            Held::Count => self.load_u32(Z_LEN, z),
            Held::Empty => {
                let n = self.load_u32(Z_LEN, z);
                let e = self.b.ins().icmp_imm_s(IntCC::Equal, n, 0);
                self.b.ins().uextend(types::I64, e)
            }
            Held::Top => self.load_u32(Z_TAIL, z),
            Held::Bottom => self.load_u32(Z_HEAD, z),
        };
        self.b.def_var(var(dst), v);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(slow);
        let k = HELD.iter().position(|h| *h == what).unwrap_or(0) as i64;
        let zero = self.iconst(0);
        let v = self.call(h_held, k, z, zero);
        self.joined(v, dst, join)
    }

    /// Where a component lies, read in the zones' arrays and the game's tables, else through
    /// the helper (none, a component the arrays do not have, one lying nowhere).
    pub(super) fn place(&mut self, what: Place, comp: Reg, dst: Reg) -> CValue {
        let c = self.use_(comp);
        let (slow, join) = (self.b.create_block(), self.b.create_block());
        self.below_or(c, PLACED, slow);
        let inst = self.load_u32(Z_LOC, c);
        let v = match what {
            Place::Zone => inst,
            Place::Owner | Place::Space => {
                self.below_or(inst, INSTS, slow);
                let tab = if what == Place::Owner {
                    OWNER_TAB
                } else {
                    SPACE_TAB
                };
                self.load_u32(tab, inst)
            }
        };
        self.b.def_var(var(dst), v);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(slow);
        let k = PLACES.iter().position(|p| *p == what).unwrap_or(0) as i64;
        let zero = self.iconst(0);
        let v = self.call(h_place, k, c, zero);
        self.joined(v, dst, join)
    }

    /// The `k`-th component of a zone instance from the bottom: a walk up its list in the
    /// zones' arrays, else through the helper.
    pub(super) fn zone_at(&mut self, zone: Reg, k: Reg, dst: Reg) -> CValue {
        let (z, k) = (self.use_(zone), self.use_(k));
        let none = self.b.ins().icmp_imm_s(IntCC::Equal, z, ID_NONE);
        self.fail_if(none, Fail::Index);
        let neg = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, k, 0);
        self.fail_if(neg, Fail::Index);
        let (slow, join) = (self.b.create_block(), self.b.create_block());
        self.below_or(z, INSTS, slow);
        let n = self.load_u32(Z_LEN, z);
        let beyond = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, k, n);
        let (past, walk) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(beyond, past, &[], walk, &[]);
        self.b.switch_to_block(past);
        let nv = self.iconst(ID_NONE);
        self.b.def_var(var(dst), nv);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(walk);
        let (at, left) = (
            self.b.declare_var(types::I64),
            self.b.declare_var(types::I64),
        );
        let first = self.load_u32(Z_HEAD, z);
        self.b.def_var(at, first);
        self.b.def_var(left, k);
        let (top, up, found) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().jump(top, &[]);
        self.b.switch_to_block(top);
        let i = self.b.use_var(left);
        self.b.ins().brif(i, up, &[], found, &[]);
        self.b.switch_to_block(up);
        let c = self.b.use_var(at);
        self.below_or(c, PLACED, slow);
        let nx = self.load_u32(Z_NEXT, c);
        self.b.def_var(at, nx);
        let i1 = self.b.ins().iadd_imm_s(i, -1);
        self.b.def_var(left, i1);
        self.b.ins().jump(top, &[]);
        self.b.switch_to_block(found);
        let c = self.b.use_var(at);
        self.b.def_var(var(dst), c);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(slow);
        let h = h_zone_at as Helper;
        let zero = self.iconst(0);
        let v = self.call_v(h, z, k, zero);
        self.joined(v, dst, join)
    }

    /// A built-in function of one operand, native (`col` and `row` read the board's table).
    pub(super) fn unary(&mut self, op: Unary, a: Reg) -> CValue {
        let t = self.f.ty(a);
        let x = self.use_(a);
        match op {
            Unary::Abs => {
                let x = self.number(a);
                self.b.ins().iabs(x)
            }
            Unary::Next | Unary::Prev => {
                let n = self
                    .b
                    .ins()
                    .load(types::I64, MemFlagsData::trusted(), self.ctx, PLAYERS);
                let out = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, x, n);
                self.fail_if(out, Fail::NoneValue);
                if op == Unary::Next {
                    let y = self.b.ins().iadd_imm_s(x, 1);
                    let wrap = self.b.ins().icmp(IntCC::Equal, y, n);
                    let zero = self.iconst(0);
                    self.b.ins().select(wrap, zero, y)
                } else {
                    let first = self.b.ins().icmp_imm_s(IntCC::Equal, x, 0);
                    let y = self.b.ins().iadd_imm_s(x, -1);
                    let last = self.b.ins().iadd_imm_s(n, -1);
                    self.b.ins().select(first, last, y)
                }
            }
            Unary::Seat => {
                let x = self.number(a);
                let n = self
                    .b
                    .ins()
                    .load(types::I64, MemFlagsData::trusted(), self.ctx, PLAYERS);
                let out = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, x, n);
                self.fail_if(out, Fail::Index);
                x
            }
            Unary::Ord => {
                let none = self.b.ins().icmp_imm_s(IntCC::Equal, x, t.none());
                self.fail_if(none, Fail::NoneValue);
                x
            }
            Unary::Col | Unary::Row => {
                let Ty::Space(bd) = t else {
                    let fail = self.fail_block(Fail::Type);
                    self.b.ins().jump(fail, &[]);
                    let dead = self.b.create_block();
                    self.b.switch_to_block(dead);
                    return self.iconst(0);
                };
                let tab = &self.boards[bd.0 as usize].coords;
                let (ptr, n) = (tab.as_ptr() as i64, tab.len() as i64);
                let within = self.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, x, n);
                let (yes, join) = (self.b.create_block(), self.b.create_block());
                self.b.append_block_param(join, types::I64);
                let none = self.iconst(INT_NONE);
                self.b.ins().brif(within, yes, &[], join, &[none.into()]);
                self.b.switch_to_block(yes);
                let base = self.b.ins().iconst(self.ptr, ptr);
                let off = self.b.ins().imul_imm_s(x, 8);
                let addr = self.b.ins().iadd(base, off);
                let at = if op == Unary::Col { 0 } else { 4 };
                let v = self.b.ins().uload32(MemFlagsData::trusted(), addr, at);
                self.b.ins().jump(join, &[v.into()]);
                self.b.switch_to_block(join);
                self.b.block_params(join)[0]
            }
            Unary::Opposite => {
                // As `crate::ir::opposite` on the direction's position (a `u16`).
                let d = self.b.ins().band_imm_u(x, 0xffff);
                let turned = self.b.ins().iadd_imm_s(d, 4);
                let turned = self.b.ins().band_imm_u(turned, 7);
                let is8 = self.b.ins().icmp_imm_s(IntCC::Equal, d, 8);
                let (nine, eight) = (self.iconst(9), self.iconst(8));
                let other = self.b.ins().select(is8, nine, eight);
                let compass = self.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, d, 8);
                let v = self.b.ins().select(compass, turned, other);
                let none = self.b.ins().icmp_imm_s(IntCC::Equal, x, ID_NONE);
                let n = self.iconst(ID_NONE);
                self.b.ins().select(none, n, v)
            }
        }
    }

    /// One step on a board without closed spaces: its table (`n` entries at `ptr`) read,
    /// none for none, a direction it does not have, or off the board.
    pub(super) fn step(&mut self, s: CValue, d: CValue, ptr: i64, n: i64) -> CValue {
        let dirs = crate::ir::DIRECTION_COUNT as i64;
        let d16 = self.b.ins().band_imm_u(d, 0xffff);
        let s32 = self.b.ins().band_imm_u(s, 0xffff_ffff);
        let bad_s = self.b.ins().icmp_imm_s(IntCC::Equal, s, ID_NONE);
        let bad_d = self.b.ins().icmp_imm_s(IntCC::Equal, d, ID_NONE);
        let far = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, d16, dirs);
        let bad = self.b.ins().bor(bad_s, bad_d);
        let bad = self.b.ins().bor(bad, far);
        let row = self.b.ins().imul_imm_s(s32, dirs);
        let at = self.b.ins().iadd(row, d16);
        let off = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, at, n);
        let bad = self.b.ins().bor(bad, off);
        let (read, join) = (self.b.create_block(), self.b.create_block());
        self.b.append_block_param(join, types::I64);
        let none = self.iconst(ID_NONE);
        self.b.ins().brif(bad, join, &[none.into()], read, &[]);
        self.b.switch_to_block(read);
        let base = self.b.ins().iconst(self.ptr, ptr);
        let off = self.b.ins().ishl_imm_u(at, 2);
        let addr = self.b.ins().iadd(base, off);
        let t = self.b.ins().uload32(MemFlagsData::trusted(), addr, 0);
        self.b.ins().jump(join, &[t.into()]);
        self.b.switch_to_block(join);
        self.b.block_params(join)[0]
    }

    /// The `k`-th neighbour of space `s` from a board's adjacency in compressed rows (`starts`
    /// an array of `n` row starts, the last the end; `adj` the neighbours), or none: for
    /// `s` none or off the table, or a row of no more than `k` (unsigned: a negative `k` too).
    pub(super) fn near(
        &mut self,
        s: CValue,
        k: CValue,
        (starts, n): (i64, i64),
        adj: i64,
    ) -> CValue {
        let flags = MemFlagsData::trusted();
        // Rows 0..n-1 exist: `s < n - 1`, unsigned (none and negatives are past it).
        let off = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, s, n - 1);
        let (row, read, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.append_block_param(join, types::I64);
        let none = self.iconst(ID_NONE);
        self.b.ins().brif(off, join, &[none.into()], row, &[]);
        self.b.switch_to_block(row);
        let base = self.b.ins().iconst(self.ptr, starts);
        let at = self.b.ins().ishl_imm_u(s, 2);
        let addr = self.b.ins().iadd(base, at);
        let lo = self.b.ins().uload32(flags, addr, 0);
        let hi = self.b.ins().uload32(flags, addr, 4);
        let len = self.b.ins().isub(hi, lo);
        let past = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, k, len);
        self.b.ins().brif(past, join, &[none.into()], read, &[]);
        self.b.switch_to_block(read);
        let i = self.b.ins().iadd(lo, k);
        let base = self.b.ins().iconst(self.ptr, adj);
        let off = self.b.ins().ishl_imm_u(i, 2);
        let addr = self.b.ins().iadd(base, off);
        let t = self.b.ins().uload32(flags, addr, 0);
        self.b.ins().jump(join, &[t.into()]);
        self.b.switch_to_block(join);
        self.b.block_params(join)[0]
    }

    /// [`Inst::Seek`] by the variable's value index `ix` (`count` entries): the value's
    /// code (`none` 0, then the value plus one) picks a row of bits; the first bit set at or
    /// after `from` is the position, `count` when there is none.
    pub(super) fn seek(
        &mut self,
        x: CValue,
        none: i64,
        from: CValue,
        ix: crate::ir::vm::ValueIndex,
        count: i64,
    ) -> CValue {
        let flags = MemFlagsData::trusted();
        let zero = self.iconst(0);
        let is_none = self.b.ins().icmp_imm_s(IntCC::Equal, x, none);
        let next = self.b.ins().iadd_imm_s(x, 1);
        let code = self.b.ins().select(is_none, zero, next);
        let from = self.b.ins().smax(from, zero);
        let bad = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, code, ix.codes as i64);
        let past = self
            .b
            .ins()
            .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, from, count);
        let skip = self.b.ins().bor(bad, past);
        let (start, scan, found, more, load, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.append_block_param(scan, types::I64);
        self.b.append_block_param(scan, types::I64);
        self.b.append_block_param(join, types::I64);
        let none_found = self.iconst(count);
        self.b
            .ins()
            .brif(skip, join, &[none_found.into()], start, &[]);
        // The row of the value's bits, and its word holding `from` with the bits below masked.
        self.b.switch_to_block(start);
        let bits = self.b.ins().load(self.ptr, flags, self.ctx, BITS);
        let first = self.b.ins().imul_imm_s(code, ix.words as i64);
        let first = self.b.ins().iadd_imm_s(first, ix.base as i64);
        let off = self.b.ins().ishl_imm_u(first, 3);
        let row = self.b.ins().iadd(bits, off);
        let w = self.b.ins().ushr_imm_u(from, 6);
        let at = self.b.ins().ishl_imm_u(w, 3);
        let addr = self.b.ins().iadd(row, at);
        let word = self.b.ins().load(types::I64, flags, addr, 0);
        let shift = self.b.ins().band_imm_u(from, 63);
        let ones = self.iconst(-1);
        let mask = self.b.ins().ishl(ones, shift);
        let word = self.b.ins().band(word, mask);
        self.b.ins().jump(scan, &[w.into(), word.into()]);
        // scan(w, word): a bit set is the position; else the next word, if any.
        self.b.switch_to_block(scan);
        let (w, word) = (self.b.block_params(scan)[0], self.b.block_params(scan)[1]);
        self.b.ins().brif(word, found, &[], more, &[]);
        self.b.switch_to_block(found);
        let tz = self.b.ins().ctz(word);
        let base = self.b.ins().ishl_imm_u(w, 6);
        let p = self.b.ins().iadd(base, tz);
        self.b.ins().jump(join, &[p.into()]);
        self.b.switch_to_block(more);
        let w1 = self.b.ins().iadd_imm_s(w, 1);
        let end = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, w1, ix.words as i64);
        self.b
            .ins()
            .brif(end, join, &[none_found.into()], load, &[]);
        self.b.switch_to_block(load);
        let at = self.b.ins().ishl_imm_u(w1, 3);
        let addr = self.b.ins().iadd(row, at);
        let word = self.b.ins().load(types::I64, flags, addr, 0);
        self.b.ins().jump(scan, &[w1.into(), word.into()]);
        self.b.switch_to_block(join);
        self.b.block_params(join)[0]
    }

    /// Goes on when `i < n` (unsigned, `n` the context's word at `len`), else to `slow`.
    pub(super) fn below_or(&mut self, i: CValue, len: i32, slow: CBlock) {
        let n = self
            .b
            .ins()
            .load(types::I64, MemFlagsData::trusted(), self.ctx, len);
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, i, n);
        let go = self.b.create_block();
        self.b.ins().brif(inside, go, &[], slow, &[]);
        self.b.switch_to_block(go);
    }

    /// The `i`-th `u32` of the array the context's word at `arr` points to (`i` checked).
    pub(super) fn load_u32(&mut self, arr: i32, i: CValue) -> CValue {
        let flags = MemFlagsData::trusted();
        let base = self.b.ins().load(self.ptr, flags, self.ctx, arr);
        let off = self.b.ins().ishl_imm_u(i, 2);
        let addr = self.b.ins().iadd(base, off);
        self.b.ins().uload32(flags, addr, 0)
    }

    /// Ends the slow path with `v` as `dst`, and goes on after the join.
    pub(super) fn joined(&mut self, v: CValue, dst: Reg, join: CBlock) -> CValue {
        self.b.def_var(var(dst), v);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        self.b.use_var(var(dst))
    }

    /// The `slot`-th [`Value`] of the array at the context's word `arr` (`slot` checked), as
    /// a number of type `t` into `dst`, then to `join`: the tag says none, the register's
    /// kind (its payload read), or another (a failure).
    pub(super) fn read_value(&mut self, arr: i32, slot: CValue, t: Ty, dst: Reg, join: CBlock) {
        let flags = MemFlagsData::trusted();
        let base = self.b.ins().load(self.ptr, flags, self.ctx, arr);
        let off = self.b.ins().imul_imm_s(slot, VALUE_SIZE);
        let addr = self.b.ins().iadd(base, off);
        let tag = self.b.ins().uload8(types::I64, flags, addr, 0);
        let l = layout(t);
        let none = self.b.ins().icmp_imm_s(IntCC::Equal, tag, TAG_NONE);
        let (is_none, not_none) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(none, is_none, &[], not_none, &[]);
        self.b.switch_to_block(is_none);
        let nv = self.iconst(t.none());
        self.b.def_var(var(dst), nv);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(not_none);
        let kind = self.b.ins().icmp_imm_s(IntCC::NotEqual, tag, l.tag);
        self.fail_if(kind, Fail::Type);
        if let Some(id) = l.id {
            let of = self.b.ins().uload16(types::I64, flags, addr, ID_AT);
            let other = self.b.ins().icmp_imm_s(IntCC::NotEqual, of, id);
            self.fail_if(other, Fail::Type);
        }
        let v = match l.width {
            8 => self.b.ins().load(types::I64, flags, addr, l.at),
            4 => self.b.ins().uload32(flags, addr, l.at),
            2 => self.b.ins().uload16(types::I64, flags, addr, l.at),
            _ => self.b.ins().uload8(types::I64, flags, addr, l.at),
        };
        if t == Ty::Int {
            // The number that stands for none is no number of the state.
            let c = self.b.ins().icmp_imm_s(IntCC::Equal, v, INT_NONE);
            self.fail_if(c, Fail::Type);
        }
        self.b.def_var(var(dst), v);
        self.b.ins().jump(join, &[]);
    }
}
