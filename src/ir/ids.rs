//! Typed ids: every table of the IR is indexed by its own id type, so that a component id can
//! never index the zones by mistake, and no raw `as usize` cast is needed to look one up.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// An id that indexes a [`Table`].
pub trait Id: Copy + Eq + Ord {
    /// The id of position `i`.
    fn from_index(i: usize) -> Self;
    /// The position this id stands for.
    fn index(self) -> usize;
}

macro_rules! ids {
    ($($(#[$doc:meta])* $name:ident($raw:ty);)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub $raw);

        impl Id for $name {
            #[inline(always)]
            fn from_index(i: usize) -> Self {
                $name(i as $raw)
            }
            #[inline(always)]
            fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({})", stringify!($name), self.0)
            }
        }
    )*};
}

ids! {
    /// A `const` ([`crate::ir::Game::consts`]).
    ConstId(u16);
    /// A `variant` ([`crate::ir::Game::variants`]).
    VariantId(u16);
    /// An `enum` ([`crate::ir::Game::enums`]).
    EnumId(u16);
    /// A component type ([`crate::ir::Game::types`]).
    TypeId(u16);
    /// One component ([`crate::ir::Game::comps`]).
    CompId(u32);
    /// A board ([`crate::ir::Game::boards`]).
    BoardId(u16);
    /// A `zone` declaration ([`crate::ir::Game::zones`]).
    ZoneId(u32);
    /// One zone instance: a zone at one combination of its indexes
    /// ([`crate::ir::Game::instances`], and the state's zones).
    InstId(u32);
    /// A `var` declaration ([`crate::ir::Game::vars`]).
    VarId(u32);
    /// A `def` ([`crate::ir::Game::defs`]).
    DefId(u16);
    /// A `set` kind ([`crate::ir::Game::sets`]).
    SetId(u16);
    /// An `action` ([`crate::ir::Game::actions`]).
    ActionId(u32);
    /// A procedure ([`crate::ir::Game::procs`]).
    ProcId(u32);
    /// A `choose` statement ([`crate::ir::Game::choices`]).
    ChoiceId(u32);
    /// The parameter types of an action type `action(T, ...)` ([`crate::ir::Game::signatures`]).
    SigId(u16);
}

/// A vector indexed by one kind of id.
#[derive(PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Table<I, T> {
    items: Vec<T>,
    #[serde(skip)]
    _id: PhantomData<fn(I) -> I>,
}

impl<I, T: Clone> Clone for Table<I, T> {
    fn clone(&self) -> Self {
        Table {
            items: self.items.clone(),
            _id: PhantomData,
        }
    }
    fn clone_from(&mut self, src: &Self) {
        self.items.clone_from(&src.items);
    }
}

impl<I, T: fmt::Debug> fmt::Debug for Table<I, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.items.fmt(f)
    }
}

impl<I, T> Default for Table<I, T> {
    fn default() -> Self {
        Table {
            items: Vec::new(),
            _id: PhantomData,
        }
    }
}

impl<I: Id, T> Table<I, T> {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }
    /// Appends an item and returns its id.
    pub fn push(&mut self, item: T) -> I {
        self.items.push(item);
        I::from_index(self.items.len() - 1)
    }
    /// The id the next pushed item will get.
    pub fn next_id(&self) -> I {
        I::from_index(self.items.len())
    }
    /// The number of items.
    pub fn len(&self) -> usize {
        self.items.len()
    }
    /// Whether there is no item.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    /// The item of this id, if there is one.
    pub fn get(&self, id: I) -> Option<&T> {
        self.items.get(id.index())
    }
    /// The item of this id, mutably, if there is one.
    pub fn get_mut(&mut self, id: I) -> Option<&mut T> {
        self.items.get_mut(id.index())
    }
    /// The items in id order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }
    /// The items in id order, mutably.
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, T> {
        self.items.iter_mut()
    }
    /// Every id with its item, in id order.
    pub fn enumerate(&self) -> impl Iterator<Item = (I, &T)> + '_ {
        self.items
            .iter()
            .enumerate()
            .map(|(i, t)| (I::from_index(i), t))
    }
    /// Every id, in order.
    pub fn ids(&self) -> impl Iterator<Item = I> + 'static
    where
        I: 'static,
    {
        (0..self.items.len()).map(I::from_index)
    }
    /// The last item.
    pub fn last(&self) -> Option<&T> {
        self.items.last()
    }
    /// The items as a slice.
    pub fn as_slice(&self) -> &[T] {
        &self.items
    }
}

impl<I: Id, T> Index<I> for Table<I, T> {
    type Output = T;
    #[inline(always)]
    fn index(&self, id: I) -> &T {
        &self.items[id.index()]
    }
}

impl<I: Id, T> IndexMut<I> for Table<I, T> {
    #[inline(always)]
    fn index_mut(&mut self, id: I) -> &mut T {
        &mut self.items[id.index()]
    }
}

impl<I: Id, T> FromIterator<T> for Table<I, T> {
    fn from_iter<It: IntoIterator<Item = T>>(iter: It) -> Self {
        Table {
            items: iter.into_iter().collect(),
            _id: PhantomData,
        }
    }
}

impl<'a, I: Id, T> IntoIterator for &'a Table<I, T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

impl<I: Id, T> From<Vec<T>> for Table<I, T> {
    fn from(items: Vec<T>) -> Self {
        Table {
            items,
            _id: PhantomData,
        }
    }
}
