//! Match runners: whole games played by agents, as library code the command line and the
//! tests call alike.
//!
//! - [`playout`]: the one loop that plays a game to its end, asking [`Seats`] for every
//!   decision; [`simulate`] and [`bench`] are built on it.
//! - [`simulate::simulate`]: many seeded games, random or played by the agents given,
//!   summarised in a [`Summary`] of counts that add up exactly across threads and shards
//!   ([`compare::merge`]); [`compare::compare`] tests the differences between variants
//!   ([`stats`]), and [`words::summary`] says the clear ones in a paragraph.
//! - [`count::count`]: the whole game tree to a depth.
//! - [`bench::playouts_for`]: random playouts for a fixed time.
//! - [`scenarios::run_text`]: the scenarios of a scenario file.
//!
//! Seeds: game `i` of a run with seed `s` starts with [`game_seed`]`(s, i)`, and a random
//! agent playing it is seeded with [`agent_seed`] of that; so a game can be replayed alone.

pub mod bench;
pub mod compare;
pub mod count;
pub mod meet;
pub mod play;
pub mod scenarios;
pub mod simulate;
pub mod stats;
pub mod summary;
pub mod tune;
pub mod words;

pub use count::{count, count_threads, Counts, MAX_DEPTH};
pub use simulate::{simulate, simulate_agents, simulate_with, Options};
pub use summary::{Shard, Summary};

use crate::agents::Agent;
use crate::engine::{Action, Actor, RunError, State};
use crate::ir::Game;

/// The most decisions (players' and chance's together) a game may take in a runner before it
/// is stopped as endless, with an error.
pub const MAX_DECISIONS: u64 = 1_000_000;

/// The stack of each worker thread of [`simulate_with`] and [`count_threads`]: deep rules
/// recurse in the engine, and a thread's default stack (2 MiB) is smaller than the main
/// thread's.
pub const THREAD_STACK: usize = 64 << 20;

/// A seed for game `i` of a run: spread so that neighbouring games share nothing.
pub fn game_seed(seed: u64, i: u64) -> u64 {
    let mut z = seed.wrapping_add(i.wrapping_mul(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
    z ^ (z >> 31)
}

/// The seed of the random agent that plays a game started with `game_seed`.
pub fn agent_seed(game_seed: u64) -> u64 {
    game_seed ^ 0x5EED
}

/// The seed of the agent of `seat` in a game started with `game_seed`, when the seats have
/// agents of their own (a run with searching agents).
pub fn seat_seed(game_seed: u64, seat: u8) -> u64 {
    self::game_seed(agent_seed(game_seed), u64::from(seat) + 1)
}

/// Who chooses at each decision of a playout.
pub enum Seats<'a> {
    /// One agent for every seat, and for chance when chance is external.
    One(&'a mut dyn Agent),
    /// An agent per seat, in seat order, and one for chance (used when chance is external).
    Each {
        /// The agent of each seat.
        seats: Vec<&'a mut dyn Agent>,
        /// The agent that picks chance outcomes.
        chance: &'a mut dyn Agent,
    },
}

impl<'a> Seats<'a> {
    fn agent(&mut self, actor: Actor) -> Option<&mut (dyn Agent + 'a)> {
        match (self, actor) {
            (Seats::One(a), _) => Some(&mut **a),
            (Seats::Each { seats, .. }, Actor::Player(p)) => {
                seats.get_mut(p as usize).map(|a| &mut **a)
            }
            (Seats::Each { chance, .. }, _) => Some(&mut **chance),
        }
    }
}

/// What a finished playout took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Playout {
    /// Decisions taken, players' and chance's.
    pub decisions: u64,
    /// Players' decisions only.
    pub turns: u64,
}

/// Plays `st` to the end: at each decision reads the legal actions where the state keeps
/// them ([`Game::listed`]) or lists them into `buf` (scratch space, kept between calls so
/// that playouts do not allocate), shows them to `observe`,
/// and applies the action the actor's agent chooses. An error when a rule fails, when an
/// agent chooses nothing, or when the game is not over after [`MAX_DECISIONS`].
pub fn playout(
    g: &Game,
    st: &mut State,
    seats: &mut Seats,
    buf: &mut Vec<Action>,
    observe: impl FnMut(&State, &[Action]),
) -> Result<Playout, RunError> {
    playout_within(g, st, seats, buf, u64::MAX, observe)
}

/// [`playout`], but stops without an error once the players have taken `max_turns`
/// decisions: the game is then left unfinished (`st.outcome()` is `None`). A limit of the
/// harness, not of the rules (`simulate --max-turns`).
pub fn playout_within(
    g: &Game,
    st: &mut State,
    seats: &mut Seats,
    buf: &mut Vec<Action>,
    max_turns: u64,
    mut observe: impl FnMut(&State, &[Action]),
) -> Result<Playout, RunError> {
    let mut p = Playout::default();
    loop {
        let actor = g.actor(st);
        if actor == Actor::Nobody || p.turns >= max_turns {
            return Ok(p);
        }
        if p.decisions >= MAX_DECISIONS {
            return Err(RunError::Limit {
                message: format!("the game did not end within {MAX_DECISIONS} decisions"),
                span: None,
            });
        }
        // The options listed when the game paused are read where they are kept.
        let legal = match g.listed(st) {
            Some(listed) => listed,
            None => {
                g.legal(st, buf)?;
                &buf[..]
            }
        };
        observe(st, legal);
        let a = seats
            .agent(actor)
            .and_then(|agent| agent.choose(g, st, legal))
            .ok_or_else(|| RunError::rule("no legal action", None))?;
        g.apply_unchecked(st, &a)?;
        p.decisions += 1;
        if matches!(actor, Actor::Player(_)) {
            p.turns += 1;
        }
    }
}

/// Runs `f(0)`, ..., `f(threads - 1)` at once, each on a scoped thread with a
/// [`THREAD_STACK`] stack, and returns their results in that order (`None` for a thread that
/// panicked). A thread the system refuses to start runs on this one.
pub(crate) fn in_threads<T: Send>(threads: usize, f: impl Fn(usize) -> T + Sync) -> Vec<Option<T>> {
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                std::thread::Builder::new()
                    .stack_size(THREAD_STACK)
                    .spawn_scoped(scope, move || f(t))
                    .map_err(|_| t)
            })
            .collect();
        handles
            .into_iter()
            .map(|h| match h {
                Ok(h) => h.join().ok(),
                Err(t) => Some(f(t)),
            })
            .collect()
    })
}
