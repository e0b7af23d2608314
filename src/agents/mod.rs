//! Agents: players that choose actions. They see only the engine's API.

use crate::engine::{Action, Actor, RunError, State};
use crate::ir::Game;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

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

/// Plays a game to the end with `agent` choosing for every player, and for chance when chance
/// is external (uniformly among the listed outcomes, ignoring their weights); `buf` is scratch
/// space. Returns the number of decisions taken; an error if the game is not over after
/// `max_decisions`.
pub fn random_playout(
    g: &Game,
    st: &mut State,
    agent: &mut RandomAgent,
    buf: &mut Vec<Action>,
    max_decisions: u64,
) -> Result<u64, RunError> {
    let mut n = 0;
    loop {
        match g.actor(st) {
            Actor::Nobody => return Ok(n),
            Actor::Player(_) | Actor::Chance => {
                if n >= max_decisions {
                    return Err(RunError::Limit {
                        message: format!("the game did not end within {max_decisions} decisions"),
                        span: None,
                    });
                }
                g.legal(st, buf)?;
                let Some(a) = agent.pick(buf) else {
                    return Err(RunError::rule("no legal action", None));
                };
                g.apply_unchecked(st, &a)?;
                n += 1;
            }
        }
    }
}
