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
    /// The state's variables, read in place ([`Value`]'s layout is `repr(u8)`).
    vars: *const Value,
    vars_len: u64,
    /// Where the options are written ([`Inst::Out`]): `rt.out`'s buffer, its length and
    /// capacity while the native code runs (`rt.out`'s own length is set after).
    out: *mut Value,
    out_len: u64,
    out_cap: u64,
    rt: Rt<'a>,
}

const FUEL: i32 = 0;
const FAIL: i32 = 8;
const ME: i32 = 16;
const CURRENT: i32 = 24;
const PLAYERS: i32 = 32;
const VARS: i32 = 40;
const VARS_LEN: i32 = 48;
const OUT: i32 = 56;
const OUT_LEN: i32 = 64;
const OUT_CAP: i32 = 72;

// `Value`'s layout (`repr(u8)`): the tag, then the fields as in a C struct after it.
const VALUE_SIZE: i64 = 16;
const TAG_NONE: i64 = 0;

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

/// Where a [`Value`] of a register type keeps its number (`repr(u8)`: the tag at 0, then
/// the variant's fields as in a C struct after it).
struct Layout {
    /// The variant's tag.
    tag: i64,
    /// The id its fields begin with (an enum's, a board's: a `u16` at 2), checked.
    id: Option<i64>,
    /// The number's offset and width in bytes.
    at: i32,
    width: u8,
}

fn layout(t: Ty) -> Layout {
    let (tag, id, at, width) = match t {
        Ty::Int => (1, None, 8, 8),
        Ty::Bool => (2, None, 1, 1),
        Ty::Player => (3, None, 1, 1),
        Ty::Enum(e) => (4, Some(e.0 as i64), 4, 2),
        Ty::Comp(_) => (5, None, 4, 4),
        Ty::Space(b) => (6, Some(b.0 as i64), 4, 4),
        Ty::Zone(_) => (7, None, 4, 4),
    };
    Layout { tag, id, at, width }
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

/// An option's value when the buffer is full: pushed (the buffer grows), the buffer's place
/// handed to the native code again.
extern "C" fn h_out(ctx: *mut Ctx, ty: i64, a: i64, _: i64) -> i64 {
    // SAFETY: as in `helper`; `out_len` counts the values the native code wrote, each whole,
    // into the buffer of `rt.out` below its capacity.
    let ctx = unsafe { &mut *ctx };
    unsafe { ctx.rt.out.set_len(ctx.out_len as usize) };
    ctx.rt.out(unpack(ty), a);
    let more = ctx.rt.out.len().max(16);
    ctx.rt.out.reserve(more);
    ctx.out = ctx.rt.out.as_mut_ptr();
    ctx.out_len = ctx.rt.out.len() as u64;
    ctx.out_cap = ctx.rt.out.capacity() as u64;
    0
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
        let vars = env.vars();
        rt.out.reserve(16);
        let (out_ptr, out_len, out_cap) = (
            rt.out.as_mut_ptr(),
            rt.out.len() as u64,
            rt.out.capacity() as u64,
        );
        let mut ctx = Ctx {
            fuel: *fuel,
            fail: 0,
            me: rt.me,
            current: rt.current,
            players: rt.players,
            vars: vars.as_ptr(),
            vars_len: vars.len() as u64,
            out: out_ptr,
            out_len,
            out_cap,
            rt,
        };
        let mut result = 0i64;
        let c = entry(&mut ctx, args.as_ptr(), &mut result);
        *fuel = ctx.fuel;
        // SAFETY: the native code wrote `out_len` whole values into the buffer (below its
        // capacity), `h_out` keeping the pointer, length and capacity in step when it grew.
        unsafe { ctx.rt.out.set_len(ctx.out_len as usize) };
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
                self.write_out(x, ty(a))
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

    /// A variable's slot as a number of type `t`: read in place when the state's variables
    /// are at hand ([`Env::vars`]), else through the helper.
    fn read_var(&mut self, slot: CValue, t: Ty, dst: Reg) -> CValue {
        let flags = MemFlagsData::trusted();
        let len = self.b.ins().load(types::I64, flags, self.ctx, VARS_LEN);
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, slot, len);
        let (fast, slow, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().brif(inside, fast, &[], slow, &[]);
        // In place: the tag says none, the register's kind (its payload read), or another.
        self.b.switch_to_block(fast);
        let base = self.b.ins().load(self.ptr, flags, self.ctx, VARS);
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
        // Through the helper.
        self.b.switch_to_block(slow);
        let tv = self.iconst(pack(t));
        let z = self.iconst(0);
        let v = self.call_v(h_var, slot, tv, z);
        self.b.def_var(var(dst), v);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        self.b.use_var(var(dst))
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
