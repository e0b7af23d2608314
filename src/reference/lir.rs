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
}

struct StateEnv<'a> {
    g: &'a Game,
    s: &'a State,
    me: u8,
}

impl interp::Env for StateEnv<'_> {
    fn var(&self, slot: u32) -> Value {
        self.s.var(slot as usize)
    }
    fn field(&self, c: CompId, f: u16) -> Value {
        self.s.field(c, f, self.g)
    }
    fn me(&self) -> u8 {
        self.me
    }
    fn current(&self) -> Option<u8> {
        self.s.current()
    }
    fn players(&self) -> u8 {
        self.s.players
    }
    fn constant(&self, c: ConstId) -> Value {
        self.s.consts.get(c).copied().unwrap_or_default()
    }
    fn zone_len(&self, z: InstId) -> u32 {
        self.s.zones.len(z) as u32
    }
    fn zone_end(&self, z: InstId, top: bool) -> Option<CompId> {
        let held = self.s.zone(z);
        if top {
            held.last().copied()
        } else {
            held.first().copied()
        }
    }
    fn place(&self, c: CompId) -> InstId {
        self.s.zones.loc(c)
    }
    fn zone_at(&self, z: InstId, k: u32) -> Option<CompId> {
        self.s.zone(z).get(k as usize).copied()
    }
}

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
    let mut legal: Vec<Action> = vec![];
    for _ in 0..cap {
        let me = match g.actor(&st) {
            Actor::Player(p) => p,
            _ => break,
        };
        tally.states += 1;
        compare_state(g, &st, me, &parts, &mut pick, tally)?;
        legal.clear();
        if g.legal(&st, &mut legal).is_err() || legal.is_empty() {
            break;
        }
        let a = legal[pick.next(legal.len())];
        if g.apply(&mut st, &a).is_err() {
            break;
        }
    }
    Ok(())
}

fn compare_state(
    g: &Game,
    st: &State,
    me: u8,
    parts: &[Part],
    pick: &mut Pick,
    tally: &mut LirTally,
) -> Result<(), String> {
    let env = StateEnv { g, s: st, me };
    let consts: Vec<Value> = st.consts.iter().copied().collect();
    let facts = passes::Facts {
        players: st.players,
        consts: &consts,
    };
    for p in parts {
        let a = &g.actions[p.action];
        let mut passed = p.func.clone();
        passes::specialise(&mut passed, &facts);
        passes::fold(&mut passed, g);
        passes::dce(&mut passed);
        verify::verify(&passed, g)
            .map_err(|e| format!("{} after passes: {e}\n{passed}", a.name))?;
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
            let nums: Option<Vec<i64>> = p
                .func
                .params
                .iter()
                .zip(&args)
                .map(|(r, v)| p.func.ty(*r).encode(*v))
                .collect();
            let Some(nums) = nums else { continue };
            for (form, f) in [("lowered", &p.func), ("after passes", &passed)] {
                let got = interp::run(f, g, &env, &nums, &mut 1_000_000);
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
