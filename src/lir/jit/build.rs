//! The building of a function's native code: registers as Cranelift variables, blocks as
//! blocks, each instruction as native code or a call of a helper of `jit/mod.rs`.

use super::*;
use cranelift_codegen::ir::{
    condcodes::IntCC, types, AbiParam, Block as CBlock, InstBuilder, MemFlagsData, Signature,
    Value as CValue,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};

mod arith;
mod facts;
mod reads;
use facts::facts;

/// The building of one function.
pub(super) struct Lower<'a, 'b> {
    b: FunctionBuilder<'b>,
    f: &'a Func,
    blocks: Vec<CBlock>,
    fails: Vec<Option<CBlock>>,
    ctx: CValue,
    helper_sig: cranelift_codegen::ir::SigRef,
    ptr: types::Type,
    /// Registers known never to hold none ([`facts`]).
    sure: Vec<bool>,
    /// Registers known to hold a number below this ([`facts`]: flat indexes).
    below: Vec<Option<u64>>,
    /// Blocks where the work budget is checked: those a jump from the same or a later
    /// block reaches (every loop passes one), besides every exit.
    checks: Vec<bool>,
    /// Blocks passing a branch's arguments, to fill at the end.
    edges: Vec<(CBlock, Target)>,
    /// The boards' tables (their addresses are written into the code).
    boards: &'a [BoardTabs],
    /// Per component, its class ([`Inst::Class`]; the address is written into the code).
    classes: &'a [u32],
    /// The work left, kept in a register: read from the context at entry, written back at
    /// every exit.
    left: Variable,
}

impl<'a, 'b> Lower<'a, 'b> {
    pub(super) fn build(
        g: &Game,
        f: &'a Func,
        boards: &'a [BoardTabs],
        classes: &'a [u32],
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
            sure: vec![],
            below: vec![],
            checks: vec![false; f.blocks.len()],
            edges: vec![],
            boards,
            classes,
            left,
        };
        (me.sure, me.below) = facts(f);
        for (i, block) in f.blocks.iter().enumerate() {
            for t in block.term.targets() {
                if t.0 as usize <= i {
                    me.checks[t.0 as usize] = true;
                }
            }
        }
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
            me.fuel(block.insts.len() as i64 + 1, me.checks[i]);
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

    /// Register `r`'s number, failing when it is none (unless it never is).
    fn number(&mut self, r: Reg) -> CValue {
        let x = self.use_(r);
        if !self.sure[r.0 as usize] {
            let c = self.b.ins().icmp_imm_s(IntCC::Equal, x, INT_NONE);
            self.fail_if(c, Fail::NoneValue);
        }
        x
    }

    /// Spends a block's work; with `check`, fails when the budget is overspent. The work
    /// left is a signed number (the context's budget is at most `i64::MAX`): spent without a
    /// check in straight code, it may go below zero until the next check, at a loop's head
    /// or an exit. Any run that stays within the budget passes every check; one that does
    /// not fails at the latest when it ends.
    fn fuel(&mut self, cost: i64, check: bool) {
        let f = self.b.use_var(self.left);
        let left = self.b.ins().iadd_imm_s(f, -cost);
        self.b.def_var(self.left, left);
        if check {
            self.check_fuel();
        }
    }

    /// Fails when the work left is below zero.
    fn check_fuel(&mut self) {
        let f = self.b.use_var(self.left);
        let short = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, f, 0);
        self.fail_if(short, Fail::Fuel);
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
                    // In place: the context holds every constant of the game.
                    let slot = self.iconst(c.0 as i64);
                    let join = self.b.create_block();
                    self.read_value(CONSTS, slot, ty(dst), dst, join);
                    self.b.switch_to_block(join);
                    self.b.use_var(var(dst))
                }
            },
            Inst::Var { dst, var: v, index } => self.var_inst(g, dst, v, index),
            Inst::Index { acc, x, size, .. } => self.index(acc, x, size),
            Inst::Field { dst, comp, field } => self.read_field(comp, field, ty(dst), dst),
            Inst::Arith { op, a, b, .. } => self.arith(op, a, b),
            Inst::Neg { a, .. } => {
                // Never overflows: the one number without a negative is none.
                let x = self.number(a);
                self.b.ins().ineg(x)
            }
            Inst::Cmp { dst, op, a, b } => self.compare(dst, op, a, b),
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
                match self.boards.get(bd.0 as usize) {
                    Some(t) if !t.may_close => {
                        let (ptr, n) = (t.closed.as_ptr() as i64, t.closed.len() as i64);
                        self.closed_in(s, ptr, n)
                    }
                    _ => {
                        let z = self.iconst(0);
                        self.call(h_closed, bd.0 as i64, s, z)
                    }
                }
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
            Inst::SetVar {
                var: v, index, a, ..
            } => {
                let pos = match index {
                    Some(i) => self.use_(i),
                    None => self.iconst(0),
                };
                let x = self.use_(a);
                self.call(h_set_var, v.0 as i64, pos, x)
            }
            Inst::Class { dst, comp } => {
                self.sure[dst.0 as usize] = true;
                let c = self.use_(comp);
                let n = self.classes.len() as i64;
                self.check_below(c, n);
                let base = self.b.ins().iconst(self.ptr, self.classes.as_ptr() as i64);
                let off = self.b.ins().ishl_imm_u(c, 2);
                let addr = self.b.ins().iadd(base, off);
                (self.b.ins()).uload32(MemFlagsData::trusted(), addr, 0)
            }
            Inst::Twin { dst, comp } => {
                self.sure[dst.0 as usize] = true;
                let c = self.use_(comp);
                let z = self.iconst(0);
                self.call_v(h_twin, c, z, z)
            }
            Inst::Near { space, k, .. } => {
                let Ty::Space(bd) = ty(space) else {
                    return self.always(Fail::Type, inst.dst());
                };
                let (s, k) = (self.use_(space), self.use_(k));
                match self.boards.get(bd.0 as usize) {
                    Some(t) if !t.may_close => {
                        let starts = (t.adj_start.as_ptr() as i64, t.adj_start.len() as i64);
                        self.near(s, k, starts, t.adj.as_ptr() as i64)
                    }
                    _ => self.call(h_near, bd.0 as i64, s, k),
                }
            }
            Inst::Seek {
                dst,
                var: v,
                value,
                from,
            } => {
                self.sure[dst.0 as usize] = true;
                let (x, at) = (self.use_(value), self.use_(from));
                let ix = g.program.var_index[v].map(|k| g.program.indexes[k as usize]);
                match (ix, ty(value)) {
                    (Some(ix), t @ (Ty::Bool | Ty::Player | Ty::Enum(_) | Ty::Space(_))) => {
                        self.seek(x, t.none(), at, ix, g.vars[v].count as i64)
                    }
                    _ => self.call(h_seek, v.0 as i64, x, at),
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
            Inst::Clear { area, .. } => self.clear(area),
            Inst::Mark { dst, area, x } | Inst::Marked { dst, area, x } => {
                self.sure[dst.0 as usize] = true;
                self.mark(area, x, matches!(inst, Inst::Mark { .. }))
            }
            Inst::NextMarked { dst, area, from } => {
                self.sure[dst.0 as usize] = true;
                self.next_marked(area, from)
            }
            Inst::Push { area, x, .. } => self.push_on(area, x),
            Inst::Pop { area, .. } => self.pop_off(area),
            Inst::Store { area, x, .. } => {
                let v = self.use_(x);
                let at = self.word(area, None);
                (self.b.ins()).store(MemFlagsData::trusted(), v, at, 0);
                self.iconst(0)
            }
            Inst::Load { area, .. } => {
                let at = self.word(area, None);
                (self.b.ins()).load(types::I64, MemFlagsData::trusted(), at, 0)
            }
        };
        self.b.def_var(var(inst.dst()), v);
    }

    /// A variable's value: its slot (an index checked against the variable's slots), read.
    fn var_inst(&mut self, g: &Game, dst: Reg, v: crate::ir::VarId, index: Option<Reg>) -> CValue {
        let ty = self.f.ty(dst);
        let def = &g.vars[v];
        let slot = match index {
            Some(i) => {
                let k = self.use_(i);
                if self.below[i.0 as usize].is_none_or(|n| n > def.count as u64) {
                    self.check_below(k, def.count as i64);
                }
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
        self.read_var(slot, ty, dst)
    }

    /// A flat index: `acc * size + x`, `x` checked against `size` (and not none).
    fn index(&mut self, acc: Option<Reg>, x: Reg, size: u32) -> CValue {
        let f = self.f;
        let ty = |r: Reg| f.ty(r);
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
        let tag = self.b.ins().iconst(types::I64, TAG_NONE);
        self.b.ins().store(flags, tag, addr, 0);
        self.b.ins().jump(written, &[]);
        self.b.switch_to_block(value);
        let l = layout(t);
        let tag = self.b.ins().iconst(types::I64, l.tag);
        self.b.ins().store(flags, tag, addr, 0);
        if let Some(id) = l.id {
            let id = self.b.ins().iconst(types::I16, id);
            self.b.ins().store(flags, id, addr, ID_AT);
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

    /// The address of word `k` of an area (a number of words from its start).
    fn word(&mut self, area: Area, k: Option<CValue>) -> CValue {
        let base = (self.b.ins()).load(self.ptr, MemFlagsData::trusted(), self.ctx, SCRATCH);
        let start = self.b.ins().iadd_imm_s(base, area.at as i64 * 8);
        match k {
            Some(k) => {
                let off = self.b.ins().ishl_imm_u(k, 3);
                self.b.ins().iadd(start, off)
            }
            None => start,
        }
    }

    /// [`Inst::Clear`]: the area's words zeroed (in place up to 16 words, else a loop).
    fn clear(&mut self, area: Area) -> CValue {
        let at = self.word(area, None);
        let z = self.iconst(0);
        let flags = MemFlagsData::trusted();
        if area.words <= 16 {
            for k in 0..area.words {
                self.b.ins().store(flags, z, at, (k * 8) as i32);
            }
            return z;
        }
        // k from 0 to the area's words.
        let (head, body, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.append_block_param(head, types::I64);
        self.b.ins().jump(head, &[z.into()]);
        self.b.switch_to_block(head);
        let k = self.b.block_params(head)[0];
        let more = (self.b.ins()).icmp_imm_s(IntCC::UnsignedLessThan, k, area.words as i64);
        self.b.ins().brif(more, body, &[], done, &[]);
        self.b.switch_to_block(body);
        let off = self.b.ins().ishl_imm_u(k, 3);
        let addr = self.b.ins().iadd(at, off);
        self.b.ins().store(flags, z, addr, 0);
        let k1 = self.b.ins().iadd_imm_s(k, 1);
        self.b.ins().jump(head, &[k1.into()]);
        self.b.switch_to_block(done);
        self.iconst(0)
    }

    /// [`Inst::Mark`] (`set`) and [`Inst::Marked`]: whether `x`'s bit was set.
    fn mark(&mut self, area: Area, x: Reg, set: bool) -> CValue {
        let x = self.use_(x);
        self.check_below(x, area.words as i64 * 64);
        let k = self.b.ins().ushr_imm_u(x, 6);
        let addr = self.word(area, Some(k));
        let flags = MemFlagsData::trusted();
        let w = self.b.ins().load(types::I64, flags, addr, 0);
        let sh = self.b.ins().band_imm_u(x, 63);
        let one = self.iconst(1);
        let bit = self.b.ins().ishl(one, sh);
        if set {
            let w2 = self.b.ins().bor(w, bit);
            self.b.ins().store(flags, w2, addr, 0);
        }
        let hit = self.b.ins().band(w, bit);
        let c = self.b.ins().icmp_imm_s(IntCC::NotEqual, hit, 0);
        self.b.ins().uextend(types::I64, c)
    }

    /// [`Inst::NextMarked`]: a loop over the set's words from the one holding `from`, the
    /// first set bit found by counting trailing zeros.
    fn next_marked(&mut self, area: Area, from: Reg) -> CValue {
        let from = self.use_(from);
        let end = area.words as i64 * 64;
        let (head, body, found, next, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        for blk in [head, done] {
            self.b.append_block_param(blk, types::I64);
        }
        let zero = self.iconst(0);
        let neg = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, from, 0);
        let x0 = self.b.ins().select(neg, zero, from);
        self.b.ins().jump(head, &[x0.into()]);
        self.b.switch_to_block(head);
        let x = self.b.block_params(head)[0];
        let more = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, x, end);
        let endv = self.iconst(end);
        self.b.ins().brif(more, body, &[], done, &[endv.into()]);
        self.b.switch_to_block(body);
        let k = self.b.ins().ushr_imm_u(x, 6);
        let addr = self.word(area, Some(k));
        let w = (self.b.ins()).load(types::I64, MemFlagsData::trusted(), addr, 0);
        let sh = self.b.ins().band_imm_u(x, 63);
        let rest = self.b.ins().ushr(w, sh);
        self.b.ins().brif(rest, found, &[], next, &[]);
        self.b.switch_to_block(found);
        let tz = self.b.ins().ctz(rest);
        let at = self.b.ins().iadd(x, tz);
        self.b.ins().jump(done, &[at.into()]);
        self.b.switch_to_block(next);
        let k1 = self.b.ins().iadd_imm_s(k, 1);
        let x1 = self.b.ins().ishl_imm_u(k1, 6);
        self.b.ins().jump(head, &[x1.into()]);
        self.b.switch_to_block(done);
        self.b.block_params(done)[0]
    }

    /// [`Inst::Push`]: `x` written after the area's entries, their number one more; a full
    /// area fails.
    fn push_on(&mut self, area: Area, x: Reg) -> CValue {
        let x = self.use_(x);
        let at = self.word(area, None);
        let flags = MemFlagsData::trusted();
        let n = self.b.ins().load(types::I64, flags, at, 0);
        let full =
            (self.b.ins()).icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, n, area.words as i64 - 1);
        self.fail_if(full, Fail::Limit);
        let off = self.b.ins().ishl_imm_u(n, 3);
        let addr = self.b.ins().iadd(at, off);
        self.b.ins().store(flags, x, addr, 8);
        let n1 = self.b.ins().iadd_imm_s(n, 1);
        self.b.ins().store(flags, n1, at, 0);
        self.iconst(0)
    }

    /// [`Inst::Pop`]: the area's last entry taken off (none when it has none).
    fn pop_off(&mut self, area: Area) -> CValue {
        let at = self.word(area, None);
        let flags = MemFlagsData::trusted();
        let n = self.b.ins().load(types::I64, flags, at, 0);
        let empty = self.b.ins().icmp_imm_s(IntCC::Equal, n, 0);
        // Word n is the last entry (the count itself when there is none, then unused).
        let off = self.b.ins().ishl_imm_u(n, 3);
        let addr = self.b.ins().iadd(at, off);
        let e = self.b.ins().load(types::I64, flags, addr, 0);
        let n1 = self.b.ins().iadd_imm_s(n, -1);
        let z = self.iconst(0);
        let left = self.b.ins().select(empty, z, n1);
        self.b.ins().store(flags, left, at, 0);
        let none = self.iconst(ID_NONE);
        self.b.ins().select(empty, none, e)
    }

    /// Whether space `s` is closed, read from a table of `n` bytes at `ptr` (none, or a
    /// space past the table: not closed).
    fn closed_in(&mut self, s: CValue, ptr: i64, n: i64) -> CValue {
        let inside = self.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, s, n);
        let (read, join) = (self.b.create_block(), self.b.create_block());
        self.b.append_block_param(join, types::I64);
        let z = self.iconst(0);
        self.b.ins().brif(inside, read, &[], join, &[z.into()]);
        self.b.switch_to_block(read);
        let base = self.b.ins().iconst(self.ptr, ptr);
        let addr = self.b.ins().iadd(base, s);
        let c = (self.b.ins()).uload8(types::I64, MemFlagsData::trusted(), addr, 0);
        self.b.ins().jump(join, &[c.into()]);
        self.b.switch_to_block(join);
        self.b.block_params(join)[0]
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
                self.check_fuel();
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
