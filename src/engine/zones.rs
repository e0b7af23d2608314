//! Where components are: each zone instance is a doubly linked list of its components, bottom
//! to top, in flat arrays. Moving a component, dealing and taking the top are O(1); a state
//! clones with one copy per array, whatever the number of zones.

use crate::ir::{CompId, InstId};
use serde::{Deserialize, Serialize};

/// No component (the end of a list).
const NIL: u32 = u32::MAX;

/// The zones of a state.
#[derive(Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) struct Zones {
    /// Per instance: its bottom component.
    head: Vec<u32>,
    /// Per instance: its top component.
    tail: Vec<u32>,
    /// Per instance: how many components it holds.
    len: Vec<u32>,
    /// Per component: the one above it.
    next: Vec<u32>,
    /// Per component: the one below it.
    prev: Vec<u32>,
    /// Per component: the instance holding it.
    loc: Vec<u32>,
}

impl Clone for Zones {
    fn clone(&self) -> Self {
        Zones {
            head: self.head.clone(),
            tail: self.tail.clone(),
            len: self.len.clone(),
            next: self.next.clone(),
            prev: self.prev.clone(),
            loc: self.loc.clone(),
        }
    }

    fn clone_from(&mut self, src: &Self) {
        self.head.clone_from(&src.head);
        self.tail.clone_from(&src.tail);
        self.len.clone_from(&src.len);
        self.next.clone_from(&src.next);
        self.prev.clone_from(&src.prev);
        self.loc.clone_from(&src.loc);
    }
}

impl Zones {
    /// Roughly the bytes the zones' vectors hold.
    pub(crate) fn approx_bytes(&self) -> usize {
        (self.head.len() + self.tail.len() + self.len.len()) * 4
            + (self.next.len() + self.prev.len() + self.loc.len()) * 4
    }
    /// Empty zones, and components nowhere (each must be put somewhere with
    /// [`Zones::push_top`] before anything reads it).
    pub(crate) fn new(instances: usize, comps: usize) -> Self {
        Zones {
            head: vec![NIL; instances],
            tail: vec![NIL; instances],
            len: vec![0; instances],
            next: vec![NIL; comps],
            prev: vec![NIL; comps],
            loc: vec![NIL; comps],
        }
    }

    /// Whether the arrays fit a game of this many instances and components, and every list
    /// is consistent (for a state that came from outside).
    pub(crate) fn consistent(&self, instances: usize, comps: usize) -> bool {
        if self.head.len() != instances
            || self.tail.len() != instances
            || self.len.len() != instances
            || self.next.len() != comps
            || self.prev.len() != comps
            || self.loc.len() != comps
        {
            return false;
        }
        let mut seen = vec![false; comps];
        for inst in 0..instances {
            let mut n = 0u32;
            let mut below = NIL;
            let mut c = self.head[inst];
            while c != NIL {
                let ci = c as usize;
                if ci >= comps || seen[ci] || self.loc[ci] != inst as u32 || self.prev[ci] != below
                {
                    return false;
                }
                seen[ci] = true;
                n += 1;
                below = c;
                c = self.next[ci];
            }
            if n != self.len[inst] || below != self.tail[inst] {
                return false;
            }
        }
        seen.into_iter().all(|s| s)
    }

    /// How many instances there are.
    pub(crate) fn instances(&self) -> usize {
        self.head.len()
    }

    /// How many components an instance holds.
    #[inline]
    pub(crate) fn len(&self, inst: InstId) -> usize {
        self.len[inst.0 as usize] as usize
    }

    /// Its top component.
    #[inline]
    pub(crate) fn top(&self, inst: InstId) -> Option<CompId> {
        some(self.tail[inst.0 as usize])
    }

    /// Its bottom component.
    #[inline]
    pub(crate) fn bottom(&self, inst: InstId) -> Option<CompId> {
        some(self.head[inst.0 as usize])
    }

    /// The component above `c` in its zone.
    #[inline]
    pub(crate) fn above(&self, c: CompId) -> Option<CompId> {
        some(self.next[c.0 as usize])
    }

    /// The component below `c` in its zone.
    #[inline]
    pub(crate) fn below(&self, c: CompId) -> Option<CompId> {
        some(self.prev[c.0 as usize])
    }

    /// The instance holding a component.
    #[inline]
    pub(crate) fn loc(&self, c: CompId) -> InstId {
        InstId(self.loc[c.0 as usize])
    }

    /// The components of an instance, bottom to top.
    pub(crate) fn iter(&self, inst: InstId) -> ZoneIter<'_> {
        ZoneIter {
            zones: self,
            at: self.head[inst.0 as usize],
        }
    }

    /// The components of an instance, bottom to top, as a vector.
    pub(crate) fn items(&self, inst: InstId) -> Vec<CompId> {
        self.iter(inst).collect()
    }

    /// Takes a component out of its zone.
    fn unlink(&mut self, c: CompId) {
        let ci = c.0 as usize;
        let inst = self.loc[ci];
        if inst == NIL {
            return;
        }
        let (p, n) = (self.prev[ci], self.next[ci]);
        if p == NIL {
            self.head[inst as usize] = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NIL {
            self.tail[inst as usize] = p;
        } else {
            self.prev[n as usize] = p;
        }
        self.len[inst as usize] -= 1;
        self.prev[ci] = NIL;
        self.next[ci] = NIL;
        self.loc[ci] = NIL;
    }

    /// Puts a component on top of (or at the bottom of) an instance, taking it out of
    /// wherever it was.
    pub(crate) fn put(&mut self, c: CompId, inst: InstId, bottom: bool) {
        self.unlink(c);
        let (ci, ii) = (c.0 as usize, inst.0 as usize);
        if bottom {
            let h = self.head[ii];
            self.next[ci] = h;
            if h == NIL {
                self.tail[ii] = c.0;
            } else {
                self.prev[h as usize] = c.0;
            }
            self.head[ii] = c.0;
        } else {
            let t = self.tail[ii];
            self.prev[ci] = t;
            if t == NIL {
                self.head[ii] = c.0;
            } else {
                self.next[t as usize] = c.0;
            }
            self.tail[ii] = c.0;
        }
        self.loc[ci] = inst.0;
        self.len[ii] += 1;
    }

    /// Puts a component on top of an instance.
    pub(crate) fn push_top(&mut self, c: CompId, inst: InstId) {
        self.put(c, inst, false);
    }

    /// Makes `order` (which must be exactly the components of the instance, or components of
    /// other instances being brought in) the contents of an instance, bottom to top.
    pub(crate) fn set_items(&mut self, inst: InstId, order: &[CompId]) {
        for &c in order {
            self.unlink(c);
        }
        while let Some(c) = self.bottom(inst) {
            self.unlink(c);
        }
        for &c in order {
            self.push_top(c, inst);
        }
    }
}

/// Components of one zone, bottom to top.
pub(crate) struct ZoneIter<'z> {
    zones: &'z Zones,
    at: u32,
}

impl Iterator for ZoneIter<'_> {
    type Item = CompId;
    fn next(&mut self) -> Option<CompId> {
        let c = some(self.at)?;
        self.at = self.zones.next[self.at as usize];
        Some(c)
    }
}

#[inline(always)]
fn some(c: u32) -> Option<CompId> {
    (c != NIL).then_some(CompId(c))
}
