//! The compiled options of an action: its parameters' bindings (`CBind`), guard parts at
//! the depth their bindings are bound, remembered filters, narrowed bindings, and the choices
//! that offer them.

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
    /// The procedure whose steps hold this `choose`, when every option of it runs on to that
    /// procedure's return without pausing (`check::compile::pauses`); `None` otherwise.
    pub free_in: Option<ProcId>,
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
