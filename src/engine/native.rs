//! Options listed by the compiled enumerators (issue 36): an action with one
//! ([`crate::lir::listing`]) has its options written by native code straight from the state,
//! in the order the engine lists them; a failure (a rule error, the budget) lists them again
//! the engine's way, which says what failed. Check mode lists every decision both ways
//! ([`Game::set_check_caches`]).

use super::options::Sink;
use super::vm::Machine;
use super::{Action, State, Steps};
use crate::ir::*;
use crate::lir::interp::Env;

/// The state of a match as the low-level IR reads it.
pub struct StateEnv<'a> {
    g: &'a Game,
    s: &'a State,
    me: u8,
}

impl<'a> StateEnv<'a> {
    /// The state `s` of a match of `g`, `me` acting.
    pub fn new(g: &'a Game, s: &'a State, me: u8) -> StateEnv<'a> {
        StateEnv { g, s, me }
    }
}

impl Env for StateEnv<'_> {
    fn var(&self, slot: u32) -> Value {
        self.s.var(slot as usize)
    }
    fn vars(&self) -> &[Value] {
        &self.s.vars
    }
    fn field(&self, c: CompId, f: u16) -> Value {
        self.s.field(c, f, self.g)
    }
    fn fields(&self) -> &[Value] {
        &self.s.fields
    }
    fn zones(&self) -> Option<crate::lir::interp::ZoneArrays<'_>> {
        Some(self.s.zones.arrays())
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
    fn consts(&self) -> &[Value] {
        self.s.consts.iter().as_slice()
    }
    fn index_bits(&self) -> &[u64] {
        &self.s.index
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
    fn twin_below(&self, c: CompId) -> bool {
        self.g.offered_before(self.s, Value::Comp(c), self.me)
    }
}

impl Game {
    /// Region `region` of statements run natively from its first step
    /// ([`crate::lir::listing::Built::region`]): where the steps go on, its writes counted
    /// and stamped as [`State::set_var`] does; `None` when it did not run (nothing written).
    pub(crate) fn native_region(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut [Value],
        iters: &mut Vec<Value>,
        me: u8,
        region: u32,
    ) -> Option<u32> {
        if m.native_off || m.regions_off {
            return None;
        }
        let built = crate::lir::listing::enumerators(self)?;
        // The variables and their index are written through these pointers only while the
        // native code runs; the environment reads the rest of the state.
        let w = crate::lir::rt::Writes {
            vars: st.vars.as_mut_ptr(),
            vars_len: st.vars.len(),
            index: st.index.as_mut_ptr(),
            index_len: st.index.len(),
            changes: 0,
            families: 0,
        };
        let env = StateEnv::new(self, st, me);
        let (to, w, spent) = built.region(self, region, &env, locals, iters, &mut m.fuel, w)?;
        m.regions_off |= spent;
        st.window.changes += w.changes;
        let mut f = w.families;
        while f != 0 {
            st.stamps.write(f.trailing_zeros());
            f &= f - 1;
        }
        Some(to)
    }

    /// Whether some `end when` condition holds, by the compiled conditions; `None` when one
    /// has no compiled function or failed (the engine then evaluates them its own way, which
    /// says what failed). Check mode evaluates them the engine's way too when they do not
    /// hold.
    pub(crate) fn ended_native(&self, m: &mut Machine, st: &State) -> Option<bool> {
        if m.native_off {
            return None;
        }
        let built = crate::lir::listing::enumerators(self)?;
        let me = st.current().unwrap_or(0);
        let env = StateEnv::new(self, st, me);
        for i in 0..self.program.end_when.len() {
            if built.holds(self, i, &env, &mut m.fuel)? {
                return Some(true);
            }
        }
        if self.program.check_caches {
            for (i, (cond, _)) in self.program.end_when.iter().enumerate() {
                let mut locals = [Value::None; MAX_LOCALS];
                if m.eval_bool(self, st, *cond, &mut locals, me) != Ok(false) {
                    super::vm::stale(
                        "the compiled `end when` conditions (lir::listing)",
                        format!("condition {i} holds, or fails, the engine's way"),
                    );
                }
            }
        }
        Some(false)
    }

    /// Lists the options of action `a` (arm `arm` of the waiting choice) for `actor` with its
    /// enumerator into `sink`: false when it has none or it failed (nothing listed then).
    /// `go_on` is set false when the sink's function asks to stop.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn list_native(
        &self,
        m: &mut Machine,
        st: &State,
        a: ActionId,
        arm: usize,
        actor: u8,
        sink: &mut Sink,
        go_on: &mut bool,
    ) -> bool {
        if m.native_off {
            return false;
        }
        let Some(built) = crate::lir::listing::enumerators(self) else {
            return false;
        };
        let env = StateEnv::new(self, st, actor);
        let mut out = std::mem::take(&mut m.native_out);
        out.clear();
        let listed = built.list(self, a, &env, &mut m.fuel, &mut out);
        let Some((count, n)) = listed else {
            m.native_out = out;
            return false;
        };
        // Each value moved whole (a copy of the first `n` into an array of nones, through
        // `copy_from_slice`, stalled on store forwarding: a fifth of a game's time, seen in
        // a profile; docs/benchmarks.md).
        const NONE: Value = Value::None;
        let option = |k: usize| {
            let args: [Value; MAX_ARGS] = match out.get(k * n..k * n + n).unwrap_or(&[]) {
                [a] => [*a, NONE, NONE, NONE],
                [a, b] => [*a, *b, NONE, NONE],
                [a, b, c] => [*a, *b, *c, NONE],
                [a, b, c, d] => [*a, *b, *c, *d],
                _ => [NONE; MAX_ARGS],
            };
            Action {
                arm: arm as u16,
                args,
                steps: Steps::NONE,
            }
        };
        match sink {
            Sink::List(list) => list.extend((0..count).map(option)),
            Sink::Each(f) => {
                for k in 0..count {
                    if !f(option(k)) {
                        *go_on = false;
                        break;
                    }
                }
            }
        }
        m.native_out = out;
        true
    }
}
