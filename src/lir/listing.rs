//! Each action's options compiled to a native enumerator ([`lower::lower_options`], then
//! [`jit`]), and each `end when` condition to a native test ([`lower::lower_expr`]), built
//! once per game when the engine first needs one ([`enumerators`], kept in
//! [`crate::ir::Game::native`]), and what the engine calls to list options and test the
//! conditions.

use super::*;
use crate::ir::{ActionId, Game};

/// The compiled enumerators.
pub struct Built {
    /// Per action: its enumerator's position in `code` and its number of parameters.
    of: Vec<Option<(u32, u8)>>,
    /// Per `end when` condition: its function's position in `code`.
    ends: Vec<Option<u32>>,
    /// Per function (`def`) worth compiling: its position in `code` and its parameters'
    /// register types.
    defs: Vec<Option<(u32, Vec<Ty>)>>,
    /// Per expression of a procedure that may run natively ([`crate::ir::vm::NativeExpr`]):
    /// its position in `code` and the slots and register types of its parameters.
    natives: Vec<Option<(u32, Params)>>,
    /// Per region of statements ([`crate::ir::vm::Region`]): its position in `code` and its
    /// locals' slots and register types.
    regions: Vec<Option<(u32, Params, Vec<lower::RegionLoop>)>>,
    #[cfg(feature = "jit")]
    code: jit::Compiled,
}

/// The most locals a region of statements may have to run natively.
pub const MAX_REGION_LOCALS: usize = 32;

/// The most `for` loops a region of statements may hold to run natively.
pub const MAX_REGION_LOOPS: usize = 8;

/// The parameters of an expression of a procedure: each local's slot and register type.
type Params = Vec<(u16, Ty)>;

/// Set (to anything) in the environment, the engine lists every option as it did before the
/// compiler (to measure one beside the other).
pub const OFF_VAR: &str = "RULEBOOK_NO_NATIVE";

/// The enumerators of a game (built now if they were not; kept in [`Game::native`]), `None`
/// when none could be: the feature `jit` off, [`OFF_VAR`] set, the machine not supported, or
/// no action lowered.
pub fn enumerators(g: &Game) -> Option<&Built> {
    g.native
        .get_or_init(|| Box::new(Built::new(g)))
        .downcast_ref::<Option<Built>>()?
        .as_ref()
}

/// No enumerators: the engine lists every option its own way (to compare one with the other:
/// `game.native = listing::off()`).
pub fn off() -> crate::ir::Lazy {
    crate::ir::Lazy::with(Box::new(None::<Built>))
}

/// Set (to anything) in the environment, what is compiled and what is not (with the reason)
/// is written to standard error when a game's native code is built.
pub const REPORT_VAR: &str = "RULEBOOK_NATIVE_REPORT";

/// Why an action without parameters whose guard walks nothing, or an `end when` condition
/// that walks nothing, is left to the engine: a call into native code costs more than its
/// evaluation there (docs/benchmarks.md).
#[cfg(feature = "jit")]
const SMALL: &str = "walks nothing and calls no function: the engine's own evaluation costs less";

/// Whether an expression walks a collection or calls a function.
#[cfg(feature = "jit")]
fn walks(e: &crate::ir::Expr) -> bool {
    let mut found = false;
    e.visit(&mut |x| {
        found |= matches!(x, crate::ir::Expr::Agg(..) | crate::ir::Expr::CallDef(..));
    });
    found
}

/// A lowering's result, told on standard error when [`REPORT_VAR`] is set.
#[cfg(feature = "jit")]
fn told(what: &str, f: Result<Func, String>) -> Result<Func, String> {
    if std::env::var_os(REPORT_VAR).is_some() {
        match &f {
            Ok(f) => eprintln!("native: {what}: compiled ({} instructions)", f.size()),
            Err(e) => eprintln!("native: {what}: not compiled: {e}"),
        }
    }
    f
}

impl Built {
    #[cfg(feature = "jit")]
    fn new(g: &Game) -> Option<Built> {
        if std::env::var_os(OFF_VAR).is_some() {
            return None;
        }
        let mut of = vec![None; g.actions.len()];
        let mut funcs = vec![];
        for (i, a) in g.actions.iter().enumerate() {
            if a.sequence || a.params.len() > crate::ir::MAX_ARGS {
                continue;
            }
            let parts = a.guard_parts.iter().map(|(_, e)| e);
            let f = if a.params.is_empty() && !parts.clone().any(walks) {
                Err(SMALL.into())
            } else {
                lower::lower_options(g, a)
            };
            if let Ok(f) = told(&a.name, f) {
                if verify::verify(&f, g).is_ok() {
                    of[i] = Some((funcs.len() as u32, a.params.len() as u8));
                    funcs.push(f);
                }
            }
        }
        let mut ends = vec![None; g.end_when.len()];
        for (i, (cond, _)) in g.end_when.iter().enumerate() {
            let f = if walks(cond) {
                lower::lower_expr(g, "end when", cond, &[])
            } else {
                Err(SMALL.into())
            };
            if let Ok(f) = told("end when", f) {
                if f.ret == Ty::Bool && verify::verify(&f, g).is_ok() {
                    ends[i] = Some(funcs.len() as u32);
                    funcs.push(f);
                }
            }
        }
        // Functions whose bodies walk a collection or call functions (the others cost less
        // interpreted than a call into native code): called from effects, scores and the
        // guards that are not compiled, they run natively.
        let mut defs = vec![None; g.defs.len()];
        for (i, def) in g.defs.iter().enumerate() {
            let worth = g.program.defs.as_slice().get(i).is_some_and(|c| c.remember);
            if !worth
                || def.param_types.len() != def.params as usize
                || def.param_types.len() > crate::ir::MAX_ARGS
            {
                continue;
            }
            let Some(tys) = def
                .param_types
                .iter()
                .map(|&t| Ty::of(t))
                .collect::<Option<Vec<_>>>()
            else {
                continue;
            };
            let f = lower::lower_expr(g, &def.name, &def.body, &def.param_types);
            if let Ok(f) = told(&def.name, f) {
                if verify::verify(&f, g).is_ok() {
                    defs[i] = Some((funcs.len() as u32, tys));
                    funcs.push(f);
                }
            }
        }
        // Expressions of procedures that walk collections (`Op::Native`).
        let mut natives = vec![None; g.program.natives.len()];
        for (i, ne) in g.program.natives.iter().enumerate() {
            let Some(tys) = (ne.params.iter())
                .map(|&(slot, t)| Ty::of(t).map(|t| (slot, t)))
                .collect::<Option<Vec<_>>>()
            else {
                continue;
            };
            let name = format!("expression {i}");
            if let Ok(f) = told(&name, lower::lower_expr_at(g, &name, &ne.expr, &ne.params)) {
                if verify::verify(&f, g).is_ok() {
                    natives[i] = Some((funcs.len() as u32, tys));
                    funcs.push(f);
                }
            }
        }
        // Regions of statements (`Step::Native`).
        let mut regions = vec![None; g.program.regions.len()];
        for (i, r) in g.program.regions.iter().enumerate() {
            let proc = &g.procs[r.proc];
            let name = format!("statements {}..{} of {}", r.start, r.end, proc.name);
            let (f, locals, loops) =
                match lower::lower_region(g, &proc.code, r.start, r.end, &r.known) {
                    Ok(rf)
                        if rf.locals.len() <= MAX_REGION_LOCALS
                            && rf.loops.len() <= MAX_REGION_LOOPS =>
                    {
                        (Ok(rf.func), rf.locals, rf.loops)
                    }
                    Ok(_) => (Err("too many locals or loops".to_string()), vec![], vec![]),
                    Err(e) => (Err(e), vec![], vec![]),
                };
            if let Ok(f) = told(&name, f) {
                if verify::verify(&f, g).is_ok() {
                    regions[i] = Some((funcs.len() as u32, locals, loops));
                    funcs.push(f);
                }
            }
        }
        if funcs.is_empty() {
            return None;
        }
        let code = jit::Compiled::new(g, &funcs.iter().collect::<Vec<_>>()).ok()?;
        Some(Built {
            of,
            ends,
            defs,
            natives,
            regions,
            code,
        })
    }

    #[cfg(not(feature = "jit"))]
    fn new(_: &Game) -> Option<Built> {
        None
    }

    /// How many actions have an enumerator.
    pub fn count(&self) -> usize {
        self.of.iter().flatten().count()
    }

    /// How many regions of statements are compiled ([`crate::ir::vm::Region`]).
    pub fn region_count(&self) -> usize {
        self.regions.iter().flatten().count()
    }

    /// How many `end when` conditions are compiled.
    pub fn end_count(&self) -> usize {
        self.ends.iter().flatten().count()
    }

    /// Whether `end when` condition `i` holds at the moment `env` stands for. `None`: it
    /// has no compiled function, or it failed (a rule error or the budget: evaluate it the
    /// other way, which says which).
    pub fn holds(&self, g: &Game, i: usize, env: &dyn interp::Env, fuel: &mut u64) -> Option<bool> {
        let k = (*self.ends.get(i)?)?;
        match self.run(k, g, env, &[], fuel)? {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// Function `d` on arguments `args` at the moment `env` stands for. `None`: it has no
    /// compiled function, an argument is not of its parameter's type, or it failed (a rule
    /// error or the budget: call it the other way, which says which).
    pub fn call(
        &self,
        g: &Game,
        d: crate::ir::DefId,
        env: &dyn interp::Env,
        args: &[Value],
        fuel: &mut u64,
    ) -> Option<Value> {
        let (k, tys) = self.defs.get(d.0 as usize)?.as_ref()?;
        let mut raw = [0i64; crate::ir::MAX_ARGS];
        if args.len() != tys.len() {
            return None;
        }
        for ((r, t), v) in raw.iter_mut().zip(tys).zip(args) {
            *r = t.encode(*v)?;
        }
        self.run(*k, g, env, &raw[..tys.len()], fuel)
    }

    /// Expression `i` of a procedure ([`crate::ir::vm::NativeExpr`]) with the procedure's
    /// `locals`, at the moment `env` stands for. `None`: it has no compiled function, a local
    /// it reads is not of the type expected, or it failed (compute it the other way).
    pub fn native_expr(
        &self,
        g: &Game,
        i: u32,
        env: &dyn interp::Env,
        locals: &[Value],
        fuel: &mut u64,
    ) -> Option<Value> {
        let (k, params) = self.natives.get(i as usize)?.as_ref()?;
        let mut raw = [0i64; crate::ir::MAX_ARGS];
        if params.len() > raw.len() {
            return None;
        }
        for (r, &(slot, t)) in raw.iter_mut().zip(params) {
            *r = t.encode(*locals.get(slot as usize)?)?;
        }
        self.run(*k, g, env, &raw[..params.len()], fuel)
    }

    /// Region `i` of statements ([`crate::ir::vm::Region`]) run natively from its first
    /// statement, on the procedure's `locals`, at the moment `env` stands for, writing the
    /// state through `w`: where the steps go on (the region's exit, or the statement that
    /// failed or ran out of work, which wrote nothing), the locals written back, and what its
    /// writes did, and whether it ran out of work. `None`: it did not run, or stopped before
    /// its first statement; nothing was written. The work it did is taken from `fuel`, but
    /// for a run out of work (the steps then find the loop that never stops, and say so; the
    /// caller runs no region natively again in that run, so the work stays bounded).
    #[allow(clippy::too_many_arguments)]
    pub fn region(
        &self,
        g: &Game,
        i: u32,
        env: &dyn interp::Env,
        locals: &mut [Value],
        iters: &mut Vec<Value>,
        fuel: &mut u64,
        w: rt::Writes,
    ) -> Option<(u32, rt::Writes, bool)> {
        let (k, params, loops) = self.regions.get(i as usize)?.as_ref()?;
        let mut raw = [0i64; MAX_REGION_LOCALS];
        for (r, &(slot, t)) in raw.iter_mut().zip(params) {
            *r = t.encode(*locals.get(slot as usize)?)?;
        }
        let n = params.len();
        #[cfg(feature = "jit")]
        {
            let mut saved = [0i64; 1 + MAX_REGION_LOCALS + 3 * MAX_REGION_LOOPS];
            let words = 1 + n + 3 * loops.len();
            let mut left = *fuel;
            let (r, w) = (self.code).run_writing(
                *k as usize,
                g,
                env,
                &raw[..n],
                &mut left,
                w,
                &mut saved[..words],
            );
            let w = w?;
            if r != Err(Fail::Fuel) {
                *fuel = left;
            }
            let to = u32::try_from(saved[0].checked_sub(1)?).ok()?;
            for (&(slot, t), &x) in params.iter().zip(&saved[1..=n]) {
                locals[slot as usize] = t.decode(x);
            }
            // The loops it stopped inside, as the steps keep them: their elements on the
            // iteration stack, their places in their locals.
            for lp in loops.iter().filter(|lp| lp.init < to && to < lp.done) {
                let at = 1 + lp.word;
                let (pos, first) = (saved[at], saved[at + 1]);
                let count = saved[at + 2].clamp(0, lp.elems.most(g));
                let start = iters.len() as i64;
                iters.extend((0..count).map(|k| lp.elems.value(first, k)));
                let s = lp.slot as usize;
                if let Some([p, e, b]) = locals.get_mut(s..s + 3) {
                    *p = Value::Int(start + pos);
                    *e = Value::Int(start + count);
                    *b = Value::Int(start);
                }
            }
            Some((to, w, r == Err(Fail::Fuel)))
        }
        #[cfg(not(feature = "jit"))]
        {
            let _ = (g, env, fuel, k, w, raw, n, loops, iters);
            None
        }
    }

    /// Compiled function `k` on `args`: its value, the work it cost taken from `fuel`;
    /// `None` (nothing taken) when it failed.
    fn run(
        &self,
        k: u32,
        g: &Game,
        env: &dyn interp::Env,
        args: &[i64],
        fuel: &mut u64,
    ) -> Option<Value> {
        #[cfg(feature = "jit")]
        {
            let mut left = *fuel;
            let mut out = Vec::new();
            let v = self
                .code
                .run_into(k as usize, g, env, args, &mut left, &mut out)
                .ok()?;
            *fuel = left;
            Some(v)
        }
        #[cfg(not(feature = "jit"))]
        {
            let _ = (g, env, fuel, k, args);
            None
        }
    }

    /// How many functions are compiled.
    pub fn def_count(&self) -> usize {
        self.defs.iter().flatten().count()
    }

    /// Lists the options of action `a` for the moment `env` stands for: their values, `n`
    /// per option (`n` its number of parameters), appended to `out`; the number of options.
    /// `None`: the action has no enumerator, or it failed (a rule error or the budget: list
    /// them the other way, which says which); nothing is appended then.
    // Without native code, `out` is only measured.
    #[cfg_attr(not(feature = "jit"), allow(clippy::ptr_arg))]
    pub fn list(
        &self,
        g: &Game,
        a: ActionId,
        env: &dyn interp::Env,
        fuel: &mut u64,
        out: &mut Vec<Value>,
    ) -> Option<(usize, usize)> {
        let (k, n) = (*self.of.get(a.0 as usize)?)?;
        let at = out.len();
        #[cfg(feature = "jit")]
        {
            let mut left = *fuel;
            match self.code.run_into(k as usize, g, env, &[], &mut left, out) {
                Ok(Value::Int(c)) if c >= 0 && out.len() - at == c as usize * n as usize => {
                    *fuel = left;
                    Some((c as usize, n as usize))
                }
                _ => {
                    out.truncate(at);
                    None
                }
            }
        }
        #[cfg(not(feature = "jit"))]
        {
            let _ = (g, env, fuel, k, n, at);
            None
        }
    }
}
