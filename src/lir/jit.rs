//! Native code for the low-level IR, compiled at load with Cranelift (feature `jit`).
//!
//! A function becomes `extern "C" fn(ctx, args, out) -> code`: `code` is 0 and `*out` the
//! result's number, or the [`Fail`] it met (1 + its position). Registers become Cranelift
//! variables (the frontend builds the SSA form again, block arguments becoming assignments on
//! the edges); arithmetic, comparisons, indexes, branches and the work budget are native
//! code; what reads the state or the game's tables (variables, fields, zones, steps) calls a
//! helper written in Rust that checks every index, so that the only memory the native code
//! touches itself is the context's first five words, the arguments and the result.
//!
//! The work budget is spent per block: a block costs its instructions plus one, as in the
//! interpreter, but all at its entry, so that a budget running out inside a block fails a
//! little earlier here than there (fuel may differ; results and other failures may not).

use super::*;
use crate::ir::Game;
use cranelift_codegen::ir::{
    condcodes::IntCC, types, AbiParam, Block as CBlock, InstBuilder, MemFlagsData, Signature,
    UserFuncName, Value as CValue,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, FuncId, Linkage, Module};
use interp::Env;
use rt::Rt;

/// What a compiled function reads while it runs: the first five words are read and written
/// by the native code at fixed offsets, the rest only by the helpers.
#[repr(C)]
pub struct Ctx<'a> {
    /// Units of work left.
    fuel: u64,
    /// A helper's failure (1 + the position of its [`Fail`]), 0 when none.
    fail: u64,
    me: i64,
    current: i64,
    players: i64,
    rt: Rt<'a>,
}

const FUEL: i32 = 0;
const FAIL: i32 = 8;
const ME: i32 = 16;
const CURRENT: i32 = 24;
const PLAYERS: i32 = 32;

const FAILS: [Fail; 7] = [
    Fail::NoneValue,
    Fail::Arithmetic,
    Fail::Index,
    Fail::Field,
    Fail::Type,
    Fail::Fuel,
    Fail::Limit,
];

fn code(e: Fail) -> i64 {
    FAILS.iter().position(|f| *f == e).unwrap_or(0) as i64 + 1
}

/// A register type as one number for the helpers: a kind in the high half, an id below.
fn pack(t: Ty) -> i64 {
    let (k, id) = match t {
        Ty::Int => (0, 0),
        Ty::Bool => (1, 0),
        Ty::Player => (2, 0),
        Ty::Enum(e) => (3, e.0 as u32),
        Ty::Comp(c) => (4, c.0 as u32),
        Ty::Space(b) => (5, b.0 as u32),
        Ty::Zone(c) => (6, c.0 as u32),
    };
    (k << 32) | id as i64
}

fn unpack(n: i64) -> Ty {
    let id = n as u32;
    match n >> 32 {
        0 => Ty::Int,
        1 => Ty::Bool,
        2 => Ty::Player,
        3 => Ty::Enum(crate::ir::EnumId(id as _)),
        4 => Ty::Comp(crate::ir::TypeId(id as _)),
        5 => Ty::Space(crate::ir::BoardId(id as _)),
        _ => Ty::Zone(crate::ir::TypeId(id as _)),
    }
}

type Helper = extern "C" fn(*mut Ctx, i64, i64, i64) -> i64;

/// Runs a helper's body: its number, or its failure written into the context.
fn helper(ctx: *mut Ctx, body: impl FnOnce(&mut Rt) -> Result<i64, Fail>) -> i64 {
    // SAFETY: the native code passes on the context pointer `Compiled::run` gave it, which
    // points to a live `Ctx` for the whole call, and nothing else refers to it meanwhile.
    let ctx = unsafe { &mut *ctx };
    match body(&mut ctx.rt) {
        Ok(v) => v,
        Err(e) => {
            ctx.fail = code(e) as u64;
            0
        }
    }
}

extern "C" fn h_var(ctx: *mut Ctx, slot: i64, ty: i64, _: i64) -> i64 {
    helper(ctx, |rt| rt.var(slot, unpack(ty)))
}

extern "C" fn h_const(ctx: *mut Ctx, k: i64, ty: i64, _: i64) -> i64 {
    helper(ctx, |rt| rt.constant(k as u32, unpack(ty)))
}

extern "C" fn h_field(ctx: *mut Ctx, comp: i64, field: i64, ty: i64) -> i64 {
    helper(ctx, |rt| rt.field(comp, field as u16, unpack(ty)))
}

const ARITHS: [Arith; 3] = [Arith::Div, Arith::Mod, Arith::Pow];

/// Division, remainder and powers (their rules are long; the rest is native).
extern "C" fn h_arith(ctx: *mut Ctx, op: i64, x: i64, y: i64) -> i64 {
    helper(ctx, |_| rt::arith(ARITHS[op as usize], x, y))
}

const UNARIES: [Unary; 8] = [
    Unary::Abs,
    Unary::Next,
    Unary::Prev,
    Unary::Seat,
    Unary::Ord,
    Unary::Col,
    Unary::Row,
    Unary::Opposite,
];

extern "C" fn h_unary(ctx: *mut Ctx, op: i64, ty: i64, a: i64) -> i64 {
    helper(ctx, |rt| rt.unary(UNARIES[op as usize], unpack(ty), a))
}

extern "C" fn h_step(ctx: *mut Ctx, board: i64, s: i64, d: i64) -> i64 {
    helper(ctx, |rt| Ok(rt.step(board as u32, s, d)))
}

extern "C" fn h_closed(ctx: *mut Ctx, board: i64, s: i64, _: i64) -> i64 {
    helper(ctx, |rt| Ok(rt.closed(board as u32, s)))
}

const HELD: [Held; 4] = [Held::Count, Held::Empty, Held::Top, Held::Bottom];

extern "C" fn h_held(ctx: *mut Ctx, what: i64, z: i64, _: i64) -> i64 {
    helper(ctx, |rt| rt.held(HELD[what as usize], z))
}

const PLACES: [Place; 3] = [Place::Zone, Place::Owner, Place::Space];

extern "C" fn h_place(ctx: *mut Ctx, what: i64, comp: i64, _: i64) -> i64 {
    helper(ctx, |rt| Ok(rt.place(PLACES[what as usize], comp)))
}

extern "C" fn h_out(ctx: *mut Ctx, ty: i64, a: i64, _: i64) -> i64 {
    helper(ctx, |rt| Ok(rt.out(unpack(ty), a)))
}

extern "C" fn h_zone_at(ctx: *mut Ctx, z: i64, k: i64, _: i64) -> i64 {
    helper(ctx, |rt| rt.zone_at(z, k))
}

type Entry = extern "C" fn(*mut Ctx, *const i64, *mut i64) -> u32;

/// Functions compiled together; they live as long as this.
pub struct Compiled {
    module: Option<JITModule>,
    funcs: Vec<(Entry, Ty, usize)>,
}

impl Drop for Compiled {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: the function pointers die with `self`; no call is running, as a call
            // borrows `self`.
            unsafe { m.free_memory() };
        }
    }
}

impl Compiled {
    /// Compiles functions (each checked by the verifier first).
    pub fn new(g: &Game, funcs: &[&Func]) -> Result<Compiled, String> {
        let mut flags = settings::builder();
        let set = |f: &mut settings::Builder, k: &str, v: &str| {
            f.set(k, v)
                .map_err(|e| format!("cranelift setting {k}: {e}"))
        };
        set(&mut flags, "use_colocated_libcalls", "false")?;
        set(&mut flags, "is_pic", "false")?;
        set(&mut flags, "opt_level", "speed")?;
        let isa = cranelift_native::builder()
            .map_err(|e| format!("this machine is not supported by Cranelift: {e}"))?
            .finish(settings::Flags::new(flags))
            .map_err(|e| format!("cranelift: {e}"))?;
        let mut module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));
        let mut ids: Vec<FuncId> = vec![];
        let mut cx = module.make_context();
        let mut fcx = FunctionBuilderContext::new();
        for (i, f) in funcs.iter().enumerate() {
            verify::verify(f, g)?;
            let ptr = module.target_config().pointer_type();
            let mut sig = module.make_signature();
            sig.params.extend([AbiParam::new(ptr); 3]);
            sig.returns.push(AbiParam::new(types::I32));
            let id = module
                .declare_function(&format!("f{i}"), Linkage::Local, &sig)
                .map_err(|e| e.to_string())?;
            cx.func.signature = sig;
            cx.func.name = UserFuncName::user(0, id.as_u32());
            Lower::build(g, f, &mut cx.func, &mut fcx, module.target_config());
            module
                .define_function(id, &mut cx)
                .map_err(|e| format!("{}: {e:?}", f.name))?;
            module.clear_context(&mut cx);
            ids.push(id);
        }
        module.finalize_definitions().map_err(|e| e.to_string())?;
        let funcs = ids
            .iter()
            .zip(funcs)
            .map(|(id, f)| {
                let p = module.get_finalized_function(*id);
                // SAFETY: the function was built with the signature `Entry` stands for
                // (three pointers in, a 32-bit code out, the platform's C convention).
                let e = unsafe { std::mem::transmute::<*const u8, Entry>(p) };
                (e, f.ret, f.params.len())
            })
            .collect();
        Ok(Compiled {
            module: Some(module),
            funcs,
        })
    }

    /// Runs the `k`-th function on `args` (one number per parameter), as [`interp::run`].
    pub fn run(
        &self,
        k: usize,
        g: &Game,
        env: &dyn Env,
        args: &[i64],
        fuel: &mut u64,
    ) -> Result<Value, Fail> {
        self.run_into(k, g, env, args, fuel, &mut vec![])
    }

    /// [`Compiled::run`], the values it writes ([`Inst::Out`]) appended to `out`.
    pub fn run_into(
        &self,
        k: usize,
        g: &Game,
        env: &dyn Env,
        args: &[i64],
        fuel: &mut u64,
        out: &mut Vec<Value>,
    ) -> Result<Value, Fail> {
        let (entry, ret, n) = self.funcs[k];
        assert!(args.len() >= n, "a compiled function needs {n} arguments");
        let mut rt = Rt::new(g, env, *fuel);
        rt.out = std::mem::take(out);
        let mut ctx = Ctx {
            fuel: *fuel,
            fail: 0,
            me: rt.me,
            current: rt.current,
            players: rt.players,
            rt,
        };
        let mut result = 0i64;
        let c = entry(&mut ctx, args.as_ptr(), &mut result);
        *fuel = ctx.fuel;
        *out = std::mem::take(&mut ctx.rt.out);
        match c {
            0 => Ok(ret.decode(result)),
            c => Err(FAILS[(c as usize - 1).min(FAILS.len() - 1)]),
        }
    }
}

/// The building of one function.
struct Lower<'a, 'b> {
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
}

impl<'a, 'b> Lower<'a, 'b> {
    fn build(
        g: &Game,
        f: &'a Func,
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
        };
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
                self.b.ins().return_(&[c]);
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
        let f = self
            .b
            .ins()
            .load(types::I64, MemFlagsData::trusted(), self.ctx, FUEL);
        let short = self.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, f, cost);
        self.fail_if(short, Fail::Fuel);
        let left = self.b.ins().iadd_imm_s(f, -cost);
        self.b
            .ins()
            .store(MemFlagsData::trusted(), left, self.ctx, FUEL);
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
        self.b.ins().return_(&[f32]);
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
                let t = self.iconst(pack(ty(dst)));
                let z = self.iconst(0);
                self.call_v(h_var, slot, t, z)
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
            Inst::Field { dst, comp, field } => {
                let c = self.use_(comp);
                let fl = self.iconst(field as i64);
                let t = self.iconst(pack(ty(dst)));
                let h = h_field as Helper;
                self.call_v(h, c, fl, t)
            }
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
            Inst::Unary { op, a, .. } => {
                let x = self.use_(a);
                let k = UNARIES.iter().position(|u| *u == op).unwrap_or(0) as i64;
                let t = self.iconst(pack(ty(a)));
                self.call(h_unary, k, t, x)
            }
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
            Inst::ZoneAt { zone, k, .. } => {
                let (z, k) = (self.use_(zone), self.use_(k));
                let h = h_zone_at as Helper;
                let zero = self.iconst(0);
                self.call_v(h, z, k, zero)
            }
            Inst::Step { space, dir, .. } => {
                let Ty::Space(bd) = ty(space) else {
                    return self.always(Fail::Type, inst.dst());
                };
                let (s, d) = (self.use_(space), self.use_(dir));
                self.call(h_step, bd.0 as i64, s, d)
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
                let z = self.use_(zone);
                let k = HELD.iter().position(|h| *h == what).unwrap_or(0) as i64;
                let zero = self.iconst(0);
                self.call(h_held, k, z, zero)
            }
            Inst::Out { a, .. } => {
                let x = self.use_(a);
                let z = self.iconst(0);
                self.call(h_out, pack(ty(a)), x, z)
            }
            Inst::Place { what, comp, .. } => {
                let c = self.use_(comp);
                let k = PLACES.iter().position(|p| *p == what).unwrap_or(0) as i64;
                let zero = self.iconst(0);
                self.call(h_place, k, c, zero)
            }
        };
        self.b.def_var(var(inst.dst()), v);
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
                self.b.ins().return_(&[z]);
            }
            Term::Fail(e) => {
                let c = self.b.ins().iconst(types::I32, code(*e));
                self.b.ins().return_(&[c]);
            }
        }
    }
}

fn var(r: Reg) -> Variable {
    Variable::from_u32(r.0)
}
