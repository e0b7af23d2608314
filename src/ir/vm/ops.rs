//! The ops of compiled expressions and their operands: reads of variables and zones, fast
//! forms of comparisons (`FastCmp`), zone loops walked in place (`ZoneWalk`), and the
//! operands of the aggregates that walk a board (rays, paths, lines, connection, best sets,
//! majorities).

use super::*;

/// One operation of the stack machine (8 bytes). Jumps are absolute positions in
/// [`Program::ops`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op {
    /// Push a small number (larger ones are literals).
    Int(i32),
    /// Push a value from the literal pool ([`Program::lits`]).
    Lit(u32),
    /// Push `none`.
    None,
    /// Push a local slot.
    Local(u16),
    /// Push `me`.
    Me,
    /// Push `current` (or `none`).
    Current,
    /// Push the number of players.
    PlayerCount,
    /// Push a constant (as the variant in play sets it).
    Const(ConstId),
    /// Push the variable slot `n` (a variable without index, or with constant indexes).
    Slot(u32),
    /// Pop the indexes of a variable (one per dimension), push the value.
    Var(VarId),
    /// Push `var[a, b]` read from two locals ([`Program::var2s`]).
    Var2(u32),
    /// Push `var[local]` (a variable of one dimension indexed by a local).
    VarLocal(VarId, u16),
    /// Push `var[me]` (a variable of one dimension indexed by `me`).
    VarMe(VarId),
    /// Push the zone instance `n` (a zone without index, or with constant indexes).
    Inst(InstId),
    /// Pop the indexes of a zone (one per dimension), push the zone instance.
    Zone(ZoneId),
    /// Push `zone[local]` (a zone of one dimension indexed by a local).
    ZoneLocal(ZoneId, u16),
    /// Push `zone[me]` (a zone of one dimension indexed by `me`).
    ZoneMe(ZoneId),
    /// Push `zone[me, local]` (a zone of two dimensions, the second indexed by a local).
    ZoneMeLocal(ZoneId, u16),
    /// Push `zone[a, b]` read from two locals ([`Program::zone2s`]).
    Zone2(u32),
    /// Pop a component, push one of its fields (by index in its type).
    Field(u16),
    /// Push a field of the component in a local slot.
    LocalField(u16, u16),
    /// `not`.
    Not,
    /// `-x`.
    Neg,
    /// Pop two, push the result; arithmetic fails on overflow and division by zero.
    Bin(BinOp),
    /// Pop a value, push whether it is `none` (`x == none`).
    IsNone,
    /// Pop a value, push whether it is not `none` (`x != none`).
    NotNone,
    /// Pop a value, push whether it is `me`.
    IsMe,
    /// Push the result of a comparison of two simple operands ([`Program::cmps`]).
    Cmp(u32),
    /// Continue at a position.
    Jump(u32),
    /// Pop a flag; continue at the position when it is false.
    JumpIfNot(u32),
    /// `and`: when the flag on top is false, keep it and continue at the position; else pop it.
    AndJump(u32),
    /// `or`: when the flag on top is true, keep it and continue at the position; else pop it.
    OrJump(u32),
    /// When the value on top is not `none`, continue at the position (keep it); else pop it
    /// and go on (to the `else` value of `max`, `min` or `first`).
    ElseJump(u32),
    /// Drop the value on top.
    Pop,
    /// Pop a value into a local slot (an argument of a function compiled in place of its
    /// call, evaluated once).
    SetLocal(u16),
    /// A built-in function on the values on top (one, or two for `max`/`min`).
    Builtin(Builtin),
    /// Call a function: pop its arguments, push its value.
    Call(DefId),
    /// `after a(args): body` ([`Program::afters`]): pop the arguments and `me`, run the
    /// action's effect on a copy of the state, evaluate the body (the ops just after this
    /// one) there, push its value and go on after the body.
    After(u32),
    /// Pop a zone instance, push an iterator over its components, bottom to top.
    IterZone,
    /// [`Op::IterZone`] whose loop (the `IterNext` after it) has a shape the machine walks
    /// in place, without running the loop's ops per component ([`Program::zone_walks`]).
    ZoneWalk(u32),
    /// Pop `b` then `a`, push an iterator over `a..b`.
    IterRange,
    /// Push an iterator over the spaces of a board.
    IterBoard(BoardId),
    /// Push an iterator over the values of an enum.
    IterEnum(EnumId),
    /// Push an iterator over the components of a type.
    IterType(TypeId),
    /// Push an iterator over the seats in play.
    IterPlayers,
    /// Pop `n` values, push an iterator over them in the order they were pushed.
    IterList(u16),
    /// Pop a space (or `none`), push an iterator over its neighbours.
    IterAdjacent,
    /// Pop a direction and a space (or `none`), push an iterator over the ray from the space.
    IterRay,
    /// Pop the directions ([`RaysOp::dirs`] of them) and the start space; push an iterator
    /// over the rays ([`Program::rays`]).
    IterRays(u32),
    /// Pop the number of steps and the start space; push an iterator over the ends of the
    /// paths ([`Program::paths`]).
    IterPaths(u32),
    /// Pop the start space; push an iterator over its group ([`Program::groups`]).
    IterGroup(u32),
    /// Push an iterator over the first space of every group ([`Program::groups`]).
    IterGroups(u32),
    /// Advance the top iterator into a local slot; when it is done, drop it and continue at
    /// `exit`. Each element costs one unit of fuel.
    IterNext {
        /// The local the element is written to.
        slot: u16,
        /// Where to continue when the iterator is done.
        exit: u32,
    },
    /// Drop the top iterator (leaving a loop early).
    IterEnd,
    /// Add one to the number on top.
    AccCount,
    /// Pop a number, add it to the number on top.
    AccSum,
    /// Pop a number; keep the larger (or smaller) of it and the value on top (`none` at first).
    AccMax(bool),
    /// Pop the optional space and the length, push whether a line holds
    /// ([`Program::lines`]).
    Line(u32),
    /// Drain the top iterator into a pool, push the best total of sets
    /// ([`Program::best_sets`]).
    BestSets(u32),
    /// Push whether two kinds of spaces are connected ([`Program::connects`]).
    Connected(u32),
    /// Pop the player and the points, walk the top iterator of players, push that player's
    /// share of a majority ([`Program::majorities`]).
    Majority(u32),
    /// An expression of a procedure that may run as native code ([`Program::natives`]): when
    /// the native code serves it, its value is pushed and the ops that compute it (the
    /// entry's `len` ops after this one) are passed over; otherwise nothing is done and
    /// they run.
    Native(u32),
    /// Pop a value and walk the components of field index `i` ([`Program::field_indexes`])
    /// whose indexed field holds it, in the order of their type's list (every component of
    /// the type when the value has no index code).
    IterIndexed(u32),
}

impl Op {
    /// Whether the op walks a collection or calls a function (code without such ops is
    /// cheap, a fixed number of steps).
    pub fn walks(&self) -> bool {
        matches!(
            self,
            Op::Call(_)
                | Op::IterNext { .. }
                | Op::Line(_)
                | Op::BestSets(_)
                | Op::Connected(_)
                | Op::Majority(_)
                | Op::IterPaths(_)
                | Op::IterGroup(_)
                | Op::IterGroups(_)
        )
    }
}

/// Something a comparison reads without going through the stack.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Operand {
    /// A local slot.
    Local(u16),
    /// `me`.
    Me,
    /// `none`.
    None,
    /// A small number.
    Int(i32),
    /// A literal of the pool.
    Lit(u32),
    /// A constant.
    Const(ConstId),
    /// A variable slot.
    Slot(u32),
    /// `var[local]` of a variable of one dimension: its first slot, the dimension's size and
    /// the local.
    VarAt {
        /// The variable's first slot.
        base: u32,
        /// The size of its dimension.
        size: u16,
        /// The local holding the index.
        slot: u16,
    },
    /// A field of the component in a local.
    LocalField(u16, u16),
    /// How many components a zone instance holds (`count(z)`; `empty(z)` is `count(z) == 0`).
    ZoneLen(ZoneAt),
    /// A field of the top component of a zone instance, `none` when it is empty (the idiom
    /// `if empty(z) then none else top(z).f`).
    TopField(ZoneAt, u16),
    /// `var[a, b]` of a variable of two dimensions indexed by two locals
    /// ([`Program::var2s`]).
    Var2(u32),
}

/// `var[a, b]`: a variable of two dimensions indexed by two locals.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Var2 {
    /// The variable.
    pub var: VarId,
    /// Its first slot.
    pub base: u32,
    /// The sizes of its dimensions.
    pub sizes: [u32; 2],
    /// The locals holding the indexes.
    pub slots: [u16; 2],
}

/// A zone instance a comparison reads without the stack.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ZoneAt {
    /// A fixed instance (a zone without index, or with constant indexes).
    Inst(InstId),
    /// `zone[local]` of a zone of one dimension.
    Local {
        /// The zone's first instance.
        base: u32,
        /// The size of the zone's dimension.
        size: u16,
        /// The local holding the index.
        slot: u16,
    },
    /// `zone[a, b]` of a zone of two dimensions indexed by two locals
    /// ([`Program::zone2s`]).
    Local2(u32),
}

/// `zone[a, b]`: a zone of two dimensions indexed by two locals.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Zone2 {
    /// The zone (for the message of an index out of range).
    pub zone: ZoneId,
    /// The zone's first instance.
    pub base: u32,
    /// The sizes of its dimensions.
    pub sizes: [u32; 2],
    /// The locals holding the indexes.
    pub slots: [u16; 2],
}

/// `a op b` on two simple operands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cmp {
    /// A comparison: `==`, `!=`, `<`, `<=`, `>`, `>=`.
    pub op: BinOp,
    /// The left side.
    pub a: Operand,
    /// The right side.
    pub b: Operand,
}

const _: () = assert!(std::mem::size_of::<Op>() == 8);

/// `var[local]` of a variable of one dimension ([`Operand::VarAt`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct At {
    /// The variable's first slot.
    pub base: u32,
    /// The size of its dimension.
    pub size: u16,
    /// The local holding the index.
    pub slot: u16,
}

/// A comparison of a common shape, found when the program is finished
/// ([`Program::fast`]): read with one dispatch and no general value in between. `ne`: the
/// comparison is `!=`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[allow(missing_docs)]
pub enum FastCmp {
    /// `var[local] == me`.
    AtMe { at: At, ne: bool },
    /// `var[local] == none`.
    AtNone { at: At, ne: bool },
    /// `var[local] == var[local]`.
    AtAt { a: At, b: At, ne: bool },
    /// `var[local] op n`, `op` a comparison and `n` a small number: true only when the
    /// variable holds a number (`==` and `!=` against anything else are left to the
    /// general path).
    AtInt { at: At, n: i32, op: BinOp },
    /// `count(z) op n` (and `empty(z)`, which is `count(z) == 0`) for a zone without index
    /// or indexed by one local.
    LenInt { z: ZoneAt, n: i32, op: BinOp },
    /// The top component's field of a zone without index or indexed by one local (`none`
    /// when the zone is empty, [`Operand::TopField`]) against a local: `face(s) == f`.
    TopLocal { z: ZoneAt, f: u16, l: u16, ne: bool },
    /// The same against a literal of the pool: `face(s) == blue`.
    TopLit {
        z: ZoneAt,
        f: u16,
        lit: u32,
        ne: bool,
    },
    /// The same against a variable without index (a slot): `face(s) == rolled`.
    TopSlot {
        z: ZoneAt,
        f: u16,
        slot: u32,
        ne: bool,
    },
    /// A variable without index (a slot) against a literal of the pool: `rolled == wild`.
    SlotLit { slot: u32, lit: u32, ne: bool },
    /// A field of the component in a local against a literal of the pool:
    /// `card.kind == number`.
    FieldLit { l: u16, f: u16, lit: u32, ne: bool },
    /// A field of the component in a local against a small number: `true` only when the
    /// field holds a number (`==` and `!=` against anything else are left to the general
    /// path), as [`FastCmp::AtInt`]: `o.markers > 0`.
    FieldInt { l: u16, f: u16, n: i32, op: BinOp },
    /// A local against a literal of the pool: `way == pull`.
    LocalLit { l: u16, lit: u32, ne: bool },
    /// A local against a small number, as [`FastCmp::FieldInt`]: `n > 0`.
    LocalInt { l: u16, n: i32, op: BinOp },
    /// Any other shape.
    Other,
}

impl FastCmp {
    /// The fast form of a comparison, if it has one.
    pub fn of(c: &Cmp) -> FastCmp {
        if let (Operand::VarAt { base, size, slot }, Operand::Int(n)) = (c.a, c.b) {
            return FastCmp::AtInt {
                at: At { base, size, slot },
                n,
                op: c.op,
            };
        }
        if let (Operand::ZoneLen(z @ (ZoneAt::Inst(_) | ZoneAt::Local { .. })), Operand::Int(n)) =
            (c.a, c.b)
        {
            return FastCmp::LenInt { z, n, op: c.op };
        }
        match (c.a, c.b) {
            (Operand::LocalField(l, f), Operand::Int(n)) => {
                return FastCmp::FieldInt { l, f, n, op: c.op }
            }
            (Operand::Local(l), Operand::Int(n)) => return FastCmp::LocalInt { l, n, op: c.op },
            _ => {}
        }
        let ne = match c.op {
            BinOp::Eq => false,
            BinOp::Ne => true,
            _ => return FastCmp::Other,
        };
        let at = |o: Operand| match o {
            Operand::VarAt { base, size, slot } => Some(At { base, size, slot }),
            _ => None,
        };
        if let Operand::TopField(z @ (ZoneAt::Inst(_) | ZoneAt::Local { .. }), f) = c.a {
            return match c.b {
                Operand::Local(l) => FastCmp::TopLocal { z, f, l, ne },
                Operand::Lit(lit) => FastCmp::TopLit { z, f, lit, ne },
                Operand::Slot(slot) => FastCmp::TopSlot { z, f, slot, ne },
                _ => FastCmp::Other,
            };
        }
        match (c.a, c.b) {
            (Operand::Slot(slot), Operand::Lit(lit)) => return FastCmp::SlotLit { slot, lit, ne },
            (Operand::LocalField(l, f), Operand::Lit(lit)) => {
                return FastCmp::FieldLit { l, f, lit, ne }
            }
            (Operand::Local(l), Operand::Lit(lit)) => return FastCmp::LocalLit { l, lit, ne },
            _ => {}
        }
        match (at(c.a), at(c.b), c.b) {
            (Some(at), _, Operand::Me) => FastCmp::AtMe { at, ne },
            (Some(at), _, Operand::None) => FastCmp::AtNone { at, ne },
            (Some(a), Some(b), _) => FastCmp::AtAt { a, b, ne },
            _ => FastCmp::Other,
        }
    }
}

/// The loop of an [`Op::ZoneWalk`]: its head (`IterNext`) is the op after the walk's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ZoneWalk {
    /// The local each component is written to.
    pub slot: u16,
    /// Where the loop goes on when the zone is walked to its end.
    pub exit: u32,
    /// What the loop does with each component.
    pub kind: WalkKind,
}

/// The loop shapes a [`ZoneWalk`] runs in place.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WalkKind {
    /// One comparison (`Cmp` right after the head) and a branch on it (`JumpIfNot(other)`):
    /// the loops of `count`, `any` and `all` with one comparison. Where each answer leads:
    /// 0 back to the head (at once or through a `Jump` to it), 1 back through `AccCount`
    /// and such a jump, 2 elsewhere (the op after the branch when it holds, `other` when not).
    Branch {
        /// The comparison ([`Program::cmps`]).
        cmp: u32,
        /// The branch's target when the comparison does not hold.
        other: u32,
        /// Where a true answer leads.
        on_true: u8,
        /// Where a false answer leads.
        on_false: u8,
    },
    /// `LocalField` of the component, then `AccSum` or `AccMax` (`sum`, `max`, `min` of a
    /// field), then a `Jump` back to the head.
    Fold {
        /// The field read.
        field: u16,
        /// `None` for a sum, else `max` (true) or `min` (false).
        max: Option<bool>,
    },
}

impl ZoneWalk {
    /// The walk of the loop whose head is at `head` in `ops`, when it has a foreseen shape.
    pub fn of(ops: &[Op], head: u32) -> Option<ZoneWalk> {
        let at = |x: u32| ops.get(x as usize).copied();
        let Some(Op::IterNext { slot, exit }) = at(head) else {
            return None;
        };
        // The loop's ops lie between its head and its exit (an inner loop, whose exit is
        // the head of the loop around it, is left to the ops).
        if exit <= head + 3 {
            return None;
        }
        let kind = match (at(head + 1), at(head + 2), at(head + 3)) {
            (Some(Op::Cmp(cmp)), Some(Op::JumpIfNot(other)), _) if other <= exit => {
                let lead = |x: u32| match (at(x), at(x + 1)) {
                    _ if x == head => 0u8,
                    (Some(Op::Jump(h)), _) if h == head => 0,
                    (Some(Op::AccCount), Some(Op::Jump(h))) if h == head => 1,
                    _ => 2,
                };
                let (on_true, on_false) = (lead(head + 3), lead(other));
                if on_true == 2 && on_false == 2 {
                    return None;
                }
                WalkKind::Branch {
                    cmp,
                    other,
                    on_true,
                    on_false,
                }
            }
            (Some(Op::LocalField(l, field)), Some(acc), Some(Op::Jump(h)))
                if l == slot && h == head =>
            {
                let max = match acc {
                    Op::AccSum => None,
                    Op::AccMax(m) => Some(m),
                    _ => return None,
                };
                WalkKind::Fold { field, max }
            }
            _ => return None,
        };
        Some(ZoneWalk { slot, exit, kind })
    }
}

/// `ray(s, [d, ...])`, `ray(t in board, s, d where cond)`, `ray(t in board, s, d until cond)`.
#[derive(Clone, Debug)]
pub struct RaysOp {
    /// How many directions were pushed after the start space.
    pub dirs: u16,
    /// The local `t` is bound to while `cond` is tested.
    pub slot: u16,
    /// Where a ray stops ([`crate::ir::RayStop`]).
    pub cond: Option<Code>,
    /// `until`: the first space meeting `cond` is taken and ends the ray; otherwise the
    /// first space failing it ends the ray, untaken.
    pub until: bool,
}

/// `paths(s in board, from, n where cond)`.
#[derive(Clone, Debug)]
pub struct PathsOp {
    /// The board.
    pub board: BoardId,
    /// The local `s` is bound to while `cond` is tested.
    pub slot: u16,
    /// What every entered space must meet.
    pub cond: Option<Code>,
    /// `cond` split at `and`, in order, when some parts do not read `s`: (part, fixed). A
    /// fixed part is evaluated at most once per evaluation of the collection (it gives the
    /// same answer at every space). Empty: `cond` is tested whole.
    pub parts: Vec<(Code, bool)>,
    /// For `group`: the other locals `cond` reads (besides `slot`); while they, `me`,
    /// `current` and the game are unchanged, a space's answer is the same from one group
    /// to the next.
    pub reads: Vec<u16>,
}

/// `line(s in board, n [, at] where cond)`.
#[derive(Clone, Debug)]
pub struct LineOp {
    /// The board.
    pub board: BoardId,
    /// The local `s` is bound to while `cond` is tested.
    pub slot: u16,
    /// What every space of the line must meet.
    pub cond: Option<Code>,
    /// Whether a space the line must pass through was given.
    pub through: bool,
}

/// An expression of a procedure (a condition, a value assigned or let) that walks a
/// collection, compiled to native code with the game's other native code
/// (`lir::listing`): [`Op::Native`].
#[derive(Clone, Debug)]
pub struct NativeExpr {
    /// The expression.
    pub expr: crate::ir::Expr,
    /// The locals it reads (bound outside it), each with the type the procedure gives it.
    pub params: Vec<(u16, crate::ir::Type)>,
    /// The number of ops after [`Op::Native`] that compute it the engine's way.
    pub len: u32,
}

/// `connected(s in board, A, B where cond)`.
#[derive(Clone, Debug)]
pub struct ConnectOp {
    /// The board.
    pub board: BoardId,
    /// The local `s` is bound to while the conditions are tested.
    pub slot: u16,
    /// Where the flood starts: spaces meeting this (and `cond`).
    pub from: Code,
    /// When `from` is `s == e` (with `e` not reading `s`): `e`, the only start space, so the
    /// board need not be scanned for starts.
    pub seed: Option<Code>,
    /// Where it must arrive: a space meeting this (and `cond`).
    pub to: Code,
    /// What every space of the way must meet.
    pub cond: Option<Code>,
}

/// `best_sets(c in C where f, kinds...)`.
#[derive(Clone, Debug)]
pub struct BestSetsOp {
    /// The kinds of sets to form.
    pub sets: Vec<SetId>,
    /// The local the pool's elements are bound to while `filter` is tested.
    pub slot: u16,
    /// Which elements join the pool.
    pub filter: Option<Code>,
}

/// `majority(q in C where filter, points, p: value)`.
#[derive(Clone, Debug)]
pub struct MajorityOp {
    /// The local `q` is bound to while the filter and the value are computed.
    pub slot: u16,
    /// Which players take part.
    pub filter: Option<Code>,
    /// Each player's value.
    pub value: Code,
}
