//! The compiled program: every expression, collection and procedure of a game as flat code
//! over typed slots, built once when the file is checked (`check::compile`) and run by the
//! engine's machine. The expression trees of the IR stay for analysis and messages; the engine
//! runs only this.
//!
//! Expressions are code for a stack machine: each compiled expression leaves one value on the
//! stack; each compiled collection leaves one iterator on the iterator stack. Procedures are
//! [`Step`]s with explicit jumps, so a paused game is plain data.

use super::*;

/// A compiled expression or collection: the ops `start..end` of [`Program::ops`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Code {
    /// The first op.
    pub start: u32,
    /// Just past the last op.
    pub end: u32,
}

/// An `after a(args): body` expression ([`Op::After`]).
#[derive(Clone, Copy, Debug)]
pub struct CAfter {
    /// The action whose effect runs.
    pub action: ActionId,
    /// Its number of arguments (pushed before `me`).
    pub argc: u8,
    /// The body: the ops right after the [`Op::After`], evaluated in the state the effect
    /// leaves.
    pub body: Code,
}

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

/// A binding `x in C` of an action or a choice, compiled.
#[derive(Clone, Debug)]
pub struct CBind {
    /// The local slot written.
    pub slot: u16,
    /// The collection (leaves an iterator).
    pub coll: Code,
    /// Components of one zone with equal visible fields are offered once.
    pub dedup: bool,
    /// When the guard pins this binding to the spaces (or values) where an indexed variable
    /// holds a value, only those are listed: `pawn[from] == me` over `from in field`.
    pub narrow: Option<Narrow>,
    /// When the collection and the first guard parts tested once this binding is bound are
    /// fixed for the match (they read only earlier bindings, `me`, constants and variables
    /// only `setup` writes), the elements that pass them are listed once per key and
    /// remembered ([`Program::filters`]): `to in adjacent(from) where rank[to] == rank[from] + 1`.
    pub filter: Option<u32>,
    /// The first binding of [`COptions::scan`].
    pub scan: bool,
    /// The binding of [`COptions::same`].
    pub same: bool,
}

/// A binding's remembered lists: the key (the earlier bindings and `me` the collection and
/// the parts read) and the parts (guard parts tagged with this binding, [`Part::absorbed`]).
#[derive(Clone, Debug)]
pub struct FilterDef {
    /// The key of a list.
    pub key: MemoDef,
    /// The guard parts an element must pass to be listed.
    pub parts: Vec<Code>,
    /// Conditions answered per listed element (bit `i` for condition `i`, at most
    /// [`FilterDef::MAX_SPLITS`]): those of the `if` guard parts split by this list.
    pub splits: Vec<Code>,
}

impl FilterDef {
    /// The most conditions a remembered list answers per element.
    pub const MAX_SPLITS: usize = 32;
}

/// A binding narrowed by a variable's value index.
#[derive(Clone, Copy, Debug)]
pub struct Narrow {
    /// The variable, indexed by the binding's collection.
    pub var: VarId,
    /// The value it must hold (reads only earlier bindings).
    pub value: Code,
}

/// The options one arm of a choice lists: its bindings and the parts of its guard, each
/// tagged with the number of bindings it needs.
#[derive(Clone, Debug, Default)]
pub struct COptions {
    /// The bindings, in order.
    pub binds: Vec<CBind>,
    /// The guard split at `and`, in the order they are tested (grouped by [`Part::need`],
    /// in the guard's order within a group).
    pub parts: Vec<Part>,
    /// `parts[starts[k]..starts[k + 1]]` are the parts tested once `k` bindings are bound.
    pub starts: Vec<u32>,
    /// The whole guard (for "why not" answers).
    pub guard: Option<Code>,
    /// The last bindings walked over the instances of the zone they index, when the first
    /// part tested once they are bound is `not empty(zone[..])` of it.
    pub scan: Option<Scan>,
    /// A binding over a zone whose components the rest of the listing reads only through
    /// a few fields and comparisons: two that read the same there list the same options.
    pub same: Option<Same>,
}

/// A binding over a zone ([`Same::bind`]) that everything tested once it is bound (the later
/// parts, bindings, remembered lists) reads only through [`Same::reads`]: fields of its
/// component, and comparisons that read no other local. Nothing there calls a function or
/// walks a board (whose answers are remembered from one use to the next), so two components
/// that agree on these reads take the same path through the same code on one state: the
/// same options but for this parameter, at the same work, with the same errors.
#[derive(Clone, Debug)]
pub struct Same {
    /// The binding.
    pub bind: u16,
    /// What is read of its value (at most [`Same::MAX_READS`]).
    pub reads: Vec<SameRead>,
}

impl Same {
    /// The most reads a [`Same`] keeps.
    pub const MAX_READS: usize = 4;
}

/// A read of a [`Same`] binding's value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SameRead {
    /// Field `f` of the component.
    Field(u16),
    /// The answer of a comparison whose operands read no other local.
    Cmp {
        /// The comparison ([`Program::cmps`]).
        i: u32,
        /// Its op's position (for the span of an error).
        pc: u32,
    },
}

/// The last bindings of an action (from [`Scan::from`] on), each over an enum, the players
/// or a board, are the indexes, in order, of a zone whose emptiness leads the parts tested
/// once they are all bound (`act(p in Peninsula, t in Tile) where any(a in on[p, t] where
/// ..)`): their values are walked in the same order and at the same work, but an empty
/// instance is passed over in place, without binding and testing it.
#[derive(Clone, Debug)]
pub struct Scan {
    /// The first binding of the run (it goes on to the last).
    pub from: u16,
    /// The zone's first instance.
    pub base: u32,
    /// Per binding of the run: what it walks, and the distance between instances of the
    /// zone for one step of its value (the zone's later sizes multiplied).
    pub dims: Vec<(ScanDim, u32)>,
}

/// What a binding of a [`Scan`] walks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScanDim {
    /// The values of an enum.
    Enum(EnumId),
    /// The seats of the match.
    Players,
    /// The spaces of a board, closed ones passed over.
    Board(BoardId),
}

/// One part of a guard.
#[derive(Clone, Copy, Debug)]
pub struct Part {
    /// How many of the bindings it reads (it is tested once they are bound).
    pub need: u16,
    /// The condition.
    pub code: Code,
    /// When it reads only bindings, `me`, constants and variables that only `setup` writes,
    /// its answers are remembered ([`Program::memos`]).
    pub memo: Option<u32>,
    /// Tested when the binding it needs is listed from a remembered list
    /// ([`CBind::filter`]): the list holds only elements that pass it.
    pub absorbed: bool,
    /// `if c then a else b` whose condition `c` the remembered list of the binding it needs
    /// answers per element ([`FilterDef::splits`]): on an element of that list, only the
    /// branch `c` chose is tested.
    pub split: Option<Split>,
}

/// A guard part `if c then a else b` split by a remembered list's answer to `c`.
#[derive(Clone, Copy, Debug)]
pub struct Split {
    /// The bit of the list's answers that holds `c`.
    pub bit: u8,
    /// `a`.
    pub then: Code,
    /// `b`.
    pub other: Code,
}

/// The key of a remembered guard part: the bindings it reads (local slot, number of values)
/// and whether it reads `me`.
#[derive(Clone, Debug)]
pub struct MemoDef {
    /// The bindings read, with the size of their domains.
    pub keys: Vec<(u16, u32)>,
    /// Whether `me` is part of the key (up to the most seats).
    pub me: bool,
    /// The number of answers: the product of the domains.
    pub entries: u32,
}

/// A compiled `choose`.
#[derive(Clone, Debug)]
pub struct CChoice {
    /// `by p`.
    pub by: Option<Code>,
    /// `choose each p in C`: the players' collection and the slot `p` is bound to.
    pub each: Option<(Code, u16)>,
    /// Per arm: the inline options' bindings and guards (`None` for an action, whose options
    /// are in [`Program::actions`]).
    pub arms: Vec<Option<COptions>>,
}

/// Something a value is assigned or rolled to.
#[derive(Clone, Copy, Debug)]
pub enum Target {
    /// A local slot.
    Local(u16),
    /// A variable; `index` pushes its indexes (one per dimension; empty code without index).
    Var {
        /// The variable.
        var: VarId,
        /// Its indexes.
        index: Code,
    },
    /// A field of a component.
    Field {
        /// The component.
        comp: Code,
        /// The field, by index in the component's type.
        field: u16,
    },
}

/// One step of a compiled procedure (see [`Instr`], which it mirrors).
#[derive(Clone, Debug)]
pub enum Step {
    /// `let x = e`.
    Let(u16, Code, Span),
    /// `t = e`, `+=`, `-=`.
    Assign {
        /// What is assigned.
        target: Target,
        /// `=`, `+=` or `-=`.
        op: AssignOp,
        /// The value.
        value: Code,
        /// The statement.
        span: Span,
    },
    /// `move c to [bottom of] z`.
    Move {
        /// The component.
        what: Code,
        /// The zone.
        to: Code,
        /// To the bottom.
        bottom: bool,
        /// The statement.
        span: Span,
    },
    /// `deal n from a to [bottom of] b`.
    Deal {
        /// How many (`None`: all).
        count: Option<Code>,
        /// From this zone.
        from: Code,
        /// To this zone.
        to: Code,
        /// To the bottom.
        bottom: bool,
        /// The statement.
        span: Span,
    },
    /// `shuffle z`.
    Shuffle {
        /// The zone.
        zone: Code,
        /// The statement.
        span: Span,
    },
    /// `roll x [in C]`.
    Roll {
        /// What receives the value.
        target: Target,
        /// The possible values (a collection).
        domain: Code,
        /// The statement.
        span: Span,
    },
    /// Continue at a step.
    Jump(u32),
    /// Continue at the step when the condition is false.
    JumpIfNot(Code, u32, Span),
    /// Take the elements of a collection for a `for` loop (three locals from `slot`).
    ForInit {
        /// The collection.
        coll: Code,
        /// The loop's first local.
        slot: u16,
        /// The loop.
        span: Span,
    },
    /// The next element, or leave the loop.
    ForNext {
        /// The loop's first local.
        slot: u16,
        /// The local of the loop's name.
        var: u16,
        /// Where the loop ends.
        exit: u32,
    },
    /// A filtered loop's head (`for x in C { if cond { .. } }`, the `if` without `else` and
    /// the whole body): [`Step::ForNext`] fused with the [`Step::JumpIfNot`] that follows it
    /// (left in place), the elements whose condition fails skipped in the step. Each skipped
    /// element charges the units of work of the steps it stands for (the test, the loop's
    /// `LoopGuard`, its `Jump` back and the next `ForNext`), so the work counted is the same
    /// as unfused. An element whose condition holds continues two steps on, after the test.
    ForNextIf {
        /// The loop's first local.
        slot: u16,
        /// The local of the loop's name.
        var: u16,
        /// Where the loop ends.
        exit: u32,
        /// The condition (the `if`'s).
        cond: Code,
        /// The condition's span.
        span: Span,
        /// The loop's span (its `LoopGuard`'s).
        guard: Span,
    },
    /// Drop the loop's elements.
    ForDone {
        /// The loop's first local.
        slot: u16,
    },
    /// Wait at a choice.
    Choose(ChoiceId),
    /// Run the next seat's committed option of a `choose each`.
    SimNext(ChoiceId),
    /// `simultaneous p in C {`: start the players' private parts (`engine::simul`).
    Simul {
        /// The players.
        coll: Code,
        /// The local of the player's name.
        slot: u16,
        /// Where the body ends (its `SimulEnd`).
        end: u32,
        /// The statement.
        span: Span,
    },
    /// The end of a simultaneous block's body.
    SimulEnd,
    /// `do action(args)`.
    Do {
        /// The action.
        action: ActionId,
        /// Its arguments.
        args: Vec<Code>,
        /// The statement.
        span: Span,
    },
    /// `do x.effect(args)`.
    DoField {
        /// The field holding the action.
        target: Code,
        /// Its arguments.
        args: Vec<Code>,
        /// The statement.
        span: Span,
    },
    /// `turn p {`.
    TurnStart {
        /// The player.
        player: Code,
        /// The local that keeps the previous current player.
        save: u16,
        /// The statement.
        span: Span,
    },
    /// `}` of a turn.
    TurnEnd {
        /// The local its start saved the previous current player in.
        save: u16,
    },
    /// `end`, `end draw`, `end lose`.
    End(EndKind),
    /// `win p`.
    Win {
        /// The winner (`none`: everybody).
        who: Code,
        /// The statement.
        span: Span,
    },
    /// `reveal` or `hide`.
    Reveal {
        /// The component.
        comp: Code,
        /// The field.
        field: u16,
        /// Reveal (true) or hide (false).
        on: bool,
        /// The statement.
        span: Span,
    },
    /// `reveal z` or `hide z` of a zone instance.
    RevealZone {
        /// The zone instance.
        zone: Code,
        /// Reveal (true) or hide (false).
        on: bool,
        /// The statement.
        span: Span,
    },
    /// `remember m`: the values of the memory's parts are added to it.
    Remember {
        /// The memory ([`crate::ir::Game::memories`]).
        memory: u16,
        /// Its parts, each evaluated to one value.
        parts: Vec<Code>,
        /// The statement.
        span: Span,
    },
    /// `forget m`: the memory is emptied.
    Forget {
        /// The memory.
        memory: u16,
    },
    /// `reveal c.f to p`.
    RevealTo {
        /// The component.
        comp: Code,
        /// The field.
        field: u16,
        /// The player.
        to: Code,
        /// The statement.
        span: Span,
    },
    /// A window point (see [`crate::ir::Instr::Window`]).
    Window(bool),
    /// A loop's back edge: the span blamed when the work budget runs out.
    LoopGuard {
        /// The loop.
        span: Span,
    },
}

/// A compiled function or set kind.
#[derive(Clone, Debug, Default)]
pub struct CDef {
    /// Parameters, bound to locals `0..params`.
    pub params: u16,
    /// Locals its body needs.
    pub locals: u16,
    /// The body.
    pub body: Code,
    /// Whether its results are worth remembering while one state's options are listed
    /// ([`crate::engine`]'s call cache): its body walks a collection or calls a function.
    pub remember: bool,
    /// Whether its value may depend on `me`: its body (or a function or set kind it uses)
    /// reads `me`. A remembered result of a function that does not serves every player.
    pub reads_me: bool,
    /// The families of the state its value may depend on ([`Family`]), one bit each: a
    /// remembered result stays valid, from one decision to the next, while none of them is
    /// written. All bits: it may read anything (its results serve one listing only).
    pub reads: u64,
}

/// An action's first parameter over one zone instance fixed by the seat
/// ([`Program::action_first`]).
#[derive(Clone, Copy, Debug)]
pub struct FirstZone {
    /// The instance (of the zone's seat 0 when `me`).
    pub inst: InstId,
    /// Whether the zone is indexed by the seat (`zone[me]`).
    pub me: bool,
    /// The families the zone and the parts tested before the first binding read.
    pub reads: u64,
}

/// A test that cannot fail ([`Program::action_sure`]): comparisons of values read in place,
/// `and`, `or`, `not`.
#[derive(Clone, Debug)]
pub enum Sure {
    /// `a == b` (`false`) or `a != b` (`true`).
    Cmp(SureValue, SureValue, bool),
    /// `a and b`.
    And(Box<Sure>, Box<Sure>),
    /// `a or b`.
    Or(Box<Sure>, Box<Sure>),
    /// `not a`.
    Not(Box<Sure>),
}

/// A value a [`Sure`] test reads.
#[derive(Clone, Copy, Debug)]
pub enum SureValue {
    /// A variable's slot (a variable without indexes).
    Slot(u32),
    /// A literal.
    Value(Value),
    /// A constant.
    Const(ConstId),
    /// `me`.
    Me,
    /// `player_count`.
    PlayerCount,
}

/// What a function may read of the state, grouped in 64 families (one bit of a `u64`), each
/// with a write stamp in the state (`engine::state::Stamps`): a variable (all its slots), a
/// zone (all its instances: their contents and order), a field number (that field of every
/// type), where components are (`zone_of`, `owner`, `space_of`), and `current`. The compiler
/// hands out the bits ([`Families`]); declarations past the room share one: a write then makes
/// more results stale, never fewer.
pub struct Family;

impl Family {
    /// Bits `0..ROOM` go to the variables written after setup, zones and field numbers that
    /// some function, action guard or trigger reads.
    pub const ROOM: u32 = 60;
    /// The parts no function, action guard or trigger reads.
    pub const UNREAD: u32 = 60;
    /// The variables only `setup` writes.
    pub const SETUP: u32 = 61;
    /// Where components are: every move writes it.
    pub const WHERE: u32 = 62;
    /// `current`.
    pub const CURRENT: u32 = 63;
}

/// The family bit of every variable, zone and field number ([`Family`]).
#[derive(Clone, Debug, Default)]
pub struct Families {
    /// Per variable.
    pub var: Vec<u8>,
    /// Per zone.
    pub zone: Vec<u8>,
    /// Per field number (that field of every type).
    pub field: Vec<u8>,
    /// Per zone instance: its zone's bit.
    pub inst: Vec<u8>,
    /// The bits of all zones.
    pub all_zones: u64,
    /// Whether anything reads the stamps (some function is remembered, or the game has
    /// windows or triggers): otherwise writes do not stamp.
    pub on: bool,
}

impl Families {
    /// The bit of a variable.
    #[inline(always)]
    pub fn var(&self, v: VarId) -> u32 {
        self.var
            .get(v.0 as usize)
            .map_or(Family::SETUP, |&b| b as u32)
    }
    /// The bit of a zone.
    #[inline(always)]
    pub fn zone(&self, z: ZoneId) -> u32 {
        self.zone
            .get(z.0 as usize)
            .map_or(Family::WHERE, |&b| b as u32)
    }
    /// The bit of a zone instance's zone.
    #[inline(always)]
    pub fn inst(&self, i: InstId) -> u32 {
        self.inst
            .get(i.0 as usize)
            .map_or(Family::WHERE, |&b| b as u32)
    }
    /// The bit of a field number.
    #[inline(always)]
    pub fn field(&self, f: u16) -> u32 {
        self.field
            .get(f as usize)
            .map_or(Family::WHERE, |&b| b as u32)
    }
}

/// A compiled `when` trigger.
#[derive(Clone, Copy, Debug)]
pub struct CTrigger {
    /// The test (see [`crate::ir::Trigger::test`]).
    pub test: Code,
    /// A trigger per element: the body's local slot of the element.
    pub each: Option<u16>,
    /// Its body.
    pub proc: ProcId,
    /// The trigger's name in its declaration.
    pub span: Span,
    /// The families of the state its test reads ([`Family`]): a test that did not hold is
    /// not tested again, for the same player, while none of them is written.
    pub reads: u64,
}

/// A compiled set kind.
#[derive(Clone, Debug, Default)]
pub struct CSet {
    /// Members, bound to locals `0..params`.
    pub params: u16,
    /// Locals its conditions and points need.
    pub locals: u16,
    /// Its condition split at `and`: (the last member it needs, part).
    pub conds: Vec<(u16, Code)>,
    /// What one set is worth.
    pub points: Code,
}

/// A variable whose values are indexed: per value, the set of index positions holding it, kept
/// up to date on every write, so that a binding narrowed by it ([`Narrow`]) lists only those.
#[derive(Clone, Copy, Debug)]
pub struct ValueIndex {
    /// The variable (one dimension).
    pub var: VarId,
    /// Its first word in the state's index bits.
    pub base: u32,
    /// Words per value code (the dimension's size / 64, rounded up).
    pub words: u32,
    /// Value codes: `none` is 0, then the values of the variable's type.
    pub codes: u32,
}

/// A component field whose values are indexed: per value, the set of the type's components
/// (by position in [`Program::type_comps`]) holding it, kept up to date on every write, so that
/// `any(x in T where x.field == v and ...)` (and the other aggregates) visit only those.
#[derive(Clone, Copy, Debug)]
pub struct FieldIndex {
    /// The component type.
    pub ty: TypeId,
    /// The field (index into the type's fields).
    pub field: u16,
    /// Its first word in the state's index bits.
    pub base: u32,
    /// Words per value code (the type's number of components / 64, rounded up).
    pub words: u32,
    /// Value codes: `none` is 0, then the values of the field's type.
    pub codes: u32,
}

/// Whether a component may look the same as another of its type ([`Program::twins`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Twin {
    /// Never: no other component of its type ever has the same fields.
    No,
    /// When its fields equal another's (some of its type's fields are written or secret).
    Fields,
    /// Always the same as the components of its class (the first of them, by id): its
    /// type's fields are never written nor secret, and these start with the same values.
    Class(u32),
}

/// Everything the engine runs.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// The ops of every compiled expression and collection.
    pub ops: Vec<Op>,
    /// Values too large to sit in an op.
    pub lits: Vec<Value>,
    /// Comparisons of simple operands ([`Op::Cmp`]).
    pub cmps: Vec<Cmp>,
    /// Two-dimensional zone reads ([`ZoneAt::Local2`]).
    pub zone2s: Vec<Zone2>,
    /// Two-dimensional variable reads ([`Operand::Var2`], [`Op::Var2`]).
    pub var2s: Vec<Var2>,
    /// Spans of ops that can fail, sorted by op position.
    pub spans: Vec<(u32, Span)>,
    /// The procedures, as steps.
    pub procs: Table<ProcId, Vec<Step>>,
    /// Every choice.
    pub choices: Table<ChoiceId, CChoice>,
    /// Every action's parameters and guard.
    pub actions: Table<ActionId, COptions>,
    /// Functions.
    pub defs: Table<DefId, CDef>,
    /// Set kinds.
    pub sets: Table<SetId, CSet>,
    /// `end when` conditions.
    pub end_when: Vec<(Code, Span)>,
    /// `when` triggers: (test, per element, body, span), in declaration order.
    pub triggers: Vec<CTrigger>,
    /// `score(p)`, the player in local 0.
    pub score: Option<Code>,
    /// `tiebreak(p)`, the player in local 0.
    pub tiebreaks: Vec<Code>,
    /// `heuristic(p)`, the player in local 0 (for agents only).
    pub heuristic: Option<Code>,
    /// Initial values of variables.
    pub var_inits: Table<VarId, Option<Code>>,
    /// `paths` collections.
    pub paths: Vec<PathsOp>,
    /// Rays in several directions or that stop.
    pub rays: Vec<RaysOp>,
    /// `group` collections (the same shape as paths, without steps).
    pub groups: Vec<PathsOp>,
    /// `line` aggregates.
    pub lines: Vec<LineOp>,
    /// `best_sets` aggregates.
    pub best_sets: Vec<BestSetsOp>,
    /// `connected` aggregates.
    pub connects: Vec<ConnectOp>,
    /// `majority` aggregates.
    pub majorities: Vec<MajorityOp>,
    /// The components of each type, in table order.
    pub type_comps: Table<TypeId, Vec<CompId>>,
    /// Indexed variables.
    pub indexes: Vec<ValueIndex>,
    /// Per component: whether it may look the same as another of its type (otherwise it is
    /// never a copy of one offered before it; see `twins` in the compiler), and how.
    pub twins: Vec<Twin>,
    /// Whether some function's results are remembered ([`CDef::remember`]).
    pub remember: bool,
    /// Indexed component fields (their bits follow the variables' in the state's index).
    pub field_indexes: Vec<FieldIndex>,
    /// Per component (when some field is indexed): its type and its position in the type's
    /// list of [`Program::type_comps`].
    pub comp_pos: Vec<(TypeId, u32)>,
    /// Per variable: its position in `indexes`, if indexed.
    pub var_index: Table<VarId, Option<u32>>,
    /// Words of index bits a state keeps.
    pub index_words: u32,
    /// Remembered guard parts.
    pub memos: Vec<MemoDef>,
    /// Bindings listed from remembered lists.
    pub filters: Vec<FilterDef>,
    /// Variables that only `setup` writes: after it, they never change in a match.
    pub frozen: Vec<VarId>,
    /// Check mode (tests): every remembered answer served (the options listed in a state,
    /// function results, guard parts answered per setup, a window's "no option") is computed
    /// again without it and must be equal, else the engine panics naming the cache. Off, it
    /// costs one test of this flag where an answer is served.
    pub check_caches: bool,
    /// The family bits of what functions read ([`CDef::reads`]).
    pub families: Families,
    /// Per action: the families its parameters' collections and its guard read (all bits
    /// for a sequence action): a window remembers that a seat had no option of it while
    /// none of them is written.
    pub action_reads: Vec<u64>,
    /// Per action: its first parameter's zone when it is one instance fixed by the seat
    /// (`zone`, `zone[me]`), and the families that zone and the guard's parts tested before
    /// any parameter is bound read (but for comparisons that cannot fail). While that
    /// instance is empty, the action has no option whatever its other parts read: a window
    /// remembers that answer while none of these families is written.
    pub action_first: Vec<Option<FirstZone>>,
    /// Per action: its guard's first part tested when it cannot fail and reads no parameter
    /// (`busy == 0`, `phase == a or phase == b`): while it is false, the action has no
    /// option, whatever its other parts read. A window that found a seat without an option of
    /// the action remembers it while that part stays false.
    pub action_sure: Vec<Option<Sure>>,
    /// Tells programs apart for caches kept outside a state (remembered answers).
    pub id: u64,
    /// Per op position: the end of the run of flag ops ([`Program::is_flag_op`]) starting
    /// there. Code that lies within one run computes a flag from comparisons alone and is
    /// run without the value stack.
    pub flag_runs: Vec<u32>,
    /// Per comparison of [`Program::cmps`]: its fast form.
    pub fast: Vec<FastCmp>,
    /// The zone loops walked in place ([`Op::ZoneWalk`]).
    pub zone_walks: Vec<ZoneWalk>,
    /// The `after` expressions ([`Op::After`]).
    pub afters: Vec<CAfter>,
    /// The nodes of the flag graphs ([`FlagNode`]).
    pub flag_nodes: Vec<FlagNode>,
    /// Per op position: (end, root) of the flag graph of the guard part whose code starts
    /// there (an end of 0: none).
    pub flag_graphs: Vec<(u32, u32)>,
}

/// One comparison of a flag graph: flag code (a guard part made of comparisons joined by
/// `and`, `or`, `not` and `if`) turned, when the program is finished, into the comparisons
/// it tests and where each answer leads, so that it runs without decoding its jumps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlagNode {
    /// The comparison ([`Program::cmps`]).
    pub cmp: u32,
    /// Its op position (for the span of an error).
    pub pc: u32,
    /// The next node when it holds, or [`FlagNode::TRUE`] / [`FlagNode::FALSE`].
    pub then: u32,
    /// The next node when it does not hold.
    pub other: u32,
}

impl FlagNode {
    /// The answer is true.
    pub const TRUE: u32 = u32::MAX;
    /// The answer is false.
    pub const FALSE: u32 = u32::MAX - 1;
}

impl Program {
    /// Finishes a program after code was added: sorts the spans, finds the runs of flag
    /// ops and the zone loops walked in place.
    pub fn finish(&mut self) {
        self.spans.sort_by_key(|(pc, _)| *pc);
        let n = self.ops.len();
        self.flag_runs.resize(n, 0);
        let mut end = n as u32;
        for pc in (0..n).rev() {
            if !Self::is_flag_op(self.ops[pc]) {
                end = pc as u32;
            }
            self.flag_runs[pc] = end;
        }
        self.fast = self.cmps.iter().map(FastCmp::of).collect();
        // A zone's walk whose loop has a foreseen shape runs in place (ops added since the
        // last finish are looked at; walks found before stay).
        for pc in 0..n.saturating_sub(1) {
            if self.ops[pc] == Op::IterZone {
                if let Some(w) = ZoneWalk::of(&self.ops, pc as u32 + 1) {
                    self.ops[pc] = Op::ZoneWalk(self.zone_walks.len() as u32);
                    self.zone_walks.push(w);
                }
            }
        }
        let mut codes: Vec<Code> = Vec::new();
        let mut add = |o: &COptions| {
            for p in &o.parts {
                codes.push(p.code);
                if let Some(sp) = p.split {
                    codes.extend([sp.then, sp.other]);
                }
            }
        };
        self.actions.iter().for_each(&mut add);
        self.choices
            .iter()
            .flat_map(|c| c.arms.iter().flatten())
            .for_each(&mut add);
        // A board walk's fixed parts, answered before the walk (`Machine::paths`).
        for w in self.paths.iter().chain(&self.groups) {
            codes.extend(w.parts.iter().filter(|p| p.1).map(|p| p.0));
        }
        self.flag_nodes.clear();
        self.flag_graphs.clear();
        self.flag_graphs.resize(n, (0, 0));
        for code in codes {
            if code.end > code.start + 1 && self.is_flag_code(code) {
                if let Some(root) = self.flag_graph(code) {
                    self.flag_graphs[code.start as usize] = (code.end, root);
                }
            }
        }
    }

    /// Where flag code goes from op `pc` with the flag `flag` (as [`Program::is_flag_code`]
    /// code runs): the position of the next comparison, or the answer. `None`: a shape not
    /// foreseen.
    fn flag_step(&self, code: Code, mut pc: u32, mut flag: bool) -> Option<Result<u32, bool>> {
        for _ in 0..=(code.end - code.start) {
            if pc >= code.end {
                return Some(Err(flag));
            }
            if pc < code.start {
                return None;
            }
            match self.ops[pc as usize] {
                Op::Cmp(_) => return Some(Ok(pc)),
                Op::JumpIfNot(t) | Op::AndJump(t) if !flag => pc = t,
                Op::OrJump(t) if flag => pc = t,
                Op::Jump(t) => pc = t,
                Op::Not => {
                    flag = !flag;
                    pc += 1;
                }
                Op::JumpIfNot(_) | Op::AndJump(_) | Op::OrJump(_) => pc += 1,
                _ => return None,
            }
        }
        None
    }

    /// The flag graph of flag code ([`FlagNode`]): its root, or `None` when its shape is not
    /// foreseen (it then runs as code).
    fn flag_graph(&mut self, code: Code) -> Option<u32> {
        let base = self.flag_nodes.len() as u32;
        // The comparisons reached, in the order met, and each one's two next steps.
        let mut seen: Vec<u32> = Vec::new();
        let mut steps: Vec<(Result<u32, bool>, Result<u32, bool>)> = Vec::new();
        let first = self.flag_step(code, code.start, false)?;
        if let Ok(pc) = first {
            seen.push(pc);
        }
        let mut i = 0;
        while i < seen.len() {
            let pc = seen[i];
            let then = self.flag_step(code, pc + 1, true)?;
            let other = self.flag_step(code, pc + 1, false)?;
            for next in [then, other].into_iter().flatten() {
                // Only forward: the graph has no cycle.
                if next <= pc {
                    return None;
                }
                if !seen.contains(&next) {
                    seen.push(next);
                }
            }
            steps.push((then, other));
            i += 1;
        }
        let node = |r: Result<u32, bool>| -> u32 {
            match r {
                Ok(pc) => base + seen.iter().position(|&p| p == pc).unwrap_or(0) as u32,
                Err(true) => FlagNode::TRUE,
                Err(false) => FlagNode::FALSE,
            }
        };
        for (k, &pc) in seen.iter().enumerate() {
            let Op::Cmp(cmp) = self.ops[pc as usize] else {
                return None;
            };
            let (then, other) = steps[k];
            self.flag_nodes.push(FlagNode {
                cmp,
                pc,
                then: node(then),
                other: node(other),
            });
        }
        Some(node(first))
    }

    /// Ops that read or write only one flag: a comparison, the jumps of `if`, `and` and `or`,
    /// and `not`. Code made of them alone (a guard such as `if a == b then c == none else
    /// d != me`) never has more than one flag alive.
    pub fn is_flag_op(op: Op) -> bool {
        matches!(
            op,
            Op::Cmp(_) | Op::JumpIfNot(_) | Op::Jump(_) | Op::AndJump(_) | Op::OrJump(_) | Op::Not
        )
    }

    /// Whether `code` is a flag computation ([`Program::flag_runs`]).
    #[inline]
    pub fn is_flag_code(&self, code: Code) -> bool {
        code.end > code.start
            && self
                .flag_runs
                .get(code.start as usize)
                .is_some_and(|&e| e >= code.end)
    }

    /// The span recorded for the op at `pc` (ops that can fail record the span of what they
    /// compute), if any.
    pub fn span_at(&self, pc: u32) -> Option<Span> {
        self.spans
            .binary_search_by_key(&pc, |(p, _)| *p)
            .ok()
            .map(|i| self.spans[i].1)
    }

    /// The position of a value among the values of its kind (a space's index, an enum value's
    /// position, a seat), for memo keys; `None` for values that have no such position.
    pub fn position(v: Value) -> Option<u32> {
        match v {
            Value::Player(p) => Some(p as u32),
            Value::Enum(_, i) => Some(i as u32),
            Value::Space(_, s) => Some(s),
            _ => None,
        }
    }

    /// The code of an index value for a value index: `none` is 0, then the values in order.
    pub fn value_code(v: Value) -> Option<u32> {
        match v {
            Value::None => Some(0),
            Value::Player(p) => Some(p as u32 + 1),
            Value::Enum(_, i) => Some(i as u32 + 1),
            Value::Bool(b) => Some(b as u32 + 1),
            Value::Space(_, s) => Some(s + 1),
            _ => None,
        }
    }
}
