//! The low-level IR against the reference evaluator: seeded random games, and in each state
//! every guard part the lowering builds, evaluated by both on argument tuples drawn from the
//! parameters' types (`none` among them), as lowered and after the passes with the match's
//! facts; results must be equal, or both fail. `tests/lir.rs` runs it on every rules file.

use crate::engine::{Action, Actor, Config, State};
use crate::ir::*;
use crate::lir::{interp, lower, passes, verify, Fail, Func};

/// What a run compared.
#[derive(Clone, Debug, Default)]
pub struct LirTally {
    /// Guard parts lowered (once per action part, per game).
    pub lowered: u64,
    /// Guard parts not lowered, by reason.
    pub refused: std::collections::BTreeMap<String, u64>,
    /// Evaluations compared (each on both forms).
    pub compared: u64,
    /// Of them, those where both failed.
    pub failed: u64,
    /// States visited.
    pub states: u64,
    /// Actions whose options were lowered to an enumerator (once per game).
    pub enumerators: u64,
    /// Actions whose options were not, by reason.
    pub enum_refused: std::collections::BTreeMap<String, u64>,
    /// Listings of one action compared with the reference's (each in four forms).
    pub listings: u64,
    /// Options in them.
    pub options: u64,
}

pub use crate::engine::StateEnv;

/// A small deterministic generator (the games' own chance comes from their seed).
struct Pick(u64);

impl Pick {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n.max(1) as u64) as usize
    }
}

/// Values of a type to try: a sample, with `none`.
fn domain(g: &Game, t: Type, players: u8, pick: &mut Pick) -> Vec<Value> {
    let mut out = vec![Value::None];
    match t {
        Type::Int => out.extend([-1, 0, 1, 2, 3, 5, 9].map(Value::Int)),
        Type::Bool => out.extend([Value::Bool(false), Value::Bool(true)]),
        Type::Player => out.extend((0..players).map(Value::Player)),
        Type::Enum(e) => out.extend((0..g.enums[e].values.len() as u16).map(|i| Value::Enum(e, i))),
        Type::Space(b) => {
            let n = g.boards[b].len() as usize;
            out.extend((0..8).map(|_| Value::Space(b, pick.next(n) as u32)))
        }
        Type::Comp(ty) => {
            let of: Vec<CompId> = g.comps.ids().filter(|&c| g.comps[c].ty == ty).collect();
            if !of.is_empty() {
                out.extend((0..8).map(|_| Value::Comp(of[pick.next(of.len())])));
            }
        }
        _ => {}
    }
    out
}

/// One lowered guard part: the action, the part, its function as lowered and after passes
/// (the passes' form is made per state, with the match's facts).
struct Part {
    action: ActionId,
    part: usize,
    func: Func,
}

/// Lowers every guard part of every action; the refusals are counted.
fn lower_parts(g: &Game, tally: &mut LirTally) -> Result<Vec<Part>, String> {
    let mut out = vec![];
    for (i, a) in g.actions.iter().enumerate() {
        let action = ActionId(i as u32);
        let params: Vec<Type> = a.params.iter().map(|b| b.ty).collect();
        // Parameters are the first locals of the action's frame, in order.
        if a.params
            .iter()
            .enumerate()
            .any(|(k, b)| b.slot as usize != k)
        {
            *tally
                .refused
                .entry("parameters not in the first slots".into())
                .or_default() += 1;
            continue;
        }
        for (k, (_, e)) in a.guard_parts.iter().enumerate() {
            match lower::lower_expr(g, &a.name, e, &params) {
                Ok(f) => {
                    verify::verify(&f, g).map_err(|e| format!("{}: part {k}: {e}\n{f}", a.name))?;
                    tally.lowered += 1;
                    out.push(Part {
                        action,
                        part: k,
                        func: f,
                    });
                }
                Err(why) => *tally.refused.entry(why).or_default() += 1,
            }
        }
    }
    Ok(out)
}

/// One seeded game of at most `cap` decisions, comparing every lowered guard part in every
/// state on a few argument tuples. The first difference, in words.
pub fn compare(g: &Game, cfg: &Config, cap: u64, tally: &mut LirTally) -> Result<(), String> {
    let parts = lower_parts(g, tally)?;
    let Ok(mut st) = g.start(cfg) else {
        return Ok(());
    };
    let mut pick = Pick(cfg.seed ^ 0x9E37_79B9_7F4A_7C15);
    let forms = passed_forms(g, &st, &parts)?;
    let native = Native::new(g, &parts, &forms)?;
    let forms = Forms {
        parts: &parts,
        passed: &forms,
        native: &native,
    };
    let lists = enumerators(g, &st, tally)?;
    walk(g, &mut st, cap, &mut pick, |st, me, pick| {
        tally.states += 1;
        compare_state(g, st, me, &forms, pick, tally)?;
        compare_options(g, st, me, &lists, tally)
    })
}

/// Each action's enumerator, as lowered and after the passes, natively too.
struct Enumerators {
    /// By action: the position of its enumerator in `funcs` (lowered at `2k`, after the
    /// passes at `2k + 1`).
    of: Vec<Option<usize>>,
    funcs: Vec<Func>,
    native: Native,
}

fn enumerators(g: &Game, st: &State, tally: &mut LirTally) -> Result<Enumerators, String> {
    let consts: Vec<Value> = st.consts.iter().copied().collect();
    let facts = passes::Facts {
        players: st.players,
        consts: &consts,
    };
    let mut of = vec![];
    let mut funcs = vec![];
    for a in g.actions.iter() {
        match lower::lower_options(g, a) {
            Ok(f) => {
                verify::verify(&f, g).map_err(|e| format!("options of {}: {e}\n{f}", a.name))?;
                let mut passed = f.clone();
                passes::specialise(&mut passed, &facts);
                passes::fold(&mut passed, g);
                passes::dce(&mut passed);
                verify::verify(&passed, g)
                    .map_err(|e| format!("options of {} after passes: {e}\n{passed}", a.name))?;
                tally.enumerators += 1;
                of.push(Some(funcs.len() / 2));
                funcs.push(f);
                funcs.push(passed);
            }
            Err(why) => {
                *tally.enum_refused.entry(why).or_default() += 1;
                of.push(None);
            }
        }
    }
    let native = Native::compile(g, &funcs.iter().collect::<Vec<_>>())?;
    Ok(Enumerators { of, funcs, native })
}

/// In a state waiting at a decision the reference lists, each arm that is an action with an
/// enumerator: its options, in every form, equal to the reference's for that arm, in order
/// (or both failing).
fn compare_options(
    g: &Game,
    st: &State,
    me: u8,
    lists: &Enumerators,
    tally: &mut LirTally,
) -> Result<(), String> {
    let crate::engine::Wait::Decision { choice, .. } = st.wait else {
        return Ok(());
    };
    let want = match super::options(g, st) {
        Ok(super::Listing::Options(o)) => Ok(o),
        Ok(super::Listing::Skipped(_)) => return Ok(()),
        Err(e) => Err(e),
    };
    let env = StateEnv::new(g, st, me);
    for (arm, a) in g.choices[choice].arms.iter().enumerate() {
        let crate::ir::Arm::Action(ai) = a else {
            continue;
        };
        let Some(k) = lists.of[ai.0 as usize] else {
            continue;
        };
        let n = g.actions[*ai].params.len();
        let want: Result<Vec<&[Value]>, ()> = match &want {
            Ok(o) => Ok(o
                .iter()
                .filter(|o| o.arm as usize == arm)
                .map(|o| &o.args[..n.min(o.args.len())])
                .collect()),
            Err(_) => Err(()),
        };
        for form in 0..4 {
            let f = &lists.funcs[2 * k + form % 2];
            let mut out = vec![];
            let got = if form < 2 {
                interp::run_into(f, g, &env, &[], &mut 1_000_000, &mut out)
            } else {
                match lists.native.run_into(g, &env, 2 * k + form % 2, &mut out) {
                    Some(r) => r,
                    None => continue,
                }
            };
            let got: Result<Vec<&[Value]>, ()> = match got {
                // Without parameters, the options are only counted.
                Ok(Value::Int(c)) if n == 0 => Ok(vec![&[][..]; c as usize]),
                Ok(_) => Ok(out.chunks(n).collect()),
                Err(_) => Err(()),
            };
            if got != want {
                return Err(format!(
                    "options of {} (form {form}), me {me}: the reference lists {want:?}, the enumerator {got:?}\n{f}",
                    g.actions[*ai].name
                ));
            }
            tally.listings += 1;
            tally.options += want.as_ref().map_or(0, |w| w.len() as u64);
        }
    }
    Ok(())
}

/// Plays at most `cap` random decisions from `st`, calling `visit` in each state where a
/// seat decides, before the decision.
fn walk(
    g: &Game,
    st: &mut State,
    cap: u64,
    pick: &mut Pick,
    mut visit: impl FnMut(&State, u8, &mut Pick) -> Result<(), String>,
) -> Result<(), String> {
    let mut legal: Vec<Action> = vec![];
    for _ in 0..cap {
        let me = match g.actor(st) {
            Actor::Player(p) => p,
            _ => break,
        };
        visit(st, me, pick)?;
        legal.clear();
        if g.legal(st, &mut legal).is_err() || legal.is_empty() {
            break;
        }
        let a = legal[pick.next(legal.len())];
        if g.apply(st, &a).is_err() {
            break;
        }
    }
    Ok(())
}

/// Values as the numbers of a function's parameters; `None` when one is not of its type.
fn encode(f: &Func, args: &[Value]) -> Option<Vec<i64>> {
    f.params
        .iter()
        .zip(args)
        .map(|(r, v)| f.ty(*r).encode(*v))
        .collect()
}

/// The parts after the passes, with the facts of the match `st` belongs to.
fn passed_forms(g: &Game, st: &State, parts: &[Part]) -> Result<Vec<Func>, String> {
    let consts: Vec<Value> = st.consts.iter().copied().collect();
    let facts = passes::Facts {
        players: st.players,
        consts: &consts,
    };
    let mut forms = vec![];
    for p in parts {
        let mut passed = p.func.clone();
        passes::specialise(&mut passed, &facts);
        passes::fold(&mut passed, g);
        passes::dce(&mut passed);
        verify::verify(&passed, g)
            .map_err(|e| format!("{} after passes: {e}\n{passed}", g.actions[p.action].name))?;
        forms.push(passed);
    }
    Ok(forms)
}

/// Every form of the lowered parts of one match.
struct Forms<'a> {
    parts: &'a [Part],
    passed: &'a [Func],
    native: &'a Native,
}

/// The native code of both forms (feature `jit`): part `k` lowered is function `2k`, after
/// the passes `2k + 1`.
#[cfg(feature = "jit")]
struct Native(crate::lir::jit::Compiled);

#[cfg(not(feature = "jit"))]
struct Native;

impl Native {
    fn new(g: &Game, parts: &[Part], passed: &[Func]) -> Result<Native, String> {
        let all: Vec<&Func> = parts
            .iter()
            .zip(passed)
            .flat_map(|(p, f)| [&p.func, f])
            .collect();
        Native::compile(g, &all)
    }

    #[cfg(feature = "jit")]
    fn compile(g: &Game, funcs: &[&Func]) -> Result<Native, String> {
        Ok(Native(crate::lir::jit::Compiled::new(g, funcs)?))
    }

    #[cfg(not(feature = "jit"))]
    fn compile(_: &Game, _: &[&Func]) -> Result<Native, String> {
        Ok(Native)
    }

    /// Function `k` of no parameters run natively, its outputs into `out`, if compiled.
    #[cfg(feature = "jit")]
    fn run_into(
        &self,
        g: &Game,
        env: &dyn interp::Env,
        k: usize,
        out: &mut Vec<Value>,
    ) -> Option<Result<Value, Fail>> {
        Some(self.0.run_into(k, g, env, &[], &mut 1_000_000, out))
    }

    #[cfg(not(feature = "jit"))]
    fn run_into(
        &self,
        _: &Game,
        _: &dyn interp::Env,
        _: usize,
        _: &mut Vec<Value>,
    ) -> Option<Result<Value, Fail>> {
        None
    }

    /// Part `k`'s form `form` (0 lowered, 1 after passes) run natively, if compiled.
    #[cfg(feature = "jit")]
    fn run(
        &self,
        g: &Game,
        env: &dyn interp::Env,
        k: usize,
        form: usize,
        args: &[i64],
    ) -> Option<Result<Value, Fail>> {
        Some(self.0.run(2 * k + form, g, env, args, &mut 1_000_000))
    }

    #[cfg(not(feature = "jit"))]
    fn run(
        &self,
        _: &Game,
        _: &dyn interp::Env,
        _: usize,
        _: usize,
        _: &[i64],
    ) -> Option<Result<Value, Fail>> {
        None
    }
}

fn compare_state(
    g: &Game,
    st: &State,
    me: u8,
    forms: &Forms,
    pick: &mut Pick,
    tally: &mut LirTally,
) -> Result<(), String> {
    let env = StateEnv::new(g, st, me);
    for (k, (p, passed)) in forms.parts.iter().zip(forms.passed).enumerate() {
        let a = &g.actions[p.action];
        let domains: Vec<Vec<Value>> = a
            .params
            .iter()
            .map(|b| domain(g, b.ty, st.players, pick))
            .collect();
        for _ in 0..4 {
            let args: Vec<Value> = domains.iter().map(|d| d[pick.next(d.len())]).collect();
            let mut locals = vec![Value::None; crate::ir::MAX_LOCALS.max(args.len())];
            locals[..args.len()].copy_from_slice(&args);
            let want = super::eval(g, st, &a.guard_parts[p.part].1, &mut locals, me);
            let Some(nums) = encode(&p.func, &args) else {
                continue;
            };
            let runs = [
                ("lowered", &p.func, None),
                ("after passes", passed, None),
                ("native", &p.func, forms.native.run(g, &env, k, 0, &nums)),
                (
                    "native after passes",
                    passed,
                    forms.native.run(g, &env, k, 1, &nums),
                ),
            ];
            for (form, f, native) in runs {
                let got = match (form.starts_with("native"), native) {
                    (false, _) => interp::run(f, g, &env, &nums, &mut 1_000_000),
                    (true, Some(got)) => got,
                    (true, None) => continue,
                };
                let same = match (&want, &got) {
                    (Ok(w), Ok(v)) => w == v,
                    (Err(_), Err(Fail::Fuel)) => false,
                    (Err(_), Err(_)) => true,
                    _ => false,
                };
                if !same {
                    return Err(format!(
                        "{}: guard part {} ({form}) on {:?}, me {me}: the reference gives {:?}, the LIR {:?}\n{f}",
                        a.name, p.part, args, want, got
                    ));
                }
                tally.compared += 1;
                if got.is_err() {
                    tally.failed += 1;
                }
            }
        }
    }
    Ok(())
}

/// What [`timing`] measured: the same evaluations by each evaluator, and the cost of
/// building the forms.
#[derive(Clone, Debug, Default)]
pub struct Timing {
    /// Guard parts lowered.
    pub parts: u64,
    /// Instructions in them after the passes.
    pub insts: u64,
    /// Evaluations timed per evaluator.
    pub evals: u64,
    /// Nanoseconds the reference evaluator took for them.
    pub reference_ns: u64,
    /// Nanoseconds the register interpreter took (after the passes).
    pub interp_ns: u64,
    /// Nanoseconds the native code took (after the passes); 0 without the feature `jit`.
    pub native_ns: u64,
    /// Nanoseconds Rust source written for the parts took, when it was given.
    pub generated_ns: u64,
    /// Listings timed (states whose every arm is an action with an enumerator), per evaluator.
    pub listings: u64,
    /// Options in them.
    pub options: u64,
    /// Nanoseconds the engine took to list them again (`Game::list_again`).
    pub list_engine_ns: u64,
    /// Nanoseconds the enumerators took, interpreted (after the passes).
    pub list_interp_ns: u64,
    /// Nanoseconds the enumerators took as native code (after the passes).
    pub list_native_ns: u64,
    /// Microseconds lowering and the passes took.
    pub lower_us: u64,
    /// Microseconds Cranelift took to compile every part's two forms.
    pub compile_us: u64,
}

/// Times the lowered guard parts of one seeded game: the states of its first `cap`
/// decisions, four argument tuples per part and state, each evaluated `reps` times by the
/// reference, the interpreter and the native code. Results are checked equal on the way.
///
/// `generated`, when given, is [`emit_rust`]'s module for the same file and configuration,
/// built: it is timed too.
pub fn timing(
    g: &Game,
    cfg: &Config,
    cap: u64,
    reps: u32,
    generated: Option<&[crate::lir::rust::Generated]>,
) -> Result<Timing, String> {
    use std::time::Instant;
    let mut t = Timing::default();
    let clock = Instant::now();
    let parts = lower_parts(g, &mut LirTally::default())?;
    let Ok(mut st) = g.start(cfg) else {
        return Ok(t);
    };
    let forms = passed_forms(g, &st, &parts)?;
    t.lower_us = clock.elapsed().as_micros() as u64;
    let clock = Instant::now();
    let native = Native::new(g, &parts, &forms)?;
    t.compile_us = clock.elapsed().as_micros() as u64;
    t.parts = parts.len() as u64;
    t.insts = forms.iter().map(|f| f.size() as u64).sum();
    let mut pick = Pick(cfg.seed ^ 0x51AF_D7ED_558C_CD17);
    // (state, seat, part, values, numbers)
    let mut states: Vec<(State, u8)> = vec![];
    let mut cases: Vec<(usize, usize, Vec<Value>, Vec<i64>)> = vec![];
    walk(g, &mut st, cap, &mut pick, |st, me, pick| {
        for (k, p) in parts.iter().enumerate() {
            let a = &g.actions[p.action];
            for _ in 0..4 {
                let args: Vec<Value> = a
                    .params
                    .iter()
                    .map(|b| {
                        let d = domain(g, b.ty, st.players, pick);
                        d[pick.next(d.len())]
                    })
                    .collect();
                if let Some(nums) = encode(&p.func, &args) {
                    cases.push((states.len(), k, args, nums));
                }
            }
        }
        states.push((st.clone(), me));
        Ok(())
    })?;
    let mut locals = vec![Value::None; crate::ir::MAX_LOCALS];
    let mut time = |which: u8| -> Result<(u64, Vec<Result<Value, ()>>), String> {
        let mut out = Vec::with_capacity(cases.len());
        let clock = Instant::now();
        for rep in 0..reps {
            for (s, k, args, nums) in &cases {
                let (st, me) = (&states[*s].0, states[*s].1);
                let p = &parts[*k];
                let got = match which {
                    0 => {
                        locals[..args.len()].copy_from_slice(args);
                        super::eval(
                            g,
                            st,
                            &g.actions[p.action].guard_parts[p.part].1,
                            &mut locals,
                            me,
                        )
                        .map_err(|_| ())
                    }
                    1 => {
                        let env = StateEnv::new(g, st, me);
                        interp::run(&forms[*k], g, &env, nums, &mut 1_000_000).map_err(|_| ())
                    }
                    2 => {
                        let env = StateEnv::new(g, st, me);
                        match native.run(g, &env, *k, 1, nums) {
                            Some(r) => r.map_err(|_| ()),
                            None => return Ok((0, vec![])),
                        }
                    }
                    _ => {
                        let env = StateEnv::new(g, st, me);
                        let Some(gen) = generated else {
                            return Ok((0, vec![]));
                        };
                        let mut rt = crate::lir::rt::Rt::new(g, &env, 1_000_000);
                        gen.get(*k)
                            .ok_or("the generated module is not of this file")?(
                            &mut rt, nums
                        )
                        .map(|n| forms[*k].ret.decode(n))
                        .map_err(|_| ())
                    }
                };
                if rep == 0 {
                    out.push(got);
                }
            }
        }
        Ok((clock.elapsed().as_nanos() as u64, out))
    };
    let (reference_ns, want) = time(0)?;
    let (interp_ns, by_interp) = time(1)?;
    let (native_ns, by_native) = time(2)?;
    let (generated_ns, by_generated) = time(3)?;
    if want != by_interp
        || (!by_native.is_empty() && want != by_native)
        || (!by_generated.is_empty() && want != by_generated)
    {
        return Err("the evaluators disagree".into());
    }
    t.generated_ns = generated_ns;
    time_listings(g, &states, reps, &mut t)?;
    t.evals = cases.len() as u64 * reps as u64;
    t.reference_ns = reference_ns;
    t.interp_ns = interp_ns;
    t.native_ns = native_ns;
    Ok(t)
}

/// Times the listings of the states whose every arm is an action with an enumerator: the
/// engine's, the enumerators' interpreted and native; their options counted equal.
fn time_listings(
    g: &Game,
    states: &[(State, u8)],
    reps: u32,
    t: &mut Timing,
) -> Result<(), String> {
    use std::time::Instant;
    let Some((st0, _)) = states.first() else {
        return Ok(());
    };
    let mut tally = LirTally::default();
    let lists = enumerators(g, st0, &mut tally)?;
    // (state, the enumerators of its arms after the passes)
    let mut cases: Vec<(usize, Vec<usize>)> = vec![];
    for (i, (st, _)) in states.iter().enumerate() {
        let crate::engine::Wait::Decision { choice, .. } = st.wait else {
            continue;
        };
        if !matches!(super::options(g, st), Ok(super::Listing::Options(_))) {
            continue;
        }
        let arms: Option<Vec<usize>> = g.choices[choice]
            .arms
            .iter()
            .map(|a| match a {
                crate::ir::Arm::Action(ai) => lists.of[ai.0 as usize].map(|k| 2 * k + 1),
                _ => None,
            })
            .collect();
        if let Some(arms) = arms {
            cases.push((i, arms));
        }
    }
    let mut engine = vec![];
    let clock = Instant::now();
    let mut n_engine = 0;
    for _ in 0..reps {
        for (i, _) in &cases {
            g.list_again(&states[*i].0, &mut engine)
                .map_err(|e| format!("{e:?}"))?;
            n_engine += engine.len() as u64;
        }
    }
    t.list_engine_ns = clock.elapsed().as_nanos() as u64;
    let mut out = vec![];
    let mut counts = [0u64; 2];
    for (form, count) in counts.iter_mut().enumerate() {
        let clock = Instant::now();
        for _ in 0..reps {
            for (i, arms) in &cases {
                let (st, me) = (&states[*i].0, states[*i].1);
                let env = StateEnv::new(g, st, me);
                for &k in arms {
                    out.clear();
                    let r = if form == 0 {
                        interp::run_into(&lists.funcs[k], g, &env, &[], &mut 1_000_000, &mut out)
                    } else {
                        match lists.native.run_into(g, &env, k, &mut out) {
                            Some(r) => r,
                            None => return Ok(()),
                        }
                    };
                    if let Ok(Value::Int(c)) = r {
                        *count += c as u64;
                    }
                }
            }
        }
        let ns = clock.elapsed().as_nanos() as u64;
        if form == 0 {
            t.list_interp_ns = ns;
        } else {
            t.list_native_ns = ns;
        }
    }
    if counts[0] != n_engine || counts[1] != n_engine {
        return Err(format!(
            "the engine listed {n_engine} options, the enumerators {counts:?}"
        ));
    }
    t.listings = cases.len() as u64 * reps as u64;
    t.options = n_engine;
    Ok(())
}

/// The Rust source of a file's lowered guard parts after the passes, with the facts of the
/// match `cfg` starts ([`crate::lir::rust::emit`]), in the order [`timing`] runs them.
pub fn emit_rust(g: &Game, cfg: &Config) -> Result<String, String> {
    let parts = lower_parts(g, &mut LirTally::default())?;
    let st = g.start(cfg).map_err(|e| format!("{e:?}"))?;
    let forms = passed_forms(g, &st, &parts)?;
    let refs: Vec<&Func> = forms.iter().collect();
    Ok(crate::lir::rust::emit(g, &refs))
}
