//! `count`: every legal action and every chance outcome, to a depth.
//!
//! The walk keeps an explicit stack of states (one per depth on the current path, with the
//! legal actions still to try), so a deep tree cannot overflow the thread's stack, and the
//! node counts grow with the depths actually reached. A position met again by another order of
//! the same moves, with as many depths still to walk, is not walked again: its subtree's
//! counts are kept in a table (exact: a hit compares whole states), up to [`TABLE_BYTES`].

use super::in_threads;
use crate::engine::{Action, Config, RunError, State};
use crate::ir::Game;
use std::collections::{BTreeMap, HashMap};

/// The deepest walk [`count`] accepts; a deeper request is refused with an error.
pub const MAX_DEPTH: u32 = 10_000;

/// Node counts of a game tree walk.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// `nodes[d]`: the nodes of the game tree at depth `d`, i.e. the sequences of `d` legal
    /// decisions (players' and, with external chance, chance's), from the start at depth 0
    /// to the requested depth; a finished game has no children.
    pub nodes: Vec<u64>,
    /// Finished games among the nodes.
    pub finished: u64,
    /// Finished games by winners: `p1`, `p1+p2`, ... or `none`.
    pub outcomes: BTreeMap<String, u64>,
}

impl Counts {
    fn add(&mut self, t: &Tally, shift: usize) {
        if self.nodes.len() < t.nodes.len() + shift {
            self.nodes.resize(t.nodes.len() + shift, 0);
        }
        for (k, n) in t.nodes.iter().enumerate() {
            self.nodes[k + shift] += n;
        }
        self.finished += t.finished;
        for &(mask, n) in &t.outcomes {
            let key = if mask == 0 {
                "none".to_string()
            } else {
                (0..8)
                    .filter(|w| mask & (1 << w) != 0)
                    .map(|w| format!("p{}", w + 1))
                    .collect::<Vec<_>>()
                    .join("+")
            };
            *self.outcomes.entry(key).or_insert(0) += n;
        }
    }

    fn merge(&mut self, other: Counts) {
        if self.nodes.len() < other.nodes.len() {
            self.nodes.resize(other.nodes.len(), 0);
        }
        for (k, n) in other.nodes.iter().enumerate() {
            self.nodes[k] += n;
        }
        self.finished += other.finished;
        for (k, v) in other.outcomes {
            *self.outcomes.entry(k).or_insert(0) += v;
        }
    }
}

/// The counts of one subtree, its depths counted from its root.
#[derive(Clone, Debug, Default)]
struct Tally {
    nodes: Vec<u64>,
    finished: u64,
    /// Finished games by the set of winners (one bit per seat; 0: none), each set once.
    outcomes: Vec<(u8, u64)>,
}

impl Tally {
    /// Counts a node at relative depth `d`; true when the game goes on there.
    fn visit(&mut self, d: usize, st: &State) -> bool {
        if self.nodes.len() <= d {
            self.nodes.resize(d + 1, 0);
        }
        self.nodes[d] += 1;
        let Some(o) = st.outcome() else {
            return true;
        };
        let mask = o
            .winners
            .iter()
            .fold(0u8, |m, w| m | 1u8.wrapping_shl(*w as u32));
        self.add_outcome(mask, 1);
        false
    }

    fn add_outcome(&mut self, mask: u8, n: u64) {
        self.finished += n;
        match self.outcomes.iter_mut().find(|(m, _)| *m == mask) {
            Some((_, c)) => *c += n,
            None => self.outcomes.push((mask, n)),
        }
    }

    /// Adds a subtree whose root is at relative depth `shift`.
    fn add(&mut self, t: &Tally, shift: usize) {
        if self.nodes.len() < t.nodes.len() + shift {
            self.nodes.resize(t.nodes.len() + shift, 0);
        }
        for (k, n) in t.nodes.iter().enumerate() {
            self.nodes[k + shift] += n;
        }
        for &(mask, n) in &t.outcomes {
            self.add_outcome(mask, n);
        }
    }

    fn clear(&mut self) {
        self.nodes.clear();
        self.finished = 0;
        self.outcomes.clear();
    }
}

/// The most bytes of states one walk keeps in its table of counted subtrees (per thread);
/// once it is full, positions already in it are still found, new ones are not added.
pub const TABLE_BYTES: usize = 256 << 20;

/// The fewest nodes a subtree must have for the table to keep it: walking a smaller one again
/// costs less than keeping a copy of its state.
const KEEP_MIN: u64 = 24;

/// Subtrees already counted, by position and the depth still to walk below them: a
/// position met again by another order of the same moves is counted once. Exact: a hit
/// compares the whole state ([`State::same_position`]), not only its hash.
#[derive(Default)]
struct Table {
    slots: HashMap<(u64, u32), Vec<usize>>,
    entries: Vec<(State, Tally)>,
    bytes: usize,
}

impl Table {
    fn find(&self, key: (u64, u32), st: &State) -> Option<&Tally> {
        let found = self.slots.get(&key)?;
        found
            .iter()
            .map(|&i| &self.entries[i])
            .find(|(s, _)| s.same_position(st))
            .map(|(_, t)| t)
    }

    /// Keeps `st`'s subtree; gives the state back when the table is full or the subtree is
    /// too small to be worth a copy of the state.
    fn keep(&mut self, key: (u64, u32), st: State, t: &Tally) -> Option<State> {
        let size = st.approx_bytes() + t.nodes.len() * 8 + 64;
        if t.nodes.iter().sum::<u64>() < KEEP_MIN || self.bytes + size > TABLE_BYTES {
            return Some(st);
        }
        self.bytes += size;
        self.slots.entry(key).or_default().push(self.entries.len());
        self.entries.push((st, t.clone()));
        None
    }
}

/// Walks every legal action (and every chance outcome) to `depth`, at most [`MAX_DEPTH`].
pub fn count(g: &Game, cfg: &Config, depth: u32) -> Result<Counts, RunError> {
    count_threads(g, cfg, depth, 1)
}

/// One depth of the walk: a state, its legal actions, the next one to try, and the counts
/// of its subtree so far.
struct Level {
    state: State,
    actions: Vec<Action>,
    next: usize,
    tally: Tally,
    /// The key of the state in the table (`None`: not to be kept).
    key: Option<(u64, u32)>,
}

/// Counts the subtree of `root`, a node at depth `d0`, down to depth `max`, into `c`.
fn walk(
    g: &Game,
    root: State,
    d0: u32,
    max: u32,
    c: &mut Counts,
    table: &mut Table,
) -> Result<(), RunError> {
    let mut stack: Vec<Level> = Vec::new();
    let mut spare: Vec<Vec<Action>> = Vec::new();
    let mut spare_tallies: Vec<Tally> = Vec::new();
    // States no longer on the path: copied into with `clone_from`, which reuses their room.
    let mut spare_states: Vec<State> = Vec::new();
    let mut node = Some((root, d0));
    // A finished subtree: added to the level above it, or to `c` at the root.
    let mut done: Option<Tally> = None;
    loop {
        if let Some((state, d)) = node.take() {
            let key = if d < max {
                state.position_hash().map(|h| (h, max - d))
            } else {
                None
            };
            let known = key.and_then(|k| table.find(k, &state));
            if let Some(t) = known {
                match stack.last_mut() {
                    Some(up) => up.tally.add(t, 1),
                    None => c.add(t, d as usize),
                }
                spare_states.push(state);
            } else {
                let mut tally = spare_tallies.pop().unwrap_or_default();
                tally.clear();
                if tally.visit(0, &state) && d < max {
                    let mut actions = spare.pop().unwrap_or_default();
                    g.legal(&state, &mut actions)?;
                    stack.push(Level {
                        state,
                        actions,
                        next: 0,
                        tally,
                        key,
                    });
                } else {
                    spare_states.push(state);
                    done = Some(tally);
                }
            }
        }
        if let Some(t) = done.take() {
            match stack.last_mut() {
                Some(up) => up.tally.add(&t, 1),
                None => c.add(&t, (d0 + stack.len() as u32) as usize),
            }
            spare_tallies.push(t);
        }
        let depth = d0 + stack.len() as u32;
        let Some(top) = stack.last_mut() else {
            return Ok(());
        };
        match top.actions.get(top.next) {
            Some(a) => {
                top.next += 1;
                let mut child = match spare_states.pop() {
                    Some(mut s) => {
                        s.clone_from(&top.state);
                        s
                    }
                    None => top.state.clone(),
                };
                g.apply_unchecked(&mut child, a)?;
                node = Some((child, depth));
            }
            None => {
                if let Some(level) = stack.pop() {
                    spare.push(level.actions);
                    match level.key {
                        Some(k) => {
                            if let Some(s) = table.keep(k, level.state, &level.tally) {
                                spare_states.push(s);
                            }
                        }
                        None => spare_states.push(level.state),
                    }
                    done = Some(level.tally);
                }
            }
        }
    }
}

/// [`count`] on `threads` threads: the root's children are shared out; the sums are the same.
pub fn count_threads(
    g: &Game,
    cfg: &Config,
    depth: u32,
    threads: usize,
) -> Result<Counts, RunError> {
    count_with(g, cfg, depth, threads, None)
}

/// [`count_threads`], calling `progress(done, of)` as each of the root's `of` children is
/// walked (none is called when the root has no children to walk). The counts are the same.
pub fn count_with(
    g: &Game,
    cfg: &Config,
    depth: u32,
    threads: usize,
    progress: Option<&(dyn Fn(u64, u64) + Sync)>,
) -> Result<Counts, RunError> {
    if depth > MAX_DEPTH {
        return Err(RunError::config(format!(
            "a depth of {depth} is beyond the limit of {MAX_DEPTH}"
        )));
    }
    let root = g.start(cfg)?;
    let mut total = Counts::default();
    let mut buf = Vec::new();
    g.legal(&root, &mut buf)?;
    if depth == 0 || root.is_over() || (threads <= 1 && progress.is_none()) {
        walk(g, root, 0, depth, &mut total, &mut Table::default())?;
    } else {
        let mut top = Tally::default();
        top.visit(0, &root);
        total.add(&top, 0);
        let threads = threads.min(buf.len()).max(1);
        let of = buf.len() as u64;
        let done = std::sync::atomic::AtomicU64::new(0);
        let parts = in_threads(threads, |t| -> Result<Counts, RunError> {
            let mut c = Counts::default();
            let mut table = Table::default();
            for a in buf.iter().skip(t).step_by(threads) {
                let mut next = root.clone();
                g.apply_unchecked(&mut next, a)?;
                walk(g, next, 1, depth, &mut c, &mut table)?;
                if let Some(p) = progress {
                    p(
                        done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1,
                        of,
                    );
                }
            }
            Ok(c)
        });
        for p in parts {
            let p = p.ok_or_else(|| RunError::rule("a counting thread panicked", None))??;
            total.merge(p);
        }
    }
    total.nodes.resize(depth as usize + 1, 0);
    Ok(total)
}
