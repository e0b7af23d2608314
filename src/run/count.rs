//! `count`: every legal action and every chance outcome, to a depth.
//!
//! The walk keeps an explicit stack of states (one per depth on the current path, with the
//! legal actions still to try), so a deep tree cannot overflow the thread's stack, and the
//! node counts grow with the depths actually reached.

use super::in_threads;
use crate::engine::{Action, Config, RunError, State};
use crate::ir::Game;
use std::collections::BTreeMap;

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
    /// Counts a node at depth `d`; true when the game goes on there.
    fn visit(&mut self, d: u32, st: &State) -> bool {
        let d = d as usize;
        if self.nodes.len() <= d {
            self.nodes.resize(d + 1, 0);
        }
        self.nodes[d] += 1;
        let Some(o) = st.outcome() else {
            return true;
        };
        self.finished += 1;
        let key = if o.winners.is_empty() {
            "none".to_string()
        } else {
            o.winners
                .iter()
                .map(|w| format!("p{}", w + 1))
                .collect::<Vec<_>>()
                .join("+")
        };
        *self.outcomes.entry(key).or_insert(0) += 1;
        false
    }

    fn add(&mut self, other: Counts) {
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

/// Walks every legal action (and every chance outcome) to `depth`, at most [`MAX_DEPTH`].
pub fn count(g: &Game, cfg: &Config, depth: u32) -> Result<Counts, RunError> {
    count_threads(g, cfg, depth, 1)
}

/// One depth of the walk: a state, its legal actions, and the next one to try.
struct Level {
    state: State,
    actions: Vec<Action>,
    next: usize,
}

/// Counts the subtree of `root`, a node at depth `d0`, down to depth `max`.
fn walk(g: &Game, root: State, d0: u32, max: u32, c: &mut Counts) -> Result<(), RunError> {
    let mut stack: Vec<Level> = Vec::new();
    let mut spare: Vec<Vec<Action>> = Vec::new();
    // States no longer on the path: copied into with `clone_from`, which reuses their room.
    let mut spare_states: Vec<State> = Vec::new();
    let mut node = Some((root, d0));
    loop {
        if let Some((state, d)) = node.take() {
            if c.visit(d, &state) && d < max {
                let mut actions = spare.pop().unwrap_or_default();
                g.legal(&state, &mut actions)?;
                stack.push(Level {
                    state,
                    actions,
                    next: 0,
                });
            } else {
                spare_states.push(state);
            }
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
                if let Some(done) = stack.pop() {
                    spare.push(done.actions);
                    spare_states.push(done.state);
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
    if depth > MAX_DEPTH {
        return Err(RunError::config(format!(
            "a depth of {depth} is beyond the limit of {MAX_DEPTH}"
        )));
    }
    let root = g.start(cfg)?;
    let mut total = Counts::default();
    let mut buf = Vec::new();
    g.legal(&root, &mut buf)?;
    if depth == 0 || root.is_over() || threads <= 1 {
        walk(g, root, 0, depth, &mut total)?;
    } else {
        total.visit(0, &root);
        let threads = threads.min(buf.len()).max(1);
        let parts = in_threads(threads, |t| -> Result<Counts, RunError> {
            let mut c = Counts::default();
            for a in buf.iter().skip(t).step_by(threads) {
                let mut next = root.clone();
                g.apply_unchecked(&mut next, a)?;
                walk(g, next, 1, depth, &mut c)?;
            }
            Ok(c)
        });
        for p in parts {
            let p = p.ok_or_else(|| RunError::rule("a counting thread panicked", None))??;
            total.add(p);
        }
    }
    total.nodes.resize(depth as usize + 1, 0);
    Ok(total)
}
