//! The search tree of [`super::Mcts`]: flat arenas of nodes, edges and joint moves, indexed by
//! `u32`, cleared and refilled for every decision without giving their memory back.
//!
//! A node stands for a sequence of decisions from the root (open loop): the state reached by
//! it differs from one determinization to the next, so its edges are the actions found legal
//! there so far, each with the number of times it was available (information-set UCT). A node
//! where a `choose each` waits holds the edges of every pending seat side by side, each seat
//! choosing by its own statistics without seeing the others' (decoupled UCT); its children
//! are keyed by the joint choice.
//!
//! When the search is exact (the seat sees everything and nothing is left to chance), nodes
//! whose value is known for certain are solved (MCTS-Solver, Winands, Björnsson and Saito
//! 2008): a finished game; a node where the seat to move has a solved child giving it the
//! best reward there is (1); a node whose every legal action leads to a solved child (the
//! mover takes the best of them). The walk stops at a solved node and backs up its value.

use crate::engine::Action;
use rand::Rng;

/// No node, edge or joint move.
const NONE: u32 = u32::MAX;

struct Node {
    first_edge: u32,
    last_edge: u32,
    first_joint: u32,
    /// Where its exact rewards (one per seat) start in `Tree::solved`, once solved.
    solved: u32,
    /// Every legal action has an edge (in an exact search, where the legal set is fixed).
    complete: bool,
}

/// An action of one seat at a node, with its statistics.
pub(crate) struct Edge {
    pub action: Action,
    /// The seat that takes it.
    pub seat: u8,
    /// Iterations that took it.
    pub visits: u32,
    /// Iterations in which it was legal when its node was reached.
    pub avail: u32,
    /// The sum of the rewards of `seat` over the iterations that took it.
    pub value: f64,
    /// Its key ([`super::mast::key`]: its seat and action).
    key: u64,
    /// Iterations through its node in which its seat took its action then or later (RAVE's
    /// all-moves-as-first count), and the sum of that seat's rewards in them.
    amaf_visits: u32,
    amaf_value: f64,
    /// The node it leads to, once visited twice.
    child: u32,
    next: u32,
}

/// A child of a `choose each` node: the node reached by one joint choice.
struct Joint {
    key: u64,
    child: u32,
    next: u32,
}

/// The tree: node 0 is the root.
#[derive(Default)]
pub(crate) struct Tree {
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    joints: Vec<Joint>,
    /// The exact rewards of solved nodes, `players` per node.
    solved: Vec<f64>,
    players: usize,
}

impl Tree {
    /// Empties the tree and makes a new root (node 0), for a game of `players` seats.
    pub fn reset(&mut self, players: usize) {
        self.nodes.clear();
        self.edges.clear();
        self.joints.clear();
        self.solved.clear();
        self.players = players;
        self.new_node();
    }

    fn new_node(&mut self) -> u32 {
        self.nodes.push(Node {
            first_edge: NONE,
            last_edge: NONE,
            first_joint: NONE,
            solved: NONE,
            complete: false,
        });
        (self.nodes.len() - 1) as u32
    }

    /// The exact rewards of a solved node.
    pub fn solution(&self, node: u32) -> Option<&[f64]> {
        match self.nodes[node as usize].solved {
            NONE => None,
            at => Some(&self.solved[at as usize..at as usize + self.players]),
        }
    }

    /// The exact rewards of the node an edge leads to, when solved.
    pub fn edge_solution(&self, edge: &Edge) -> Option<&[f64]> {
        match edge.child {
            NONE => None,
            c => self.solution(c),
        }
    }

    /// Marks a node solved with these rewards (one per seat).
    pub fn solve(&mut self, node: u32, rewards: &[f64]) {
        if self.nodes[node as usize].solved == NONE {
            self.nodes[node as usize].solved = self.solved.len() as u32;
            self.solved.extend_from_slice(rewards);
        }
    }

    /// After `nodes[k]` was solved: solves the nodes above it on the walk that are solved
    /// now (`nodes[i]` is where `path[i]` was taken, `nodes[i + 1]` where it led).
    pub fn propagate(&mut self, nodes: &[u32], path: &[u32]) {
        for i in (0..path.len()).rev() {
            let (node, e) = (nodes[i], path[i]);
            if self.solution(node).is_some() {
                continue;
            }
            let seat = self.edges[e as usize].seat as usize;
            let best = self.best_solved(node, seat);
            match best {
                Some((value, child, all)) if value >= 1.0 || all => {
                    let at = self.nodes[child as usize].solved as usize;
                    let rewards: Vec<f64> = self.solved[at..at + self.players].to_vec();
                    self.solve(node, &rewards);
                }
                _ => return,
            }
        }
    }

    /// Among a node's solved children: the best reward for `seat`, the child giving it, and
    /// whether every legal action of the node leads to a solved child.
    fn best_solved(&self, node: u32, seat: usize) -> Option<(f64, u32, bool)> {
        let mut all = self.nodes[node as usize].complete;
        let mut best: Option<(f64, u32)> = None;
        let mut e = self.nodes[node as usize].first_edge;
        while e != NONE {
            let edge = &self.edges[e as usize];
            match self.edge_solution(edge) {
                Some(r) if best.is_none_or(|b| r[seat] > b.0) => best = Some((r[seat], edge.child)),
                Some(_) => {}
                None => all = false,
            }
            e = edge.next;
        }
        best.map(|(v, c)| (v, c, all))
    }

    /// The edges of a node, in the order they were added.
    pub fn edges(&self, node: u32) -> impl Iterator<Item = &Edge> {
        let mut e = self.nodes[node as usize].first_edge;
        std::iter::from_fn(move || {
            let edge = self.edges.get(e as usize)?;
            e = edge.next;
            Some(edge)
        })
    }

    /// Chooses the action of `seat` at `node` among `legal` (the seat's legal actions in this
    /// iteration's state, never empty): an action never tried here yet, at random among
    /// them; otherwise the one with the highest upper confidence bound, counting each
    /// edge's availability instead of its parent's visits. Every legal edge's availability is
    /// counted. With progressive widening (`widen` above 0) an untried action is added only
    /// while the seat's edges legal here number fewer than `widen * sqrt(n + 1)` (rounded
    /// up), `n` their visits: a node with many actions gets a few well-visited ones instead
    /// of one visit each. Returns the edge and whether it is new. `untried` is scratch space.
    #[allow(clippy::too_many_arguments)]
    pub fn select(
        &mut self,
        node: u32,
        seat: u8,
        legal: &[Action],
        (exploration, widen, rave): (f64, f64, f64),
        untried: &mut Vec<Action>,
        rng: &mut impl Rng,
    ) -> (u32, bool) {
        untried.clear();
        let (mut best, mut best_ucb) = (NONE, f64::NEG_INFINITY);
        let (mut found_edges, mut visits) = (0u32, 0u64);
        let first = self.nodes[node as usize].first_edge;
        // Legal actions usually come in the order their edges were added: look for each one
        // from where the last one was found.
        let mut cursor = first;
        for a in legal {
            let found = self
                .find(cursor, NONE, seat, a)
                .or_else(|| self.find(first, cursor, seat, a));
            let Some(e) = found else {
                untried.push(*a);
                continue;
            };
            cursor = self.edges[e as usize].next;
            self.edges[e as usize].avail += 1;
            if !untried.is_empty() && widen <= 0.0 {
                continue;
            }
            let edge = &self.edges[e as usize];
            found_edges += 1;
            visits += u64::from(edge.visits);
            let ucb = match self.edge_solution(edge) {
                // Known exactly: no need to explore it.
                Some(r) => r[seat as usize],
                None => {
                    let n = f64::from(edge.visits.max(1));
                    let mut mean = edge.value / n;
                    if rave > 0.0 && edge.amaf_visits > 0 {
                        let beta = (rave / (3.0 * f64::from(edge.visits) + rave)).sqrt();
                        let amaf = edge.amaf_value / f64::from(edge.amaf_visits);
                        mean = (1.0 - beta) * mean + beta * amaf;
                    }
                    mean + exploration * (f64::from(edge.avail).ln() / n).sqrt()
                }
            };
            if ucb > best_ucb {
                (best, best_ucb) = (e, ucb);
            }
        }
        if untried.is_empty() {
            self.nodes[node as usize].complete = true;
            return (best, false);
        }
        if widen > 0.0
            && best != NONE
            && f64::from(found_edges) >= (widen * ((visits + 1) as f64).sqrt()).ceil()
        {
            return (best, false);
        }
        let a = untried[rng.gen_range(0..untried.len())];
        // The last action without an edge gets one: the node is complete (what the solver
        // needs to know when this edge's child is solved at once).
        if untried.len() == 1 {
            self.nodes[node as usize].complete = true;
        }
        (self.add_edge(node, seat, a), true)
    }

    /// The edge of `seat` with action `a` in the list from `from` up to `to` (exclusive).
    fn find(&self, from: u32, to: u32, seat: u8, a: &Action) -> Option<u32> {
        let mut e = from;
        while e != to && e != NONE {
            let edge = &self.edges[e as usize];
            if edge.seat == seat && edge.action == *a {
                return Some(e);
            }
            e = edge.next;
        }
        None
    }

    fn add_edge(&mut self, node: u32, seat: u8, action: Action) -> u32 {
        let e = self.edges.len() as u32;
        self.edges.push(Edge {
            action,
            seat,
            visits: 0,
            avail: 1,
            value: 0.0,
            key: super::mast::key(seat, &action),
            amaf_visits: 0,
            amaf_value: 0.0,
            child: NONE,
            next: NONE,
        });
        let n = &mut self.nodes[node as usize];
        match n.last_edge {
            NONE => n.first_edge = e,
            last => self.edges[last as usize].next = e,
        }
        self.nodes[node as usize].last_edge = e;
        e
    }

    /// Makes `out` the subtree below `node`, `node` its root (node 0): its nodes, edges,
    /// joint children and solutions with their statistics, each list in the same order
    /// (tree reuse between decisions). `out`'s memory is reused.
    pub fn subtree_into(&self, node: u32, out: &mut Tree) {
        out.reset(self.players);
        let mut stack = vec![(node, 0u32)];
        while let Some((old, new)) = stack.pop() {
            let n = &self.nodes[old as usize];
            out.nodes[new as usize].complete = n.complete;
            if let Some(r) = self.solution(old) {
                out.solve(new, r);
            }
            let mut e = n.first_edge;
            while e != NONE {
                let edge = &self.edges[e as usize];
                let child = match edge.child {
                    NONE => NONE,
                    c => {
                        let copy = out.new_node();
                        stack.push((c, copy));
                        copy
                    }
                };
                let id = out.edges.len() as u32;
                out.edges.push(Edge {
                    child,
                    next: NONE,
                    ..*edge
                });
                match out.nodes[new as usize].last_edge {
                    NONE => out.nodes[new as usize].first_edge = id,
                    last => out.edges[last as usize].next = id,
                }
                out.nodes[new as usize].last_edge = id;
                e = edge.next;
            }
            let (mut j, mut last) = (n.first_joint, NONE);
            while j != NONE {
                let joint = &self.joints[j as usize];
                let child = out.new_node();
                stack.push((joint.child, child));
                let id = out.joints.len() as u32;
                out.joints.push(Joint {
                    key: joint.key,
                    child,
                    next: NONE,
                });
                match last {
                    NONE => out.nodes[new as usize].first_joint = id,
                    l => out.joints[l as usize].next = id,
                }
                last = id;
                j = joint.next;
            }
        }
    }

    /// The children of a node that have nodes of their own, most visited first: each edge
    /// with its action and child.
    pub fn children_by_visits(&self, node: u32) -> Vec<(Action, u32)> {
        let mut out: Vec<(u32, Action, u32)> = self
            .edges(node)
            .filter(|e| e.child != NONE)
            .map(|e| (e.visits, e.action, e.child))
            .collect();
        out.sort_by_key(|e| std::cmp::Reverse(e.0));
        out.into_iter().map(|(_, a, c)| (a, c)).collect()
    }

    /// Whether the tree has no edge yet.
    pub fn is_empty(&self) -> bool {
        self.edges.is_empty()
    }

    /// The action of an edge.
    pub fn action(&self, edge: u32) -> Action {
        self.edges[edge as usize].action
    }

    /// The node an edge leads to, made on the first call.
    pub fn child(&mut self, edge: u32) -> u32 {
        match self.edges[edge as usize].child {
            NONE => {
                let c = self.new_node();
                self.edges[edge as usize].child = c;
                c
            }
            c => c,
        }
    }

    /// The child of a `choose each` node reached by the joint choice `key`, made on the
    /// first call.
    pub fn joint_child(&mut self, node: u32, key: u64) -> u32 {
        let mut j = self.nodes[node as usize].first_joint;
        while j != NONE {
            let joint = &self.joints[j as usize];
            if joint.key == key {
                return joint.child;
            }
            j = joint.next;
        }
        let child = self.new_node();
        self.joints.push(Joint {
            key,
            child,
            next: self.nodes[node as usize].first_joint,
        });
        self.nodes[node as usize].first_joint = (self.joints.len() - 1) as u32;
        child
    }

    /// RAVE's update after an iteration: at each node of its path (`nodes`, with `marks`,
    /// where each step's move is in `trace`), every edge whose seat took its action at that
    /// step or later in the iteration (the tree's moves and the playout's, `trace`) counts the
    /// iteration and its seat's reward. A node of several steps (a `choose each`) is counted
    /// once, from its first step.
    pub fn amaf(
        &mut self,
        (nodes, marks): (&[u32], &[u32]),
        trace: &[(u8, u64)],
        rewards: &[f64],
        seen: &mut std::collections::HashSet<u64>,
    ) {
        seen.clear();
        let mut upto = trace.len();
        for i in (0..nodes.len().min(marks.len())).rev() {
            let from = (marks[i] as usize).min(upto);
            seen.extend(trace[from..upto].iter().map(|&(_, k)| k));
            upto = from;
            if i > 0 && nodes[i - 1] == nodes[i] {
                continue;
            }
            let mut e = self.nodes[nodes[i] as usize].first_edge;
            while e != NONE {
                let edge = &mut self.edges[e as usize];
                if seen.contains(&edge.key) {
                    edge.amaf_visits += 1;
                    edge.amaf_value += rewards.get(edge.seat as usize).copied().unwrap_or(0.5);
                }
                e = edge.next;
            }
        }
    }

    /// Adds one iteration's rewards (per seat) to the edges it took.
    pub fn backup(&mut self, path: &[u32], rewards: &[f64]) {
        for &e in path {
            let edge = &mut self.edges[e as usize];
            edge.visits += 1;
            edge.value += rewards.get(edge.seat as usize).copied().unwrap_or(0.5);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Steps;
    use crate::ir::{Value, MAX_ARGS};

    fn act(k: u32) -> Action {
        let mut args = [Value::None; MAX_ARGS];
        args[0] = Value::Int(k as i64);
        Action {
            arm: 0,
            args,
            steps: Steps::NONE,
        }
    }

    // RAVE's all-moves-as-first rule: an edge of a node on the path counts an iteration when
    // its seat took its action at that step or later (in the tree or the playout), with that
    // seat's reward; the same action by another seat, or taken before the node, does not.
    #[test]
    fn amaf_counts_the_actions_a_seat_took_at_or_after_each_node() {
        let mut t = Tree::default();
        t.reset(2);
        let mut rng = rand::rngs::mock::StepRng::new(0, 1);
        let mut untried = vec![];
        let legal = [act(1), act(2), act(3)];
        // Three edges of seat 0 at the root; the first is taken, and leads to node 1.
        for _ in 0..3 {
            t.select(0, 0, &legal, (0.5, 0.0, 0.0), &mut untried, &mut rng);
        }
        let taken = t.nodes[0].first_edge;
        let child = t.child(taken);
        // Seat 1 at node 1: actions 1 and 2.
        for _ in 0..2 {
            t.select(
                child,
                1,
                &legal[..2],
                (0.5, 0.0, 0.0),
                &mut untried,
                &mut rng,
            );
        }
        let key = |s: u8, k: u32| super::super::mast::key(s, &act(k));
        let a0 = t.action(taken);
        let k0 = match a0.args[0] {
            Value::Int(k) => k as u32,
            _ => unreachable!("built above"),
        };
        // The iteration: seat 0 took a0 at the root (trace 0), seat 1 took action 2 at node 1
        // (trace 1), then in the playout seat 0 took action 3 and seat 1 action 1.
        let trace = [
            (0, key(0, k0)),
            (1, key(1, 2)),
            (0, key(0, 3)),
            (1, key(1, 1)),
        ];
        let mut seen = Default::default();
        t.amaf((&[0, child], &[0, 1]), &trace, &[1.0, 0.25], &mut seen);
        let stats = |node: u32| {
            let mut out = vec![];
            let mut e = t.nodes[node as usize].first_edge;
            while e != NONE {
                let edge = &t.edges[e as usize];
                let k = match edge.action.args[0] {
                    Value::Int(k) => k,
                    _ => unreachable!("built above"),
                };
                out.push((k, edge.amaf_visits, edge.amaf_value));
                e = edge.next;
            }
            out.sort_by_key(|x| x.0);
            out
        };
        // At the root (seat 0): a0 and action 3 were taken by seat 0, with its reward 1.
        let root = stats(0);
        for (k, visits, value) in root {
            let taken_by_0 = k as u32 == k0 || k == 3;
            assert_eq!(
                (visits, value),
                if taken_by_0 { (1, 1.0) } else { (0, 0.0) },
                "{k}"
            );
        }
        // At node 1 (seat 1): both 1 and 2 were taken by seat 1 after it, reward 0.25.
        assert_eq!(stats(child), vec![(1, 1, 0.25), (2, 1, 0.25)]);
    }
}
