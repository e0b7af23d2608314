//! The building of a function's native code: registers as Cranelift variables, blocks as
//! blocks, each instruction as native code or a call of a helper of `jit/mod.rs`.

use super::*;
use cranelift_codegen::ir::{
    condcodes::IntCC, types, AbiParam, Block as CBlock, InstBuilder, MemFlagsData, Signature,
    Value as CValue,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};

/// The building of one function.
pub(super) struct Lower<'a, 'b> {
    b: FunctionBuilder<'b>,
    f: &'a Func,
    blocks: Vec<CBlock>,
    fails: Vec<Option<CBlock>>,
    ctx: CValue,
    helper_sig: cranelift_codegen::ir::SigRef,
    ptr: types::Type,
    /// Registers known never to hold none (comparisons' results).
    sure: Vec<bool>,
    /// Blocks passing a branch's arguments, to fill at the end.
    edges: Vec<(CBlock, Target)>,
    /// The boards' tables (their addresses are written into the code).
    boards: &'a [BoardTabs],
    /// The work left, kept in a register: read from the context at entry, written back at
    /// every exit.
    left: Variable,
}

impl<'a, 'b> Lower<'a, 'b> {
    pub(super) fn build(
        g: &Game,
        f: &'a Func,
        boards: &'a [BoardTabs],
        func: &'b mut cranelift_codegen::ir::Function,
        fcx: &'b mut FunctionBuilderContext,
        target: cranelift_codegen::isa::TargetFrontendConfig,
    ) {
        let ptr = target.pointer_type();
        let mut b = FunctionBuilder::new(func, fcx);
        let mut hs = Signature::new(b.func.signature.call_conv);
        hs.params.push(AbiParam::new(ptr));
        hs.params.extend([AbiParam::new(types::I64); 3]);
        hs.returns.push(AbiParam::new(types::I64));
        let helper_sig = b.import_signature(hs);
        for _ in &f.regs {
            b.declare_var(types::I64);
        }
        let left = b.declare_var(types::I64);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        let blocks: Vec<CBlock> = f.blocks.iter().map(|_| b.create_block()).collect();
        b.switch_to_block(entry);
        let params = b.block_params(entry).to_vec();
        let (ctx, args) = (params[0], params[1]);
        let mut me = Lower {
            b,
            f,
            blocks,
            fails: vec![None; FAILS.len()],
            ctx,
            helper_sig,
            ptr,
            sure: vec![false; f.regs.len()],
            edges: vec![],
            boards,
            left,
        };
        let f0 =
            me.b.ins()
                .load(types::I64, MemFlagsData::trusted(), ctx, FUEL);
        me.b.def_var(left, f0);
        for (i, p) in f.params.iter().enumerate() {
            let v =
                me.b.ins()
                    .load(types::I64, MemFlagsData::trusted(), args, (i * 8) as i32);
            me.b.def_var(var(*p), v);
        }
        me.b.ins().jump(me.blocks[0], &[]);
        let out = params[2];
        for (i, block) in f.blocks.iter().enumerate() {
            me.b.switch_to_block(me.blocks[i]);
            me.fuel(block.insts.len() as i64 + 1);
            for inst in &block.insts {
                me.inst(g, inst);
            }
            me.term(&block.term, out);
        }
        me.finish();
        me.b.seal_all_blocks();
        me.b.finalize(target);
    }

    fn use_(&mut self, r: Reg) -> CValue {
        self.b.use_var(var(r))
    }

    fn iconst(&mut self, n: i64) -> CValue {
        self.b.ins().iconst(types::I64, n)
    }

    /// The block returning a failure's code (filled at the end, by `finish`).
    fn fail_block(&mut self, e: Fail) -> CBlock {
        let k = code(e) as usize - 1;
        if let Some(b) = self.fails[k] {
            return b;
        }
        let blk = self.b.create_block();
        self.fails[k] = Some(blk);
        blk
    }

    /// Fills the blocks made on the way: failures, and edges passing arguments.
    fn finish(&mut self) {
        for (k, blk) in self.fails.clone().into_iter().enumerate() {
            if let Some(blk) = blk {
                self.b.switch_to_block(blk);
                let c = self.b.ins().iconst(types::I32, k as i64 + 1);
                self.exit(c);
            }
        }
        for (blk, t) in std::mem::take(&mut self.edges) {
            self.b.switch_to_block(blk);
            self.goto(&t);
        }
    }

    /// Fails with `e` when `cond` is true, else goes on.
    fn fail_if(&mut self, cond: CValue, e: Fail) {
        let fail = self.fail_block(e);
        let go = self.b.create_block();
        self.b.ins().brif(cond, fail, &[], go, &[]);
        self.b.switch_to_block(go);
    }

    fn fail_if_none(&mut self, x: CValue) {
        let c = self.b.ins().icmp_imm_s(IntCC::Equal, x, INT_NONE);
        self.fail_if(c, Fail::NoneValue);
    }

    fn fuel(&mut self, cost: i64) {
        let f = self.b.use_var(self.left);
        let short = self.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, f, cost);
        self.fail_if(short, Fail::Fuel);
        let left = self.b.ins().iadd_imm_s(f, -cost);
        self.b.def_var(self.left, left);
    }

    /// Returns `code` (an `i32`), the work left written back first.
    fn exit(&mut self, code: CValue) {
        let f = self.b.use_var(self.left);
        self.b
            .ins()
            .store(MemFlagsData::trusted(), f, self.ctx, FUEL);
        self.b.ins().return_(&[code]);
    }

    fn call(&mut self, h: Helper, a: i64, b: CValue, c: CValue) -> CValue {
        let a = self.iconst(a);
        self.call_v(h, a, b, c)
    }

    /// Calls a helper, then fails if it failed.
    fn call_v(&mut self, h: Helper, a: CValue, b: CValue, c: CValue) -> CValue {
        let addr = self.b.ins().iconst(self.ptr, h as usize as i64);
        let call = self
            .b
            .ins()
            .call_indirect(self.helper_sig, addr, &[self.ctx, a, b, c]);
        let v = self.b.inst_results(call)[0];
        let fail = self
            .b
            .ins()
            .load(types::I64, MemFlagsData::trusted(), self.ctx, FAIL);
        let blk = self.b.create_block();
        let go = self.b.create_block();
        self.b.ins().brif(fail, blk, &[], go, &[]);
        self.b.switch_to_block(blk);
        let f32 = self.b.ins().ireduce(types::I32, fail);
        self.exit(f32);
        self.b.switch_to_block(go);
        v
    }

    /// Fails with `Index` unless `0 <= k < n`.
    fn check_below(&mut self, k: CValue, n: i64) {
        let out = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, k, n);
        self.fail_if(out, Fail::Index);
    }

    fn inst(&mut self, g: &Game, inst: &Inst) {
        let f = self.f;
        let ty = |r: Reg| f.ty(r);
        let v = match *inst {
            Inst::Const { value, .. } => self.iconst(value),
            Inst::Read { dst, what } => match what {
                Read::Me | Read::Current | Read::PlayerCount => {
                    let at = match what {
                        Read::Me => ME,
                        Read::Current => CURRENT,
                        _ => PLAYERS,
                    };
                    self.b
                        .ins()
                        .load(types::I64, MemFlagsData::trusted(), self.ctx, at)
                }
                Read::Const(c) => {
                    let t = self.iconst(pack(ty(dst)));
                    let z = self.iconst(0);
                    self.call(h_const, c.0 as i64, t, z)
                }
            },
            Inst::Var { dst, var: v, index } => {
                let def = &g.vars[v];
                let slot = match index {
                    Some(i) => {
                        let k = self.use_(i);
                        self.check_below(k, def.count as i64);
                        self.b.ins().iadd_imm_s(k, def.base as i64)
                    }
                    None if def.count == 0 => {
                        let fail = self.fail_block(Fail::Index);
                        self.b.ins().jump(fail, &[]);
                        let dead = self.b.create_block();
                        self.b.switch_to_block(dead);
                        self.iconst(def.base as i64)
                    }
                    None => self.iconst(def.base as i64),
                };
                self.read_var(slot, ty(dst), dst)
            }
            Inst::Index { acc, x, size, .. } => {
                let pos = self.use_(x);
                self.check_below(pos, size as i64);
                let none = ty(x).none();
                if (0..size as i64).contains(&none) {
                    let c = self.b.ins().icmp_imm_s(IntCC::Equal, pos, none);
                    self.fail_if(c, Fail::Index);
                }
                match acc {
                    Some(a) => {
                        let a = self.use_(a);
                        let m = self.b.ins().imul_imm_s(a, size as i64);
                        self.b.ins().iadd(m, pos)
                    }
                    None => pos,
                }
            }
            Inst::Field { dst, comp, field } => self.read_field(comp, field, ty(dst), dst),
            Inst::Arith { op, a, b, .. } => {
                let (x, y) = (self.use_(a), self.use_(b));
                match op {
                    Arith::Div | Arith::Mod | Arith::Pow => {
                        let k = ARITHS.iter().position(|o| *o == op).unwrap_or(0) as i64;
                        self.call(h_arith, k, x, y)
                    }
                    Arith::Max | Arith::Min => {
                        self.fail_if_none(x);
                        self.fail_if_none(y);
                        let cc = if op == Arith::Max {
                            IntCC::SignedGreaterThan
                        } else {
                            IntCC::SignedLessThan
                        };
                        let c = self.b.ins().icmp(cc, x, y);
                        self.b.ins().select(c, x, y)
                    }
                    _ => {
                        self.fail_if_none(x);
                        self.fail_if_none(y);
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
            Inst::Neg { a, .. } => {
                let x = self.use_(a);
                self.fail_if_none(x);
                self.b.ins().ineg(x)
            }
            Inst::Cmp { dst, op, a, b } => {
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
                        self.fail_if_none(x);
                        self.fail_if_none(y);
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
            Inst::Not { dst, a } => {
                self.sure[dst.0 as usize] = true;
                let x = self.use_(a);
                let bad = self.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThan, x, 1);
                self.fail_if(bad, Fail::NoneValue);
                self.b.ins().bxor_imm_s(x, 1)
            }
            Inst::Unary { op, a, .. } => self.unary(op, a),
            Inst::Cast { a, .. } => self.use_(a),
            Inst::Closed { dst, space } => {
                self.sure[dst.0 as usize] = true;
                let Ty::Space(bd) = ty(space) else {
                    return self.always(Fail::Type, inst.dst());
                };
                let s = self.use_(space);
                let z = self.iconst(0);
                self.call(h_closed, bd.0 as i64, s, z)
            }
            Inst::ZoneAt { dst, zone, k } => self.zone_at(zone, k, dst),
            Inst::Step { space, dir, .. } => {
                let Ty::Space(bd) = ty(space) else {
                    return self.always(Fail::Type, inst.dst());
                };
                let (s, d) = (self.use_(space), self.use_(dir));
                match self.boards.get(bd.0 as usize) {
                    Some(t) if !t.may_close => {
                        let (ptr, n) = (t.steps.as_ptr() as i64, t.steps.len() as i64);
                        self.step(s, d, ptr, n)
                    }
                    _ => self.call(h_step, bd.0 as i64, s, d),
                }
            }
            Inst::Zone { zone, index, .. } => {
                let def = &g.zones[zone];
                match index {
                    Some(i) => {
                        let k = self.use_(i);
                        self.check_below(k, def.count as i64);
                        self.b.ins().iadd_imm_s(k, def.base.0 as i64)
                    }
                    None if def.count == 0 => return self.always(Fail::Index, inst.dst()),
                    None => self.iconst(def.base.0 as i64),
                }
            }
            Inst::Held { dst, what, zone } => {
                if what == Held::Empty {
                    self.sure[dst.0 as usize] = true;
                }
                self.held(what, zone, dst)
            }
            Inst::Out { a, .. } => {
                let x = self.use_(a);
                self.write_out(x, ty(a))
            }
            Inst::Place { dst, what, comp } => self.place(what, comp, dst),
        };
        self.b.def_var(var(inst.dst()), v);
    }

    /// A variable's slot as a number of type `t`: read in place when the state's variables
    /// are at hand ([`Env::vars`]), else through the helper.
    fn read_var(&mut self, slot: CValue, t: Ty, dst: Reg) -> CValue {
        let (slow, join) = (self.b.create_block(), self.b.create_block());
        self.below_or(slot, VARS_LEN, slow);
        self.read_value(VARS, slot, t, dst, join);
        self.b.switch_to_block(slow);
        let tv = self.iconst(pack(t));
        let z = self.iconst(0);
        let v = self.call_v(h_var, slot, tv, z);
        self.joined(v, dst, join)
    }

    /// A component's field as a number of type `t`: its slot from the game's table, read in
    /// place when the state's fields are at hand ([`Env::fields`]), else through the helper.
    fn read_field(&mut self, comp: Reg, field: u16, t: Ty, dst: Reg) -> CValue {
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
        let slot = self.b.ins().iadd_imm_s(base, field as i64);
        self.below_or(slot, FIELDS_LEN, slow);
        self.read_value(FIELDS, slot, t, dst, join);
        self.b.switch_to_block(slow);
        let fl = self.iconst(field as i64);
        let tv = self.iconst(pack(t));
        let v = self.call_v(h_field as Helper, c, fl, tv);
        self.joined(v, dst, join)
    }

    /// What a zone instance holds, read in the zones' arrays ([`Env::zones`]), else through
    /// the helper.
    fn held(&mut self, what: Held, zone: Reg, dst: Reg) -> CValue {
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
    fn place(&mut self, what: Place, comp: Reg, dst: Reg) -> CValue {
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
    fn zone_at(&mut self, zone: Reg, k: Reg, dst: Reg) -> CValue {
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
    fn unary(&mut self, op: Unary, a: Reg) -> CValue {
        let t = self.f.ty(a);
        let x = self.use_(a);
        match op {
            Unary::Abs => {
                self.fail_if_none(x);
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
                self.fail_if_none(x);
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
    fn step(&mut self, s: CValue, d: CValue, ptr: i64, n: i64) -> CValue {
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

    /// Goes on when `i < n` (unsigned, `n` the context's word at `len`), else to `slow`.
    fn below_or(&mut self, i: CValue, len: i32, slow: CBlock) {
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
    fn load_u32(&mut self, arr: i32, i: CValue) -> CValue {
        let flags = MemFlagsData::trusted();
        let base = self.b.ins().load(self.ptr, flags, self.ctx, arr);
        let off = self.b.ins().ishl_imm_u(i, 2);
        let addr = self.b.ins().iadd(base, off);
        self.b.ins().uload32(flags, addr, 0)
    }

    /// Ends the slow path with `v` as `dst`, and goes on after the join.
    fn joined(&mut self, v: CValue, dst: Reg, join: CBlock) -> CValue {
        self.b.def_var(var(dst), v);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        self.b.use_var(var(dst))
    }

    /// The `slot`-th [`Value`] of the array at the context's word `arr` (`slot` checked), as
    /// a number of type `t` into `dst`, then to `join`: the tag says none, the register's
    /// kind (its payload read), or another (a failure).
    fn read_value(&mut self, arr: i32, slot: CValue, t: Ty, dst: Reg, join: CBlock) {
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
            let of = self.b.ins().uload16(types::I64, flags, addr, 2);
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

    /// Writes a value of type `t` as the next of the options: in place while the buffer has
    /// room ([`Value`]'s layout: the tag, then the variant's fields), else through `h_out`.
    fn write_out(&mut self, x: CValue, t: Ty) -> CValue {
        let flags = MemFlagsData::trusted();
        let len = self.b.ins().load(types::I64, flags, self.ctx, OUT_LEN);
        let cap = self.b.ins().load(types::I64, flags, self.ctx, OUT_CAP);
        let room = self.b.ins().icmp(IntCC::UnsignedLessThan, len, cap);
        let (fast, slow, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().brif(room, fast, &[], slow, &[]);
        self.b.switch_to_block(fast);
        let base = self.b.ins().load(self.ptr, flags, self.ctx, OUT);
        let off = self.b.ins().imul_imm_s(len, VALUE_SIZE);
        let addr = self.b.ins().iadd(base, off);
        let none = self.b.ins().icmp_imm_s(IntCC::Equal, x, t.none());
        let (is_none, value, written) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().brif(none, is_none, &[], value, &[]);
        self.b.switch_to_block(is_none);
        let tag = self.b.ins().iconst(types::I8, TAG_NONE);
        self.b.ins().store(flags, tag, addr, 0);
        self.b.ins().jump(written, &[]);
        self.b.switch_to_block(value);
        let l = layout(t);
        let tag = self.b.ins().iconst(types::I8, l.tag);
        self.b.ins().store(flags, tag, addr, 0);
        if let Some(id) = l.id {
            let id = self.b.ins().iconst(types::I16, id);
            self.b.ins().store(flags, id, addr, 2);
        }
        let v = match l.width {
            8 => x,
            4 => self.b.ins().ireduce(types::I32, x),
            2 => self.b.ins().ireduce(types::I16, x),
            _ => self.b.ins().ireduce(types::I8, x),
        };
        self.b.ins().store(flags, v, addr, l.at);
        self.b.ins().jump(written, &[]);
        self.b.switch_to_block(written);
        let len1 = self.b.ins().iadd_imm_s(len, 1);
        self.b.ins().store(flags, len1, self.ctx, OUT_LEN);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(slow);
        let z = self.iconst(0);
        self.call(h_out, pack(t), x, z);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        self.iconst(0)
    }

    /// An instruction that always fails: the failure, then unreachable code defining `dst`.
    fn always(&mut self, e: Fail, dst: Reg) {
        let fail = self.fail_block(e);
        self.b.ins().jump(fail, &[]);
        let dead = self.b.create_block();
        self.b.switch_to_block(dead);
        let z = self.iconst(0);
        self.b.def_var(var(dst), z);
    }

    /// Assigns a target's arguments to its block's parameters (all read first), then jumps.
    fn goto(&mut self, t: &Target) {
        let vals: Vec<CValue> = t.args.iter().map(|a| self.use_(*a)).collect();
        let params = &self.f.blocks[t.block.0 as usize].params;
        for (p, v) in params.iter().zip(vals) {
            self.b.def_var(var(*p), v);
        }
        self.b.ins().jump(self.blocks[t.block.0 as usize], &[]);
    }

    /// A block that goes to `t` (its own block, for the arguments of one edge, filled by
    /// `finish`).
    fn edge(&mut self, t: &Target) -> CBlock {
        if t.args.is_empty() {
            return self.blocks[t.block.0 as usize];
        }
        let e = self.b.create_block();
        self.edges.push((e, t.clone()));
        e
    }

    fn term(&mut self, t: &Term, out: CValue) {
        match t {
            Term::Jump(t) => self.goto(t),
            Term::Branch { cond, yes, no } => {
                let c = self.use_(*cond);
                if !self.sure[cond.0 as usize] {
                    let bad = self.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThan, c, 1);
                    self.fail_if(bad, Fail::NoneValue);
                }
                let (y, n) = (self.edge(yes), self.edge(no));
                self.b.ins().brif(c, y, &[], n, &[]);
            }
            Term::Return(r) => {
                let v = self.use_(*r);
                self.b.ins().store(MemFlagsData::trusted(), v, out, 0);
                let z = self.b.ins().iconst(types::I32, 0);
                self.exit(z);
            }
            Term::Fail(e) => {
                let c = self.b.ins().iconst(types::I32, code(*e));
                self.exit(c);
            }
        }
    }
}

fn var(r: Reg) -> Variable {
    Variable::from_u32(r.0)
}
