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
use cranelift_codegen::ir::{types, AbiParam, UserFuncName};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, FuncId, Linkage, Module};
use interp::Env;
use rt::Rt;

mod build;
use build::Lower;

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
