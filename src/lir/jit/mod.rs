//! Native code for the low-level IR, compiled at load with Cranelift (feature `jit`).
//!
//! A function becomes `extern "C" fn(ctx, args, out) -> code`: `code` is 0 and `*out` the
//! result's number, or the [`Fail`] it met (1 + its position). Registers become Cranelift
//! variables (the frontend builds the SSA form again, block arguments becoming assignments on
//! the edges); arithmetic, comparisons, indexes, branches and the work budget are native
//! code, and so are the reads of the state: its variables, fields and zones (lengths, ends,
//! lists, places) are read in place in the arrays the environment lends ([`Env::vars`],
//! [`Env::fields`], [`Env::zones`]), the game's tables (fields per component, owners and
//! spaces per instance, a board's coordinates and steps) in copies [`Compiled`] owns. Every
//! read is checked against its array's length first; what falls outside, and the rest (a
//! constant, `%`, `/`, `^`, a step on a board with closed spaces, an option written past the
//! buffer's capacity) calls a small helper written in Rust over the checked runtime
//! ([`rt::Rt`]).
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

/// What a compiled function reads while it runs: the words before `rt` are read (and the
/// first and the options' written) by the native code at fixed offsets, `rt` only by the
/// helpers. Every array is read below its length, which the native code checks first.
#[repr(C)]
pub struct Ctx<'a> {
    /// Units of work left.
    fuel: u64,
    /// A helper's failure (1 + the position of its [`Fail`]), 0 when none.
    fail: u64,
    me: i64,
    current: i64,
    players: i64,
    /// The state's variables, read in place ([`Value`]'s layout is `repr(u64)`): every slot
    /// of the game (copied when the environment does not lend them).
    vars: *const Value,
    /// Where the options are written ([`Inst::Out`]): `rt.out`'s buffer, its length and
    /// capacity while the native code runs (`rt.out`'s own length is set after).
    out: *mut Value,
    out_len: u64,
    out_cap: u64,
    /// The state's field slots, read in place (all of the game's, as `vars`).
    fields: *const Value,
    /// Per component of the game: its first field slot and its number of fields.
    field_tab: *const [u32; 2],
    comps: u64,
    /// The zones' arrays ([`interp::ZoneArrays`]): per instance (`insts` of them) its
    /// length, bottom and top; per component (`placed` of them) the one above and its
    /// instance. `insts` and `placed` are 0 when the environment has no arrays.
    z_len: *const u32,
    z_head: *const u32,
    z_tail: *const u32,
    z_next: *const u32,
    z_loc: *const u32,
    insts: u64,
    placed: u64,
    /// Per instance of the game: its owner and its space (`u32::MAX`: none).
    owner_tab: *const u32,
    space_tab: *const u32,
    /// The match's constants, read in place (all of the game's, as `vars`).
    consts: *const Value,
    /// The state's value index bits ([`Env::index_bits`]), all of the game's words (computed
    /// from the variables when the environment does not lend them).
    bits: *const u64,
    /// The function's scratch words ([`Area`]): `rt.scratch`'s buffer, as long as the
    /// function's [`Func::scratch`] (the native code checks every index against its area).
    scratch: *mut u64,
    rt: Rt<'a>,
}

macro_rules! at {
    ($f:ident) => {
        std::mem::offset_of!(Ctx<'static>, $f) as i32
    };
}
const FUEL: i32 = at!(fuel);
const FAIL: i32 = at!(fail);
const ME: i32 = at!(me);
const CURRENT: i32 = at!(current);
const PLAYERS: i32 = at!(players);
const VARS: i32 = at!(vars);
const OUT: i32 = at!(out);
const OUT_LEN: i32 = at!(out_len);
const OUT_CAP: i32 = at!(out_cap);
const FIELDS: i32 = at!(fields);
const FIELD_TAB: i32 = at!(field_tab);
const COMPS: i32 = at!(comps);
const Z_LEN: i32 = at!(z_len);
const Z_HEAD: i32 = at!(z_head);
const Z_TAIL: i32 = at!(z_tail);
const Z_NEXT: i32 = at!(z_next);
const Z_LOC: i32 = at!(z_loc);
const INSTS: i32 = at!(insts);
const PLACED: i32 = at!(placed);
const OWNER_TAB: i32 = at!(owner_tab);
const SPACE_TAB: i32 = at!(space_tab);
const CONSTS: i32 = at!(consts);
const BITS: i32 = at!(bits);
const SCRATCH: i32 = at!(scratch);

// `Value`'s layout (`repr(u64)`): the tag word, then the fields as in a C struct after it.
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

/// Where a [`Value`] of a register type keeps its number (`repr(u64)`: the tag word at 0,
/// then the variant's fields as in a C struct after it, from 8).
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
        Ty::Bool => (2, None, 8, 1),
        Ty::Player => (3, None, 8, 1),
        Ty::Enum(e) => (4, Some(e.0 as i64), 10, 2),
        Ty::Comp(_) => (5, None, 8, 4),
        Ty::Space(b) => (6, Some(b.0 as i64), 12, 4),
        Ty::Zone(_) => (7, None, 8, 4),
    };
    Layout { tag, id, at, width }
}

/// Where an enum's or a board's id lies in a [`Value`] of one of its values.
const ID_AT: i32 = 8;

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

extern "C" fn h_field(ctx: *mut Ctx, comp: i64, field: i64, ty: i64) -> i64 {
    helper(ctx, |rt| rt.field(comp, field as u16, unpack(ty)))
}

/// Powers (their rules are long; the rest of the arithmetic is native). The first operand
/// is unused: every helper takes three.
extern "C" fn h_pow(ctx: *mut Ctx, _: i64, x: i64, y: i64) -> i64 {
    helper(ctx, |_| rt::arith(Arith::Pow, x, y))
}

extern "C" fn h_step(ctx: *mut Ctx, board: i64, s: i64, d: i64) -> i64 {
    helper(ctx, |rt| Ok(rt.step(board as u32, s, d)))
}

extern "C" fn h_near(ctx: *mut Ctx, board: i64, s: i64, k: i64) -> i64 {
    helper(ctx, |rt| Ok(rt.near(board as u32, s, k)))
}

/// The variables' value index bits as `vars` hold them (the fields' bits left out: the
/// native code reads only the variables').
fn index_bits(g: &Game, vars: &[Value]) -> Vec<u64> {
    let mut bits = vec![0u64; g.program.index_words as usize];
    for ix in &g.program.indexes {
        let var = &g.vars[ix.var];
        for pos in 0..var.count {
            let v = vars
                .get((var.base + pos) as usize)
                .copied()
                .unwrap_or_default();
            if let Some(code) = crate::ir::vm::Program::value_code(v).filter(|c| *c < ix.codes) {
                bits[(ix.base + code * ix.words + pos / 64) as usize] |= 1 << (pos % 64);
            }
        }
    }
    bits
}

extern "C" fn h_seek(ctx: *mut Ctx, var: i64, value: i64, from: i64) -> i64 {
    helper(ctx, |rt| Ok(rt.seek(var as u32, value, from)))
}

/// A write of a variable's entry ([`Inst::SetVar`]).
extern "C" fn h_set_var(ctx: *mut Ctx, var: i64, pos: i64, a: i64) -> i64 {
    helper(ctx, |rt| rt.set_var(var as u32, pos, a))
}

extern "C" fn h_twin(ctx: *mut Ctx, comp: i64, _: i64, _: i64) -> i64 {
    helper(ctx, |rt| Ok(rt.twin(comp)))
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

/// Set (to anything) in the environment, the machine code of every function compiled is
/// written to standard error (to read with a profile of the native code).
pub const DUMP_VAR: &str = "RULEBOOK_DUMP_NATIVE";

/// Set (to anything) in the environment, the address and size of every function compiled is
/// appended to `/tmp/perf-<pid>.map`, where `perf report` finds the names of native code.
pub const PERF_MAP_VAR: &str = "RULEBOOK_PERF_MAP";

/// Appends the functions' addresses, sizes and names to the process's perf map.
fn perf_map(module: &JITModule, ids: &[FuncId], sizes: &[u32], funcs: &[&Func]) {
    use std::io::Write;
    let path = format!("/tmp/perf-{}.map", std::process::id());
    let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    else {
        return;
    };
    for ((id, size), f) in ids.iter().zip(sizes).zip(funcs) {
        let p = module.get_finalized_function(*id);
        let name = f.name.replace(char::is_whitespace, "_");
        let _ = writeln!(file, "{:x} {size:x} {name}", p as usize);
    }
}

type Entry = extern "C" fn(*mut Ctx, *const i64, *mut i64) -> u32;

/// The module holding the code, touched again only to free it.
struct Owned(JITModule);

// SAFETY: once its definitions are finalised, nothing reads or writes the module but
// `Compiled`'s `drop`, which holds it exclusively; the code and tables it holds are not
// written again, and native code that only reads them may run on any thread at once (each
// call has its own context).
unsafe impl Send for Owned {}
unsafe impl Sync for Owned {}
// Nothing touches the module until it is freed, so a panic cannot leave it half-written.
impl std::panic::RefUnwindSafe for Owned {}
impl std::panic::UnwindSafe for Owned {}

/// Functions compiled together; they live as long as this.
pub struct Compiled {
    module: Option<Owned>,
    /// Per function: its entry, the type of its result, its number of parameters and of
    /// scratch words.
    funcs: Vec<(Entry, Ty, usize, u32)>,
    /// The game's tables the native code reads ([`Ctx`]), built for the game compiled for.
    field_tab: Vec<[u32; 2]>,
    /// The variables' slots and the fields' slots of the game: an environment without them
    /// in place ([`Env::vars`], [`Env::fields`]) has them copied before a call, so that the
    /// native code reads every slot in place without checking the length.
    var_slots: usize,
    field_slots: usize,
    owner_tab: Vec<u32>,
    space_tab: Vec<u32>,
    /// Per board, its tables, whose addresses the native code holds.
    _boards: Vec<BoardTabs>,
    /// Per component, its class ([`Inst::Class`]), whose address the native code holds.
    _classes: Vec<u32>,
}

/// A board's geometry as the native code reads it (a copy owned by [`Compiled`], so that its
/// addresses, written into the code, live as long as the code).
pub(super) struct BoardTabs {
    /// Per space: its (column, row), or `u32::MAX` twice for a board without coordinates.
    pub coords: Vec<[u32; 2]>,
    /// `steps[s * DIRECTION_COUNT + d]`: the space one step away, or `u32::MAX`.
    pub steps: Vec<u32>,
    /// The adjacency with every space open (compressed rows: `adj_start[s]..adj_start[s +
    /// 1]` of `adj` are the neighbours of `s`).
    pub adj_start: Vec<u32>,
    /// See `adj_start`.
    pub adj: Vec<u32>,
    /// Whether a space of it may or may not be closed, by a constant of the match (then
    /// steps, neighbours and closed spaces go through the helpers).
    pub may_close: bool,
    /// Per space, whether it is closed, when that does not depend on the match (its steps
    /// and neighbours then leave closed spaces out already).
    pub closed: Vec<u8>,
}

impl BoardTabs {
    fn of(b: &crate::ir::Board) -> BoardTabs {
        let any = b.geo.closed.iter().any(|&c| c);
        // Closed in every match (`closed [...]` without `when`): the tables without the
        // closed spaces, read in place like an open board's.
        let always = any && b.geo.closed_when.is_none();
        let is_closed = |s: u32| always && b.geo.closed.get(s as usize) == Some(&true);
        let (adj_start, adj) = b.adjacency(always);
        BoardTabs {
            coords: b.geo.coords.iter().map(|&(c, r)| [c, r]).collect(),
            steps: (b.geo.steps.iter())
                .map(|&t| if is_closed(t) { crate::ir::NO_SPACE } else { t })
                .collect(),
            adj_start: adj_start.to_vec(),
            adj: adj.to_vec(),
            may_close: any && !always,
            closed: (0..b.len()).map(|s| is_closed(s) as u8).collect(),
        }
    }
}

impl Drop for Compiled {
    fn drop(&mut self) {
        if let Some(Owned(m)) = self.module.take() {
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
        let mut sizes: Vec<u32> = vec![];
        let mut cx = module.make_context();
        let mut fcx = FunctionBuilderContext::new();
        let boards: Vec<BoardTabs> = g.boards.iter().map(BoardTabs::of).collect();
        let classes: Vec<u32> = (0..g.comps.len() as u32)
            .map(|c| rt::class_of(g, c))
            .collect();
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
            Lower::build(
                g,
                f,
                &boards,
                &classes,
                &mut cx.func,
                &mut fcx,
                module.target_config(),
            );
            // For whoever profiles the native code: its machine code, to standard error.
            let dump = std::env::var_os(DUMP_VAR).is_some();
            if dump {
                cx.set_disasm(true);
            }
            module
                .define_function(id, &mut cx)
                .map_err(|e| format!("{}: {e:?}", f.name))?;
            if dump {
                if let Some(c) = cx.compiled_code() {
                    eprintln!("== {}\n{}", f.name, c.vcode.clone().unwrap_or_default());
                }
            }
            sizes.push(cx.compiled_code().map_or(0, |c| c.code_info().total_size));
            module.clear_context(&mut cx);
            ids.push(id);
        }
        module.finalize_definitions().map_err(|e| e.to_string())?;
        if std::env::var_os(PERF_MAP_VAR).is_some() {
            perf_map(&module, &ids, &sizes, funcs);
        }
        let funcs = ids
            .iter()
            .zip(funcs)
            .map(|(id, f)| {
                let p = module.get_finalized_function(*id);
                // SAFETY: the function was built with the signature `Entry` stands for
                // (three pointers in, a 32-bit code out, the platform's C convention).
                let e = unsafe { std::mem::transmute::<*const u8, Entry>(p) };
                (e, f.ret, f.params.len(), f.scratch)
            })
            .collect();
        let none = u32::MAX;
        Ok(Compiled {
            module: Some(Owned(module)),
            funcs,
            field_tab: g
                .comps
                .iter()
                .map(|c| [c.field_base, c.fields.len() as u32])
                .collect(),
            var_slots: (g.vars.iter())
                .map(|v| v.base as usize + v.count as usize)
                .max()
                .unwrap_or(0),
            field_slots: (g.comps.iter())
                .map(|c| c.field_base as usize + c.fields.len())
                .max()
                .unwrap_or(0),
            owner_tab: g
                .instances
                .iter()
                .map(|i| i.owner.map_or(none, u32::from))
                .collect(),
            space_tab: g
                .instances
                .iter()
                .map(|i| i.space.map_or(none, |(_, s)| s))
                .collect(),
            _boards: boards,
            _classes: classes,
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

    /// [`Compiled::run`], the values it writes ([`Inst::Out`]) appended to `out`. `g` must be
    /// the game the functions were compiled for.
    pub fn run_into(
        &self,
        k: usize,
        g: &Game,
        env: &dyn Env,
        args: &[i64],
        fuel: &mut u64,
        out: &mut Vec<Value>,
    ) -> Result<Value, Fail> {
        self.call(k, g, env, args, fuel, out, None, &mut []).0
    }

    /// [`Compiled::run`] of a function that writes the state ([`Inst::SetVar`]) through the
    /// arrays `w` lends (every variable slot and index word of the game, or it fails before
    /// it starts), its first scratch words copied into `saved` when it stops (it failed or
    /// not); with what its writes did ([`rt::Writes::changes`], [`rt::Writes::families`]).
    #[allow(clippy::too_many_arguments)]
    pub fn run_writing(
        &self,
        k: usize,
        g: &Game,
        env: &dyn Env,
        args: &[i64],
        fuel: &mut u64,
        w: rt::Writes,
        saved: &mut [i64],
    ) -> (Result<Value, Fail>, Option<rt::Writes>) {
        if w.vars_len < self.var_slots || w.index_len < g.program.index_words as usize {
            return (Err(Fail::Type), None);
        }
        self.call(k, g, env, args, fuel, &mut vec![], Some(w), saved)
    }

    /// Runs the `k`-th function: the options it writes appended to `out`, the state's arrays
    /// `writes` lends written, its first scratch words copied into `saved`.
    #[allow(clippy::too_many_arguments)]
    fn call(
        &self,
        k: usize,
        g: &Game,
        env: &dyn Env,
        args: &[i64],
        fuel: &mut u64,
        out: &mut Vec<Value>,
        writes: Option<rt::Writes>,
        saved: &mut [i64],
    ) -> (Result<Value, Fail>, Option<rt::Writes>) {
        let (entry, ret, n, scratch) = self.funcs[k];
        assert!(args.len() >= n, "a compiled function needs {n} arguments");
        let mut rt = Rt::new(g, env, *fuel);
        rt.out = std::mem::take(out);
        rt.take_scratch(scratch);
        assert_eq!(
            (self.field_tab.len(), self.owner_tab.len()),
            (g.comps.len(), g.instances.len()),
            "compiled for another game"
        );
        let (copied_vars, copied_fields);
        // A function that writes reads the variables and their index where it writes them.
        let lent = writes
            .as_ref()
            .map(|w| (w.vars as *const Value, w.index as *const u64));
        rt.writes = writes;
        let mut vars = if lent.is_some() { &[][..] } else { env.vars() };
        if lent.is_none() && vars.len() < self.var_slots {
            copied_vars = (0..self.var_slots as u32)
                .map(|k| env.var(k))
                .collect::<Vec<_>>();
            vars = &copied_vars;
        }
        let copied_consts;
        let mut consts = env.consts();
        if consts.len() < g.consts.len() {
            copied_consts = (0..g.consts.len() as u32)
                .map(|c| env.constant(crate::ir::ConstId(c as _)))
                .collect::<Vec<_>>();
            consts = &copied_consts;
        }
        let copied_bits;
        let mut bits = if lent.is_some() {
            &[][..]
        } else {
            env.index_bits()
        };
        if lent.is_none() && bits.len() < g.program.index_words as usize {
            copied_bits = index_bits(g, vars);
            bits = &copied_bits;
        }
        let mut fields = env.fields();
        if fields.len() < self.field_slots {
            let mut all = vec![Value::None; self.field_slots];
            for (c, [base, n]) in self.field_tab.iter().enumerate() {
                for f in 0..*n {
                    all[(base + f) as usize] = env.field(crate::ir::CompId(c as u32), f as u16);
                }
            }
            copied_fields = all;
            fields = &copied_fields;
        }
        let zones = env.zones();
        let z =
            |f: for<'z> fn(&interp::ZoneArrays<'z>) -> &'z [u32]| zones.map_or(&[][..], |a| f(&a));
        let (out_ptr, out_len, out_cap) = (
            rt.out.as_mut_ptr(),
            rt.out.len() as u64,
            rt.out.capacity() as u64,
        );
        // The native code counts the work left as a signed number.
        let excess = fuel.saturating_sub(i64::MAX as u64);
        let mut ctx = Ctx {
            fuel: *fuel - excess,
            fail: 0,
            me: rt.me,
            current: rt.current,
            players: rt.players,
            vars: lent.map_or(vars.as_ptr(), |l| l.0),
            out: out_ptr,
            out_len,
            out_cap,
            fields: fields.as_ptr(),
            field_tab: self.field_tab.as_ptr(),
            comps: self.field_tab.len() as u64,
            z_len: z(|a| a.len).as_ptr(),
            z_head: z(|a| a.head).as_ptr(),
            z_tail: z(|a| a.tail).as_ptr(),
            z_next: z(|a| a.next).as_ptr(),
            z_loc: z(|a| a.loc).as_ptr(),
            // Each per-instance array as long as the instances, each per-component one as
            // the components, or none read.
            insts: zones
                .filter(|a| a.len.len() == a.head.len() && a.len.len() == a.tail.len())
                .map_or(0, |a| a.len.len().min(self.owner_tab.len()) as u64),
            placed: zones
                .filter(|a| a.next.len() == a.loc.len())
                .map_or(0, |a| a.loc.len() as u64),
            owner_tab: self.owner_tab.as_ptr(),
            space_tab: self.space_tab.as_ptr(),
            consts: consts.as_ptr(),
            bits: lent.map_or(bits.as_ptr(), |l| l.1),
            scratch: rt.scratch.as_mut_ptr(),
            rt,
        };
        let mut result = 0i64;
        let c = entry(&mut ctx, args.as_ptr(), &mut result);
        // Overspent (a failure for the budget): nothing left.
        *fuel = (ctx.fuel as i64).max(0) as u64 + excess;
        // SAFETY: the native code wrote `out_len` whole values into the buffer (below its
        // capacity), `h_out` keeping the pointer, length and capacity in step when it grew.
        unsafe { ctx.rt.out.set_len(ctx.out_len as usize) };
        *out = std::mem::take(&mut ctx.rt.out);
        for (s, w) in saved.iter_mut().zip(&ctx.rt.scratch) {
            *s = *w as i64;
        }
        ctx.rt.give_back_scratch();
        let r = match c {
            0 => Ok(ret.decode(result)),
            c => Err(FAILS[(c as usize - 1).min(FAILS.len() - 1)]),
        };
        (r, ctx.rt.writes.take())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BoardId, EnumId, TypeId};

    /// Each register type's number, tag and id lie where [`layout`] says (the native code
    /// reads and writes values there).
    #[test]
    fn values_lie_where_the_layout_says() {
        let types = [
            (Ty::Int, -5_000_000_000),
            (Ty::Bool, 1),
            (Ty::Player, 3),
            (Ty::Enum(EnumId(7)), 513),
            (Ty::Comp(TypeId(0)), 70_000),
            (Ty::Space(BoardId(9)), 123_456),
            (Ty::Zone(TypeId(0)), 65_537),
        ];
        for (t, n) in types {
            let v = t.decode(n);
            let p = &v as *const Value as *const u8;
            let l = layout(t);
            let word = |at: usize, w: usize| {
                let mut b = [0u8; 8];
                for (i, x) in b[..w].iter_mut().enumerate() {
                    // SAFETY: within the value's 16 bytes, at a tag or a field the variant
                    // initialises (never its padding).
                    *x = unsafe { *p.add(at + i) };
                }
                i64::from_le_bytes(b)
            };
            assert_eq!(word(0, 8), l.tag, "{t:?}: tag");
            if let Some(id) = l.id {
                assert_eq!(word(ID_AT as usize, 2), id, "{t:?}: id");
            }
            let got = word(l.at as usize, l.width as usize);
            let want = if l.width == 8 {
                n
            } else {
                n & ((1 << (8 * l.width)) - 1)
            };
            assert_eq!(got, want, "{t:?}: number");
        }
    }
}
