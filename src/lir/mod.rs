//! The low-level IR (issue 36, step 2): functions of blocks of three-address instructions
//! over typed registers, with unboxed values.
//!
//! Every register holds an `i64` at run time; its [`Ty`] says what the number means:
//! a number (`i64`, none is [`INT_NONE`]), a truth value (0 or 1, none is [`BOOL_NONE`]), or an
//! id (a seat, an enum value's position, a component, a space, a zone instance or an action:
//! a `u32`, none is [`ID_NONE`]). A register is defined once (a parameter of the function, a
//! block's parameter or an instruction) and read only where its definition dominates the read;
//! values meet at joins as block arguments, not phi nodes, as in Cranelift's IR, so that the
//! form is straight to interpret and to hand to a code generator ([`verify`] checks all this).
//! Numbers are 64-bit, with −2^63 standing for none: a result of exactly −2^63 is an overflow
//! here (the reference allows it), the one value the unboxed form cannot hold.
//!
//! What is here: the form ([`Func`]), its verifier ([`verify`]), lowering of the IR's
//! expressions ([`lower`]: a subset, the rest refused with the reason), a register interpreter
//! ([`interp`]) and passes ([`passes`]: constant folding with the facts of a match, dead-code
//! elimination). The engine does not run it yet; the oracle compares it with the reference
//! evaluator (`reference::lir`).

pub mod interp;
#[cfg(feature = "jit")]
pub mod jit;
pub mod listing;
pub mod lower;
pub mod passes;
pub mod rt;
pub mod rust;
pub mod verify;

use crate::ir::{BoardId, ConstId, EnumId, Type, TypeId, Value, VarId};
use std::fmt;

/// A register of a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(pub u32);

/// A block of a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

/// `none` of a number.
pub const INT_NONE: i64 = i64::MIN;
/// `none` of a truth value.
pub const BOOL_NONE: i64 = 2;
/// `none` of an id.
pub const ID_NONE: i64 = u32::MAX as i64;

/// What a register's number means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// A number.
    Int,
    /// A truth value.
    Bool,
    /// A seat.
    Player,
    /// A value of an enum: its position.
    Enum(EnumId),
    /// A component of a type: its id.
    Comp(TypeId),
    /// A space of a board: its index.
    Space(BoardId),
    /// A zone instance holding components of a type.
    Zone(TypeId),
}

impl Ty {
    /// The register type of an IR type; `None` for what has no unboxed form yet (actions,
    /// values whose type the checker could not tell).
    pub fn of(t: Type) -> Option<Ty> {
        Some(match t {
            Type::Int => Ty::Int,
            Type::Bool => Ty::Bool,
            Type::Player => Ty::Player,
            Type::Enum(e) => Ty::Enum(e),
            Type::Comp(c) => Ty::Comp(c),
            Type::Space(b) => Ty::Space(b),
            Type::Zone(c) => Ty::Zone(c),
            Type::Action(_) | Type::Any => return None,
        })
    }

    /// The number that stands for `none`.
    pub fn none(self) -> i64 {
        match self {
            Ty::Int => INT_NONE,
            Ty::Bool => BOOL_NONE,
            _ => ID_NONE,
        }
    }

    /// A value as a number of this type; `None` when the value is not of it.
    pub fn encode(self, v: Value) -> Option<i64> {
        Some(match (self, v) {
            (t, Value::None) => t.none(),
            (Ty::Int, Value::Int(n)) if n != INT_NONE => n,
            (Ty::Bool, Value::Bool(b)) => b as i64,
            (Ty::Player, Value::Player(p)) => p as i64,
            (Ty::Enum(e), Value::Enum(f, i)) if e == f => i as i64,
            (Ty::Comp(_), Value::Comp(c)) => c.0 as i64,
            (Ty::Space(b), Value::Space(c, s)) if b == c => s as i64,
            (Ty::Zone(_), Value::Zone(z)) => z.0 as i64,
            _ => return None,
        })
    }

    /// The value a number of this type stands for.
    pub fn decode(self, n: i64) -> Value {
        if n == self.none() {
            return Value::None;
        }
        match self {
            Ty::Int => Value::Int(n),
            Ty::Bool => Value::Bool(n != 0),
            Ty::Player => Value::Player(n as u8),
            Ty::Enum(e) => Value::Enum(e, n as u16),
            Ty::Comp(_) => Value::Comp(crate::ir::CompId(n as u32)),
            Ty::Space(b) => Value::Space(b, n as u32),
            Ty::Zone(_) => Value::Zone(crate::ir::InstId(n as u32)),
        }
    }
}

/// Checked arithmetic: overflow, division by zero and a negative power fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`, rounding down
    Div,
    /// `%`, never negative
    Mod,
    /// `^`
    Pow,
    /// `max(a, b)`
    Max,
    /// `min(a, b)`
    Min,
}

/// Built-in functions of one operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unary {
    /// `abs(n)` (overflow fails).
    Abs,
    /// `next(p)`, `prev(p)`: the seat after or before (failing on none or a seat not in play).
    Next,
    /// See [`Unary::Next`].
    Prev,
    /// `seat(n)`: the seat of a number (failing outside the seats in play).
    Seat,
    /// `ord(x)`: the position of an enum value or a seat (failing on none).
    Ord,
    /// `col(s)`, `row(s)`: a space's coordinates (none for none or a space without them).
    Col,
    /// See [`Unary::Col`].
    Row,
    /// `opposite(d)`: the opposite direction (none for none).
    Opposite,
}

/// Comparisons. `Eq` and `Ne` take any two registers (`none` equals only `none`); the order
/// comparisons take numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// Where the state is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read {
    /// `me`: the acting seat.
    Me,
    /// The current player, or none.
    Current,
    /// The number of seats.
    PlayerCount,
    /// A constant's value in this match (variants applied).
    Const(ConstId),
}

/// One instruction: it defines `dst` and reads the registers it names (the fields of each
/// variant are named as its description says).
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq)]
pub enum Inst {
    /// A number of `dst`'s type.
    Const { dst: Reg, value: i64 },
    /// A value of the match or the moment.
    Read { dst: Reg, what: Read },
    /// An entry of a variable; `index` the flat position (a number), checked against its
    /// slots; none for a variable without indexes.
    Var {
        dst: Reg,
        var: VarId,
        index: Option<Reg>,
    },
    /// The flat position of a variable's entry: `acc * size + pos(x)`, failing when `x` is
    /// none, negative or not below `size`.
    Index {
        dst: Reg,
        acc: Option<Reg>,
        x: Reg,
        size: u32,
    },
    /// A field of a component (failing on none).
    Field { dst: Reg, comp: Reg, field: u16 },
    /// Checked arithmetic on numbers (failing on none).
    Arith { dst: Reg, op: Arith, a: Reg, b: Reg },
    /// `-a` (failing on none and overflow).
    Neg { dst: Reg, a: Reg },
    /// A comparison.
    Cmp { dst: Reg, op: Cmp, a: Reg, b: Reg },
    /// `not a` (failing on none).
    Not { dst: Reg, a: Reg },
    /// A built-in function of one operand.
    Unary { dst: Reg, op: Unary, a: Reg },
    /// `step(space, direction)`: the space one step away, none off the board or onto a
    /// closed space (none for none).
    Step { dst: Reg, space: Reg, dir: Reg },
    /// The instance of a zone: `base` plus the flat position `index` (checked against the
    /// zone's instances).
    Zone {
        dst: Reg,
        zone: crate::ir::ZoneId,
        index: Option<Reg>,
    },
    /// What a zone instance holds: its number of components, whether it is empty, its top
    /// or bottom component (none when empty).
    Held { dst: Reg, what: Held, zone: Reg },
    /// Where a component lies: its zone instance, that instance's owner or space (none for
    /// none).
    Place { dst: Reg, what: Place, comp: Reg },
    /// The same number read as another type (a loop's counter as a seat or an enum value).
    Cast { dst: Reg, a: Reg },
    /// The `k`-th component of a zone instance from the bottom (`k` below its count).
    ZoneAt { dst: Reg, zone: Reg, k: Reg },
    /// Whether a space is out of play in this match (a closed space, 3.5.3 of the reference).
    Closed { dst: Reg, space: Reg },
    /// The `k`-th neighbour of a space, in the board's order and the adjacency in force
    /// (without closed spaces, none of a closed space); none when it has no more than `k`
    /// (or `space` is none).
    Near { dst: Reg, space: Reg, k: Reg },
    /// The first position `p` of a variable of one dimension, at or after `from` (from 0
    /// when negative), whose entry equals `value` (same type); the variable's number of
    /// entries when there is none. Never fails (an entry of another type is not equal).
    /// A loop over a binding with a guard part `var[x] == value` visits only those `x`.
    Seek {
        dst: Reg,
        var: VarId,
        value: Reg,
        from: Reg,
    },
    /// Whether a component looks the same to the acting seat as one below it in its zone
    /// (same type, equal fields, its secret fields seen on both: 3.4.1): of interchangeable
    /// components a choice offers the lowest (4.1).
    Twin { dst: Reg, comp: Reg },
    /// The class of a component: of the components that always look the same
    /// ([`crate::ir::vm::Twin::Class`]), the first by id; the component itself for any other.
    /// A component the game does not have fails.
    Class { dst: Reg, comp: Reg },
    /// Writes `a` as the next value of the options an enumerator lists (`dst`, a number,
    /// is 0): an option of an action of `n` parameters is `n` values written in order.
    Out { dst: Reg, a: Reg },
    /// Zeroes an area of the function's scratch words (`dst`, a number, is 0): an empty set
    /// or stack.
    Clear { dst: Reg, area: Area },
    /// Marks `x` (an id) in the set an area holds, one bit per id; `dst` (a truth value) is
    /// whether it was marked before. An id past the area's bits (or none) fails.
    Mark { dst: Reg, area: Area, x: Reg },
    /// Whether `x` (an id) is marked in the set an area holds (failing as [`Inst::Mark`]).
    Marked { dst: Reg, area: Area, x: Reg },
    /// The first id at or after `from` (from 0 when negative) marked in the set an area
    /// holds; the area's number of bits when there is none. Never fails. A loop over a
    /// group's members visits only them, in order, a word of the set at a time.
    NextMarked { dst: Reg, area: Area, from: Reg },
    /// Pushes `x` (an id) on the stack an area holds (its first word the number of entries,
    /// then the entries); `dst` (a number) is 0. A full stack fails ([`Fail::Limit`]).
    Push { dst: Reg, area: Area, x: Reg },
    /// Takes the top entry off the stack an area holds; none (of `dst`'s type, an id) when
    /// it is empty.
    Pop { dst: Reg, area: Area },
    /// Writes `x` into the first word of an area (`dst`, a number, is 0).
    Store { dst: Reg, area: Area, x: Reg },
    /// The first word of an area, as a number of `dst`'s type (what a [`Inst::Store`] wrote).
    Load { dst: Reg, area: Area },
    /// Writes `a` (of the variable's type) into an entry of a variable (`index` as for
    /// [`Inst::Var`]), in the state the function runs on; a number outside the variable's
    /// range fails, and so does an environment that lends nothing to write ([`rt::Writes`]).
    /// `dst` (a number) is 0.
    SetVar {
        dst: Reg,
        var: VarId,
        index: Option<Reg>,
        a: Reg,
    },
}

/// A run of the scratch words of a function ([`Func::scratch`]): where it starts, and how
/// many words it has. Sets and stacks of a walk (a group's members, the spaces to visit)
/// live there, for the time of one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Area {
    /// Its first word.
    pub at: u32,
    /// Its number of words.
    pub words: u32,
}

/// What [`Inst::Held`] reads of a zone instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Held {
    /// `count(z)`
    Count,
    /// `empty(z)`
    Empty,
    /// `top(z)`
    Top,
    /// `bottom(z)`
    Bottom,
}

/// What [`Inst::Place`] reads of a component's place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// `zone_of(c)`
    Zone,
    /// `owner(c)`
    Owner,
    /// `space_of(c)`
    Space,
}

impl Inst {
    /// The register defined.
    pub fn dst(&self) -> Reg {
        match *self {
            Inst::Const { dst, .. }
            | Inst::Read { dst, .. }
            | Inst::Var { dst, .. }
            | Inst::Index { dst, .. }
            | Inst::Field { dst, .. }
            | Inst::Arith { dst, .. }
            | Inst::Neg { dst, .. }
            | Inst::Cmp { dst, .. }
            | Inst::Not { dst, .. }
            | Inst::Unary { dst, .. }
            | Inst::Step { dst, .. }
            | Inst::Zone { dst, .. }
            | Inst::Held { dst, .. }
            | Inst::Place { dst, .. }
            | Inst::Cast { dst, .. }
            | Inst::ZoneAt { dst, .. }
            | Inst::Closed { dst, .. }
            | Inst::Near { dst, .. }
            | Inst::Seek { dst, .. }
            | Inst::Twin { dst, .. }
            | Inst::Class { dst, .. }
            | Inst::Out { dst, .. }
            | Inst::Clear { dst, .. }
            | Inst::Mark { dst, .. }
            | Inst::Marked { dst, .. }
            | Inst::NextMarked { dst, .. }
            | Inst::Push { dst, .. }
            | Inst::Pop { dst, .. }
            | Inst::Store { dst, .. }
            | Inst::Load { dst, .. }
            | Inst::SetVar { dst, .. } => dst,
        }
    }

    /// The registers read, in order.
    pub fn uses(&self, f: &mut impl FnMut(Reg)) {
        match *self {
            Inst::Const { .. }
            | Inst::Read { .. }
            | Inst::Clear { .. }
            | Inst::Pop { .. }
            | Inst::Load { .. } => {}
            Inst::Mark { x, .. }
            | Inst::Marked { x, .. }
            | Inst::Push { x, .. }
            | Inst::Store { x, .. }
            | Inst::NextMarked { from: x, .. } => f(x),
            Inst::Var { index, .. } => index.into_iter().for_each(f),
            Inst::Index { acc, x, .. } => {
                acc.into_iter().for_each(&mut *f);
                f(x)
            }
            Inst::Field { comp, .. } => f(comp),
            Inst::Arith { a, b, .. } | Inst::Cmp { a, b, .. } => {
                f(a);
                f(b)
            }
            Inst::Neg { a, .. } | Inst::Not { a, .. } | Inst::Unary { a, .. } => f(a),
            Inst::Step { space, dir, .. } => {
                f(space);
                f(dir)
            }
            Inst::Zone { index, .. } => index.into_iter().for_each(f),
            Inst::Held { zone, .. } => f(zone),
            Inst::Place { comp, .. } | Inst::Twin { comp, .. } | Inst::Class { comp, .. } => {
                f(comp)
            }
            Inst::Cast { a, .. } | Inst::Out { a, .. } => f(a),
            Inst::Closed { space, .. } => f(space),
            Inst::ZoneAt { zone, k, .. } => {
                f(zone);
                f(k)
            }
            Inst::Near { space, k, .. } => {
                f(space);
                f(k)
            }
            Inst::Seek { value, from, .. } => {
                f(value);
                f(from)
            }
            Inst::SetVar { index, a, .. } => {
                index.into_iter().for_each(&mut *f);
                f(a)
            }
        }
    }

    /// Whether it can fail, reads the state or reads or writes the scratch words: such an
    /// instruction stays even when nothing reads its result (a failure is part of what the
    /// function does).
    pub fn may_fail(&self) -> bool {
        !matches!(
            self,
            Inst::Const { .. } | Inst::Read { .. } | Inst::Cmp { .. }
        )
    }
}

/// A block's target and its arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// The block.
    pub block: BlockId,
    /// One register per parameter of the block.
    pub args: Vec<Reg>,
}

/// How a block ends.
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq)]
pub enum Term {
    /// Go on in another block.
    Jump(Target),
    /// On a truth value: true to the first, false to the second; none fails.
    Branch { cond: Reg, yes: Target, no: Target },
    /// The function's result.
    Return(Reg),
    /// The function fails (a range too long to list).
    Fail(Fail),
}

impl Term {
    /// The registers read.
    pub fn uses(&self, f: &mut impl FnMut(Reg)) {
        match self {
            Term::Jump(t) => t.args.iter().copied().for_each(f),
            Term::Branch { cond, yes, no } => {
                f(*cond);
                yes.args.iter().copied().for_each(&mut *f);
                no.args.iter().copied().for_each(f)
            }
            Term::Return(r) => f(*r),
            Term::Fail(_) => {}
        }
    }

    /// The blocks it may go to.
    pub fn targets(&self) -> Vec<BlockId> {
        match self {
            Term::Jump(t) => vec![t.block],
            Term::Branch { yes, no, .. } => vec![yes.block, no.block],
            Term::Return(_) | Term::Fail(_) => vec![],
        }
    }
}

/// A block: parameters, instructions, and how it ends.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// Registers the block's arguments are written to.
    pub params: Vec<Reg>,
    /// Its instructions, in order.
    pub insts: Vec<Inst>,
    /// How it ends.
    pub term: Term,
}

/// A function: its parameters (registers of the entry block's scope), the type of every
/// register, its blocks (the first is the entry) and the type of its result.
#[derive(Clone, Debug, PartialEq)]
pub struct Func {
    /// What it was lowered from (for messages).
    pub name: String,
    /// Its parameters, in order.
    pub params: Vec<Reg>,
    /// The type of every register, by number.
    pub regs: Vec<Ty>,
    /// Its blocks; the first is the entry.
    pub blocks: Vec<Block>,
    /// The type of its result.
    pub ret: Ty,
    /// The number of scratch words its areas use ([`Area`]), at most [`MAX_SCRATCH`].
    pub scratch: u32,
}

/// The most scratch words a function may use (64 KiB): a lowering that needs more is
/// refused, and the expression runs in the engine.
pub const MAX_SCRATCH: u32 = 8192;

impl Func {
    /// The type of a register.
    pub fn ty(&self, r: Reg) -> Ty {
        self.regs[r.0 as usize]
    }

    /// A new register of a type.
    pub fn reg(&mut self, t: Ty) -> Reg {
        self.regs.push(t);
        Reg(self.regs.len() as u32 - 1)
    }

    /// The number of instructions in all blocks.
    pub fn size(&self) -> usize {
        self.blocks.iter().map(|b| b.insts.len() + 1).sum()
    }
}

impl fmt::Display for Func {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let regs = |rs: &[Reg]| {
            rs.iter()
                .map(|r| format!("r{}", r.0))
                .collect::<Vec<_>>()
                .join(", ")
        };
        writeln!(
            f,
            "fn {}({}) -> {:?}",
            self.name,
            regs(&self.params),
            self.ret
        )?;
        for (i, b) in self.blocks.iter().enumerate() {
            writeln!(f, "b{i}({}):", regs(&b.params))?;
            for inst in &b.insts {
                writeln!(f, "    {inst:?}")?;
            }
            writeln!(f, "    {:?}", b.term)?;
        }
        Ok(())
    }
}

/// Why a function failed while it ran (the IR's run-time rule errors, without their text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fail {
    /// A number needed, `none` found (arithmetic, comparison, `not`, a branch).
    NoneValue,
    /// Overflow, division by zero, a negative power.
    Arithmetic,
    /// An index out of its variable's range, or none.
    Index,
    /// A field of none, or of a component without that field.
    Field,
    /// A value of the state that is not of the register's type.
    Type,
    /// More work than the budget allows.
    Fuel,
    /// A collection too large to list.
    Limit,
}
