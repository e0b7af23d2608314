//! Agents: players that choose actions. They see only the engine's API.
//!
//! Every agent implements [`Agent`]; the match runners in [`crate::run`] ask an agent for
//! each decision. [`RandomAgent`] picks uniformly; [`Mcts`] searches (Monte Carlo tree
//! search over what its seat may see); [`pick_chance`] draws a chance outcome by its weight.
//! [`AgentSpec`] names an agent as the command line does (`random`, `mcts:2000`).

mod config;
mod mast;
mod mcts;
mod reward;
mod spec;
mod tree;

pub use config::{Budget, MctsConfig, DEFAULT_PLAYOUTS, REUSE_DEPTH};
pub use mcts::{ActionStats, Mcts, Search};
pub use spec::{AgentSpec, MAX_PLAYOUTS, MAX_TIME};

use crate::engine::{Action, RunError, State};
use crate::ir::Game;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A player that chooses actions.
///
/// The runner calls [`Agent::choose`] at each decision the agent takes: a seat's, or chance's
/// when chance is external. The agent gets the game and the whole state, so that an agent
/// that searches can run the engine; an agent playing a seat must base its choice only on
/// what that seat may know: [`Game::view`] for that seat, or states sampled with
/// [`Game::determinize`], never the hidden parts of `state` itself.
pub trait Agent {
    /// One of `legal` (the legal actions of the actor now, in the engine's order), or `None`
    /// when the agent cannot choose (`legal` is empty).
    fn choose(&mut self, game: &Game, state: &State, legal: &[Action]) -> Option<Action>;
}

/// Picks uniformly among the legal actions.
pub struct RandomAgent {
    rng: ChaCha8Rng,
}

impl RandomAgent {
    /// An agent whose picks are determined by `seed` (ChaCha8).
    pub fn new(seed: u64) -> Self {
        RandomAgent {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
    /// One of `legal`, each with the same probability; `None` when `legal` is empty.
    pub fn pick(&mut self, legal: &[Action]) -> Option<Action> {
        if legal.is_empty() {
            None
        } else {
            Some(legal[self.rng.gen_range(0..legal.len())])
        }
    }
}

impl Agent for RandomAgent {
    /// [`RandomAgent::pick`]: chance outcomes too are picked uniformly, ignoring their weights.
    fn choose(&mut self, _game: &Game, _state: &State, legal: &[Action]) -> Option<Action> {
        self.pick(legal)
    }
}

/// Picks an outcome of the waiting chance event with its probability (for games run with
/// external chance); `None` when no chance event waits.
pub fn pick_chance(g: &Game, st: &State, rng: &mut ChaCha8Rng) -> Result<Option<Action>, RunError> {
    let mut outcomes = Vec::new();
    let total = g.chance_outcomes(st, &mut |v, w| outcomes.push((v, w)))?;
    if total == 0 {
        return Ok(None);
    }
    let mut r = rng.gen_range(0..total);
    for (v, w) in outcomes {
        if r < w {
            return Ok(Some(Action::chance(v)));
        }
        r -= w;
    }
    Ok(None)
}
