//! The compiled options of an action: its parameters' bindings (`CBind`), guard parts at
//! the depth their bindings are bound, remembered filters, narrowed and scanned bindings,
//! interchangeable values (`Same`), and the choices that offer them.

use super::*;

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
