//! Remembered function results while one state's options are listed.
//!
//! A function (`def`) reads only its arguments, `me` and the state, so while one state is
//! borrowed unchanged (the options of one decision being listed, [`Machine::listing`]) a call
//! with the same function, arguments and `me` gives the same result: guards of several
//! actions, several parameter values or several players that call the same function pay for
//! it once. A function that does not read `me` (nor any function or set kind it uses:
//! [`crate::ir::vm::CDef::reads_me`]) is keyed without it, so the players of a window, asked
//! in turn on the same state, share its result. Only functions whose body walks a collection
//! or calls another one ([`crate::ir::vm::CDef::remember`]) are remembered, in a fixed table of
//! [`CALL_SLOTS`] entries (a newer result takes the place of an older one with the same hash).
//! A remembered call costs no work units (fuel). The table is allocated once per thread.
//! An entry also serves later listings of the same state (by its lineage,
//! [`crate::engine::state::Stamps`]), and calls from its flow, while none of the families of
//! the state the function reads ([`crate::ir::vm::CDef::reads`]) has been written since it
//! was computed. Functions whose aggregates fold zones are not called at all in guards and
//! function bodies: they are compiled in place of their calls there
//! (`check/compile/expr/inline.rs`, `inline_walk`), since walking such a zone, mostly empty or
//! short, costs less than a look-up in this table.

use super::*;
use std::hash::{Hash, Hasher};

/// Entries of the table (a power of two).
const CALL_SLOTS: usize = 1024;
/// The most arguments of a remembered call.
pub(super) const CALL_ARGS: usize = 4;

/// One remembered call.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CallEntry {
    /// The listing it belongs to (0: none, or made outside a listing).
    listing: u32,
    /// The state it was computed on ([`crate::engine::State`]'s lineage) and that state's
    /// write clock then: it serves later listings of that state while none of the families
    /// the function reads ([`crate::ir::vm::CDef::reads`]) has been written since.
    lineage: u64,
    at: u64,
    def: u32,
    /// `me` when the function reads it, else `u8::MAX` (any player).
    me: u8,
    args: [Value; CALL_ARGS],
    result: Value,
}

/// The remembered calls of the listing under way.
#[derive(Debug, Default)]
pub(crate) struct CallCache {
    entries: Vec<CallEntry>,
    /// The number of the listing under way (entries of older ones are stale).
    listing: u32,
    /// The address of the state being listed (0: no listing, nothing is remembered).
    state: usize,
}

/// A small multiplicative hasher (the keys are a few small numbers).
struct Fx(u64);

impl Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u8(&mut self, n: u8) {
        self.write_u64(n as u64);
    }
    fn write_u16(&mut self, n: u16) {
        self.write_u64(n as u64);
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(n as u64);
    }
    fn write_isize(&mut self, n: isize) {
        self.write_u64(n as u64);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    fn write_i64(&mut self, n: i64) {
        self.write_u64(n as u64);
    }
    #[inline(always)]
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Machine {
    /// Runs `f` (the listing of `s`'s options) with function results remembered for `s`; a
    /// listing nested in another one shares the outer one's table (it lists the same state,
    /// or another whose calls are not remembered).
    pub(crate) fn listing<T>(
        &mut self,
        g: &Game,
        s: &State,
        f: impl FnOnce(&mut Machine) -> T,
    ) -> T {
        self.listing_at(g, s as *const State as usize, f)
    }

    /// [`Machine::listing`] for the state at address `state`, for a caller that holds it
    /// mutably: `f` must not change what functions read (variables, fields, zones,
    /// constants, the current player), only the state's bookkeeping (its cached options).
    pub(crate) fn listing_at<T>(
        &mut self,
        g: &Game,
        state: usize,
        f: impl FnOnce(&mut Machine) -> T,
    ) -> T {
        if self.calls.state != 0 || !g.program.remember {
            return f(self);
        }
        let c = &mut self.calls;
        if c.entries.is_empty() {
            c.entries.resize(CALL_SLOTS, CallEntry::default());
        }
        c.listing = c.listing.wrapping_add(1);
        if c.listing == 0 {
            c.entries.iter_mut().for_each(|e| e.listing = 0);
            c.listing = 1;
        }
        c.state = state;
        let r = f(self);
        self.calls.state = 0;
        r
    }

    /// Forgets the listing under way (the machine is reset).
    pub(crate) fn end_listing(&mut self) {
        self.calls.state = 0;
    }

    /// Calls function `d` on the arguments on top of the stack (popped) and pushes its
    /// result, remembered while `s` is being listed and, for later listings of `s` and calls
    /// from its flow, while nothing the function reads is written.
    pub(super) fn call_remembered(&mut self, g: &Game, s: &State, d: DefId, me: u8) -> Eval<()> {
        let def = &g.program.defs[d];
        let (n, reads_me, reads) = (def.params as usize, def.reads_me, def.reads);
        // A function that does not read `me` gives every player the same result.
        let key = if reads_me { me } else { u8::MAX };
        let from = self.stack.len().saturating_sub(n);
        let mut h = Fx(d.0 as u64);
        h.write_u8(key);
        self.stack[from..].hash(&mut h);
        let slot = (h.finish() >> 32) as usize & (CALL_SLOTS - 1);
        // Outside a listing of `s` (0), only the stamps tell whether an entry is valid.
        let listing = if self.remembers(s) {
            self.calls.listing
        } else {
            if self.calls.entries.is_empty() {
                self.calls.entries.resize(CALL_SLOTS, CallEntry::default());
            }
            0
        };
        if let Some(e) = self.calls.entries.get(slot) {
            if e.def == d.0 as u32
                && e.me == key
                && e.args[..n] == self.stack[from..]
                && ((listing != 0 && e.listing == listing)
                    || (e.lineage == s.stamps.lineage && s.stamps.unchanged(reads, e.at)))
            {
                let result = e.result;
                if g.program.check_caches {
                    return self.check_call(
                        g,
                        s,
                        d,
                        me,
                        result,
                        "a remembered function result (vm/calls.rs)",
                    );
                }
                self.stack.truncate(from);
                self.stack.push(result);
                return Ok(());
            }
        }
        let mut args = [Value::None; CALL_ARGS];
        for (a, v) in args.iter_mut().zip(&self.stack[from..]) {
            *a = *v;
        }
        self.call_computed(g, s, d, me)?;
        let result = self.stack.last().copied().unwrap_or_default();
        if let Some(e) = self.calls.entries.get_mut(slot) {
            e.listing = listing;
            e.lineage = s.stamps.lineage;
            e.at = s.stamps.clock;
            e.def = d.0 as u32;
            e.me = key;
            e.args = args;
            e.result = result;
        }
        Ok(())
    }

    /// Runs function `d` on the arguments on top of the stack (popped), natively when it is
    /// compiled (`lir::listing`), else its body; its result is left on the stack. A native
    /// call that fails (a rule error, the budget) is made again the other way, which says
    /// what failed. Check mode makes every native call the other way too and compares.
    fn call_computed(&mut self, g: &Game, s: &State, d: DefId, me: u8) -> Eval<()> {
        if !self.native_off {
            if let Some(built) = crate::lir::listing::enumerators(g) {
                let n = g.program.defs[d].params as usize;
                let from = self.stack.len().saturating_sub(n);
                let env = crate::engine::StateEnv::new(g, s, me);
                if let Some(v) = built.call(g, d, &env, &self.stack[from..], &mut self.fuel) {
                    if g.program.check_caches {
                        return self.check_call(
                            g,
                            s,
                            d,
                            me,
                            v,
                            "a compiled function (lir::listing)",
                        );
                    }
                    self.stack.truncate(from);
                    self.stack.push(v);
                    return Ok(());
                }
            }
        }
        self.call_body(g, s, d, me)
    }

    /// [`Op::Native`] (`pc` just after it): the expression computed by its native code,
    /// pushed, and its ops passed over; nothing done when it has none or the native code
    /// fails (the ops then compute it, and say what failed).
    #[inline(never)]
    pub(super) fn native_op(
        &mut self,
        g: &Game,
        s: &State,
        id: u32,
        pc: &mut u32,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<()> {
        let len = g.program.natives.get(id as usize).map_or(0, |n| n.len);
        let ops = Code {
            start: *pc,
            end: *pc + len,
        };
        if let Some(v) = self.native_value(g, s, id, ops, locals, me)? {
            self.stack.push(v);
            *pc += len;
        }
        Ok(())
    }

    /// Expression `id` of a procedure ([`Op::Native`]) computed by its native code; `None`
    /// when it has none, a local it reads is not of the type expected, or the native code
    /// fails (a rule error, the budget: `ops`, its ops, then compute it and say what
    /// failed). Check mode computes it by `ops` too and compares.
    pub(crate) fn native_value(
        &mut self,
        g: &Game,
        s: &State,
        id: u32,
        ops: Code,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<Option<Value>> {
        if self.native_off {
            return Ok(None);
        }
        let Some(built) = crate::lir::listing::enumerators(g) else {
            return Ok(None);
        };
        let env = crate::engine::StateEnv::new(g, s, me);
        let Some(v) = built.native_expr(g, id, &env, locals, &mut self.fuel) else {
            return Ok(None);
        };
        if g.program.check_caches {
            let fuel = self.fuel;
            let fresh = self.eval(g, s, ops, locals, me)?;
            self.fuel = fuel;
            if fresh != v {
                stale(
                    "an expression compiled to native code (lir::listing)",
                    format!("native {v:?}, by its ops {fresh:?}"),
                );
            }
        }
        Ok(Some(v))
    }

    /// Check mode: the call on top of the stack computed again by its body (its result left
    /// there, as [`Machine::call_body`] leaves it) and compared with `result`, which `what`
    /// served (a remembered result, a native call); the work it costs is given back.
    #[cold]
    #[inline(never)]
    fn check_call(
        &mut self,
        g: &Game,
        s: &State,
        d: DefId,
        me: u8,
        result: Value,
        what: &str,
    ) -> Eval<()> {
        let n = g.program.defs[d].params as usize;
        let args = self.stack[self.stack.len().saturating_sub(n)..].to_vec();
        let fuel = self.fuel;
        self.call_body(g, s, d, me)?;
        self.fuel = fuel;
        let fresh = self.stack.last().copied().unwrap_or_default();
        if fresh != result {
            stale(
                what,
                format!(
                    "`{}` of {args:?} for p{}: remembered {result:?}, computed again {fresh:?}",
                    g.defs[d].name,
                    me + 1
                ),
            );
        }
        Ok(())
    }

    /// Whether calls made on `s` are remembered now.
    #[inline(always)]
    pub(super) fn remembers(&self, s: &State) -> bool {
        self.calls.state == s as *const State as usize
    }
}
