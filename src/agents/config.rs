//! The settings of the MCTS agent ([`super::Mcts`]): its budget, exploration, playout
//! policies (greedy, MAST), RAVE, progressive widening and tree reuse, with their defaults.

use std::time::Duration;

/// How much search a decision gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// This many playouts (iterations) per decision, over all threads.
    Playouts(u64),
    /// Search for this long per decision (on every thread); not reproducible.
    Time(Duration),
}

/// Playouts per decision unless told otherwise.
pub const DEFAULT_PLAYOUTS: u64 = 1000;

/// How [`super::Mcts`] searches.
#[derive(Clone, Debug, PartialEq)]
pub struct MctsConfig {
    /// Playouts or time per decision.
    pub budget: Budget,
    /// The exploration constant `c` of UCB1 (`mean + c * sqrt(ln(available) / visits)`,
    /// rewards in [0, 1]). 0.5 by default: on Connect Four at 2,000 playouts it beat the
    /// textbook-like 1 (OpenSpiel's `uct_c = 2` on returns in [-1, 1]); see README.md.
    pub exploration: f64,
    /// The weight of the score margin in the reward (0: win, draw or loss only); see
    /// [`super::reward`].
    pub score_weight: f64,
    /// Threads searching each decision (root parallelism); at least 1.
    pub threads: usize,
    /// Decisions a playout may take before it is stopped and judged by the game's
    /// `heuristic`, else its `score` (a draw without either); see [`super::reward`].
    pub max_rollout: u64,
    /// Playouts take a move that wins at once when the mover has one (decisive moves,
    /// Teytaud and Teytaud 2010), trying each legal move first: slower playouts that see
    /// threats.
    pub decisive: bool,
    /// The probability that a playout move is chosen greedily by the game's `heuristic`
    /// (else its `score`): up to [`MctsConfig::sample`] of the mover's legal actions, drawn at
    /// random, are each tried on a scratch state and the one leaving the mover best placed is
    /// played (ties to the first drawn). 0, the default, plays uniformly at random.
    pub greedy: f64,
    /// Candidate actions a greedy playout move tries (at least 1).
    pub sample: usize,
    /// Progressive widening: a node gets a new action only while the actions tried there
    /// number fewer than `widen * sqrt(visits + 1)`, rounded up (0, the default: every
    /// legal action is tried once before any is tried again). For games with many actions
    /// a decision and few playouts, where otherwise no action is compared with another.
    pub widen: f64,
    /// MAST (move-average sampling, Finnsson and Björnsson 2008), ε-greedy as Tak, Winands
    /// and Björnsson 2012: the probability that a playout move is the mover's legal action
    /// with the best mean reward over the playouts of this decision that took it (for that
    /// mover, anywhere in the game; an action never taken counts as 1, so it is tried). 0,
    /// the default: off.
    pub mast: f64,
    /// RAVE (rapid action value estimation, Gelly and Silver 2007): the equivalence
    /// parameter `k` of the blend of an action's own mean with its all-moves-as-first mean
    /// (the rewards of the iterations in which its seat took it anywhere after the node),
    /// `beta = sqrt(k / (3 n + k))` for `n` visits: early, the shared estimate guides the
    /// choice; with visits, the action's own. 0, the default: off.
    pub rave: f64,
    /// Tree reuse: in an exact search, the next decision starts from the part of this
    /// decision's tree below the position reached (found by replaying up to
    /// [`REUSE_DEPTH`] decisions from the last root), its statistics kept; the budget counts
    /// the new playouts only. Off by default: the choice then depends on the searches before
    /// it as well as on the position.
    pub reuse: bool,
}

/// The most decisions between two searches for which tree reuse looks for the new root.
pub const REUSE_DEPTH: usize = 4;

/// The most positions tree reuse replays to find the new root.
pub(super) const REUSE_TRIES: usize = 512;

impl Default for MctsConfig {
    fn default() -> Self {
        MctsConfig {
            budget: Budget::Playouts(DEFAULT_PLAYOUTS),
            exploration: 0.5,
            score_weight: 0.25,
            threads: 1,
            max_rollout: 100_000,
            decisive: false,
            greedy: 0.0,
            sample: 4,
            widen: 0.0,
            mast: 0.0,
            rave: 0.0,
            reuse: false,
        }
    }
}
