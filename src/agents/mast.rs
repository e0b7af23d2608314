//! MAST: the mean reward of each action over the playouts of one decision, per mover, for the
//! playout policy ([`super::MctsConfig::mast`]). A fixed open-addressing table keyed by a hash
//! of (seat, action): no allocation once made, and no look-up by name. Two actions whose keys
//! collide share their statistics (rare with 64-bit keys; it can only blur the policy).

use crate::engine::Action;
use std::hash::{Hash, Hasher};

/// Entries of the table (a power of two); past 3/4 full, new actions are not recorded.
const SLOTS: usize = 1 << 14;

/// The table.
pub(crate) struct Mast {
    /// (key, sum of rewards, playouts); key 0: empty.
    slots: Vec<(u64, f64, u32)>,
    used: usize,
}

impl Default for Mast {
    fn default() -> Self {
        Mast {
            slots: vec![(0, 0.0, 0); SLOTS],
            used: 0,
        }
    }
}

/// FNV-1a over the words written.
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// The key of `seat` taking `a` (never 0).
pub(crate) fn key(seat: u8, a: &Action) -> u64 {
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    seat.hash(&mut h);
    a.arm.hash(&mut h);
    a.args.hash(&mut h);
    h.finish().max(1)
}

impl Mast {
    /// Forgets every action.
    pub(crate) fn clear(&mut self) {
        if self.used > 0 {
            self.slots.fill((0, 0.0, 0));
            self.used = 0;
        }
    }

    /// The slot of `key`: where it is, or the empty one where it would go.
    fn slot(&self, key: u64) -> usize {
        let mut i = key as usize & (SLOTS - 1);
        loop {
            let k = self.slots[i].0;
            if k == key || k == 0 {
                return i;
            }
            i = (i + 1) & (SLOTS - 1);
        }
    }

    /// Adds a playout's reward to an action taken in it.
    pub(crate) fn add(&mut self, key: u64, reward: f64) {
        let i = self.slot(key);
        if self.slots[i].0 == 0 {
            if self.used >= SLOTS / 4 * 3 {
                return;
            }
            self.used += 1;
            self.slots[i].0 = key;
        }
        self.slots[i].1 += reward;
        self.slots[i].2 += 1;
    }

    /// The mean reward of an action for its mover (1 when never taken).
    fn mean(&self, key: u64) -> f64 {
        match self.slots[self.slot(key)] {
            (k, sum, n) if k == key && n > 0 => sum / n as f64,
            _ => 1.0,
        }
    }

    /// The action of `legal` (not empty) with the best mean for `seat`; ties to the first.
    pub(crate) fn best(&self, seat: u8, legal: &[Action]) -> Action {
        let mut best = legal[0];
        let mut top = f64::NEG_INFINITY;
        for a in legal {
            let m = self.mean(key(seat, a));
            if m > top {
                top = m;
                best = *a;
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Value;

    fn action(arm: u16, arg: i64) -> Action {
        let mut a = Action {
            arm,
            args: Default::default(),
            steps: Default::default(),
        };
        a.args[0] = Value::Int(arg);
        a
    }

    #[test]
    fn the_best_average_is_chosen_for_its_mover_and_unseen_actions_first() {
        let mut m = Mast::default();
        let (a, b, c) = (action(0, 1), action(0, 2), action(1, 1));
        m.add(key(0, &a), 1.0);
        m.add(key(0, &a), 0.0); // a: 0.5
        m.add(key(0, &b), 0.75); // b: 0.75
        m.add(key(1, &a), 1.0); // a for the other seat: does not count for seat 0
        assert_eq!(m.best(0, &[a, b]), b);
        // An action never taken is tried before any other.
        assert_eq!(m.best(0, &[a, b, c]), c);
        m.add(key(0, &c), 0.0);
        assert_eq!(m.best(0, &[a, b, c]), b);
        assert_eq!(m.best(1, &[b, a]), b, "unseen for seat 1: the first");
        m.clear();
        assert_eq!(m.best(0, &[a, b]), a, "forgotten: both unseen, the first");
    }

    #[test]
    fn a_full_table_records_no_new_action_and_keeps_the_old() {
        let mut m = Mast::default();
        for i in 0..SLOTS as i64 {
            m.add(key(0, &action(0, i)), 0.5);
        }
        assert_eq!(m.used, SLOTS / 4 * 3);
        let first = action(0, 0);
        m.add(key(0, &first), 0.5);
        assert_eq!(m.mean(key(0, &first)), 0.5);
    }
}
