//! What compiled code calls: reads of the state and the game's tables, each index checked,
//! and the arithmetic whose rules are long. The native code of [`super::jit`] calls these
//! through small C helpers; Rust source written by [`super::rust`] calls them directly.

use super::*;
use crate::ir::{BoardId, CompId, Game, InstId};
use interp::Env;

/// A match and a moment, as compiled code reads them.
pub struct Rt<'a> {
    /// Units of work left.
    pub fuel: u64,
    /// `me`
    pub me: i64,
    /// The current player, or none.
    pub current: i64,
    /// The number of seats.
    pub players: i64,
    /// The values an enumerator wrote ([`Inst::Out`]).
    pub out: Vec<Value>,
    /// The function's scratch words ([`Area`]), taken from this thread's pool for a call of
    /// a function that has some ([`Rt::take_scratch`]) and given back after it.
    pub scratch: Vec<u64>,
    /// The state's arrays a function that writes writes, when the caller lends them.
    pub writes: Option<Writes>,
    env: &'a dyn Env,
    game: &'a Game,
}

/// The state's arrays that a function that writes ([`Inst::SetVar`]) writes in place, lent
/// for one call, and what its writes did. The lender keeps every other reference to these
/// arrays unused for the call (the environment does not read them meanwhile), and their
/// lengths as given: the writes go through these pointers only.
pub struct Writes {
    /// Every variable slot of the game.
    pub vars: *mut Value,
    /// Their number.
    pub vars_len: usize,
    /// The state's value index bits (every word of the game's).
    pub index: *mut u64,
    /// Their number.
    pub index_len: usize,
    /// How many entries the writes changed.
    pub changes: u64,
    /// The families they wrote ([`crate::ir::vm::Family`]), a bit each.
    pub families: u64,
}

impl<'a> Rt<'a> {
    /// The moment `env` stands for, with a budget of work.
    pub fn new(game: &'a Game, env: &'a dyn Env, fuel: u64) -> Rt<'a> {
        Rt {
            fuel,
            me: env.me() as i64,
            current: env.current().map_or(ID_NONE, |p| p as i64),
            players: env.players() as i64,
            out: vec![],
            scratch: vec![],
            writes: None,
            env,
            game,
        }
    }

    /// Takes `words` scratch words for a call (zeroed) from this thread's pool, which keeps
    /// them between calls so that a call allocates nothing once the pool is large enough.
    pub fn take_scratch(&mut self, words: u32) {
        if words == 0 {
            return;
        }
        let mut v = SCRATCH.with(|p| std::mem::take(&mut *p.borrow_mut()));
        v.clear();
        v.resize(words as usize, 0);
        self.scratch = v;
    }

    /// Gives the scratch words back to this thread's pool.
    pub fn give_back_scratch(&mut self) {
        let v = std::mem::take(&mut self.scratch);
        if v.capacity() > 0 {
            SCRATCH.with(|p| {
                let mut p = p.borrow_mut();
                if p.capacity() < v.capacity() {
                    *p = v;
                }
            });
        }
    }

    /// [`Inst::Clear`]
    pub fn clear(&mut self, a: Area) -> i64 {
        self.scratch[a.at as usize..(a.at + a.words) as usize].fill(0);
        0
    }

    /// [`Inst::Mark`] (`set`) and [`Inst::Marked`]: whether `x` was marked.
    pub fn mark(&mut self, a: Area, x: i64, set: bool) -> Result<i64, Fail> {
        if x < 0 || x >= a.words as i64 * 64 {
            return Err(Fail::Index);
        }
        let w = &mut self.scratch[(a.at + (x / 64) as u32) as usize];
        let bit = 1u64 << (x % 64);
        let was = *w & bit != 0;
        if set {
            *w |= bit;
        }
        Ok(was as i64)
    }

    /// [`Inst::NextMarked`]
    pub fn next_marked(&self, a: Area, from: i64) -> i64 {
        let end = a.words as i64 * 64;
        let mut x = from.max(0);
        while x < end {
            let w = self.scratch[(a.at + (x / 64) as u32) as usize] >> (x % 64);
            if w != 0 {
                return x + w.trailing_zeros() as i64;
            }
            x = (x / 64 + 1) * 64;
        }
        end
    }

    /// [`Inst::Push`]
    pub fn push(&mut self, a: Area, x: i64) -> Result<i64, Fail> {
        let n = self.scratch[a.at as usize];
        if n + 1 >= a.words as u64 {
            return Err(Fail::Limit);
        }
        self.scratch[(a.at as u64 + 1 + n) as usize] = x as u64;
        self.scratch[a.at as usize] = n + 1;
        Ok(0)
    }

    /// [`Inst::Store`]
    pub fn store(&mut self, a: Area, x: i64) -> i64 {
        self.scratch[a.at as usize] = x as u64;
        0
    }

    /// [`Inst::Load`]
    pub fn load(&self, a: Area) -> i64 {
        self.scratch[a.at as usize] as i64
    }

    /// [`Inst::Pop`]
    pub fn pop(&mut self, a: Area) -> i64 {
        let n = self.scratch[a.at as usize];
        if n == 0 {
            return ID_NONE;
        }
        self.scratch[a.at as usize] = n - 1;
        self.scratch[(a.at as u64 + n) as usize] as i64
    }

    /// Spends `n` units of work (a block's instructions and its end).
    #[inline]
    pub fn spend(&mut self, n: u64) -> Result<(), Fail> {
        self.fuel = self.fuel.checked_sub(n).ok_or(Fail::Fuel)?;
        Ok(())
    }

    /// Writes the next value of an option.
    pub fn out(&mut self, ty: Ty, a: i64) -> i64 {
        self.out.push(ty.decode(a));
        0
    }

    /// A variable's slot, as a number of type `ty`.
    pub fn var(&self, slot: i64, ty: Ty) -> Result<i64, Fail> {
        let v = match &self.writes {
            Some(w) if (slot as u64) < w.vars_len as u64 => {
                // SAFETY: below the length lent ([`Writes`]).
                unsafe { *w.vars.add(slot as usize) }
            }
            Some(_) => return Err(Fail::Index),
            None => self.env.var(slot as u32),
        };
        ty.encode(v).ok_or(Fail::Type)
    }

    /// Writes `a` into entry `pos` of variable `var` ([`Inst::SetVar`]): the variable's
    /// range checked, the value index kept, the change counted and its family noted.
    pub fn set_var(&mut self, var: u32, pos: i64, a: i64) -> Result<i64, Fail> {
        let g = self.game;
        let var = crate::ir::VarId(var as _);
        let def = g.vars.get(var).ok_or(Fail::Index)?;
        let new = Ty::of(def.ty).ok_or(Fail::Type)?.decode(a);
        if let (Some((lo, hi)), Value::Int(n)) = (def.range, new) {
            if n < lo || n > hi {
                return Err(Fail::Arithmetic);
            }
        }
        let pos = below(pos, def.count as u64)? as usize;
        let w = self.writes.as_mut().ok_or(Fail::Type)?;
        let slot = def.base as usize + pos;
        if slot >= w.vars_len {
            return Err(Fail::Index);
        }
        // SAFETY: `Writes`' contract: `vars_len` slots at `vars`, nothing else using them
        // during the call (the native code that called this waits for it).
        let vars = unsafe { std::slice::from_raw_parts_mut(w.vars, w.vars_len) };
        let old = std::mem::replace(&mut vars[slot], new);
        if old != new {
            w.changes += 1;
            let p = &g.program;
            if p.families.on {
                w.families |= 1 << (p.families.var(var) & 63);
            }
            // SAFETY: as above, `index_len` words at `index`.
            let bits = unsafe { std::slice::from_raw_parts_mut(w.index, w.index_len) };
            p.index_write(var, pos, old, new, bits);
        }
        Ok(0)
    }

    /// A constant's value in this match.
    pub fn constant(&self, k: u32, ty: Ty) -> Result<i64, Fail> {
        ty.encode(self.env.constant(ConstId(k as _)))
            .ok_or(Fail::Type)
    }

    /// A field of a component (failing on none or a component without it).
    pub fn field(&self, comp: i64, field: u16, ty: Ty) -> Result<i64, Fail> {
        if comp == ID_NONE || comp < 0 || comp as usize >= self.game.comps.len() {
            return Err(Fail::Field);
        }
        let comp = CompId(comp as u32);
        if field as usize >= self.game.comps[comp].fields.len() {
            return Err(Fail::Field);
        }
        ty.encode(self.env.field(comp, field)).ok_or(Fail::Type)
    }

    /// A built-in function of one operand of type `ty`.
    pub fn unary(&self, op: Unary, ty: Ty, a: i64) -> Result<i64, Fail> {
        interp::unary(self.game, self.env, op, ty, a)
    }

    /// `step(s, d)` on a board.
    pub fn step(&self, board: u32, s: i64, d: i64) -> i64 {
        if s == ID_NONE || d == ID_NONE {
            return ID_NONE;
        }
        interp::step_space(self.game, self.env, BoardId(board as _), s as u32, d as u16)
            .map_or(ID_NONE, |t| t as i64)
    }

    /// Whether a component looks the same to the acting seat as one below it (false for
    /// none).
    pub fn twin(&self, comp: i64) -> i64 {
        (comp >= 0
            && (comp as usize) < self.game.comps.len()
            && self.env.twin_below(CompId(comp as u32))) as i64
    }

    /// [`Inst::Class`]
    pub fn class(&self, comp: i64) -> Result<i64, Fail> {
        if comp < 0 || comp as usize >= self.game.comps.len() {
            return Err(Fail::Index);
        }
        Ok(class_of(self.game, comp as u32) as i64)
    }

    /// [`Inst::Seek`]: the first position at or after `from` of a variable (one dimension)
    /// whose entry is `value` (of the variable's type); the variable's number of entries
    /// when none is.
    pub fn seek(&self, var: u32, value: i64, from: i64) -> i64 {
        let Some(def) = self.game.vars.get(crate::ir::VarId(var as _)) else {
            return 0;
        };
        let Some(ty) = Ty::of(def.ty) else {
            return def.count as i64;
        };
        (from.max(0)..def.count as i64)
            .find(|&p| {
                ty.encode(self.env.var(def.base + p as u32))
                    .is_some_and(|v| v == value)
            })
            .unwrap_or(def.count as i64)
    }

    /// The `k`-th neighbour of space `s` of a board, or none.
    pub fn near(&self, board: u32, s: i64, k: i64) -> i64 {
        if s == ID_NONE || s < 0 || k < 0 {
            return ID_NONE;
        }
        let b = BoardId(board as _);
        interp::near_space(self.game, self.env, b, s as u32, k as u64).map_or(ID_NONE, |t| t as i64)
    }

    /// Whether a space is closed in this match.
    pub fn closed(&self, board: u32, s: i64) -> i64 {
        (s != ID_NONE && interp::closed(self.game, self.env, BoardId(board as _), s as u32)) as i64
    }

    /// What a zone instance holds.
    pub fn held(&self, what: Held, z: i64) -> Result<i64, Fail> {
        if z == ID_NONE {
            return Err(Fail::NoneValue);
        }
        if z < 0 || z as usize >= self.game.instances.len() {
            return Err(Fail::Index);
        }
        let z = InstId(z as u32);
        Ok(match what {
            Held::Count => self.env.zone_len(z) as i64,
            Held::Empty => (self.env.zone_len(z) == 0) as i64,
            Held::Top | Held::Bottom => self
                .env
                .zone_end(z, what == Held::Top)
                .map_or(ID_NONE, |c| c.0 as i64),
        })
    }

    /// Where a component lies (none for none, or a component the game does not have or
    /// that lies nowhere).
    pub fn place(&self, what: Place, comp: i64) -> i64 {
        if comp < 0 || comp as usize >= self.game.comps.len() {
            return ID_NONE;
        }
        let inst = self.env.place(CompId(comp as u32));
        let Some(at) = self.game.instances.get(inst) else {
            return ID_NONE;
        };
        match what {
            Place::Zone => inst.0 as i64,
            Place::Owner => at.owner.map_or(ID_NONE, |p| p as i64),
            Place::Space => at.space.map_or(ID_NONE, |(_, s)| s as i64),
        }
    }

    /// The `k`-th component of a zone instance from the bottom, or none.
    pub fn zone_at(&self, z: i64, k: i64) -> Result<i64, Fail> {
        if z == ID_NONE || k < 0 {
            return Err(Fail::Index);
        }
        Ok(self
            .env
            .zone_at(InstId(z as u32), k as u32)
            .map_or(ID_NONE, |c| c.0 as i64))
    }
}

thread_local! {
    /// Scratch words kept between calls on this thread ([`Rt::take_scratch`]).
    static SCRATCH: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Checked arithmetic on two numbers (none fails; so does a result that is none's number).
#[inline]
pub fn arith(op: Arith, x: i64, y: i64) -> Result<i64, Fail> {
    if x == INT_NONE || y == INT_NONE {
        return Err(Fail::NoneValue);
    }
    let v = match op {
        Arith::Add => x.checked_add(y),
        Arith::Sub => x.checked_sub(y),
        Arith::Mul => x.checked_mul(y),
        Arith::Div | Arith::Mod if y == 0 => None,
        Arith::Div => x.checked_div_euclid(y),
        Arith::Mod => x.checked_rem_euclid(y),
        Arith::Pow => u32::try_from(y).ok().and_then(|y| x.checked_pow(y)),
        Arith::Max => Some(x.max(y)),
        Arith::Min => Some(x.min(y)),
    };
    v.filter(|&v| v != INT_NONE).ok_or(Fail::Arithmetic)
}

/// An order comparison of two numbers (none fails).
#[inline]
pub fn order(op: Cmp, x: i64, y: i64) -> Result<i64, Fail> {
    if x == INT_NONE || y == INT_NONE {
        return Err(Fail::NoneValue);
    }
    Ok(match op {
        Cmp::Lt => x < y,
        Cmp::Le => x <= y,
        Cmp::Gt => x > y,
        _ => x >= y,
    } as i64)
}

/// Whether `==` between registers of two types compares their numbers as they are (else
/// two values of those types are equal only when both are none).
pub fn raw_equal(a: Ty, b: Ty) -> bool {
    a == b
        || matches!(
            (a, b),
            (Ty::Comp(_), Ty::Comp(_)) | (Ty::Zone(_), Ty::Zone(_))
        )
}

/// `not a` (none fails).
#[inline]
pub fn not(a: i64) -> Result<i64, Fail> {
    match a {
        0 => Ok(1),
        1 => Ok(0),
        _ => Err(Fail::NoneValue),
    }
}

/// `0 <= k < n`, else an index failure.
#[inline]
pub fn below(k: i64, n: u64) -> Result<i64, Fail> {
    if (k as u64) < n {
        Ok(k)
    } else {
        Err(Fail::Index)
    }
}

/// The class of component `c` ([`Inst::Class`]).
pub fn class_of(g: &Game, c: u32) -> u32 {
    match g.program.twins.get(c as usize) {
        Some(crate::ir::vm::Twin::Class(k)) => *k,
        _ => c,
    }
}
