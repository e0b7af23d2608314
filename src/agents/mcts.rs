//! Monte Carlo tree search (UCT) for any rules file.
//!
//! **Information sets.** The agent plays one seat and sees only what that seat may see: each
//! iteration starts from a fresh [`Game::determinize`] of the real state for that seat (the
//! hidden components and secret fields dealt anew, the state's generator reseeded, other
//! seats' hidden commitments dropped), which depends only on the seat's view. One tree
//! gathers the iterations over all these determinizations, its nodes standing for sequences
//! of decisions from the root: single-observer information-set MCTS (Cowling, Powley and
//! Whitehouse 2012), with each action's availability counted in place of its parent's visits.
//!
//! **Chance** is sampled: shuffles and rolls are settled by the determinization's reseeded
//! generator, or by a draw by weight when the state waits for an outcome of external
//! chance; chance outcomes do not branch the tree (open loop).
//!
//! **Simultaneous choices** (`choose each`): at a node where one waits, every pending seat
//! picks from its own statistics without seeing the others' picks (decoupled UCT); the node
//! reached depends on the joint choice.
//!
//! **Rewards** are in [0, 1] per seat, from the outcome and the scores ([`super::reward`]);
//! every seat maximises its own, so a cooperative game (`win all`, `end lose`) is played for
//! the one reward all seats share. A game's `heuristic`, when it declares one, is the
//! author's estimate of progress: it judges playouts stopped early and, where the seats
//! share their result, tells closer losses from worse ones; it never changes an outcome.
//!
//! **Budget and threads.** A decision runs a number of playouts ([`Budget::Playouts`]) or for
//! a time ([`Budget::Time`]). With several threads each runs its own tree from the same root
//! (root parallelism) on its share of the playouts, and the visits of the root's actions are
//! added up. The agent's choices depend only on its seed, the thread count, the budget in
//! playouts and what its seat sees; a time budget makes them depend on the machine's speed
//! too.
//!
//! **Speed.** Each iteration copies the real state into one working state kept between
//! iterations (`clone_from`, no allocation once warm) and plays it out with buffers kept
//! between iterations; the tree's arenas keep their memory between decisions.

use super::reward::Rewards;
use super::tree::Tree;
use super::{pick_chance, Agent};
use crate::engine::{Action, Actor, ChanceMode, OutcomeKind, RunError, State};
use crate::ir::vm::Step;
use crate::ir::{Game, Value};
use crate::ops::EndKind;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

use super::config::{Budget, MctsConfig, REUSE_DEPTH, REUSE_TRIES};

/// The stack of each search thread: deep rules recurse in the engine.
const THREAD_STACK: usize = 64 << 20;

/// One root action of the searching seat after a search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ActionStats {
    /// The action.
    pub action: Action,
    /// Playouts that took it first.
    pub visits: u64,
    /// Their mean reward for the seat, in [0, 1] (0 without visits).
    pub mean: f64,
    /// Its exact reward for the seat, when the search proved it (an exact search only).
    pub proven: Option<f64>,
}

impl ActionStats {
    /// An action no playout has taken yet.
    fn unvisited(action: Action) -> Self {
        ActionStats {
            action,
            visits: 0,
            mean: 0.0,
            proven: None,
        }
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Search {
    /// The action chosen: the most visited (then the best mean, then the first legal), or
    /// `None` when the seat has no legal action.
    pub best: Option<Action>,
    /// Each legal action of the seat, in the engine's order, with its statistics.
    pub actions: Vec<ActionStats>,
    /// Playouts run, over all threads.
    pub playouts: u64,
    /// Playouts stopped by an error of the rules (not counted in the statistics).
    pub errors: u64,
}

/// A Monte Carlo tree search agent (see the [module](self)).
pub struct Mcts {
    config: MctsConfig,
    rng: ChaCha8Rng,
    workers: Vec<Worker>,
}

impl Mcts {
    /// An agent searching as `config` says, its choices determined by `seed` (with a
    /// budget in playouts).
    pub fn new(config: MctsConfig, seed: u64) -> Self {
        Mcts {
            config,
            rng: ChaCha8Rng::seed_from_u64(seed),
            workers: Vec::new(),
        }
    }

    /// The same agent with new settings and seed, its trees kept (for tree reuse).
    pub fn renew(&mut self, config: MctsConfig, seed: u64) {
        self.config = config;
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }

    /// The configuration.
    pub fn config(&self) -> &MctsConfig {
        &self.config
    }

    /// Searches the decision of `seat` in `st` (its turn, or one of the pending seats of a
    /// `choose each`) from what `seat` may see.
    pub fn search(&mut self, g: &Game, st: &State, seat: u8) -> Result<Search, RunError> {
        let mut legal = Vec::new();
        g.legal_for(st, seat, &mut legal)?;
        Ok(self.search_among(g, st, seat, &legal))
    }

    /// [`Mcts::search`] among `legal`, the seat's legal actions.
    fn search_among(&mut self, g: &Game, st: &State, seat: u8, legal: &[Action]) -> Search {
        let seed: u64 = self.rng.gen();
        if legal.len() <= 1 {
            return Search {
                best: legal.first().copied(),
                actions: legal
                    .iter()
                    .map(|&action| ActionStats::unvisited(action))
                    .collect(),
                ..Search::default()
            };
        }
        let threads = self.config.threads.max(1);
        self.workers.truncate(threads);
        while self.workers.len() < threads {
            self.workers.push(Worker::default());
        }
        let config = &self.config;
        let exact = exact(g);
        let share = |t: usize| -> Limit {
            match config.budget {
                Budget::Playouts(n) => {
                    let n = n.max(1);
                    let t = t as u64;
                    let k = threads as u64;
                    Limit::Playouts(n / k + u64::from(t < n % k))
                }
                Budget::Time(d) => Limit::Until(Instant::now() + d),
            }
        };
        let run = |t: usize, w: &mut Worker| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            rng.set_stream(t as u64);
            w.run(g, st, seat, config, exact, share(t), rng);
        };
        if threads == 1 {
            run(0, &mut self.workers[0]);
        } else {
            let run = &run;
            std::thread::scope(|scope| {
                let handles: Vec<_> = self
                    .workers
                    .iter_mut()
                    .enumerate()
                    .map(|(t, w)| {
                        std::thread::Builder::new()
                            .stack_size(THREAD_STACK)
                            .spawn_scoped(scope, move || run(t, w))
                            .map_err(|_| t)
                    })
                    .collect();
                for h in handles {
                    // A worker that panicked or could not start adds nothing.
                    let _ = h.map(|h| h.join());
                }
            });
        }
        self.gather(seat, legal)
    }

    /// The root statistics of `seat` over all workers, and the action to play: a proven
    /// win; otherwise the most visited action that is not a proven loss (then the best mean,
    /// then the first).
    fn gather(&self, seat: u8, legal: &[Action]) -> Search {
        let mut actions: Vec<ActionStats> = legal
            .iter()
            .map(|&action| ActionStats::unvisited(action))
            .collect();
        let mut out = Search::default();
        for w in &self.workers {
            out.playouts += w.playouts;
            out.errors += w.errors;
            for e in w.tree.edges(0).filter(|e| e.seat == seat) {
                if let Some(s) = actions.iter_mut().find(|s| s.action == e.action) {
                    s.visits += u64::from(e.visits);
                    s.mean += e.value;
                    if let Some(r) = w.tree.edge_solution(e) {
                        s.proven = Some(r[seat as usize]);
                    }
                }
            }
        }
        for s in &mut actions {
            if s.visits > 0 {
                s.mean /= s.visits as f64;
            }
        }
        let key = |s: &ActionStats| {
            (
                s.proven.is_some_and(|v| v >= 1.0),
                s.proven.is_none_or(|v| v > 0.0),
                s.visits,
                s.mean,
            )
        };
        let mut best: Option<&ActionStats> = None;
        for s in &actions {
            if best.is_none_or(|b| key(s) > key(b)) {
                best = Some(s);
            }
        }
        out.best = best.map(|s| s.action);
        out.actions = actions;
        out
    }

    /// The action `seat` should take among `legal` (its legal actions), or `None` when there
    /// is none.
    pub fn choose_for(
        &mut self,
        g: &Game,
        st: &State,
        seat: u8,
        legal: &[Action],
    ) -> Option<Action> {
        self.search_among(g, st, seat, legal).best
    }
}

impl Agent for Mcts {
    /// Searches for the seat that must act; a chance outcome is drawn by its weight.
    fn choose(&mut self, g: &Game, st: &State, legal: &[Action]) -> Option<Action> {
        match g.actor(st) {
            Actor::Player(p) => self.choose_for(g, st, p, legal),
            Actor::Chance => pick_chance(g, st, &mut self.rng).ok().flatten(),
            Actor::Nobody => None,
        }
    }
}

/// When a worker stops.
#[derive(Clone, Copy)]
enum Limit {
    Playouts(u64),
    Until(Instant),
}

/// One thread's search: its tree and the buffers its iterations reuse.
#[derive(Default)]
struct Worker {
    tree: Tree,
    /// The real state the last search started from (tree reuse), and the tree's spare.
    root: Option<State>,
    spare: Tree,
    /// The state of the current iteration.
    work: Option<State>,
    legal: Vec<Action>,
    untried: Vec<Action>,
    outcomes: Vec<(Value, u32)>,
    /// The edges the iteration took, and the node each was taken at.
    path: Vec<u32>,
    nodes: Vec<u32>,
    rewards: Vec<f64>,
    /// Scratch state for trying moves in a playout.
    probe: Option<State>,
    /// The seats win or lose together ([`cooperative`]).
    cooperative: bool,
    /// MAST's table of action rewards, and the (seat, action key) moves of the iteration.
    mast: super::mast::Mast,
    trace: Vec<(u8, u64)>,
    /// For each edge of `path`: where its move is in `trace` (RAVE).
    marks: Vec<u32>,
    /// The moves of a trace's suffix (RAVE's update, scratch).
    seen: std::collections::HashSet<u64>,
    playouts: u64,
    errors: u64,
}

impl Worker {
    /// Searches the decision of `seat` in `real` until `limit`; `exact` when the seat sees
    /// everything and nothing is left to chance.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        g: &Game,
        real: &State,
        seat: u8,
        config: &MctsConfig,
        exact: bool,
        limit: Limit,
        mut rng: ChaCha8Rng,
    ) {
        let reused = config.reuse && exact && self.reroot(g, real);
        if !reused {
            self.tree.reset(real.players as usize);
        }
        if config.reuse && exact {
            match self.root.as_mut() {
                Some(r) => r.clone_from(real),
                None => self.root = Some(real.clone()),
            }
        }
        self.cooperative = cooperative(g);
        self.playouts = 0;
        self.errors = 0;
        self.rewards.clear();
        self.rewards.resize(real.players as usize, 0.0);
        // Without a `score` or a `heuristic`, the result alone is the reward.
        let weight = if g.score.is_some() || g.heuristic.is_some() {
            config.score_weight
        } else {
            0.0
        };
        let mut rewards = Rewards::new(weight);
        let mast = config.mast > 0.0;
        if mast {
            self.mast.clear();
        }
        let rave = config.rave > 0.0;
        loop {
            match limit {
                Limit::Playouts(n) if self.playouts >= n => break,
                Limit::Until(t) if self.playouts > 0 && Instant::now() >= t => break,
                _ => {}
            }
            self.playouts += 1;
            self.trace.clear();
            match self.iterate(g, real, seat, config, exact, &mut rewards, &mut rng) {
                Ok(()) => {
                    self.tree.backup(&self.path, &self.rewards);
                    if mast {
                        for &(s, key) in &self.trace {
                            self.mast.add(key, self.rewards[s as usize]);
                        }
                    }
                    if rave {
                        self.tree.amaf(
                            (&self.nodes, &self.marks),
                            &self.trace,
                            &self.rewards,
                            &mut self.seen,
                        );
                    }
                }
                Err(_) => self.errors += 1,
            }
        }
    }

    /// Tree reuse: finds the node of the last search's tree whose position is `real` (the
    /// root itself, else a walk of up to [`REUSE_DEPTH`] decisions, the most visited
    /// children first, at most [`REUSE_TRIES`] positions replayed) and makes the subtree
    /// below it the tree. Exact searches only, where a node stands for one position.
    fn reroot(&mut self, g: &Game, real: &State) -> bool {
        let Some(prev) = self.root.as_ref() else {
            return false;
        };
        if self.tree.is_empty() {
            return false;
        }
        if prev.same_position(real) {
            return true;
        }
        let mut frontier = vec![(0u32, prev.clone())];
        let mut tried = 0;
        for _ in 0..REUSE_DEPTH {
            let mut next = Vec::new();
            for (node, st) in &frontier {
                for (a, child) in self.tree.children_by_visits(*node) {
                    if tried == REUSE_TRIES {
                        return false;
                    }
                    tried += 1;
                    let mut s = st.clone();
                    if g.apply_unchecked(&mut s, &a).is_err() {
                        continue;
                    }
                    if s.same_position(real) {
                        self.tree.subtree_into(child, &mut self.spare);
                        std::mem::swap(&mut self.tree, &mut self.spare);
                        return true;
                    }
                    next.push((child, s));
                }
            }
            frontier = next;
        }
        false
    }

    /// One iteration: a determinization, a walk down the tree choosing by UCB until a new
    /// edge or a solved node, a random playout to the end; leaves the path and the rewards
    /// to back up.
    #[allow(clippy::too_many_arguments)]
    fn iterate(
        &mut self,
        g: &Game,
        real: &State,
        seat: u8,
        config: &MctsConfig,
        exact: bool,
        rewards: &mut Rewards,
        rng: &mut ChaCha8Rng,
    ) -> Result<(), RunError> {
        let work = self.work.get_or_insert_with(|| real.clone());
        if exact {
            work.clone_from(real);
        } else {
            g.determinize_into(real, Some(seat), rng, work);
        }
        if g.actor(work) != Actor::Chance {
            // Between chance events: the reseeded generator settles the next ones.
            work.chance = ChanceMode::Seeded;
        }
        self.path.clear();
        self.nodes.clear();
        self.marks.clear();
        let traced = config.mast > 0.0 || config.rave > 0.0;
        let mut node = 0;
        loop {
            if let Some(r) = self.tree.solution(node) {
                self.rewards.copy_from_slice(r);
                // What its parents know may have changed since it was solved (a sibling
                // solved, the last action tried).
                self.tree.propagate(&self.nodes, &self.path);
                return Ok(());
            }
            match g.actor(work) {
                Actor::Nobody => break,
                Actor::Chance => {
                    let a = chance(g, work, &mut self.outcomes, rng)?;
                    g.apply_unchecked(work, &a)?;
                }
                Actor::Player(p) if !simultaneous(g, work) => {
                    g.legal(work, &mut self.legal)?;
                    if self.legal.is_empty() {
                        return Err(RunError::rule("no legal action", None));
                    }
                    let (e, new) = self.tree.select(
                        node,
                        p,
                        &self.legal,
                        (config.exploration, config.widen, config.rave),
                        &mut self.untried,
                        rng,
                    );
                    let a = self.tree.action(e);
                    self.marks.push(self.trace.len() as u32);
                    if traced {
                        self.trace.push((p, super::mast::key(p, &a)));
                    }
                    g.apply_unchecked(work, &a)?;
                    self.path.push(e);
                    self.nodes.push(node);
                    if new {
                        break;
                    }
                    node = self.tree.child(e);
                }
                Actor::Player(_) => {
                    // Every pending seat picks without seeing the others' picks.
                    let mut key = 0xcbf2_9ce4_8422_2325_u64;
                    let mut new = false;
                    let before = self.path.len();
                    for s in g.pending(work) {
                        g.legal_for(work, s, &mut self.legal)?;
                        if self.legal.is_empty() {
                            continue;
                        }
                        let (e, fresh) = self.tree.select(
                            node,
                            s,
                            &self.legal,
                            (config.exploration, config.widen, config.rave),
                            &mut self.untried,
                            rng,
                        );
                        let a = self.tree.action(e);
                        self.marks.push(self.trace.len() as u32);
                        if traced {
                            self.trace.push((s, super::mast::key(s, &a)));
                        }
                        g.apply_for_unchecked(work, s, &a)?;
                        self.path.push(e);
                        self.nodes.push(node);
                        key = (key ^ u64::from(e)).wrapping_mul(0x0100_0000_01b3);
                        new |= fresh;
                    }
                    if self.path.len() == before {
                        return Err(RunError::rule("no pending seat can act", None));
                    }
                    if new {
                        break;
                    }
                    node = self.tree.joint_child(node, key);
                }
            }
        }
        if let (true, Some(o), Some(&last)) = (exact, work.outcome(), self.path.last()) {
            // A finished game is known exactly: solve its node and what it decides above.
            let progress = final_progress(g, work, self.cooperative)?;
            rewards.finished(o, progress.as_deref(), &mut self.rewards);
            let child = self.tree.child(last);
            self.tree.solve(child, &self.rewards);
            self.tree.propagate(&self.nodes, &self.path);
            return Ok(());
        }
        self.rollout(g, config, rewards, rng)
    }

    /// Plays the working state to its end at random (chance by weight) and sets the rewards.
    fn rollout(
        &mut self,
        g: &Game,
        config: &MctsConfig,
        rewards: &mut Rewards,
        rng: &mut ChaCha8Rng,
    ) -> Result<(), RunError> {
        let max = config.max_rollout;
        let Some(work) = self.work.as_mut() else {
            return Err(RunError::rule("no state to play out", None));
        };
        let mut steps = 0;
        loop {
            let a = match g.actor(work) {
                Actor::Nobody if work.outcome().is_some() => {
                    let progress = final_progress(g, work, self.cooperative)?;
                    if let Some(o) = work.outcome() {
                        rewards.finished(o, progress.as_deref(), &mut self.rewards);
                    }
                    return Ok(());
                }
                Actor::Nobody => break,
                _ if steps >= max => break,
                Actor::Chance => chance(g, work, &mut self.outcomes, rng)?,
                Actor::Player(p) => {
                    g.legal(work, &mut self.legal)?;
                    if self.legal.is_empty() {
                        return Err(RunError::rule("no legal action", None));
                    }
                    let winning = if config.decisive && self.legal.len() > 1 {
                        decisive(g, work, p, &self.legal, &mut self.probe)
                    } else {
                        None
                    };
                    let greedy = winning.is_none()
                        && self.legal.len() > 1
                        && config.greedy > 0.0
                        && rng.gen_bool(config.greedy.min(1.0));
                    let mast = !greedy
                        && winning.is_none()
                        && self.legal.len() > 1
                        && config.mast > 0.0
                        && rng.gen_bool(config.mast.min(1.0));
                    let a = match winning {
                        Some(a) => a,
                        None if greedy => {
                            let probe = &mut self.probe;
                            let sample = config.sample;
                            greedy_move(
                                g,
                                work,
                                p,
                                &mut self.legal,
                                sample,
                                probe,
                                self.cooperative,
                                rng,
                            )
                        }
                        None if mast => self.mast.best(p, &self.legal),
                        None => self.legal[rng.gen_range(0..self.legal.len())],
                    };
                    if config.mast > 0.0 || config.rave > 0.0 {
                        self.trace.push((p, super::mast::key(p, &a)));
                    }
                    a
                }
            };
            g.apply_unchecked(work, &a)?;
            steps += 1;
        }
        // Stopped before the end: judged by the heuristic, else the scores, now.
        let progress = match (g.heuristics(work)?, &g.score) {
            (Some(h), _) => Some(h),
            (None, Some(_)) => Some(g.scores(work)?),
            (None, None) => None,
        };
        rewards.cut(progress.as_deref(), self.cooperative, &mut self.rewards);
        Ok(())
    }
}

/// The `heuristic` of a finished game, when the game declares one and its seats share their
/// result (`cooperative`, or one seat): what a shared reward is blended with; else `None`.
fn final_progress(g: &Game, st: &State, cooperative: bool) -> Result<Option<Vec<i64>>, RunError> {
    if cooperative || st.players == 1 {
        g.heuristics(st)
    } else {
        Ok(None)
    }
}

/// Whether a search of `g` is exact: every seat sees everything ([`Game::hides_nothing`]),
/// nothing is left to chance once the setup is over (no shuffle or roll outside it) and no
/// choice is simultaneous (`choose each`), so the real state is the only one a seat cannot
/// tell from it, every action has one result and one seat moves at each node: what the
/// solver needs.
fn exact(g: &Game) -> bool {
    g.hides_nothing()
        && g.choices.iter().all(|c| c.each.is_none())
        && g.program.procs.ids().all(|p| {
            Some(p) == g.setup
                || !g.program.procs[p]
                    .iter()
                    .any(|s| matches!(s, Step::Roll { .. } | Step::Shuffle { .. }))
        })
        && g.program.procs.ids().all(|p| {
            !g.program.procs[p]
                .iter()
                .any(|s| matches!(s, Step::Simul { .. }))
        })
}

/// A move of `seat` among `legal` after which the game is over and `seat` among its winners,
/// tried one by one on `probe` (a scratch copy of `st`).
fn decisive(
    g: &Game,
    st: &State,
    seat: u8,
    legal: &[Action],
    probe: &mut Option<State>,
) -> Option<Action> {
    let probe = probe.get_or_insert_with(|| st.clone());
    legal.iter().copied().find(|a| {
        probe.clone_from(st);
        g.apply_unchecked(probe, a).is_ok()
            && probe.outcome().is_some_and(|o| {
                o.kind != OutcomeKind::Lost
                    && o.kind != OutcomeKind::Draw
                    && o.winners.contains(&seat)
            })
    })
}

/// A playout move of `seat` among `legal` (reordered: it is scratch space): up to `sample`
/// of them drawn at random, each tried on `probe`, the one with the best value for `seat`
/// after it ([`move_value`]), the first drawn among equals.
#[allow(clippy::too_many_arguments)]
fn greedy_move(
    g: &Game,
    st: &State,
    seat: u8,
    legal: &mut [Action],
    sample: usize,
    probe: &mut Option<State>,
    cooperative: bool,
    rng: &mut ChaCha8Rng,
) -> Action {
    let k = sample.clamp(1, legal.len());
    for i in 0..k {
        let j = rng.gen_range(i..legal.len());
        legal.swap(i, j);
    }
    let probe = probe.get_or_insert_with(|| st.clone());
    let mut best = (legal[0], i64::MIN);
    for a in &legal[..k] {
        probe.clone_from(st);
        if g.apply_unchecked(probe, a).is_err() {
            continue;
        }
        if let Some(v) = move_value(g, probe, seat, cooperative) {
            if v > best.1 {
                best = (*a, v);
            }
        }
    }
    best.0
}

/// What a state is worth to `seat` for a greedy playout move: a finished game by its
/// result (a win above everything, a loss below), else the seat's `heuristic` (else its
/// `score`) less the best other seat's, or the seats' total when they share their result;
/// `None` on an error of the rules.
fn move_value(g: &Game, st: &State, seat: u8, cooperative: bool) -> Option<i64> {
    const WIN: i64 = i64::MAX / 2;
    if let Some(o) = st.outcome() {
        let won =
            o.kind != OutcomeKind::Lost && o.kind != OutcomeKind::Draw && o.winners.contains(&seat);
        return Some(match o.kind {
            _ if won => WIN,
            OutcomeKind::Draw => 0,
            _ => -WIN,
        });
    }
    let values = match g.heuristics(st).ok()? {
        Some(h) => h,
        None if g.score.is_some() => g.scores(st).ok()?,
        None => return Some(0),
    };
    let mine = *values.get(seat as usize)?;
    if cooperative || values.len() == 1 {
        return Some(values.iter().fold(0i64, |a, &v| a.saturating_add(v)));
    }
    let other = values
        .iter()
        .enumerate()
        .filter(|&(q, _)| q != seat as usize)
        .map(|(_, &v)| v)
        .max()
        .unwrap_or(0);
    Some(mine.saturating_sub(other).clamp(-WIN + 1, WIN - 1))
}

/// Whether the seats of `g` win or lose together: its rules can end the game with `end
/// lose` (everybody loses). A playout stopped early is then judged for all seats at once.
fn cooperative(g: &Game) -> bool {
    g.program.procs.ids().any(|p| {
        g.program.procs[p]
            .iter()
            .any(|s| matches!(s, Step::End(EndKind::Lose)))
    })
}

/// Whether a `choose each` or a simultaneous block waits in `st`.
fn simultaneous(g: &Game, st: &State) -> bool {
    g.in_block(st)
        || g.waiting_choice(st)
            .is_some_and(|c| g.choices[c].each.is_some())
}

/// An outcome of the waiting chance event drawn by its weight (`outcomes` is scratch space).
fn chance(
    g: &Game,
    st: &State,
    outcomes: &mut Vec<(Value, u32)>,
    rng: &mut ChaCha8Rng,
) -> Result<Action, RunError> {
    outcomes.clear();
    let total = g.chance_outcomes(st, &mut |v, w| outcomes.push((v, w)))?;
    if total > 0 {
        let mut r = rng.gen_range(0..total);
        for &(v, w) in outcomes.iter() {
            if r < w {
                return Ok(Action::chance(v));
            }
            r -= w;
        }
    }
    Err(RunError::rule("no chance outcome", None))
}
