//! `suggest`: the action an MCTS search suggests to the seat that must act, with the
//! session's settings or the request's playouts; with tree reuse, each seat's search kept
//! between its requests.

use super::protocol::{self, Code, Error, Reply};
use super::{actor_name, run_error};
use crate::agents::{Budget, Mcts, MctsConfig};
use crate::engine::{Action, Actor, Match};
use crate::ir::Game;

/// The action a search suggests to the seat that must act: the bound seat (searching from
/// what it may see), or the actor for a trusted client. The search is seeded from the
/// match's seed and its number of decisions, so a position gets the same suggestion again
/// (with a budget in playouts, and without tree reuse: with it, a seat's search goes on from
/// its last one, kept in `kept`).
pub(super) fn suggest(
    g: &Game,
    m: &Match,
    (seat, to_act): (Option<u8>, Option<u8>),
    playouts: Option<u64>,
    search: &MctsConfig,
    kept: &mut Vec<Option<Mcts>>,
) -> Result<Reply, Error> {
    let who = match (seat, to_act, m.actor()) {
        (_, _, Actor::Nobody) => return Err(Error::new(Code::Finished, "the game is over")),
        (Some(s), None, actor) => {
            return Err(Error::new(
                Code::NotYourTurn,
                format!(
                    "{} must act now, not {}",
                    actor_name(actor),
                    crate::ir::player_name(s)
                ),
            ))
        }
        (Some(_), Some(s), _) | (None, _, Actor::Player(s)) => s,
        (None, _, Actor::Chance) => {
            return Err(Error::new(
                Code::NotYourTurn,
                "chance must act now: `legal` lists its outcomes with their probabilities",
            ))
        }
    };
    // Playouts named in the request replace the budget; else the session's, a time included.
    let budget = match (playouts, search.budget) {
        (Some(p), _) if p == 0 || p > protocol::MAX_SUGGEST_PLAYOUTS => {
            return Err(Error::new(
                Code::BadRequest,
                format!(
                    "`suggest`: playouts must be from 1 to {}",
                    protocol::MAX_SUGGEST_PLAYOUTS
                ),
            ))
        }
        (Some(p), _) => Budget::Playouts(p),
        (None, Budget::Playouts(n)) => Budget::Playouts(n.clamp(1, protocol::MAX_SUGGEST_PLAYOUTS)),
        (None, time) => time,
    };
    let legal = m.legal_for(who).map_err(|e| run_error(g, &e))?;
    let actions: Vec<Action> = legal.iter().map(|(a, _)| *a).collect();
    let config = MctsConfig {
        budget,
        ..search.clone()
    };
    let seed = crate::run::game_seed(m.config().seed, m.log().len() as u64);
    let chosen = if config.reuse {
        let at = usize::from(who);
        if kept.len() <= at {
            kept.resize_with(at + 1, || None);
        }
        let agent = kept[at].get_or_insert_with(|| Mcts::new(config.clone(), seed));
        agent.renew(config, seed);
        agent.choose_for(g, m.state(), who, &actions)
    } else {
        Mcts::new(config, seed).choose_for(g, m.state(), who, &actions)
    };
    let text = legal
        .into_iter()
        .find(|(a, _)| Some(*a) == chosen)
        .map(|(_, t)| t)
        .ok_or_else(|| Error::new(Code::RulesError, "no legal action to suggest"))?;
    Ok(Reply::Suggestion { action: text })
}
