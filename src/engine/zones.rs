//! Where components are: each zone instance is a doubly linked list of its components, bottom
//! to top, in flat arrays. Moving a component, dealing and taking the top are O(1); a state
//! clones with one copy per array, whatever the number of zones. Which instances hold
//! something is also kept as a bit set ([`Zones::held`]), so that a board walk asks whether
//! the zones of up to 64 spaces are empty with one read.

use crate::ir::{CompId, InstId};
use serde::{Deserialize, Serialize};

/// No component (the end of a list).
const NIL: u32 = u32::MAX;

/// The zones of a state.
#[derive(Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "ZonesData")]
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
    /// Bit `i % 64` of word `i / 64`: instance `i` holds a component (`len[i] > 0`), plus
    /// one word more, so that 64 bits from any instance read two words. Derived from `len`:
    /// not saved, rebuilt when a state is read.
    #[serde(skip)]
    held: Vec<u64>,
}

/// The saved form of [`Zones`]: everything but the bit set derived from the lengths.
#[derive(Deserialize)]
struct ZonesData {
    head: Vec<u32>,
    tail: Vec<u32>,
    len: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    loc: Vec<u32>,
}

impl From<ZonesData> for Zones {
    fn from(d: ZonesData) -> Self {
        let held = held_bits(&d.len);
        Zones {
            head: d.head,
            tail: d.tail,
            len: d.len,
            next: d.next,
            prev: d.prev,
            loc: d.loc,
            held,
        }
    }
}

/// The bit set of the instances that hold something, from their lengths.
fn held_bits(len: &[u32]) -> Vec<u64> {
    let mut held = vec![0u64; len.len() / 64 + 2];
    for (i, &n) in len.iter().enumerate() {
        if n > 0 {
            held[i / 64] |= 1 << (i % 64);
        }
    }
    held
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
            held: self.held.clone(),
        }
    }

    fn clone_from(&mut self, src: &Self) {
        self.head.clone_from(&src.head);
        self.tail.clone_from(&src.tail);
        self.len.clone_from(&src.len);
        self.next.clone_from(&src.next);
        self.prev.clone_from(&src.prev);
        self.loc.clone_from(&src.loc);
        self.held.clone_from(&src.held);
    }
}

impl Zones {
    /// Roughly the bytes the zones' vectors hold.
    pub(crate) fn approx_bytes(&self) -> usize {
        (self.head.len() + self.tail.len() + self.len.len()) * 4
            + (self.next.len() + self.prev.len() + self.loc.len()) * 4
            + self.held.len() * 8
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
            held: vec![0; instances / 64 + 2],
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
            || self.held != held_bits(&self.len)
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

    /// The arrays, for compiled code to read in place.
    pub(crate) fn arrays(&self) -> crate::lir::interp::ZoneArrays<'_> {
        crate::lir::interp::ZoneArrays {
            len: &self.len,
            head: &self.head,
            tail: &self.tail,
            next: &self.next,
            loc: &self.loc,
        }
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

    /// Which of the `size` (at most 64) instances from `base` hold a component: bit `k` for
    /// instance `base + k` (`None` when they are not all instances of the state).
    #[inline(always)]
    pub(crate) fn held(&self, base: u32, size: u32) -> Option<u64> {
        let end = base.checked_add(size)?;
        if size > 64 || end as usize > self.len.len() {
            return None;
        }
        let (w, b) = ((base / 64) as usize, base % 64);
        let lo = *self.held.get(w)? >> b;
        let hi = match b {
            0 => 0,
            _ => *self.held.get(w + 1)? << (64 - b),
        };
        let mask = match size {
            64 => u64::MAX,
            _ => (1u64 << size) - 1,
        };
        Some((lo | hi) & mask)
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
        if self.len[inst as usize] == 0 {
            if let Some(w) = self.held.get_mut(inst as usize / 64) {
                *w &= !(1 << (inst % 64));
            }
        }
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
        if let Some(w) = self.held.get_mut(ii / 64) {
            *w |= 1 << (ii % 64);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The bit set of the instances holding something follows every move, across words and
    /// from any first instance, and a state read back rebuilds it.
    #[test]
    fn held_follows_moves() {
        let mut z = Zones::new(150, 4);
        z.push_top(CompId(0), InstId(3));
        z.push_top(CompId(1), InstId(63));
        z.push_top(CompId(2), InstId(64));
        z.push_top(CompId(3), InstId(64));
        assert_eq!(z.held(0, 64), Some(1 << 3 | 1 << 63));
        assert_eq!(z.held(60, 10), Some(1 << 3 | 1 << 4));
        assert_eq!(z.held(64, 64), Some(1));
        assert_eq!(z.held(140, 11), None, "past the instances");
        assert_eq!(z.held(0, 65), None, "more than 64");
        // one of two components leaves: still held; the other too: empty
        z.put(CompId(2), InstId(149), false);
        assert_eq!(z.held(60, 10), Some(1 << 3 | 1 << 4));
        z.put(CompId(3), InstId(3), true);
        assert_eq!(z.held(60, 10), Some(1 << 3));
        assert_eq!(z.held(86, 64), Some(1 << 63));
        // a shuffle's new order, and a component brought in from an emptied instance
        z.set_items(InstId(3), &[CompId(0), CompId(1), CompId(3)]);
        assert_eq!(z.held(60, 10), Some(0));
        assert_eq!(z.held(0, 64), Some(1 << 3));
        assert!(z.consistent(150, 4));
        let back: Zones = serde_json::from_str(&serde_json::to_string(&z).unwrap()).unwrap();
        assert_eq!(back, z);
        assert_eq!(back.held(0, 64), z.held(0, 64));
    }
}
